"""aclsim.asc: the call forms of vector instructions (count, mask/repeat), the mask register, and the
error for pyasc names aclsim does not emulate."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim.asc import coverage

N = 1024  # elements per UB operand


def _ub(dtype, count, size=N):
    """`count` VECCALC tensors of `size` elements from one TBuf each."""
    pipe = asc.TPipe()
    out = []
    for _ in range(count):
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(b, size * dtype.sizeof())
        out.append(b.get(dtype))
    return out


def _load(dst, addr, n):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr)
    asc.data_copy(dst, g, n)


def _store(addr, src, n):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr)
    asc.data_copy(g, src, n)


# --------------------------------------------------------------------------- count form
NEGATIVE_COUNT = {
    "add": lambda d, a, b: asc.add(d, a, b, -1),
    "adds": lambda d, a, b: asc.adds(d, a, 1.0, -1),
    "exp": lambda d, a, b: asc.exp(d, a, -1),
    "duplicate": lambda d, a, b: asc.duplicate(d, 1.0, -1),
    "axpy": lambda d, a, b: asc.axpy(d, a, 2.0, -1),
    "cast": lambda d, a, b: asc.cast(d, a, asc.RoundMode.CAST_NONE, -1),
    "reduce_sum": lambda d, a, b: asc.reduce_sum(d, a, b, -1),
    "compare": lambda d, a, b: asc.compare(d.reinterpret_cast(asc.uint8), a, b, asc.CMPMODE.LT, -1),
    "compare_scalar": lambda d, a, b: asc.compare_scalar(d.reinterpret_cast(asc.uint8), a, 0.0, asc.CMPMODE.LT, -1),
    "select": lambda d, a, b: asc.select(d, b.reinterpret_cast(asc.uint8), a, 0.0,
                                         asc.SelMode.VSEL_TENSOR_SCALAR_MODE, -1),
}


@pytest.mark.parametrize("op", sorted(NEGATIVE_COUNT))
def test_a_negative_count_faults_for_every_instruction(op):
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        d, a, b = _ub(asc.float32, 3)
        _load(a, x, N)
        _load(b, x, N)
        NEGATIVE_COUNT[op](d, a, b)

    with pytest.raises(asc.AscError, match=rf"asc\.{op}: count must be >= 0, got -1"):
        kernel[1](np.ones(N, np.float32))


def test_count_form_takes_is_set_mask_and_keywords():
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        _load(a, x, N)
        asc.add(d, a, a, N, True)           # the optional 5th argument of the count form
        asc.muls(d, d, 3.0, count=N, is_set_mask=False)
        _store(z, d, N)

    x = np.arange(N, dtype=np.float32)
    z = np.zeros_like(x)
    kernel[1](x, z)
    np.testing.assert_array_equal(z, (x + x) * 3)


def test_a_wrong_argument_list_names_both_forms():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        _load(a, x, N)
        asc.add(d, a, a, N, repeat_count=2)

    with pytest.raises(asc.AscError, match=r"asc\.add: .*unexpected keyword argument 'repeat_count'.*the forms are "
                                           r"\(\.\.\., count\[, is_set_mask\]\) and \(\.\.\., mask, repeat_times, "
                                           r"BinaryRepeatParams"):
        kernel[1](np.ones(N, np.float32))


# --------------------------------------------------------------------------- mask/repeat form
def _lanes(bits, lanes):
    return np.array([(bits >> i) & 1 for i in range(lanes)], bool)


def _expected_binary(x, y, z0, bits, repeats, strides, fn):
    """Independent model: repeat r, block b, element e of each operand; only masked lanes change dst."""
    epb = 32 // x.itemsize
    lanes = 8 * epb
    z = z0.copy()
    on = _lanes(bits, lanes)
    (db, dr), (ab, ar), (bb, br) = strides
    for r in range(repeats):
        for lane in range(lanes):
            if on[lane]:
                b, e = divmod(lane, epb)
                z[r * dr * epb + b * db * epb + e] = fn(x[r * ar * epb + b * ab * epb + e],
                                                       y[r * br * epb + b * bb * epb + e])
    return z


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize(("mask", "strides"), [
    ("full", ((1, 8), (1, 8), (1, 8))),
    (37, ((1, 8), (1, 8), (1, 8))),
    ("bits", ((2, 16), (1, 8), (1, 10))),
    ("full", ((1, 8), (2, 16), (1, 0))),
])
def test_binary_mask_repeat_form_matches_an_independent_model(dtype, mask, strides):
    lanes = 256 // np.dtype(dtype).itemsize
    bits = {"full": (1 << lanes) - 1, "bits": 0x5A5A_0F0F_F0F0_1234 if lanes == 64 else (0x1234 << 64) | 0xF0F0_0F0F_5A5A_A5A5}.get(mask)
    if bits is None:
        bits = (1 << mask) - 1
    arg = mask if isinstance(mask, int) else [bits & (2**64 - 1)] + ([bits >> 64] if lanes == 128 else [])
    repeats = 3
    adt = asc.half if dtype == np.float16 else asc.float32

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        d, a, b = _ub(adt, 3, 4 * N)
        _load(a, x, 4 * N)
        _load(b, y, 4 * N)
        _load(d, z, 4 * N)
        params = asc.BinaryRepeatParams(strides[0][0], strides[1][0], strides[2][0],
                                        strides[0][1], strides[1][1], strides[2][1])
        asc.add(d, a, b, mask=arg, repeat_times=repeats, repeat_params=params)
        _store(z, d, 4 * N)

    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, 4 * N).astype(dtype)
    y = rng.uniform(-4, 4, 4 * N).astype(dtype)
    z0 = np.full(4 * N, -99, dtype)
    z = z0.copy()
    kernel[1](x, y, z)
    np.testing.assert_array_equal(z, _expected_binary(x, y, z0, bits, repeats, strides, lambda p, q: p + q))


def test_a_two_word_mask_on_a_32_bit_type_uses_the_low_word():
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        _load(a, x, N)
        asc.add(d, a, a, [2**64 - 1, 2**64 - 1], 2, asc.BinaryRepeatParams())
        _store(z, d, 128)

    x = np.arange(N, dtype=np.float32)
    z = np.zeros(128, np.float32)
    kernel[1](x, z)
    np.testing.assert_array_equal(z, x[:128] * 2)


def test_counter_mode_processes_the_count_and_ignores_repeat_times():
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        _load(a, x, N)
        asc.duplicate(d, 0.0, N)
        asc.set_mask_count()
        asc.set_vector_mask(150, dtype=asc.float32, mode=asc.MaskMode.COUNTER)
        asc.muls(d, a, 2.0, asc.MASK_PLACEHOLDER, 1, asc.UnaryRepeatParams(), False)  # 150 elements, 3 repeats
        asc.set_mask_norm()
        asc.reset_mask()
        _store(z, d, N)

    x = np.arange(N, dtype=np.float32)
    z = np.zeros_like(x)
    kernel[1](x, z)
    np.testing.assert_array_equal(z, np.where(np.arange(N) < 150, x * 2, 0))


def test_is_set_mask_false_uses_the_register_set_before():
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        d, a = _ub(asc.half, 2)
        _load(a, x, N)
        asc.duplicate(d, 0.0, N)
        asc.set_vector_mask(1 << 63, 1, dtype=asc.half, mode=asc.MaskMode.NORMAL)   # lanes 0 and 127
        asc.adds(d, a, 1.0, 0, 2, asc.UnaryRepeatParams(), is_set_mask=False)
        asc.reset_mask()
        _store(z, d, N)

    x = np.arange(N, dtype=np.float16)
    z = np.zeros_like(x)
    kernel[1](x, z)
    want = np.zeros(N, np.float16)
    for i in (0, 127, 128, 255):
        want[i] = x[i] + 1
    np.testing.assert_array_equal(z, want)


def test_repeat_stride_zero_accumulates_repeat_after_repeat():
    """dst repeat stride 0 with dst as a source: each repeat adds onto the previous repeat's result."""
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        _load(a, x, N)
        asc.duplicate(d, 0.0, 64)
        asc.add(d, a, d, 64, 4, asc.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
        _store(z, d, 64)

    x = np.arange(N, dtype=np.float32)
    z = np.zeros(64, np.float32)
    kernel[1](x, z)
    np.testing.assert_array_equal(z, x[:256].reshape(4, 64).sum(axis=0))


@pytest.mark.parametrize(("call", "message"), [
    (lambda d, a: asc.add(d, a, a, 65, 1, asc.BinaryRepeatParams()), r"mask = 65 is out of range: .* 1\.\.64 lanes"),
    (lambda d, a: asc.add(d, a, a, 64, 256, asc.BinaryRepeatParams()), r"repeat_times must be in 0\.\.255, got 256"),
    (lambda d, a: asc.add(d, a, a, [0, 1], 1, asc.BinaryRepeatParams()), r"enables none of the 64 lanes"),
    (lambda d, a: asc.add(d, a, a, [0], 1, asc.BinaryRepeatParams()), r"enables none"),
    (lambda d, a: asc.add(d, a, a, 64, 1, asc.UnaryRepeatParams()), r"must be asc\.BinaryRepeatParams"),
    (lambda d, a: asc.add(d, a, a, 64, 3, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 70)), r"tensor size overflow"),
    (lambda d, a: asc.set_vector_mask(10, dtype=asc.float32, mode=asc.MaskMode.COUNTER),
     r"in NORMAL mode: call asc\.set_mask_count\(\) first"),
])
def test_mask_repeat_limits_fault(call, message):
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        _load(a, x, N)
        call(d, a)

    with pytest.raises((asc.AscError, TypeError), match=message):
        kernel[1](np.ones(N, np.float32))


def test_masked_lanes_may_stay_unwritten_but_are_not_readable_later():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        _load(a, x, N)
        asc.adds(d, a, 1.0, 32, 1, asc.UnaryRepeatParams())  # lanes 0..31 written, 32..63 not
        asc.muls(d, d, 2.0, 64)

    with pytest.raises(asc.AscError, match=r"asc\.muls: reads 64 x float32 but element 32 .* was never written"):
        kernel[1](np.ones(N, np.float32))


def test_copy_and_brcb():
    @asc.jit
    def kernel(x: asc.GlobalAddress, c: asc.GlobalAddress, b: asc.GlobalAddress):
        d, a, e = _ub(asc.float32, 3)
        _load(a, x, N)
        asc.duplicate(d, 0.0, N)
        asc.copy(d, a, 64, 2, asc.CopyRepeatParams(1, 2, 8, 16))  # every other block of a, packed
        _store(c, d, 128)
        asc.brcb(e, a, 2, asc.BrcbRepeatParams(1, 8))             # a[k] fills block k of e
        _store(b, e, 128)

    x = np.arange(N, dtype=np.float32)
    c = np.zeros(128, np.float32)
    b = np.zeros(128, np.float32)
    kernel[1](x, c, b)
    blocks = x[:512].reshape(-1, 8)
    np.testing.assert_array_equal(c, np.concatenate([blocks[0:16:2], blocks[16:32:2]]).ravel())
    np.testing.assert_array_equal(b, np.repeat(x[:16], 8))


@pytest.mark.parametrize(("op", "fn"), [
    ("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
])
def test_bitwise_ops_match_numpy(op, fn):
    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress):
        d, a, b = _ub(asc.int16, 3)
        _load(a, x, N)
        _load(b, y, N)
        getattr(asc, op)(d, a, b, N)
        _store(z, d, N)
        asc.bitwise_not(d, a, N)
        asc.shift_left(d, d, 3, N)
        _store(w, d, N)

    rng = np.random.default_rng(5)
    x = rng.integers(-2**15, 2**15, N).astype(np.int16)
    y = rng.integers(-2**15, 2**15, N).astype(np.int16)
    z = np.zeros_like(x)
    w = np.zeros_like(x)
    kernel[1](x, y, z, w)
    np.testing.assert_array_equal(z, fn(x, y))
    np.testing.assert_array_equal(w, np.left_shift(np.invert(x), 3))


@pytest.mark.parametrize(("op", "want"), [
    ("mul_add_dst", lambda a, b, d: a * b + d),
    ("fused_mul_add", lambda a, b, d: a * d + b),
    ("fused_mul_add_relu", lambda a, b, d: np.maximum(a * d + b, 0)),
    ("add_relu", lambda a, b, d: np.maximum(a + b, 0)),
    ("sub_relu", lambda a, b, d: np.maximum(a - b, 0)),
])
def test_fused_ops_match_numpy(op, want):
    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        d, a, b = _ub(asc.float32, 3)
        _load(a, x, N)
        _load(b, y, N)
        _load(d, z, N)
        getattr(asc, op)(d, a, b, N)
        _store(z, d, N)

    rng = np.random.default_rng(7)
    x, y, z0 = (rng.uniform(-2, 2, N).astype(np.float32) for _ in range(3))
    z = z0.copy()
    kernel[1](x, y, z)
    np.testing.assert_allclose(z, want(x, y, z0), rtol=1e-6)


@pytest.mark.parametrize(("op", "want"), [
    ("mul_add_dst", lambda a, b, d: a * b + d),
    ("fused_mul_add", lambda a, b, d: a * d + b),
    ("fused_mul_add_relu", lambda a, b, d: np.maximum(a * d + b, 0)),
])
def test_fused_ops_in_mask_repeat_form_take_each_operands_strides(op, want):
    """src1 is read from every other 256 bytes (repeat stride 16 blocks): each operand keeps its own strides,
    dst's also where it is a source."""
    reps = N // 64

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        pipe = asc.TPipe()
        bufs = [asc.TBuf(asc.TPosition.VECCALC) for _ in range(3)]
        for b, n in zip(bufs, (N, 2 * N, N), strict=True):
            pipe.init_buffer(b, n * 4)
        a, b, d = (t.get(asc.float32) for t in bufs)
        _load(a, x, N)
        _load(b, y, 2 * N)
        _load(d, z, N)
        getattr(asc, op)(d, a, b, 64, reps, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 16))
        _store(z, d, N)

    rng = np.random.default_rng(8)
    x, z0 = (rng.uniform(-2, 2, N).astype(np.float32) for _ in range(2))
    y = rng.uniform(-2, 2, 2 * N).astype(np.float32)
    z = z0.copy()
    kernel[1](x, y, z)
    picked = y.reshape(reps, 2, 64)[:, 0].ravel()  # the first 64 of every 128 elements
    np.testing.assert_allclose(z, want(x, picked, z0), rtol=1e-6)


# --------------------------------------------------------------------------- what is not emulated
def _lacking() -> str:
    """A pyasc name aclsim does not emulate (yet)."""
    return next(n for n in coverage.pyasc_names()["asc"] if not hasattr(asc, n))


def test_a_pyasc_name_aclsim_lacks_says_so_at_the_call_site():
    lacking = _lacking()

    @asc.jit
    def kernel(x: asc.GlobalAddress):
        d, a = _ub(asc.float32, 2)
        getattr(asc, lacking)(d, a)  # the line reported

    line = kernel.fn.__code__.co_firstlineno + 3
    with pytest.raises(asc.AscError) as info:
        kernel[1](np.ones(N, np.float32))
    text = str(info.value)
    assert f"asc.{lacking} is a pyasc API that aclsim does not emulate (yet)" in text
    assert f"test_asc_forms.py:{line}" in text
    assert "AttributeError" not in text


def test_a_name_pyasc_lacks_too_stays_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'gahter'") as info:
        asc.gahter  # noqa: B018
    assert not isinstance(info.value, coverage.NotEmulatedError)
    assert not hasattr(asc, _lacking())


def test_the_name_list_is_pyasc_1_1_1s():
    names = coverage.pyasc_names()
    public = len(names["asc"]) + len(names["asc.language.adv"]) + len(names["asc.lib.runtime"]) + \
        len(names["asc.lib.host"])
    assert public == 388  # the count of pyasc 1.1.1's public names in the issue
    ref = "/work/shared/reference/pyasc-api-1.1.1.md"
    if os.path.exists(ref):  # the names kept in the repo are the wheel's, one for one
        text = Path(ref).read_text(encoding="utf-8")
        for module in ("asc", "asc.language.adv", "asc.lib.runtime", "asc.lib.host"):
            section = text.split(f"## {module}\n", 1)[1].split("\n## ", 1)[0]
            assert set(names[module]) == set(re.findall(r"`([^`]+)` \(", section))


def test_docs_coverage_page_is_the_generated_one():
    text = (Path(__file__).parent.parent / "docs" / "coverage" / "pyasc.md").read_text(encoding="utf-8")
    assert coverage.table() in text, "regenerate it with `python docs/gen_pages.py`"
    counts = [line for line in text.splitlines() if line.endswith("pyasc 1.1.1 names are emulated.")]
    assert counts == [coverage.table().splitlines()[0]], "one generated count line, no stale ones"


def test_every_emulated_pyasc_name_is_listed_as_emulated():
    rows = {(m, n): ok for m, n, ok, _ in coverage.coverage()}
    for name in ("add", "copy", "brcb", "set_vector_mask", "BinaryRepeatParams", "MaskMode", "TPipe"):
        assert rows[("asc", name)], name
    assert not rows[("asc", _lacking())]
