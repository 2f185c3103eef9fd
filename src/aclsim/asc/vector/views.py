"""The element-wise engine of the mask/repeat form: `elementwise(core, api, fn, dst, srcs, rep)` runs
`fn(*source values, out=destination values)` over the lanes a call selects.

Repeats run in order: when a destination block is a later repeat's source (repeat stride 0 accumulations),
each repeat sees the previous one's result, as on the hardware. Operands are worked on as strided numpy views,
never index arrays, unless a repeat may read what an earlier one wrote (then element indices, repeat by
repeat). Each operand's static checks and views are remembered in its buffer per plan (`memory.local.Checked`),
a destination keeps its last sources (`Bound`), and "every lane written" holds until the pool's written-flags
are cleared (`Pool.epoch`); liveness, the mask register and the sanitizer's records are done on every call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..memory.local import Checked, LocalTensor, remember
from .lanes import _watched, gather, indices, mark
from .mask import MaskRegister, lanes_per_repeat
from .repeat import BLOCK, BLOCK_ITEM, Plan, Repeat, plan_of

_WORD = {2: np.uint16, 4: np.uint32, 8: np.uint64}  # an element's written-flags bytes read as one word
_WRITTEN = {2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}




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
    plan) and whether their lanes are all written per UB epoch (`memory.local.Checked`); a call with the
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


def elementwise(core: Any, api: str, fn: Callable, dst: LocalTensor, srcs: Sequence[LocalTensor], rep: Repeat,
                per_repeat_count: bool = False) -> None:
    """Run `fn(*source values, out=destination values)` over the elements a mask/repeat call selects on `core`
    (`per_repeat_count`: in COUNTER mode the mask counts elements per repeat, as for copy)."""
    isz = dst.dtype.itemsize
    reg = core.units.get(MaskRegister)
    p = rep.plans.get(isz) if reg is not None and not reg.counter and rep.is_set_mask and not per_repeat_count else None
    if p is not None:  # `plan_of`'s commonest answer, inlined
        reg.bits = p.bits
    else:
        p = plan_of(core, api, rep, isz, per_repeat_count)
    if p.total <= 0 or p.repeats <= 0:
        return
    if p.contiguous:  # the count form's fast path, inline: the commonest mask/repeat call
        n = p.total
        xs = []
        for s in srcs:  # (a loop: a comprehension is a call of its own on Python 3.11)
            xs.append(s.read(n, api))
        fn(*xs, out=dst.write(n, api))
    elif p.views is None or not _strided(api, fn, dst, srcs, p):  # (a few runs of lanes: straight to the views)
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
