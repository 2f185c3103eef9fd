"""leakcheck: device and pinned host allocations still live at reset_device, finalize or exit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..runtime import Allocation, DeviceReset, HostAllocation, Release
from .findings import Finding, Report, user_stack


class LeakCheck:
    """Bus observer for leakcheck: reports each leaked allocation once, with its Python stack."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.live: dict[Any, Allocation | HostAllocation] = {}  # allocation -> itself, in malloc order
        self._groups: dict[tuple, _Group] = {}  # fold key -> the leaks reported from one source line
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
        """Report `a`; leaks from one source line fold into one finding with their total and each size.

        compute-sanitizer's leak report has one record per allocation, with its size; here the first
        _LISTED allocations of a line are listed with their sizes and the rest are summed up.
        """
        self.live.pop(a, None)
        if isinstance(a, Allocation):
            what, free, at = f"device memory ({a.api}) on device {a.device}", "acl.rt.free", f"address {a.start:#x}, "
        else:  # host addresses differ from run to run: not printed
            what, free, at = "pinned host memory (malloc_host)", "acl.rt.free_host", ""
        site = a.site
        fold = ("leak", (site.filename, site.lineno) if site else id(a), what)
        self._order += 1
        group = self._groups.get(fold)
        if group is None:
            f = Finding(
                "leakcheck", "leak", "", [f"{at}{a.size} bytes requested", "allocated at:",
                                          *("    " + line for line in user_stack(site))],
                f"call {free} on it when done (before acl.rt.reset_device / acl.finalize)",
                fold, (1 << 62, self._order), None, {"alloc": site}, nbytes=a.size,
            )
            group = self._groups[fold] = _Group(f, when)
            self.report.add(f)
        else:  # the finding the report holds grows by one allocation
            f = group.finding
            f.count += 1
            f.nbytes += a.size
            listed = f.details.index("allocated at:")
            if f.count <= _LISTED:
                f.details.insert(listed, f"{at}{a.size} bytes requested")
            else:
                if group.unlisted:
                    del f.details[listed - 1]
                    listed -= 1
                group.unlisted += 1
                group.unlisted_bytes += a.size
                f.details.insert(listed, f"... and {group.unlisted} more allocation{'s' * (group.unlisted != 1)}, "
                                         f"{group.unlisted_bytes} bytes in all")
        n = f" in {f.count} allocations" if f.count > 1 else ""
        f.headline = f"Leaked {f.nbytes} bytes{n} of {what}, still allocated at {group.when}"


_LISTED = 10  # allocations of one source line listed one by one in a leak report


@dataclass
class _Group:
    """The leaks of one source line: their finding, the moment of the first, the allocations not listed."""

    finding: Finding
    when: str
    unlisted: int = 0
    unlisted_bytes: int = 0
