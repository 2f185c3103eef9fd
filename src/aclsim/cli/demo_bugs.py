"""The kernels `aclsim demo` launches and the bugs `--bug` shows: the buggy line, what went wrong,
what the sanitizer says and the fix.

The kernels are compiled from the source text below under their own file names (registered with
linecache), so a fault names the kernel's line as the listing shows it, not this module's.
"""

from __future__ import annotations

import linecache
import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import simt

KERNEL_FILE = "square_kernel.py"
KERNEL_SOURCE = """\
@simt.kernel
def square_kernel(input: simt.Ptr[np.float32], output: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if tid < size:
        output[tid] = input[tid] * input[tid]
"""

UNGUARDED_FILE = "square_kernel_unguarded.py"
UNGUARDED_SOURCE = """\
@simt.kernel
def square_kernel(input: simt.Ptr[np.float32], output: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    output[tid] = input[tid] * input[tid]  # BUG: no `if tid < size:` guard
"""


@dataclass(frozen=True)
class Bug:
    """One `--bug`: the kernel it launches, how the launch differs, and its lesson."""

    summary: str
    kernel_file: str
    kernel_source: str
    extra_blocks: int = 0  # blocks launched beyond ceil(size / threads)
    size_change: int = 0  # the launch passes size + size_change
    launch_note: str = ""  # what is wrong with the launch line, if the bug is there


@dataclass(frozen=True)
class Outcome:
    """What the buggy run did."""

    size: int
    threads: int
    grid: int
    launch_size: int
    sync: int  # synchronize_stream's return code
    wrong: int  # output elements that differ from input * input
    first_wrong: int


BUGS = {
    "off-by-one": Bug(
        "the host passes size - 1 to a correct kernel, so the last element is never computed.",
        KERNEL_FILE, KERNEL_SOURCE, size_change=-1,
        launch_note="the size argument is size - 1: the kernel's `if tid < size` now skips the last element",
    ),
    "no-bounds-check": Bug(
        "the kernel lost its `if tid < size` guard, and one block too many is launched.",
        UNGUARDED_FILE, UNGUARDED_SOURCE, extra_blocks=1,
    ),
}


def load_kernel(filename: str, source: str) -> Any:
    """Compile a kernel from `source` as if it were the file `filename` (messages name its lines)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace: dict[str, Any] = {"simt": simt, "np": np}
    exec(compile(source, filename, "exec"), namespace)  # our own constant source text, not user input
    return namespace["square_kernel"]


def listing(source: str) -> str:
    """The source with line numbers, the buggy line marked `>>`."""
    return "\n".join(f"  {'>>' if '# BUG' in line else '  '} {n:2}  {line}"
                     for n, line in enumerate(source.splitlines(), 1))


def _bug_line(bug: Bug) -> int:
    return next(n for n, line in enumerate(bug.kernel_source.splitlines(), 1) if "# BUG" in line)


def explain(bug: Bug, run: Outcome, findings: list[Any]) -> None:
    """Print what went wrong in this run, what the sanitizer found, and the fix."""
    print("\nWhat went wrong")
    if bug.size_change:
        last = run.size - 1
        print(textwrap.fill(
            f"The launch passed size {run.launch_size} instead of {run.size}, so thread {last} failed `if tid < size` "
            f"and never wrote output[{last}]. Nothing faults (the kernel is correct, its size argument is not): "
            f"the copy back returns whatever that device memory held: {run.wrong:,} of {run.size:,} elements came "
            f"back wrong, first output[{run.first_wrong}].", 100, initial_indent="  ", subsequent_indent="  "))
    else:
        padded = run.size + 8  # the runtime's 32-byte padding holds 8 more floats
        print(textwrap.fill(
            f"{run.grid} blocks of {run.threads} are {run.grid * run.threads:,} threads for {run.size:,} elements. "
            f"Without the guard, threads {run.size:,} and above load input[tid] and store output[tid] past the end "
            f"of the {run.size * 4:,}-byte buffers ({bug.kernel_file} line {_bug_line(bug)}). Accesses to elements "
            f"{run.size:,}..{padded - 1:,} land in the runtime's 32-byte padding and go unnoticed, as on hardware; "
            f"the first access beyond it faults the launch: synchronize returned {run.sync}, and the output is "
            "undefined.", 100, initial_indent="  ", subsequent_indent="  "))
    print("\nWhat the sanitizer says (aclsim run --check memcheck,initcheck on a program with this bug)")
    for f in findings:
        print(f"  {f.headline}")
        if f.kind == "device-fault":  # names the faulting access (the message synchronize left in step 5)
            print(textwrap.fill(f.details[0], 100, initial_indent="      ", subsequent_indent="      "))
        print(f"      fix: {f.fix}")
    if not findings:
        print("  nothing")
    print("\nThe fix")
    if bug.size_change:
        print("  pass the element count itself: square_kernel[grid, 256, stream](dev_in, dev_out, size)")
    else:
        print(f"  {bug.kernel_file} line {_bug_line(bug)} becomes the guarded store of the article:")
        print("        if tid < size:\n            output[tid] = input[tid] * input[tid]")
        print("  and the grid is ceil(size / 256) blocks: (size + 255) // 256")
    print("  `aclsim demo` runs the fixed program.")
