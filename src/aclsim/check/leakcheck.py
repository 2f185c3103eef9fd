"""leakcheck: device and pinned host allocations still live at reset_device, finalize or exit."""

from __future__ import annotations

from typing import Any

from ..runtime import Allocation, DeviceReset, HostAllocation, Release
from .findings import Finding, Report, user_stack


class LeakCheck:
    """Bus observer for leakcheck: reports each leaked allocation once, with its Python stack."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.live: dict[Any, Allocation | HostAllocation] = {}  # allocation -> itself, in malloc order
        self._order = 0

    def on_malloc(self, a: Allocation) -> None:
        self.live[a] = a

    def on_free(self, rel: Release) -> None:
        self.live.pop(rel.alloc, None)

    def on_malloc_host(self, h: HostAllocation) -> None:
        self.live[h] = h

    def on_free_host(self, rel: Release) -> None:
        self.live.pop(rel.alloc, None)

    def on_device_reset(self, reset: DeviceReset) -> None:
        for a in reset.leaked:
            self._leak(a, f"acl.rt.reset_device({reset.device})")

    def on_finalize(self, _: None) -> None:
        self.report_live("acl.finalize")

    def on_exit(self, _: None) -> None:
        self.report_live("process exit")

    def report_live(self, when: str) -> None:
        """Report every allocation still live (`when`: the moment, for the headline)."""
        for a in list(self.live.values()):
            self._leak(a, when)

    def _leak(self, a: Allocation | HostAllocation, when: str) -> None:
        self.live.pop(a, None)
        if isinstance(a, Allocation):
            what, free, at = f"device memory ({a.api}) on device {a.device}", "acl.rt.free", f"address {a.start:#x}, "
        else:  # host addresses differ from run to run: not printed
            what, free, at = "pinned host memory (malloc_host)", "acl.rt.free_host", ""
        site = a.site
        stack = user_stack(site)
        self._order += 1
        self.report.add(Finding(
            "leakcheck", "leak", f"Leaked {a.size} bytes of {what}, still allocated at {when}",
            [f"{at}{a.size} bytes requested", "allocated at:", *("    " + f for f in stack)],
            f"call {free} on it when done (before acl.rt.reset_device / acl.finalize)",
            ("leak", (site.filename, site.lineno) if site else id(a), what),
            (1 << 62, self._order), None, {"alloc": site}, nbytes=a.size,
        ))
