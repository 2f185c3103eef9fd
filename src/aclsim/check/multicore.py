"""memcheck's multi-core corruption rule for Ascend C launches (msSanitizer's GM "ownership").

msSanitizer (user guide §6.1.3.2, "Multi-Core Corruption"): without explicit inter-core
synchronisation, corruption may occur "when the GM regions accessed by multiple cores overlap, and
at least one core performs a write operation to the overlapped address"; a region written by one
core is owned by it and "any access to this memory region by another core" is reported, at the
WARNING level, as `out of bounds`. Atomic stores (set_atomic_add/max/min) are exempt among
themselves (Ascend/mssanitizer's docs on multi-core checks). The cores of a launch run in parallel on hardware,
so the rule here is symmetric: bytes written by one core and read or written by another core of
the same launch, unless both stores are atomic. The verdict does not depend on the order aclsim
happens to run the cores in.

Accesses are collected per launch as byte runs (contiguous runs of one core at one kernel line
are coalesced as they arrive) and judged when the launch finishes, with interval sweeps: per core
the union of its runs, then the number of distinct cores covering each elementary byte segment.
One finding per kernel and pair of kernel lines (later launches add to its count). Cores that
synchronise (cross-core flags, sync_all) order their accesses: each access carries its core's
epoch and each epoch a vector clock (KernelSync), and a conflict whose overlapping runs are all
ordered that way (one happens before the other) is not reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..runtime import Allocation, KernelAccess, KernelSync, Task
from .describe import alloc_line, alloc_text, kernel_where, range_text
from .findings import Finding, Report, where
from .kspan import span_of
from .order import Order


class _Site(NamedTuple):
    """Where and how a kernel touches GM: its source line and the kind of access."""

    line: int
    write: bool
    atomic: bool

    @property
    def verb(self) -> str:
        return ("atomically writes" if self.atomic else "writes") if self.write else "reads"


@dataclass
class _Runs:
    """Byte runs [lo, hi) one launch touched in one allocation, with the core and site of each."""

    lo: list[int] = field(default_factory=list)
    hi: list[int] = field(default_factory=list)
    core: list[int] = field(default_factory=list)
    site: list[int] = field(default_factory=list)
    epoch: list[int] = field(default_factory=list)
    sites: dict[tuple[int, bool, bool], int] = field(default_factory=dict)  # (line, write, atomic) -> site id
    last: dict[tuple[int, int], int] = field(default_factory=dict)  # (core, site) -> index of its latest run

    def add(self, lo: int, hi: int, core: int, site: int, epoch: int = 0) -> None:
        i = self.last.get((core, site))
        if i is not None and self.hi[i] == lo and self.epoch[i] == epoch:  # the next tile of a stream of copies
            self.hi[i] = hi
            return
        self.last[(core, site)] = len(self.lo)
        self.lo.append(lo)
        self.hi.append(hi)
        self.core.append(core)
        self.site.append(site)
        self.epoch.append(epoch)

    def add_many(self, lo: np.ndarray, hi: np.ndarray, core: int, site: int, epoch: int = 0) -> None:
        self.last[(core, site)] = len(self.lo) + len(lo) - 1
        self.lo += lo.tolist()
        self.hi += hi.tolist()
        self.core += [core] * len(lo)
        self.site += [site] * len(lo)
        self.epoch += [epoch] * len(lo)


@dataclass
class _Conflict:
    """Bytes two sites of one launch touch from different cores."""

    a: _Site
    b: _Site
    nbytes: int
    ranges: int  # disjoint overlapping byte ranges
    example: tuple[tuple[int, int, int], tuple[int, int, int]]  # (core, lo, hi) of a run of a, one of b
    cores: list[int]


class MultiCore:
    """Bus observer: overlapping GM accesses of different cores within one Ascend C launch."""

    tool = "memcheck"

    def __init__(self, report: Report, order: Order) -> None:
        self.report = report
        self.order = order
        self.launches: dict[int, dict[Allocation, _Runs]] = {}  # task.seq -> runs per allocation
        self.clocks: dict[int, dict[tuple[int, int], dict]] = {}  # task.seq -> (core, epoch) -> vector clock

    def on_kernel_access(self, ka: KernelAccess) -> None:
        core = ka.core
        if core is None or ka.hi <= ka.lo:
            return  # SIMT lanes are not cores: this rule is Ascend C's
        launch = self.launches.get(ka.task.seq)
        if launch is None:
            launch = self.launches[ka.task.seq] = {}
        runs = launch.get(ka.alloc)
        if runs is None:
            runs = launch[ka.alloc] = _Runs()
        key = (ka.line or 0, ka.write, ka.atomic)
        site = runs.sites.get(key)
        if site is None:
            site = runs.sites[key] = len(runs.sites)
        if ka.offsets is None or span_of(ka).contiguous:
            runs.add(max(ka.lo, 0), ka.hi, core, site, ka.epoch)
            return
        offs = np.unique(np.asarray(ka.offsets, dtype=np.int64))  # strided blocks: one run per block
        k = ka.itemsize
        cut = np.flatnonzero(np.diff(offs) != k) + 1
        lo = offs[np.r_[0, cut]]
        hi = offs[np.r_[cut - 1, len(offs) - 1]] + k
        runs.add_many(np.maximum(lo, 0), hi, core, site, ka.epoch)

    def on_kernel_sync(self, ks: KernelSync) -> None:
        self.clocks.setdefault(ks.task.seq, {})[(ks.core, ks.epoch)] = ks.clock

    def on_task_done(self, task: Task) -> None:
        launch = self.launches.pop(task.seq, None)
        clocks = self.clocks.pop(task.seq, {})
        if not launch:
            return
        tc = self.order.clock_of(task)
        tick = tc.tick if tc is not None else self.order.tick
        for a, runs in launch.items():
            for c in _conflicts(runs, clocks):
                self._report(task, a, c, tick)

    def _report(self, task: Task, a: Allocation, c: _Conflict, tick: int) -> None:
        (ca, alo, ahi), (cb, blo, bhi) = c.example
        kind = "write-write" if c.a.write and c.b.write else "read-write"
        lines = [
            f"{_core_name(task, ca)} {c.a.verb} {range_text(a, alo, ahi)} at {kernel_where(task, c.a.line or None)}",
            f"{_core_name(task, cb)} {c.b.verb} {range_text(a, blo, bhi)} at {kernel_where(task, c.b.line or None)}",
            f"these two overlap on {range_text(a, max(alo, blo), min(ahi, bhi))}",
            f"in all, {c.nbytes} bytes in {c.ranges} range{'s' * (c.ranges != 1)} conflict, between cores "
            f"{_core_list(c.cores)} (of {getattr(task.work, 'cores', None) or '?'})",
            "the cores of a launch run in parallel: "
            + ("which core's data ends up in these bytes is undefined" if kind == "write-write"
               else "the reading core may see the old or the new data"),
            f"{alloc_text(a)}, {alloc_line(a)}",
            f"launched at {where(task.site)}",
        ]
        if kind == "read-write":
            fix = ("a core must not read GM bytes another core writes in the same launch: read only the "
                   "core's own slice, or split the kernel into two launches")
        elif c.a.atomic or c.b.atomic:
            fix = ("make every store to these bytes atomic (asc.set_atomic_add(dtype) before each data_copy to "
                   "GM, asc.set_atomic_none() after), or give each core its own slice")
        else:
            fix = ("give each core its own slice: offset the GM buffer by get_block_idx() * block_length and "
                   "copy at most block_length elements; to accumulate into shared bytes instead, call "
                   "asc.set_atomic_add(dtype) before the data_copy to GM")
        if kind == "read-write":
            headline = f"a core of kernel {task.name} reads global memory another core writes"
        else:
            how = "not all atomically" if c.a.atomic or c.b.atomic else "without atomics"
            headline = f"different cores of kernel {task.name} write the same global memory, {how}"
        self.report.add(Finding(
            self.tool, "multi-core-corruption", f"Multi-core corruption: {headline}", lines, fix,
            ("multi-core-corruption", task.name, getattr(task.work, "source", None), c.a, c.b),
            (tick, c.a.line, c.b.line), None, {"launch": task.site, "alloc": a.site}, severity="warning",
        ))


def _conflicts(runs: _Runs, clocks: dict[tuple[int, int], dict] | None = None) -> list[_Conflict]:
    """The conflicting site pairs of one allocation, in site order (`clocks`: the launch's KernelSync
    vector clocks; pairs whose overlapping runs are all ordered by them are left out)."""
    core = np.asarray(runs.core, dtype=np.int64)
    if len(runs.lo) < 2 or not (core != core[0]).any():
        return []
    lo = np.asarray(runs.lo, dtype=np.int64)
    hi = np.asarray(runs.hi, dtype=np.int64)
    site = np.asarray(runs.site, dtype=np.int64)
    keys = [_Site(*k) for k in runs.sites]
    write = np.array([k.write for k in keys])[site]
    plain = write & ~np.array([k.atomic for k in keys])[site]
    bounds = np.unique(np.concatenate([lo, hi]))
    n_any = _cover(bounds, lo, hi, core)
    if not (n_any >= 2).any():
        return []
    n_plain = _cover(bounds, lo[plain], hi[plain], core[plain])
    n_write = _cover(bounds, lo[write], hi[write], core[write])
    n_read = _cover(bounds, lo[~write], hi[~write], core[~write])
    # Plain store + any other core, or atomic store + a reader (another core then always exists).
    if not ((n_any >= 2) & ((n_plain >= 1) | ((n_write >= 1) & (n_read >= 1)))).any():
        return []
    order = sorted(range(len(keys)), key=lambda i: (keys[i].line, not keys[i].write, keys[i].atomic))
    out = []
    for x, i in enumerate(order):
        for j in order[x:]:
            a, b = keys[i], keys[j]
            if not (a.write or b.write) or (a.atomic and b.atomic) or (i == j and not a.write):
                continue
            mi, mj = site == i, site == j
            if i == j:
                hit = _cover(bounds, lo[mi], hi[mi], core[mi]) >= 2
            else:
                mij = mi | mj
                hit = ((_cover(bounds, lo[mi], hi[mi], core[mi]) >= 1) & (_cover(bounds, lo[mj], hi[mj], core[mj]) >= 1)
                       & (_cover(bounds, lo[mij], hi[mij], core[mij]) >= 2))
            if hit.any() and (not clocks or _unordered(hit, bounds, lo, hi, core, runs.epoch, mi, mj, clocks)):
                out.append(_describe(a, b, hit, bounds, lo, hi, core, mi, mj))
    return out


def _unordered(hit: np.ndarray, bounds: np.ndarray, lo: np.ndarray, hi: np.ndarray, core: np.ndarray,
               epochs: list[int], mi: np.ndarray, mj: np.ndarray, clocks: dict[tuple[int, int], dict]) -> bool:
    """Whether two runs of sites i and j (masks) overlap inside `hit` from cores whose epochs are not
    ordered by the vector clocks (neither happens before the other)."""
    seg = np.flatnonzero(hit)
    new = np.r_[True, seg[1:] != seg[:-1] + 1]
    rlo, rhi = bounds[seg[new]], bounds[seg[np.r_[new[1:], True]] + 1]
    idx = np.searchsorted(rlo, hi, side="left") - 1
    inside = (idx >= 0) & (rhi[np.maximum(idx, 0)] > lo)  # runs touching a hit range
    epoch = np.asarray(epochs, dtype=np.int64)
    actors_i = {(int(c), int(e)) for c, e in zip(core[mi & inside], epoch[mi & inside], strict=True)}
    actors_j = {(int(c), int(e)) for c, e in zip(core[mj & inside], epoch[mj & inside], strict=True)}
    for ai in actors_i:
        for aj in actors_j:
            if ai[0] == aj[0] or _before(ai, aj, clocks) or _before(aj, ai, clocks):
                continue
            ra = mi & inside & (core == ai[0]) & (epoch == ai[1])
            rb = mj & inside & (core == aj[0]) & (epoch == aj[1])
            both = ra | rb
            if ((_cover(bounds, lo[both], hi[both], core[both]) >= 2) & hit).any():
                return True
    return False


def _before(a: tuple[int, int], b: tuple[int, int], clocks: dict[tuple[int, int], dict]) -> bool:
    """Core a's accesses in epoch a[1] happen before core b's in epoch b[1]."""
    return clocks.get(b, {}).get(a[0], -1) >= a[1]


def _describe(a: _Site, b: _Site, hit: np.ndarray, bounds: np.ndarray, lo: np.ndarray, hi: np.ndarray,
              core: np.ndarray, mi: np.ndarray, mj: np.ndarray) -> _Conflict:
    seg = np.flatnonzero(hit)
    # Merge adjacent hit segments into disjoint ranges.
    new = np.r_[True, seg[1:] != seg[:-1] + 1]
    rlo = bounds[seg[new]]
    rhi = bounds[seg[np.r_[new[1:], True]] + 1]
    s0, s1 = int(bounds[seg[0]]), int(bounds[seg[0] + 1])
    p, q = _example(np.flatnonzero(mi & (lo <= s0) & (hi >= s1)), np.flatnonzero(mj & (lo <= s0) & (hi >= s1)),
                    core)
    m = mi | mj
    idx = np.searchsorted(rlo, hi, side="left") - 1  # the last overlap range starting before each run ends
    touched = m & (idx >= 0) & (rhi[np.maximum(idx, 0)] > lo)
    return _Conflict(
        a, b, int((rhi - rlo).sum()), len(rlo),
        ((int(core[p]), int(lo[p]), int(hi[p])), (int(core[q]), int(lo[q]), int(hi[q]))),
        np.unique(core[touched]).tolist(),
    )


def _example(ra: np.ndarray, rb: np.ndarray, core: np.ndarray) -> tuple[int, int]:
    """A run of `ra` and a run of `rb` (run indices covering one segment) of different cores, lowest cores first."""
    ra = ra[np.argsort(core[ra], kind="stable")]
    rb = rb[np.argsort(core[rb], kind="stable")]
    p = int(ra[0])
    others = rb[core[rb] != core[p]]
    if len(others):
        return p, int(others[0])
    return int(ra[core[ra] != core[p]][0]), int(rb[0])  # rb holds only core[p]: take a's next core


def _cover(bounds: np.ndarray, lo: np.ndarray, hi: np.ndarray, core: np.ndarray) -> np.ndarray:
    """Per elementary segment [bounds[i], bounds[i+1]): how many distinct cores cover it."""
    if len(lo) == 0:
        return np.zeros(len(bounds) - 1, dtype=np.int64)
    ulo, uhi = _union_per_core(lo, hi, core)
    d = np.bincount(np.searchsorted(bounds, ulo), minlength=len(bounds))
    d -= np.bincount(np.searchsorted(bounds, uhi), minlength=len(bounds))
    return np.cumsum(d)[:-1]


def _union_per_core(lo: np.ndarray, hi: np.ndarray, core: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each core's runs merged into disjoint ranges (cores kept apart by shifting them `span` bytes)."""
    span = int(hi.max()) + 1
    shift = core * span
    slo, shi = lo + shift, hi + shift
    o = np.argsort(slo, kind="stable")
    slo, shi = slo[o], shi[o]
    reach = np.maximum.accumulate(shi)
    start = np.r_[True, slo[1:] > reach[:-1]]
    first = np.flatnonzero(start)
    last = np.r_[first[1:] - 1, len(slo) - 1]
    back = (slo[first] // span) * span
    return slo[first] - back, reach[last] - back


def _core_name(task: Task, core: int) -> str:
    """'core i', or 'AIC g' for the cube core of block g in a mix launch whose AICs run the body (their
    ids follow the AIVs')."""
    aivs = getattr(task.work, "cores", None)
    return f"AIC {core - aivs}" if aivs is not None and core >= aivs else f"core {core}"


def _core_list(cores: list[int]) -> str:
    """`0-3, 5, 7-8`: sorted core indices with runs collapsed."""
    parts, i = [], 0
    while i < len(cores):
        j = i
        while j + 1 < len(cores) and cores[j + 1] == cores[j] + 1:
            j += 1
        parts.append(f"{cores[i]}-{cores[j]}" if j > i + 1 else ", ".join(map(str, cores[i : j + 1])))
        i = j + 1
    return ", ".join(parts)
