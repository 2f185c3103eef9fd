"""aclsim.asc.adv speed: microseconds per call of the high-level math APIs against numpy on the same data.

Run: python benchmarks/bench_asc_adv.py. Each API runs on 8192 float32 elements in UB (softmax on 8 x 1024);
figures are the best of several runs measured now (the machine is shared); no figure is hard-coded.
"""

from __future__ import annotations

import math
import time

import numpy as np

import aclsim.asc as asc

N, ROWS = 8192, 8
CALLS = 200
REPEATS = 5
timings: dict[str, float] = {}


@asc.jit
def calls(x: asc.GlobalAddress, op: str):
    a = asc.LocalTensorAuto(asc.float32, N)
    b = asc.LocalTensorAuto(asc.float32, N)
    stats = [asc.LocalTensorAuto(asc.float32, ROWS * 8) for _ in range(2)]
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    asc.data_copy(a, g, N)
    a.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (ROWS, N // ROWS))))
    t0 = time.perf_counter()
    for _ in range(CALLS):
        if op == "softmax":
            asc.adv.softmax(b, stats[0], stats[1], a, asc.adv.SoftmaxTiling())
        elif op == "power":
            asc.adv.power(b, a, a, N)
        else:
            getattr(asc.adv, op)(b, a, N)
    seconds = (time.perf_counter() - t0) / CALLS
    timings[op] = min(seconds, timings.get(op, seconds))


def _softmax(v: np.ndarray) -> np.ndarray:
    v = v.reshape(ROWS, -1)
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


NUMPY = {"tanh": np.tanh, "sin": np.sin, "log": np.log, "round": np.rint, "erf": np.vectorize(math.erf),
         "power": lambda v: np.power(v, v), "softmax": _softmax}


def best_numpy(fn, x: np.ndarray) -> float:
    best = math.inf
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(CALLS if fn is not NUMPY["erf"] else 5):
            fn(x)
        best = min(best, (time.perf_counter() - t0) / (CALLS if fn is not NUMPY["erf"] else 5))
    return best


def main() -> None:
    x = np.random.default_rng(0).uniform(0.1, 0.9, N).astype(np.float32)
    for op in NUMPY:
        for _ in range(REPEATS):
            calls[1](x, op)
    print(f"asc.adv on {N} float32 (softmax: {ROWS} x {N // ROWS}), best of {REPEATS}:")
    for op, fn in NUMPY.items():
        ref = best_numpy(fn, x)
        what = "np.vectorize(math.erf)" if op == "erf" else "numpy"
        print(f"  {op:8s} {timings[op] * 1e6:9.1f} us/call   {what} {ref * 1e6:9.1f} us   "
              f"ratio {timings[op] / ref:5.2f}")


if __name__ == "__main__":
    main()
