"""kind check (always on under --check): a memcpy kind that contradicts the pointers."""

from __future__ import annotations

from .. import constants as C
from ..runtime import KindMismatch
from .findings import Finding, Report, line_of, where
from .order import Order


def kind_name(kind: int) -> str:
    return f"{C.MEMCPY_KIND_NAMES.get(kind, 'kind')} ({kind})"


_SIDES = {0: ("host", "host"), 1: ("host", "device"), 2: ("device", "host"), 3: ("device", "device")}


class KindCheck:
    """Bus observer for the memcpy kind check."""

    def __init__(self, report: Report, order: Order) -> None:
        self.report = report
        self.order = order

    def on_kind_mismatch(self, km: KindMismatch) -> None:
        fn, given, actual, site = km.api, km.given, km.actual, km.site
        src, dst = _SIDES[actual]
        self.report.add(Finding(
            "kindcheck", "wrong-memcpy-kind", f"Wrong copy direction: {fn} says {kind_name(given)}",
            [f"call at {where(site)}", f"but the source is {src} memory and the destination is {dst} memory: "
             f"this is {kind_name(actual)}",
             "the current runtime silently corrects the kind from the pointers; older runtimes reject the call"],
            f"pass {C.MEMCPY_KIND_NAMES[actual]} at {line_of(site)} (or swap dst and src if they are reversed)",
            ("wrong-memcpy-kind", (site.filename, site.lineno) if site else None, given),
            (self.order.next_tick(),), None, {"call": site},
        ))
