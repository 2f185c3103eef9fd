"""Streams, events, callbacks and the execution model (device work runs when the host waits)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import aclsim
import aclsim.acl as acl
from aclsim import constants as C


@pytest.fixture
def ctx():
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0


def _dev_with(values: np.ndarray) -> int:
    d, ret = acl.rt.malloc(values.nbytes, 0)
    assert ret == 0
    assert acl.rt.memcpy(d, values.nbytes, values.ctypes.data, values.nbytes, 1) == 0
    return d


def test_async_copy_is_not_visible_before_synchronize(ctx):
    src = np.arange(64, dtype=np.float32)
    d = _dev_with(src)
    h, _ = acl.rt.malloc_host(src.nbytes)
    acl.rt.memset(h, src.nbytes, 0, src.nbytes)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.memcpy_async(h, src.nbytes, d, src.nbytes, 2, stream) == 0
    assert acl.util.ptr_to_bytes(h, src.nbytes) == bytes(src.nbytes)  # stale: the host did not wait
    assert acl.rt.synchronize_stream(stream) == 0
    assert np.array_equal(np.frombuffer(acl.util.ptr_to_bytes(h, src.nbytes), np.float32), src)


def test_eager_mode_runs_at_submit(ctx, monkeypatch):
    monkeypatch.setenv("ACLSIM_SCHEDULE", "eager")
    aclsim.configure()
    acl.rt.set_device(0)
    src = np.arange(16, dtype=np.int32)
    d = _dev_with(src)
    h, _ = acl.rt.malloc_host(src.nbytes)
    assert acl.rt.memcpy_async(h, src.nbytes, d, src.nbytes, 2, 0) == 0
    assert np.array_equal(np.frombuffer(acl.util.ptr_to_bytes(h, src.nbytes), np.int32), src)


def test_pageable_host_memory_makes_async_copy_synchronous(ctx):
    """CANN 8.5: with pageable host memory the call returns only after the copy has finished."""
    src = np.arange(32, dtype=np.float32)
    d = _dev_with(src)
    out = np.zeros_like(src)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.memcpy_async(out.ctypes.data, out.nbytes, d, src.nbytes, 2, stream) == 0
    assert np.array_equal(out, src)


def test_stream_order_is_kept(ctx):
    d, _ = acl.rt.malloc(16, 0)
    h, _ = acl.rt.malloc_host(16)
    s, _ = acl.rt.create_stream()
    for value in (1, 2, 3):
        assert acl.rt.memset_async(d, 16, value, 16, s) == 0
    assert acl.rt.memcpy_async(h, 16, d, 16, 2, s) == 0
    assert acl.rt.synchronize_stream(s) == 0
    assert acl.util.ptr_to_bytes(h, 16) == b"\x03" * 16


def test_stream_query_polling_makes_progress(ctx):
    d, _ = acl.rt.malloc(16, 0)
    s, _ = acl.rt.create_stream()
    for _ in range(5):
        acl.rt.memset_async(d, 16, 1, 16, s)
    statuses = []
    for _ in range(100):
        status, ret = acl.rt.stream_query(s)
        assert ret == 0
        statuses.append(status)
        if status == C.ACL_STREAM_STATUS_COMPLETE:
            break
    assert statuses[0] == C.ACL_STREAM_STATUS_NOT_READY
    assert statuses[-1] == C.ACL_STREAM_STATUS_COMPLETE


def test_event_orders_two_streams(ctx):
    d, _ = acl.rt.malloc(16, 0)
    h, _ = acl.rt.malloc_host(16)
    s1, _ = acl.rt.create_stream()
    s2, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    acl.rt.memset_async(d, 16, 7, 16, s1)
    assert acl.rt.record_event(ev, s1) == 0
    assert acl.rt.stream_wait_event(s2, ev) == 0
    acl.rt.memcpy_async(h, 16, d, 16, 2, s2)
    assert acl.rt.synchronize_stream(s2) == 0  # must first run s1 up to the record
    assert acl.util.ptr_to_bytes(h, 16) == b"\x07" * 16
    assert acl.rt.query_event_status(ev) == (C.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)


def test_query_and_synchronize_event(ctx):
    s, _ = acl.rt.create_stream()
    ev, _ = acl.rt.create_event()
    d, _ = acl.rt.malloc(16, 0)
    acl.rt.memset_async(d, 16, 1, 16, s)
    acl.rt.record_event(ev, s)
    assert acl.rt.query_event(ev) == (C.ACL_EVENT_STATUS_NOT_READY, 0)  # one poll runs only the memset
    assert acl.rt.synchronize_event(ev) == 0
    assert acl.rt.query_event_status(ev) == (C.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)


def test_event_elapsed_time_follows_the_modeled_device_clock(ctx):
    s, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, s)
    time.sleep(0.3)
    acl.rt.record_event(end, s)
    assert acl.rt.event_elapsed_time(start, end)[1] == 107006  # not reached yet: no timestamp
    assert acl.rt.synchronize_stream(s) == 0
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret == 0 and ms >= 299.0  # work starts no earlier than it was submitted


def test_destroy_stream_waits_for_its_work(ctx):
    d, _ = acl.rt.malloc(16, 0)
    h, _ = acl.rt.malloc_host(16)
    s, _ = acl.rt.create_stream()
    acl.rt.memset_async(d, 16, 5, 16, s)
    acl.rt.memcpy_async(h, 16, d, 16, 2, s)
    assert acl.rt.destroy_stream(s) == 0
    assert acl.util.ptr_to_bytes(h, 16) == b"\x05" * 16
    assert acl.rt.synchronize_stream(s) == 107017


def test_free_host_while_queued_copy_uses_it_keeps_data_safe(ctx):
    src = np.arange(1024, dtype=np.uint8)
    h, _ = acl.rt.malloc_host(1024)
    acl.rt.memcpy(h, 1024, src.ctypes.data, 1024, 0)
    d, _ = acl.rt.malloc(1024, 0)
    s, _ = acl.rt.create_stream()
    acl.rt.memcpy_async(d, 1024, h, 1024, 1, s)
    assert acl.rt.free_host(h) == 0  # allowed by the API, as in the official async sample
    junk = [np.full(1024, 0xEE, np.uint8) for _ in range(50)]  # reuse of the freed memory
    assert acl.rt.synchronize_stream(s) == 0
    out = np.zeros(1024, np.uint8)
    acl.rt.memcpy(out.ctypes.data, 1024, d, 1024, 2)
    assert np.array_equal(out, src) and junk


def test_synchronize_device_runs_every_stream(ctx):
    d, _ = acl.rt.malloc(32, 0)
    h, _ = acl.rt.malloc_host(32)
    streams = [acl.rt.create_stream()[0] for _ in range(3)]
    for i, s in enumerate(streams):
        acl.rt.memset_async(d + 8 * i, 8, i + 1, 8, s)
    acl.rt.memset_async(d + 24, 8, 4, 8, 0)
    assert acl.rt.synchronize_device() == 0
    acl.rt.memcpy(h, 32, d, 32, 2)
    assert acl.util.ptr_to_bytes(h, 32) == bytes([1] * 8 + [2] * 8 + [3] * 8 + [4] * 8)


def test_stream_of_other_context_is_refused(ctx):
    other, _ = acl.rt.create_context(0)
    s, _ = acl.rt.create_stream()
    default_ctx = aclsim.get_runtime().devices[0].default_context.handle
    assert acl.rt.set_context(default_ctx) == 0
    assert acl.rt.synchronize_stream(s) == 107003
    assert acl.rt.set_context(other) == 0
    assert acl.rt.synchronize_stream(s) == 0
    assert acl.rt.destroy_context(other) == 0
    assert acl.rt.get_context() == (0, 107002)  # destroying the current context leaves none


def test_contexts_are_per_thread(ctx):
    main_ctx, _ = acl.rt.get_context()
    seen = []

    def worker():
        seen.append(acl.rt.get_context())
        acl.rt.set_context(main_ctx)
        seen.append(acl.rt.get_context())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [(0, 107002), (main_ctx, 0)]


def test_launch_callback_runs_on_the_report_thread(ctx):
    s, _ = acl.rt.create_stream()
    done = []
    stop = threading.Event()

    def report_loop(args):
        while not stop.is_set():
            acl.rt.process_report(20)

    tid, ret = acl.util.start_thread(report_loop, [])
    assert ret == 0
    assert acl.rt.subscribe_report(tid, s) == 0
    assert acl.rt.subscribe_report(tid, s) == 100033
    d, _ = acl.rt.malloc(16, 0)
    acl.rt.memset_async(d, 16, 1, 16, s)
    assert acl.rt.launch_callback(lambda a: done.append((a, threading.get_ident())), "x", 1, s) == 0
    assert acl.rt.synchronize_stream(s) == 0
    assert done == [("x", tid)]
    stop.set()
    assert acl.util.stop_thread(tid) == 0
    assert acl.rt.unsubscribe_report(tid, s) == 0


def test_process_report_times_out(ctx):
    s, _ = acl.rt.create_stream()
    me = threading.get_ident()
    assert acl.rt.subscribe_report(me, s) == 0
    assert acl.rt.process_report(30) == 507012  # ACL_ERROR_RT_REPORT_TIMEOUT
    hits = []
    acl.rt.launch_callback(hits.append, 5, 0, s)
    assert acl.rt.process_report(1000) == 0  # polling lets the device reach the callback
    assert hits == [5]


def test_pythonic_face_round_trip():
    with aclsim.Device(0) as dev:
        x = np.random.default_rng(1).random((4, 5)).astype(np.float32)
        with aclsim.to_device(x) as d, aclsim.Stream() as s:
            assert d.shape == (4, 5) and d.nbytes == x.nbytes and d.dtype == np.float32
            assert np.array_equal(d.copy_to_host(stream=s), x)
            row = d[1:3]
            assert row.ptr == d.ptr + 20 and row.shape == (2, 5)
            assert np.array_equal(row.copy_to_host(), x[1:3])
            assert not d[:, 1].is_contiguous
            with pytest.raises(ValueError, match="contiguous"):
                d[:, 1].copy_to_host()
            start, end = aclsim.Event(), aclsim.Event()
            start.record(s)
            end.record(s)
            s.synchronize()
            assert start.elapsed_time(end) >= 0.0
        assert dev.mem_info()[0] == dev.mem_info()[1]
    with pytest.raises(aclsim.AclError) as e:
        aclsim.empty(10)
    assert e.value.code == 107002 and "set_device" in str(e.value)


def test_pythonic_copies_refuse_freed_arrays_and_allow_unaligned_views():
    with aclsim.Device(0):
        x = np.arange(40, dtype=np.float32)
        d = aclsim.to_device(x)
        view = d[3:7]  # 12 bytes in: not 64-byte aligned
        assert np.array_equal(view.copy_to_host(), x[3:7])
        d.free()
        with pytest.raises(aclsim.AclError, match="freed"):
            d.copy_to_host()
        with pytest.raises(aclsim.AclError, match="freed"):
            view.copy_from_host(x[:4])
