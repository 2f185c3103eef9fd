"""Layout instructions: `transpose` (a 16 x 16 block, NCHW <-> NHWC) and `trans_data_to_5hd` (NCHW -> NC1HWC0).

Semantics from the Ascend C API reference (Transpose, TransDataTo5HD; pyasc `basic/vec_transpose.py`
and its docs `asc.language.basic.transpose.md`, `trans_data_to_5hd.md`):

- `transpose(dst, src)`: dst = src^T for one 16 x 16 matrix of a 2-byte type; src and dst may coincide.
- `transpose(dst, src, shared_tmp_buffer, TransposeParamsExt)`: TRANSPOSE_ND2ND_B16 is the same 16 x 16
  transpose (uint16 only on A2/A3); TRANSPOSE_NCHW2NHWC / TRANSPOSE_NHWC2NCHW convert [N,C,H,W] <-> [N,H,W,C]
  for 1-, 2- and 4-byte types whose h x w image fills whole 32-byte blocks, need a temporary buffer of (c+2)
  resp. (2c+1) units of 1024 bytes (8-bit types) or 512 bytes (16- and 32-bit types), and refuse src/dst
  reuse. The other TransposeType members are reserved ("当前预留参数，暂不支持") and fault.
- `trans_data_to_5hd`: one repeat reads 16 data blocks of 32 bytes (one per source address) and writes 16 (one
  per destination address). 16-bit: destination block j holds element j of every source block. 32-bit: element
  j of the 16 source blocks fills destination blocks 2j and 2j+1 (8 + 8 values). 8-bit: element j (+16 when
  src_high_half) of the 16 source blocks fills the low (or, with dst_high_half, high) half of destination
  block j. Each repeat moves every address by its repeat stride (32-byte blocks). The address forms (a uint64
  LocalTensor or a list of ints) take the element type from the tensor the addresses came from
  (`LocalTensor.get_phy_addr`), as pyasc's compiler infers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import FIXED, Buffer, LocalTensor, PhyAddresses
from ..table import instruction
from ..types.dtypes import DataType, uint16, uint64
from ..types.enums import TPosition
from ..vector.lanes import gather, mark
from ..vector.repeat import BLOCK, MAX_REPEAT


class TransposeType(IntEnum):
    """Layouts of the extended transpose (pyasc `core/enums.py`)."""

    TRANSPOSE_TYPE_NONE = 0
    TRANSPOSE_NZ2ND_0213 = 1
    TRANSPOSE_NZ2NZ_0213 = 2
    TRANSPOSE_NZ2NZ_012_WITH_N = 3
    TRANSPOSE_NZ2ND_012_WITH_N = 4
    TRANSPOSE_NZ2ND_012_WITHOUT_N = 5
    TRANSPOSE_NZ2NZ_012_WITHOUT_N = 6
    TRANSPOSE_ND2ND_ONLY = 7
    TRANSPOSE_ND_UB_GM = 8
    TRANSPOSE_GRAD_ND_UB_GM = 9
    TRANSPOSE_ND2ND_B16 = 10
    TRANSPOSE_NCHW2NHWC = 11
    TRANSPOSE_NHWC2NCHW = 12


@dataclass
class TransposeParamsExt:
    """Shape [n, c, h, w] and layout change of the extended transpose."""

    n_size: int = 0
    c_size: int = 0
    h_size: int = 0
    w_size: int = 0
    transpose_type: int = TransposeType.TRANSPOSE_ND2ND_B16


@dataclass
class TransDataTo5HDParams:
    """Repeat count, per-repeat address strides (32-byte blocks) and, for 8-bit types, which block halves."""

    dst_high_half: bool = False
    src_high_half: bool = False
    repeat_times: int = 1
    dst_rep_stride: int = 0
    src_rep_stride: int = 0


TWO_BYTE = ("float16", "int16", "uint16")
LIST_SIZE = 16  # NCHW_CONV_ADDR_LIST_SIZE


def _same_type(api: str, dst: LocalTensor, src: LocalTensor) -> None:
    if dst.dtype is not src.dtype:
        raise TypeError(f"asc.{api}: dst and src must have the same dtype, got dst {dst.dtype.name}, "
                        f"src {src.dtype.name}")


def _transpose16(api: str, dst: LocalTensor, src: LocalTensor) -> None:
    x = src.read(256, api).reshape(16, 16).T.copy()  # read first: src and dst may be the same tensor
    dst.write(256, api)[...] = x.ravel()


@instruction("Transpose", "transpose", "move", "V", TWO_BYTE)
def transpose(core: Any, dst: LocalTensor, src: LocalTensor) -> None:
    """dst = src^T for one 16 x 16 matrix of a 2-byte type; src and dst may coincide."""
    api = "transpose"
    _same_type(api, dst, src)
    if dst.dtype.name not in TWO_BYTE:
        fail(api, f"the 16 x 16 transpose takes {'/'.join(TWO_BYTE)}, got {dst.dtype.name}")
    _transpose16(api, dst, src)


@instruction("Transpose(TransposeParamsExt)", "transpose", "move", "V")
def transpose_ext(core: Any, dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, params: TransposeParamsExt) -> None:
    """TRANSPOSE_ND2ND_B16 (16 x 16, uint16), TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW, with a temporary buffer."""
    api = "transpose"
    _same_type(api, dst, src)
    kind = TransposeType(params.transpose_type)
    if kind == TransposeType.TRANSPOSE_ND2ND_B16:
        if dst.dtype is not uint16:  # A2/A3 ("支持的数据类型为：uint16_t"); the basic form takes half/int16
            fail(api, f"TRANSPOSE_ND2ND_B16 takes uint16 on this chip, got {dst.dtype.name}: use "
                      "asc.transpose(dst, src) for float16/int16")
        _transpose16(api, dst, src)
        return
    if kind not in (TransposeType.TRANSPOSE_NCHW2NHWC, TransposeType.TRANSPOSE_NHWC2NCHW):
        fail(api, f"TransposeType.{kind.name} is reserved: CANN does not support it (supported: TRANSPOSE_ND2ND_B16, "
                  "TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW)")
    isz = dst.dtype.itemsize
    if isz not in (1, 2, 4):
        fail(api, f"{kind.name} takes 8-, 16- and 32-bit types, got {dst.dtype.name}")
    n, c, h, w = (int(v) for v in (params.n_size, params.c_size, params.h_size, params.w_size))
    if min(n, c, h, w) < 0 or max(n, c, h, w) > 0xFFFF:
        fail(api, f"n/c/h/w sizes are uint16 values, got {n}/{c}/{h}/{w}")
    if h * w * isz % BLOCK:  # CANN's Transpose4DImpl counts an image in whole blocks (imageBlockNum)
        fail(api, f"an image of h x w = {h} x {w} {dst.dtype.name} is {h * w * isz} bytes, not a multiple of 32")
    units = c + 2 if kind == TransposeType.TRANSPOSE_NCHW2NHWC else 2 * c + 1
    tmp.span(units * (1024 if isz == 1 else 512), api)  # the documented temporary size, live and aligned
    count = n * c * h * w
    if count == 0:
        return
    if dst.buf.pool is src.buf.pool and dst.lo < src.lo + count * isz and src.lo < dst.lo + count * isz:
        fail(api, f"{kind.name} does not allow src and dst to overlap")
    x = src.read(count, api)
    rows, cols = (c, h * w) if kind == TransposeType.TRANSPOSE_NCHW2NHWC else (h * w, c)
    dst.write(count, api)[...] = x.reshape(n, rows, cols).transpose(0, 2, 1).ravel()


# ------------------------------------------------------------------------------- TransDataTo5HD
def _ub_at(core: Any, api: str, addr: int, dtype: DataType) -> LocalTensor:
    """A tensor at a raw UB byte address, reaching to the end of the UB (addresses carry no extent)."""
    pool = core.pool("UB")
    if not 0 <= addr < pool.size:
        fail(api, f"address {addr:#x} is outside the {pool.size}-byte UB")
    return Buffer(pool, addr, pool.size - addr, None, 0, TPosition.VECCALC, FIXED).tensor(dtype)


def _addr_type(core: Any, api: str, addrs: list[int]) -> DataType:
    known = core.state(PhyAddresses)
    types = {known.get(a) for a in addrs}
    if None in types:
        bad = next(a for a in addrs if a not in known)
        fail(api, f"address {bad:#x} did not come from LocalTensor.get_phy_addr: the element type of the address "
                  "forms is taken from the tensor the addresses were read from, as pyasc infers it")
    if len(types) > 1:
        fail(api, f"the addresses come from tensors of different types ({', '.join(sorted(t.name for t in types))})")
    return types.pop()


def _operands(core: Any, api: str, side: str, arg: Any) -> list[LocalTensor]:
    """The 16 tensors of one side: a list of LocalTensors, a list of addresses or a uint64 address tensor."""
    if isinstance(arg, LocalTensor):
        if arg.dtype is not uint64:
            raise TypeError(f"asc.{api}: a LocalTensor of addresses must be uint64, got {arg.dtype.name}")
        addrs = [int(a) for a in gather(arg, np.arange(LIST_SIZE), api)]
    elif isinstance(arg, list | tuple):
        if len(arg) != LIST_SIZE:
            fail(api, f"{side} lists {len(arg)} operands; the instruction takes {LIST_SIZE}")
        if all(isinstance(t, LocalTensor) for t in arg):
            return list(arg)
        if not all(isinstance(a, int | np.integer) for a in arg):
            raise TypeError(f"asc.{api}: {side} must list LocalTensors or addresses (ints), not a mix")
        addrs = [int(a) for a in arg]
    else:
        raise TypeError(f"asc.{api}: {side} must be a list of 16 LocalTensors or addresses, or a uint64 LocalTensor "
                        f"of addresses, got {type(arg).__name__}")
    dt = _addr_type(core, api, addrs)
    return [_ub_at(core, api, a, dt) for a in addrs]


@instruction("TransDataTo5HD", "trans_data_to_5hd", "move", "V")
def trans_data_to_5hd(core: Any, dst_or_list: Any, src_or_list: Any, params: TransDataTo5HDParams) -> None:
    """16 blocks in, 16 blocks out per repeat: the NCHW -> NC1HWC0 transposition (see the module docstring). Each
    side is a list of 16 LocalTensors, a list of 16 UB addresses or a uint64 LocalTensor of them."""
    api = "trans_data_to_5hd"
    if isinstance(dst_or_list, list | tuple) and not dst_or_list and not src_or_list:
        return  # pyasc emits nothing for empty lists
    dsts, srcs = _operands(core, api, "dst_list", dst_or_list), _operands(core, api, "src_list", src_or_list)
    dt = dsts[0].dtype
    if any(t.dtype is not dt for t in dsts + srcs):
        raise TypeError(f"asc.{api}: all tensors in dst_list and src_list must have the same dtype")
    isz = dt.itemsize
    if isz not in (1, 2, 4):
        fail(api, f"takes 8-, 16- and 32-bit types, got {dt.name}")
    times, d_rep, s_rep = int(params.repeat_times), int(params.dst_rep_stride), int(params.src_rep_stride)
    if not 0 <= times <= MAX_REPEAT:
        fail(api, f"repeat_times must be in 0..{MAX_REPEAT}, got {times}")
    if not (0 <= d_rep <= 0xFFFF and 0 <= s_rep <= 0xFFFF):
        fail(api, f"repeat strides are uint16 block counts, got dst {d_rep}, src {s_rep}")
    if times == 0:
        return
    epb = BLOCK // isz
    reps = np.arange(times)[:, None]
    s_idx = (reps * (s_rep * epb) + np.arange(epb)).ravel()
    blocks = np.stack([gather(t, s_idx, api).reshape(times, epb) for t in srcs], axis=1)  # (repeat, 16, epb)
    if isz == 1:
        lo = 16 if params.src_high_half else 0
        out = blocks[:, :, lo : lo + 16].transpose(0, 2, 1)  # (repeat, dst block j, 16 values)
        d_idx = (reps * (d_rep * epb) + (16 if params.dst_high_half else 0) + np.arange(16)).ravel()
    else:  # 16-bit: (repeat, 16, 16) transposed; 32-bit: the 8 columns of 16 values as 16 blocks of 8
        out = blocks.transpose(0, 2, 1).reshape(times, LIST_SIZE, epb)
        d_idx = (reps * (d_rep * epb) + np.arange(epb)).ravel()
    for j, t in enumerate(dsts):
        mark(t, d_idx, api)
        t.arr[d_idx] = out[:, j].ravel()
