"""`synchronize_*_with_timeout` return the documented timeout code on time whatever the queued work is: a
kernel that never ends (SIMT, Ascend C), a blocking callback nobody lets finish; the work goes on, and a
later synchronize waits for it (issue 23, defect 3: the timeout used to be dropped, so the call never
returned, or returned 0 after the callback's 20 s)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim import acl, simt
from aclsim.runtime import get_runtime, reset_runtime
from asc_helpers import gm

STREAM_SYNC_TIMEOUT, EVENT_SYNC_TIMEOUT = 507046, 507047
LATE = 5.0  # seconds: a generous bound for "on time" on a busy 2-core machine (the timeouts below are 0.3 s)


@pytest.fixture
def stream():
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    flag, _ = acl.rt.malloc(4, 0)
    assert acl.rt.memset(flag, 4, 0, 4) == 0
    yield s, flag
    release(flag)  # whatever still spins ends
    acl.rt.synchronize_device()
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()


def release(flag: int) -> None:
    one = np.ones(1, np.int32)
    assert acl.rt.memcpy(flag, 4, one.ctypes.data, 4, 1) == 0  # the runtime is free while the kernel runs


@simt.kernel
def spin(f: simt.Ptr[np.int32]):
    while f[0] == 0:
        pass


@asc.jit
def spin_core(f: asc.GlobalAddress):
    g = gm(f)
    while g.get_value(0) == 0:
        pass


def timed(call) -> tuple[int, float]:
    t0 = time.monotonic()
    ret = call()
    return ret, time.monotonic() - t0


@pytest.mark.parametrize("engine", ["simt-numpy", "simt-jit", "asc"])
def test_a_kernel_that_never_ends_times_out_on_time_and_goes_on(stream, engine, monkeypatch):
    s, flag = stream
    if engine.startswith("simt"):
        if engine == "simt-jit":
            pytest.importorskip("numba")
        monkeypatch.setenv("ACLSIM_SIMT_JIT", "1" if engine == "simt-jit" else "0")
        spin[1, 1, s](flag)
    else:
        spin_core[1, s](asc.GlobalAddress(flag, asc.int32))
    ret, took = timed(lambda: acl.rt.synchronize_stream_with_timeout(s, 300))
    assert ret == STREAM_SYNC_TIMEOUT and 0.29 <= took < LATE
    assert "did not finish within 300 ms" in acl.get_recent_err_msg()
    assert acl.rt.stream_query(s) == (1, 0)  # ACL_STREAM_STATUS_NOT_READY: it still runs
    release(flag)
    assert acl.rt.synchronize_stream(s) == 0  # the kernel ends, and the wait picks it up


def test_event_and_device_waits_time_out_with_their_codes(stream):
    s, flag = stream
    ev, _ = acl.rt.create_event()
    spin[1, 1, s](flag)
    assert acl.rt.record_event(ev, s) == 0
    ret, took = timed(lambda: acl.rt.synchronize_event_with_timeout(ev, 300))
    assert ret == EVENT_SYNC_TIMEOUT and 0.29 <= took < LATE
    assert acl.rt.synchronize_event_with_timeout(ev, 0) == EVENT_SYNC_TIMEOUT  # 0: a look, no wait
    ret, took = timed(lambda: acl.rt.synchronize_device_with_timeout(300))
    assert ret == STREAM_SYNC_TIMEOUT and 0.29 <= took < LATE
    release(flag)
    assert acl.rt.synchronize_event_with_timeout(ev, 5000) == 0
    assert acl.rt.synchronize_device_with_timeout(5000) == 0
    assert acl.rt.destroy_event(ev) == 0


def test_work_that_ends_in_time_returns_0_with_its_results(stream):
    s, _ = stream
    x = np.arange(64, dtype=np.float32)
    d, _ = acl.rt.malloc(x.nbytes, 0)
    out = np.zeros_like(x)
    assert acl.rt.memcpy_async(d, x.nbytes, x.ctypes.data, x.nbytes, 1, s) == 0  # pageable: ran already
    assert acl.rt.memset_async(d, x.nbytes, 0, 8, s) == 0
    assert acl.rt.synchronize_stream_with_timeout(s, 5000) == 0
    assert acl.rt.memcpy(out.ctypes.data, x.nbytes, d, x.nbytes, 2) == 0
    assert np.array_equal(out[2:], x[2:]) and not out[:2].any()
    acl.rt.free(d)


def test_a_blocking_callback_holding_the_stream_times_out_on_time(stream):
    s, _ = stream
    done, stop, started = threading.Event(), threading.Event(), threading.Event()
    tid: list[int] = []

    def report_thread():
        tid.append(threading.get_ident())
        started.set()
        while not stop.is_set():
            acl.rt.process_report(50)

    t = threading.Thread(target=report_thread, daemon=True)
    t.start()
    started.wait()
    assert acl.rt.subscribe_report(tid[0], s) == 0
    assert acl.rt.launch_callback(lambda _: done.wait(20), None, 1, s) == 0  # blocks up to 20 s
    ret, took = timed(lambda: acl.rt.synchronize_stream_with_timeout(s, 1000))
    assert ret == STREAM_SYNC_TIMEOUT and 0.99 <= took < LATE
    assert "blocking callback" in acl.get_recent_err_msg()
    done.set()
    assert acl.rt.synchronize_stream_with_timeout(s, 5000) == 0
    stop.set()
    t.join(5)
    assert acl.rt.unsubscribe_report(tid[0], s) == 0


def test_a_blocking_callback_of_the_waiting_thread_runs_during_the_wait(stream):
    s, _ = stream
    ran = []
    assert acl.rt.subscribe_report(threading.get_ident(), s) == 0
    assert acl.rt.launch_callback(lambda arg: ran.append(arg), 7, 1, s) == 0
    assert acl.rt.synchronize_stream_with_timeout(s, 5000) == 0
    assert ran == [7]
    assert acl.rt.unsubscribe_report(threading.get_ident(), s) == 0


def test_tearing_the_runtime_down_does_not_wait_for_a_kernel_left_running(monkeypatch):
    monkeypatch.setenv("ACLSIM_SIMT_JIT", "0")
    acl.init()
    acl.rt.set_device(0)
    flag, _ = acl.rt.malloc(4, 0)
    assert acl.rt.memset(flag, 4, 0, 4) == 0
    s, _ = acl.rt.create_stream()
    spin[1, 1, s](flag)
    assert acl.rt.synchronize_stream_with_timeout(s, 200) == STREAM_SYNC_TIMEOUT
    rt = get_runtime()
    driver, alloc = rt.stream(s).driver, rt.find_allocation(flag)
    _, took = timed(reset_runtime)
    assert took < LATE and driver.is_alive()  # not waited for: it still spins on its (daemon) thread
    alloc.data[:4].view(np.int32)[0] = 1  # (the kernel's memory outlives the runtime while it runs)
    driver.join(LATE)
    assert not driver.is_alive()
