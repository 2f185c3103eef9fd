"""img2col: `load_data` with LoadData3DParamsV2 / V2Pro, an NC1HWC0 feature map in L1 -> L0A/L0B.

Semantics from CANN's own source (cannmirror/asc-devkit): the LoadData_3D API page (tables 4 and 5,
constraints), the pseudo-code it names as the reference implementation
(`examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/load_data_l12l0/scripts/load3d.py`:
`nc1hwc0_im2col`, `move_to_l0a`, `move_to_l0b`), `impl/basic_api/kernel_operator_mm_base_impl.h`
(`LoadDataImpl`: set the FMATRIX and padding registers, then `img2colv2_cbuf_to_ca/cb`) and
`impl/basic_api/dav_c220/kernel_operator_mm_impl.h` (`Load3DSetFMatrixCal`, `Load3DSetPaddingCal`).

The expanded matrix X has a row per output position m, (ho, wo) = divmod(m, Wo), and a column per
k = ((c1 * Hk + kh) * Wk + kw) * C0 + c0 (C1 outer, then the kernel position, then C0):
X[m, k] = fmap[c1, ho * stride_h - pad_top + kh * dilation_h, wo * stride_w - pad_left + kw * dilation_w,
c0], the pad value where that falls outside the l1_h x l1_w map. One load copies the window of X
from (m_start_pt, k_start_pt), m_extension x k_extension elements: into L0A as the A operand X in zZ
fractals (16 x C0, row-major), or X^T with en_transpose; into L0B as the B operand X (K' = its M rows,
N' = its K columns) in nZ, each fractal stored transposed: the "automatic transpose" of the L1 -> L0B
path (the pseudo-code's `move_to_l0b`; mmad reads L0B that way, mmad.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..aicore.pipes import garbage
from ..faults import fail
from ..memory.local import LocalTensor, pool_of, room
from ..table import instruction
from ..types.bf16 import round_bits
from ..types.cube_params import LoadData3DParamsV1, LoadData3DParamsV2, LoadData3DParamsV2Pro, c0, up
from ..types.dtypes import DataType, bfloat16, float16, float32, int8, int32, uint8, uint32

API = "load_data"
# element types of the path per __NPU_ARCH__ (LoadDataImpl's dtype checks; int4b_t has no pyasc type)
TYPES = {2201: {"L0A": (int8, uint8, float16, bfloat16, float32, int32, uint32),
                "L0B": (float16, bfloat16, float32, int32, uint32)},
         2002: {"L0A": (int8, uint8, float16), "L0B": (int8, uint8, float16)}}


class Load3D:
    """A core's load3d registers: the FMATRIX (feature map height, width and pads), the padding value's bits
    and the L1 boundary img2col reads wrap at."""

    __slots__ = ("fmatrix", "l1_boundary", "pad_bits")

    def __init__(self) -> None:
        self.fmatrix: tuple[int, int, tuple[int, ...]] | None = None
        self.pad_bits = 0
        self.l1_boundary = 0


@dataclass
class Window:
    """The load's parameters once unpacked (V2: fields; V2Pro: ext/filter_config and the registers)."""

    l1_h: int
    l1_w: int
    pads: tuple[int, ...]  # left, right, top, bottom
    channel: int
    k_ext: int
    m_ext: int
    k_start: int
    m_start: int
    stride_w: int
    stride_h: int
    filter_w: int
    filter_h: int
    dil_w: int
    dil_h: int
    transpose: bool


@instruction("LoadData(LoadData3DParamsV1)", "load_data", "cube", "MTE1")
@instruction("LoadData(LoadData3DParamsV2Pro)", "load_data", "cube", "MTE1")
@instruction("LoadData(LoadData3DParamsV2)", "load_data", "cube", "MTE1")
def load_data_3d(core: Any, dst: LocalTensor, src: LocalTensor, params: Any) -> None:
    """`load_data(dst_l0, src_l1, LoadData3DParamsV2(...) or LoadData3DParamsV2Pro(...))`."""
    regs = core.state(Load3D)
    name = type(params).__name__
    if isinstance(params, LoadData3DParamsV1):
        if core.chip.arch == 2201:
            fail(API, f"LoadData3DParamsV1 (load3d v1) is not supported on {core.chip.name}: CANN's LoadData_3D "
                      "page lists it for the Atlas training/inference chips only (A2/A3 report it unsupported); "
                      "use LoadData3DParamsV2")
        fail(API, "LoadData3DParamsV1 (load3d v1) is not emulated by aclsim; use LoadData3DParamsV2")
    pool_of(dst, API, "dst", ("L0A", "L0B"))
    pool_of(src, API, "src", ("L1",))
    dt, mem = dst.dtype, dst.buf.pool.name
    if src.dtype is not dt:
        fail(API, f"dst is {dt.name} but src is {src.dtype.name}: the load moves one element type")
    types = TYPES[core.chip.arch][mem]
    if dt not in types:
        fail(API, f"{name} into {mem} on {core.chip.name} takes {', '.join(t.name for t in types)}, not {dt.name} "
                  "(CANN LoadData_3D data types)")
    if params.f_matrix_ctrl:
        fail(API, f"{name}(f_matrix_ctrl=True) (the right matrix's FMATRIX) is not supported: CANN's LoadData_3D "
                  "page: 'currently only false'")
    if isinstance(params, LoadData3DParamsV2):
        pads = tuple(int(p) for p in params.pad_list)
        l1_h, l1_w = int(params.l1_h), int(params.l1_w)
        if len(pads) != 4 or not all(0 <= p <= 255 for p in pads) or not (0 <= l1_h <= 32767 and 0 <= l1_w <= 32767):
            fail(API, f"LoadData3DParamsV2(pad_list={pads}, l1_h={l1_h}, l1_w={l1_w}) is out of range: four pads "
                      "(left, right, top, bottom) 0..255, l1_h and l1_w 0..32767")
        pad = params.pad_value
        if pad != int(pad) or not 0 <= pad <= 65535:
            fail(API, f"LoadData3DParamsV2(pad_value={pad}): pyasc passes pad_value as a uint16 (core/types.py), "
                      "converted to the element type in the kernel: only whole values 0..65535 get through")
        regs.fmatrix = (l1_h, l1_w, pads)  # LoadDataImpl sets both registers before the load
        regs.pad_bits = _bits(np.array([int(pad)]), dt)
        w = Window(l1_h, l1_w, pads, int(params.channel_size), int(params.k_extension), int(params.m_extension),
                   int(params.k_start_pt), int(params.m_start_pt), int(params.stride_w), int(params.stride_h),
                   int(params.filter_w) + 256 * bool(params.filter_size_w),
                   int(params.filter_h) + 256 * bool(params.filter_size_h), int(params.dilation_filter_w),
                   int(params.dilation_filter_h), bool(params.en_transpose))
    elif isinstance(params, LoadData3DParamsV2Pro):
        if params.en_small_k:
            fail(API, "LoadData3DParamsV2Pro(en_small_k=True): CANN: 'no longer supported on current products'")
        if regs.fmatrix is None:
            fail(API, "LoadData3DParamsV2Pro takes the feature map's l1_h, l1_w and pads from the FMATRIX register, "
                      "which no LoadData3DParamsV2 load of this core has set yet")
        ext, flt = int(params.ext_config), int(params.filter_config)
        f = [(flt >> s) & 0xFF for s in (0, 8, 16, 24, 32, 40)]  # stride w/h, filter w/h, dilation w/h
        l1_h, l1_w, pads = regs.fmatrix
        w = Window(l1_h, l1_w, pads, int(params.channel_size), ext & 0xFFFF, (ext >> 16) & 0xFFFF,
                   (ext >> 32) & 0xFFFF, (ext >> 48) & 0xFFFF, f[0], f[1], f[2] + 256 * bool(params.filter_size_w),
                   f[3] + 256 * bool(params.filter_size_h), f[4], f[5], bool(params.en_transpose))
    else:
        raise TypeError(f"asc.{API}: {name} is not a load_data parameter struct")
    _img2col(dst, src, w, regs.pad_bits, regs.l1_boundary, name)


@instruction("SetLoadDataPaddingValue", "set_load_data_padding_value", "cube")
def set_load_data_padding_value(core: Any, pad_value: float) -> None:
    """Set the padding register later LoadData3DParamsV2Pro loads read (SetLoadDataPaddingValue). The
    register holds the bit pattern of the value as pyasc materialises it (a Python int as int32, a
    float as float32); a load uses its low bytes (Load3DSetPaddingCal: `GetScalarBitcodeValue`), so a
    float16 load padded with 2.0 needs the bits, set_load_data_padding_value(0x4000)."""
    dt = float32 if isinstance(pad_value, float) else int32
    core.state(Load3D).pad_bits = _bits(np.array([pad_value]), dt)


@instruction("SetLoadDataBoundary", "set_load_data_boundary", "cube")
def set_load_data_boundary(core: Any, boundary: int) -> None:
    """Set the L1 boundary of later img2col loads (SetLoadDataBoundary page): a feature-map byte at or past
    `boundary` is read from `boundary` bytes earlier, wrapping to the start of L1; 0: no boundary."""
    api = "set_load_data_boundary"
    b = int(boundary)
    if not (b == 0 or 1024 <= b <= core.chip.l1_size):
        fail(api, f"boundary={b}: 0 (none) or 1024..{core.chip.l1_size} bytes (CANN: 1..1023 is undefined "
                  "behaviour; the boundary lies in L1)")
    core.state(Load3D).l1_boundary = b


def _bits(value: np.ndarray, dt: DataType) -> int:
    """The register bits of `value` converted to `dt` (little-endian, the low `dt.itemsize` bytes)."""
    v = round_bits(value.astype(np.float32)) if dt is bfloat16 else value.astype(dt.np)
    return int.from_bytes(v.tobytes(), "little")


def _img2col(dst: LocalTensor, src: LocalTensor, w: Window, pad_bits: int, boundary: int, name: str) -> None:
    """Check the window against the feature map and the L0 tensor, then copy it (bytes and written flags)."""
    dt, mem = dst.dtype, dst.buf.pool.name
    isz, k0 = dt.itemsize, c0(dt)
    text = (f"{name}(l1_h={w.l1_h}, l1_w={w.l1_w}, channel_size={w.channel}, k_extension={w.k_ext}, "
            f"m_extension={w.m_ext}, k_start_pt={w.k_start}, m_start_pt={w.m_start}, stride_w={w.stride_w}, "
            f"stride_h={w.stride_h}, filter_w={w.filter_w}, filter_h={w.filter_h}, dilation_filter_w={w.dil_w}, "
            f"dilation_filter_h={w.dil_h})")
    if 0 in (w.l1_h, w.l1_w, w.channel, w.k_ext, w.m_ext, w.filter_w, w.filter_h):
        return  # CANN: any of these 0 makes the instruction a NOP
    if not (1 <= w.stride_w <= 63 and 1 <= w.stride_h <= 63 and 1 <= w.dil_w <= 255 and 1 <= w.dil_h <= 255):
        fail(API, f"{text}: bad stride or dilation: strides 1..63, dilations 1..255 (pyasc load_data docs)")
    if not (w.k_start <= 65535 and w.m_start <= 32767 and w.channel <= 65535):
        fail(API, f"{text} is out of range: k_start_pt 0..65535, m_start_pt 0..32767, channel_size 0..65535")
    if w.channel % k0:
        small = (4, 8) + ((16,) if isz == 1 else ())
        if w.channel % k0 in small:
            fail(API, f"{text}: channel_size={w.channel} (a small-channel form, remainder {w.channel % k0} of "
                      f"C0={k0}) is not emulated by aclsim: use a channel_size that is a multiple of C0")
        fail(API, f"{text}: channel_size={w.channel} is not a valid {dt.name} channel count: a multiple of "
                  f"C0={k0} (or the small-channel remainders 4, 8{', 16' if isz == 1 else ''}; CANN LoadData_3D)")
    if w.transpose and mem == "L0A" and isz == 1:
        fail(API, f"{text}: en_transpose into L0A does not take b8 types ({dt.name}; CANN LoadData_3D constraints)")
    pl, pr, pt, pb = w.pads
    kh_span, kw_span = (w.filter_h - 1) * w.dil_h + 1, (w.filter_w - 1) * w.dil_w + 1
    ho, wo = (w.l1_h + pt + pb - kh_span) // w.stride_h + 1, (w.l1_w + pl + pr - kw_span) // w.stride_w + 1
    if ho <= 0 or wo <= 0:
        fail(API, f"{text}: the dilated {kh_span} x {kw_span} kernel does not fit the padded "
                  f"{w.l1_h + pt + pb} x {w.l1_w + pl + pr} feature map (no output position)")
    c1, taps = w.channel // k0, w.filter_h * w.filter_w
    k_total, m_total = c1 * taps * k0, ho * wo
    if w.k_start % k0 or w.k_ext % k0:
        fail(API, f"{text}: k_start_pt and k_extension must be multiples of C0={k0} ({dt.name}: 32 bytes): the "
                  "expanded matrix is copied in whole C0 columns")
    if w.k_start + w.k_ext > k_total:
        fail(API, f"{text}: K columns {w.k_start}..{w.k_start + w.k_ext} reach past the expanded matrix's {k_total} "
                  f"(channel_size {w.channel} x {w.filter_h} x {w.filter_w} kernel positions)")
    if w.m_start + w.m_ext > up(m_total, 16):
        fail(API, f"{text}: M rows {w.m_start}..{w.m_start + w.m_ext} reach past the expanded matrix's {m_total} "
                  f"output positions ({ho} x {wo}) rounded up to 16")
    if isz < 4 and w.m_ext % 16 and w.m_start + w.m_ext < m_total:
        fail(API, f"{text}: m_extension must be a multiple of 16 unless it reaches the last output row ({m_total})")
    span = c1 * w.l1_h * w.l1_w * 32
    sp, dp = src.buf.pool, dst.buf.pool
    if boundary and src.lo >= boundary:
        fail(API, f"{text}: src starts at L1 byte {src.lo}, past the boundary set_load_data_boundary({boundary})")
    if boundary and src.lo + span > boundary:  # the map wraps around to the start of L1
        if src.lo + span - boundary > boundary:
            fail(API, f"{text}: the {span}-byte feature map wraps past the {boundary}-byte boundary more than once")
    elif src.lo + span > src.end:
        fail(API, f"{text}: the {c1} x {w.l1_h} x {w.l1_w} x {k0} NC1HWC0 feature map needs {span} bytes of L1 but "
                  f"src holds only {src.end - src.lo} (L1 tensor overflow)")
    # which 32-byte row of the feature map each (output row, C0 column block) reads; rows past the last
    # output position (M rounded up to 16) follow the same formula and read the pad value outside the map
    # (inferred: the pseudo-code covers whole windows only)
    kb = np.arange(w.k_start // k0, (w.k_start + w.k_ext) // k0)
    ci, tap = np.divmod(kb, taps)
    kh, kw = np.divmod(tap, w.filter_w)
    oh, ow = np.divmod(np.arange(w.m_start, w.m_start + w.m_ext), wo)
    h = (oh * w.stride_h - pt)[:, None] + kh * w.dil_h
    x = (ow * w.stride_w - pl)[:, None] + kw * w.dil_w
    inside = (h >= 0) & (h < w.l1_h) & (x >= 0) & (x < w.l1_w)
    rows = src.lo // 32 + (ci * w.l1_h + h.clip(0, w.l1_h - 1)) * w.l1_w + x.clip(0, w.l1_w - 1)  # of L1
    if boundary:
        rows = np.where(rows >= boundary // 32, rows - boundary // 32, rows)
    wrote = sp.flags().reshape(-1, 32)[rows]
    moved_garbage = not wrote[inside].all()
    if moved_garbage:  # a load moves what L1 holds, as a copy does (pipes.garbage): Mmad faults if it computes on it
        r, b = np.argwhere(~wrote.all(axis=2) & inside)[0]
        garbage(sp, src.lo, src.lo + span, int(rows[r, b]) * 32, API)
    # rows and columns per fractal, and whether each fractal is stored transposed (L0B: nZ)
    rb, cb, swap = (k0, 16, True) if mem == "L0B" else (16, k0, False)
    transpose = w.transpose and mem == "L0A"  # L0B ignores en_transpose
    # L0B: B = X ((k' = m) blocks of C0, (n' = k) blocks of 16); L0A: A = X, or X^T with M padded to 16 (load3d.py)
    r, c = (w.k_ext, w.m_ext) if transpose else (w.m_ext, w.k_ext)
    rp, cp = up(r, rb), up(c, 16 if transpose else cb)
    nbytes = rp * cp * isz
    room(dst, nbytes, API, "dst", f"for the {w.m_ext} x {w.k_ext} window ({mem} fractals)")
    pad = np.tile(np.frombuffer(pad_bits.to_bytes(8, "little")[:isz], np.uint8), k0)
    valid = np.zeros((rp, cp, 1), bool)
    valid[:r, :c] = True  # the fractal padding is not written
    # the flags travel with the bytes (the pad counts as written)
    for arr_s, arr_d, fill in ((sp.bytes, dp.bytes, pad), (sp.flags(), dp.marks(0, (dp.size,)), 1)):
        vals = arr_s.reshape(-1, 32)[rows]
        vals[~inside] = fill
        img = np.zeros((rp, cp, isz), np.uint8)
        win = vals.reshape(w.m_ext, w.k_ext, isz)
        img[:r, :c] = win.transpose(1, 0, 2) if transpose else win
        out = arr_d[dst.lo : dst.lo + nbytes].reshape(rp // rb, cp // cb, *((cb, rb) if swap else (rb, cb)), isz)
        if r == rp and c == cp:
            out[...] = _tiles(img, rb, cb, swap)
        else:
            np.copyto(out, _tiles(img, rb, cb, swap), where=_tiles(valid, rb, cb, swap))
    if moved_garbage:  # unwritten flags were copied in: a new epoch (Pool's rule for flags going back to 0)
        dp.unwrite(dst.lo, dst.lo)


def _tiles(x: np.ndarray, rb: int, cb: int, swap: bool) -> np.ndarray:
    """(R, C, b) -> (R / rb, C / cb, rb, cb, b) fractals in row-major order, each (cb, rb) if `swap`."""
    t = x.reshape(x.shape[0] // rb, rb, x.shape[1] // cb, cb, x.shape[2])
    return t.transpose(0, 2, 3, 1, 4) if swap else t.transpose(0, 2, 1, 3, 4)
