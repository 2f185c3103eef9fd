"""The device address range: where each device's memory lives in the process, and how addresses decode.

A device's memory is a memfd mapped twice: at the device range (fixed, no access rights: device pointers
are real addresses host code cannot dereference) and as the runtime's view (read and written by the
runtime and the engines). `device_of` / `device_base` are the one place device addresses are decoded
(`runtime.memory` re-exports them).
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
import threading

_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)  # Linux value; Python < 3.13 lacks the name
_MAP_FIXED_NOREPLACE = 0x100000  # Linux >= 4.17; older kernels take it as a hint and we check the result
_PROT_NONE, _PROT_RW = 0, 3
_host_access = False  # RC mode: host code shares memory with the device (set_host_access)
_kernel_opens = 0  # native kernels running now (kernel_access): the pages of live allocations are open to them

# Device d's addresses start at DEVICE_BASE + d * DEVICE_STRIDE: fixed, so reports are reproducible.
# 32 TiB lies in the user half of every 47/48-bit address space, above where Linux puts programs,
# heaps and shared libraries and outside AddressSanitizer's shadow memory on x86-64
# (which ends at 0x10007fff7fff), so natively compiled kernels checked with ASan can use it too.
DEVICE_BASE = 0x2000_0000_0000
DEVICE_STRIDE = 1 << 38  # 256 GiB per device: more than any chip's memory
MAX_DEVICES = 64
WINDOW_END = DEVICE_BASE + MAX_DEVICES * DEVICE_STRIDE
_moved: dict[int, tuple[int, int]] = {}  # device ranges the kernel placed elsewhere: start -> (end, device)


def device_base(device_id: int) -> int:
    """The first address of device `device_id`'s memory (when its fixed range was free)."""
    return DEVICE_BASE + device_id * DEVICE_STRIDE


def device_of(addr: int) -> int | None:
    """The device whose address range holds `addr`, or None for a host (or NULL) address."""
    if _moved:
        for start, (end, dev) in _moved.items():
            if start <= addr < end:
                return dev
        if DEVICE_BASE <= addr < WINDOW_END:  # a moved device's fixed range holds someone else's memory
            d = (addr - DEVICE_BASE) // DEVICE_STRIDE
            return None if any(dev == d for _, dev in _moved.values()) else d
    return (addr - DEVICE_BASE) // DEVICE_STRIDE if DEVICE_BASE <= addr < WINDOW_END else None


def is_device_address(addr: int) -> bool:
    """True when `addr` lies in some device's address range."""
    return device_of(addr) is not None


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_ranges: dict[int, int] = {}  # start -> size of every mapped device range
_MAP_FAILED = ctypes.c_void_p(-1).value
_map_lock = threading.Lock()


def map_device(device_id: int, capacity: int) -> tuple[int, mmap.mmap, int]:
    """(memfd, the runtime's view, device range start) for a device of `capacity` bytes."""
    if capacity > DEVICE_STRIDE:
        raise OverflowError(f"{capacity} bytes of device memory exceed the {DEVICE_STRIDE}-byte range per device")
    fd = os.memfd_create(f"aclsim-device{device_id}", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, capacity)
        view = mmap.mmap(fd, capacity, flags=mmap.MAP_SHARED | _MAP_NORESERVE)
        with contextlib.suppress(AttributeError, OSError):  # huge pages where shmem THP is "advise" (faster copies)
            view.madvise(mmap.MADV_HUGEPAGE)
        want = device_base(device_id)
        flags = mmap.MAP_SHARED | _MAP_NORESERVE
        with _map_lock:
            prot = _PROT_RW if _host_access else _PROT_NONE
            got = _libc.mmap(want, capacity, prot, flags | _MAP_FIXED_NOREPLACE, fd, 0)
            if got not in (None, _MAP_FAILED) and got != want:  # an old kernel took the address as a hint
                _libc.munmap(got, capacity)
                got = None
            if got in (None, _MAP_FAILED):  # the fixed range is taken: anywhere, and remember where
                got = _libc.mmap(None, capacity, prot, flags, fd, 0)
                if got in (None, _MAP_FAILED):
                    err = ctypes.get_errno()
                    view.close()
                    raise OSError(err, os.strerror(err))
                _moved[got] = (got + capacity, device_id)
            _ranges[got] = capacity
    except BaseException:
        os.close(fd)
        raise
    return fd, view, got


def unmap_device(base: int, capacity: int, fd: int) -> None:
    with _map_lock:
        _libc.munmap(base, capacity)
        _moved.pop(base, None)
        _ranges.pop(base, None)
    with contextlib.suppress(OSError):
        os.close(fd)


def set_host_access(on: bool) -> None:
    """Let host code read and write device memory through device addresses (RC mode: an Atlas 200 DK's
    program runs on the device's CPU and shares its memory), or not (EP mode, the default: it faults)."""
    global _host_access
    with _map_lock:
        _host_access = on
        for start, size in _ranges.items():
            _libc.mprotect(start, size, _PROT_RW if on else _PROT_NONE)


_PAGE = mmap.PAGESIZE


@contextlib.contextmanager
def kernel_access(spans: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    """Natively compiled kernel code reads and writes device memory through device addresses: while it runs,
    the pages holding `spans` ((start, end) device ranges: the live allocations) are readable and writable,
    and when no native kernel runs any more the device range has no access rights again. Host code that
    dereferences a device pointer while a kernel runs is not stopped by a fault then (only --check sees it);
    an access outside every allocation's pages still faults (the AI Core exception)."""
    global _kernel_opens
    with _map_lock:
        _kernel_opens += 1
        if not _host_access:
            for lo, hi in _page_runs(spans):
                _libc.mprotect(lo, hi - lo, _PROT_RW)
    try:
        yield
    finally:
        with _map_lock:
            _kernel_opens -= 1
            if _kernel_opens == 0 and not _host_access:
                for start, size in _ranges.items():
                    _libc.mprotect(start, size, _PROT_NONE)


def _page_runs(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Whole pages covering `spans`, adjacent and overlapping ones merged (one mprotect each)."""
    out: list[list[int]] = []
    for lo, hi in sorted((lo - lo % _PAGE, -(-hi // _PAGE) * _PAGE) for lo, hi in spans if hi > lo):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


RUN_MODES = ("ep", "rc")


def run_mode() -> str:
    """How the emulated program is attached to its NPU (ACLSIM_RUN_MODE, set by `aclsim run --run-mode`):
    "ep" (default) - a host program talking to an NPU card over PCIe; host and device memory are apart.
    "rc" - the program runs on the device's own CPU (an Atlas 200 DK): acl.rt.get_run_mode() is ACL_DEVICE
    and host and device share memory, so the host reads and writes device memory directly."""
    mode = os.environ.get("ACLSIM_RUN_MODE", "ep").strip().lower() or "ep"
    if mode not in RUN_MODES:
        raise ValueError(f"ACLSIM_RUN_MODE={mode!r} is not a run mode; use ep (a host with an NPU card, the "
                         "default) or rc (a program on the device, as on an Atlas 200 DK)")
    return mode
