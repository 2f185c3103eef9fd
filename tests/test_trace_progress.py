"""Progress of long device work: shown on a terminal, never when output is not a terminal."""

from __future__ import annotations

import io
import sys
import threading
import time

import numpy as np
import pytest

from aclsim import constants as C
from aclsim.runtime import KernelWork, Task, get_runtime
from aclsim.trace.progress import ProgressWatcher


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_progress_when_output_is_not_a_terminal():
    out = io.StringIO()
    w = ProgressWatcher(out, after=0.0, interval=0.01)
    w.start()
    assert not w.active
    w.stop()
    assert out.getvalue() == ""


def run_slow_kernel(out: Terminal) -> tuple[str, str]:
    """A kernel that runs until the watcher has shown it (at most 10 s), then a few more polls.

    Returns what the terminal held when the program got control back, and after the watcher stopped.
    """
    rt = get_runtime()
    rt.set_device(0)
    # A poll interval far longer than the moment between the kernel's end and the read below: only
    # the host thread itself can have erased the line by then.
    w = ProgressWatcher(out, after=0.0, interval=0.2)

    def slow(task: Task) -> None:
        task.work.progress = (1, 4)
        deadline = time.monotonic() + 10
        while "running for" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)

    w.start()
    assert w.active
    try:
        rt.launch(0, Task("kernel", "big", slow, work=KernelWork("simt", grid=(2048, 1, 1), block=(256, 1, 1))))
        rt.synchronize_stream(0)
        at_return = out.getvalue()
        time.sleep(0.5)  # let the watcher poll twice more: it must not draw the finished kernel again
    finally:
        w.stop()
    return at_return, out.getvalue()


def test_long_kernel_shows_name_shape_and_fraction_and_is_erased_before_the_program_continues(monkeypatch):
    monkeypatch.setitem(sys.modules, "rich", None)  # the plain one-line display
    at_return, at_stop = run_slow_kernel(Terminal())
    assert "aclsim: kernel big grid (2048, 1, 1) block (256, 1, 1) 25% running for" in at_return
    assert at_return.endswith("\r\x1b[K")  # erased before synchronize_stream returned
    assert at_stop == at_return  # and never drawn again
    assert not get_runtime().bus.observers  # listening only while a line is shown


def test_a_large_synchronous_copy_is_seen_while_it_runs():
    rt = get_runtime()
    rt.set_device(0)
    nbytes = 256 << 20
    dev = rt.malloc(nbytes, 0)
    host = np.ones(nbytes, dtype=np.uint8)
    ctx = rt.get_context()

    def copy() -> None:
        rt.set_context(ctx.handle)
        rt.memcpy(dev.start, nbytes, host.ctypes.data, nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)

    w = ProgressWatcher(Terminal(), after=0.0)
    seen: list[str] = []
    for _ in range(5):  # the copy takes tens of ms; poll from its first moment until it is seen
        t = threading.Thread(target=copy)
        t.start()
        while t.is_alive() and not seen:
            seen = [d() for _, d in w.running()]
        t.join()
        if seen:
            break
    assert seen == ["memcpy 256 MiB"]
    assert w.running() == []
    assert not rt.bus.observers  # it listened lightly: no record is built for the calls it does not watch
    w.stop()
    assert w not in rt.bus.listeners


def test_progress_uses_rich_when_it_is_installed_and_stops_it_before_the_program_continues():
    pytest.importorskip("rich")
    at_return, at_stop = run_slow_kernel(Terminal())
    assert "aclsim: kernel big grid (2048, 1, 1) block (256, 1, 1) 25% running for" in at_return
    assert at_return.endswith("\x1b[2K")  # rich erased its transient line before the return
    assert at_stop == at_return  # and neither its refresh nor the watcher drew it again
