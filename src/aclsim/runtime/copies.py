"""Copies and fills (hicann/runtime docs/zh/api_ref/11-03_memory_copy_and_set.md): memcpy/memset, sync and async, 1-D and 2-D, and the kind rules.

Every byte range a call names is validated first (`region`): device memory must lie inside one live
allocation, host memory must be a pinned buffer or mapped with the needed permission. A refused
call writes no byte. A copy's direction is resolved from the pointers, as the current runtime does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import constants as C
from ..errors import AclError, Code
from .callbacks import running_callback
from .devrange import run_mode
from .host import MAPPINGS, HostAllocation, HostRegistry, host_view
from .memory import Allocation, is_device_address
from .observe import Access, Bus, CopyInFlight, HostCopy, HostWait, KindMismatch, Refused, Site, api, now, user_site
from .scheduler import Scheduler
from .streams import Stream
from .work import CopyWork, Task

H2H, H2D, D2H, D2D = 0, C.ACL_MEMCPY_HOST_TO_DEVICE, C.ACL_MEMCPY_DEVICE_TO_HOST, C.ACL_MEMCPY_DEVICE_TO_DEVICE
DIR_NAMES = {H2H: "H2H", H2D: "H2D", D2H: "D2H", D2D: "D2D"}


@dataclass
class Region:
    """A validated byte range: device memory, acl host memory or other (pageable) host memory."""

    addr: int
    nbytes: int
    where: str  # "device", "host", "unregistered"
    alloc: Allocation | HostAllocation | None

    @property
    def is_device(self) -> bool:
        return self.where == "device"

    def view(self) -> np.ndarray:
        if self.where == "device":
            lo = self.addr - self.alloc.start
            return self.alloc.data[lo : lo + self.nbytes]
        if isinstance(self.alloc, HostAllocation):
            lo = self.addr - self.alloc.start
            return self.alloc.buffer[lo : lo + self.nbytes]
        return host_view(self.addr, self.nbytes)


def actual_direction(dst: Region, src: Region) -> int:
    """The copy kind the pointers really call for."""
    return (D2D if src.is_device else H2D) if dst.is_device else (D2H if src.is_device else H2H)


# MemcpyKindReviseMap of ApiErrorDecorator::MemcpyKindAutoCorrect (hicann/runtime api_error.cc), used by
# aclrtMemcpyAsync: when one side is host memory acl did not allocate ("unregistered"), the kind passed must
# be one of these, else RT_ERROR_INVALID_VALUE (107000). Keys: (src, dst) locations. When both sides are acl
# memory the runtime forces the kind from the pointers instead, and DEFAULT (4) is always resolved.
_ASYNC_KINDS = {
    ("unregistered", "device"): (H2D, D2D),
    ("device", "unregistered"): (D2H, D2D),
    ("host", "unregistered"): (H2H, H2D),
    ("unregistered", "host"): (H2H, D2H),
    ("unregistered", "unregistered"): (H2H, H2D, D2H, D2D),
}


def _check_async_kind(fn: str, kind: int, dst: Region, src: Region) -> None:
    allowed = _ASYNC_KINDS.get((src.where, dst.where))
    if allowed is None or kind not in (H2H, H2D, D2H, D2D) or kind in allowed:
        return
    names = ", ".join(f"{DIR_NAMES[k]} ({k})" for k in allowed)
    raise AclError(
        Code.ERROR_RT_PARAM_INVALID,
        f"{fn}: kind {DIR_NAMES[kind]} ({kind}) cannot copy {src.where} memory to {dst.where} memory; "
        f"pass one of {names} or ACL_MEMCPY_DEFAULT (4)",
    )


def _copy_2d(dst: np.ndarray, dpitch: int, src: np.ndarray, spitch: int, width: int, height: int) -> None:
    dv = np.lib.stride_tricks.as_strided(dst, shape=(height, width), strides=(dpitch, 1))
    sv = np.lib.stride_tricks.as_strided(src, shape=(height, width), strides=(spitch, 1))
    np.copyto(dv, sv)


def _null_check(fn: str, **ptrs: int) -> None:
    for name, p in ptrs.items():
        if p == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {name} is 0 (NULL)")


def _check_counts(fn: str, count: int, dest_max: int) -> None:
    if dest_max == 0 or count > dest_max:
        raise AclError(
            Code.ERROR_RT_PARAM_INVALID,
            f"{fn}: count {count} is larger than the destination's max size {dest_max}; "
            "pass the destination buffer's size as dest_max and copy at most that many bytes",
        )


def _check_kind(fn: str, kind: int) -> None:
    if not 0 <= kind <= 5:
        raise AclError(
            Code.ERROR_INVALID_PARAM,
            f"{fn}: kind {kind} is not a valid copy kind here; use ACL_MEMCPY_HOST_TO_DEVICE (1), "
            "DEVICE_TO_HOST (2), DEVICE_TO_DEVICE (3), HOST_TO_HOST (0) or DEFAULT (4)",
        )


def _check_2d(fn: str, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int) -> None:
    """CheckMemcpy2dParam (hicann/runtime src/acl/aclrt_impl/memory.cpp): NULL pointers, a zero width or
    height, width > a pitch, and any kind but H2D, D2H, D2D or DEFAULT are 100000."""
    _null_check(fn, dst=dst, src=src)
    if width == 0 or height == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: width and height must be > 0 (got {width} x {height})")
    if width > dpitch or width > spitch:
        raise AclError(
            Code.ERROR_INVALID_PARAM,
            f"{fn}: width {width} must not exceed dpitch {dpitch} or spitch {spitch}",
        )
    if kind not in (H2D, D2H, D2D, C.ACL_MEMCPY_DEFAULT):
        raise AclError(
            Code.ERROR_INVALID_PARAM,
            f"{fn}: kind {kind} is not valid for a 2-D copy; use ACL_MEMCPY_HOST_TO_DEVICE (1), "
            "DEVICE_TO_HOST (2), DEVICE_TO_DEVICE (3) or DEFAULT (4)",
        )


class CopiesRoom:
    """Runtime methods that move or fill bytes."""

    bus: Bus
    lock: Any
    host: HostRegistry
    devices: list[Any]
    scheduler: Scheduler

    # ------------------------------------------------------------------ validation
    def region(self, addr: int, nbytes: int, write: bool, fn: str, arg: str) -> Region:
        """Validate [addr, addr + nbytes) as device or host memory; AclError otherwise."""
        if is_device_address(addr):
            a = self.find_allocation(addr)
            if a is None:
                raise AclError(
                    Code.ERROR_INVALID_PARAM,
                    f"{fn}: {arg}={addr:#x} is not inside any live device allocation (freed, or never allocated)",
                )
            if addr + nbytes > a.end:
                raise AclError(
                    Code.ERROR_RT_PARAM_INVALID,
                    f"{fn}: {arg}={addr:#x} + {nbytes} bytes runs {addr + nbytes - a.end} bytes past the end of the "
                    f"allocation at {a.start:#x} (requested {a.size} bytes, {a.alloc_size} reserved); "
                    "copy fewer bytes or allocate more",
                )
            return Region(addr, nbytes, "device", a)
        h = self.host.find(addr)
        if h is not None:
            if addr + nbytes <= h.end:
                return Region(addr, nbytes, "host", h)
            self._refuse(fn, arg, addr, nbytes, "host-overflow", h)
            raise AclError(
                Code.ERROR_RT_PARAM_INVALID,
                f"{fn}: {arg} + {nbytes} bytes runs {addr + nbytes - h.end} bytes past the end of the "
                f"{h.size}-byte pinned buffer from acl.rt.malloc_host it starts in; copy fewer bytes or allocate more",
            )
        freed = self.host.find_freed(addr)
        if freed is not None:
            self._refuse(fn, arg, addr, nbytes, "host-freed", freed)
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: {arg} points into a pinned buffer that acl.rt.free_host already released; "
                "free it only after its last use",
            )
        if not MAPPINGS.accessible(addr, nbytes, write):
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: {arg}={addr:#x} is neither device memory nor {'writable' if write else 'readable'} host "
                f"memory for {nbytes} bytes; pass a pointer from acl.rt.malloc, acl.rt.malloc_host "
                "or acl.util.bytes_to_ptr/numpy_to_ptr",
            )
        return Region(addr, nbytes, "unregistered", None)

    def _refuse(self, fn: str, arg: str, addr: int, nbytes: int, why: str, alloc: Any) -> None:
        if self.bus.observers:
            self.bus.emit("refused", Refused(fn, arg, addr, nbytes, why, alloc, user_site()))

    def _direction(self, fn: str, kind: int, dst: Region, src: Region) -> int:
        _check_kind(fn, kind)
        actual = actual_direction(dst, src)
        given = H2D if kind == C.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE else kind
        if given not in (C.ACL_MEMCPY_DEFAULT, actual) and self.bus.observers and run_mode() != "rc":
            # The runtime corrects the kind from the pointers (MemcpyKindAutoCorrect). In RC mode the process's
            # memory is device memory (Atlas 200 DK samples copy it with DEVICE_TO_DEVICE): any kind is right.
            self.bus.emit("kind_mismatch", KindMismatch(fn, kind, actual, user_site()))
        if actual == D2D and dst.alloc.device != src.alloc.device:
            a, b = src.alloc.device, dst.alloc.device
            if b not in self.devices[a].peers and a not in self.devices[b].peers:
                raise AclError(
                    Code.ERROR_RT_PARAM_INVALID,
                    f"{fn}: copy between device {a} and device {b} needs peer access; call "
                    f"acl.rt.device_enable_peer_access({b}, 0) with device {a} current first",
                )
        return actual

    # ------------------------------------------------------------------ observers
    def report_access(self, r: Region | None, write: bool, task: Task | None, what: str, site: Site | None) -> None:
        """Tell observers that `what` read or wrote the bytes of `r` (from the host when task is None): device
        memory as `access`, pinned host memory (malloc_host) as `host_access`; other host memory is not tracked."""
        if r is None:
            return
        event = "access" if r.is_device else "host_access" if type(r.alloc) is HostAllocation else None
        if event is not None and (r.is_device or self.bus.wants(event)):
            lo = r.addr - r.alloc.start
            inside = running_callback() if task is None else None
            self.bus.emit(event, Access(r.alloc, lo, lo + r.nbytes, write, task, site, what, inside))

    def report_host_read(self, addr: int, nbytes: int, what: str) -> None:
        """A host-side acl call (acl.util.ptr_to_bytes, ptr_to_numpy) read [addr, addr + nbytes): observers get a
        `host_access` when those bytes are pinned host memory, which queued copies may still write."""
        if not self.bus.observers or not nbytes:
            return
        with self.lock:
            h = self.host.find(addr)
        if h is not None and addr + nbytes <= h.end:
            self.report_access(Region(addr, nbytes, "host", h), False, None, what, user_site())

    def _report_host_copy(self, fn: str, d: Region, s: Region | None, nbytes: int) -> None:
        """Tell observers about a synchronous copy or fill: the bytes it touched and the device work it was."""
        site = user_site()
        self.report_access(s, False, None, fn, site)
        self.report_access(d, True, None, fn, site)
        dev = d if d.is_device else s
        if dev is not None and dev.is_device:
            direction = None if s is None else DIR_NAMES[actual_direction(d, s)]
            kind = "memset" if s is None else "memcpy"
            ctx = self.current_context(fn)
            self.bus.emit("host_copy", HostCopy(fn, kind, direction, nbytes, dev.alloc.device, ctx.handle))

    def _move(self, fn: str, nbytes: int, move: Callable[[], None]) -> None:
        """Do a synchronous copy or fill; a listener (the progress line) hears when it starts and ends."""
        bus = self.bus
        if not (bus.listeners or bus.observers) or not bus.wants("copy_start"):
            move()
            return
        rec = CopyInFlight(fn, nbytes, threading.get_ident(), now())
        bus.emit("copy_start", rec)
        try:
            move()
        finally:
            bus.emit("copy_end", rec)

    # ------------------------------------------------------------------ synchronous
    @api("acl.rt.memcpy", pointers=("dst", "src"))
    def memcpy(self, dst: int, dest_max: int, src: int, count: int, kind: int) -> None:
        fn = "acl.rt.memcpy"
        if count == 0:
            return
        _null_check(fn, dst=dst, src=src)
        _check_kind(fn, kind)
        _check_counts(fn, count, dest_max)
        if dst == src:
            return
        with self.lock:
            self.current_context(fn)
            d = self.region(dst, count, True, fn, "dst")
            s = self.region(src, count, False, fn, "src")
            self._direction(fn, kind, d, s)
            if self.bus.observers:
                self._report_host_copy(fn, d, s, count)
            self._move(fn, count, lambda: np.copyto(d.view(), s.view()))

    @api("acl.rt.memset", pointers=("addr",))
    def memset(self, addr: int, max_count: int, value: int, count: int) -> None:
        fn = "acl.rt.memset"
        if count == 0:
            return
        _null_check(fn, dev_ptr=addr)
        _check_counts(fn, count, max_count)
        with self.lock:
            self.current_context(fn)
            r = self.region(addr, count, True, fn, "dev_ptr")
            if self.bus.observers:
                self._report_host_copy(fn, r, None, count)
            self._move(fn, count, lambda: r.view().fill(value & 0xFF))

    @api("acl.rt.memcpy2d", pointers=("dst", "src"))
    def memcpy2d(self, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int) -> None:
        fn = "acl.rt.memcpy2d"
        _check_2d(fn, dst, dpitch, src, spitch, width, height, kind)
        with self.lock:
            self.current_context(fn)
            d, s = self._regions_2d(fn, dst, dpitch, src, spitch, width, height)
            self._direction(fn, kind, d, s)
            if self.bus.observers:
                self._report_host_copy(fn, d, s, width * height)
            self._move(fn, width * height, lambda: _copy_2d(d.view(), dpitch, s.view(), spitch, width, height))

    def _regions_2d(
        self, fn: str, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int
    ) -> tuple[Region, Region]:
        d = self.region(dst, dpitch * (height - 1) + width, True, fn, "dst")
        s = self.region(src, spitch * (height - 1) + width, False, fn, "src")
        return d, s

    # ------------------------------------------------------------------ asynchronous
    def _submit_copy(self, stream: Stream, name: str, work: CopyWork, run: Callable[[Task], None]) -> Task:
        """Queue device work `run` that writes `work.dst` (reading `work.src` when it is a copy) on `stream`."""
        site = user_site() if self.bus.observers else None
        task = Task("memset" if work.src is None else "memcpy", name, run, work=work, site=site)
        self.scheduler.submit(stream, task)
        if self.bus.observers:
            self.report_access(work.src, False, task, work.api, site)
            self.report_access(work.dst, True, task, work.api, site)
        return task

    def _queue_copy(self, st: Stream, pageable: bool, submit: Callable[[], Task]) -> Task:
        """Queue a copy with `submit()`. With pageable (unregistered) host memory the call returns only after
        the copy ran (CANN 8.5 docs), an implicit stream synchronize: the stream's earlier work runs before
        the copy is queued, so a wait that fails (a stuck callback) leaves no copy behind to write into host
        memory the caller may free."""
        if not pageable:
            return submit()
        t0 = now()
        self.scheduler.drive(st)
        task = submit()
        self.scheduler.drive(st, until=task)
        if self.bus.observers:
            self.bus.emit("host_wait", HostWait("stream", user_site(), t0, now(), stream=st))
        if task.error is not None:  # earlier work faulted, so the copy was dropped: say so, as a synchronize does
            self._take_stream_error(st)
        return task

    @api("acl.rt.memcpy_async", pointers=("dst", "src"))
    def memcpy_async(self, dst: int, dest_max: int, src: int, count: int, kind: int, stream: int) -> Task | None:
        fn = "acl.rt.memcpy_async"
        if count == 0:
            return None
        _null_check(fn, dst=dst, src=src)
        _check_kind(fn, kind)
        _check_counts(fn, count, dest_max)
        with self.lock:
            st = self.stream(stream, fn)
            d = self.region(dst, count, True, fn, "dst")
            s = self.region(src, count, False, fn, "src")
            direction = self._direction(fn, kind, d, s)
            _check_async_kind(fn, kind, d, s)
            if direction == H2H:
                raise AclError(
                    Code.ERROR_RT_FEATURE_NOT_SUPPORT,
                    f"{fn}: an asynchronous host-to-host copy is not supported; use acl.rt.memcpy",
                )
            dv, sv = d.view(), s.view()
            work = CopyWork(fn, count, DIR_NAMES[direction], d, s)
            return self._queue_copy(
                st, "unregistered" in (d.where, s.where),
                lambda: self._submit_copy(st, f"memcpy_async {work.direction}", work, lambda t: np.copyto(dv, sv)),
            )

    @api("acl.rt.memset_async", pointers=("addr",))
    def memset_async(self, addr: int, max_count: int, value: int, count: int, stream: int) -> Task | None:
        fn = "acl.rt.memset_async"
        if count == 0:
            return None
        _null_check(fn, dev_ptr=addr)
        _check_counts(fn, count, max_count)
        with self.lock:
            st = self.stream(stream, fn)
            r = self.region(addr, count, True, fn, "dev_ptr")
            view, byte = r.view(), value & 0xFF
            work = CopyWork(fn, count, None, r)
            return self._queue_copy(
                st, r.where == "unregistered",
                lambda: self._submit_copy(st, "memset_async", work, lambda t: view.fill(byte)),
            )

    @api("acl.rt.memcpy2d_async", pointers=("dst", "src"))
    def memcpy2d_async(
        self, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, stream: int
    ) -> Task:
        fn = "acl.rt.memcpy2d_async"
        _check_2d(fn, dst, dpitch, src, spitch, width, height, kind)
        with self.lock:
            st = self.stream(stream, fn)
            d, s = self._regions_2d(fn, dst, dpitch, src, spitch, width, height)
            direction = self._direction(fn, kind, d, s)
            if direction == H2H:
                raise AclError(Code.ERROR_RT_FEATURE_NOT_SUPPORT, f"{fn}: asynchronous host-to-host copy is not supported")
            dv, sv = d.view(), s.view()
            work = CopyWork(fn, width * height, DIR_NAMES[direction], d, s)

            def submit() -> Task:
                return self._submit_copy(st, f"memcpy2d_async {work.direction}", work,
                                         lambda t: _copy_2d(dv, dpitch, sv, spitch, width, height))

            return self._queue_copy(st, "unregistered" in (d.where, s.where), submit)
