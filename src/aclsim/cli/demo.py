"""`aclsim demo`: the article's SquareKernel run step by step, narrating every call and its return code."""

from __future__ import annotations

import argparse
import textwrap
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import constants as C
from ..check import Session
from .demo_bugs import BUGS, KERNEL_FILE, KERNEL_SOURCE, Outcome, explain, listing, load_kernel

DESCRIPTION = """\
Run the host/device flow of the article this tool grew from, on the emulated NPU: init, a context
on device 0, host and device allocation, random data, H2D copy, SquareKernel<<<grid, 256>>>,
synchronize, D2H copy, verification against numpy, release. Every pyACL call is printed with its
return code; memory is reported before and after allocation and after release.
Exits 0 when the result matches numpy, 1 otherwise.
"""

C_SOURCE = """\
__global__ void SquareKernel(float* input, float* output, uint32_t size) {
    uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < size) { output[tid] = input[tid] * input[tid]; }
}"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo", help="run the article's square kernel, step by step", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--size", type=int, default=1 << 20, help="number of float32 elements (default 1048576)")
    p.add_argument("--threads", type=int, default=256, help="threads per block (default 256, as in the article)")
    p.add_argument(
        "--bug", choices=sorted(BUGS),
        help="show a failure: pass size-1 to the kernel, or drop the `if tid < size` guard and launch one block too many",
    )
    p.set_defaults(func=run)


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.2f} MiB"


class _Narrator:
    """Prints each pyACL call with its return code and remembers failures."""

    def __init__(self) -> None:
        self.failed: list[str] = []

    def step(self, n: int, title: str) -> None:
        print(f"\nStep {n}  {title}")

    def call(self, text: str, fn: Callable[..., Any], *args: Any, note: Callable[[Any], str] | None = None,
             ret: bool = False) -> Any:
        """Call a pyACL function; print `text -> ret` plus a note on its result; return its value (or `ret`)."""
        from .. import acl

        t0 = time.perf_counter()
        out = fn(*args)
        ms = (time.perf_counter() - t0) * 1e3
        code = out[-1] if isinstance(out, tuple) else out
        value = out[:-1] if isinstance(out, tuple) else ()
        extra = note(value[0] if len(value) == 1 else value) if note and code == 0 else ""
        print(f"  {text:<58} -> {code}  ({ms:.2f} ms){'  ' + extra if extra else ''}")
        if code != 0:
            print(f"      {acl.get_recent_err_msg()}")
            self.failed.append(text)
        if ret:
            return code
        return value[0] if len(value) == 1 else value


def run(args: argparse.Namespace) -> int:
    from .. import acl
    from ..runtime import get_runtime

    size, tpb = args.size, args.threads
    if size < 1 or not 1 <= tpb <= 2048:
        print("aclsim demo: --size must be >= 1 and --threads between 1 and 2048")
        return 2
    t_start = time.perf_counter()
    say = _Narrator()
    bug = BUGS.get(args.bug)
    kernel = load_kernel(bug.kernel_file if bug else KERNEL_FILE, bug.kernel_source if bug else KERNEL_SOURCE)
    print(f"aclsim demo: the article's SquareKernel on an emulated {get_runtime().chip.name} (no NPU needed)\n")
    if bug is None:
        print("The kernel in C (the article):")
        print(textwrap.indent(C_SOURCE, "    "))
        print("\nThe same kernel in Python (aclsim.simt), one thread's view:")
        print(textwrap.indent(KERNEL_SOURCE, "    ").rstrip())
    else:
        print(f"With a bug (--bug {args.bug}): {bug.summary}")
        print(f"\nThe kernel this run launches ({bug.kernel_file}), one thread's view:")
        print(listing(bug.kernel_source))
    session = Session(["memcheck", "initcheck"]) if bug else None  # what `aclsim run --check` would say

    say.step(1, "initialize")
    say.call("acl.init()", acl.init)

    say.step(2, "device 0, a context and a stream")
    say.call("acl.rt.set_device(0)", acl.rt.set_device, 0)
    context = say.call("acl.rt.create_context(0)", acl.rt.create_context, 0, note=lambda c: f"context {c:#x}")
    stream = say.call("acl.rt.create_stream()", acl.rt.create_stream, note=lambda s: f"stream {s:#x}")

    say.step(3, "host data and device memory")
    nbytes = size * 4
    free0, _ = say.call("acl.rt.get_mem_info(ACL_HBM_MEM)", acl.rt.get_mem_info, C.ACL_HBM_MEM,
                            note=lambda v: f"free {_mib(v[0])} of {_mib(v[1])}")
    host_input = np.random.default_rng(2024).random(size, dtype=np.float32)
    input_bytes, output_bytes = host_input.tobytes(), bytes(nbytes)
    print(f"  host input: {size:,} random float32 in [0, 1) ({_mib(nbytes)})")
    malloc = f"acl.rt.malloc({nbytes}, ACL_MEM_MALLOC_HUGE_FIRST)"
    dev_in = say.call(malloc, acl.rt.malloc, nbytes, C.ACL_MEM_MALLOC_HUGE_FIRST, note=lambda p: f"input  at {p:#x}")
    dev_out = say.call(malloc, acl.rt.malloc, nbytes, C.ACL_MEM_MALLOC_HUGE_FIRST, note=lambda p: f"output at {p:#x}")
    say.call("acl.rt.get_mem_info(ACL_HBM_MEM)", acl.rt.get_mem_info, C.ACL_HBM_MEM,
                        note=lambda v: f"free {_mib(v[0])}: {_mib(free0 - v[0])} now in use (whole pages)")
    if say.failed:
        if session is not None:
            session.stop()
        return 1

    say.step(4, "copy the input to the device")
    say.call("acl.rt.memcpy(dev_in, ..., ACL_MEMCPY_HOST_TO_DEVICE)", acl.rt.memcpy, dev_in, nbytes,
             acl.util.bytes_to_ptr(input_bytes), nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)

    say.step(5, "launch the kernel and wait for it")
    grid = (size + tpb - 1) // tpb + (bug.extra_blocks if bug else 0)
    launch_size, k = size + (bug.size_change if bug else 0), kernel
    print(f"  grid {grid} x 1 x 1 blocks of {tpb} x 1 x 1 threads = {grid * tpb:,} threads for {size:,} elements")
    t0 = time.perf_counter()
    k.compile()
    print(f"  compiled {k.__name__} to vectorized numpy in {(time.perf_counter() - t0) * 1e3:.2f} ms")
    t0 = time.perf_counter()
    task = k[grid, tpb, stream](dev_in, dev_out, launch_size)
    print(f"  {k.__name__}[{grid}, {tpb}, stream](dev_in, dev_out, {launch_size})  "
          f"queued in {(time.perf_counter() - t0) * 1e3:.2f} ms: asynchronous, nothing has run yet")
    if bug and bug.launch_note:
        print(f"  >> BUG: {bug.launch_note}")
    sync = say.call("acl.rt.synchronize_stream(stream)", acl.rt.synchronize_stream, stream,
                    note=lambda _: f"the kernel ran during the wait: {task.exec_time * 1e3:.2f} ms", ret=True)

    say.step(6, "copy back, verify, release")
    say.call("acl.rt.memcpy(host, ..., ACL_MEMCPY_DEVICE_TO_HOST)", acl.rt.memcpy, acl.util.bytes_to_ptr(output_bytes),
             nbytes, dev_out, nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST)
    host_output = np.frombuffer(output_bytes, dtype=np.float32)
    expected = host_input * host_input
    wrong = int(np.count_nonzero(host_output != expected))
    first = int(np.argmax(host_output != expected))
    if sync != 0:  # a faulted launch leaves its output undefined, however much of it looks right
        print(f"  verify against numpy: not meaningful: the kernel faulted (synchronize returned {sync}), so the "
              f"output is undefined ({size - wrong:,} of {size:,} elements happen to match)")
    elif wrong:
        print(f"  verify against numpy: {wrong:,} of {size:,} elements WRONG "
              f"(first: output[{first}] = {host_output[first]}, expected {expected[first]})")
    else:
        print(f"  verify against numpy: all {size:,} elements equal input * input")
    say.call("acl.rt.free(dev_in)", acl.rt.free, dev_in)
    say.call("acl.rt.free(dev_out)", acl.rt.free, dev_out)
    say.call("acl.rt.get_mem_info(ACL_HBM_MEM)", acl.rt.get_mem_info, C.ACL_HBM_MEM,
             note=lambda v: f"free {_mib(v[0])}: {'back to the start' if v[0] == free0 else 'NOT back to the start'}")
    say.call("acl.rt.destroy_stream(stream)", acl.rt.destroy_stream, stream)
    say.call("acl.rt.destroy_context(context)", acl.rt.destroy_context, context)
    say.call("acl.rt.reset_device(0)", acl.rt.reset_device, 0)
    say.call("acl.finalize()", acl.finalize)

    ok = not wrong and not say.failed
    total_ms = (time.perf_counter() - t_start) * 1e3
    print(f"\nResult: {'PASS' if ok else 'FAIL'} ({total_ms:.0f} ms in all)")
    if not ok and say.failed:
        print("  failed calls: " + ", ".join(say.failed))
    if bug is not None and session is not None:
        session.stop()
        explain(bug, Outcome(size, tpb, grid, launch_size, sync, wrong, first), session.findings)
    return 0 if ok else 1
