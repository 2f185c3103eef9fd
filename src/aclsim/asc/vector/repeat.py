"""The two call forms of vector instructions and the element addressing of the mask/repeat form.

Count form: `op(dst, src..., count[, is_set_mask])`, the first `count` elements. Mask/repeat form
("high-dimension" API): `op(dst, src..., mask, repeat_times, repeat_params[, is_set_mask])`; repeat r
touches 8 data blocks of 32 bytes per operand, block b of repeat r starting at
`(r * rep_stride + b * blk_stride) * 32` bytes from the operand, and only the lanes the mask enables
(`mask.py`). `repeat_times` is 0..255 (CANN `MAX_REPEAT_TIMES`, reference `ascendc-device.md` §2.3);
in COUNTER mask mode the mask is the total element count and `repeat_times` does not count
(pyasc `copy.md`: "通用的Counter模式：Mask代表整个矢量计算参与计算的元素个数，迭代次数不生效").
Repeats run in order: when a destination block is a later repeat's source (repeat stride 0
accumulations), each repeat sees the previous one's result, as on the hardware.

Speed: the lanes and per-operand geometry of a call shape (mask, repeat count, strides, element size) are a
`Plan`, cached for NORMAL-mode `(mask, repeat_times, params)` calls (`cached`); operands are worked on as
strided numpy views, never index arrays, unless a repeat may read what an earlier one wrote. Each operand's
static checks and views are remembered in its buffer per plan (`tensors.Checked`), a destination keeps its
last sources (`Bound`), and "every lane written" holds until the UB's written-flags are cleared
(`Pool.epoch`); liveness, the mask register and the sanitizer's records are done on every call.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import faults as ctx
from ..aicore.pipes import access
from ..faults import fail
from ..memory.local import LO_BITS, Checked, LocalTensor, remember
from .mask import MaskRegister, lane_flags, lanes_per_repeat, normal_bits, register

MAX_REPEAT = 255
BLOCK = 32
MAX_PIECES = 4  # lane runs of a mask computed run by run; more runs: boolean lane indexing is cheaper


class Repeat:
    """A parsed mask/repeat call: mask, repeat count, (block, repeat) strides per operand, is_set_mask."""

    __slots__ = ("is_set_mask", "mask", "strides", "times")

    def __init__(self, mask: Any, times: int, strides: list[tuple[int, int]], is_set_mask: bool) -> None:
        self.mask, self.times, self.strides, self.is_set_mask = mask, times, strides, is_set_mask


def _count_form(count: int, is_set_mask: bool = True) -> int:
    return count


def _repeat_form(mask: Any, repeat_times: int, repeat_params: Any, is_set_mask: bool = True) -> tuple:
    return mask, repeat_times, repeat_params, is_set_mask


def _dup_form(mask: Any, repeat_times: int, dst_block_stride: int, dst_repeat_stride: int,
              is_set_mask: bool = True) -> tuple:
    return mask, repeat_times, [(dst_block_stride, dst_repeat_stride)], is_set_mask


REPEAT_KEYS = frozenset(("mask", "repeat_times", "repeat_params", "dst_block_stride", "dst_repeat_stride"))


def form(api: str, args: tuple, kwargs: dict, params: type | None) -> int | Repeat | None:
    """The count (> 0), a Repeat, or None for a call that does nothing (count 0, repeat_times 0).

    `params` is the repeat-parameter class the instruction takes (None: duplicate's explicit strides).
    """
    if len(args) == 1 and not kwargs:  # the count form, the hot path
        count = args[0]
    else:
        repeat = len(args) >= 3 or not REPEAT_KEYS.isdisjoint(kwargs)
        binder = (_dup_form if params is None else _repeat_form) if repeat else _count_form
        try:
            got = binder(*args, **kwargs)
        except TypeError as e:
            tail = ("mask, repeat_times, dst_block_stride, dst_repeat_stride" if params is None
                    else f"mask, repeat_times, {params.__name__}")
            raise TypeError(f"asc.{api}: {str(e).replace('_form()', '')}; the forms are (..., count[, is_set_mask]) "
                            f"and (..., {tail}[, is_set_mask])") from None
        if not repeat:
            count = got
        else:
            mask, times, rp, is_set_mask = got
            if params is not None:
                if not isinstance(rp, params):
                    raise TypeError(f"asc.{api}: repeat_params must be asc.{params.__name__}, got {type(rp).__name__}")
                rp = rp.strides()
            return repeat_of(api, mask, times, rp, is_set_mask)
    if count > 0:
        return count
    if count < 0:
        fail(api, f"count must be >= 0, got {count}")
    return None  # count 0 is a NOP on A2/A3


def repeat_of(api: str, mask: Any, times: Any, strides: list[tuple[int, int]], is_set_mask: Any) -> Repeat:
    """Validate the repeat count and strides of a mask/repeat call."""
    times = int(times)
    if not 0 <= times <= MAX_REPEAT:
        fail(api, f"repeat_times must be in 0..{MAX_REPEAT}, got {times}")
    for blk, rep in strides:
        if int(blk) < 0 or int(rep) < 0:
            fail(api, f"strides are unsigned block counts, got block stride {blk}, repeat stride {rep}")
    if is_set_mask not in (True, False):
        raise TypeError(f"asc.{api}: is_set_mask must be True or False, got {is_set_mask!r}")
    return Repeat(mask, times, [(int(b), int(r)) for b, r in strides], bool(is_set_mask))


def plan(api: str, rep: Repeat, itemsize: int, per_repeat_count: bool = False) -> tuple[int, int, np.ndarray | None]:
    """(repeats, elements, lane flags or None for a count of leading elements) of a mask/repeat call.

    `per_repeat_count`: COUNTER mode counts elements per repeat (copy), not in total.
    """
    reg = register(api)
    lanes = lanes_per_repeat(itemsize)
    if reg.counter:
        if isinstance(rep.mask, list | tuple):
            fail(api, "in COUNTER mask mode the mask is an element count, not a bit list")
        n = int(rep.mask) if rep.is_set_mask else reg.count
        if rep.is_set_mask:
            reg.count = n
        if n < 0:
            fail(api, f"the COUNTER-mode element count must be >= 0, got {n}")
        if per_repeat_count:
            return rep.times, rep.times * min(n, lanes), lane_flags((1 << min(n, lanes)) - 1, lanes)
        return -(-n // lanes), n, None
    if rep.is_set_mask:
        bits = reg.bits = normal_bits(api, rep.mask, itemsize)
    else:
        bits = reg.bits & ((1 << lanes) - 1)
    return rep.times, rep.times * bits.bit_count(), lane_flags(bits, lanes)


def lane_grid(api: str, rep: Repeat, itemsize: int) -> np.ndarray:
    """(repeats, lanes) flags of the lanes a mask/repeat call enables, lanes counted in `itemsize` elements
    (the wider operand's when the widths differ: "以数据类型的字节较大的为准")."""
    repeats, total, flags = plan(api, rep, itemsize)
    lanes = lanes_per_repeat(itemsize)
    if flags is None:  # COUNTER mode: the first `total` lanes, repeat after repeat
        return (np.arange(repeats * lanes) < total).reshape(repeats, lanes)
    return np.broadcast_to(flags, (repeats, lanes))


def lane_index(shape: tuple[int, int], blk: int, stride: int, itemsize: int) -> np.ndarray:
    """(repeat, lane) -> element index of an operand whose blocks hold 32 bytes of its own element type."""
    repeats, lanes = shape
    epb = BLOCK // itemsize
    lane = np.arange(lanes)
    return np.arange(repeats)[:, None] * (stride * epb) + (lane // epb) * (blk * epb) + lane % epb


def _contiguous(t: LocalTensor, on: np.ndarray, blk: int, stride: int) -> bool:
    """Whether the enabled lanes are the operand's first on.size elements in order."""
    return blk == 1 and stride * (BLOCK // t.dtype.itemsize) == on.shape[1] and bool(on.all())


def read_lanes(api: str, t: LocalTensor, on: np.ndarray, blk: int, stride: int) -> np.ndarray:
    """The operand's values at the enabled lanes of `on` (repeat, lane), in lane order, checked as `gather`."""
    if _contiguous(t, on, blk, stride):
        return t.read(on.size, api)
    return gather(t, lane_index(on.shape, blk, stride, t.dtype.itemsize)[on], api)


def write_lanes(api: str, t: LocalTensor, on: np.ndarray, blk: int, stride: int, values: np.ndarray) -> None:
    """Store `values` at the operand's enabled lanes of `on` and mark them written, checked as `mark`."""
    if _contiguous(t, on, blk, stride):
        t.write(on.size, api)[...] = values
        return
    idx = lane_index(on.shape, blk, stride, t.dtype.itemsize)[on]
    mark(t, idx, api)
    t.arr[idx] = values


def indices(repeats: int, total: int, flags: np.ndarray | None, blk: int, stride: int, itemsize: int) -> np.ndarray:
    """Element indices (from the operand's start) one operand touches, repeat after repeat."""
    epb = BLOCK // itemsize
    lanes = flags.size if flags is not None else lanes_per_repeat(itemsize)
    lane = np.arange(lanes)
    block, within = lane // epb, lane % epb
    if flags is not None:
        block, within = block[flags], within[flags]
    per = block * (blk * epb) + within
    idx = (np.arange(repeats)[:, None] * (stride * epb) + per[None, :]).ravel()
    return idx if flags is not None else idx[:total]


def _span(t: LocalTensor, idx: np.ndarray, api: str, align: int = BLOCK) -> np.ndarray:
    """The operand's written-flags as (elements, itemsize) after the liveness, size, alignment and UB checks."""
    n = int(idx.max()) + 1
    t.bounds(n, api)
    if t.lo % align:
        if align == BLOCK:
            t.misaligned(api)
        fail(api, f"the tensor starts at {t.buf.pool.name} offset {t.lo}, not {align}-byte aligned as this operand "
                  "must be")
    pool = t.buf.pool
    if pool.name != "UB":
        t.not_ub(api)
    isz = t.dtype.itemsize
    return pool.marks(t.lo, (n, isz))


def _watched(t: LocalTensor, last: int, write: bool, api: str) -> None:
    """Tell the sanitizer V touches the operand's bytes up to element `last` (the gaps of strides included)."""
    pool = t.buf.pool
    if pool.watch:
        access("V", pool, t.lo, t.lo + (last + 1) * t.dtype.itemsize, write, api)


def gather(t: LocalTensor, idx: np.ndarray, api: str) -> np.ndarray:
    """Source elements at `idx`, checked to be live, in bounds and written."""
    flags = _span(t, idx, api)
    if t.buf.pool.unwritten(t.lo, t.lo + flags.size) >= 0:  # some byte up to the last index is unwritten
        ok = flags[idx].all(axis=1)
        if not ok.all():
            k = int(idx[int(np.argmin(ok))])
            t.uninit(api, t.lo + k * t.dtype.itemsize, int(idx.max()) + 1)
    _watched(t, len(flags) - 1, False, api)
    return t.arr[idx]


def mark(t: LocalTensor, idx: np.ndarray, api: str, align: int = BLOCK) -> None:
    """Check destination elements at `idx` (the tensor aligned to `align` bytes) and mark them written."""
    _span(t, idx, api, align)[idx] = 1
    _watched(t, int(idx.max()), True, api)


def _chains(dst: LocalTensor, di: np.ndarray, srcs: Sequence[LocalTensor], sis: Sequence[np.ndarray]) -> bool:
    """Whether some repeat may read what an earlier one wrote (then repeats must run one by one)."""
    isz = dst.dtype.itemsize
    d_lo, d_hi = dst.lo + int(di.min()) * isz, dst.lo + (int(di.max()) + 1) * isz
    for s, si in zip(srcs, sis, strict=True):
        if s.buf.pool is not dst.buf.pool:
            continue
        s_lo, s_hi = s.lo + int(si.min()) * s.dtype.itemsize, s.lo + (int(si.max()) + 1) * s.dtype.itemsize
        if s_lo < d_hi and d_lo < s_hi:
            in_place = s.lo == dst.lo and np.array_equal(si, di) and np.unique(di).size == di.size
            if not in_place:  # in place is safe unless a repeat rewrites what an earlier one wrote
                return True
    return False


_WORD = {2: np.uint16, 4: np.uint32, 8: np.uint64}  # an element's written-flags bytes read as one word
_WRITTEN = {2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}


@functools.lru_cache(maxsize=256)
def _lane_layout(key: bytes, epb: int) -> tuple[int, tuple[tuple, ...] | None]:
    """(last enabled lane, the enabled lanes as at most MAX_PIECES (repeat, block, element) index pieces, or
    None for more) of a NORMAL-mode mask; `key` is its lane flags' bytes. A mask of the first n lanes, the
    common form, is one or two pieces; a mask that enables the same evenly spaced lanes in every block of a
    block range (every other lane, ...) is one strided piece."""
    on = np.frombuffer(key, bool)
    idx = np.flatnonzero(on)
    per_block = on.reshape(-1, epb)
    used = np.flatnonzero(per_block.any(axis=1))
    lanes = np.flatnonzero(per_block[used[0]])
    if (len(lanes) > 1 and used[-1] - used[0] == len(used) - 1 and (per_block[used] == per_block[used[0]]).all()
            and np.unique(np.diff(lanes)).size == 1 and lanes[1] - lanes[0] > 1):
        step = int(lanes[1] - lanes[0])
        piece = (slice(None), slice(int(used[0]), int(used[-1]) + 1), slice(int(lanes[0]), int(lanes[-1]) + 1, step))
        return int(idx[-1]), (piece,)
    cut = np.flatnonzero(np.diff(idx) != 1)
    pieces: list[tuple] = []
    for s, e in zip(idx[np.r_[0, cut + 1]].tolist(), (idx[np.r_[cut, len(idx) - 1]] + 1).tolist(), strict=True):
        b0, e0 = divmod(s, epb)
        b1, e1 = divmod(e, epb)
        if b0 == b1:
            pieces.append((slice(None), b0, slice(e0, e1)))
            continue
        if e0:
            pieces.append((slice(None), b0, slice(e0, epb)))
            b0 += 1
        if b1 > b0:
            pieces.append((slice(None), slice(b0, b1)))
        if e1:
            pieces.append((slice(None), b1, slice(0, e1)))
    return int(idx[-1]), (tuple(pieces) if len(pieces) <= MAX_PIECES else None)


_SERIAL = itertools.count()  # numbers plans, for their memo keys


class Plan:
    """The lanes and per-operand geometry of one mask/repeat shape (lane bits, repeat count, strides, element
    size). It depends on no tensor, so calls of the same shape reuse it (`cached`); each call still checks
    its operands (live, in bounds, aligned, in UB, written) and reports them to the sanitizer."""

    __slots__ = ("bits", "blocks", "contiguous", "ends", "flags", "keys", "lasts", "on", "pieces", "repeats", "scratch",
                 "shape", "strides", "total", "unique", "views", "vstrides")

    def __init__(self, strides: tuple[tuple[int, int], ...], isz: int, repeats: int, total: int,
                 flags: np.ndarray | None, bits: int) -> None:
        self.strides, self.repeats, self.total, self.flags, self.bits = strides, repeats, total, flags, bits
        self.contiguous = (flags is None or total == repeats * flags.size) and all(s == (1, 8) for s in strides)
        # per operand: its geometry's base key in a buffer's memo (`_operand`: plus the window's start byte; below
        # zero, apart from the count form's keys), and the scratch arrays of whole-block pieces (values, as blocks)
        # by (piece, operand)
        serial = next(_SERIAL)
        self.keys = [-((serial * 8 + k + 1) << LO_BITS) for k in range(len(strides))]
        self.scratch: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        if isz == 1:  # 128 lanes of 8 blocks of 32: the element-index path only
            return
        epb = BLOCK // isz
        lanes = 8 * epb
        self.pieces = None
        if flags is None:  # COUNTER mode: the first `total` elements, repeat after repeat
            self.on = (np.arange(repeats * lanes) < total).reshape(repeats, 8, epb)
            last_lane = (total - 1) % lanes
        else:
            self.on = flags.reshape(8, epb)
            last_lane, self.pieces = _lane_layout(flags.tobytes(), epb)
        b_last, e_last = divmod(last_lane, epb)
        # per operand: its last enabled element, the end byte of its full (repeat, block, element) view, the view's
        # byte strides
        self.lasts = [((repeats - 1) * stride + b_last * blk) * epb + e_last for blk, stride in strides]
        self.ends = [(((repeats - 1) * stride + 7 * blk) * epb + epb) * isz for blk, stride in strides]
        self.vstrides = [(stride * BLOCK, blk * BLOCK, isz) for blk, stride in strides]
        self.shape = (repeats, 8, epb)
        dblk, dstride = strides[0]
        self.unique = dblk >= 1 and (repeats == 1 or dstride >= 8 * dblk)  # no two dst lanes share an element
        # per piece, per operand: (byte offset, shape, strides) of the piece's view, to build it in one call; a piece
        # of whole blocks (a full mask's) is also seen as (repeat, block) items of 32 bytes: an operand whose blocks
        # are not back to back is then gathered (scattered) block by block, which numpy does in one loop, instead
        # of an 8-element inner loop per block
        self.views = None if self.pieces is None else [
            _coalesced([_piece_view(self.shape, vst, isz, ix) for vst in self.vstrides]) for ix in self.pieces]
        self.blocks = None if self.pieces is None else [_block_views(strides, repeats, ix) for ix in self.pieces]


BLOCK_ITEM = np.dtype((np.void, BLOCK))


def _block_views(strides: tuple[tuple[int, int], ...], repeats: int, ix: tuple) -> list[tuple[int, tuple, tuple, bool]] | None:
    """Per operand (byte offset, shape, strides, back to back) of a whole-block piece as (repeat, block) items of
    32 bytes; None for a piece of partial blocks or when every operand's blocks are back to back already."""
    if len(ix) != 2:
        return None
    b0, b1 = ix[1].start, ix[1].stop
    nb = b1 - b0
    out = [(b0 * blk * BLOCK, (repeats, nb), (stride * BLOCK, blk * BLOCK), blk == 1 and (repeats == 1 or stride == nb))
           for blk, stride in strides]
    if all(o[3] for o in out):
        return None
    return [(off, shape, st, o[3]) for (off, shape, st), o in zip(_coalesced([o[:3] for o in out]), out, strict=True)]


def _coalesced(views: list[tuple[int, tuple, tuple]]) -> list[tuple[int, tuple, tuple]]:
    """The operands' (byte offset, shape, strides) of one piece with the axes merged that every operand steps
    through evenly (every other lane of each block of each repeat: one axis), so numpy's inner loop is longer."""
    shape = list(views[0][1])
    sts = [list(st) for _, _, st in views]
    i = len(shape) - 1
    while i > 0:
        drop = i if shape[i] == 1 else i - 1 if shape[i - 1] == 1 else None
        if drop is not None:
            del shape[drop]
            for st in sts:
                del st[drop]
        elif all(st[i - 1] == st[i] * shape[i] for st in sts):
            shape[i - 1 : i + 1] = [shape[i - 1] * shape[i]]
            for st in sts:
                del st[i - 1]
        i -= 1
    return [(off, tuple(shape), tuple(st)) for (off, _, _), st in zip(views, sts, strict=True)]


def _piece_view(shape: tuple, strides: tuple, isz: int, ix: tuple) -> tuple[int, tuple, tuple]:
    """(byte offset, shape, strides) of `view[ix]` for a view of `shape` and byte `strides` (no memory is read)."""
    base = np.empty(1, np.dtype(f"u{isz}"))
    v = np.lib.stride_tricks.as_strided(base, shape, strides)[ix]
    return v.__array_interface__["data"][0] - base.__array_interface__["data"][0], v.shape, v.strides


_PLANS: dict[tuple, Plan] = {}  # by call: (mask, repeat_times, params type and fields, element size)
_GEOMETRY: dict[tuple, Plan] = {}  # by lanes: (strides, element size, repeats, total, lane flags), for other calls
MAX_PLANS = 4096


def cached(api: str, fn: Callable, dst: LocalTensor, srcs: Sequence[LocalTensor], mask: Any, times: Any,
           params: Any) -> bool:
    """`elementwise` for a call `(mask, repeat_times, params)` in NORMAL mask mode with the plan of an earlier call
    of the same shape (the mask register is set as that call set it); False to take the general path."""
    core = ctx.CORE
    if core is None:
        return False
    reg = core.units.get(MaskRegister) or core.state(MaskRegister)
    if reg.counter:
        return False
    kind = type(mask)
    key = (mask if kind is int else tuple(mask) if kind is list or kind is tuple else None, times, type(params),
           *params.__dict__.values(), dst.dtype.itemsize)
    p = _PLANS.get(key)
    if p is None:
        if key[0] is None:
            return False
        rep = repeat_of(api, mask, times, params.strides(), True)
        repeats, total, flags = plan(api, rep, dst.dtype.itemsize)
        p = Plan(tuple(rep.strides), dst.dtype.itemsize, repeats, total, flags, reg.bits)
        if len(_PLANS) < MAX_PLANS:
            _PLANS[key] = p
    else:
        reg.bits = p.bits
    if p.total <= 0 or p.repeats <= 0:
        return True
    if p.contiguous:  # the count form's fast path, inline: the commonest mask/repeat call
        n = p.total
        xs = []
        for s in srcs:  # (a loop: a comprehension is a call of its own on Python 3.11)
            xs.append(s.read(n, api))
        fn(*xs, out=dst.write(n, api))
    elif p.views is None or not _strided(api, fn, dst, srcs, p):  # (a few runs of lanes: straight to the views)
        _execute(api, fn, dst, srcs, p)
    return True


WRITTEN_BLOCK = np.frombuffer(b"\x01" * BLOCK, BLOCK_ITEM)  # the written-flags of a whole block


class Views:
    """One operand's numpy views for a plan (kept in `Checked.extra`): `full` its values as (repeat, block,
    element) (the boolean-lane path), `pieces` per piece (values, and for the destination its written-flags;
    for a whole-block piece also its blocks in UB or None when back to back, a contiguous value array, the
    array as blocks). A destination's also keep `bound`: the sources and steps of its last call (`Bound`)."""

    __slots__ = ("bound", "full", "pieces")


class Bound:
    """A call's operands tied together: the sources' buffers and checks (`Checked`: their windows), whether
    the views may be used (all in the destination's pool, no overlap the element-index path must handle),
    the pool epoch at which the sources' lanes were seen written and the destination's marked (`full`), and
    per piece the step numpy runs: (gathers, source values, destination values, scatter, destination flags,
    flag value)."""

    __slots__ = ("bufs", "checks", "full", "ok", "steps")


def _views(t: LocalTensor, p: Plan, k: int) -> Views:
    """Build operand k's views of plan p on tensor t (checked already); the scratch arrays of whole-block
    pieces are the plan's (per operand: a call fills and uses them before it returns)."""
    pool, lo, dt = t.buf.pool, t.lo, t.arr.dtype
    v = Views()
    v.bound = None
    v.full = np.ndarray(p.shape, dt, pool.bytes, lo, p.vstrides[k]) if p.views is None else None
    v.pieces = []
    for i, (geometry, blocks) in enumerate(zip(p.views or (), p.blocks or (), strict=True)):
        off, shape, st = geometry[k]
        piece = [np.ndarray(shape, dt, pool.bytes, lo + off, st),
                 pool.marks(lo + off, shape, st, _WORD[dt.itemsize]) if k == 0 else None]
        if blocks is not None:
            off, shape, st, flat = blocks[k]
            piece[1] = pool.marks(lo + off, shape, st, BLOCK_ITEM) if k == 0 else None
            if flat:
                n = math.prod(shape) * BLOCK // dt.itemsize
                piece += [None, np.ndarray((n,), dt, pool.bytes, lo + off), None]
            else:
                scratch = p.scratch.get((i, k))
                if scratch is None:
                    vals = np.empty(math.prod(shape) * BLOCK // dt.itemsize, dt)
                    scratch = p.scratch[i, k] = (vals, vals.view(BLOCK_ITEM).reshape(shape))
                piece += [np.ndarray(shape, BLOCK_ITEM, pool.bytes, lo + off, st), *scratch]
        v.pieces.append(piece)
    return v


def _operand(t: LocalTensor, p: Plan, k: int, api: str) -> Checked:
    """Operand k of plan p on tensor t: checked to be live, in bounds, aligned and in UB, with its views
    (`extra` None when a view would leave the local memory), remembered in its buffer's memo."""
    key = p.keys[k] + t.lo
    c = t.buf.memo.get(key)
    if c is not None and (c.arr is t.arr or c.same(t)):
        if t.gen != t.buf.gen:
            t.dead(api)
        return c
    last = p.lasts[k]
    t.bounds(last + 1, api)
    if t.lo & 31:
        t.misaligned(api)
    pool = t.buf.pool
    if pool.name != "UB":
        t.not_ub(api)
    fits = t.lo + p.ends[k] <= pool.size
    c = Checked(t, t.lo + (last + 1) * t.dtype.itemsize, None, _views(t, p, k) if fits else None)
    return remember(t.buf, key, c)


def _bind(api: str, dst: LocalTensor, srcs: Sequence[LocalTensor], p: Plan, views: Views) -> Bound:
    """Check the sources of a call (as `_operand`) and tie them to the destination's views."""
    bd = Bound()
    bd.bufs = [s.buf for s in srcs]
    bd.checks = [_operand(s, p, k, api) for k, s in enumerate(srcs, 1)]
    bd.steps = []
    bd.full = -1
    dpool, d_lo = dst.buf.pool, dst.lo
    d_hi, dst_strides = d_lo + p.ends[0], p.strides[0]
    # a source whose whole blocks (of every repeat count) meet the destination's other than element for element
    bd.ok = True
    for s, c, end, st in zip(srcs, bd.checks, p.ends[1:], p.strides[1:], strict=True):
        if c.extra is None or s.buf.pool is not dpool or (
                s.lo < d_hi and d_lo < s.lo + end and not (p.unique and s.lo == d_lo and st == dst_strides)):
            bd.ok = False
    if bd.ok:
        word = _WRITTEN[dst.dtype.itemsize]
        for i, d in enumerate(views.pieces):
            xs = [c.extra.pieces[i] for c in bd.checks]
            if len(d) == 2:  # a piece of lanes: computed on the views
                bd.steps.append(((), [x[0] for x in xs], d[0], None, d[1], word))
                continue
            # whole blocks: sources' blocks gathered, the result's scattered (numpy loops over 32-byte items)
            gathers = [(x[4], x[2]) for x in xs if x[2] is not None]
            scatter = None if d[2] is None else (d[2], d[4])
            bd.steps.append((gathers, [x[3] for x in xs], d[3], scatter, d[1], WRITTEN_BLOCK))
    views.bound = bd
    return bd


def _strided(api: str, fn: Callable, dst: LocalTensor, srcs: Sequence[LocalTensor], p: Plan) -> bool:
    """The mask/repeat call on strided (repeat, block, element) views (lanes left out by the mask are computed,
    then discarded); False if a view would leave the local memory or a source's blocks may overlap the
    destination's other than element for element (then a repeat may read what an earlier one wrote: the
    element-index path handles both). The operands' checks and views are remembered per (buffer, window,
    plan) and whether their lanes are all written per UB epoch (`tensors.Checked`); a call with the
    destination's last sources reuses their tie (`Bound`); liveness is checked on every call."""
    b = dst.buf
    dc = b.memo.get(p.keys[0] + dst.lo)
    if dc is None or dst.gen != b.gen or (dc.arr is not dst.arr and not dc.same(dst)):
        dc = _operand(dst, p, 0, api)
    views = dc.extra
    if views is None:
        return False
    bd = views.bound
    if bd is not None:
        for s, c, sb in zip(srcs, bd.checks, bd.bufs, strict=True):
            if s.buf is not sb or (c.arr is not s.arr and not c.same(s)):
                bd = None
                break
            if s.gen != sb.gen:
                s.dead(api)
    if bd is None:
        bd = _bind(api, dst, srcs, p, views)
    if not bd.ok:
        return False
    pool = b.pool
    unmarked = bd.full != pool.epoch and _written(api, dst, srcs, p, bd, dc)
    if pool.watch:
        for t, last in zip(srcs, p.lasts[1:], strict=True):
            _watched(t, last, False, api)
        _watched(dst, p.lasts[0], True, api)
    if bd.steps:  # a few runs of lanes, piece by piece
        for gathers, xs, out, scatter, marks, flag in bd.steps:
            for packed, home in gathers:
                packed[...] = home
            fn(*xs, out=out)
            if scatter is not None:
                scatter[0][...] = scatter[1]
            if unmarked:
                marks[...] = flag
    else:  # many runs: boolean indexing over (block, element) picks the same lanes of every repeat, twice as
        # fast as a ufunc's where= and a tenth of copyto(where=) (COUNTER mode: the first lanes)
        dv = views.full
        on = p.on
        lanes = (slice(None), on) if on.ndim == 2 else on
        sel = [c.extra.full[lanes] for c in bd.checks]
        out = np.empty(sel[0].shape if sel else dv[lanes].shape, dv.dtype)
        fn(*sel, out=out)
        dv[lanes] = out
        if unmarked:
            _flags(dst, p, 0)[lanes] = _WRITTEN[dst.dtype.itemsize]
    bd.full = dc.full = pool.epoch
    return True


def _flags(t: LocalTensor, p: Plan, k: int) -> np.ndarray:
    """Operand k's written-flags as words of its element size, over its (repeat, block, element) view."""
    return t.buf.pool.marks(t.lo, p.shape, p.vstrides[k], _WORD[t.dtype.itemsize])


def _written(api: str, dst: LocalTensor, srcs: Sequence[LocalTensor], p: Plan, bd: Bound, dc: Checked) -> bool:
    """Check that the sources' lanes were all written; whether the destination's lanes must be marked."""
    isz = dst.dtype.itemsize
    pool = dst.buf.pool
    for k, (t, c, (blk, stride)) in enumerate(zip(srcs, bd.checks, p.strides[1:], strict=True), 1):
        if c.full == pool.epoch:
            continue
        # every byte up to the last lane written (one memchr): no lane can be unwritten
        if pool.unwritten(c.lo, c.hi) >= 0:
            bad = (_flags(t, p, k) != _WRITTEN[isz]) & p.on
            if bad.any():
                r, b, e = np.unravel_index(int(np.argmax(bad)), bad.shape)
                epb = BLOCK // isz
                t.uninit(api, t.lo + ((r * stride + b * blk) * epb + e) * isz, p.total)
        c.full = pool.epoch
    return dc.full != pool.epoch and pool.unwritten(dc.lo, dc.hi) >= 0


def elementwise(api: str, fn: Callable, dst: LocalTensor, srcs: Sequence[LocalTensor], rep: Repeat,
                per_repeat_count: bool = False) -> None:
    """Run `fn(*source values, out=destination values)` over the elements a mask/repeat call selects."""
    isz = dst.dtype.itemsize
    repeats, total, flags = plan(api, rep, isz, per_repeat_count)
    if total <= 0 or repeats <= 0:
        return
    strides = tuple(rep.strides)
    key = (strides, isz, repeats, total, None if flags is None else flags.tobytes())
    p = _GEOMETRY.get(key)
    if p is None:
        p = Plan(strides, isz, repeats, total, flags, 0)
        if len(_GEOMETRY) < MAX_PLANS:
            _GEOMETRY[key] = p
    _execute(api, fn, dst, srcs, p)


def _execute(api: str, fn: Callable, dst: LocalTensor, srcs: Sequence[LocalTensor], p: Plan) -> None:
    total, repeats, flags = p.total, p.repeats, p.flags
    if p.contiguous:
        xs = [s.read(total, api) for s in srcs]  # contiguous: the count form's fast path
        fn(*xs, out=dst.write(total, api))
        return
    isz = dst.dtype.itemsize
    if isz > 1 and _strided(api, fn, dst, srcs, p):
        return
    idx = [indices(repeats, total, flags, blk, stride, isz) for blk, stride in p.strides]
    di, sis = idx[0], idx[1:]
    if not _chains(dst, di, srcs, sis):
        xs = [gather(s, si, api) for s, si in zip(srcs, sis, strict=True)]
        mark(dst, di, api)
        out = np.empty(di.size, dst.dtype.np)
        fn(*xs, out=out)
        dst.arr[di] = out
        return
    per = int(flags.sum()) if flags is not None else lanes_per_repeat(isz)
    for r in range(repeats):
        sl = slice(r * per, (r + 1) * per)
        xs = [gather(s, si[sl], api) for s, si in zip(srcs, sis, strict=True)]
        mark(dst, di[sl], api)
        out = np.empty(di[sl].size, dst.dtype.np)
        fn(*xs, out=out)
        dst.arr[di[sl]] = out
