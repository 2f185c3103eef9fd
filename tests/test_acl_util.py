"""`acl.util` behaves as pyACL's util module (python/pyACL/util/*.cpp): the same argument checking as
the rest of the face, and the report-thread helpers' calling convention."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from aclsim import acl
from aclsim import constants as C

pytestmark = pytest.mark.filterwarnings("ignore:acl.util.ptr_to_numpy will be deprecated")


@pytest.fixture
def host():
    data = np.arange(16, dtype=np.float32)
    return data, data.ctypes.data


@pytest.mark.parametrize("call", [
    lambda p: acl.util.ptr_to_numpy(1.0, (4,), C.NPY_FLOAT32),
    lambda p: acl.util.ptr_to_numpy("0x1000", (4,), C.NPY_FLOAT32),
    lambda p: acl.util.ptr_to_numpy(None, (4,), C.NPY_FLOAT32),
    lambda p: acl.util.ptr_to_numpy(p, (4,), 11.0),
    lambda p: acl.util.ptr_to_numpy(p, (4,)),
    lambda p: acl.util.ptr_to_numpy(p, (4,), C.NPY_FLOAT32, 0),
    lambda p: acl.util.ptr_to_bytes(p, 4.0),
    lambda p: acl.util.ptr_to_bytes(None, 4),
    lambda p: acl.util.ptr_to_bytes(p),
    lambda p: acl.util.bytes_to_ptr(),
    lambda p: acl.util.bytes_to_ptr(b"a", b"b"),
    lambda p: acl.util.numpy_to_ptr(),
    lambda p: acl.util.stop_thread(),
    lambda p: acl.util.stop_thread("tid"),
], ids=["ptr-float", "ptr-str", "ptr-none", "type-float", "too-few", "too-many", "size-float", "bytes-none",
        "bytes-few", "b2p-none", "b2p-many", "n2p-none", "stop-none", "stop-str"])
def test_wrong_argument_types_and_counts_are_args_parse_failed(call, host):
    _, p = host
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match=r"^acl\.util\.\w+ args parse failed$"):
            call(p)


@pytest.mark.parametrize("args, given", [((), 0), ((print,), 1), ((print, None, 1), 3)])
def test_start_thread_with_a_wrong_count_raises_cpythons_message(args, given):
    """WrapStartThread keeps PyArg_ParseTuple's own error (Huawei's pyACL unit test expects this text)."""
    with pytest.raises(TypeError, match=rf"^function takes exactly 2 arguments \({given} given\)$"):
        acl.util.start_thread(*args)


def test_ptr_to_numpy_refuses_bad_shapes_and_types_clearly(host):
    data, p = host
    with pytest.raises(ValueError, match="shape is empty"):
        acl.util.ptr_to_numpy(p, [4], C.NPY_FLOAT32)  # a list, not a tuple (pyACL: PyTuple_Size fails)
    with pytest.raises(TypeError, match="the second argument is not list of int"):
        acl.util.ptr_to_numpy(p, (4.0,), C.NPY_FLOAT32)
    with pytest.raises(ValueError, match="negative dimensions"):
        acl.util.ptr_to_numpy(p, (-1,), C.NPY_FLOAT32)
    for flexible in (17, 18, 19, 20):  # object, string, unicode, void
        with pytest.raises(ValueError, match=f"numpy type {flexible} .* cannot view raw memory"):
            acl.util.ptr_to_numpy(p, (4,), flexible)
    with pytest.raises(ValueError, match="unknown numpy type number 99"):
        acl.util.ptr_to_numpy(p, (4,), 99)
    view = acl.util.ptr_to_numpy(p, (2, 8), C.NPY_FLOAT32)
    assert np.array_equal(view, data.reshape(2, 8))
    view[0, 0] = 42  # a view, no copy, as in pyACL
    assert data[0] == 42


def test_start_thread_with_none_calls_fn_without_arguments():
    got = []
    tid, ret = acl.util.start_thread(lambda: got.append(threading.get_ident()), None)
    assert ret == 0 and acl.util.stop_thread(tid) == 0
    assert got == [tid]
    tid, _ = acl.util.start_thread(got.append, [1, 2])  # any other object is passed as the one argument
    assert acl.util.stop_thread(tid) == 0
    assert got[1] == [1, 2]


def test_start_thread_refuses_what_cannot_be_called():
    with pytest.raises(TypeError, match=r"^parameter must be callable$"):
        acl.util.start_thread("report_loop", None)


def test_stop_thread_raises_when_the_thread_raised(capfd):
    def broken(x):
        raise KeyError(x)

    tid, ret = acl.util.start_thread(broken, "k")
    assert ret == 0
    with pytest.raises(RuntimeError, match=r"^exception=KeyError,msg=thread call failed;$"):
        acl.util.stop_thread(tid)
    assert "KeyError: 'k'" in capfd.readouterr().err  # printed where it happened, as PyErr_Display does
    assert acl.util.stop_thread(tid) == 100000  # joined and forgotten
