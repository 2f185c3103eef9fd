"""aclsim.asc speed: per-call overhead of the tile API, and AddCustom against numpy's `x + y`.

Run: python benchmarks/bench_asc.py. Prints microseconds per call and time ratios measured in
this run (best of several repeats); no figure is hard-coded.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "asc"))

from add_custom import add_custom

import aclsim
import aclsim.asc as asc

TILE = 128
ITERS = 5000
REPEATS = 5  # the kernel runs this many times; each figure is the best run (the machine is shared)
timings: dict[str, float] = {}


def record(name: str, seconds: float) -> None:
    timings[name] = min(seconds, timings.get(name, seconds))


@asc.jit
def overhead(x: asc.GlobalAddress, z: asc.GlobalAddress, iters: int):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qi, 2, TILE * 2)
    pipe.init_buffer(qo, 2, TILE * 2)
    clock = time.perf_counter

    t0 = clock()
    for _ in range(iters):
        t = qi.alloc_tensor(asc.half)
        qi.free_tensor(t)
    record("alloc_tensor + free_tensor", (clock() - t0) / (2 * iters))

    t = qi.alloc_tensor(asc.half)
    t0 = clock()
    for _ in range(iters):
        asc.data_copy(t, xg, TILE)
    record("data_copy GM->UB", (clock() - t0) / iters)

    t0 = clock()
    for _ in range(iters):
        u = qo.alloc_tensor(asc.half)
        qo.enque(u)
        u = qo.deque(asc.half)
        qo.free_tensor(u)
    record("alloc + enque + deque + free", (clock() - t0) / (4 * iters))

    o = qo.alloc_tensor(asc.half)
    t0 = clock()
    for _ in range(iters):
        asc.add(o, t, t, TILE)
    record("add", (clock() - t0) / iters)

    t0 = clock()
    for _ in range(iters):
        asc.data_copy(zg, o, TILE)
    record("data_copy UB->GM", (clock() - t0) / iters)
    qi.free_tensor(t)
    qo.free_tensor(o)

    t0 = clock()
    for _ in range(iters):  # one double-buffer step: 9 tile API calls
        a = qi.alloc_tensor(asc.half)
        asc.data_copy(a, xg, TILE)
        qi.enque(a)
        a = qi.deque(asc.half)
        b = qo.alloc_tensor(asc.half)
        asc.add(b, a, a, TILE)
        qi.free_tensor(a)
        asc.data_copy(zg, b, TILE)
        qo.free_tensor(b)
    record("pipeline step (9 calls), per call", (clock() - t0) / (9 * iters))


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def add_custom_vs_numpy(cores: int, per_core: int, repeat: int) -> None:
    total = cores * per_core
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, total).astype(np.float16)
    y = rng.uniform(-1, 1, total).astype(np.float16)
    z = np.zeros_like(x)
    tile = per_core // 8 // 2
    xd, yd, zd = aclsim.to_device(x), aclsim.to_device(y), aclsim.zeros(total, np.float16)

    def device_only():
        add_custom[cores](xd, yd, zd, per_core, tile)
        aclsim.Stream.default().synchronize()

    t_np = best(lambda: x + y, repeat * 5)
    t_host = best(lambda: add_custom[cores](x, y, z, per_core, tile), repeat)
    t_dev = best(device_only, repeat)
    assert np.array_equal(z, x + y) and np.array_equal(zd.copy_to_host(), x + y)
    calls = cores * 16 * 16  # 16 tiles per core, 16 tile API calls per tile
    print(f"AddCustom {cores} x {per_core} halves (tile {tile}): numpy x+y {t_np * 1e3:.3f} ms; "
          f"kernel on device arrays {t_dev * 1e3:.2f} ms ({t_dev / t_np:.0f}x numpy, "
          f"{t_dev / calls * 1e6:.2f} us per tile API call); with numpy in/out copies {t_host * 1e3:.2f} ms "
          f"({t_host / t_np:.0f}x numpy)")


def main() -> None:
    with aclsim.Device(0):
        x = np.ones(TILE, np.float16)
        for _ in range(REPEATS):
            overhead[1](x, np.zeros_like(x), ITERS)
        print(f"Per-call overhead of the tile API on {TILE}-element half tiles (best of {REPEATS} x {ITERS} calls):")
        for name, secs in timings.items():
            print(f"  {name:<36} {secs * 1e6:6.2f} us")
        a = np.ones(2 * TILE, np.float16)
        src, out = a[:TILE], a[TILE:]
        floor = best(lambda: [np.add(src, src, out=out) for _ in range(ITERS)], REPEATS) / ITERS
        print(f"  {'(numpy np.add on the same tile)':<36} {floor * 1e6:6.2f} us: the part of asc.add that is arithmetic")
        add_custom_vs_numpy(8, 2048, 20)
        add_custom_vs_numpy(48, 65536, 7)


if __name__ == "__main__":
    main()
