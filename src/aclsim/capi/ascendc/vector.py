"""Handlers of vector instructions. The element-wise ones of kinds `binary`, `unary` and `scalar` (ascendc/ops.def)
share three call forms: the count form `(dst, src..., count)`, and the mask/repeat forms with the mask as a lane
count (`FORM_REPEAT`) or as lane bits (`FORM_BITS`): `(dst, src..., mask low, mask high, packed)` with `packed`
as `operands.repeat` reads it. Scalars arrive through the scalar entry (a float; integral tensors take its integer).

Other instructions name their words in their handler's docstring."""

from __future__ import annotations

import ctypes
from typing import Any

from ...asc.engine import TABLE
from ...asc.move.layout import TransDataTo5HDParams, TransposeParamsExt
from ...asc.vector.gather import GatherMaskParams
from ...asc.vector.reduce import ReduceOrder
from ...asc.vector.repeat import Repeat
from ...asc.vector.sort import MrgSort4Info, MrgSortSrcList
from .operands import DTYPES, local, repeat
from .ops import FORM_BITS, FORM_REPEAT, KIND, handles
from .system import signed

_WORDS = ctypes.c_uint64 * 8


def words(ptr: int, n: int) -> list[int]:
    """`n` 64-bit words at address `ptr` (the operands of calls with more than six)."""
    return list(_WORDS.from_address(ptr))[:n]


def scalar_of(t: Any, s: float) -> Any:
    """A scalar operand as the tensor's type takes it: integral tensors the integer."""
    return s if t.dtype.is_float else int(s)


def _binary(name: str) -> None:
    ins = TABLE[name]
    run, api = ins.run, ins.api

    @handles(name)
    def count(core: Any, d: int, a: int, b: int, n: int, *words: Any) -> None:
        run(core, local(core, d), local(core, a), local(core, b), n - ((n >> 63) << 64))

    @handles(name, form=FORM_REPEAT)
    def rep(core: Any, d: int, a: int, b: int, mlo: int, mhi: int, packed: int) -> None:
        run(core, local(core, d), local(core, a), local(core, b), repeat(api, 3, mlo, mhi, packed, False))

    @handles(name, form=FORM_BITS)
    def bits(core: Any, d: int, a: int, b: int, mlo: int, mhi: int, packed: int) -> None:
        run(core, local(core, d), local(core, a), local(core, b), repeat(api, 3, mlo, mhi, packed, True))


def _unary(name: str) -> None:
    ins = TABLE[name]
    run, api = ins.run, ins.api

    @handles(name)
    def count(core: Any, d: int, a: int, n: int, *words: Any) -> None:
        run(core, local(core, d), local(core, a), n - ((n >> 63) << 64))

    @handles(name, form=FORM_REPEAT)
    def rep(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, *words: Any) -> None:
        run(core, local(core, d), local(core, a), repeat(api, 2, mlo, mhi, packed, False))

    @handles(name, form=FORM_BITS)
    def bits(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, *words: Any) -> None:
        run(core, local(core, d), local(core, a), repeat(api, 2, mlo, mhi, packed, True))


def _scalar(name: str) -> None:
    ins = TABLE[name]
    run, api = ins.run, ins.api

    @handles(name)
    def count(core: Any, d: int, a: int, n: int, sw: int, first: int, s: float) -> None:
        """Words dst, src, count; then, for the flexible scalar position, the tensor whose first element is the
        scalar (0: the value `s`) and 1 if the scalar is the left operand."""
        dst = local(core, d)
        scalar = local(core, sw) if sw else s if dst.dtype.is_float else int(s)
        if first or sw:  # (only the flexible family takes scalar_first: Axpy, also of this kind, does not)
            run(core, dst, local(core, a), scalar, n - ((n >> 63) << 64), bool(first))
        else:
            run(core, dst, local(core, a), scalar, n - ((n >> 63) << 64))

    @handles(name, form=FORM_REPEAT)
    def rep(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, s: float) -> None:
        dst = local(core, d)
        run(core, dst, local(core, a), scalar_of(dst, s), repeat(api, 2, mlo, mhi, packed, False))

    @handles(name, form=FORM_BITS)
    def bits(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, s: float) -> None:
        dst = local(core, d)
        run(core, dst, local(core, a), scalar_of(dst, s), repeat(api, 2, mlo, mhi, packed, True))


for _name, _kind in KIND.items():
    {"binary": _binary, "unary": _unary, "scalar": _scalar}.get(_kind, lambda n: None)(_name)


def _form(api: str, operands: int, n: int, mlo: int, mhi: int, packed: int, form: int) -> Any:
    """The count or Repeat of a call in `form`."""
    if form == 0:
        return signed(n)
    return repeat(api, operands, mlo, mhi, packed, form == FORM_BITS)


# ------------------------------------------------------------------------------------------ mask register
@handles("SetVectorMask")
def _set_mask(core: Any, length: int, code: int, mode: int, *words: Any) -> None:
    """SetVectorMask<T, mode>(len)."""
    TABLE["SetVectorMask"].run(core, length, DTYPES[code], mode)


@handles("SetVectorMaskBits")
def _set_mask_bits(core: Any, high: int, low: int, code: int, mode: int, *words: Any) -> None:
    """SetVectorMask<T, mode>(maskHigh, maskLow)."""
    TABLE["SetVectorMask(maskHigh, maskLow)"].run(core, high, low, DTYPES[code], mode)


# ------------------------------------------------------------------------------------------ fills, copies, casts
def _duplicate(form: int) -> None:
    run = TABLE["Duplicate"].run

    @handles("Duplicate", form=form)
    def handler(core: Any, d: int, n: int, mlo: int, mhi: int, packed: int, s: float) -> None:
        """Duplicate(dst, scalar, count) or (dst, scalar, mask, repeatTime, dstBlkStride, dstRepStride): words
        dst, count (count form) or dst, -, mask low, mask high, packed (one operand's strides)."""
        dst = local(core, d)
        run(core, dst, scalar_of(dst, s), _form("duplicate", 1, n, mlo, mhi, packed, form))


def _cast(form: int) -> None:
    run = TABLE["Cast"].run

    @handles("Cast", form=form)
    def handler(core: Any, d: int, a: int, mode: int, n: int, mlo: int, packed: int) -> None:
        """Cast(dst, src, roundMode, count) or (..., mask, repeatTime, UnaryRepeatParams): words dst, src,
        roundMode, count / mask high, mask low, packed."""
        run(core, local(core, d), local(core, a), mode, _form("cast", 2, n, mlo, n, packed, form))


def _compare(form: int) -> None:
    run = TABLE["Compare"].run

    @handles("Compare", form=form)
    def handler(core: Any, d: int, a: int, b: int, n: int, mlo: int, packed: int) -> None:
        """Compare(dst, src0, src1, cmpMode, count) or (..., mask, repeatTime, BinaryRepeatParams): words dst, src0,
        src1, count / mask high, mask low, packed; cmpMode in packed bits 9-11."""
        rep = _form("compare", 3, n, mlo, n, packed, form)
        run(core, local(core, d), local(core, a), local(core, b), (packed >> 9) & 7, rep)


def _compare_scalar(form: int) -> None:
    run = TABLE["CompareScalar"].run

    @handles("CompareScalar", form=form)
    def handler(core: Any, d: int, a: int, n: int, mlo: int, packed: int, s: float) -> None:
        """CompareScalar(dst, src0, scalar, cmpMode, count / mask, repeatTime, UnaryRepeatParams): words dst, src0,
        count / mask high, mask low, packed; cmpMode in packed bits 9-11, bit 12: the scalar is the left operand
        (Compares with the flexible scalar position)."""
        src = local(core, a)
        rep = _form("compare_scalar", 2, n, mlo, n, packed, form)
        run(core, local(core, d), src, scalar_of(src, s), (packed >> 9) & 7, rep, bool(packed >> 12 & 1))

    @handles("CompareScalarAt", form=form)
    def at(core: Any, d: int, a: int, sw: int, n: int, mlo: int, packed: int) -> None:
        """Compares with the flexible scalar position whose scalar is the first element of the tensor `sw`."""
        rep = _form("compare_scalar", 2, n, mlo, n, packed, form)
        run(core, local(core, d), local(core, a), local(core, sw), (packed >> 9) & 7, rep, bool(packed >> 12 & 1))


def _select(form: int) -> None:
    run = TABLE["Select"].run

    @handles("Select", form=form)
    def handler(core: Any, d: int, m: int, a: int, b: int, spec: int, s: float) -> None:
        """Select(dst, selMask, src0, src1 or scalar, selMode, count / mask, repeatTime, BinaryRepeatParams): words
        dst, selMask, src0 and src1 (0: the scalar `s`; in VSEL_TENSOR_SCALAR_MODE a tensor there stands for its
        first element), spec = the address of [count or mask high, mask low, packed]; selMode in packed bits
        9-11, bit 12: the scalar is src0 (the flexible scalar position)."""
        n, mlo, packed = words(spec, 3)
        dst = local(core, d)
        src0 = local(core, a) if a else scalar_of(dst, s)
        src1 = local(core, b) if b else scalar_of(dst, s)
        rep = _form("select", 3, n, mlo, n, packed, form)
        run(core, dst, local(core, m), src0, src1, (packed >> 9) & 7, rep, bool(packed >> 12 & 1))


for _f in (0, FORM_REPEAT, FORM_BITS):
    _duplicate(_f)
    _cast(_f)
    _compare(_f)
    _compare_scalar(_f)
    _select(_f)


@handles("CompareMask", form=FORM_REPEAT)
def _compare_mask(core: Any, a: int, b: int, mlo: int, mhi: int, packed: int, *words: Any) -> None:
    """Compare(src0, src1, cmpMode, mask, BinaryRepeatParams): one repeat's bits into the CMPMASK register
    (cmpMode in packed bits 9-11)."""
    rep = repeat("compare", 3, mlo, mhi, packed & ~(7 << 9), False)
    TABLE["Compare(cmpMask)"].run(core, local(core, a), local(core, b), (packed >> 9) & 7, rep)


@handles("GetCmpMask")
def _get_cmp_mask(core: Any, d: int, *words: Any) -> None:
    TABLE["GetCmpMask"].run(core, local(core, d))


@handles("SetCmpMask")
def _set_cmp_mask(core: Any, a: int, *words: Any) -> None:
    TABLE["SetCmpMask"].run(core, local(core, a))


@handles("CreateVecIndex")
def _create_vec_index(core: Any, d: int, n: int, _c: int, _d: int, _e: int, first: float) -> None:
    """CreateVecIndex(dst, firstValue, count) (the scalar entry: firstValue)."""
    dst = local(core, d)
    TABLE["CreateVecIndex"].run(core, dst, scalar_of(dst, first), signed(n))


@handles("Copy", form=FORM_REPEAT)
def _copy(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, p: int) -> None:
    """Copy(dst, src, mask, repeatTime, CopyRepeatParams): p = dstStride | srcStride << 16 | dstRepeatSize << 32 |
    srcRepeatSize << 48."""
    _copy_run(core, d, a, mlo, mhi, packed, p, False)


@handles("Copy", form=FORM_BITS)
def _copy_bits(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, p: int) -> None:
    _copy_run(core, d, a, mlo, mhi, packed, p, True)


def _copy_run(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, p: int, bits: bool) -> None:
    strides = [(p & 0xFFFF, (p >> 32) & 0xFFFF), ((p >> 16) & 0xFFFF, p >> 48)]
    rep = Repeat.of("copy", (mlo, mhi) if bits else mlo, packed & 0xFF, strides, bool(packed >> 8 & 1))
    TABLE["Copy"].run(core, local(core, d), local(core, a), rep)


@handles("Brcb")
def _brcb(core: Any, d: int, a: int, times: int, p: int, *words: Any) -> None:
    """Brcb(dst, src0, repeatTime, BrcbRepeatParams{dstBlkStride, dstRepStride}): p = blk | rep << 16."""
    rep = Repeat.of("brcb", 0, times, [(p & 0xFFFF, (p >> 16) & 0xFFFF)])
    TABLE["Brcb"].run(core, local(core, d), local(core, a), rep)


# ------------------------------------------------------------------------------------------ reductions
_WHOLE = {0: TABLE["WholeReduceSum"].run, 1: TABLE["WholeReduceMax"].run, 2: TABLE["WholeReduceMin"].run}
_BLOCK = {0: TABLE["BlockReduceSum"].run, 1: TABLE["BlockReduceMax"].run, 2: TABLE["BlockReduceMin"].run}


def _reduce_repeat(api: str, mlo: int, mhi: int, packed: int, bits: bool) -> tuple[Repeat, int]:
    """(Repeat of the source, dstRepStride) of packed = times | isSetMask << 8 | srcBlkStride << 16 |
    srcRepStride << 32 | dstRepStride << 48 (uint16 each)."""
    rep = Repeat.of(api, (mlo, mhi) if bits else mlo, packed & 0xFF, [((packed >> 16) & 0xFFFF, (packed >> 32) & 0xFFFF)],
                    bool(packed >> 8 & 1))
    return rep, packed >> 48


def _whole(form: int) -> None:
    @handles("WholeReduce", form=form)
    def handler(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, which: int) -> None:
        """WholeReduceSum/Max/Min(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride[, order]):
        which = 0 sum, 1 max, 2 min | order << 8."""
        api = ("whole_reduce_sum", "whole_reduce_max", "whole_reduce_min")[which & 3]
        rep, dst_rep = _reduce_repeat(api, mlo, mhi, packed, form == FORM_BITS)
        extra = () if which & 3 == 0 else (ReduceOrder(which >> 8),)
        _WHOLE[which & 3](core, local(core, d), local(core, a), rep, dst_rep, *extra)

    @handles("BlockReduce", form=form)
    def block(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, which: int) -> None:
        """BlockReduceSum/Max/Min(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride)."""
        api = ("block_reduce_sum", "block_reduce_max", "block_reduce_min")[which & 3]
        rep, dst_rep = _reduce_repeat(api, mlo, mhi, packed, form == FORM_BITS)
        _BLOCK[which & 3](core, local(core, d), local(core, a), rep, dst_rep)

    @handles("PairReduceSum", form=form)
    def pair(core: Any, d: int, a: int, mlo: int, mhi: int, packed: int, *words: Any) -> None:
        rep, dst_rep = _reduce_repeat("pair_reduce_sum", mlo, mhi, packed, form == FORM_BITS)
        TABLE["PairReduceSum"].run(core, local(core, d), local(core, a), rep, dst_rep)


for _f in (FORM_REPEAT, FORM_BITS):
    _whole(_f)


@handles("RepeatReduceSum", form=FORM_REPEAT)
def _repeat_reduce_sum(core: Any, d: int, a: int, mask: int, packed: int, *words: Any) -> None:
    """RepeatReduceSum(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)."""
    rep, dst_rep = _reduce_repeat("repeat_reduce_sum", mask, 0, packed, False)
    TABLE["RepeatReduceSum"].run(core, local(core, d), local(core, a), rep, dst_rep)


_REDUCE = {0: TABLE["ReduceSum"].run, 1: TABLE["ReduceMax"].run, 2: TABLE["ReduceMin"].run}


def _reduce(form: int) -> None:
    @handles("Reduce", form=form)
    def handler(core: Any, d: int, a: int, tmp: int, n: int, mhi: int, spec: int) -> None:
        """ReduceSum/Max/Min(dst, src, tmp, count[, calIndex]) or (..., mask, repeatTime, srcRepStride[, calIndex]):
        words dst, src, tmp, count / mask low, mask high, spec = which (0 sum, 1 max, 2 min) | calIndex << 2 |
        repeatTime << 8 | srcRepStride << 16."""
        which = spec & 3
        api = ("reduce_sum", "reduce_max", "reduce_min")[which]
        if form == 0:
            rep: Any = signed(n)
        else:
            rep = Repeat.of(api, (n, mhi) if form == FORM_BITS else n, (spec >> 8) & 0xFF, [(1, (spec >> 16) & 0xFFFF)])
        extra = () if which == 0 else (bool(spec >> 2 & 1),)
        _REDUCE[which](core, local(core, d), local(core, a), local(core, tmp), rep, *extra)


for _f in (0, FORM_REPEAT, FORM_BITS):
    _reduce(_f)


# ------------------------------------------------------------------------------------------ gathers
def _indexed(form: int) -> None:
    for name in ("Gather", "Scatter"):
        run = TABLE[name].run
        api = name.lower()

        @handles(name, form=form)
        def handler(core: Any, d: int, a: int, off: int, base: int, n: int, packed: int, run: Any = run,
                    api: str = api) -> None:
            """Gather/Scatter(dst, src, offset, base, count) or (..., mask, repeatTimes, dstRepStride): words dst,
            src, offset, base, count / mask low (FORM_BITS: the address of [low, high]), packed = repeatTimes |
            dstRepStride << 16."""
            if form == 0:
                rep: Any = signed(n)
            else:
                mask = tuple(words(n, 2)) if form == FORM_BITS else n
                rep = Repeat.of(api, mask, packed & 0xFF, [(1, (packed >> 16) & 0xFFFF)])
            run(core, local(core, d), local(core, a), local(core, off), base, rep)


for _f in (0, FORM_REPEAT, FORM_BITS):
    _indexed(_f)


@handles("Gatherb")
def _gatherb(core: Any, d: int, a: int, off: int, times: int, p: int, *words: Any) -> None:
    """Gatherb(dst, src0, offset, repeatTime, GatherRepeatParams{dstBlkStride, dstRepStride}): p = blk | rep << 16."""
    rep = Repeat.of("gatherb", 0, times, [(p & 0xFFFF, (p >> 16) & 0xFFFF)])
    TABLE["Gatherb"].run(core, local(core, d), local(core, a), local(core, off), rep)


@handles("GatherMask")
def _gather_mask(core: Any, d: int, a: int, pattern: int, spec: int, p: int, *words: Any) -> int:
    """GatherMask(dst, src0, src1Pattern (a tensor word, or 1..7 a built-in pattern), reduceMode, mask, params,
    rsvdCnt): spec = reduceMode | mode << 1 | mask << 32; p = src0BlockStride | repeatTimes << 16 |
    src0RepeatStride << 32 | src1RepeatStride << 48 (uint16 each). Returns rsvdCnt."""
    src1: Any = pattern if spec & 0x10 else local(core, pattern)
    params = GatherMaskParams(p & 0xFFFF, (p >> 16) & 0xFFFF, (p >> 32) & 0xFFFF, (p >> 48) & 0xFFFF)
    return TABLE["GatherMask"].run(core, local(core, d), local(core, a), src1, bool(spec & 1), spec >> 32, params,
                                   (spec >> 1) & 7)


# ------------------------------------------------------------------------------------------ layout
@handles("Transpose")
def _transpose(core: Any, d: int, a: int, *words: Any) -> None:
    TABLE["Transpose"].run(core, local(core, d), local(core, a))


@handles("TransposeExt")
def _transpose_ext(core: Any, d: int, a: int, tmp: int, nc: int, hw: int, kind: int) -> None:
    """Transpose(dst, src, sharedTmpBuffer, TransposeParamsExt): nc = nSize | cSize << 32, hw = hSize | wSize << 32."""
    params = TransposeParamsExt(nc & 0xFFFFFFFF, nc >> 32, hw & 0xFFFFFFFF, hw >> 32, kind)
    TABLE["Transpose(TransposeParamsExt)"].run(core, local(core, d), local(core, a), local(core, tmp), params)


@handles("TransDataTo5HD")
def _five_hd(core: Any, lists: int, kind: int, p: int, _code: int, src: int, *words: Any) -> None:
    """TransDataTo5HD: kind 0: `lists` points at 16 + 16 UB addresses (GetPhyAddr's, real memory), 1: at 16 + 16
    tensor words, 2: `lists` and `src` are uint64 tensors of UB offsets. p: the params word (five_hd_word)."""
    params = TransDataTo5HDParams(bool(p & 1), bool(p & 2), (p >> 8) & 0xFF, (p >> 16) & 0xFFFF, (p >> 32) & 0xFFFF)
    run = TABLE["TransDataTo5HD"].run
    if kind == 2:
        return run(core, local(core, lists), local(core, src), params)
    words = list((ctypes.c_uint64 * 32).from_address(lists))
    if kind == 1:
        run(core, [local(core, w) for w in words[:16]], [local(core, w) for w in words[16:]], params)
        return None
    base = core.pool("UB").bytes.ctypes.data  # the engine's address lists are UB byte offsets
    run(core, [a - base for a in words[:16]], [a - base for a in words[16:]], params)
    return None


# ------------------------------------------------------------------------------------------ sorting
@handles("Sort32")
def _sort32(core: Any, d: int, a: int, b: int, times: int, *words: Any) -> None:
    TABLE["Sort32"].run(core, local(core, d), local(core, a), local(core, b), times)


@handles("Sort")
def _sort(core: Any, d: int, concat: int, index: int, tmp: int, times: int, full: int) -> None:
    TABLE["Sort"].run(core, local(core, d), local(core, concat), local(core, index), local(core, tmp), times,
                      bool(full))


def _sources(core: Any, ptr: int) -> MrgSortSrcList:
    return MrgSortSrcList(*(local(core, w) for w in words(ptr, 4) if w))


def _info(p: int, q: int) -> MrgSort4Info:
    """MrgSort4Info: p = the four queue lengths (uint16 each); q = ifExhaustedSuspension | validBit << 8 |
    repeatTimes << 16."""
    return MrgSort4Info([(p >> (16 * i)) & 0xFFFF for i in range(4)], bool(q & 1), (q >> 8) & 0xFF, (q >> 16) & 0xFFFF)


@handles("MrgSort")
def _mrg_sort(core: Any, d: int, srcs: int, p: int, q: int, out: int, *words: Any) -> None:
    """MrgSort(dst, MrgSortSrcList, MrgSort4Info): srcs = the address of four tensor words (0: absent); `out`, when
    not 0, the address of four uint16 receiving the records taken from each queue."""
    used = TABLE["MrgSort"].run(core, local(core, d), _sources(core, srcs), _info(p, q))
    if out and used is not None:
        arr = (ctypes.c_uint16 * 4).from_address(out)
        for i, u in enumerate(list(used)[:4]):
            arr[i] = int(u)


@handles("MrgSort4")
def _mrg_sort4(core: Any, d: int, srcs: int, p: int, q: int, *words: Any) -> None:
    TABLE["MrgSort4"].run(core, local(core, d), _sources(core, srcs), _info(p, q))


@handles("ProposalConcat")
def _concat(core: Any, d: int, a: int, times: int, mode: int, *words: Any) -> None:
    TABLE["ProposalConcat"].run(core, local(core, d), local(core, a), times, mode)


@handles("ProposalExtract")
def _extract(core: Any, d: int, a: int, times: int, mode: int, *words: Any) -> None:
    TABLE["ProposalExtract"].run(core, local(core, d), local(core, a), times, mode)


@handles("RpSort16")
def _rp_sort16(core: Any, d: int, a: int, times: int, *words: Any) -> None:
    TABLE["RpSort16"].run(core, local(core, d), local(core, a), times)
