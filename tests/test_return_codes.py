"""Table-driven return-code tests for the pyACL facade (the documented codes of each call: hicann/runtime docs/zh/api_ref/)."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.acl as acl
from aclsim import constants as C

HBM = C.ACL_HBM_MEM


@pytest.fixture
def dev():
    """init + set_device(0); yields a dict of useful pointers."""
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    d, ret = acl.rt.malloc(256, 0)
    assert ret == 0
    h, ret = acl.rt.malloc_host(256)
    assert ret == 0
    return {"d": d, "h": h}


def _no_context_calls():
    return [
        ("malloc", lambda: acl.rt.malloc(64, 0), (0, 107002)),
        ("malloc_host", lambda: acl.rt.malloc_host(64), (0, 107002)),
        ("get_mem_info", lambda: acl.rt.get_mem_info(HBM), (0, 0, 107002)),
        ("get_device", lambda: acl.rt.get_device(), (0, 107002)),
        ("get_context", lambda: acl.rt.get_context(), (0, 107002)),
        ("create_stream", lambda: acl.rt.create_stream(), (0, 107002)),
        ("create_event", lambda: acl.rt.create_event(), (0, 107002)),
        ("synchronize_stream", lambda: acl.rt.synchronize_stream(0), 107002),
        ("synchronize_device", lambda: acl.rt.synchronize_device(), 107002),
    ]


@pytest.mark.parametrize("name,call,expected", _no_context_calls(), ids=[c[0] for c in _no_context_calls()])
def test_calls_without_context_return_107002(name, call, expected):
    assert acl.init() == 0
    assert call() == expected
    msg = acl.get_recent_err_msg()
    assert "set_device" in msg and "107002" in msg


def test_init_finalize_repeat_codes():
    assert acl.finalize() == 0  # finalize before any init is not an error (SRC aclFinalizeInternal)
    assert acl.init() == 0
    assert acl.init() == 100002
    assert acl.finalize() == 0
    assert acl.finalize() == 100037
    assert acl.init() == 0  # init after finalize works again


def test_init_with_bad_config_file(tmp_path):
    assert acl.init(str(tmp_path / "missing.json")) == 100003
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert acl.init(str(bad)) == 100006
    good = tmp_path / "good.json"
    good.write_text('{"err_msg_mode": "1"}')
    assert acl.init(str(good)) == 0


@pytest.mark.parametrize(
    "call,expected",
    [
        (lambda p: acl.rt.set_device(1), 107001),
        (lambda p: acl.rt.set_device(-1), 107001),
        (lambda p: acl.rt.reset_device(5), 107001),
        (lambda p: acl.rt.malloc(0, 0), (0, 100000)),
        (lambda p: acl.rt.malloc_host(0), (0, 100000)),
        (lambda p: acl.rt.malloc(-1, 0), (0, 100000)),  # wraps to 2**64-1, overflows the rounding
        (lambda p: acl.rt.malloc(1 << 40, 0), (0, 207001)),  # 1 TiB on a 64 GiB device
        (lambda p: acl.rt.free(0), 100000),
        (lambda p: acl.rt.free_host(0), 100000),
        (lambda p: acl.rt.free(p["d"] + 64), 107000),  # inside, not the start
        (lambda p: acl.rt.free(p["h"]), 107000),  # host memory given to free
        (lambda p: acl.rt.free_host(p["d"]), 107000),  # device memory given to free_host
        (lambda p: acl.rt.memcpy(p["d"], 10, p["h"], 11, 1), 107000),
        (lambda p: acl.rt.memcpy(p["d"], 0, p["h"], 1, 1), 107000),
        (lambda p: acl.rt.memcpy(p["d"], 256, p["h"], 0, 1), 0),
        (lambda p: acl.rt.memcpy(0, 256, p["h"], 16, 1), 100000),
        (lambda p: acl.rt.memcpy(p["d"], 256, 0, 16, 1), 100000),
        (lambda p: acl.rt.memcpy(p["d"], 256, p["h"], 16, 6), 100000),
        (lambda p: acl.rt.memcpy(p["d"], 256, p["h"], 16, 9), 100000),
        (lambda p: acl.rt.memcpy(p["d"], 1024, p["h"], 1024, 1), 107000),  # runs past both allocations
        (lambda p: acl.rt.memcpy(p["d"] + (1 << 20), 16, p["h"], 16, 1), 100000),  # not allocated
        (lambda p: acl.rt.memcpy(p["d"], 16, 4096, 16, 1), 100000),  # unmapped host address
        (lambda p: acl.rt.memcpy_async(p["d"], 16, p["h"], 16, 1, 0), 0),
        (lambda p: acl.rt.memcpy_async(p["h"], 16, p["h"] + 64, 16, 0, 0), 207000),  # async H2H
        (lambda p: acl.rt.memcpy_async(p["d"], 10, p["h"], 11, 1, 0), 107000),
        (lambda p: acl.rt.memset(p["d"], 256, 1, 0), 0),
        (lambda p: acl.rt.memset(0, 256, 1, 16), 100000),
        (lambda p: acl.rt.memset(p["d"], 10, 1, 11), 107000),
        (lambda p: acl.rt.memset_async(p["d"], 10, 1, 11, 0), 107000),
        (lambda p: acl.rt.get_mem_info(C.ACL_DDR_MEM), (0, 0, 0)),  # Ascend910B1 has HBM, no DDR
        (lambda p: acl.rt.get_mem_info(99), (0, 0, 100000)),
        (lambda p: acl.rt.destroy_stream(0), 100000),
        (lambda p: acl.rt.destroy_stream(0x1234), 107017),
        (lambda p: acl.rt.synchronize_stream(0xDEAD0), 107017),
        (lambda p: acl.rt.record_event(0x1234, 0), 107017),
        (lambda p: acl.rt.set_context(0), 100000),
        (lambda p: acl.rt.destroy_context(acl.rt.get_context()[0]), 107002),  # default: "Can not destroy primary ctx"
        (lambda p: acl.rt.destroy_context(0x1234), 107002),  # not a live context: CHECK_CONTEXT_VALID_WITH_RETURN
        (lambda p: acl.rt.set_context(0x1234), 107002),
        (lambda p: acl.rt.launch_callback(print, None, 0, 0), 107015),
        (lambda p: acl.rt.process_report(10), 107012),  # ACL_ERROR_RT_THREAD_SUBSCRIBE
        (lambda p: acl.rt.process_report(0), 100000),  # timeout must be -1 or > 0
        (lambda p: acl.rt.process_report(-2), 100000),
        (lambda p: acl.rt.launch_callback(print, None, 2, 0), 100000),  # block_type checked before the stream
        (lambda p: acl.rt.synchronize_stream_with_timeout(0, 0), 107000),
        (lambda p: acl.rt.synchronize_stream_with_timeout(0, -2), 107000),
        (lambda p: acl.rt.synchronize_device_with_timeout(-2), 107000),
        (lambda p: acl.rt.mem_flush(p["d"], 0), 100000),
        (lambda p: acl.rt.mem_invalidate(0, 16), 100000),
        (lambda p: acl.rt.memcpy2d(p["d"], 16, p["h"], 16, 16, 2, 0), 100000),  # H2H is no 2-D kind
        (lambda p: acl.rt.memcpy2d(p["d"], 16, p["h"], 16, 16, 2, 5), 100000),
        (lambda p: acl.rt.malloc_host(1 << 63), (0, 207001)),  # beyond any host: no ValueError
        (lambda p: acl.rt.device_can_access_peer(0, 0), (0, 100000)),
        (lambda p: acl.rt.device_enable_peer_access(0, 0), 100000),
        (lambda p: acl.rt.memcpy2d(p["d"], 8, p["h"], 16, 16, 2, 1), 100000),  # width > dpitch
        (lambda p: acl.rt.memcpy2d(p["d"], 16, p["h"], 16, 16, 0, 1), 100000),
    ],
)
def test_bad_values_return_documented_code(dev, call, expected):
    assert call(dev) == expected
    if expected not in (0,) and (not isinstance(expected, tuple) or expected[-1] != 0):
        assert acl.get_recent_err_msg()  # every failure leaves a message saying what to do


@pytest.mark.parametrize(
    "call",
    [
        lambda: acl.rt.malloc(1.5, 0),
        lambda: acl.rt.malloc(None, 0),
        lambda: acl.rt.malloc(64),
        lambda: acl.rt.malloc(64, 0, 1),
        lambda: acl.rt.memcpy(np.uint64(1), 1, 1, 1, 1),  # "k" accepts Python ints only
        lambda: acl.rt.set_device("0"),
        lambda: acl.rt.set_device(1 << 40),  # "i" overflow
        lambda: acl.rt.create_stream_with_config(1),
        lambda: acl.init(None),
        lambda: acl.rt.malloc(size=64, policy=0),
    ],
)
def test_wrong_types_raise_typeerror(call):
    with pytest.raises(TypeError, match=r"args parse failed|keyword"):
        call()


def test_argument_less_calls_ignore_extra_positional_arguments():
    """pyACL's wrappers of argument-less calls never parse their tuple: a two-NPU program passing the device id
    to synchronize_device works on hardware."""
    assert acl.rt.set_device(0) == 0
    assert acl.rt.synchronize_device(0) == 0
    stream, ret = acl.rt.create_stream(7)
    assert ret == 0 and acl.rt.destroy_stream(stream) == 0
    assert acl.rt.get_device("x") == (0, 0)
    with pytest.raises(TypeError, match="keyword"):
        acl.rt.synchronize_device(device_id=0)


def test_wrong_type_message_names_function():
    with pytest.raises(TypeError, match=r"^acl\.rt\.memcpy args parse failed$"):
        acl.rt.memcpy(1, 2, 3, 4.0, 1)


def test_failed_memcpy_writes_nothing(dev):
    pattern = np.arange(256, dtype=np.uint8)
    assert acl.rt.memcpy(dev["d"], 256, pattern.ctypes.data, 256, 1) == 0
    junk = np.full(1024, 7, dtype=np.uint8)
    assert acl.rt.memcpy(dev["d"], 1024, junk.ctypes.data, 1024, 1) == 107000
    out = np.zeros(256, dtype=np.uint8)
    assert acl.rt.memcpy(out.ctypes.data, 256, dev["d"], 256, 2) == 0
    assert np.array_equal(out, pattern)


def test_failed_malloc_changes_no_accounting(dev):
    before = acl.rt.get_mem_info(HBM)
    assert acl.rt.malloc(1 << 40, 0) == (0, 207001)
    assert "out of memory" in acl.get_recent_err_msg()
    assert acl.rt.get_mem_info(HBM) == before


def test_recent_err_msg_is_per_thread_and_cleared_on_read(dev):
    import threading

    assert acl.rt.malloc(0, 0)[1] == 100000
    seen = []
    t = threading.Thread(target=lambda: seen.append(acl.get_recent_err_msg()))
    t.start()
    t.join()
    assert seen == [None]  # the other thread has no pending message
    msg = acl.get_recent_err_msg()
    assert "size must be > 0" in msg
    assert acl.get_recent_err_msg() is None


def test_recent_err_msg_newest_first(dev):
    acl.rt.malloc(0, 0)
    acl.rt.free(0)
    first, second = acl.get_recent_err_msg().split("\n")
    assert "acl.rt.free" in first and "acl.rt.malloc" in second


def test_run_mode_soc_version_and_counts():
    assert acl.rt.get_run_mode() == (C.ACL_HOST, 0)
    assert acl.get_soc_name() == "Ascend910B1"
    assert acl.rt.get_device_count() == (1, 0)
    assert acl.get_version()[-1] == 0


def test_free_of_freed_pointer_is_refused(dev):
    assert acl.rt.free(dev["d"]) == 0
    assert acl.rt.free(dev["d"]) == 107000
    assert "not a live device allocation" in acl.get_recent_err_msg()


def test_only_a_failed_pyacl_call_leaves_a_recent_error_message(dev):
    # The message is written where the pyACL face returns the code, not when an AclError is made: an error the
    # runtime or an engine raises and catches itself (a probe) must not show up in get_recent_err_msg.
    from aclsim.errors import AclError
    from aclsim.runtime import get_runtime

    acl.get_recent_err_msg()
    with pytest.raises(AclError):  # refused inside aclsim and caught: nothing for the program to see
        get_runtime().free(dev["d"] + 1)
    assert acl.get_recent_err_msg() is None
    assert acl.rt.free(dev["d"] + 1) != 0  # the same refusal through the pyACL face
    assert "acl.rt.free" in acl.get_recent_err_msg()
