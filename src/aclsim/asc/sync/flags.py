"""Intra-core synchronisation: `set_flag` / `wait_flag` / `pipe_barrier` (pyasc `basic/block_sync.py`).

The emulator runs each instruction in program order, so no flag changes what a kernel computes;
what matters is pairing. A wait_flag without an earlier set_flag of the same (event, id) hangs the
core on hardware and faults here; a set_flag never waited for is reported when the kernel returns
(msSanitizer synccheck: unpaired set_flag corrupts the next kernel on that core).
"""

from __future__ import annotations

from typing import Any

from ..aicore import pipes
from ..faults import fail
from ..table import instruction
from ..types.enums import HardEvent, PipeID


class Flags(dict):
    """A core's set_flag counts not yet waited for: (HardEvent, event id) -> count."""


@instruction("SetFlag", "set_flag", "sync")
def set_flag(core: Any, event: int, event_id: int = 0) -> None:
    """Signal `event` (a producer_consumer pipe pair) with `event_id`."""
    ev = HardEvent(event)
    key = (int(ev), int(event_id))
    flags = core.state(Flags)
    flags[key] = flags.get(key, 0) + 1
    if core.launch.watch:
        pipes.sync(core, "set", "set_flag", *ev.name.split("_"), event_id)


@instruction("WaitFlag", "wait_flag", "sync")
def wait_flag(core: Any, event: int, event_id: int = 0) -> None:
    """Wait until `event` / `event_id` was signalled."""
    key = (int(HardEvent(event)), int(event_id))
    flags = core.state(Flags)
    n = flags.get(key, 0)
    if n == 0:
        fail("wait_flag", f"wait_flag(HardEvent.{HardEvent(event).name}, {event_id}) has no matching set_flag "
                          "before it: on hardware the core would hang here")
    flags[key] = n - 1
    if core.launch.watch:
        pipes.sync(core, "wait", "wait_flag", *HardEvent(event).name.split("_"), event_id)


@instruction("PipeBarrier", "pipe_barrier", "sync")
def pipe_barrier(core: Any, pipe: int) -> None:
    """Wait for every earlier instruction of `pipe` (PIPE_ALL: of every pipe); program order already
    guarantees it here, the sanitizer follows it."""
    p = PipeID(pipe)
    pipes.sync(core, "barrier", "pipe_barrier", p.name.removeprefix("PIPE_"))


def check_flags(core: Any, launch: Any) -> None:
    """At kernel end: every set_flag must have been waited for."""
    left = [f"HardEvent.{HardEvent(e).name} id {i} (x{n})" for (e, i), n in core.state(Flags).items() if n]
    if left:
        fail("set_flag", f"the kernel returned with set_flag never waited for: {', '.join(left)}; pair every "
                         "set_flag with a wait_flag (msSanitizer synccheck: unpaired set_flag)", launch.end_site)


@instruction("SetNextTaskStart", "", "sync", note="C++ only; launches on a stream run one after another here")
def set_next_task_start(core: Any) -> None:
    """Let the next task of the stream start early (super kernels): aclsim starts it after this one ends anyway,
    which is what the early start may not change."""


@instruction("WaitPreTaskEnd", "", "sync", note="C++ only; launches on a stream run one after another here")
def wait_pre_task_end(core: Any) -> None:
    """Wait until the previous task of the stream ended (super kernels): it has, when this one runs."""
