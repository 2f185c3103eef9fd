"""Converting vector instructions: `add_relu_cast`, `sub_relu_cast`, `mul_cast`, `add_deq_relu`,
`cast_deq`, and the DEQSCALE register they read (`set_deq_scale`, `VdeqInfo`).

Signatures: pyasc `basic/vec_binary.py` / `vec_vconv.py` and their docs (`add_relu_cast.md`,
`mul_cast.md`, `add_deq_relu.md`, `cast_deq.md`, `set_deq_scale.md`). Type pairs are the Atlas A2/A3
ones of the Ascend C pages (AddReluCast/SubReluCast: float32 -> float16, float16 -> int8,
int16 -> int8; MulCast: float16 -> int8/uint8; AddDeqRelu: int32 -> float16; CastDeq: int16 ->
int8/uint8 and int32 -> float16). The arithmetic is done exactly (float64 / int64) and rounded once
into the destination type: to nearest even, integers saturating (inference: the pages document the
formula, not the rounding; the vector unit's conversions round to nearest and saturate, see cast).

In the mask/repeat form one repeat covers 256 bytes of the wider operand: the mask counts its lanes
and each operand's blocks are 32 bytes of its own type (so a float16 destination of a float32 source
uses 4 of its 8 blocks per repeat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..aicore.core import Register
from ..faults import fail
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.convert import to_int
from ..types.dtypes import DataType
from ..types.enums import RoundMode
from .elementwise import count_of
from .lanes import gather, indices, mark
from .mask import lanes_per_repeat
from .repeat import BLOCK, Repeat, lanes_of

DEQ_LANES = 16  # VdeqInfo holds 16 (scale, offset, sign) groups, used cyclically


@dataclass
class VdeqInfo:
    """16 quantisation groups for `set_deq_scale(vdeq, info)`: scale (float32), offset (int16, 9 bits used),
    sign_mode (signed int8 result when True)."""

    scale: Sequence[float]
    offset: Sequence[int]
    sign_mode: Sequence[bool]

    def __post_init__(self) -> None:
        if not len(self.scale) == len(self.offset) == len(self.sign_mode) == DEQ_LANES:
            raise ValueError(f"VdeqInfo expects exactly {DEQ_LANES} elements per field (pyasc core/types.py)")


class DeqRegister:
    """The DEQSCALE register: one (scale, offset, sign) group, or 16 of them (vector dequantisation)."""

    __slots__ = ("offset", "scale", "sign", "vector")

    def __init__(self, scale: Any, offset: Any, sign: Any, vector: bool) -> None:
        self.scale = np.asarray(scale, np.float64)
        self.offset = np.asarray(offset, np.int64)
        self.sign = np.asarray(sign, bool)
        self.vector = vector


class DeqScale(Register):
    """The DEQSCALE register of a core: a `DeqRegister` once set_deq_scale ran."""


def _offset9(value: int) -> int:
    """The 9 offset bits the hardware keeps ("只有前9位有效"), read as a signed number."""
    v = int(value) & 0x1FF
    return v - 0x200 if v & 0x100 else v


@instruction("SetDeqScale", "set_deq_scale", "vector")
def set_deq_scale(core: Any, scale: Any, offset: int | None = None, sign_mode: bool | None = None) -> None:
    """Set DEQSCALE: `SetDeqScale(half scale)`, the s322f16 scale of add_deq_relu / cast_deq (Ascend C SetDeqScale
    page), or `SetDeqScale(float scale, int16 offset, bool signMode)`."""
    if offset is None and sign_mode is None:
        core.state(DeqScale).value = DeqRegister([np.float16(scale)], [0], [True], False)
    else:
        core.state(DeqScale).value = DeqRegister([np.float32(scale)], [_offset9(offset or 0)], [bool(sign_mode)], False)


@instruction("SetDeqScale(VdeqInfo)", "set_deq_scale", "vector",
             note="the vdeq form stores the 16 groups in UB in a packing of aclsim's own")
def set_deq_scale_vector(core: Any, vdeq: LocalTensor, info: VdeqInfo) -> None:
    """Set DEQSCALE to 16 (scale, offset, sign) groups, written to the 128-byte UB tensor `vdeq` the instruction
    reads; aclsim keeps their values and stores them there as (float32 scale bits | offset << 32 | sign << 48), a
    layout of its own."""
    words = vdeq.reinterpret_cast(np.uint64).write(DEQ_LANES, "set_deq_scale")
    offsets = [_offset9(o) for o in info.offset]
    scales = np.asarray(info.scale, np.float32)
    words[...] = (scales.view(np.uint32).astype(np.uint64) | (np.asarray(offsets, np.int64) & 0xFFFF).astype(
        np.uint64) << np.uint64(32) | np.asarray(info.sign_mode, np.uint64) << np.uint64(48))
    core.state(DeqScale).value = DeqRegister(scales, offsets, info.sign_mode, True)


def _deq(core: Any, api: str) -> DeqRegister:
    reg = core.state(DeqScale).value
    if reg is None:
        fail(api, "the DEQSCALE register was never set: call asc.set_deq_scale(...) first (it holds garbage)")
    return reg


def _narrow(x: np.ndarray, dt: DataType) -> np.ndarray:
    """Exact values -> dt: nearest even, integers saturating."""
    if dt.is_float:
        return x.astype(dt.np)
    return to_int(x, dt.np, RoundMode.CAST_RINT)


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64 if x.dtype.kind == "f" else np.int64)


Pairs = tuple[tuple[str, str], ...]  # (source type, destination type) the chip supports


def _operands(core: Any, api: str, pairs: Pairs, dst: LocalTensor, srcs: Sequence[LocalTensor]) -> None:
    sd = srcs[0].dtype
    for s in srcs[1:]:
        if s.dtype is not sd:
            fail(api, f"the sources mix {sd.name} and {s.dtype.name}")
    if (sd.name, dst.dtype.name) not in pairs:
        ok = ", ".join(f"{a} -> {b}" for a, b in pairs)
        fail(api, f"{sd.name} -> {dst.dtype.name} is not supported on {core.chip.name} (supported: {ok})")


def _convert(core: Any, api: str, fn: Callable[..., np.ndarray], pairs: Pairs, dst: LocalTensor,
             srcs: Sequence[LocalTensor], n: int | Repeat) -> None:
    """Both forms of an instruction whose destination type differs from its sources':
    `dst = fn(*sources)` with fn returning values already in dst's type."""
    if type(n) is not Repeat and not count_of(api, n):
        return
    _operands(core, api, pairs, dst, srcs)
    if type(n) is not Repeat:
        xs = [s.read(n, api) for s in srcs]
        dst.write(n, api)[...] = fn(*xs)
        return
    isz = max(t.dtype.itemsize for t in (dst, *srcs))
    repeats, total, flags = lanes_of(core, api, n, isz)
    if total <= 0 or repeats <= 0:
        return
    lanes = lanes_per_repeat(isz)
    if (flags is None or flags.all()) and all(
            stride == (1, lanes * t.dtype.itemsize // BLOCK) for t, stride in zip((dst, *srcs), n.strides, strict=True)):
        xs = [s.read(total, api) for s in srcs]  # every operand contiguous in its own type: the count form
        dst.write(total, api)[...] = fn(*xs)
        return
    if flags is None:  # COUNTER mode: the first `total` lanes, repeat after repeat
        flags = np.ones(lanes, bool)
    idx = [indices(repeats, total, flags, blk, stride, t.dtype.itemsize)[:total]
           for t, (blk, stride) in zip((dst, *srcs), n.strides, strict=True)]
    xs = [gather(s, si, api) for s, si in zip(srcs, idx[1:], strict=True)]  # every read before any write
    mark(dst, idx[0], api)
    dst.arr[idx[0]] = fn(*xs)


_RELU_CAST: Pairs = (("float32", "float16"), ("float16", "int8"), ("int16", "int8"))


def _converting(key: str, api: str, op: Callable[..., Any], pairs: Pairs, doc: str) -> Callable[..., None]:
    def run(core: Any, dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, n: int | Repeat) -> None:
        _convert(core, api, lambda a, b: _narrow(op(a, b), dst.dtype), pairs, dst, (src0, src1), n)

    run.__name__ = run.__qualname__ = api
    run.__doc__ = doc
    return instruction(key, api, "vector", "V")(run)


add_relu_cast = _converting("AddReluCast", "add_relu_cast", lambda a, b: np.maximum(_wide(a) + b, 0), _RELU_CAST,
                            "dst[i] = max(src0[i] + src1[i], 0) converted to dst's type.")
sub_relu_cast = _converting("SubReluCast", "sub_relu_cast", lambda a, b: np.maximum(_wide(a) - b, 0), _RELU_CAST,
                            "dst[i] = max(src0[i] - src1[i], 0) converted to dst's type.")
mul_cast = _converting("MulCast", "mul_cast", lambda a, b: _wide(a) * b, (("float16", "int8"), ("float16", "uint8")),
                       "dst[i] = src0[i] * src1[i] converted to int8/uint8 (float16 sources).")


@instruction("AddDeqRelu", "add_deq_relu", "vector", "V")
def add_deq_relu(core: Any, dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, n: int | Repeat) -> None:
    """dst[i] = max((src0[i] + src1[i]) * DEQSCALE, 0) as float16 (int32 sources; the sum wraps as int32)."""
    api = "add_deq_relu"
    scale = _deq(core, api).scale[0]

    def op(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _narrow(np.maximum((a + b).astype(np.float64) * scale, 0), dst.dtype)

    _convert(core, api, op, (("int32", "float16"),), dst, (src0, src1), n)


@instruction("CastDeq", "cast_deq", "vector", "V")
def cast_deq(core: Any, dst: LocalTensor, src: LocalTensor, n: int | Repeat, is_vec_deq: bool = True,
             half_block: bool = True) -> None:
    """Dequantise: int16 -> int8/uint8 as `src * scale + offset` (one group, or 16 groups cycling over the
    elements with is_vec_deq), each 16-element source block landing in one half of a 32-byte destination
    block (half_block=True: the lower 16 bytes); int32 -> float16 as `src * scale`."""
    api = "cast_deq"
    reg = _deq(core, api)
    if src.dtype.name == "int32":  # the s322f16 path: one (half) scale, is_vec_deq does not apply
        _convert(core, api, lambda a: _narrow(a.astype(np.float64) * reg.scale[0], dst.dtype), (("int32", "float16"),),
                 dst, (src,), n)
        return
    if is_vec_deq != reg.vector:
        fail(api, f"is_vec_deq={is_vec_deq} but set_deq_scale was given "
                  f"{'a VdeqInfo tensor' if reg.vector else 'one scale'}: they must agree (pyasc cast_deq.md)")
    _operands(core, api, (("int16", "int8"), ("int16", "uint8")), dst, (src,))
    if type(n) is Repeat:
        repeats, total, flags = lanes_of(core, api, n, 2)
        if total <= 0 or repeats <= 0:
            return
        if flags is None:
            flags = np.ones(lanes_per_repeat(2), bool)
        di, si = (indices(repeats, total, flags, blk, stride, 2)[:total] for blk, stride in n.strides)
    elif count_of(api, n):
        di = si = np.arange(n)
    else:
        return
    x = gather(src, si, api).astype(np.float64)
    k = si % DEQ_LANES if reg.vector else np.zeros(si.size, np.intp)
    y = x * reg.scale[k] + reg.offset[k]
    signed = reg.sign[k]
    if (dst.dtype.name == "int8") != bool(signed[0]) or signed.any() != signed.all():
        fail(api, f"dst is {dst.dtype.name} but set_deq_scale's sign_mode asks for "
                  f"{'int8' if signed[0] else 'uint8'} results (sign_mode True: int8, False: uint8)")
    # element j of the (16-bit) source block b lands at byte 32*b + 16*(not half_block) + j of dst
    out = (di // 16) * 32 + (0 if half_block else 16) + di % 16
    mark(dst, out, api)
    dst.arr[out] = _narrow(y, dst.dtype)
