"""numba's typing on the cuda face: every result type and value checked against numba itself (its CPU
compiler types Python the same way as its CUDA target), on the numpy engine and on the JIT."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aclsim
from aclsim.simt import cuda

numba = pytest.importorskip("numba")

# operand types: every mixture of kinds and widths numba types differently from C (the numpy engine runs all;
# the JIT, whose compilation is slow, the first few)
PAIRS = [(np.int32, np.uint32), (np.float32, np.int64), (np.float32, np.float64), (np.int32, np.int32),
         (np.uint32, np.uint32), (np.int64, np.float32), (np.float64, np.int32), (np.uint32, np.float32),
         (np.int64, np.uint32), (np.float32, np.float32)]
JIT_PAIRS = 3
EXPRS = ["a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "a * 3", "a + 0.1", "-a + 7 // 2",
         "max(a, b) - min(a, 2)", "a < b", "(a + b) * 0.5 if a > b else a - 1"]
ENGINES = ["0", "1"]  # ACLSIM_SIMT_JIT: the numpy engine, the JIT (for every launch it translates)


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def _kernel(tmp_path, expr: str):
    """A kernel computing expr per thread, from a real file (its source must be readable)."""
    path = tmp_path / f"k{abs(hash(expr))}.py"
    path.write_text("from aclsim.simt import cuda\n\n@cuda.jit\ndef k(x, y, out):\n    i = cuda.grid(1)\n"
                    f"    if i < out.size:\n        a = x[i]\n        b = y[i]\n        out[i] = {expr}\n")
    ns: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    return ns["k"]


def _numba_result(expr: str, ta, tb, x, y):
    f = numba.njit(eval(f"lambda a, b: {expr}"))
    got = [f(ta(a), tb(b)) for a, b in zip(x, y, strict=True)]
    rt = np.dtype(str(f.nopython_signatures[0].return_type).replace("bool", "bool_"))
    return np.array(got, rt)


@pytest.mark.parametrize("expr", EXPRS)
def test_arithmetic_follows_numbas_types_and_values(tmp_path, monkeypatch, expr):
    rng = np.random.default_rng(abs(hash(expr)) % 2**32)
    k = _kernel(tmp_path, expr)
    for n, (ta, tb) in enumerate(PAIRS):
        x = (rng.integers(1, 50, 16) * rng.choice([1, -1], 16)).astype(ta) if np.dtype(ta).kind == "i" else \
            rng.integers(1, 50, 16).astype(ta) if np.dtype(ta).kind == "u" else (rng.standard_normal(16) * 9).astype(ta)
        y = rng.integers(1, 9, 16).astype(tb) if np.dtype(tb).kind in "iu" else (rng.random(16) * 4 + 0.5).astype(tb)
        expected = _numba_result(expr, ta, tb, x, y)
        for engine in ENGINES[: 2 if n < JIT_PAIRS else 1]:
            monkeypatch.setenv("ACLSIM_SIMT_JIT", engine)
            out = np.zeros(16, expected.dtype)
            k[1, 16](x, y, out)
            assert out.tobytes() == expected.tobytes(), (expr, ta, tb, engine, out, expected)


@cuda.jit
def literals_and_indices(x, out, ints):
    i = cuda.grid(1)
    out[i] = x[i] * 0.1  # float32 * Python float: float64, as numba
    ints[i, 0] = i - 1  # grid(1) is an int64: -1 at thread 0, no wrap
    ints[i, 1] = math.floor(x[i])  # an int64
    ints[i, 2] = np.int32(2_000_000_000) + np.int32(2_000_000_000)  # int32 + int32 is int64: no wrap
    n = 0
    for _ in range(np.uint32(12), np.uint32(0), -5):  # int64 counter: stops at 2, as numba
        n += 1
    ints[i, 3] = n
    out[i] += math.gamma(ints[i, 3])  # math of an integer: float64


@pytest.mark.parametrize("engine", ENGINES)
def test_the_rows_of_the_typing_table(monkeypatch, engine):
    monkeypatch.setenv("ACLSIM_SIMT_JIT", engine)
    x = np.array([1.5, -2.25, 3.75, 0.5], np.float32)
    out, ints = np.zeros(4), np.zeros((4, 4), np.int64)
    literals_and_indices[1, 4](x, out, ints)
    np.testing.assert_array_equal(out, x.astype(np.float64) * 0.1 + math.gamma(3))
    assert ints[:, 0].tolist() == [-1, 0, 1, 2]
    assert ints[:, 1].tolist() == [1, -3, 3, 0]
    assert ints[:, 2].tolist() == [4_000_000_000] * 4
    assert ints[:, 3].tolist() == [3] * 4
