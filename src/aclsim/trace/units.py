"""Human-readable byte counts and durations for tables and span names."""

from __future__ import annotations

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def fmt_bytes(n: float) -> str:
    """1536 -> '1.5 KiB', 4194304 -> '4 MiB'; exact below 1 KiB."""
    i = 0
    while n >= 1024 and i < len(_UNITS) - 1:
        n /= 1024
        i += 1
    return f"{int(n)} B" if i == 0 else f"{n:.1f}".removesuffix(".0") + f" {_UNITS[i]}"


def fmt_time(seconds: float) -> str:
    """Seconds as 'x.xx s', 'x.xx ms' or 'x.xx us' (three significant figures)."""
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} us"
