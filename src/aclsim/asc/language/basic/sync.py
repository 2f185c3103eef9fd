"""pyasc's synchronisation (`asc.set_flag`, `asc.wait_flag`, `asc.pipe_barrier`, the cross-core flags,
`asc.sync_all`, the GM-workspace flags `asc.ib_set`/`asc.ib_wait`/`asc.notify_next_block`/`asc.wait_pre_block`,
`asc.data_sync_barrier`), sent to the instructions of the engine's table (aclsim.asc.sync). Signatures: hicann/pyasc
`python/asc/language/basic/block_sync.py`."""

from __future__ import annotations

from ...engine import TABLE
from .forms import direct

set_flag, wait_flag, pipe_barrier, cross_core_set_flag, cross_core_wait_flag, sync_all = (
    direct(TABLE[k]) for k in ("SetFlag", "WaitFlag", "PipeBarrier", "CrossCoreSetFlag", "CrossCoreWaitFlag",
                               "SyncAll"))
ib_set, ib_wait, notify_next_block, wait_pre_block, data_sync_barrier = (
    direct(TABLE[k]) for k in ("IBSet", "IBWait", "NotifyNextBlock", "WaitPreBlock", "DataSyncBarrier"))
