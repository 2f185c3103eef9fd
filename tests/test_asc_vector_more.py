"""aclsim.asc: layout (transpose, trans_data_to_5hd), bilinear interpolation, the reductions, gather/scatter and
the mask/repeat forms of cast/compare/select, each against an independent numpy model."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc

RNG = np.random.default_rng(7)
TYPES = {np.dtype(np.float16): asc.float16, np.dtype(np.float32): asc.float32, np.dtype(np.int8): asc.int8,
         np.dtype(np.uint8): asc.uint8, np.dtype(np.int16): asc.int16, np.dtype(np.uint16): asc.uint16,
         np.dtype(np.int32): asc.int32, np.dtype(np.uint32): asc.uint32, np.dtype(np.uint64): asc.uint64}


def run(body, *arrays, scratch=0):
    """Run `body(*tensors)` in a one-core kernel on UB copies of `arrays` (each 32-byte aligned in one buffer,
    sized as the array), plus a never-written uint8 tensor of `scratch` bytes if asked; return the arrays as
    the kernel left them."""
    offsets, size = [], 0
    for a in arrays:
        offsets.append(size)
        size += -(-a.nbytes // 32) * 32
    blob = np.zeros(size, np.uint8)
    for a, o in zip(arrays, offsets, strict=True):
        blob[o : o + a.nbytes] = np.ascontiguousarray(a).view(np.uint8).ravel()

    @asc.jit
    def kernel(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, size)
        raw = buf.get(asc.uint8)
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        asc.data_copy(raw, g, size)
        tensors = [raw[o:].reinterpret_cast(TYPES[a.dtype]) for a, o in zip(arrays, offsets, strict=True)]
        for t, a in zip(tensors, arrays, strict=True):
            t.set_size(a.size)
        if scratch:
            extra = asc.TBuf(asc.TPosition.VECCALC)
            pipe.init_buffer(extra, scratch)
            tensors.append(extra.get(asc.uint8))
        body(*tensors)
        asc.data_copy(g, raw, size)

    kernel[1](blob)
    return [blob[o : o + a.nbytes].view(a.dtype).reshape(a.shape).copy() for a, o in zip(arrays, offsets, strict=True)]


def faults(body, *arrays, match, scratch=0):
    """`body` faults with `match`, naming this file's line."""
    with pytest.raises(asc.AscError, match=match + r".*test_asc_vector_more\.py:\d+"):
        run(body, *arrays, scratch=scratch)


def values(dtype, n):
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(-8, 8, n).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dtype)


# --------------------------------------------------------------------------- transpose
@pytest.mark.parametrize("dtype", [np.float16, np.int16, np.uint16])
def test_transpose_16x16_and_in_place(dtype):
    x = values(dtype, 256)
    z, y = run(lambda d, s: (asc.transpose(d, s), asc.transpose(s, s)), np.zeros(256, dtype), x.copy())
    np.testing.assert_array_equal(z, x.reshape(16, 16).T.ravel())
    np.testing.assert_array_equal(y, x.reshape(16, 16).T.ravel())


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8])
@pytest.mark.parametrize("kind", ["TRANSPOSE_NCHW2NHWC", "TRANSPOSE_NHWC2NCHW"])
def test_transpose_ext_converts_nchw_and_nhwc(dtype, kind):
    n, c, h, w = 2, 16, 4, 8
    x = values(dtype, n * c * h * w)
    params = asc.TransposeParamsExt(n_size=n, c_size=c, h_size=h, w_size=w, transpose_type=asc.TransposeType[kind])
    z, _, _ = run(lambda d, s, t: asc.transpose(d, s, t, params), np.zeros_like(x), x, np.zeros(40 * 1024, np.uint8))
    want = (x.reshape(n, c, h, w).transpose(0, 2, 3, 1) if kind.endswith("NHWC")
            else x.reshape(n, h, w, c).transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(z, want.ravel())


def test_transpose_ext_nd2nd_b16_is_the_16x16_transpose_of_uint16():
    x = values(np.uint16, 256)
    params = asc.TransposeParamsExt(transpose_type=asc.TransposeType.TRANSPOSE_ND2ND_B16)
    z, _, _ = run(lambda d, s, t: asc.transpose(d, s, t, params), np.zeros_like(x), x, np.zeros(32, np.uint8))
    np.testing.assert_array_equal(z, x.reshape(16, 16).T.ravel())


def _ext(kind, c=16, **kw):
    return asc.TransposeParamsExt(n_size=1, c_size=c, h_size=4, w_size=4, transpose_type=kind, **kw)


@pytest.mark.parametrize(("body", "arrays", "message"), [
    (lambda d, s: asc.transpose(d, s), (np.zeros(256, np.float32), np.ones(256, np.float32)),
     r"asc\.transpose: the 16 x 16 transpose takes float16/int16/uint16, got float32"),
    (lambda d, s: asc.transpose(d, s), (np.zeros(128, np.float16), np.ones(256, np.float16)),
     r"asc\.transpose: 256 x float16 needs 512 bytes but the tensor holds only 256"),
    (lambda d, s, t: asc.transpose(d, s, t, _ext(asc.TransposeType.TRANSPOSE_ND2ND_B16)),
     (np.zeros(256, np.float16), np.ones(256, np.float16), np.zeros(32, np.uint8)),
     r"TRANSPOSE_ND2ND_B16 takes uint16"),
    (lambda d, s, t: asc.transpose(d, s, t, _ext(asc.TransposeType.TRANSPOSE_NZ2ND_0213)),
     (np.zeros(256, np.float16), np.ones(256, np.float16), np.zeros(32, np.uint8)),
     r"TransposeType\.TRANSPOSE_NZ2ND_0213 is reserved"),
    (lambda d, s, t: asc.transpose(d, s, t, _ext(asc.TransposeType.TRANSPOSE_NCHW2NHWC)),
     (np.zeros(256, np.float16), np.ones(256, np.float16), np.zeros(1024, np.uint8)),
     r"asc\.transpose: 9216 x uint8 needs 9216 bytes but the tensor holds only 1024"),
    (lambda d, s, t: asc.transpose(d, s, t, asc.TransposeParamsExt(1, 16, 3, 3, asc.TransposeType.TRANSPOSE_NCHW2NHWC)),
     (np.zeros(256, np.float16), np.ones(256, np.float16), np.zeros(20000, np.uint8)),
     r"an image of h x w = 3 x 3 float16 is 18 bytes, not a multiple of 32"),
    (lambda d, s, t: asc.transpose(s, s, t, _ext(asc.TransposeType.TRANSPOSE_NHWC2NCHW)),
     (np.zeros(256, np.float16), np.ones(256, np.float16), np.zeros(20000, np.uint8)),
     r"TRANSPOSE_NHWC2NCHW does not allow src and dst to overlap"),
])
def test_transpose_refusals(body, arrays, message):
    faults(body, *arrays, match=message)


def test_transpose_argument_errors_are_type_errors():
    with pytest.raises(asc.AscError, match=r"dst and src must have the same dtype"):
        run(lambda d, s: asc.transpose(d, s), np.zeros(256, np.int16), np.zeros(256, np.float16))
    with pytest.raises(asc.AscError, match=r"shared_tmp_buffer must be a uint8 LocalTensor"):
        run(lambda d, s, t: asc.transpose(d, s, t, _ext(asc.TransposeType.TRANSPOSE_NCHW2NHWC)),
            np.zeros(256, np.int16), np.zeros(256, np.int16), np.zeros(64, np.int16))


# --------------------------------------------------------------------------- trans_data_to_5hd
def _5hd_model(src_blocks, isz, src_high=False, dst_high=False):
    """Independent model of one repeat: 16 source blocks (rows) -> 16 destination blocks (rows)."""
    epb = 32 // isz
    dst = np.zeros((16, epb), src_blocks.dtype)
    for i in range(16):  # source block i
        for j in range(16 if isz != 4 else 8):  # its element j
            if isz == 2:
                dst[j, i] = src_blocks[i, j]
            elif isz == 4:  # column j of the 16 x 8 matrix fills destination blocks 2j, 2j + 1
                dst[2 * j + i // 8, i % 8] = src_blocks[i, j]
            else:
                dst[j, i + 16 * dst_high] = src_blocks[i, j + 16 * src_high]
    return dst


@pytest.mark.parametrize("form", ["tensors", "addr_list", "addr_tensor"])
@pytest.mark.parametrize("dtype", [np.float16, np.int16])
def test_trans_data_to_5hd_makes_nc1hwc0(form, dtype):
    c, hw = 32, 64  # NCHW with N = 1: two C1 groups of C0 = 16 channels, 64 positions = 4 repeats of 16
    x = values(dtype, c * hw)
    params = asc.TransDataTo5HDParams(repeat_times=hw // 16, dst_rep_stride=16, src_rep_stride=1)

    def body(z, s, da, sa):
        for g in range(c // 16):
            dst = [z[g * 16 * hw + 16 * k] for k in range(16)]
            src = [s[g * 16 * hw + hw * k] for k in range(16)]
            if form == "tensors":
                asc.trans_data_to_5hd(dst, src, params)
                continue
            dl, sl = [t.get_phy_addr() for t in dst], [t.get_phy_addr() for t in src]
            if form == "addr_list":
                asc.trans_data_to_5hd(dl, sl, params)
                continue
            for k in range(16):
                da.set_value(k, dl[k])
                sa.set_value(k, sl[k])
            asc.trans_data_to_5hd(da, sa, params)

    z, *_ = run(body, np.zeros_like(x), x, np.zeros(16, np.uint64), np.zeros(16, np.uint64))
    np.testing.assert_array_equal(z, x.reshape(c // 16, 16, hw).transpose(0, 2, 1).ravel())


@pytest.mark.parametrize(("dtype", "src_high", "dst_high"), [
    (np.float32, False, False), (np.int8, False, False), (np.int8, True, False), (np.uint8, False, True),
])
def test_trans_data_to_5hd_32_and_8_bit_blocks(dtype, src_high, dst_high):
    isz = np.dtype(dtype).itemsize
    epb = 32 // isz
    x = values(dtype, 16 * epb * 2)  # 16 source blocks, 2 repeats (source repeat stride 16 blocks)
    z0 = values(dtype, 16 * epb * 2)
    params = asc.TransDataTo5HDParams(dst_high_half=dst_high, src_high_half=src_high, repeat_times=2,
                                      dst_rep_stride=16, src_rep_stride=16)
    z, _ = run(lambda d, s: asc.trans_data_to_5hd([d[epb * k] for k in range(16)], [s[epb * k] for k in range(16)],
                                                  params), z0.copy(), x)
    want = z0.reshape(2, 16, epb).copy()
    for r in range(2):
        blocks = _5hd_model(x.reshape(2, 16, epb)[r], isz, src_high, dst_high)
        if isz == 1:
            half = slice(16, 32) if dst_high else slice(0, 16)
            want[r][:, half] = blocks[:, half]
        else:
            want[r] = blocks
    np.testing.assert_array_equal(z, want.ravel())


def _lists(d, s, n=16):
    return [d[16 * k] for k in range(n)], [s[16 * k] for k in range(16)]


@pytest.mark.parametrize(("body", "message"), [
    (lambda d, s: asc.trans_data_to_5hd(*_lists(d, s), asc.TransDataTo5HDParams(repeat_times=256)),
     r"repeat_times must be in 0\.\.255, got 256"),
    (lambda d, s: asc.trans_data_to_5hd(*_lists(d, s, 15), asc.TransDataTo5HDParams()),
     r"dst_list lists 15 operands; the instruction takes 16"),
    (lambda d, s: asc.trans_data_to_5hd([d.get_phy_addr() + 2] + [d.get_phy_addr()] * 15,
                                        [s.get_phy_addr()] * 16, asc.TransDataTo5HDParams()),
     r"did not come from LocalTensor.get_phy_addr"),
    (lambda d, s: asc.trans_data_to_5hd(*_lists(d, s), asc.TransDataTo5HDParams(repeat_times=2, src_rep_stride=16)),
     r"asc\.trans_data_to_5hd: 272 x float16 needs 544 bytes"),
])
def test_trans_data_to_5hd_refusals(body, message):
    faults(body, np.zeros(256, np.float16), np.ones(256, np.float16), match=message)


def test_trans_data_to_5hd_reads_only_written_blocks():
    def body(d, s, fresh):
        t = fresh.reinterpret_cast(asc.float16)
        asc.trans_data_to_5hd([d[16 * k] for k in range(16)], [t[16 * k] for k in range(16)],
                              asc.TransDataTo5HDParams())

    faults(body, np.zeros(256, np.float16), np.ones(256, np.float16), scratch=512, match=r"was never written")


# --------------------------------------------------------------------------- bilinear_interpolation
def _bilinear_model(z0, x, offsets, w, mask_bits, h_rep, mode, blk, vro, v_rep):
    z = z0.copy()
    for v in range(v_rep):
        acc = np.zeros(128, np.float16)
        for h in range(h_rep):
            k = v * h_rep + h
            for lane in range(128):
                b, e = divmod(lane, 16)
                p = x[offsets[8 * k + b] // 2 + e] * w[8 * k + b if mode else k]
                acc[lane] = p if h == 0 else acc[lane] + p
        for lane in range(128):
            if mask_bits >> lane & 1:
                b, e = divmod(lane, 16)
                z[v * vro + b * blk * 16 + e] = acc[lane]
    return z


@pytest.mark.parametrize(("mask", "mode", "blk", "vro"), [
    (128, False, 1, 128), (128, True, 2, 256), ([0xF0F0_F0F0_0000_FFFF, 0x1234_5678_9ABC_DEF0], True, 1, 144),
    (40, False, 1, 128),
])
def test_bilinear_interpolation_matches_a_per_lane_model(mask, mode, blk, vro):
    h_rep, v_rep = 3, 2
    x = values(np.float16, 64 * 16)  # 64 blocks of src0
    offsets = (RNG.integers(0, 64, 8 * h_rep * v_rep) * 32).astype(np.uint32)
    w = values(np.float16, 8 * h_rep * v_rep)
    z0 = values(np.float16, 1024)
    bits = (1 << mask) - 1 if isinstance(mask, int) else mask[0] | mask[1] << 64
    z, *_ = run(lambda d, s0, off, s1, t: asc.bilinear_interpolation(d, s0, off, s1, mask, h_rep, mode, blk, vro,
                                                                      v_rep, t),
                z0, x, offsets, w, np.zeros(64, np.uint8))
    np.testing.assert_array_equal(z, _bilinear_model(z0, x, offsets, w, bits, h_rep, mode, blk, vro, v_rep))


@pytest.mark.parametrize(("change", "message"), [
    ({"h_repeat": 256}, r"h_repeat must be in 0\.\.255, got 256"),
    ({"mask": 129}, r"mask = 129 is out of range"),
    ({"offset": 16}, r"offset\[0\] = 16 is not a multiple of 32"),
    ({"offset": 4096}, r"asc\.bilinear_interpolation: 2064 x float16 needs 4128 bytes"),
    ({"vro": 4096}, r"4224 x float16 needs 8448 bytes but the tensor holds only 512"),
    ({"vro": 120}, r"v_r_offset = 120 elements is not a multiple of 16"),
])
def test_bilinear_interpolation_refusals(change, message):
    args = {"mask": 128, "h_repeat": 1, "vro": 128}
    args.update(change)
    offsets = np.arange(16, dtype=np.uint32) * 32
    offsets[0] = change.get("offset", 0)

    def body(d, s0, off, s1, t):
        asc.bilinear_interpolation(d, s0, off, s1, args["mask"], args["h_repeat"], False, 1, args["vro"], 2, t)

    faults(body, np.zeros(256, np.float16), np.ones(256, np.float16), offsets, np.ones(16, np.float16),
           np.zeros(32, np.uint8), match=message)


def test_bilinear_interpolation_takes_float16_only():
    faults(lambda d, s0, off, s1, t: asc.bilinear_interpolation(d, s0, off, s1, 64, 1, False, 1, 64, 1, t),
           np.zeros(64, np.float32), np.ones(64, np.float32), np.zeros(8, np.uint32), np.ones(8, np.float32),
           np.zeros(32, np.uint8), match=r"dst must be float16 on this chip, got float32")


# --------------------------------------------------------------------------- reductions
def _lane_model(x, mask_bits, repeats, blk, stride):
    """(repeat, lane) values and enabled flags of a mask/repeat source, element by element."""
    epb = 32 // x.itemsize
    lanes = 8 * epb
    vals = np.zeros((repeats, lanes), x.dtype)
    on = np.zeros((repeats, lanes), bool)
    for r in range(repeats):
        for lane in range(lanes):
            if mask_bits >> lane & 1:
                b, e = divmod(lane, epb)
                vals[r, lane] = x[r * stride * epb + b * blk * epb + e]
                on[r, lane] = True
    return vals, on


def _pairwise(v):
    """Binary-tree sum of a list in its dtype, float16 partial sums held at +-65504."""
    if len(v) == 1:
        return v[0]
    half = len(v) // 2
    s = np.add(_pairwise(v[:half]), _pairwise(v[half:]), dtype=v.dtype)
    return np.clip(s, -65504, 65504).astype(v.dtype) if v.dtype == np.float16 else s


MASKS = {"full": None, "count": 37, "bits": [0x00FF_0F0F_F000_1234, 0x8000_0000_0000_0001]}


def _mask(name, dtype):
    lanes = 256 // np.dtype(dtype).itemsize
    m = MASKS[name]
    if m is None:
        return lanes, (1 << lanes) - 1
    if isinstance(m, int):
        return m, (1 << m) - 1
    m = m[: 2 if lanes == 128 else 1]
    return m, (m[0] | (m[1] << 64 if len(m) == 2 else 0))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize(("api", "mask"), [("whole_reduce_sum", m) for m in sorted(MASKS)]
                         + [("repeat_reduce_sum", "full"), ("repeat_reduce_sum", "count")])  # a continuous mask only
def test_whole_and_repeat_reduce_sum(dtype, mask, api):
    arg, bits = _mask(mask, dtype)
    x = values(dtype, 2048)
    z0 = values(dtype, 64)
    repeats, blk, stride, dstride = 4, 2, 17, 3

    def body(d, s):
        if api == "whole_reduce_sum":
            asc.whole_reduce_sum(d, s, arg, repeats, dstride, blk, stride)
        else:
            asc.repeat_reduce_sum(d, s, repeats, arg, 99, blk, dstride, stride)

    z, _ = run(body, z0.copy(), x)
    vals, _ = _lane_model(x, bits, repeats, blk, stride)
    want = z0.copy()
    for r in range(repeats):
        want[r * dstride] = _pairwise(vals[r])
    np.testing.assert_array_equal(z, want)


def test_whole_reduce_sum_saturates_float16_partial_sums():
    x = np.zeros(128, np.float16)
    x[:4] = [60000, 60000, -30000, 100]  # the documented example: 65504 - 29900
    z, _ = run(lambda d, s: asc.whole_reduce_sum(d, s, 4, 1, 1, 1, 8), np.zeros(16, np.float16), x)
    assert z[0] == np.float16(65504) + (np.float16(-30000) + np.float16(100))  # not inf


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("order", list(asc.ReduceOrder))
@pytest.mark.parametrize("api", ["whole_reduce_max", "whole_reduce_min"])
def test_whole_reduce_max_min_orders(dtype, order, api):
    arg, bits = _mask("bits", dtype)
    x = values(dtype, 2048)
    z0 = np.zeros(64, dtype)
    repeats, dstride = 3, 2
    z, _ = run(lambda d, s: getattr(asc, api)(d, s, arg, repeats, dstride, 1, 8, order), z0, x)
    vals, on = _lane_model(x, bits, repeats, 1, 8)
    ibits = np.uint16 if dtype == np.float16 else np.uint32
    want = z0.copy()
    for r in range(repeats):
        cand = [(v, i) for i, (v, ok) in enumerate(zip(vals[r], on[r], strict=True)) if ok]
        best = (max if api.endswith("max") else min)(cand, key=lambda c: c[0])  # the first of equal values
        value, index = best[0], best[1]
        if order == asc.ReduceOrder.ORDER_ONLY_VALUE:
            want[r * dstride] = value
        elif order == asc.ReduceOrder.ORDER_ONLY_INDEX:
            want.view(np.uint8)[4 * r * dstride : 4 * r * dstride + 4] = np.array([index], np.uint32).view(np.uint8)
        else:
            pair = [value, np.array([index], ibits).view(dtype)[0]]
            if order == asc.ReduceOrder.ORDER_INDEX_VALUE:
                pair.reverse()
            want[2 * r * dstride : 2 * r * dstride + 2] = pair
    np.testing.assert_array_equal(z.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("how", ["sum", "max", "min"])
def test_block_reduce(dtype, how):
    arg, bits = _mask("bits", dtype)
    x = values(dtype, 2048)
    z0 = values(dtype, 64)
    repeats, dstride, blk, stride = 3, 2, 1, 9
    z, _ = run(lambda d, s: getattr(asc, f"block_reduce_{how}")(d, s, repeats, arg, dstride, blk, stride), z0.copy(), x)
    vals, on = _lane_model(x, bits, repeats, blk, stride)
    epb = 32 // np.dtype(dtype).itemsize
    want = z0.copy()
    for r in range(repeats):
        for b in range(8):
            v, ok = vals[r, b * epb : (b + 1) * epb], on[r, b * epb : (b + 1) * epb]
            if ok.any():  # a block with no enabled lane keeps its dst element
                want[r * dstride * 8 + b] = _pairwise(v) if how == "sum" else getattr(np, how)(v[ok])
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_pair_reduce_sum(dtype):
    arg, bits = _mask("bits", dtype)
    x = values(dtype, 2048)
    lanes = 256 // np.dtype(dtype).itemsize
    z0 = values(dtype, 4 * lanes)
    z, _ = run(lambda d, s: asc.pair_reduce_sum(d, s, 2, arg, 2, 1, 8), z0.copy(), x)
    vals, on = _lane_model(x, bits, 2, 1, 8)
    want = z0.copy()
    for r in range(2):
        for i in range(lanes // 2):
            if on[r, 2 * i] or on[r, 2 * i + 1]:
                want[r * 2 * (lanes // 2) + i] = vals[r, 2 * i] + vals[r, 2 * i + 1]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_reduce_mask_repeat_forms(dtype):
    x = values(dtype, 2048)
    repeats, stride = 3, 12
    x[2 * stride * (32 // x.itemsize) + 5] = 100  # the max in the last repeat: its index counts the strides
    arg, bits = _mask("count", dtype)

    def body(mx, mn, sm, s, t):
        asc.reduce_max(mx, s, t, arg, repeats, stride, True)
        asc.reduce_min(mn, s, t, arg, repeats, stride)
        asc.reduce_sum(sm, s, t, arg, repeats, stride)

    mx, mn, sm, _, _ = run(body, np.zeros(16, dtype), np.zeros(16, dtype), np.zeros(16, dtype), x,
                           np.zeros(1024, np.uint8))
    vals, on = _lane_model(x, bits, repeats, 1, stride)
    epb, lanes = 32 // x.itemsize, 256 // x.itemsize
    flat = [(vals[r, i], r * stride * epb + i) for r in range(repeats) for i in range(lanes) if on[r, i]]
    best = max(flat, key=lambda c: c[0])  # the index is the element's offset in src
    assert mx[0] == best[0]
    assert mx[1:2].view(np.uint16 if dtype == np.float16 else np.uint32)[0] == best[1]
    assert mn[0] == min(v for v, _ in flat)
    np.testing.assert_allclose(sm[0], sum(float(v) for v, _ in flat), rtol=2e-3 if dtype == np.float16 else 1e-6)


def test_reduce_max_count_form_takes_cal_index_positionally():
    x = values(np.float32, 300)
    z, _, _ = run(lambda d, s, t: asc.reduce_max(d, s, t, 300, True), np.zeros(8, np.float32), x,
                  np.zeros(1024, np.uint8))
    assert z[0] == x.max()
    assert z[1:2].view(np.uint32)[0] == int(np.argmax(x))


@pytest.mark.parametrize(("body", "message"), [
    (lambda d, s: asc.whole_reduce_sum(d, s, 64, 256, 1, 1, 8), r"repeat_times must be in 0\.\.255, got 256"),
    (lambda d, s: asc.block_reduce_max(d, s, 1, 0, 1, 1, 8), r"mask = 0 is out of range"),
    (lambda d, s: asc.pair_reduce_sum(d, s, 1, [0], 1, 1, 8), r"enables none of the 64 lanes"),
    (lambda d, s: asc.whole_reduce_max(d[1:], s, 64, 1, 1, 1, 8), r"not 8-byte aligned"),
    (lambda d, s: asc.whole_reduce_sum(d, s, 64, 5, 1, 1, 8), r"320 x float32 needs 1280 bytes but the tensor "
                                                             r"holds only 1024"),
    (lambda d, s: asc.repeat_reduce_sum(d, s, 1, [1, 0], 1, 1, 1, 8), r"the mask is a count of leading lanes"),
])
def test_reduction_refusals(body, message):
    faults(body, np.zeros(64, np.float32), np.ones(256, np.float32), match=message)


def test_reductions_refuse_integer_types():
    faults(lambda d, s: asc.whole_reduce_sum(d, s, 64, 1, 1, 1, 8), np.zeros(64, np.int32), np.ones(256, np.int32),
           match=r"int32 is not supported")


# --------------------------------------------------------------------------- gather / scatter / gather_mask
@pytest.mark.parametrize("dtype", [np.float16, np.int32])
def test_gather_and_scatter_count_form(dtype):
    aclsim.configure("Ascend310P3")  # Scatter exists on Atlas inference chips only
    isz = np.dtype(dtype).itemsize
    src = values(dtype, 512)
    picks = RNG.integers(0, 256, 200)
    slots = RNG.permutation(256)[:200]
    z0 = values(dtype, 512)

    def body(g, sc, s, gather_off, scatter_off):
        asc.gather(g, s, gather_off, 64, 200)
        asc.scatter(sc, s, scatter_off, 32, count=200)

    g, sc, *_ = run(body, z0.copy(), z0.copy(), src, (picks * isz).astype(np.uint32), (slots * isz).astype(np.uint32))
    want_g, want_s = z0.copy(), z0.copy()
    for i in range(200):
        want_g[i] = src[64 // isz + picks[i]]
        want_s[32 // isz + slots[i]] = src[i]
    np.testing.assert_array_equal(g, want_g)
    np.testing.assert_array_equal(sc, want_s)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_gather_and_scatter_mask_repeat_form(dtype):
    aclsim.configure("Ascend310P3")
    arg, bits = _mask("bits", dtype)
    isz = np.dtype(dtype).itemsize
    epb, lanes = 32 // isz, 256 // isz
    src = values(dtype, 1024)
    off = (RNG.integers(0, 1024, 2 * lanes) * isz).astype(np.uint32)
    z0 = values(dtype, 2048)
    g, sc, *_ = run(lambda g, sc, s, o: (asc.gather(g, s, o, 0, arg, 2, 9), asc.scatter(sc, s, o, 0, arg, 2, 3)),
                    z0.copy(), z0.copy(), src, off)
    want_g, want_s = z0.copy(), z0.copy()
    for r in range(2):
        for lane in range(lanes):
            if bits >> lane & 1:
                k = r * lanes + lane  # the offsets are consumed one per lane, repeat after repeat
                want_g[r * 9 * epb + lane] = src[off[k] // isz]
                want_s[off[k] // isz] = src[r * 3 * epb + lane]
    np.testing.assert_array_equal(g, want_g)
    np.testing.assert_array_equal(sc, want_s)


def test_scatter_to_one_element_keeps_the_last_write():
    aclsim.configure("Ascend310P3")
    src = np.arange(64, dtype=np.float32)
    z, *_ = run(lambda d, s, o: asc.scatter(d, s, o, 0, 64), np.zeros(64, np.float32), src, np.zeros(64, np.uint32))
    assert z[0] == 63


@pytest.mark.parametrize(("body", "message"), [
    (lambda d, s, o: asc.gather(d, s, o, 2, 16), r"base \+ offset\[0\] = 2 bytes is not a multiple of the 4-byte"),
    (lambda d, s, o: asc.gather(d, s, o, 4096, 16), r"asc\.gather: 1025 x float32 needs 4100 bytes"),
    (lambda d, s, o: asc.scatter(d, s, o, 0, 64, 256, 8), r"repeat_times must be in 0\.\.255, got 256"),
    (lambda d, s, o: asc.gather(d, s, o, 0, 65, 1, 8), r"mask = 65 is out of range"),
    (lambda d, s, o: asc.gather(d, s, o.reinterpret_cast(asc.int32), 0, 16), r"the offsets must be a uint32"),
])
def test_gather_scatter_refusals(body, message):
    aclsim.configure("Ascend310P3")
    faults(body, np.zeros(64, np.float32), np.ones(64, np.float32), np.zeros(64, np.uint32), match=message)


def test_scatter_does_not_exist_on_a2():
    faults(lambda d, s, o: asc.scatter(d, s, o, 0, 64), np.zeros(64, np.float32), np.ones(64, np.float32),
           np.zeros(64, np.uint32), match=r"Scatter is not supported on Ascend910B1")


@pytest.mark.parametrize("dtype", [np.float16, np.int32])
@pytest.mark.parametrize("pattern", [1, 2, 3, 4, 5, 6, 7, "tensor"])
def test_gather_mask_normal_mode(dtype, pattern):
    isz = np.dtype(dtype).itemsize
    epb, lanes = 32 // isz, 256 // isz
    src = values(dtype, 2048)
    pat_dtype = np.uint16 if isz == 2 else np.uint32
    pat = RNG.integers(0, np.iinfo(pat_dtype).max, 64, endpoint=True).astype(pat_dtype)
    params = asc.GatherMaskParams(src0_block_stride=2, repeat_times=3, src0_repeat_stride=20, src1_repeat_stride=1)
    z0 = values(dtype, 1024)
    kept = []

    def body(d, s, p):
        asc.set_mask_count()  # gather_mask leaves the register in NORMAL mode
        kept.append(asc.gather_mask(d, s, p if pattern == "tensor" else pattern, False, 0, params))
        kept.append(asc.get_gather_mask_remain_count())
        asc.add(d, d, d, 64, 1, asc.BinaryRepeatParams())  # a NORMAL-mode mask of 64 lanes

    z, *_ = run(body, z0.copy(), src, pat)
    picked = []
    for r in range(3):
        for lane in range(lanes):
            if pattern == "tensor":  # bits LSB first, one repeat's words from r * 32 bytes
                word = pat[r * (32 // isz) + lane // (8 * isz)]
                on = bool(int(word) >> (lane % (8 * isz)) & 1)
            else:
                on = {1: lane % 2 == 0, 2: lane % 2 == 1, 3: lane % 4 == 0, 4: lane % 4 == 1, 5: lane % 4 == 2,
                      6: lane % 4 == 3, 7: True}[pattern]
            if on:
                b, e = divmod(lane, epb)
                picked.append(src[(r * 20 + b * 2) * epb + e])
    want = z0.copy()
    want[: len(picked)] = picked
    want[:64] = want[:64] + want[:64]
    assert kept == [len(picked)] * 2
    np.testing.assert_array_equal(z, want)


def test_gather_mask_counter_mode_is_not_emulated():
    with pytest.raises(asc.AscError, match=r"asc\.gather_mask with reduce_mode=True \(COUNTER mode\) is a pyasc API "
                                           r"that aclsim does not emulate"):
        run(lambda d, s: asc.gather_mask(d, s, 7, True, 64, asc.GatherMaskParams()), np.zeros(64, np.float32),
            np.ones(64, np.float32))


def test_gather_mask_checks_the_pattern():
    faults(lambda d, s: asc.gather_mask(d, s, 8, False, 0, asc.GatherMaskParams()), np.zeros(64, np.float32),
           np.ones(64, np.float32), match=r"a built-in pattern is 1\.\.7, got 8")
    with pytest.raises(asc.AscError, match=r"the pattern tensor must be uint32"):
        run(lambda d, s, p: asc.gather_mask(d, s, p, False, 0, asc.GatherMaskParams()), np.zeros(64, np.float32),
            np.ones(64, np.float32), np.zeros(16, np.uint16))


# --------------------------------------------------------------------------- mask/repeat forms of cast, compare, select
def _at(r, lane, blk, rep, isz):
    epb = 32 // isz
    return r * rep * epb + (lane // epb) * blk * epb + lane % epb


@pytest.mark.parametrize(("sdt", "ddt", "mode", "rp"), [
    (np.float32, np.float16, "CAST_NONE", (1, 1, 4, 8)),
    (np.float16, np.float32, "CAST_NONE", (1, 2, 8, 5)),
    (np.float32, np.int32, "CAST_FLOOR", (2, 1, 16, 8)),
])
@pytest.mark.parametrize("mask", ["count", "bits"])
def test_cast_mask_repeat_form(sdt, ddt, mode, rp, mask):
    lanes = 256 // max(np.dtype(sdt).itemsize, np.dtype(ddt).itemsize)  # the wider type sets the lanes
    arg, bits = _mask(mask, np.float32)
    x = values(sdt, 2048)
    z0 = values(ddt, 2048)
    params = asc.UnaryRepeatParams(*rp)
    z, _ = run(lambda d, s: asc.cast(d, s, asc.RoundMode[mode], arg, 3, params), z0.copy(), x)
    want = z0.copy()
    db, sb, dr, sr = rp
    for r in range(3):
        for lane in range(lanes):
            if bits >> lane & 1:
                v = x[_at(r, lane, sb, sr, x.itemsize)]
                want[_at(r, lane, db, dr, z0.itemsize)] = np.floor(v) if mode == "CAST_FLOOR" else v
    np.testing.assert_array_equal(z, want)


def _bits_model(z0, fn, srcs, strides, repeats, isz):
    """Every lane compared; lane (r, i) is the bit a dst of the source type would hold it at."""
    bits = np.unpackbits(z0, bitorder="little")
    (db, dr), *src_strides = strides
    for r in range(repeats):
        for lane in range(256 // isz):
            bits[_at(r, lane, db, dr, isz)] = fn(*[s[_at(r, lane, b, rep, isz)] for s, (b, rep) in
                                                   zip(srcs, src_strides, strict=True)])
    return np.packbits(bits, bitorder="little")


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("dst_strides", [(1, 8), (2, 20)])
def test_compare_and_compare_scalar_mask_repeat_forms(dtype, dst_strides):
    isz = np.dtype(dtype).itemsize
    arg, _ = _mask("bits", dtype)  # CANN's A2 Compare ignores the mask: every lane is compared
    a, b = values(dtype, 2048), values(dtype, 2048)
    b[:64] = a[:64]  # some equal pairs
    z0 = RNG.integers(0, 256, 256).astype(np.uint8)
    db, dr = dst_strides

    def body(c, cs, x, y):
        asc.compare(c, x, y, asc.CMPMODE.LE, arg, 3, asc.BinaryRepeatParams(db, 1, 2, dr, 8, 16))
        asc.compare_scalar(cs, x, 0.5, asc.CMPMODE.GT, arg, 3, asc.UnaryRepeatParams(db, 2, dr, 16))

    c, cs, _, _ = run(body, z0.copy(), z0.copy(), a, b)
    np.testing.assert_array_equal(c, _bits_model(z0, lambda p, q: p <= q, (a, b), (dst_strides, (1, 8), (2, 16)), 3,
                                                 isz))
    np.testing.assert_array_equal(cs, _bits_model(z0, lambda p: p > dtype(0.5), (a,), (dst_strides, (2, 16)), 3, isz))


@pytest.mark.parametrize(("body", "message"), [
    (lambda d, s: asc.compare(d, s, s, asc.CMPMODE.LT, 64), r"int32 operands compare with CMPMODE\.EQ only"),
    (lambda d, s: asc.compare_scalar(d, s, 1, asc.CMPMODE.GE, 64, 1, asc.UnaryRepeatParams()),
     r"int32 operands compare with CMPMODE\.EQ only, got CMPMODE\.GE"),
])
def test_int32_compares_for_equality_only(body, message):
    faults(body, np.zeros(64, np.uint8), np.ones(64, np.int32), match=message)


def test_compare_count_form_needs_whole_repeats():
    faults(lambda d, s: asc.compare(d, s, s, asc.CMPMODE.EQ, 100), np.zeros(64, np.uint8), np.ones(256, np.float32),
           match=r"100 x float32 = 400 bytes is not a multiple of 256")
    z, _ = run(lambda d, s: asc.compare(d, s, s, asc.CMPMODE.EQ, 64), np.zeros(64, np.uint8), np.ones(256, np.int32))
    np.testing.assert_array_equal(z[:8], 255)


@pytest.mark.parametrize("mode", ["VSEL_TENSOR_TENSOR_MODE", "VSEL_TENSOR_SCALAR_MODE", "VSEL_CMPMASK_SPR"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_select_mask_repeat_form(mode, dtype):
    isz = np.dtype(dtype).itemsize
    lanes = 256 // isz
    arg, bits = _mask("count", dtype)
    a, b, z0 = values(dtype, 2048), values(dtype, 2048), values(dtype, 2048)
    sel = RNG.integers(0, 256, 128).astype(np.uint8)
    m = asc.SelMode[mode]
    scalar = mode == "VSEL_TENSOR_SCALAR_MODE"
    params = asc.BinaryRepeatParams(1, 2, 1, 8, 16, 9)
    z, *_ = run(lambda d, s, x, y: asc.select(d, s, x, 1.5 if scalar else y, m, arg, 2, params), z0.copy(), sel, a, b)
    pick = np.unpackbits(sel, bitorder="little").astype(bool)
    want = z0.copy()
    for r in range(2):
        for lane in range(lanes):
            if bits >> lane & 1:
                bit = pick[lane] if mode == "VSEL_CMPMASK_SPR" else pick[r * lanes + lane]
                other = dtype(1.5) if scalar else b[_at(r, lane, 1, 9, isz)]
                want[_at(r, lane, 1, 8, isz)] = a[_at(r, lane, 2, 16, isz)] if bit else other
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize(("body", "message"), [
    (lambda d, s: asc.cast(d, s, asc.RoundMode.CAST_RINT, 64, 256, asc.UnaryRepeatParams()),
     r"asc\.cast: repeat_times must be in 0\.\.255"),
    (lambda d, s: asc.cast(d, s, asc.RoundMode.CAST_RINT, 65, 1, asc.UnaryRepeatParams()),
     r"asc\.cast: mask = 65 is out of range: a repeat of a 32-bit type has 1\.\.64 lanes"),
    (lambda d, s: asc.cast(d, s, asc.RoundMode.CAST_RINT, 64, 2, asc.UnaryRepeatParams(1, 1, 8, 8)),
     r"asc\.cast: 128 x float32 needs 512 bytes but the tensor holds only 256"),
    (lambda d, s: asc.compare(d.reinterpret_cast(asc.uint8), s, s, asc.CMPMODE.LT, 64, 1,
                              asc.UnaryRepeatParams()), r"repeat_params must be asc\.BinaryRepeatParams"),
])
def test_mask_repeat_refusals_of_cast_and_compare(body, message):
    faults(body, np.zeros(64, np.float32), np.ones(64, np.float32), match=message)


def test_the_cmpmask_register_forms_are_reported_as_not_emulated():
    with pytest.raises(asc.AscError, match=r"asc\.compare into the cmpMask register is a pyasc API that aclsim"):
        run(lambda a, b: asc.compare(a, b, asc.CMPMODE.LT, 64, asc.BinaryRepeatParams()), np.ones(64, np.float32),
            np.ones(64, np.float32))
    with pytest.raises(asc.AscError, match=r"asc\.select with the cmpMask register is a pyasc API that aclsim"):
        run(lambda d, a, b: asc.select(d, a, b, 1, asc.BinaryRepeatParams(), asc.SelMode.VSEL_CMPMASK_SPR),
            np.zeros(64, np.float32), np.ones(64, np.float32), np.ones(64, np.float32))


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32])
def test_gatherb_moves_whole_blocks_by_byte_offset(dtype):
    isz = np.dtype(dtype).itemsize
    epb = 32 // isz
    src = values(dtype, 64 * epb)  # 64 blocks
    blocks = RNG.integers(0, 64, 16)
    z0 = values(dtype, 64 * epb)
    z, *_ = run(lambda d, s, o: asc.gatherb(d, s, o, 2, asc.GatherRepeatParams(2, 20)), z0.copy(), src,
                (blocks * 32).astype(np.uint32))
    want = z0.copy()
    for r in range(2):
        for b in range(8):
            dst_block = r * 20 + b * 2
            want[dst_block * epb : (dst_block + 1) * epb] = src[blocks[8 * r + b] * epb : (blocks[8 * r + b] + 1) * epb]
    np.testing.assert_array_equal(z, want)


def test_gatherb_refusals():
    def call(times, offset0=0):
        def body(d, s, o):
            o.set_value(0, offset0)
            asc.gatherb(d, s, o, times, asc.GatherRepeatParams())
        return body

    args = (np.zeros(256, np.uint32), np.ones(256, np.uint32), np.zeros(16, np.uint32))
    faults(call(0), *args, match=r"repeat_time must be in 1\.\.255, got 0")
    faults(call(1, 8), *args, match=r"offset\[0\] = 8 is not a multiple of 32")
    faults(call(1, 1024), *args, match=r"asc\.gatherb: 264 x uint32 needs 1056 bytes but the tensor holds only 1024")
    faults(call(1), np.zeros(256, np.float32), np.ones(256, np.float32), np.zeros(16, np.uint32),
           match=r"float32 is not supported .*supported: uint16, uint32")


@pytest.mark.parametrize("mode", ["VSEL_CMPMASK_SPR", "VSEL_TENSOR_TENSOR_MODE"])
def test_select_count_form_reuses_one_repeat_of_bits_in_cmpmask_mode(mode):
    n = 3 * 64 + 5  # float32: 64 lanes a repeat
    a, b = values(np.float32, n), values(np.float32, n)
    sel = RNG.integers(0, 256, 32).astype(np.uint8)
    z, *_ = run(lambda d, s, x, y: asc.select(d, s, x, y, asc.SelMode[mode], n), np.zeros(n, np.float32), sel, a, b)
    bits = np.unpackbits(sel, bitorder="little").astype(bool)
    want = [a[i] if bits[i % 64 if mode == "VSEL_CMPMASK_SPR" else i] else b[i] for i in range(n)]
    np.testing.assert_array_equal(z, want)


def test_a_freed_tensor_in_a_5hd_list_is_reported_as_used_after_free():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 512)
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(b, 512)
        src = q.alloc_tensor(asc.half)
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        asc.data_copy(src, g, 256)
        q.free_tensor(src)
        dst = b.get(asc.half)
        asc.trans_data_to_5hd([dst[16 * k] for k in range(16)], [src[16 * k] for k in range(16)],
                              asc.TransDataTo5HDParams())

    with pytest.raises(asc.AscError, match=r"asc\.trans_data_to_5hd: .* is used after free_tensor"):
        kernel[1](np.ones(256, np.float16))


@pytest.mark.parametrize(("src", "dst", "mode", "message"), [
    (np.int16, np.int8, "CAST_NONE", r"int16 -> int8 is not a conversion Ascend910B1 has"),
    (np.float16, np.float32, "CAST_RINT", r"float16 -> float32 does not take RoundMode\.CAST_RINT on Ascend910B1 \(it "
                                          r"takes CAST_NONE\)"),
    (np.float32, np.int32, "CAST_NONE", r"float32 -> int32 does not take RoundMode\.CAST_NONE"),
])
def test_cast_pairs_and_round_modes_follow_the_a2_table(src, dst, mode, message):
    faults(lambda d, s: asc.cast(d, s, asc.RoundMode[mode], 64), np.zeros(64, dst), np.ones(64, src), match=message)


@pytest.mark.parametrize(("mode", "fn"), [("CAST_RINT", np.rint), ("CAST_FLOOR", np.floor), ("CAST_CEIL", np.ceil),
                                          ("CAST_TRUNC", np.trunc)])
def test_cast_float32_to_float32_rounds_to_integral_values(mode, fn):
    x = values(np.float32, 128)
    z, _ = run(lambda d, s: asc.cast(d, s, asc.RoundMode[mode], 128), np.zeros(128, np.float32), x)
    np.testing.assert_array_equal(z, fn(x))
