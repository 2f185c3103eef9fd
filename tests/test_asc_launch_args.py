"""aclsim.asc launches: host arrays of every kind are copied in and out, plain values pass by value,
anything else is refused at the launch, and queued work that never ran is reported at exit."""

from __future__ import annotations

import array
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc


@asc.jit
def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, factor: float):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, n * x.dtype.sizeof())
    t = q.alloc_tensor(x.dtype)
    asc.data_copy(t, xg, n)
    asc.muls(t, t, factor, n)
    asc.data_copy(zg, t, n)
    q.free_tensor(t)


class ArrayInterfaceOnly:
    """A host buffer exposing only `__array_interface__` (as some imaging and GPU-less libraries do)."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr
        self.__array_interface__ = arr.__array_interface__


@pytest.fixture(autouse=True)
def _device():
    with aclsim.Device(0):
        yield


def test_array_interface_and_buffer_protocol_objects_are_copied_in_and_out():
    x = np.arange(2 * 64, dtype=np.float32)
    holder = ArrayInterfaceOnly(np.zeros(2 * 64, np.float32))
    scale_kernel[2](ArrayInterfaceOnly(x), holder, 64, 2.0)
    np.testing.assert_array_equal(holder.arr, x * 2)

    src = array.array("f", range(128))
    out = bytearray(128 * 4)
    scale_kernel[2](src, memoryview(out).cast("f"), 64, 3.0)
    np.testing.assert_array_equal(np.frombuffer(out, np.float32), np.arange(128, dtype=np.float32) * 3)


def test_a_non_contiguous_host_array_is_staged_both_ways():
    base = np.zeros((128, 2), np.float32)
    x = np.arange(128, dtype=np.float32)
    scale_kernel[2](x, base[:, 1], 64, 5.0)
    np.testing.assert_array_equal(base[:, 1], x * 5)
    assert not base[:, 0].any()


@pytest.mark.parametrize(("value", "kind"), [(object(), "builtins.object"), ({1: 2}, "builtins.dict"),
                                             (lambda: 0, "function")])
def test_anything_else_is_refused_at_the_launch_naming_the_argument(value, kind):
    with pytest.raises(TypeError, match=rf"kernel argument 'factor': a .*{kind}.* cannot be passed to a kernel; "
                                        r"accepted: numpy arrays, torch CPU tensors"):
        scale_kernel[1](np.zeros(64, np.float32), np.zeros(64, np.float32), 64, value)


@pytest.mark.parametrize("value", [[1.0, 2.0, 3.0], (1, 2), 7, 2.5])
def test_a_plain_value_for_a_gm_address_is_refused_naming_the_argument(value):
    # a list used to pass by value: the launch had no host array, so it was queued and never ran
    with pytest.raises(TypeError, match=rf"kernel argument 'x' is a GM address, not a {type(value).__name__}"):
        scale_kernel[1](value, np.zeros(64, np.float32), 64, 1.0)


def test_an_array_of_a_type_ascend_c_lacks_is_refused_naming_the_argument():
    with pytest.raises(TypeError, match=r"kernel argument 'z': numpy dtype .*float64.* has no Ascend C element type"):
        scale_kernel[1](np.zeros(64, np.float32), np.zeros(64), 64, 1.0)


def test_torch_cpu_tensors_run_and_come_back():
    torch = pytest.importorskip("torch")
    x = torch.arange(4 * 64, dtype=torch.float16)
    z = torch.zeros_like(x)
    scale_kernel[4, aclsim.Stream.default()](x, z, 64, 0.5)  # returns after the work is done
    assert torch.equal(z, x * 0.5)
    w = torch.zeros(64, 2, dtype=torch.float32)  # a strided view of a tensor
    scale_kernel[1](torch.ones(64, requires_grad=True), w[:, 0], 64, 4.0)
    assert torch.equal(w[:, 0], torch.full((64,), 4.0)) and not w[:, 1].any()


def test_a_torch_dtype_no_kernel_takes_is_refused_by_name():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="kernel argument 'x'"):
        scale_kernel[1](torch.zeros(64, dtype=torch.complex64), np.zeros(64, np.float32), 64, 1.0)


def test_a_bool_array_is_refused_with_pyasc_s_compile_message():
    """pyasc names no bool element type: its compiler refuses the launch with a ValueError saying so."""
    with pytest.raises(ValueError, match=r"kernel argument 'x': Unsupported DataType name: bool") as info:
        scale_kernel[1](np.zeros(64, bool), np.zeros(64, np.float32), 64, 1.0)
    assert isinstance(info.value, TypeError)  # as it was: a launch refusing its arguments


def test_a_torch_bfloat16_tensor_reaches_the_kernel_and_its_arithmetic_fails_as_pyasc_s_compile_does():
    torch = pytest.importorskip("torch")
    pytest.importorskip("ml_dtypes")
    with pytest.raises(ValueError, match=r"asc\.muls: Unsupported DataType name: bfloat16"):
        scale_kernel[1](torch.zeros(64, dtype=torch.bfloat16), np.zeros(64, np.float32), 64, 1.0)


def test_the_launch_does_not_import_torch():
    code = textwrap.dedent("""
        import sys, numpy as np, aclsim.asc as asc
        @asc.jit
        def k(x: asc.GlobalAddress):
            pass
        k[1](np.zeros(8, np.float32))
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_exiting_with_a_launch_that_never_ran_says_so():
    code = textwrap.dedent("""
        import numpy as np, aclsim, aclsim.asc as asc
        @asc.jit
        def fill(z: asc.GlobalAddress):
            pass
        aclsim.Device(0).__enter__()
        z = aclsim.zeros(64, np.float32)
        fill[2](z)          # device memory: queued, never synchronized
    """)
    env_run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "ACLSIM_SCHEDULE": "lazy"})
    assert "1 kernel launch(es) that never ran: fill[2]" in env_run.stderr

    synced = code + "aclsim.Stream.default().synchronize()\n"
    quiet = subprocess.run([sys.executable, "-c", synced], capture_output=True, text=True,
                           env={**os.environ, "ACLSIM_SCHEDULE": "lazy"})
    assert "never ran" not in quiet.stderr
