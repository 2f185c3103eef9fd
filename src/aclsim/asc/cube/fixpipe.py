"""L0C -> GM: `fixpipe` (FixpipeParamsV220) and `data_copy` with DataCopyCO12DstParams.

Both drive the same hardware move (the `copy_matrix_cc_to_gm` intrinsic; CANN pages "Fixpipe" and
"随路量化激活搬运"): `m_size` x `n_size` of the NZ result, L0C column blocks `src_stride` x 16
elements apart; on the way out an optional quantisation (scalar `deq_scalar` / the
`set_fix_pipe_pre_quant_flag` register, or per output channel from a uint64 `cbuf_workspace` in
L1: the V modes) with ReLU, and NZ -> ND (row-major rows `dst_stride` elements apart) or NZ out
(blocks of C0 = 16 columns, 8 with channel split, 32 for int8/uint8 output: Int8 Channel Merge;
`dst_stride` x 32 bytes apart).

The quantisation parameter (a uint64, CANN asc-devkit docs "随路量化" table 1, NPU arch 2201): bits
31..13 the scale M1 (a float32 cut to a 10-bit mantissa), 35..32 N (a right shift of 1..16), 36 MCB
(int32 inputs are first shifted right N bits and saturated to int16), 45..37 a 9-bit two's-complement
offset (`SetQuantScalar` page: offset in [-256, 255], stored `& 0x1FF`), 46 the sign (int8 vs uint8
result). The algorithm ("随路量化与随路ReLU场景组合" and the sample goldens it links,
`examples/.../fixpipe_l0c2gm/scripts/gen_data_{s322s8,f322s8,s322f16}.py`): x >= 0 is multiplied by M1,
x < 0 by M2 = M1 (0 with ReLU); b8 modes clip to [-256, 255], round to nearest even (CAST_RINT), add
the offset and saturate to int8/uint8; DEQF16 saturates to the float16 range (its offset is unused).
Where the goldens differ from the table (N used unshifted; MCB and offset applied in every mode) the
table is followed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..aicore.core import Register
from ..faults import fail
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor, extent, pool_of
from ..move.atomic import store
from ..move.data_copy import gm_rows
from ..table import instruction
from ..types.bf16 import round_bits
from ..types.cube_params import CO2Layout, DataCopyCO12DstParams, FixpipeParamsV220, QuantModes
from ..types.dtypes import DataType, bfloat16, float16, float32, int8, int32, uint8, uint64

_strided = np.lib.stride_tricks.as_strided
B8 = (int8, uint8)
# quant_pre -> (L0C type it converts, dst types; None: the L0C type)
QUANT = {QuantModes.NoQuant: (None, None), QuantModes.F322F16: (float32, (float16,)),
         QuantModes.F322BF16: (float32, (bfloat16,)), QuantModes.DEQF16: (int32, (float16,)),
         QuantModes.VDEQF16: (int32, (float16,)), QuantModes.QF322B8_PRE: (float32, B8),
         QuantModes.VQF322B8_PRE: (float32, B8), QuantModes.REQ8: (int32, B8), QuantModes.VREQ8: (int32, B8)}
VECTOR = (QuantModes.VDEQF16, QuantModes.VQF322B8_PRE, QuantModes.VREQ8)  # one parameter per output channel
SCALED = (QuantModes.DEQF16, QuantModes.QF322B8_PRE, QuantModes.REQ8, *VECTOR)


@dataclass
class Move:
    """One L0C -> GM move, whichever API asked for it."""

    api: str
    n: int
    m: int
    src_stride: int
    dst_stride: int
    quant: QuantModes
    deq: int  # the scalar quantisation parameter (DEQF16, QF322B8_PRE, REQ8)
    relu: bool
    nz2nd: bool
    split: bool = False  # channel split: NZ out in 8-column blocks (float32)
    nd_num: int = 1
    src_nd_stride: int = 0
    dst_nd_stride: int = 0
    scales: np.ndarray | None = None  # per-channel uint64 quantisation parameters (the V modes)


class QuantPre(Register):
    """The QUANT_PRE register of a core: the scalar quantisation parameter of L0C -> GM moves."""


@instruction("Fixpipe", "fixpipe", "cube", "FIX", cost="gm",
             note="L0C -> GM; every A2/A3 QuantModes (scalar and per-channel), ReLU, channel split")
def fixpipe(core: Any, dst: GlobalTensor, src: LocalTensor, cbuf: LocalTensor | None, params: FixpipeParamsV220,
            config: Any) -> None:
    """L0C -> GM (`cbuf`: the per-channel quantisation parameters in L1, or None; `config` a FixpipeConfig)."""
    api = "fixpipe"
    q = _quant(api, params.quant_pre)
    move = Move(api, int(params.n_size), int(params.m_size), int(params.src_stride), int(params.dst_stride), q,
                int(params.deq_scalar), bool(params.relu_en), config.layout == CO2Layout.ROW_MAJOR,
                bool(params.is_channel_split), int(params.nd_num), int(params.src_nd_stride),
                int(params.dst_nd_stride))
    if q in VECTOR:
        move.scales = _scales(api, cbuf, move.n, q)
    elif cbuf is not None:
        fail(api, f"a cbuf_workspace is read only with per-channel quantisation (VDEQF16, VQF322B8_PRE, VREQ8), "
                  f"not with quant_pre=QuantModes.{q.name}")
    elif q in SCALED:  # the scalar goes through the QUANT_PRE register (dav_c220 fixpipe: SetQuantPreImpl)
        core.state(QuantPre).value = move.deq
    l0c_to_gm(core, dst, src, move)


@instruction("DataCopy(DataCopyCO12DstParams)", "data_copy", "cube", "FIX", cost="gm")
def data_copy_co1(core: Any, dst: Any, src: Any, p: DataCopyCO12DstParams) -> None:
    """L0C -> GM, the same move as fixpipe; the scalar quantisation parameter comes from
    `set_fix_pipe_pre_quant_flag`."""
    api = "data_copy"
    q = _quant(api, p.quant_pre)
    if q in VECTOR:
        fail(api, "per-channel quantisation in data_copy reads its parameters from the fixpipe buffer "
                  "(SetFixPipeConfig), which aclsim does not emulate; use asc.fixpipe with a cbuf_workspace")
    relu = int(p.relu_pre)
    if relu not in (0, 1):
        fail(api, f"relu_pre={relu} is not emulated (0: none, 1: ReLU)")
    nd_num, src_nd, dst_nd = core.state(Nz2nd).value or (1, 0, 0)
    l0c_to_gm(core, dst, src, Move(api, int(p.n_size), int(p.m_size), int(p.src_stride), int(p.dst_stride), q,
                             core.state(QuantPre).value or 0, bool(relu), bool(p.nz2nd_en), bool(p.channel_split),
                             nd_num, src_nd, dst_nd))


class Nz2nd(Register):
    """The NZ2ND registers of a core: (nd_num, src_nd_stride, dst_nd_stride) of L0C -> GM data_copy with
    nz2nd_en (CANN SetFixpipeNz2ndFlag); (1, 0, 0) until set."""


@instruction("SetFixpipeNz2ndFlag", "", "cube", note="pyasc 1.1.1 has no set_fixpipe_nz2nd_flag")
def set_fixpipe_nz2nd_flag(core: Any, nd_num: int, src_nd_stride: int, dst_nd_stride: int) -> None:
    """How many ND matrices a following L0C -> GM data_copy with nz2nd_en writes, and their strides."""
    core.state(Nz2nd).value = (int(nd_num), int(src_nd_stride), int(dst_nd_stride))


@instruction("SetFixpipePreQuantFlag", "set_fix_pipe_pre_quant_flag", "cube")
def set_fix_pipe_pre_quant_flag(core: Any, config: int) -> None:
    """Set the scalar quantisation parameter later `data_copy`s from L0C use (SetFixpipePreQuantFlag)."""
    core.state(QuantPre).value = int(config)


def _quant(api: str, quant_pre: Any) -> QuantModes:
    if int(quant_pre) not in QuantModes.__members__.values():
        fail(api, f"quant_pre={quant_pre} is not a QuantModes value (the A2/A3 modes: "
                  f"{', '.join(m.name for m in QuantModes)})")
    return QuantModes(int(quant_pre))


def _scales(api: str, cbuf: Any, n: int, q: QuantModes) -> np.ndarray:
    """The per-channel parameters: `n` uint64 values of an L1 tensor, all written."""
    if not isinstance(cbuf, LocalTensor):
        fail(api, f"quant_pre=QuantModes.{q.name} reads one uint64 parameter per output channel from a "
                  "cbuf_workspace: pass fixpipe(dst, src, cbuf_workspace, params)")
    pool_of(cbuf, api, "cbuf_workspace", ("L1",))
    if cbuf.dtype is not uint64:
        fail(api, f"cbuf_workspace is {cbuf.dtype.name}; it holds uint64 quantisation parameters")
    hi = cbuf.bounds(n, api)
    bad = cbuf.buf.pool.unwritten(cbuf.lo, hi)
    if bad >= 0:
        cbuf.uninit(api, bad, n)
    return cbuf.arr[:n].copy()


def l0c_to_gm(core: Any, dst: Any, src: Any, mv: Move) -> None:
    """Carry out `mv`: read the NZ block of L0C (every element written by mmad), convert, write GM."""
    api = mv.api
    if not isinstance(dst, GlobalTensor):
        raise TypeError(f"asc.{api}: dst must be a GlobalTensor (the A2/A3 fixpipe writes GM)")
    pool_of(src, api, "src", ("L0C",))
    st = src.dtype
    if st not in (float32, int32):
        fail(api, f"src is {st.name}; L0C holds float32 or int32")
    takes, gives = QUANT[mv.quant]
    if takes is not None and st is not takes:
        fail(api, f"QuantModes.{mv.quant.name} converts {takes.name} but L0C holds {st.name}")
    want = dst.dtype
    if want not in (gives or (st,)):
        fail(api, f"dst is {want.name} but L0C {st.name} with quant_pre=QuantModes.{mv.quant.name} gives "
                  f"{' or '.join(t.name for t in gives or (st,))}")
    if want in B8:
        _signs(api, mv, want)
    n, m, ss, ds = mv.n, mv.m, mv.src_stride, mv.dst_stride
    text = f"n_size={n}, m_size={m}, src_stride={ss}, dst_stride={ds}"
    if not (1 <= n <= 4095 and 1 <= m <= (8192 if mv.nz2nd else 65535) and 0 <= ss <= 65535 and ds >= 1):
        fail(api, f"{text} is out of range (n_size 1..4095, m_size 1..{8192 if mv.nz2nd else 65535}, "
                  "src_stride 0..65535, dst_stride >= 1)")
    split = mv.split and not mv.nz2nd  # channel split cuts NZ output blocks; ND rows have none
    if split and want is not float32:
        fail(api, f"channel split writes float32 in 8-column blocks; the output here is {want.name}")
    oc0 = 8 if split else 16  # columns per NZ output block (b8 outputs merge pairs of them: _nz_blocks)
    if not mv.nz2nd and n % oc0:
        fail(api, f"n_size={n} must be a multiple of {oc0} without NZ2ND (NZ output in {oc0}-column blocks)")
    nb = -(-n // 16)
    if nb > 1 and ss < m:
        fail(api, f"{text}: src_stride (x 16 elements between L0C column blocks) is smaller than m_size: the "
                  "blocks would overlap; src_stride is m rounded up to 16 as mmad wrote it")
    osz = st.itemsize
    pool = src.buf.pool
    for t in range(max(mv.nd_num, 0)):
        lo = src.lo + t * mv.src_nd_stride * 1024
        span = ((nb - 1) * ss * 16 + m * 16) * osz
        if lo + span > extent(src):
            fail(api, f"reads L0C bytes {lo}..{lo + span} for m_size={m} x n_size={n} (src_stride {ss}) but src "
                      f"ends at byte {extent(src)}")
        shape, strides = (nb, m, 16 * osz), (ss * 16 * osz, 16 * osz, 1)
        if pool.unwritten(lo, lo + span) >= 0:
            fl = np.moveaxis(pool.flags(lo, shape, strides), 0, 1).reshape(m, nb * 16, osz)
            fl = fl[:, :n]
            if not fl.all():
                r, c, _ = np.argwhere(fl == 0)[0]
                fail(api, f"reads C[{r}][{c}] of L0C (byte "
                          f"{lo + (c // 16) * ss * 16 * osz + (r * 16 + c % 16) * osz}), which no mmad wrote since "
                          "the buffer was allocated (reading L0C before mmad wrote it)")
        vals = np.moveaxis(_strided(pool.bytes[lo:], shape=shape, strides=strides), 0, 1).reshape(m, nb * 16, osz)
        out = _convert(vals[:, :n].copy().view(st.np).reshape(m, n), mv, want)
        g = dst[t * mv.dst_nd_stride]
        isz = want.itemsize
        if mv.nz2nd:
            rows = gm_rows(core, g, m, n * isz, ds * isz, api, True)
            store(core, rows, out.view(np.uint8).reshape(m, -1), want, api)
        else:
            for first, col, width, count in _nz_blocks(n, oc0, want):
                blocks = gm_rows(core, g[first * ds * 32 // isz], count, m * width * isz, ds * 32, api, True)
                nz = out[:, col : col + count * width].reshape(m, count, width).transpose(1, 0, 2)
                store(core, blocks, np.ascontiguousarray(nz).view(np.uint8).reshape(count, -1), want, api)


def _nz_blocks(n: int, oc0: int, want: DataType) -> list[tuple[int, int, int, int]]:
    """(first block, first column, width, count) of the runs of equal NZ output blocks. int8/uint8 output
    merges each pair of 16-column blocks into one 16 x 32 fractal; an odd last block of 16 stays as it is
    (CANN "Int8 Channel Merge")."""
    if want not in B8:
        return [(0, 0, oc0, n // oc0)]
    runs = [(0, 0, 32, n // 32)] if n >= 32 else []
    return runs + ([(n // 32, n // 32 * 32, 16, 1)] if n % 32 else [])


def _signs(api: str, mv: Move, want: DataType) -> None:
    """int8 output needs the sign bit (46) of the parameter set, uint8 output needs it clear."""
    bits = mv.scales if mv.scales is not None else np.array([mv.deq], np.uint64)
    signed = (np.asarray(bits, np.uint64) >> np.uint64(46)) & np.uint64(1)
    bad = np.flatnonzero(signed != (want is int8))
    if bad.size:
        which = f"channel {bad[0]}'s parameter" if mv.scales is not None else "the parameter"
        fail(api, f"dst is {want.name} but {which} has its sign bit (46) {'clear' if want is int8 else 'set'}: "
                  f"QuantModes.{mv.quant.name} would saturate to {'uint8 0..255' if want is int8 else 'int8 -128..127'}"
                  f"; set bit 46 for int8 output, clear it for uint8")


def _quantise(c: np.ndarray, bits: np.ndarray, mv: Move, want: DataType) -> np.ndarray:
    """The scaled modes (module docstring): `bits` the uint64 parameter(s), broadcast over the columns."""
    bits = np.asarray(bits, np.uint64)
    m1 = (bits & np.uint64(0xFFFFE000)).astype(np.uint32).view(np.float32)
    if c.dtype == np.int32:  # MCB: shift right by N + 1 (b'0000 is 1) and saturate to int16
        shift = ((bits >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64) + 1
        mcb = ((bits >> np.uint64(36)) & np.uint64(1)).astype(bool)
        c = np.where(mcb, np.clip(c.astype(np.int64) >> shift, -32768, 32767), c)
    x = c.astype(np.float32)
    y = np.where(x >= 0, x * m1, x * (np.float32(0) if mv.relu else m1))
    if want is float16:
        return np.clip(y, -65504, 65504).astype(np.float16)
    off = ((bits >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
    off = np.where(off >= 256, off - 512, off)
    q = np.rint(np.clip(y, -256, 255)) + off
    lo, hi = (-128, 127) if want is int8 else (0, 255)
    return np.clip(q, lo, hi).astype(want.np)


def _convert(c: np.ndarray, mv: Move, want: DataType) -> np.ndarray:
    """The pre-ops: a scaled quantisation (with ReLU folded in), or ReLU then a cast, into the dst type."""
    if mv.quant in SCALED:
        return _quantise(c, mv.scales[None, :] if mv.quant in VECTOR else np.uint64(mv.deq), mv, want)
    if mv.relu:
        c = np.maximum(c, 0)
    if want is bfloat16:
        return round_bits(c)
    return np.ascontiguousarray(c, dtype=want.np)
