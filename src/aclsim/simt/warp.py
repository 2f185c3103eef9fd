"""Warp-level functions: votes (`all_sync`, `any_sync`, `ballot_sync`, `activemask`), `syncwarp` and
shuffles (`shfl_sync`, `shfl_up_sync`, `shfl_down_sync`, `shfl_xor_sync`), over warps of 32 threads.

A block's threads form warps by linear thread index (threads 0-31, 32-63, ...; the last warp of a
block whose size is not a multiple of 32 is partial). Every thread named in a call's mask must make
the same call with the same mask, and a shuffle may only read a lane named in the mask: on hardware
anything else is undefined behaviour or a hang, here it faults the launch naming the warp, the
lanes and the line (CUDA Programming Guide, "Warp Vote Functions" / "Warp Shuffle Functions").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.work import KernelFault
from .ctype import cast, default_dtype, dtype_of
from .lang import WARP_SIZE
from .ops import ND, mask_array, truth, val

_FULL = (1 << WARP_SIZE) - 1


def _geometry(C: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per lane of the chunk: lane in warp, warp number in the chunk, first chunk lane of its warp."""
    idx = np.arange(C.N, dtype=np.int64)
    t = idx % C.tpb
    lane = t % WARP_SIZE
    nw = -(-C.tpb // WARP_SIZE)
    wid = (idx // C.tpb) * nw + t // WARP_SIZE
    return lane, wid, idx - lane


def _per_lane(C: Any, v: Any) -> np.ndarray:
    v = val(v)
    if type(v) is ND:
        return v
    return np.full(C.N, cast(v, default_dtype(dtype_of(v))))


def _check(C: Any, m: Any, mask: Any, what: str, line: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(active lanes, masks, lane-in-warp, warp ids) after checking every named lane takes part."""
    act = mask_array(C.N, m)
    masks = _per_lane(C, mask).astype(np.int64) & _FULL
    lane, wid, _ = _geometry(C)
    bit = np.left_shift(np.int64(1), lane)
    present = np.zeros(wid[-1] + 1 if C.N else 0, np.int64)
    np.bitwise_or.at(present, wid[act], bit[act])
    lo = np.full(present.shape[0], _FULL + 1, np.int64)
    hi = np.full(present.shape[0], -1, np.int64)
    np.minimum.at(lo, wid[act], masks[act])
    np.maximum.at(hi, wid[act], masks[act])
    bad = act & (((masks & ~present[wid]) != 0) | ((masks & bit) == 0) | (lo[wid] != hi[wid]))
    if bad.any():
        k = int(np.argmax(bad))
        w, mk = int(wid[k]), int(masks[k])
        if lo[w] != hi[w]:
            why = "threads of the warp call it with different masks"
        elif not mk & int(bit[k]):
            why = f"the calling thread (lane {int(lane[k])}) is not in its own mask"
        else:
            why = (f"lanes {_lanes(mk & ~int(present[w]))} named in the mask {mk:#010x} do not take part "
                   f"(active lanes: {int(present[w]):#010x}; divergent, returned or beyond the block)")
        raise KernelFault(f"kernel '{C.name}': {what} at {C.where(line)} by {C.describe(C.lane0 + k)}: {why}")
    return act, masks, lane, wid


def _lanes(bits: int) -> list[int]:
    return [i for i in range(WARP_SIZE) if bits >> i & 1]


def vote(C: Any, m: Any, op: str, mask: Any, pred: Any, line: int) -> Any:
    """all_sync / any_sync (bool per lane) and ballot_sync (uint32 bits of the lanes where pred holds)."""
    act, masks, lane, wid = _check(C, m, mask, f"{op}_sync", line)
    p = np.broadcast_to(truth(pred), (C.N,)) & act
    bits = np.zeros(wid[-1] + 1 if C.N else 0, np.int64)
    np.bitwise_or.at(bits, wid[p], np.left_shift(np.int64(1), lane[p]))
    got = bits[wid] & masks
    if op == "ballot":
        return got.astype(np.uint32)
    if op == "any":
        return got != 0
    return got == masks


def activemask(C: Any, m: Any) -> Any:
    """The bits of the warp's lanes executing this call (uint32 per lane)."""
    act = mask_array(C.N, m)
    lane, wid, _ = _geometry(C)
    bits = np.zeros(wid[-1] + 1 if C.N else 0, np.int64)
    np.bitwise_or.at(bits, wid[act], np.left_shift(np.int64(1), lane[act]))
    return bits[wid].astype(np.uint32)


def syncwarp(C: Any, m: Any, mask: Any, line: int) -> None:
    """syncwarp(mask): the named lanes must all arrive (lanes run in lock step here, so that is all)."""
    if m is not False:
        _check(C, m, mask, "syncwarp", line)


def shuffle(C: Any, m: Any, op: str, mask: Any, value: Any, arg: Any, line: int) -> Any:
    """shfl_sync (from lane arg), shfl_up_sync / shfl_down_sync (arg lanes below / above; out of the warp
    keeps the own value) and shfl_xor_sync (from lane ^ arg)."""
    act, masks, lane, _ = _check(C, m, mask, f"{op}_sync", line)
    v = _per_lane(C, value)
    a = _per_lane(C, arg).astype(np.int64)
    _, _, base = _geometry(C)
    if op == "shfl":
        src = a % WARP_SIZE
    elif op == "shfl_up":
        src = np.where(lane - a >= 0, lane - a, lane)
    elif op == "shfl_down":
        src = np.where(lane + a < WARP_SIZE, lane + a, lane)
    else:
        src = (lane ^ a) % WARP_SIZE
    named = (masks >> src) & 1 == 1
    bad = act & ~named
    if bad.any():
        k = int(np.argmax(bad))
        raise KernelFault(
            f"kernel '{C.name}': {op}_sync at {C.where(line)} by {C.describe(C.lane0 + k)} reads lane {int(src[k])}, "
            f"which is not in the mask {int(masks[k]):#010x}")
    out = v.copy()
    out[act] = v[(base + src)[act]]
    return out
