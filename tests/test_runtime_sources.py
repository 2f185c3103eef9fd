"""Return codes and rules taken from the runtime's own source (hicann/runtime), beyond the reference's table."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from aclsim import acl
from aclsim import constants as C


@pytest.fixture
def ctx():
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0


def test_unrecorded_event_status_depends_on_how_it_was_created(ctx):
    """Event::QueryEventStatus: no record -> INIT (NOT_READY) for old-mode events, RECORDED for new mode."""
    old, _ = acl.rt.create_event()
    flagged, _ = acl.rt.create_event_with_flag(C.ACL_EVENT_SYNC)
    new, _ = acl.rt.create_event_ex_with_flag(C.ACL_EVENT_SYNC)
    assert acl.rt.query_event_status(old) == (C.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    assert acl.rt.query_event_status(flagged) == (C.ACL_EVENT_RECORDED_STATUS_NOT_READY, 0)
    assert acl.rt.query_event_status(new) == (C.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    assert acl.rt.record_event(old, 0) == 0
    assert acl.rt.synchronize_event(old) == 0
    assert acl.rt.query_event_status(old) == (C.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)


def test_elapsed_time_of_an_unrecorded_event_is_507000(ctx):
    """Event::ElapsedTime returns RT_ERROR_EVENT_RECORDER_NULL, mapped to ACL_ERROR_RT_INTERNAL_ERROR."""
    a, _ = acl.rt.create_event()
    b, _ = acl.rt.create_event()
    assert acl.rt.record_event(b, 0) == 0
    assert acl.rt.synchronize_event(b) == 0
    assert acl.rt.event_elapsed_time(a, b) == (0.0, 507000)
    assert "never recorded" in acl.get_recent_err_msg()


def test_unsubscribe_by_a_thread_that_did_not_subscribe(ctx):
    s, _ = acl.rt.create_stream()
    me = threading.get_ident()
    assert acl.rt.subscribe_report(me, s) == 0
    assert acl.rt.unsubscribe_report(me + 1, s) == 107015  # ACL_ERROR_RT_STREAM_NO_CB_REG
    assert acl.rt.unsubscribe_report(me, s) == 0


@pytest.mark.parametrize(
    "direction,kind,expected",
    [
        ("to_device", C.ACL_MEMCPY_HOST_TO_DEVICE, 0),
        ("to_device", C.ACL_MEMCPY_DEVICE_TO_DEVICE, 0),
        ("to_device", C.ACL_MEMCPY_DEFAULT, 0),
        ("to_device", C.ACL_MEMCPY_DEVICE_TO_HOST, 107000),
        ("to_device", C.ACL_MEMCPY_HOST_TO_HOST, 107000),
        ("from_device", C.ACL_MEMCPY_DEVICE_TO_HOST, 0),
        ("from_device", C.ACL_MEMCPY_DEVICE_TO_DEVICE, 0),
        ("from_device", C.ACL_MEMCPY_HOST_TO_DEVICE, 107000),
    ],
)
def test_memcpy_async_kind_must_fit_unregistered_host_memory(ctx, direction, kind, expected):
    """MemcpyKindAutoCorrect: with a numpy (unregistered) buffer on one side only some kinds are accepted;
    a refused copy writes nothing."""
    d, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset(d, 64, 0, 64) == 0
    host = np.arange(64, dtype=np.uint8)
    if direction == "to_device":
        assert acl.rt.memcpy_async(d, 64, host.ctypes.data, 64, kind, 0) == expected
    else:
        assert acl.rt.memset(d, 64, 9, 64) == 0
        assert acl.rt.memcpy_async(host.ctypes.data, 64, d, 64, kind, 0) == expected
    assert acl.rt.synchronize_stream(0) == 0
    out = np.empty(64, np.uint8)
    assert acl.rt.memcpy(out.ctypes.data, 64, d, 64, C.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    if direction == "to_device":
        np.testing.assert_array_equal(out, np.arange(64, dtype=np.uint8) if expected == 0 else 0)
    else:
        np.testing.assert_array_equal(host, 9 if expected == 0 else np.arange(64, dtype=np.uint8))


def test_memcpy_async_between_acl_buffers_takes_the_kind_from_the_pointers(ctx):
    """Both sides are acl memory: the runtime forces the real direction, whatever kind was passed."""
    d, _ = acl.rt.malloc(64, 0)
    h, _ = acl.rt.malloc_host(64)
    assert acl.rt.memset(h, 64, 3, 64) == 0
    assert acl.rt.memcpy_async(d, 64, h, 64, C.ACL_MEMCPY_DEVICE_TO_HOST, 0) == 0
    assert acl.rt.synchronize_stream(0) == 0
    out = np.empty(64, np.uint8)
    assert acl.rt.memcpy(out.ctypes.data, 64, d, 64, C.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    assert (out == 3).all()


def test_a_policy_with_bandwidth_bits_uses_the_default_page_rule(ctx):
    """aclMallocMemInner selects a page policy only for an exact enum value; HUGE_ONLY | HIGH_BAND_WIDTH
    is RT_MEMORY_DEFAULT: < 2 MB normal pages, >= 2 MB huge pages."""
    combined = C.ACL_MEM_MALLOC_HUGE_ONLY | C.ACL_MEM_TYPE_HIGH_BAND_WIDTH
    small, _ = acl.rt.malloc(4096, combined)
    big, _ = acl.rt.malloc(4 << 20, combined)
    exact, _ = acl.rt.malloc(4096, C.ACL_MEM_MALLOC_HUGE_ONLY)
    page = {p: acl.rt.pointer_get_attributes(p)[0]["page_size"] for p in (small, big, exact)}
    assert page == {small: 4096, big: 2 << 20, exact: 2 << 20}


def test_extra_reset_is_a_context_release_error(ctx):
    """Runtime::PrimaryContextRelease on a zero reference count -> RT_ERROR_CONTEXT_DEL -> 507007."""
    assert acl.rt.set_device(0) == 0  # two references now
    assert acl.rt.reset_device_force(0) == 0  # drops both
    assert acl.rt.reset_device_force(0) == 507007
    assert acl.rt.reset_device(0) == 507007
    assert acl.rt.reset_device(7) == 107001  # an id outside the device range stays 107001


def test_peer_access_argument_checks():
    """aclrtDeviceEnablePeerAccessImpl checks the reserved flags first (ACL_ERROR_FEATURE_UNSUPPORTED),
    then device == peer (100000), for enable and disable alike."""
    from aclsim.runtime import reset_runtime

    reset_runtime(devices=2)
    assert acl.rt.device_enable_peer_access(1, 1) == 200006  # even before a device is set
    assert acl.rt.set_device(0) == 0
    assert acl.rt.device_enable_peer_access(1, 1) == 200006
    assert acl.rt.device_enable_peer_access(0, 0) == 100000
    assert acl.rt.device_disable_peer_access(0) == 100000
    assert acl.rt.device_can_access_peer(5, 5) == (0, 100000)
    assert acl.rt.device_enable_peer_access(1, 0) == 0
    assert acl.rt.device_disable_peer_access(1) == 0


def test_destroy_stream_force_discards_queued_work(ctx):
    """aclrtDestroyStreamForce destroys the stream "discarding all tasks"; aclrtDestroyStream runs them."""
    d, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset(d, 64, 0, 64) == 0
    forced, _ = acl.rt.create_stream()
    waited, _ = acl.rt.create_stream()
    assert acl.rt.memset_async(d, 32, 1, 32, forced) == 0
    assert acl.rt.memset_async(d + 32, 32, 2, 32, waited) == 0
    assert acl.rt.destroy_stream_force(forced) == 0
    assert acl.rt.destroy_stream(waited) == 0
    out = np.empty(64, np.uint8)
    assert acl.rt.memcpy(out.ctypes.data, 64, d, 64, C.ACL_MEMCPY_DEVICE_TO_HOST) == 0
    np.testing.assert_array_equal(out, np.repeat(np.array([0, 2], np.uint8), 32))
    assert acl.rt.synchronize_stream(forced) == 107017  # the handle is gone


def test_destroy_stream_force_frees_a_stuck_stream_and_its_waiters(ctx):
    """A stream stuck on a callback no thread will run can still be force-destroyed; a stream waiting on an
    event recorded behind the callback is released too."""
    stuck, _ = acl.rt.create_stream()
    other, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    assert acl.rt.subscribe_report(1, stuck) == 0  # no thread has id 1: nobody will run its callbacks
    assert acl.rt.launch_callback(lambda _: None, None, 1, stuck) == 0
    assert acl.rt.record_event(ev, stuck) == 0
    assert acl.rt.stream_wait_event(other, ev) == 0
    assert acl.rt.synchronize_stream(stuck) == 507046
    assert acl.rt.destroy_stream_force(stuck) == 0
    assert acl.rt.synchronize_stream(other) == 0
    assert acl.rt.reset_device(0) == 0


def test_destroy_stream_force_drops_callbacks_not_yet_run(ctx):
    """A callback posted to the report thread but not processed is discarded with its stream."""
    s, _ = acl.rt.create_stream()
    kept, _ = acl.rt.create_stream()
    ran = []
    for stream in (s, kept):
        assert acl.rt.subscribe_report(threading.get_ident(), stream) == 0
    assert acl.rt.launch_callback(ran.append, "late", 0, s) == 0  # non-blocking: posted when reached
    assert acl.rt.stream_query(s) == (C.ACL_STREAM_STATUS_COMPLETE, 0)  # the device reached it
    assert acl.rt.destroy_stream_force(s) == 0
    assert acl.rt.process_report(50) == 507012  # nothing left to run for this thread
    assert ran == []


def test_observers_see_discarded_tasks_finish(ctx):
    """Tools that track queued tasks (trace, check) get task_done for work destroy_stream_force drops."""
    from aclsim.runtime import get_runtime

    class Log:
        def __init__(self):
            self.done = []

        def on_task_done(self, task):
            self.done.append((task.name, task.discarded))

    log = Log()
    rt = get_runtime()
    rt.bus.subscribe(log)
    try:
        s, _ = acl.rt.create_stream()
        d, _ = acl.rt.malloc(64, 0)
        assert acl.rt.memset_async(d, 64, 1, 64, s) == 0
        assert acl.rt.destroy_stream_force(s) == 0
    finally:
        rt.bus.unsubscribe(log)
    assert log.done == [("memset_async", True)]
