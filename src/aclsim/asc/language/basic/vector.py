"""pyasc's vector instructions (`asc.add`, `asc.cast`, `asc.whole_reduce_sum`, ...): their call forms, each sent to
the instruction of the engine's table (aclsim.asc.vector). Signatures: hicann/pyasc `python/asc/language/basic/`
`vec_binary.py`, `vec_binary_scalar.py`, `vec_unary.py`, `vec_ternary_scalar.py`, `vec_duplicate.py`,
`vec_brcb.py`, `vec_vconv.py`, `vec_cmpsel.py`, `vec_reduce.py`, `vec_gather.py`, `vec_gather_mask.py`,
`vec_scatter.py`, `proposal.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...engine import TABLE
from ...faults import not_emulated
from ...memory.local import LocalTensor
from ...table import Instruction
from ...types.enums import MaskMode
from ...types.params import BinaryRepeatParams, BrcbRepeatParams, CopyRepeatParams, UnaryRepeatParams
from ...vector.fused import VdeqInfo
from ...vector.gather import GatherMaskMode, GatherMaskParams, GatherRepeatParams
from ...vector.reduce import ReduceOrder
from ...vector.repeat import Repeat
from ...vector.sort import MrgSort4Info, MrgSortSrcList
from .forms import CALLS, direct, form, named, repeat, running


def binary(ins: Instruction, params: type = BinaryRepeatParams) -> Any:
    """`op(dst, src0, src1, count[, is_set_mask])` or `op(dst, src0, src1, mask, repeat_times, params[, is_set_mask])`."""
    run, api, calls = ins.run, ins.api, CALLS

    def face(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
        core = dst.buf.pool.core  # the core the destination's memory belongs to: the running one
        n = len(args)
        if n == 1 and not kwargs:  # the count form: the hot path
            run(core, dst, src0, src1, args[0])
        elif n == 3 and not kwargs and type(args[2]) is params:  # `repeat`'s memo, inlined
            mask, rp = args[0], args[2]
            kind = type(mask)
            r = calls.get((mask if kind is int else tuple(mask) if kind is list or kind is tuple else None, args[1],
                           params, *rp.__dict__.values(), True))
            run(core, dst, src0, src1, r if r is not None else repeat(api, mask, args[1], rp, params))
        else:
            run(core, dst, src0, src1, form(api, args, kwargs, params))

    return named(face, ins)


def unary(ins: Instruction) -> Any:
    """`op(dst, src, count)` or `op(dst, src, mask, repeat_times, UnaryRepeatParams[, is_set_mask])`."""
    run, api = ins.run, ins.api

    def face(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
        core = dst.buf.pool.core  # the core the destination's memory belongs to: the running one
        if len(args) == 1 and not kwargs:
            run(core, dst, src, args[0])
        else:
            run(core, dst, src, form(api, args, kwargs, UnaryRepeatParams))

    return named(face, ins)


def with_scalar(ins: Instruction) -> Any:
    """`op(dst, src, scalar, count)` or `op(dst, src, scalar, mask, repeat_times, UnaryRepeatParams[, is_set_mask])`."""
    run, api = ins.run, ins.api

    def face(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
        core = dst.buf.pool.core  # the core the destination's memory belongs to: the running one
        if len(args) == 1 and not kwargs:
            run(core, dst, src, scalar, args[0])
        else:
            run(core, dst, src, scalar, form(api, args, kwargs, UnaryRepeatParams))

    return named(face, ins)


add, sub, mul, div, max, min, bitwise_and, bitwise_or, add_relu, sub_relu = (
    binary(TABLE[k]) for k in ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "AddRelu", "SubRelu"))
mul_add_dst, fused_mul_add, fused_mul_add_relu = (
    binary(TABLE[k]) for k in ("MulAddDst", "FusedMulAdd", "FusedMulAddRelu"))
exp, ln, abs, relu, sqrt, rsqrt, reciprocal, bitwise_not = (
    unary(TABLE[k]) for k in ("Exp", "Ln", "Abs", "Relu", "Sqrt", "Rsqrt", "Reciprocal", "Not"))
adds, muls, maxs, mins, leaky_relu, shift_left, shift_right, axpy = (
    with_scalar(TABLE[k]) for k in ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "ShiftLeft", "ShiftRight", "Axpy"))
add_relu_cast, sub_relu_cast, mul_cast, add_deq_relu = (
    binary(TABLE[k]) for k in ("AddReluCast", "SubReluCast", "MulCast", "AddDeqRelu"))


def copy(dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int, repeat_params: CopyRepeatParams,
         is_set_mask: bool = True) -> None:
    api = "copy"
    TABLE["Copy"].run(running(api), dst, src, repeat(api, mask, repeat_time, repeat_params, CopyRepeatParams,
                                                     is_set_mask))


def brcb(dst: LocalTensor, src0: LocalTensor, repeat_times: int, repeat_params: BrcbRepeatParams) -> None:
    api = "brcb"
    if not isinstance(repeat_params, BrcbRepeatParams):
        raise TypeError(f"asc.brcb: repeat_params must be asc.BrcbRepeatParams, got {type(repeat_params).__name__}")
    rep = Repeat.of(api, 0, repeat_times, [(repeat_params.dst_blk_stride, repeat_params.dst_rep_stride)])
    TABLE["Brcb"].run(running(api), dst, src0, rep)


def duplicate(dst: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """`(dst, scalar, count)` or `(dst, scalar, mask, repeat_times, dst_block_stride, dst_repeat_stride[, is_set_mask])`."""
    api = "duplicate"
    TABLE["Duplicate"].run(running(api), dst, scalar, form(api, args, kwargs, None))


def cast(dst: LocalTensor, src: LocalTensor, round_mode: int, *args: Any, **kwargs: Any) -> None:
    """`(dst, src, round_mode, count)` or `(dst, src, round_mode, mask, repeat_times, UnaryRepeatParams[, is_set_mask])`."""
    api = "cast"
    TABLE["Cast"].run(running(api), dst, src, round_mode, form(api, args, kwargs, UnaryRepeatParams))


def compare(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, cmp_mode: int, *args: Any, **kwargs: Any) -> None:
    """`(dst, src0, src1, cmp_mode, count)` or `(..., mask, repeat_times, BinaryRepeatParams[, is_set_mask])`."""
    api = "compare"
    if not isinstance(src1, LocalTensor):  # compare(src0, src1, cmp_mode, mask, repeat_params)
        raise not_emulated("asc.compare into the cmpMask register")
    TABLE["Compare"].run(running(api), dst, src0, src1, cmp_mode, form(api, args, kwargs, BinaryRepeatParams))


def compare_scalar(dst: LocalTensor, src0: LocalTensor, src1_scalar: Any, cmp_mode: int, *args: Any,
                   **kwargs: Any) -> None:
    """`(dst, src0, scalar, cmp_mode, count)` or `(..., mask, repeat_times, UnaryRepeatParams[, is_set_mask])`."""
    api = "compare_scalar"
    TABLE["CompareScalar"].run(running(api), dst, src0, src1_scalar, cmp_mode,
                               form(api, args, kwargs, UnaryRepeatParams))


def select(dst: LocalTensor, sel_mask: LocalTensor, src0: LocalTensor, src1: Any, sel_mode: int, *args: Any,
           **kwargs: Any) -> None:
    """`(dst, sel_mask, src0, src1, sel_mode, count)` or `(..., mask, repeat_times, BinaryRepeatParams[, is_set_mask])`."""
    api = "select"
    if isinstance(sel_mode, BinaryRepeatParams):  # select(dst, src0, src1, repeat_times, repeat_params, sel_mode)
        raise not_emulated("asc.select with the cmpMask register")
    TABLE["Select"].run(running(api), dst, sel_mask, src0, src1, sel_mode, form(api, args, kwargs, BinaryRepeatParams))


def cast_deq(dst: LocalTensor, src: LocalTensor, *args: Any, is_vec_deq: bool = True, half_block: bool = True,
             **kwargs: Any) -> None:
    """`(dst, src, count[, is_vec_deq, half_block])` or `(dst, src, mask, repeat_times, UnaryRepeatParams[, is_set_mask]
    [, is_vec_deq, half_block])`."""
    api = "cast_deq"
    is_repeat = (len(args) >= 3 and isinstance(args[2], UnaryRepeatParams)) or "repeat_params" in kwargs
    lead = 4 if is_repeat else 1  # (mask, repeat_times, repeat_params, is_set_mask) or (count), then the two flags
    if len(args) > lead:
        is_vec_deq, half_block = (*args[lead:], half_block)[:2]
        args = args[:lead]
    TABLE["CastDeq"].run(running(api), dst, src, form(api, args, kwargs, UnaryRepeatParams), is_vec_deq, half_block)


def set_deq_scale(*args: Any) -> None:
    """`set_deq_scale(scale)`, `set_deq_scale(scale, offset, sign_mode)` or `set_deq_scale(vdeq, vdeq_info)`."""
    api = "set_deq_scale"
    core = running(api)
    if len(args) == 2 and isinstance(args[0], LocalTensor):
        if not isinstance(args[1], VdeqInfo):
            raise TypeError(f"asc.{api}(vdeq, vdeq_info): vdeq_info must be asc.VdeqInfo, got {type(args[1]).__name__}")
        TABLE["SetDeqScale(VdeqInfo)"].run(core, *args)
    elif len(args) in (1, 3) and not isinstance(args[0], LocalTensor):
        TABLE["SetDeqScale"].run(core, *args)
    else:
        raise TypeError("asc.set_deq_scale(scale), (scale, offset, sign_mode) or (vdeq: LocalTensor, "
                        "vdeq_info: VdeqInfo)")


# -- the mask register --------------------------------------------------------------------------------------
def set_vector_mask(*args: Any, dtype: Any, mode: int = MaskMode.NORMAL) -> None:
    """`set_vector_mask(length, dtype=, mode=)` or `set_vector_mask(mask_high, mask_low, dtype=, mode=)`."""
    api = "set_vector_mask"
    if len(args) == 1:
        TABLE["SetVectorMask"].run(running(api), args[0], dtype, mode)
    elif len(args) == 2:
        TABLE["SetVectorMask(maskHigh, maskLow)"].run(running(api), args[0], args[1], dtype, mode)
    else:
        raise TypeError("asc.set_vector_mask(length, dtype=, mode=) or (mask_high, mask_low, dtype=, mode=)")


reset_mask, set_mask_count, set_mask_norm = (direct(TABLE[k]) for k in ("ResetMask", "SetMaskCount", "SetMaskNorm"))
get_cmp_mask, set_cmp_mask = (direct(TABLE[k]) for k in ("GetCmpMask", "SetCmpMask"))


# -- reductions ---------------------------------------------------------------------------------------------
def _whole(key: str) -> Any:
    ins = TABLE[key]
    extreme = key != "WholeReduceSum"

    def face(dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int, dst_rep_stride: int,
             src_blk_stride: int, src_rep_stride: int, *rest: Any, **kwargs: Any) -> None:
        api = ins.api
        names = ("order", "is_set_mask") if extreme else ("is_set_mask",)
        got = dict(zip(names, rest, strict=False))
        got.update(kwargs)
        if len(rest) > len(names) or set(got) - set(names):
            raise TypeError(f"asc.{api}: unexpected arguments {rest[len(names):] or sorted(set(got) - set(names))}")
        rep = Repeat.of(api, mask, repeat_time, [(src_blk_stride, src_rep_stride)], got.get("is_set_mask", True))
        if extreme:
            ins.run(running(api), dst, src, rep, dst_rep_stride, got.get("order", ReduceOrder.ORDER_VALUE_INDEX))
        else:
            ins.run(running(api), dst, src, rep, dst_rep_stride)

    return named(face, ins)


whole_reduce_sum, whole_reduce_max, whole_reduce_min = (
    _whole(k) for k in ("WholeReduceSum", "WholeReduceMax", "WholeReduceMin"))


def repeat_reduce_sum(dst: LocalTensor, src: LocalTensor, repeat_time: int, mask: int, dst_blk_stride: int,
                      src_blk_stride: int, dst_rep_stride: int, src_rep_stride: int, is_set_mask: bool = True) -> None:
    """whole_reduce_sum with a continuous mask (dst_blk_stride has no effect, as documented)."""
    api = "repeat_reduce_sum"
    if isinstance(mask, list | tuple):
        raise TypeError(f"asc.{api}: the mask is a count of leading lanes (an int), got {mask!r}")
    rep = Repeat.of(api, mask, repeat_time, [(src_blk_stride, src_rep_stride)], is_set_mask)
    TABLE["RepeatReduceSum"].run(running(api), dst, src, rep, dst_rep_stride)


def _grouped(key: str) -> Any:
    ins = TABLE[key]

    def face(dst: LocalTensor, src: LocalTensor, repeat: int, mask: Any, dst_rep_stride: int, src_blk_stride: int,
             src_rep_stride: int, is_set_mask: bool = True) -> None:
        rep = Repeat.of(ins.api, mask, repeat, [(src_blk_stride, src_rep_stride)], is_set_mask)
        ins.run(running(ins.api), dst, src, rep, dst_rep_stride)

    return named(face, ins)


block_reduce_sum, block_reduce_max, block_reduce_min, pair_reduce_sum = (
    _grouped(k) for k in ("BlockReduceSum", "BlockReduceMax", "BlockReduceMin", "PairReduceSum"))


def _count(count: int, cal_index: bool = False) -> tuple:
    return count, cal_index


def _masked(mask: Any, repeat_time: int, src_rep_stride: int, cal_index: bool = False) -> tuple:
    return mask, repeat_time, src_rep_stride, cal_index


def _reduce(key: str) -> Any:
    ins = TABLE[key]

    def face(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, *args: Any, **kwargs: Any) -> None:
        api = ins.api
        masked = len(args) >= 3 or "mask" in kwargs or "repeat_time" in kwargs
        binder = _masked if masked else _count
        try:
            got = binder(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"asc.{api}: {str(e).replace(binder.__name__ + '()', '')}; the forms are (dst, src, "
                            "shared_tmp_buffer, count[, cal_index]) and (..., mask, repeat_time, src_rep_stride"
                            "[, cal_index])") from None
        cal_index = got[-1]
        if api == "reduce_sum" and cal_index:
            raise TypeError("asc.reduce_sum takes no cal_index")
        if not isinstance(shared_tmp_buffer, LocalTensor):
            raise TypeError(f"asc.{api}: shared_tmp_buffer must be a LocalTensor")
        n = Repeat.of(api, got[0], got[1], [(1, got[2])]) if masked else got[0]
        extra = () if api == "reduce_sum" else (cal_index,)
        ins.run(running(api), dst, src, shared_tmp_buffer, n, *extra)

    return named(face, ins)


reduce_sum, reduce_max, reduce_min = (_reduce(k) for k in ("ReduceSum", "ReduceMax", "ReduceMin"))


# -- gather / scatter ---------------------------------------------------------------------------------------
def _rep_form(mask: Any, repeat_times: int, rep_stride: int) -> tuple:
    return mask, repeat_times, rep_stride


def _indexed(key: str) -> Any:
    ins = TABLE[key]

    def face(dst: LocalTensor, src: LocalTensor, offset: LocalTensor, base: int, *args: Any, **kwargs: Any) -> None:
        """`(count)` or `(mask, repeat_times, rep_stride)`."""
        api = ins.api
        if len(args) >= 2 or kwargs.keys() - {"count"}:
            try:
                mask_, times, stride = _rep_form(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"asc.{api}: {str(e).replace('_rep_form()', '')}; the forms are (..., count) and "
                                "(..., mask, repeat_times, rep_stride)") from None
            n: Any = Repeat.of(api, mask_, times, [(1, stride)])
        else:
            n = form(api, args, kwargs, None)
        ins.run(running(api), dst, src, offset, base, n)

    return named(face, ins)


gather = _indexed("Gather")
scatter = _indexed("Scatter")


def gatherb(dst: LocalTensor, src0: LocalTensor, offset: LocalTensor, repeat_times: int,
            repeat_params: GatherRepeatParams) -> None:
    api = "gatherb"
    if not isinstance(repeat_params, GatherRepeatParams):
        raise TypeError(f"asc.{api}: repeat_params must be asc.GatherRepeatParams, got {type(repeat_params).__name__}")
    rep = Repeat.of(api, 0, repeat_times, [(repeat_params.dst_blk_stride, repeat_params.dst_rep_stride)])
    TABLE["Gatherb"].run(running(api), dst, src0, offset, rep)


def gather_mask(dst: LocalTensor, src0: LocalTensor, src1_pattern: Any, reduce_mode: bool, mask: int,
                params: GatherMaskParams, gather_mask_mode: int = GatherMaskMode.DEFAULT) -> int:
    api = "gather_mask"
    if not isinstance(params, GatherMaskParams):
        raise TypeError(f"asc.{api}: params must be asc.GatherMaskParams, got {type(params).__name__}")
    return TABLE["GatherMask"].run(running(api), dst, src0, src1_pattern, reduce_mode, mask, params,
                                   gather_mask_mode)


get_gather_mask_remain_count = direct(TABLE["GetGatherMaskRemainCount"])
bilinear_interpolation = direct(TABLE["BilinearInterpolation"])


# -- sorting ------------------------------------------------------------------------------------------------
sort32, sort, proposal_concat, proposal_extract, rp_sort16, get_sort_len, get_sort_offset, get_mrg_sort_result = (
    direct(TABLE[k]) for k in ("Sort32", "Sort", "ProposalConcat", "ProposalExtract", "RpSort16", "GetSortLen",
                               "GetSortOffset", "GetMrgSortResult"))


def _mrg_form(element_count_list: Sequence[int], sorted_num: list, valid_bit: int, repeat_time: int,
              is_exhausted_suspension: bool = False) -> tuple:
    return element_count_list, sorted_num, valid_bit, repeat_time, is_exhausted_suspension


def mrg_sort(dst: LocalTensor, sort_list: MrgSortSrcList, *args: Any, **kwargs: Any) -> None:
    """Merge 2-4 sorted queues: `(element_count_list, sorted_num, valid_bit, repeat_time[, is_exhausted_suspension])`
    (sorted_num, a list, receives the records taken from each queue) or `(MrgSort4Info)`."""
    api = "mrg_sort"
    core = running(api)
    if len(args) + len(kwargs) == 1:
        info = args[0] if args else kwargs.get("params")
        if not isinstance(info, MrgSort4Info):
            raise TypeError(f"asc.mrg_sort(dst, sort_list, params): params must be asc.MrgSort4Info, got "
                            f"{type(info).__name__}")
        TABLE["MrgSort"].run(core, dst, sort_list, info)
        return
    counts, sorted_num, valid_bit, repeat_time, suspend = _mrg_form(*args, **kwargs)
    used = TABLE["MrgSort"].run(core, dst, sort_list, MrgSort4Info(counts, suspend, valid_bit, repeat_time))
    if isinstance(sorted_num, list):
        sorted_num[: len(sorted_num)] = used[: len(sorted_num)]


def mrg_sort4(dst: LocalTensor, src: MrgSortSrcList, params: MrgSort4Info) -> None:
    api = "mrg_sort4"
    if not isinstance(params, MrgSort4Info):
        raise TypeError(f"asc.mrg_sort4: params must be asc.MrgSort4Info, got {type(params).__name__}")
    TABLE["MrgSort4"].run(running(api), dst, src, params)
