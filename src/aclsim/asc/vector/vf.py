"""VF calls: code a native face runs on the vector unit behind pointers (`asc_vf_call` of SIMT functions over UB).

The engine does not see the accesses of such code, which reaches UB through addresses the kernel took
(`LocalTensor::GetPhyAddr`) or its launch's dynamic UB. `vf_call` stands for them in program order: a VF call
reads and writes, on the V pipe, every live window whose address was taken since the previous VF call (else
the previous call's windows) and the dynamic UB, so the written-flags hold what it may have stored and
synccheck sees the V-pipe accesses the MTE pipes must be ordered against (a missing V -> MTE3 sync before the
result is copied out is found as for any vector instruction).
"""

from __future__ import annotations

from typing import Any

from ..aicore.pipes import access
from ..memory.local import Escaped
from ..table import instruction


class VfWindows(list):
    """The windows of a core's last VF call ((pool, lo, hi, tensor))."""


@instruction("VfCall", "", "vector", "V", note="accesses taken as the windows whose addresses the kernel took")
def vf_call(core: Any) -> None:
    """A VF call of the running core (its accesses, as the module doc says)."""
    escaped = core.units.get(Escaped)
    last = core.state(VfWindows)
    if escaped:
        last[:] = [t for t in escaped.values() if t.buf.pool.name == "UB"]
        escaped.clear()
    live = [t for t in last if t.gen == t.buf.gen]
    windows = [(t.buf.pool, t.lo, t.end) for t in live]
    dyn = core.launch.dyn_ub
    if dyn:
        ub = core.pool("UB")
        windows.append((ub, ub.size - dyn, ub.size))
    for pool, lo, hi in windows:
        pool.mark(lo, hi)
        if pool.watch:
            access("V", pool, lo, hi, False, "asc_vf_call")
            access("V", pool, lo, hi, True, "asc_vf_call")
