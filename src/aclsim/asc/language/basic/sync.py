"""pyasc's synchronisation (`asc.set_flag`, `asc.wait_flag`, `asc.pipe_barrier`, the cross-core flags,
`asc.sync_all`), sent to the instructions of the engine's table (aclsim.asc.sync). Signatures: hicann/pyasc
`python/asc/language/basic/block_sync.py`."""

from __future__ import annotations

from ...engine import TABLE
from .forms import direct

set_flag, wait_flag, pipe_barrier, cross_core_set_flag, cross_core_wait_flag, sync_all = (
    direct(TABLE[k]) for k in ("SetFlag", "WaitFlag", "PipeBarrier", "CrossCoreSetFlag", "CrossCoreWaitFlag",
                               "SyncAll"))
