"""The only place where `acl.mdl`, `acl.op`, data buffers and DVPP talk to the runtime.

Everything these faces need from `aclsim.runtime` goes through the few functions here: typed views
of device (or host) bytes, validated as the runtime validates a copy; queueing work on a stream as a
kernel launch does; reporting device reads and writes to the observers (sanitizer, trace). When the
runtime changes shape, this module is what adapts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import constants as C
from ..errors import AclError, Code
from ..runtime import BufferUse, KernelFault, KernelWork, Task, get_runtime
from ..runtime.devrange import RUN_MODES, run_mode  # noqa: F401 (the faces read the mode here)
from ..runtime.observe import Refused, user_site


class Bytes:
    """A validated byte range [addr, addr + nbytes) of device or host memory."""

    __slots__ = ("_region", "addr", "nbytes")

    def __init__(self, region: Any) -> None:
        self._region = region
        self.addr = region.addr
        self.nbytes = region.nbytes

    @property
    def on_device(self) -> bool:
        return self._region.is_device

    def array(self, dtype: Any = np.uint8, shape: tuple[int, ...] | None = None) -> np.ndarray:
        """The bytes as a numpy array (a view: writes go to the memory)."""
        a = self._region.view().view(dtype)
        return a if shape is None else a.reshape(shape)


def memory(addr: int, nbytes: int, write: bool, fn: str, arg: str) -> Bytes:
    """Validate [addr, addr + nbytes) (AclError with the runtime's codes as `Runtime.region` gives them)."""
    rt = get_runtime()
    with rt.lock:
        return Bytes(rt.region(addr, nbytes, write, fn, arg))


def operand(addr: int, nbytes: int, write: bool, fn: str, arg: str) -> Bytes:
    """Memory an operator or a model reads or writes on the device. In EP mode it must be device memory: the
    NPU cannot reach a host pointer, so the call is refused with ACL_ERROR_INVALID_PARAM (100000, "parameter
    verification failed", the code the runtime gives memory it cannot use) and the sanitizer names it. In RC
    mode host and device share memory and any readable (writable) host memory serves."""
    mem = memory(addr, nbytes, write, fn, arg)
    if mem.on_device or run_mode() == "rc":
        return mem
    rt = get_runtime()
    if rt.bus.observers:
        rt.bus.emit("refused", Refused(fn, arg, addr, nbytes, "host-operand", None, user_site()))
    raise AclError(Code.ERROR_INVALID_PARAM,
                   f"{fn}: {arg} is host memory ({addr:#x}), which the device cannot read or write; pass a buffer "
                   "from acl.rt.malloc and copy the data with acl.rt.memcpy (or emulate a program running on the "
                   "device, where memory is shared: aclsim run --run-mode rc)")


def require_context(fn: str) -> None:
    """AclError 107002 when this thread has no current context."""
    get_runtime().current_context(fn)


def check_device(device_id: int, fn: str) -> None:
    n = get_runtime().device_count
    if not 0 <= device_id < n:
        raise AclError(Code.ERROR_RT_INVALID_DEVICEID, f"{fn}: device id {device_id} is invalid: "
                       f"{n} device(s) are emulated (ids 0..{n - 1}); set ACLSIM_DEVICES for more")


def observed() -> bool:
    """True when an observer (sanitizer, trace) listens: only then build access reports."""
    return bool(get_runtime().bus.observers)


def report_access(mem: Iterable[tuple[Bytes, bool]], what: str, task: Task | None = None) -> None:
    """Tell the observers that `what` read (False) or wrote (True) each range, from the host (task None)
    or as queued device work `task`."""
    rt = get_runtime()
    if not rt.bus.observers:
        return
    site = task.site if task is not None and task.site is not None else user_site()
    for b, write in mem:
        rt.report_access(b._region, write, task, what, site)


def enqueue(stream: int, kind: str, name: str, run: Callable[[], None], reads: list[Bytes], writes: list[Bytes],
            fn: str, keep: Any = None, engine: str = "onnxruntime") -> Task:
    """Queue `run()` as device work on a stream handle (0 = default stream), as a kernel launch is queued; its
    reads and writes travel in the work's typed description (KernelWork.buffers), so the observers see them as
    they see a kernel's: ordered against frees, reuse and other streams."""
    def body(task: Task) -> None:
        run()

    buffers = (*(BufferUse(b._region, False) for b in reads), *(BufferUse(b._region, True) for b in writes))
    work = KernelWork(engine, bytes_read=sum(b.nbytes for b in reads), bytes_written=sum(b.nbytes for b in writes),
                      api=fn, buffers=buffers)
    task = Task(kind, name, body, work=work, keep=keep)
    return get_runtime().launch(stream, task, fn)


def synchronize(stream: int) -> None:
    """Wait for a stream's queued work (AclError as acl.rt.synchronize_stream)."""
    get_runtime().synchronize_stream(stream)


def event_done(event: int) -> bool:
    """True when the event's record has been reached (AclError for a bad handle)."""
    return get_runtime().query_event_status(event) == C.ACL_EVENT_RECORDED_STATUS_COMPLETE


def run_now(run: Callable[[], None], fn: str) -> None:
    """Run device work on the calling thread (a synchronous call): a fault is that call's AclError, with the code
    a queued run would give its stream (any other failure of the work is 507000, as the scheduler gives it)."""
    try:
        run()
    except KernelFault as e:
        raise AclError(e.code, str(e))
    except Exception as e:
        raise AclError(Code.ERROR_RT_INTERNAL_ERROR, f"{fn}: {type(e).__name__}: {e}")


def chip_name() -> str:
    """The emulated SoC, e.g. Ascend910B1 (ACLSIM_SOC)."""
    return get_runtime().chip.name


def fault(message: str, code: int) -> Exception:
    """The exception queued device work raises to fail: the stream's next synchronize returns `code`."""
    return KernelFault(message, code)
