"""The mask/repeat form of vector instructions: its parameters as one typed value (`Repeat`), and the lanes and
per-operand geometry a call touches (`Plan`).

Mask/repeat form ("high-dimension" API): `Op(dst, src..., mask, repeatTimes, repeatParams)`; repeat r touches 8
data blocks of 32 bytes per operand, block b of repeat r starting at `(r * rep_stride + b * blk_stride) * 32`
bytes from the operand, and only the lanes the mask enables (`mask.py`). `repeat_times` is 0..255 (CANN
`MAX_REPEAT_TIMES`, hicann/asc-devkit `impl/basic_api/kernel_operator_vec_*`); in COUNTER mask mode the mask is
the total element count and `repeat_times` does not count (pyasc `docs/python-api/.../copy.md`: "通用的Counter模式：
Mask代表整个矢量计算参与计算的元素个数，迭代次数不生效").

Speed: a `Repeat` is interned (equal calls share one), and keeps the `Plan` of its lanes per element size for
NORMAL-mode calls that set the mask; other calls find their plan by geometry (`plan_of`).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import LO_BITS
from .mask import MaskRegister, lane_flags, lanes_per_repeat, normal_bits

MAX_REPEAT = 255
BLOCK = 32
MAX_PIECES = 4  # lane runs of a mask computed run by run; more runs: boolean lane indexing is cheaper
MAX_PLANS = 4096
MASK = 0xFFFF  # a stride field of Repeat.packed


class Repeat:
    """The mask/repeat parameters of one call, as one typed value.

    `mask`: in NORMAL mode the count of leading lanes (an int) or the lane bits as 64-bit words (low, high);
    in COUNTER mode the element count. `times`: the repeat count. `strides`: per operand, destination first,
    (block stride, repeat stride) in 32-byte blocks. `is_set_mask`: whether the call sets the mask register
    (else it uses the register as it is). Made by `of` (validated and interned: equal calls share one, and with
    it `plans`, their NORMAL-mode Plan per element size) or, from plain numbers, by `packed`.
    """

    __slots__ = ("is_set_mask", "mask", "plans", "strides", "times")

    def __init__(self, mask: Any, times: int, strides: tuple[tuple[int, int], ...], is_set_mask: bool) -> None:
        self.mask, self.times, self.strides, self.is_set_mask = mask, times, strides, is_set_mask
        self.plans: dict[int, Plan] = {}

    @classmethod
    def of(cls, api: str, mask: Any, times: Any, strides: Any, is_set_mask: Any = True) -> Repeat:
        """The Repeat of a call: `strides` is one (block stride, repeat stride) pair per operand, destination first."""
        if is_set_mask not in (True, False):
            raise TypeError(f"asc.{api}: is_set_mask must be True or False, got {is_set_mask!r}")
        m = tuple(int(w) for w in mask) if isinstance(mask, list | tuple) else int(mask)
        key = (m, times, tuple(tuple(p) for p in strides), bool(is_set_mask))
        r = _REPEATS.get(key)
        if r is None:
            t = int(times)
            if not 0 <= t <= MAX_REPEAT:
                fail(api, f"repeat_times must be in 0..{MAX_REPEAT}, got {t}")
            pairs = tuple((int(b), int(s)) for b, s in strides)
            for blk, rep in pairs:
                if blk < 0 or rep < 0:
                    fail(api, f"strides are unsigned block counts, got block stride {blk}, repeat stride {rep}")
            r = Repeat(m, t, pairs, bool(is_set_mask))
            if len(_REPEATS) < MAX_PLANS:
                _REPEATS[key] = r
        return r

    @classmethod
    def packed(cls, api: str, mask: int, times: int, strides: int, operands: int, is_set_mask: bool = True,
               bits: bool = False) -> Repeat:
        """The Repeat of a call made from plain numbers, as a native face has them: `strides` packs 16 bits per
        field, (block stride, repeat stride) per operand, destination first, lowest bits first; with `bits` the
        mask is the lane bits as one 128-bit number (low word first), else a lane or element count."""
        pairs = [((strides >> (32 * k)) & MASK, (strides >> (32 * k + 16)) & MASK) for k in range(operands)]
        m = (mask & (1 << 64) - 1, mask >> 64) if bits else mask
        return cls.of(api, m, times, pairs, is_set_mask)

    def with_strides(self, api: str, strides: Any) -> Repeat:
        """The same call with other operand strides (an instruction whose destination is also a source)."""
        return Repeat.of(api, self.mask, self.times, strides, self.is_set_mask)

    def __repr__(self) -> str:
        return f"Repeat(mask={self.mask!r}, times={self.times}, strides={self.strides}, is_set_mask={self.is_set_mask})"


_REPEATS: dict[tuple, Repeat] = {}


def lanes_of(core: Any, api: str, rep: Repeat, itemsize: int, per_repeat_count: bool = False
             ) -> tuple[int, int, np.ndarray | None]:
    """(repeats, elements, lane flags or None for a count of leading elements) of a mask/repeat call on `core`,
    setting the mask register as the call does.

    `per_repeat_count`: COUNTER mode counts elements per repeat (copy), not in total.
    """
    reg = core.state(MaskRegister)
    lanes = lanes_per_repeat(itemsize)
    if reg.counter:
        if isinstance(rep.mask, tuple):
            fail(api, "in COUNTER mask mode the mask is an element count, not a bit list")
        n = rep.mask if rep.is_set_mask else reg.count
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


def lane_grid(core: Any, api: str, rep: Repeat, itemsize: int) -> np.ndarray:
    """(repeats, lanes) flags of the lanes a mask/repeat call enables, lanes counted in `itemsize` elements
    (the wider operand's when the widths differ: "以数据类型的字节较大的为准")."""
    repeats, total, flags = lanes_of(core, api, rep, itemsize)
    lanes = lanes_per_repeat(itemsize)
    if flags is None:  # COUNTER mode: the first `total` lanes, repeat after repeat
        return (np.arange(repeats * lanes) < total).reshape(repeats, lanes)
    return np.broadcast_to(flags, (repeats, lanes))


def plan_of(core: Any, api: str, rep: Repeat, itemsize: int, per_repeat_count: bool = False) -> Plan:
    """The Plan of a mask/repeat call on `core` (the mask register set as the call sets it): the Repeat's own for
    a NORMAL-mode call that sets the mask, else the one of its geometry."""
    reg = core.units.get(MaskRegister) or core.state(MaskRegister)
    if rep.is_set_mask and not reg.counter and not per_repeat_count:
        p = rep.plans.get(itemsize)
        if p is None:
            repeats, total, flags = lanes_of(core, api, rep, itemsize)
            p = rep.plans[itemsize] = Plan(rep.strides, itemsize, repeats, total, flags, reg.bits)
        else:
            reg.bits = p.bits
        return p
    repeats, total, flags = lanes_of(core, api, rep, itemsize, per_repeat_count)
    key = (rep.strides, itemsize, repeats, total, None if flags is None else flags.tobytes())
    p = _GEOMETRY.get(key)
    if p is None:
        p = Plan(rep.strides, itemsize, repeats, total, flags, 0)
        if len(_GEOMETRY) < MAX_PLANS:
            _GEOMETRY[key] = p
    return p


_GEOMETRY: dict[tuple, Plan] = {}  # by lanes: (strides, element size, repeats, total, lane flags)


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
