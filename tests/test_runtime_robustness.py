"""Bad use of callbacks, freed host memory and teardown: every call returns (never hangs or crashes)
and a call that fails changes nothing."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import aclsim
from aclsim import acl
from aclsim.runtime import Task, get_runtime, reset_runtime


@pytest.fixture
def ctx():
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0


def _finishes(fn, seconds: float = 20.0):
    """Run fn in a daemon thread (with this thread's context); its result, or a failure if it hangs."""
    out: dict = {}
    context, ret = acl.rt.get_context()

    def run():
        if ret == 0:
            assert acl.rt.set_context(context) == 0
        out["value"] = fn()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the call hung"
    return out["value"]


# A report thread that no longer runs. (The id of a thread that really exited would do, but the OS reuses
# thread ids, so the next thread started here could inherit it and become the report thread.)
GONE_THREAD = 1


def _device_bytes(d: int, n: int) -> np.ndarray:
    out = np.zeros(n, np.uint8)
    assert acl.rt.memcpy(out.ctypes.data, n, d, n, 2) == 0
    return out


@pytest.mark.parametrize("inner", ["synchronize_stream", "destroy_stream", "reset_device", "synchronize_device"])
def test_waiting_for_a_stream_from_inside_its_own_blocking_callback_is_refused(ctx, inner):
    """The callback would wait for itself (a deadlock on hardware): the inner call returns 107000."""
    s, _ = acl.rt.create_stream()

    def run():
        got = {}

        def cb(_):
            calls = {
                "synchronize_stream": lambda: acl.rt.synchronize_stream(s),
                "destroy_stream": lambda: acl.rt.destroy_stream(s),
                "reset_device": lambda: acl.rt.reset_device(0),
                "synchronize_device": acl.rt.synchronize_device,
            }
            got["inner"] = calls[inner]()

        assert acl.rt.subscribe_report(threading.get_ident(), s) == 0
        assert acl.rt.launch_callback(cb, None, 1, s) == 0
        return got, acl.rt.synchronize_stream(s)

    got, outer = _finishes(run)
    assert got["inner"] == 107000
    assert outer == 0
    # The refused call changed nothing: the stream and the device still work.
    d, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    assert acl.rt.memset_async(d, 64, 5, 64, s) == 0
    assert acl.rt.synchronize_stream(s) == 0
    assert (_device_bytes(d, 64) == 5).all()


def test_refused_pageable_copy_leaves_nothing_queued(ctx):
    """memcpy_async with numpy memory waits for the copy; refused from inside the stream's own callback,
    it must not leave a copy queued that later writes into memory the program has reused."""
    s, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset(d, 64, 7, 64) == 0
    buf = np.zeros(64, np.uint8)
    got = []

    def cb(_):
        got.append(acl.rt.memcpy_async(buf.ctypes.data, 64, d, 64, 2, s))
        buf[:] = 1  # the program reuses its buffer after the failed call

    def run():
        assert acl.rt.subscribe_report(threading.get_ident(), s) == 0
        assert acl.rt.launch_callback(cb, None, 1, s) == 0
        return acl.rt.synchronize_stream(s)

    assert _finishes(run) == 0
    assert got == [107000]
    assert (buf == 1).all()


def test_callback_on_the_report_thread_waiting_for_its_own_stream_is_refused(ctx):
    """The same self-wait when the callback runs on a report thread while the host synchronizes."""
    context, _ = acl.rt.get_context()
    s, _ = acl.rt.create_stream()
    stop, got = threading.Event(), []

    def report_loop():  # start_thread(fn, None) calls fn(), as pyACL does
        assert acl.rt.set_context(context) == 0
        while not stop.is_set():
            acl.rt.process_report(50)

    tid, _ = acl.util.start_thread(report_loop, None)
    assert acl.rt.subscribe_report(tid, s) == 0
    assert acl.rt.launch_callback(lambda _: got.append(acl.rt.synchronize_stream(s)), None, 1, s) == 0
    try:
        assert _finishes(lambda: acl.rt.synchronize_stream(s)) == 0
    finally:
        stop.set()
        acl.util.stop_thread(tid)
    assert got == [107000]


def test_report_thread_polling_while_the_host_synchronizes(ctx):
    """The pyACL callback pattern: a report thread loops on process_report while the host synchronizes a
    stream of kernels and blocking callbacks. The report thread polls while the host is running the stream
    (it used to wait for the host's drive, which waited for the report thread: a deadlock)."""
    context, _ = acl.rt.get_context()
    s, _ = acl.rt.create_stream()
    stop, ran = threading.Event(), []

    def report_loop():  # start_thread(fn, None) calls fn(), as pyACL does
        assert acl.rt.set_context(context) == 0
        while not stop.is_set():
            acl.rt.process_report(50)

    tid, _ = acl.util.start_thread(report_loop, None)
    assert acl.rt.subscribe_report(tid, s) == 0
    for i in range(3):
        get_runtime().launch(s, Task("kernel", "busy", lambda task: time.sleep(0.1)))
        assert acl.rt.launch_callback(ran.append, i, 1, s) == 0
    try:
        assert _finishes(lambda: acl.rt.synchronize_stream(s)) == 0
    finally:
        stop.set()
        acl.util.stop_thread(tid)
    assert ran == [0, 1, 2]


def test_blocking_callback_whose_report_thread_exited_fails_instead_of_hanging(ctx):
    s, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(GONE_THREAD, s) == 0
    assert acl.rt.launch_callback(lambda _: None, None, 1, s) == 0
    ret, msg = _finishes(lambda: (acl.rt.synchronize_stream(s), acl.get_recent_err_msg()))
    assert ret == 507046
    assert "has exited" in msg


def test_failed_reset_device_leaves_the_device_set(ctx):
    """reset_device cannot drain a stream stuck on a callback nobody can run: it fails and releases nothing."""
    d, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset(d, 64, 9, 64) == 0
    s, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(GONE_THREAD, s) == 0
    assert acl.rt.launch_callback(lambda _: None, None, 1, s) == 0
    assert _finishes(lambda: acl.rt.reset_device(0)) == 507046
    assert acl.rt.get_device() == (0, 0)
    assert (_device_bytes(d, 64) == 9).all()  # the allocation survived
    assert acl.rt.synchronize_stream(0) == 0  # other streams are fine


def test_teardown_with_a_stuck_callback_does_not_raise(ctx):
    s, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(GONE_THREAD, s) == 0
    assert acl.rt.launch_callback(lambda _: None, None, 1, s) == 0
    rt = _finishes(reset_runtime)
    assert rt.devices[0].refcount == 0


def test_callback_that_raises_does_not_wedge_the_stream(ctx, capsys):
    s, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(threading.get_ident(), s) == 0

    def cb(_):
        raise RuntimeError("boom in callback")

    assert acl.rt.launch_callback(cb, None, 1, s) == 0
    assert acl.rt.synchronize_stream(s) == 0  # run inline on this (report) thread: printed, not raised
    assert "boom in callback" in capsys.readouterr().err
    assert acl.rt.stream_query(s) == (0, 0)  # ACL_STREAM_STATUS_COMPLETE


def test_a_callback_that_raises_is_reported_and_the_report_thread_lives_on(ctx, capsys):
    s, _ = acl.rt.create_stream()
    results = []
    subscribed = threading.Event()

    def report_loop():
        subscribed.wait(10)
        for _ in range(2):
            results.append(acl.rt.process_report(5000))

    t = threading.Thread(target=report_loop)
    t.start()
    assert acl.rt.subscribe_report(t.ident, s) == 0
    subscribed.set()

    def bad(_):
        raise RuntimeError("boom in callback")

    assert acl.rt.launch_callback(bad, None, 1, s) == 0
    assert acl.rt.launch_callback(lambda _: results.append("second ran"), None, 1, s) == 0
    assert acl.rt.synchronize_stream(s) == 0
    t.join(10)
    assert results == [500000, "second ran", 0]
    err = capsys.readouterr().err
    assert "boom in callback" in err and "Traceback" in err


def test_launch_callback_refuses_a_non_callable(ctx):
    s, _ = acl.rt.create_stream()
    assert acl.rt.subscribe_report(threading.get_ident(), s) == 0
    with pytest.raises(TypeError, match=r"acl\.rt\.launch_callback args parse failed"):
        acl.rt.launch_callback(5, None, 1, s)
    assert acl.rt.synchronize_stream(s) == 0  # nothing was queued


def test_ptr_to_numpy_of_pinned_memory_survives_free_host(tmp_path):
    """An array over malloc_host memory keeps it alive: reading it after free_host does not crash."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import gc, warnings
        warnings.simplefilter("ignore")
        from aclsim import acl
        acl.init(); acl.rt.set_device(0)
        n = 64 << 20  # big enough that the host buffer is its own mapping, returned to the OS on free
        h, _ = acl.rt.malloc_host(n)
        a = acl.util.ptr_to_numpy(h, (n,), 2)  # NPY_UBYTE
        a[:] = 7
        assert acl.rt.free_host(h) == 0
        gc.collect()
        print(int(a[::4096].sum()) == 7 * (n // 4096))
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"


def test_device_arrays_refuse_python_objects_and_negative_shapes(ctx):
    """Object pointers copied to the device and back would dangle (and crash on release)."""
    with pytest.raises(TypeError, match="cannot hold Python objects"):
        aclsim.to_device(np.array([object(), object()]))
    with pytest.raises(ValueError, match="negative dimensions"):
        aclsim.empty((4, -1))
    d = aclsim.to_device(np.arange(2, dtype=np.int64))
    with pytest.raises(ValueError, match="numeric array"):
        d.copy_to_host(out=np.empty(2, dtype=object))
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(2))


def test_destroy_stream_force_from_inside_its_own_callback(ctx):
    """The running callback finishes; the work queued behind it is dropped; the outer wait returns."""
    s, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset(d, 64, 0, 64) == 0
    got = []

    def run():
        assert acl.rt.subscribe_report(threading.get_ident(), s) == 0
        assert acl.rt.launch_callback(lambda _: got.append(acl.rt.destroy_stream_force(s)), None, 1, s) == 0
        assert acl.rt.memset_async(d, 64, 1, 64, s) == 0
        return acl.rt.synchronize_stream(s)

    assert _finishes(run) == 0
    assert got == [0]
    assert (_device_bytes(d, 64) == 0).all()  # the memset queued behind the callback was dropped
