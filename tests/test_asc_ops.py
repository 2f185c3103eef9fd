"""aclsim.asc: vector instructions, casts, reductions, compare/select and DMA forms agree with numpy;
launch arguments, observers and chip differences behave as documented."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from aclsim.runtime import get_runtime
from asc_helpers import gm as _gm

N = 256  # elements per operand: a multiple of 32 bytes for every dtype


@pytest.fixture
def device():
    with aclsim.Device(0) as d:
        yield d


def _tensors(dtype, count):
    """A TPipe and `count` scratch tensors of `dtype`, one TBuf each."""
    pipe = asc.TPipe()
    locs = []
    for _ in range(count):
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(b, N * 8)
        locs.append(b.get(dtype))
    return locs


@asc.jit
def binary_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, op: str):
    xg, yg, zg = _gm(x), _gm(y), _gm(z)
    a, b, c = _tensors(x.dtype, 3)
    asc.data_copy(a, xg, N)
    asc.data_copy(b, yg, N)
    getattr(asc, op)(c, a, b, N)
    asc.data_copy(zg, c, N)


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
          "min": np.minimum}


@pytest.mark.parametrize(("op", "dtype"), [
    (op, dt) for op in BINARY for dt in (np.float16, np.float32, np.int16, np.int32)
    if op != "div" or np.dtype(dt).kind == "f"  # div is float-only on the 910B
])
def test_binary_ops_match_numpy_in_the_same_dtype(op, dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(-100, 100, N).astype(dtype)
    y = rng.integers(1, 50, N).astype(dtype)
    z = np.zeros(N, dtype)
    binary_kernel[1](x, y, z, op)
    np.testing.assert_array_equal(z, BINARY[op](x, y).astype(dtype))


def test_float16_arithmetic_rounds_after_every_instruction():
    @asc.jit
    def twice(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, yg, zg = _gm(x), _gm(y), _gm(z)
        a, b, c = _tensors(asc.half, 3)
        asc.data_copy(a, xg, N)
        asc.data_copy(b, yg, N)
        asc.add(c, a, b, N)
        asc.add(c, c, b, N)
        asc.data_copy(zg, c, N)

    x = np.full(N, 2048, np.float16)
    y = np.ones(N, np.float16)
    z = np.zeros(N, np.float16)
    twice[1](x, y, z)
    assert (z == (x + y) + y).all() and z[0] == 2048  # 2049 is not a float16: each add rounds back


@asc.jit
def unary_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, op: str, scalar: float):
    xg, zg = _gm(x), _gm(z)
    a, c = _tensors(x.dtype, 2)
    asc.data_copy(a, xg, N)
    if op in ("adds", "muls", "maxs", "mins", "leaky_relu"):
        getattr(asc, op)(c, a, scalar, N)
    else:
        getattr(asc, op)(c, a, N)
    asc.data_copy(zg, c, N)


UNARY = {
    "exp": np.exp, "ln": np.log, "abs": np.abs, "relu": lambda v: np.maximum(v, 0), "sqrt": np.sqrt,
    "rsqrt": lambda v: np.reciprocal(np.sqrt(v)), "reciprocal": np.reciprocal,
    "adds": lambda v: v + v.dtype.type(1.5), "muls": lambda v: v * v.dtype.type(1.5),
    "maxs": lambda v: np.maximum(v, v.dtype.type(1.5)), "mins": lambda v: np.minimum(v, v.dtype.type(1.5)),
    "leaky_relu": lambda v: np.where(v >= 0, v, v * v.dtype.type(1.5)),
}


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("op", list(UNARY))
def test_unary_and_scalar_ops_match_numpy(op, dtype):
    rng = np.random.default_rng(2)
    x = rng.uniform(0.1, 4, N).astype(dtype)
    if op in ("abs", "relu", "adds", "muls", "maxs", "mins", "leaky_relu"):
        x = (x - 2).astype(dtype)
    z = np.zeros(N, dtype)
    unary_kernel[1](x, z, op, 1.5)
    np.testing.assert_array_equal(z, UNARY[op](x).astype(dtype))


@pytest.mark.parametrize(("op", "dtype", "supported"), [
    ("add", np.int8, "float16, float32, int16, int32"),
    ("exp", np.int32, "float16, float32"),
])
def test_unsupported_element_types_are_refused(op, dtype, supported):
    x = np.ones(N, dtype)
    with pytest.raises(asc.AscError, match=rf"asc\.{op}: {np.dtype(dtype).name} is not supported on Ascend910B1 "
                                           rf"\(supported: {supported}\)"):
        (binary_kernel[1](x, x, x.copy(), op) if op == "add" else unary_kernel[1](x, x.copy(), op, 0.0))


def test_mixed_operand_types_are_refused():
    @asc.jit
    def mixed(x: asc.GlobalAddress, z: asc.GlobalAddress):
        pipe = asc.TPipe()
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(b, 4096)
        asc.duplicate(b.get(asc.float32), 1.0, 64)
        asc.add(b.get(asc.float32), b.get(asc.float32), b.get(asc.half), 64)

    with pytest.raises(asc.AscError, match=r"operands mix float32 and float16: convert one with asc\.cast first"):
        mixed[1](np.zeros(4, np.float32), np.zeros(4, np.float32))


@asc.jit
def cast_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, mode: int):
    xg, zg = _gm(x), _gm(z)
    a, c = _tensors(x.dtype, 2)
    c = c.reinterpret_cast(z.dtype)
    asc.data_copy(a, xg, N)
    asc.cast(c, a, mode, N)
    asc.data_copy(zg, c, N)


def _cast(x, out_dtype, mode, bf16=False):
    rng_out = np.zeros(N, np.uint16 if bf16 else out_dtype)
    z = aclsim.empty(N, rng_out.dtype)
    xd = aclsim.to_device(x)
    cast_kernel[1](xd, asc.GlobalAddress(z.ptr, asc.bfloat16) if bf16 else z, int(mode))
    return z.copy_to_host()


def _f32_values():
    rng = np.random.default_rng(4)
    x = rng.normal(0, 100, N).astype(np.float32)
    x[:4] = [1 + 2.0**-11, -(1 + 2.0**-11), 2.5, -3.5]  # exact float16 ties
    return x


@pytest.mark.parametrize("mode", list(asc.RoundMode))
@pytest.mark.usefixtures("device")
def test_cast_float32_to_float16_rounds_as_asked(mode):
    x = _f32_values()
    r = _cast(x, np.float16, mode).astype(np.float64)
    xd = x.astype(np.float64)
    up = np.nextafter(r.astype(np.float16), np.float16(np.inf)).astype(np.float64)
    down = np.nextafter(r.astype(np.float16), np.float16(-np.inf)).astype(np.float64)
    exact = r == xd
    if mode == asc.RoundMode.CAST_FLOOR:
        assert ((r <= xd) & (up > xd)).all()
    elif mode == asc.RoundMode.CAST_CEIL:
        assert ((r >= xd) & (down < xd)).all()
    elif mode == asc.RoundMode.CAST_TRUNC:
        assert (np.abs(r) <= np.abs(xd)).all() and ((np.abs(np.where(xd < 0, down, up)) > np.abs(xd)) | exact).all()
    elif mode == asc.RoundMode.CAST_ODD:
        odd = (r.astype(np.float16).view(np.uint16) & 1) == 1
        assert (exact | odd).all() and ((down < xd) & (up > xd) | exact).all()
    else:
        np.testing.assert_array_equal(np.abs(r - xd) <= np.minimum(np.abs(up - xd), np.abs(down - xd)), True)
        ties = r[:4]
        expected = [1.0, -1.0, 2.5, -3.5] if mode != asc.RoundMode.CAST_ROUND else [1 + 2.0**-10, -(1 + 2.0**-10),
                                                                                     2.5, -3.5]
        assert ties.tolist() == expected  # RINT/NONE: ties to even; ROUND: ties away from zero


@pytest.mark.usefixtures("device")
def test_cast_float32_to_bfloat16_and_back():
    x = _f32_values()
    bits = _cast(x, None, asc.RoundMode.CAST_RINT, bf16=True)
    back = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    xd = x.astype(np.float64)
    ulp = np.abs(back) * 2.0**-7
    assert (np.abs(back - xd) <= ulp / 2 + 1e-30).all()  # nearest bfloat16
    trunc = _cast(x, None, asc.RoundMode.CAST_TRUNC, bf16=True)
    assert (trunc == (x.view(np.uint32) >> 16).astype(np.uint16)).all()


@pytest.mark.parametrize(("mode", "fn"), [
    (asc.RoundMode.CAST_RINT, np.rint), (asc.RoundMode.CAST_FLOOR, np.floor), (asc.RoundMode.CAST_CEIL, np.ceil),
    (asc.RoundMode.CAST_TRUNC, np.trunc), (asc.RoundMode.CAST_ROUND, lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)),
])
@pytest.mark.usefixtures("device")
def test_cast_float32_to_int32(mode, fn):
    x = _f32_values()
    x[4] = 3e10  # saturates
    z = _cast(x, np.int32, mode)
    expected = np.clip(fn(x.astype(np.float64)), -2**31, 2**31 - 1).astype(np.int32)
    np.testing.assert_array_equal(z, expected)


@asc.jit
def reduce_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, count: int):
    xg, zg = _gm(x), _gm(z)
    a, c, work = _tensors(asc.float32, 3)
    asc.data_copy(a, xg, N)
    asc.duplicate(c, 0.0, 24)
    asc.reduce_sum(c, a, work, count)
    asc.reduce_max(c[8:], a, work, count, cal_index=True)
    asc.reduce_min(c[16:], a, work, count)
    asc.data_copy(zg, c, 24)


def test_reductions():
    x = np.random.default_rng(6).normal(0, 1, N).astype(np.float32)
    z = np.zeros(24, np.float32)
    reduce_kernel[1](x, z, 200)
    assert z[0] == pytest.approx(float(x[:200].sum()), rel=1e-6)
    assert z[8] == x[:200].max() and z[9:10].view(np.uint32)[0] == x[:200].argmax()
    assert z[16] == x[:200].min()


def test_compare_select_and_duplicate():
    @asc.jit
    def cmpsel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, yg, zg = _gm(x), _gm(y), _gm(z)
        a, b, c, m = _tensors(asc.float32, 4)
        mask = m.reinterpret_cast(asc.uint8)
        asc.data_copy(a, xg, N)
        asc.data_copy(b, yg, N)
        asc.compare(mask, a, b, asc.CMPMODE.LT, N)
        asc.select(c, mask, a, b, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, N)
        asc.data_copy(zg, c, N)
        asc.duplicate(c, 0.25, 8)
        asc.data_copy(zg[N:], c, 8)

    rng = np.random.default_rng(8)
    x, y = rng.normal(size=N).astype(np.float32), rng.normal(size=N).astype(np.float32)
    z = np.zeros(N + 8, np.float32)
    cmpsel[1](x, y, z)
    np.testing.assert_array_equal(z[:N], np.minimum(x, y))
    assert (z[N:] == 0.25).all()


def test_data_copy_params_moves_strided_blocks():
    @asc.jit
    def gather(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _gm(x), _gm(z)
        (a,) = _tensors(asc.float32, 1)
        # 4 blocks of 2 x 32 bytes, skipping 1 block between them in GM, packed in UB
        asc.data_copy(a, xg, asc.DataCopyParams(4, 2, 1, 0))
        asc.data_copy(zg, a, asc.DataCopyParams(4, 2, 0, 0))

    x = np.arange(N, dtype=np.float32)
    z = np.zeros(64, np.float32)
    gather[1](x, z)
    expected = np.concatenate([x[i * 24 : i * 24 + 16] for i in range(4)])  # 16 floats taken, 8 skipped
    np.testing.assert_array_equal(z, expected)


def test_data_copy_pad_pads_blocks_and_writes_only_real_bytes():
    @asc.jit
    def pad(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _gm(x), _gm(z)
        (a,) = _tensors(asc.half, 1)
        asc.data_copy_pad(a, xg, asc.DataCopyExtParams(2, 11 * 2, 0, 0, 0),
                          asc.DataCopyPadExtParams(asc.half, True, 0, 5, 7))
        asc.data_copy(zg, a, 32)  # two padded blocks of 16 halves
        asc.data_copy_pad(zg[40:], a, asc.DataCopyExtParams(1, 11 * 2, 0, 0, 0))

    x = np.arange(1, 23, dtype=np.float16)
    z = np.full(64, -1, np.float16)
    pad[1](x, z)
    np.testing.assert_array_equal(z[:32], np.concatenate([x[:11], [7] * 5, x[11:22], [7] * 5]))
    np.testing.assert_array_equal(z[40:51], x[:11])
    assert (z[32:40] == -1).all() and (z[51:] == -1).all()


def test_data_copy_pad_does_not_exist_on_310p():
    aclsim.configure("Ascend310P3")

    @asc.jit
    def pad(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg = _gm(x)
        (a,) = _tensors(asc.half, 1)
        asc.data_copy_pad(a, xg, asc.DataCopyExtParams(1, 22, 0, 0, 0))

    with pytest.raises(asc.AscError, match="DataCopyPad does not exist on Ascend310P3"):
        pad[1](np.zeros(16, np.float16), np.zeros(16, np.float16))


class Recorder:
    def __init__(self):
        self.accesses = []
        self.tasks = []

    def on_kernel_access(self, ka):
        self.accesses.append(ka)

    def on_task_done(self, task):
        self.tasks.append(task)


@asc.jit
def copy_blocks(x: asc.GlobalAddress, z: asc.GlobalAddress, block: int, overlap: int):
    off = asc.get_block_idx() * block
    xg, zg = _gm(x + off), _gm(z + off)
    (a,) = _tensors(asc.float32, 1)
    asc.data_copy(a, xg, block + overlap)
    asc.data_copy(zg, a, block + overlap)


@pytest.mark.parametrize("overlap", [0, 8])
def test_gm_accesses_are_reported_per_core_for_the_sanitizer(overlap):
    rec = Recorder()
    get_runtime().bus.subscribe(rec)
    x = np.arange(N * 4 + 8, dtype=np.float32)
    z = np.zeros_like(x)
    copy_blocks[4](x, z, N, overlap)
    writes = [a for a in rec.accesses if a.write]
    assert [a.core for a in writes] == [0, 1, 2, 3]
    for a in writes:
        assert (a.lo, a.hi) == (a.core * N * 4, (a.core * N + N + overlap) * 4)
        assert a.api == "data_copy" and a.itemsize == 4 and a.line is not None and not a.atomic
    spans = sorted((a.lo, a.hi) for a in writes)
    overlapping = any(hi > lo2 for (_, hi), (lo2, _) in itertools.pairwise(spans))
    assert overlapping == bool(overlap)
    (task,) = [t for t in rec.tasks if t.kind == "kernel"]
    assert task.work.cores == 4
    assert task.work.bytes_read == task.work.bytes_written == 4 * (N + overlap) * 4


@pytest.mark.usefixtures("device")
def test_device_array_arguments_launch_asynchronously():
    x = aclsim.to_device(np.arange(N * 2, dtype=np.float32))
    z = aclsim.zeros(N * 2, np.float32)
    copy_blocks[2](x, z, N, 0)
    out = z.copy_to_host()  # queues behind the kernel, then synchronizes
    np.testing.assert_array_equal(out, np.arange(N * 2, dtype=np.float32))


@pytest.mark.usefixtures("device")
def test_a_raw_pointer_needs_a_type():
    z = aclsim.zeros(N, np.float32)
    with pytest.raises(TypeError, match=r"pass asc\.GlobalAddress\(ptr, dtype\)"):
        copy_blocks[1](z.ptr, z.ptr, N, 0)


@asc.jit
def accumulate(x: asc.GlobalAddress, z: asc.GlobalAddress, atomic: bool):
    xg, zg = _gm(x + asc.get_block_idx() * 64), _gm(z)
    (a,) = _tensors(asc.float32, 1)
    asc.data_copy(a, xg, 64)
    if atomic:
        asc.set_atomic_add(asc.float32)
    asc.data_copy(zg, a, 64)  # every core writes the same 64 floats
    asc.set_atomic_none()


@pytest.mark.parametrize("atomic", [True, False])
def test_atomic_add_accumulates_overlapping_core_writes(atomic):
    rec = Recorder()
    get_runtime().bus.subscribe(rec)
    x = np.arange(4 * 64, dtype=np.float32)
    z = np.ones(64, np.float32)
    accumulate[4](x, z, atomic)
    expected = 1 + x.reshape(4, 64).sum(axis=0) if atomic else x[3 * 64:]  # plain stores: the last core wins
    np.testing.assert_array_equal(z, expected)
    writes = [a for a in rec.accesses if a.write]
    assert len(writes) == 4 and all(a.atomic == atomic for a in writes)


def test_partially_overlapping_operands_are_refused():
    @asc.jit
    def shifted(x: asc.GlobalAddress):
        (t,) = _tensors(asc.float32, 1)
        asc.duplicate(t, 1.0, N)
        asc.add(t, t, t, N)  # in place: allowed
        asc.add(t[8:], t, t, 64)

    with pytest.raises(asc.AscError, match=r"asc\.add: dst \(offset 32\) partially overlaps a source \(offset 0\)"):
        shifted[1](np.zeros(8, np.float32))


def test_axpy_accumulates_into_dst():
    @asc.jit
    def saxpy(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, yg, zg = _gm(x), _gm(y), _gm(z)
        a, b = _tensors(asc.float32, 2)
        asc.data_copy(a, xg, N)
        asc.data_copy(b, yg, N)
        asc.axpy(b, a, 3.0, N)
        asc.data_copy(zg, b, N)

    rng = np.random.default_rng(9)
    x, y = rng.normal(size=N).astype(np.float32), rng.normal(size=N).astype(np.float32)
    z = np.zeros(N, np.float32)
    saxpy[1](x, y, z)
    np.testing.assert_array_equal(z, x * np.float32(3) + y)
