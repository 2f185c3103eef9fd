"""Device work that failed during a run whose program still exited 0: told once on stderr when the run ends.

On an NPU a kernel fault reaches the program only as the error code of its next synchronize (and a line in
the device log); a program that ignores that code goes on with wrong data and exits 0. `aclsim run` then says
so at the end, so that a faulting kernel is never silent. A program that exited non-zero noticed.
"""

from __future__ import annotations

from ..errors import Code
from ..runtime import Task


class FaultNotice:
    """Observer of `task_done`: remembers each distinct device fault (work dropped after it shares its error)."""

    def __init__(self) -> None:
        self.faults: list[tuple[str, tuple[int, str]]] = []

    def on_task_done(self, task: Task) -> None:
        err = task.error
        if err is None or task.interrupted or any(err is seen for _, seen in self.faults):
            return  # no fault, a Ctrl-C the program was told of, or work dropped after a fault already seen
        self.faults.append((task.name, err))

    def line(self) -> str | None:
        """One line naming the first fault (and how many more), or None when no device work failed."""
        if not self.faults:
            return None
        name, (code, message) = self.faults[0]
        try:
            label = f"{code} ACL_{Code(code).name}"
        except ValueError:
            label = str(code)
        more = f" (and {len(self.faults) - 1} more)" if len(self.faults) > 1 else ""
        text = message if name in message else f"{name}: {message}"
        return (f"aclsim: device work failed during the run{more}: {text} [{label}, returned by the stream's next "
                "synchronize]")
