"""Synchronisation between the cores of a launch: `cross_core_set_flag` / `cross_core_wait_flag`, `sync_all`.

CANN's CrossCoreSetFlag page (Ascend C API reference, "CrossCoreSetFlag(ISASI)", A2/A3; pyasc 1.1.1
`cross_core_set_flag_docstring`): each flag id (0..10) is a counter, initially 0, per core; a wait
blocks while the core's counter is 0, then decrements it; a counter holds at most 15 sets. Modes:
0 - all cores of one type: when every AIV (every AIC) of the launch has set the flag, each of them
may pass one wait; 1 - the AIVs of one block: when both have set it, both may pass; 2 - AIC and
AIVs of one block: the AIC's set lets each AIV pass one wait, the set of both AIVs lets the AIC
pass one. `sync_all()` (hard SyncAll) is a barrier over every core of the caller's type
(`is_aiv_only=False`: every core); the soft form with GM/UB workspaces over the first `used_cores`
AIVs. The cores run one at a time (kernel/gang.py), so a wait suspends the running core until another
core's set satisfies it; a wait nothing can satisfy (on hardware the launch hangs) faults naming
the waiting core, the flag and the cores it waits on.
"""

from __future__ import annotations

from typing import Any

from aclsim.runtime import Site, user_site

from ..aicore.core import Core
from ..faults import fail, where
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.enums import PipeID

MAX_FLAG_ID = 10  # flag ids 0..10 on Atlas A2/A3
MAX_COUNT = 15  # "同一flagId的计数器最多设置15次"
SYNC_ALL = "sync_all"  # the flag key sync_all's barrier uses (apart from the user's ids)
_UNOBSERVED: dict[int, int] = {}  # the clock a set carries when no sanitizer listens (never modified)


class CrossCore:
    """A core's cross-core flag counters, the setters' clocks of each count (for the sanitizer), and the wait it
    is suspended in (with where)."""

    __slots__ = ("clocks", "counts", "site", "waiting")

    def __init__(self) -> None:
        self.counts: dict[Any, int] = {}
        self.clocks: dict[Any, list[dict[int, int]]] = {}
        self.waiting: str | None = None
        self.site: Site | None = None


def resident(core: Core, api: str) -> None:
    """Check that every core of `core`'s launch is resident at once: blocks past the chip's cores run in later
    rounds, so a core waiting for one of them would hang (CANN SyncAll page: the logical blockDim must not
    exceed the cores that run the kernel)."""
    launch = core.launch
    launch.synced = True  # the cores keep their flags and clocks until the launch ends
    chip = launch.chip
    if launch.all_aic:
        have, unit = chip.ai_cores, "AICs"
    elif launch.aic_body or launch.mix > 1:
        have, unit = chip.ai_cores, "mix blocks (one AIC with its AIVs)"
    else:
        have, unit = chip.vector_cores, "AIVs"
    if launch.blocks > have:
        fail(api, f"the kernel was launched with {launch.blocks} blocks but {chip.name} runs at most {have} {unit} "
                  "at once: the rest run in later rounds, after the cores they would synchronise with, so the "
                  f"launch would hang; launch at most {have} blocks to synchronise cores")


def _peers(launch: Any, aic: bool, group: int | None = None) -> list[Core]:
    """The cores of one type in the launch (or in one block)."""
    return [c for c in launch.cores if c.aic == aic and (group is None or c.group == group)]


def _parties(core: Core, mode: int, api: str) -> tuple[list[Core], list[Core]]:
    """(cores whose sets count, cores whose counters a completed round of sets raises) for `mode`."""
    launch = core.launch
    if mode == 0:
        same = _peers(launch, core.aic)
        return same, same
    if mode == 1:
        if core.aic:
            fail(api, "mode_id=1 synchronises the AIVs of one block; an AIC cannot use it (mode 0: all AICs, "
                      "mode 2: the AIC and its AIVs)")
        aivs = _peers(launch, False, core.group)
        return aivs, aivs
    if mode == 2:
        aic, aivs = _peers(launch, True, core.group), _peers(launch, False, core.group)
        if not aic or not aivs:
            fail(api, "mode_id=2 synchronises a block's AIC with its AIVs, but this launch runs the body on "
                      f"{'AICs' if core.aic else 'AIVs'} only: declare @asc.jit(kernel_type="
                      "KernelType.MIX_AIC_1_2) (or MIX_AIC_1_1) so that every block runs one AIC and its AIVs")
        return (aic, aivs) if core.aic else (aivs, aic)
    fail(api, f"mode_id={mode} is not a cross-core mode of this chip (0: all cores of a type, 1: the AIVs of a "
              "block, 2: a block's AIC and AIVs)")


def _check_flag(api: str, flag_id: Any, mode_id: Any, pipe: Any) -> tuple[int, int]:
    flag, mode = int(flag_id), int(mode_id)
    PipeID(pipe)
    if not 0 <= flag <= MAX_FLAG_ID:
        fail(api, f"flag_id={flag} is out of range 0..{MAX_FLAG_ID}")
    return flag, mode


def _signal(core: Core, key: Any, flag: Any, arrivers: list[Core], receivers: list[Core], api: str) -> None:
    """`core` sets `flag`: once every arriver has set it one more time, each receiver's counter rises.
    Under the sanitizer each count carries what the arrivers had done (their vector clocks)."""
    launch = core.launch
    released, sets = launch.arrivals.setdefault(key, [0, {}])
    mine = sets.setdefault(core.uid, [])
    mine.append(_tick(core) if launch.observe else _UNOBSERVED)
    done = min(len(sets.get(c.uid, ())) for c in arrivers)
    if done == released:
        return
    launch.arrivals[key][0] = done
    clock: dict[int, int] = {}
    for c in arrivers:
        _merge(clock, sets[c.uid][done - 1])
    for c in receivers:
        x = c.state(CrossCore)
        n = x.counts.get(flag, 0) + 1
        if n > MAX_COUNT:
            fail(api, f"flag {flag} of {c.name} was set {n} times without a wait: its counter holds at most "
                      f"{MAX_COUNT}")
        x.counts[flag] = n
        x.clocks.setdefault(flag, []).append(clock)


def _tick(core: Core) -> dict[int, int]:
    """The clock `core` hands on with a set (its accesses so far), then its next epoch begins."""
    clock = {**core.clock, core.uid: core.sync_epoch}
    _enter(core)
    return clock


def _merge(into: dict[int, int], clock: dict[int, int]) -> None:
    for c, e in clock.items():
        if into.get(c, -1) < e:
            into[c] = e


def _enter(core: Core) -> None:
    """`core` starts a new epoch; the sanitizer learns its clock."""
    core.sync_epoch += 1
    launch = core.launch
    launch.gm.emit_sync(launch.task, core.uid, core.sync_epoch, dict(core.clock))


def _wait(core: Core, flag: Any, setters: list[Core], key: Any, api: str, what: str, need: str) -> None:
    """Suspend until `core`'s counter of `flag` is positive, then take one; fault if it never will be."""
    x = core.state(CrossCore)
    x.waiting = what
    x.site = user_site()
    ok = core.launch.wait(core, lambda: x.counts.get(flag, 0) > 0)
    x.waiting = None
    if not ok:
        released, sets = core.launch.arrivals.get(key, [0, {}])
        missing = [c for c in setters if c is not core and len(sets.get(c.uid, ())) <= released]
        states = "; ".join(f"{c.name} {_state(c)}" for c in missing[:4]) + ("; ..." if len(missing) > 4 else "")
        fail(api, f"waits forever in {what}: it needs {need}; {states or 'none will'} (on hardware the launch "
                  "hangs here)")
    x.counts[flag] -= 1
    clock = x.clocks[flag].pop(0)
    if core.launch.observe:
        _merge(core.clock, clock)
        _enter(core)


def _state(c: Core) -> str:
    x = c.state(CrossCore)
    if x.waiting is not None:
        return f"waits in {x.waiting}{where(x.site)}"
    return "returned without getting there" if c.returned else "has not got there"


def _key(mode: int, flag: int, core: Core, aic: bool) -> tuple:
    """The round of sets the cores of one side (`aic`) make: per type for mode 0, per block otherwise."""
    return "flag", mode, flag, core.group if mode else None, aic


@instruction("CrossCoreSetFlag", "cross_core_set_flag", "sync")
def cross_core_set_flag(core: Core, flag_id: int, mode_id: int, pipe: int) -> None:
    """Set cross-core flag `flag_id` (mode 0: all cores of this type, 1: this block's AIVs, 2: AIC <-> AIVs)."""
    api = "cross_core_set_flag"
    resident(core, api)
    flag, mode = _check_flag(api, flag_id, mode_id, pipe)
    arrivers, receivers = _parties(core, mode, api)
    _signal(core, _key(mode, flag, core, core.aic), flag, arrivers, receivers, api)


@instruction("CrossCoreWaitFlag", "cross_core_wait_flag", "sync")
def cross_core_wait_flag(core: Core, flag_id: int, mode_id: int, pipe: int) -> None:
    """Wait until cross-core flag `flag_id` of this core was set (see the module docstring), then consume it."""
    api = "cross_core_wait_flag"
    resident(core, api)
    flag, mode = _check_flag(api, flag_id, mode_id, pipe)
    arrivers, receivers = _parties(core, mode, api)
    setters, side = (receivers, not core.aic) if mode == 2 else (arrivers, core.aic)  # mode 2: the other side sets
    names = setters[0].name if len(setters) == 1 else f"each of {', '.join(c.name for c in setters[:4])}" + (
        ", ..." if len(setters) > 4 else "")
    _wait(core, flag, setters, _key(mode, flag, core, side), api,
          f"cross_core_wait_flag(flag_id={flag}, mode_id={mode})",
          f"cross_core_set_flag(flag_id={flag}, mode_id={mode}) on {names}")


@instruction("SyncAll", "sync_all", "sync", note="hard and soft forms; the soft form's GM workspace contents are "
             "not modeled")
def sync_all(core: Core, gm_workspace: Any = None, ub_workspace: Any = None, used_cores: int = 0,
             is_aiv_only: bool = True) -> None:
    """Barrier: the hard form over every core of this type (is_aiv_only=False: every core of the launch);
    the soft form (GM and UB workspaces) over the first `used_cores` AIVs (0: all)."""
    api = "sync_all"
    resident(core, api)
    launch = core.launch
    if gm_workspace is None and ub_workspace is None:
        parties = _peers(launch, core.aic) if is_aiv_only else list(launch.cores)
    else:
        parties = _soft_parties(core, gm_workspace, ub_workspace, int(used_cores), api)
    key = ("sync_all", parties[0].uid, len(parties))  # one barrier per set of parties
    _signal(core, key, SYNC_ALL, parties, parties, api)
    _wait(core, SYNC_ALL, parties, key, api, "sync_all", f"all {len(parties)} cores it synchronises to reach sync_all")


def _soft_parties(core: Core, gm: Any, ub: Any, used: int, api: str) -> list[Core]:
    """The soft SyncAll's cores, after checking its workspaces (each >= 32 bytes per core). The
    workspace flags it keeps in GM are not modeled (their contents are the API's own business)."""
    if core.aic:
        fail(api, "the soft sync_all (with workspaces) is for vector cores only; use sync_all() on AICs")
    if not isinstance(gm, GlobalTensor) or not isinstance(ub, LocalTensor):
        raise TypeError("asc.sync_all(gm_workspace: GlobalTensor, ub_workspace: LocalTensor, used_cores) or "
                        "asc.sync_all()")
    aivs = _peers(core.launch, False)
    n = used or len(aivs)
    if not 1 <= n <= len(aivs):
        fail(api, f"used_cores={used} but the launch runs {len(aivs)} vector cores")
    if core.idx >= n:
        fail(api, f"{core.name} is not among the used_cores={n} cores this sync_all waits for")
    gm.region(n * 32, api)  # faults when the workspace is smaller than 32 bytes per core
    if ub.end - ub.lo < n * 32:
        fail(api, f"ub_workspace holds {ub.end - ub.lo} bytes but {n} cores need {n * 32} (32 bytes per core)")
    return aivs[:n]


def check_cross_flags(launch: Any) -> None:
    """At the end of a launch: a cross-core flag set but never waited for would let a later wait pass."""
    left = [f"{c.name}: flag {f} (x{n})" for c in launch.live.values()
            for f, n in c.state(CrossCore).counts.items() if n]
    if left:
        fail("cross_core_set_flag", f"the kernel returned with cross-core flags set but never waited for: "
                                    f"{', '.join(left)}; pair every cross_core_set_flag with a "
                                    "cross_core_wait_flag on the cores it signals", launch.end_site)
