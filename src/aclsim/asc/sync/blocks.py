"""Synchronisation between blocks through flags in a GM workspace: `ib_set` / `ib_wait`, and the deterministic
order of `notify_next_block` / `wait_pre_block` (with InitDetermineComputeWorkspace).

CANN implements them on A2/A3 with basic instructions and a polling loop (`impl/basic_api/
kernel_operator_block_sync_intf_impl.h`, `dav_c220/kernel_operator_determine_compute_sync_impl.h`), which this
module follows:
- the workspace holds one 32-byte slot (8 int32) per block and event: block b's slot of event e is at int32
  `block_num * 8 * e + b * 8` (`block_num` doubled when not `is_aiv_only`); ib_set waits until slot[0] is 0
  and stores 1, ib_wait waits until it is 1 and stores 0 (both on the vector cores only: an AIC returns);
- wait_pre_block waits until the slots of the blocks before this one hold the round count (kept in the UB
  workspace after the slots: int32 `block_num * 8`) and the others 0; notify_next_block stores the round count
  in this block's slot (the last block clears every slot instead) and counts the round;
  InitDetermineComputeWorkspace clears the slots (block 0) and starts the count at 1.
The workspace's GM must be zeroed by the host, as on hardware. The cores run one at a time: a poll that does
not find its value suspends the core (kernel/gang.py) until another core's store satisfies it; a poll nothing
can satisfy faults naming it (on hardware the launch hangs). The slot reads and stores are reported to the
sanitizer as the scalar unit's GM accesses; the UB workspace gets the stored flag word, as CANN's copy leaves it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.dtypes import int32
from ..types.enums import PipeID
from .crosscore import resident
from .flags import pipe_barrier

SLOT = 8  # int32 per slot: one 32-byte block


def _operands(api: str, gm: Any, ub: Any) -> None:
    if not isinstance(gm, GlobalTensor) or not isinstance(ub, LocalTensor):
        raise TypeError(f"asc.{api}(gm_workspace: GlobalTensor, ub_workspace: LocalTensor, ...)")
    if gm.dtype is not int32 or ub.dtype is not int32:
        fail(api, f"the workspaces hold int32 flags, got GM {gm.dtype.name} and UB {ub.dtype.name}")


def _words(core: Any, gm: GlobalTensor, first: int, count: int, api: str) -> np.ndarray:
    """int32 view of `count` words of the workspace from word `first` (bounds checked once)."""
    buf, off, _ = gm[first].region(4 * count, api)
    return buf[off : off + 4 * count].view(np.int32)


def _access(core: Any, gm: GlobalTensor, first: int, count: int, write: bool, api: str) -> None:
    if core.launch.observe:
        _, off, where = gm[first].region(4 * count, api)
        core.emit_gm(where, off, off + 4 * count, write, 4, api)


def _poll(core: Any, ok: Any, api: str, what: str) -> None:
    """Suspend `core` until ok() (another core's store); fault when no core can make it hold."""
    if not core.launch.wait(core, ok):
        fail(api, f"waits forever: {what}, and no other core will store it (on hardware the launch hangs here)")


def _flag(core: Any, api: str, gm: GlobalTensor, ub: LocalTensor, block_idx: int, event_id: int, aiv_only: bool,
          want: int, store: int) -> None:
    _operands(api, gm, ub)
    if core.aic:
        return  # "if ASCEND_IS_AIC return"
    resident(core, api)
    blocks = core.num * (1 if aiv_only else 2)
    if not 0 <= int(block_idx) < blocks or int(event_id) < 0:
        fail(api, f"block_idx must be in 0..{blocks - 1} and event_id >= 0, got {block_idx}, {event_id}")
    first = blocks * SLOT * int(event_id) + int(block_idx) * SLOT
    slot = _words(core, gm, first, SLOT, api)
    pipe_barrier(core, PipeID.PIPE_ALL)
    _poll(core, lambda: int(slot[0]) == want, api,
          f"it polls block {block_idx}'s flag of event {event_id} for {want} (it holds {int(slot[0])})")
    _access(core, gm, first, SLOT, False, api)
    slot[0] = store
    ub.set_value(0, store)
    _access(core, gm, first, SLOT, True, api)
    pipe_barrier(core, PipeID.PIPE_ALL)


@instruction("IBSet", "ib_set", "sync", note="A2/A3 flags in GM (CANN's polling implementation)")
def ib_set(core: Any, gm_workspace: GlobalTensor, ub_workspace: LocalTensor, block_idx: int, event_id: int,
           is_aiv_only: bool = True) -> None:
    """Raise block `block_idx`'s flag of `event_id` once it is down (an earlier ib_wait took it)."""
    _flag(core, "ib_set", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only, 0, 1)


@instruction("IBWait", "ib_wait", "sync", note="A2/A3 flags in GM (CANN's polling implementation)")
def ib_wait(core: Any, gm_workspace: GlobalTensor, ub_workspace: LocalTensor, block_idx: int, event_id: int,
            is_aiv_only: bool = True) -> None:
    """Wait for block `block_idx`'s flag of `event_id` (an ib_set), then take it down."""
    _flag(core, "ib_wait", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only, 1, 0)


def _rounds(core: Any, api: str, gm: GlobalTensor, ub: LocalTensor) -> tuple[int, np.ndarray]:
    """(block count, the int32 slots of every block) after the operand checks."""
    _operands(api, gm, ub)
    resident(core, api)
    n = core.num
    return n, _words(core, gm, 0, n * SLOT, api)


@instruction("InitDetermineComputeWorkspace", "", "sync", note="C++ only (pyasc 1.1.1 has no name for it)")
def init_determine_compute_workspace(core: Any, gm_workspace: GlobalTensor, ub_workspace: LocalTensor) -> None:
    """Block 0 clears every block's slot; every block starts its round count at 1."""
    api = "InitDetermineComputeWorkspace"
    n, slots = _rounds(core, api, gm_workspace, ub_workspace)
    if core.aic:
        return
    pipe_barrier(core, PipeID.PIPE_ALL)
    if core.idx == 0:
        slots[:] = 0
        _access(core, gm_workspace, 0, n * SLOT, True, api)
    ub_workspace.set_value(n * SLOT, 1)
    pipe_barrier(core, PipeID.PIPE_ALL)


@instruction("WaitPreBlock", "wait_pre_block", "sync", note="A2/A3 flags in GM (CANN's polling implementation)")
def wait_pre_block(core: Any, gm_workspace: GlobalTensor, ub_workspace: LocalTensor) -> None:
    """Wait until every block before this one has notified this round (and none after it has)."""
    api = "wait_pre_block"
    n, slots = _rounds(core, api, gm_workspace, ub_workspace)
    if core.aic:
        return
    pipe_barrier(core, PipeID.PIPE_ALL)
    rnd = int(ub_workspace.get_value(n * SLOT))
    i = core.idx
    before, after = slots[: i * SLOT : SLOT], slots[i * SLOT :: SLOT]
    _poll(core, lambda: bool((before == rnd).all() and (after == 0).all()), api,
          f"block {i} waits for blocks 0..{i - 1} to notify round {rnd}" if i else
          f"block 0 waits for every slot to be cleared for round {rnd}")
    _access(core, gm_workspace, 0, n * SLOT, False, api)
    pipe_barrier(core, PipeID.PIPE_ALL)


@instruction("NotifyNextBlock", "notify_next_block", "sync", note="A2/A3 flags in GM (CANN's polling "
             "implementation)")
def notify_next_block(core: Any, gm_workspace: GlobalTensor, ub_workspace: LocalTensor) -> None:
    """Mark this block's round done (the last block clears every slot for the next round); count the round."""
    api = "notify_next_block"
    n, slots = _rounds(core, api, gm_workspace, ub_workspace)
    if core.aic:
        return
    pipe_barrier(core, PipeID.PIPE_ALL)
    rnd = int(ub_workspace.get_value(n * SLOT))
    i = core.idx
    if i + 1 == n:
        slots[:] = 0
        _access(core, gm_workspace, 0, n * SLOT, True, api)
    else:
        slots[i * SLOT : (i + 1) * SLOT] = rnd
        _access(core, gm_workspace, i * SLOT, SLOT, True, api)
    ub_workspace.set_value(n * SLOT, rnd + 1)
    pipe_barrier(core, PipeID.PIPE_ALL)
