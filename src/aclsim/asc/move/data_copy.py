"""DMA between GM and local memory: `data_copy` (count and DataCopyParams forms) and `data_copy_pad`.

Rules (the Ascend C API pages, hicann/asc-devkit `docs/api/SIMD-API/基础API/Memory矢量计算/数据搬运/DataCopy_GMAndUB_continuous.md`,
`DataCopyPad_GMToUB.md`, and CANN's `kernel_operator_data_copy_impl.h`): local operands start on 32 bytes; the count form moves
`count * sizeof(T)` rounded *down* to a multiple of 32 bytes (the tail is silently dropped, so we
warn and point at data_copy_pad); DataCopyParams has block_count 1..4095 and block_len 1..65535
32-byte blocks; data_copy_pad (A2/A3 only) moves any byte length, padding each block to 32 bytes
in UB and writing only the real bytes back to GM.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from aclsim.runtime import user_site

from ..aicore.core import Register
from ..aicore.pipes import access, garbage, local_copy_pipe
from ..faults import AscWarning, fail, message
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.dtypes import bfloat16
from ..types.params import DataCopyExtParams, DataCopyPadExtParams, DataCopyPadParams, DataCopyParams
from .atomic import atomic_on, store

_TENSORS = (LocalTensor, GlobalTensor)  # a tuple: isinstance takes it faster than a union


def same_type(dst: Any, src: Any, api: str) -> None:
    if not isinstance(dst, _TENSORS) or not isinstance(src, _TENSORS):
        raise TypeError(f"asc.{api}: dst and src must be LocalTensor/GlobalTensor, got "
                        f"{type(dst).__name__}, {type(src).__name__}")
    if isinstance(dst, GlobalTensor) and isinstance(src, GlobalTensor):
        fail(api, "GM to GM is not a data_copy direction: stage the data through a local tensor")
    if dst.dtype is not src.dtype:
        fail(api, f"dst is {dst.dtype.name} but src is {src.dtype.name}: data_copy moves one element type "
                  "(convert with asc.cast)")


def _warn_truncated(core: Any, count: int, dt: Any, nbytes: int, moved: int) -> None:
    site = user_site()
    launch = core.launch
    key = (site.filename, site.lineno) if site else None
    if key in launch.warned:
        return
    launch.warned.add(key)
    text = message("data_copy", f"{count} x {dt.name} = {nbytes} bytes is not a multiple of 32: the hardware "
                                    f"moves only {moved} bytes (rounded down) and the last {nbytes - moved} bytes "
                                    "are not copied; use asc.data_copy_pad for lengths that are not 32-byte multiples",
                       site, located=site is None)
    if site is None:
        warnings.warn(text, AscWarning, stacklevel=2)
    else:
        warnings.warn_explicit(text, AscWarning, site.filename, site.lineno)  # the warning shows file:line


@instruction("DataCopy", "data_copy", "move", cost="gm", note="count, DataCopyParams, Nd2NzParams (GM -> L1) and "
             "DataCopyCO12DstParams (L0C -> GM) forms; enhanced form with default enhancements; SliceInfo forms "
             "GM <-> UB with shape_value set")
def count_copy(core: Any, dst: Any, src: Any, count: int) -> None:
    """GM <-> local or local -> local, `count` elements rounded down to 32 bytes (the pipe: MTE2 into local memory
    from GM, MTE3 out to GM, `local_copy_pipe` between local memories)."""
    api = "data_copy"
    td, ts = type(dst), type(src)
    local_dst = td is LocalTensor
    if not ((local_dst and (ts is GlobalTensor or ts is LocalTensor)) or (td is GlobalTensor and ts is LocalTensor)
            ) or dst.dtype is not src.dtype:  # the common operands, tested without isinstance
        same_type(dst, src, api)
        local_dst = isinstance(dst, LocalTensor)
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    dt = dst.dtype
    nbytes = count * dt.itemsize
    moved = nbytes & ~31
    if moved != nbytes:
        _warn_truncated(core, count, dt, nbytes, moved)
    launch = core.launch
    if local_dst:
        lo = dst.lo
        dst.span(count, api)
        if ts is GlobalTensor or isinstance(src, GlobalTensor):
            gm, off, where = src.region(moved, api)
            dst.buf.pool.bytes[lo : lo + moved] = gm[off : off + moved]
            launch.bytes_read += moved
            if launch.observe:
                core.emit_gm(where, off, off + moved, False, dt.itemsize, api)
            pipe = "MTE2"
        else:
            slo = src.lo
            src.span(count, api)
            spool, pool = src.buf.pool, dst.buf.pool
            bad = spool.unwritten(slo, slo + moved)
            pool.bytes[lo : lo + moved] = spool.bytes[slo : slo + moved]
            pipe = local_copy_pipe(spool, pool)
            if spool.watch:
                access(pipe, spool, slo, slo + moved, False, api)
            if bad >= 0:  # garbage moves as it is, and stays garbage where it lands
                garbage(spool, slo, slo + moved, bad, api)
                pool.set_flags(lo, (moved,), (1,), spool.flags(slo, (moved,), (1,)))
                if pool.watch:
                    access(pipe, pool, lo, lo + moved, True, api)
                return
        pool = dst.buf.pool
        pool.mark(lo, lo + moved)
        if pool.watch:
            access(pipe, pool, lo, lo + moved, True, api)
        return
    slo = src.lo
    src.span(count, api)
    bad = src.buf.pool.unwritten(slo, slo + moved)
    if bad >= 0:  # the copy out moves the garbage (see pipes.garbage)
        garbage(src.buf.pool, slo, slo + moved, bad, api)
    if src.buf.pool.watch:
        access("MTE3", src.buf.pool, slo, slo + moved, False, api)
    gm, off, where = dst.region(moved, api)
    store(core, gm[off : off + moved], src.buf.pool.bytes[slo : slo + moved], dt, api)
    launch.bytes_written += moved
    if launch.observe:
        core.emit_gm(where, off, off + moved, True, dt.itemsize, api, atomic=atomic_on(core))



def _rows(buf: np.ndarray, start: int, rows: int, width: int, pitch: int) -> np.ndarray:
    """A (rows, width) uint8 view of `buf` starting at `start` with `pitch` bytes between rows (np.ndarray over
    the buffer: cheaper than as_strided, and it refuses a view past the buffer's end)."""
    return np.ndarray((rows, width), np.uint8, buf, start, (pitch, 1))


def local_rows(t: LocalTensor, rows: int, width: int, pitch: int, api: str, read: bool, pipe: str,
                skip: int = 0) -> np.ndarray:
    """Checked (rows, width) byte view of a local tensor, blocks `pitch` apart, data `skip` bytes in,
    moved by `pipe`."""
    span = (rows - 1) * pitch + skip + width
    t.span(-(-span // t.dtype.itemsize), api)
    pool = t.buf.pool
    if pool.watch:
        access(pipe, pool, t.lo + skip, t.lo + span, not read, api)
    if read:
        flags = pool.flags(t.lo + skip, (rows, width), (pitch, 1))
        if not flags.all():  # moved as it is (see pipes.garbage)
            r, c = np.argwhere(flags == 0)[0]
            garbage(pool, t.lo + skip, t.lo + span, t.lo + skip + int(r) * pitch + int(c), api)
    else:
        pool.marks(t.lo + skip, (rows, width), (pitch, 1))[...] = 1
    return _rows(pool.bytes, t.lo + skip, rows, width, pitch)


def gm_rows(core: Any, g: GlobalTensor, rows: int, width: int, pitch: int, api: str, write: bool) -> np.ndarray:
    """Checked (rows, width) byte view of GM from `g`, rows `pitch` bytes apart, moved by `core` (its cost and the
    observers' access records counted)."""
    span = (rows - 1) * pitch + width
    gm, off, where = g.region(span, api)
    launch = core.launch
    if write:
        launch.bytes_written += rows * width
    else:
        launch.bytes_read += rows * width
    if launch.observe:
        isz = g.dtype.itemsize
        offsets = (off + np.arange(rows, dtype=np.int64)[:, None] * pitch
                   + np.arange(0, width, isz, dtype=np.int64)[None, :]).ravel()
        core.emit_gm(where, off, off + span, write, isz, api, offsets=None if pitch == width else offsets,
                     atomic=write and atomic_on(core))
    return _rows(gm, off, rows, width, pitch)


@instruction("DataCopy(DataCopyParams)", "data_copy", "move", cost="gm")
def blocked(core: Any, dst: Any, src: Any, p: DataCopyParams) -> None:
    """`block_count` blocks of `block_len` 32-byte units, `src_stride` / `dst_stride` 32-byte units apart."""
    api = "data_copy"
    same_type(dst, src, api)
    bc, bl = int(p.block_count), int(p.block_len)
    if not (1 <= bc <= 4095 and 1 <= bl <= 65535) or p.src_stride < 0 or p.dst_stride < 0:
        fail(api, f"DataCopyParams(block_count={bc}, block_len={bl}, src_stride={p.src_stride}, "
                  f"dst_stride={p.dst_stride}) is out of range: block_count 1..4095, block_len 1..65535 "
                  "(32-byte blocks), strides >= 0")
    width = bl * 32
    spitch, dpitch = (bl + int(p.src_stride)) * 32, (bl + int(p.dst_stride)) * 32
    s = (gm_rows(core, src, bc, width, spitch, api, False) if isinstance(src, GlobalTensor)
         else local_rows(src, bc, width, spitch, api, True,
                          "MTE3" if isinstance(dst, GlobalTensor) else local_copy_pipe(src.buf.pool, dst.buf.pool)))
    if isinstance(dst, GlobalTensor):
        store(core, gm_rows(core, dst, bc, width, dpitch, api, True), s, dst.dtype, api)
    else:
        pipe = "MTE2" if isinstance(src, GlobalTensor) else local_copy_pipe(src.buf.pool, dst.buf.pool)
        local_rows(dst, bc, width, dpitch, api, False, pipe)[...] = s


class PadValue(Register):
    """The MOV_PAD_VAL register of a core: the padding DataCopyPad writes when its DataCopyPadExtParams say
    isPad=false (CANN SetPadValue page); None until set_pad_value."""


@instruction("SetPadValue", "set_pad_value", "move")
def set_pad_value(core: Any, padding_value: Any) -> None:
    """The value DataCopyPad pads with when isPad is false (on the AIC the call does nothing, as in CANN's
    `SetPadValue`: `if (g_coreType == AIC) return`)."""
    if not core.aic:
        core.state(PadValue).value = padding_value


@instruction("DataCopyPad", "data_copy_pad", "move", cost="gm")
def data_copy_pad(core: Any, dst: Any, src: Any, params: Any, pad_params: Any = None) -> None:
    """Copy `block_count` blocks of `block_len` bytes between GM and UB, padding each to 32 bytes in UB."""
    api = "data_copy_pad"
    if not core.chip.data_copy_pad:
        fail(api, f"DataCopyPad does not exist on {core.chip.name} (Atlas A2/A3 and later only): copy a "
                  "32-byte-rounded length with data_copy and handle the tail yourself")
    if not isinstance(params, DataCopyExtParams | DataCopyParams):
        raise TypeError(f"asc.{api}: params must be DataCopyExtParams or DataCopyParams, got {type(params).__name__}")
    same_type(dst, src, api)
    dt = dst.dtype
    isz = dt.itemsize
    bc, blen = int(params.block_count), int(params.block_len)
    max_len = 2097151 if isinstance(params, DataCopyExtParams) else 65535
    if not (0 <= bc <= 4095 and 0 <= blen <= max_len) or params.src_stride < 0 or params.dst_stride < 0:
        fail(api, f"block_count={bc}, block_len={blen} is out of range (0..4095 blocks of 0..{max_len} bytes)")
    if bc == 0 or blen == 0:
        return  # a NOP on A2/A3
    if blen % isz:
        fail(api, f"block_len {blen} bytes is not a multiple of sizeof({dt.name}) = {isz}")
    if isinstance(dst, LocalTensor):  # GM -> UB
        left = right = 0
        if pad_params is not None and not isinstance(pad_params, DataCopyPadExtParams | DataCopyPadParams):
            raise TypeError(f"asc.{api}: pad_params must be DataCopyPadExtParams or DataCopyPadParams")
        # isPad: pad with paddingValue; otherwise with the value of set_pad_value, if one was set (else the
        # padding holds garbage, as CANN's page says: "随机值")
        pad_value = None if pad_params is None else (pad_params.padding_value if pad_params.is_pad
                                                     else core.state(PadValue).value)
        if pad_value is not None:
            left, right = int(pad_params.left_padding) * isz, int(pad_params.right_padding) * isz
            if left > 32 or right > 32:
                fail(api, f"left/right padding must be at most 32 bytes, got {left} and {right} bytes")
        block = -(-(left + blen + right) // 32) * 32
        dpitch = block + int(params.dst_stride) * 32
        s = gm_rows(core, src, bc, blen, blen + int(params.src_stride), api, False)
        local_rows(dst, bc, blen, dpitch, api, False, "MTE2", skip=left)[...] = s
        if left or right:
            v = np.array([pad_value])
            value = ((v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16) if dt is bfloat16
                     else v.astype(dt.np)).view(np.uint8)
            for skip, n in ((0, left), (left + blen, right)):
                if n:
                    local_rows(dst, bc, n, dpitch, api, False, "MTE2", skip=skip)[...] = np.tile(value, n // isz)
        return
    block = -(-blen // 32) * 32  # UB -> GM: only the real bytes of each 32-byte-padded block land in GM
    s = local_rows(src, bc, blen, block + int(params.src_stride) * 32, api, True, "MTE3")
    store(core, gm_rows(core, dst, bc, blen, blen + int(params.dst_stride), api, True), s, dt, api)
