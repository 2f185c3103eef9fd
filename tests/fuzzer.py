"""The fuzz child and its parent: random pyACL call sequences against a model of what must hold, and the
generated cases of the newer surfaces (tests/fuzz_surfaces.py), each run in a child process.

Runtime sequences ("runtime" cases) are lists of operations, each a list of small ints (so hypothesis can
shrink them and a failure prints as plain data). The child runs each one on a fresh runtime and checks,
after every call:
  - the code returned is one the runtime documents (errors.Code), or a clean TypeError/ValueError;
  - bytes read back from the device equal a model of what was written (copies, fills, kernels), with
    queued work applied only when the host waits for it, as in aclsim's default lazy scheduling;
  - at the end, after freeing everything, get_mem_info reports the device's memory free again.
Host pointers include random integers; only reads ever go to an arbitrary address (a write to one
that happens to be mapped would corrupt the child itself, which is the program's bug, not aclsim's).

The other surfaces (models, operators, DVPP, Ascend C queues/UB, SIMT launch configurations) hold each case
to the outcome rule of fuzz_surfaces.py: a code or a clear error, never an internal traceback or a silent
success. The parent (`run_child`) kills a child that stops making progress: a crash or a hang is a failure.
"""


import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

OPS = ("malloc", "free", "memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memset", "async_h2d", "async_d2h",
       "async_memset", "kernel", "sync_stream", "sync_device", "stream", "event", "malloc_host", "host_copy",
       "mem_info", "bad_pointer", "set_device")


def generate(draw: Callable[[int, int], int], n_ops: int) -> list[list[int]]:
    """A runtime sequence of `n_ops` operations; `draw(lo, hi)` gives an int in [lo, hi]."""
    return [[draw(0, len(OPS) - 1), *(draw(0, 1 << 16) for _ in range(5))] for _ in range(n_ops)]


def generate_case(surface: str, draw: Callable[[int, int], int], n_ops: int = 80) -> tuple[str, list]:
    """A case of any surface ("runtime" or one of fuzz_surfaces.SURFACES) as the child takes it."""
    if surface == "runtime":
        return surface, generate(draw, n_ops)
    import fuzz_surfaces

    return surface, fuzz_surfaces.generate(surface, draw)


# ------------------------------------------------------------------------------------------- child
def _child() -> None:  # pragma: no cover - runs in the child process
    import numpy as np

    import aclsim.acl as acl
    from aclsim import constants as C
    from aclsim import simt
    from aclsim.errors import Code
    from aclsim.runtime import reset_runtime

    codes = {0} | {int(c) for c in Code}
    FAULTS = {int(Code.ERROR_RT_AICORE_EXCEPTION), int(Code.ERROR_RT_INTERNAL_ERROR)}  # a fault of earlier work

    @simt.kernel
    def fill(x: simt.Ptr[np.uint8], n: np.int32, v: np.uint8):
        i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
        if i < n:
            x[i] = v

    def ret_of(r: object) -> int:
        return r[-1] if isinstance(r, tuple) else r  # type: ignore[index,return-value]

    class Model:
        def __init__(self) -> None:
            self.allocs: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # start -> (bytes, known mask)
            self.freed: list[int] = []
            self.sizes: dict[int, int] = {}  # start -> bytes requested
            self.freed_host: list[int] = []
            self.pending: list[Callable[[], None]] = []  # effects of work queued on stream 0
            self.checks: list[Callable[[], None]] = []  # reads to verify once stream 0 ran
            self.hosts: list[np.ndarray] = []
            self.pinned: dict[int, int] = {}
            self.streams: list[int] = []
            self.events: list[int] = []
            self.taint: list[tuple[int, int]] = []  # freed while queued work still wrote there

        def tainted(self, start: int, size: int) -> bool:
            return any(lo < start + size and start < hi for lo, hi in self.taint)

        def pick(self, k: int) -> tuple[int, int] | None:
            if not self.allocs:
                return None
            start = sorted(self.allocs)[k % len(self.allocs)]
            return start, self.sizes[start]

        def write(self, start: int, off: int, data: np.ndarray) -> None:
            if start not in self.allocs:
                return  # freed meanwhile
            mem, known = self.allocs[start]
            end = min(off + len(data), len(mem))
            if self.tainted(start, len(mem)):  # stale queued work may land there too: nothing is known
                known[off:end] = False
                return
            mem[off:end] = data[: end - off]
            known[off:end] = True

        def forget(self, start: int, off: int, n: int) -> None:
            self.allocs[start][1][off : off + n] = False

        def expect(self, start: int, off: int, got: np.ndarray, what: str) -> None:
            mem, known = self.allocs[start]
            sl = slice(off, off + len(got))
            bad = known[sl] & (mem[sl] != got)
            if bad.any():
                raise AssertionError(f"{what}: device bytes differ from what was written at offset "
                                     f"{off + int(np.argmax(bad))} of the allocation at {start:#x}")

        def run_pending(self) -> None:
            for f in self.pending:
                f()
            for c in self.checks:
                c()
            self.pending.clear()
            self.checks.clear()
            self.taint.clear()

        def settle(self, ret: int) -> None:
            """The host waited for stream 0: apply its queued work, or, if the wait reported a fault
            (work after it was dropped), forget what that work would have written."""
            if ret == 0:
                self.run_pending()
                return
            for f in self.pending:
                for s in f.uses:
                    if s in self.allocs:
                        self.allocs[s][1][:] = False
            self.pending.clear()
            self.checks.clear()
            self.taint.clear()

        def waited(self, ret: int) -> None:
            """After an async copy with pageable memory: it waited for stream 0 unless it was refused first."""
            if ret == 0 or ret in FAULTS:
                self.settle(ret)

        def queue(self, start: int, effect: Callable[[], None]) -> None:
            effect.uses = {start}  # type: ignore[attr-defined]
            self.pending.append(effect)

    def check(name: str, r: object) -> int:
        code = ret_of(r)
        if code not in codes:
            raise AssertionError(f"{name} returned {code}, which is no documented ACL code")
        return code

    def one(m: Model, op: list[int]) -> None:
        kind, a, b, c, d, e = op
        name = OPS[kind % len(OPS)]
        target = m.pick(a)
        if name == "malloc":
            size = (b % 9000) if c % 8 else (1 << 40) + b  # sometimes more than the device has
            ptr, ret = acl.rt.malloc(size, d % 12)
            if check(name, ret) == 0:  # the model also covers the runtime's padding (at most 63 bytes)
                m.allocs[ptr] = (np.zeros(size + 64, np.uint8), np.zeros(size + 64, bool))
                m.sizes[ptr] = size
        elif name == "free":
            if target is None or b % 5 == 0:  # a stale pointer (its address may be live again) or a wild one
                ptr = m.freed[a % len(m.freed)] if m.freed and b % 2 else (a << 20) + 1
                if check(name, acl.rt.free(ptr)) == 0 and ptr in m.allocs:
                    size = len(m.allocs.pop(ptr)[0])
                    if any(ptr in f.uses for f in m.pending):
                        m.taint.append((ptr, ptr + size + 64))
                return
            start, size = target
            off = 0 if b % 3 else (c % size)
            if check(name, acl.rt.free(start + off)) == 0:
                del m.allocs[start]
                m.freed.append(start)
                if any(start in f.uses for f in m.pending):  # that work will still write there
                    m.taint.append((start, start + size + 64))
        elif name in ("memcpy_h2d", "async_h2d"):
            if target is None:
                return
            start, size = target
            off, n = b % size, max(1, c % (size + 64))
            data = np.random.default_rng(d).integers(0, 256, n, np.uint8)
            if name == "memcpy_h2d":
                if check(name, acl.rt.memcpy(start + off, size - off, data.ctypes.data, n, e % 6)) == 0:
                    m.write(start, off, data)
            else:  # pageable source: the call returns after the stream's earlier work and the copy ran
                ret = check(name, acl.rt.memcpy_async(start + off, size - off, data.ctypes.data, n, e % 6, 0))
                m.waited(ret)
                if ret == 0:
                    m.write(start, off, data)
        elif name in ("memcpy_d2h", "async_d2h"):  # (pageable destination: the async one waits too)
            if target is None:
                return
            start, size = target
            off, n = b % size, max(1, c % (size + 64))
            out = np.zeros(n, np.uint8)
            if name == "memcpy_d2h":
                if check(name, acl.rt.memcpy(out.ctypes.data, n, start + off, n, e % 6)) == 0:
                    m.expect(start, off, out, "memcpy D2H")
            else:
                ret = check(name, acl.rt.memcpy_async(out.ctypes.data, n, start + off, n, e % 6, 0))
                m.waited(ret)
                if ret == 0:
                    m.expect(start, off, out, "memcpy_async D2H")
        elif name == "memcpy_d2d":
            if len(m.allocs) < 1:
                return
            (s1, z1), (s2, z2) = m.pick(a), m.pick(b)
            o1, o2 = c % z1, d % z2
            n = max(1, e % 256)
            if check(name, acl.rt.memcpy(s1 + o1, z1 - o1, s2 + o2, n, 3)) == 0:
                mem, known = m.allocs[s2]
                if known[o2 : o2 + n].all():
                    m.write(s1, o1, mem[o2 : o2 + n].copy())
                else:
                    m.forget(s1, o1, n)
        elif name in ("memset", "async_memset"):
            if target is None:
                return
            start, size = target
            off, n, v = b % size, max(1, c % (size + 64)), d % 256
            if name == "memset":
                if check(name, acl.rt.memset(start + off, size - off, v, n)) == 0:
                    m.write(start, off, np.full(n, v, np.uint8))
            elif check(name, acl.rt.memset_async(start + off, size - off, v, n, 0)) == 0:
                filled = np.full(n, v, np.uint8)
                m.queue(start, lambda s=start, o=off, x=filled: m.write(s, o, x))
        elif name == "kernel":
            if target is None:
                return
            start, size = target
            n, v = min(size, b % 4096 + 1), c % 256
            fill[(n + 63) // 64, 64](start, n, v)
            filled = np.full(n, v, np.uint8)
            m.queue(start, lambda s=start, x=filled: m.write(s, 0, x))
        elif name == "sync_stream":
            m.settle(check(name, acl.rt.synchronize_stream(0)))
        elif name == "sync_device":
            m.settle(check(name, acl.rt.synchronize_device()))
        elif name == "stream":
            if b % 3 == 0 or not m.streams:
                s, ret = acl.rt.create_stream()
                if check(name, ret) == 0:
                    m.streams.append(s)
            else:
                s = m.streams[a % len(m.streams)]
                for r in (acl.rt.stream_query(s), acl.rt.synchronize_stream(s)):
                    check(name, r)
                if c % 2 and check(name, acl.rt.destroy_stream(s)) == 0:
                    m.streams.remove(s)
        elif name == "event":
            if b % 3 == 0 or not m.events:
                ev, ret = acl.rt.create_event()
                if check(name, ret) == 0:
                    m.events.append(ev)
            else:
                ev = m.events[a % len(m.events)] if c % 4 else (a << 8) + 3
                stream = m.streams[d % len(m.streams)] if m.streams and d % 2 else (d << 4)
                for r in (acl.rt.record_event(ev, stream), acl.rt.query_event_status(ev),
                          acl.rt.synchronize_event(ev)):
                    check(name, r)
        elif name == "malloc_host":
            if b % 2 or not m.pinned:
                h, ret = acl.rt.malloc_host(b % 8192 + 1)
                if check(name, ret) == 0:
                    m.pinned[h] = b % 8192 + 1
            else:
                h = sorted(m.pinned)[a % len(m.pinned)]
                if check(name, acl.rt.free_host(h)) == 0:
                    del m.pinned[h]
                    m.freed_host.append(h)
        elif name == "host_copy":  # pinned host memory, possibly overrun or freed: refused, never corrupting
            if target is None or not (m.pinned or m.freed_host):
                return
            start, size = target
            pool = sorted(m.pinned) + m.freed_host
            h = pool[b % len(pool)]
            n = max(1, c % 9000)
            if h in m.pinned and n <= m.pinned[h]:
                n = min(n, size)
            ret = acl.rt.memcpy(h + (d % 64 if h in m.pinned else 0), n, start, min(n, size), 2)
            check(name, ret)
        elif name == "mem_info":
            check(name, acl.rt.get_mem_info(b % 20))
        elif name == "bad_pointer":  # random integers as pointers: reads anywhere, writes only where nothing lives
            raw = (a << 32 | b << 16 | c) & ((1 << 47) - 1)
            # device addresses only on devices that hold no allocation (1: never used; 5: does not exist)
            dst = [0, b % 4096, (1 << 60) + (1 << 48) + (a << 20), (1 << 57) + c, 0xFFFF_FFFF_FFFF_F000,
                   (1 << 60) + (5 << 48)][d % 6]
            src = [raw, b % 4096, (1 << 60) + (1 << 48) + (b << 16), 0][e % 4]
            if target is not None:
                n = min(64, target[1])
                if check(name, acl.rt.memcpy(target[0], target[1], src, n, 1)) == 0:
                    m.forget(target[0], 0, n)  # whatever that address held
                check(name, acl.rt.memcpy(dst, 64, target[0], min(64, target[1]), 2))
            check(name, acl.rt.memset(dst, 64, 1, 64))
            check(name, acl.rt.free(dst))
        elif name == "set_device":  # other devices and contexts come and go; data stays on device 0's default context
            check(name, acl.rt.set_device(a % 3))
            ctx, ret = acl.rt.create_context(b % 3)
            if check(name, ret) == 0:
                check(name, acl.rt.create_stream())
                check(name, acl.rt.destroy_context(ctx if c % 4 else ctx + 1))
            check(name, acl.rt.set_device(0))

    env = None
    for line in sys.stdin:
        index, surface, seq = json.loads(line)
        print(f"start {index}", flush=True)
        if surface != "runtime":
            import fuzz_surfaces

            env = env or fuzz_surfaces.prepare()
            print(f"ok {index} {fuzz_surfaces.run(env, surface, seq)}", flush=True)
            continue
        reset_runtime(devices=2)
        acl.rt.set_device(0)
        free0 = acl.rt.get_mem_info(C.ACL_HBM_MEM)[0]
        m = Model()
        for op in seq:
            try:
                one(m, op)
            except (TypeError, ValueError) as err:
                if "args parse failed" not in str(err) and "acl." not in str(err):
                    raise
        m.settle(acl.rt.synchronize_device())
        for start in list(m.allocs):
            ret = acl.rt.free(start)
            assert ret == 0, f"free({start:#x}) of a live allocation at the end: {ret} {acl.get_recent_err_msg()}"
        for h in m.pinned:
            ret = acl.rt.free_host(h)
            assert ret == 0, f"free_host of a live buffer at the end: {ret} {acl.get_recent_err_msg()}"
        for s in m.streams:
            acl.rt.destroy_stream(s)
        free1 = acl.rt.get_mem_info(C.ACL_HBM_MEM)[0]
        assert free1 == free0, f"get_mem_info: {free0 - free1} bytes still counted as used after freeing everything"
        print(f"ok {index} ok", flush=True)


# ------------------------------------------------------------------------------------------ parent
@dataclass
class Result:
    """What a child did: cases that held every rule, the first failure (None if none), outcomes per surface."""

    passed: int
    failure: str | None
    outcomes: dict[str, Counter]


def run_child(cases: list[tuple[str, list]], stall: float = 60.0) -> Result:
    """Run (surface, case) pairs in one child. No progress for `stall` seconds is a hang; the child dying or
    printing a traceback is a failure of the case it was in."""
    env = dict(os.environ, ACLSIM_SCHEDULE="lazy", PYTHONUNBUFFERED="1")
    env.pop("ACLSIM_CHECK", None)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent), env.get("PYTHONPATH", "")])
    p = subprocess.Popen([sys.executable, str(Path(__file__).resolve())], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    payload = "".join(json.dumps([i, surface, c]) + "\n" for i, (surface, c) in enumerate(cases))
    outcomes: dict[str, Counter] = {}
    try:
        out, err = p.communicate(payload, timeout=stall + 2.0 * len(cases))
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        started = [ln for ln in out.splitlines() if ln.startswith("start")]
        where = int(started[-1].split()[1]) if started else 0
        return Result(_tally(out, cases, outcomes), f"hang in case {where} ({cases[where][0]}): "
                      f"{json.dumps(cases[where][1])}\n{err[-2000:]}", outcomes)
    passed = _tally(out, cases, outcomes)
    if p.returncode != 0 or passed != len(cases):
        where = passed
        i = err.find("Traceback")
        detail = err[i : i + 4000] if i >= 0 else err[-4000:]
        case = f"({cases[where][0]}) {json.dumps(cases[where][1])}" if where < len(cases) else ""
        return Result(passed, f"case {where} failed (exit {p.returncode}): {case}\n{detail}", outcomes)
    return Result(passed, None, outcomes)


def _tally(out: str, cases: list[tuple[str, list]], outcomes: dict[str, Counter]) -> int:
    passed = 0
    for ln in out.splitlines():
        if ln.startswith("ok "):
            _, index, outcome = ln.split()
            outcomes.setdefault(cases[int(index)][0], Counter())[outcome] += 1
            passed += 1
    return passed


if __name__ == "__main__":
    _child()
