"""Integer arithmetic of simt kernels against C's usual arithmetic conversions, for every pair of types."""


import itertools

import numpy as np
import pytest

import aclsim
from aclsim import simt
from aclsim.simt import Ptr, threadIdx

INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def c_type(a, b):
    """C's usual arithmetic conversions (integer promotion, then rank and signedness)."""

    def promote(t):
        return np.int32 if np.dtype(t).itemsize < 4 else t

    a, b = promote(a), promote(b)
    if a == b:
        return a
    da, db = np.dtype(a), np.dtype(b)
    if (da.kind == "u") == (db.kind == "u"):
        return a if da.itemsize >= db.itemsize else b
    u, s = (a, b) if da.kind == "u" else (b, a)
    return u if np.dtype(u).itemsize >= np.dtype(s).itemsize else s


def wrap(v: int, t) -> int:
    d = np.dtype(t)
    bits = d.itemsize * 8
    v &= (1 << bits) - 1
    return v - (1 << bits) if d.kind == "i" and v >= 1 << (bits - 1) else v


def make_kernel(A, B, R):
    @simt.kernel
    def ops(a: Ptr[A], b: Ptr[B], add: Ptr[R], sub: Ptr[R], mul: Ptr[R], div: Ptr[R], rem: Ptr[R],
            lt: Ptr[np.int32]):
        i = threadIdx.x
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]
        rem[i] = a[i] % b[i]
        lt[i] = 1 if a[i] < b[i] else 0

    return ops


@pytest.mark.parametrize(("A", "B"), list(itertools.product(INT_TYPES, INT_TYPES)),
                         ids=lambda t: np.dtype(t).name)
def test_integer_operators_follow_c_conversions(fresh_runtime, A, B):
    R = c_type(A, B)
    rng = np.random.default_rng(abs(hash((np.dtype(A).name, np.dtype(B).name))) % 2**32)
    n = 64
    a = rng.integers(np.iinfo(A).min, np.iinfo(A).max, n, dtype=A, endpoint=True)
    b = rng.integers(np.iinfo(B).min, np.iinfo(B).max, n, dtype=B, endpoint=True)
    b[b == 0] = 1
    with aclsim.Device(0):
        outs = [aclsim.zeros(n, R) for _ in range(5)] + [aclsim.zeros(n, np.int32)]
        make_kernel(A, B, R)[1, n](aclsim.to_device(a), aclsim.to_device(b), *outs)
        got = [o.copy_to_host().tolist() for o in outs]
    exp: list[list[int]] = [[], [], [], [], [], []]
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        x, y = wrap(x, R), wrap(y, R)
        q = 0 if y == 0 else (abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1)
        for lst, v in zip(exp, (x + y, x - y, x * y, q, x - y * q, int(x < y)), strict=True):
            lst.append(wrap(v, R) if lst is not exp[5] else v)
    assert got == exp


def make_bit_kernel(A, B, R, P):
    @simt.kernel
    def bitops(a: Ptr[A], b: Ptr[B], band: Ptr[R], bxor: Ptr[R], shl: Ptr[P], shr: Ptr[P]):
        i = threadIdx.x
        band[i] = a[i] & b[i]
        bxor[i] = a[i] ^ b[i]
        shl[i] = a[i] << (b[i] & 7)
        shr[i] = a[i] >> (b[i] & 7)

    return bitops


@pytest.mark.parametrize(("A", "B"), list(itertools.product(INT_TYPES, INT_TYPES)),
                         ids=lambda t: np.dtype(t).name)
def test_bitwise_and_shift_operators_follow_c_conversions(fresh_runtime, A, B):
    R = c_type(A, B)
    P = c_type(A, A)  # a shift has the promoted type of its left operand
    rng = np.random.default_rng(abs(hash((np.dtype(B).name, np.dtype(A).name))) % 2**32)
    n = 64
    a = rng.integers(np.iinfo(A).min, np.iinfo(A).max, n, dtype=A, endpoint=True)
    b = rng.integers(np.iinfo(B).min, np.iinfo(B).max, n, dtype=B, endpoint=True)
    with aclsim.Device(0):
        outs = [aclsim.zeros(n, R), aclsim.zeros(n, R), aclsim.zeros(n, P), aclsim.zeros(n, P)]
        make_bit_kernel(A, B, R, P)[1, n](aclsim.to_device(a), aclsim.to_device(b), *outs)
        got = [o.copy_to_host().tolist() for o in outs]
    exp = [[wrap(wrap(x, R) & wrap(y, R), R) for x, y in zip(a.tolist(), b.tolist(), strict=True)],
           [wrap(wrap(x, R) ^ wrap(y, R), R) for x, y in zip(a.tolist(), b.tolist(), strict=True)],
           [wrap(wrap(x, P) << (y & 7), P) for x, y in zip(a.tolist(), b.tolist(), strict=True)],
           [wrap(wrap(x, P) >> (y & 7), P) for x, y in zip(a.tolist(), b.tolist(), strict=True)]]
    assert got == exp


FLOAT_MIX = [np.float16, np.float32, np.float64, np.int8, np.uint16, np.int32, np.uint64]


def c_float_type(a, b):
    fa, fb = np.dtype(a).kind == "f", np.dtype(b).kind == "f"
    if fa and fb:
        return a if np.dtype(a).itemsize >= np.dtype(b).itemsize else b
    return a if fa else b


def make_float_kernel(A, B, R):
    @simt.kernel
    def fops(a: Ptr[A], b: Ptr[B], add: Ptr[R], sub: Ptr[R], mul: Ptr[R], div: Ptr[R], lt: Ptr[np.int32]):
        i = threadIdx.x
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]
        lt[i] = 1 if a[i] < b[i] else 0

    return fops


@pytest.mark.parametrize(("A", "B"), [(a, b) for a, b in itertools.product(FLOAT_MIX, FLOAT_MIX)
                                      if np.dtype(a).kind == "f" or np.dtype(b).kind == "f"],
                         ids=lambda t: np.dtype(t).name)
def test_float_arithmetic_uses_the_float_operand_type(fresh_runtime, A, B):
    R = c_float_type(A, B)
    rng = np.random.default_rng(5)
    n = 64

    def sample(t):
        return (rng.standard_normal(n) * 100).astype(t) if np.dtype(t).kind == "f" else \
            rng.integers(1, 100, n).astype(t)

    a, b = sample(A), sample(B)
    b[b == 0] = 1
    with aclsim.Device(0):
        outs = [aclsim.zeros(n, R) for _ in range(4)] + [aclsim.zeros(n, np.int32)]
        make_float_kernel(A, B, R)[1, n](aclsim.to_device(a), aclsim.to_device(b), *outs)
        got = [o.copy_to_host() for o in outs]
    x, y = a.astype(R), b.astype(R)
    for g, e in zip(got, (x + y, x - y, x * y, x / y, (x < y).astype(np.int32)), strict=True):
        assert np.array_equal(g, e)
