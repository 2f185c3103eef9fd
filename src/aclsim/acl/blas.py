"""`acl.blas`: the CBLAS calls (GEMM and GEMV), computed with numpy on emulated device memory.

Signatures and argument formats follow pyACL's `python/pyACL/blas/blas.cpp` (e.g. gemv_ex parses
"iiikkiikiikkiiik"); semantics the aclblas reference: row-major matrices, C = alpha * op(A) op(B) + beta * C
(y = alpha * op(A) x + beta * y), alpha and beta pointers to device memory of C's (y's) type, lda/ldb/ldc
and incx/incy reserved (-1), transC ACL_TRANS_N only. The work is queued on the stream like a kernel.
The device runs these through the GEMM single operator whose model `atc --singleop` builds; aclsim
computes them directly and does not ask for that model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import AclError, Code
from ..models import types as T
from . import _device
from ._args import pyacl
from ._missing import R, generic, not_emulated

ACL_TRANS_N, ACL_TRANS_T = 0, 1
# (A, B/x, C/y) data types the aclblas reference lists for the *_ex calls
_EX_TYPES = {(T.ACL_FLOAT16, T.ACL_FLOAT16, T.ACL_FLOAT16), (T.ACL_FLOAT16, T.ACL_FLOAT16, T.ACL_FLOAT),
             (T.ACL_INT8, T.ACL_INT8, T.ACL_FLOAT), (T.ACL_INT8, T.ACL_INT8, T.ACL_INT32),
             (T.ACL_FLOAT, T.ACL_FLOAT, T.ACL_FLOAT)}


def _check(fn: str, cond: bool, msg: str) -> None:
    if not cond:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {msg}")


def _trans(fn: str, name: str, t: int) -> bool:
    _check(fn, t in (ACL_TRANS_N, ACL_TRANS_T), f"{name} {t}: aclsim emulates ACL_TRANS_N (0) and ACL_TRANS_T (1) "
           "(the fractal NZ layouts are not emulated)")
    return t == ACL_TRANS_T


def _run(fn: str, name: str, types: tuple[int, int, int], stream: int, shapes: list[tuple[int, ...]],
         ptrs: list[int], trans: tuple[bool, bool]) -> None:
    """Queue out = alpha * op(a) @ op(b) + beta * out; `shapes`/`ptrs` for a, b, out as stored, then alpha, beta."""
    _check(fn, types in _EX_TYPES, f"data types (A, B, C) = {types} are not a combination aclblas supports")
    _device.require_context(fn)
    _check(fn, all(d > 0 for s in shapes for d in s), f"the sizes must be > 0, got {shapes[:3]}")
    dts = [T.numpy_dtype(types[0]), T.numpy_dtype(types[1]), T.numpy_dtype(types[2])]
    dts += [dts[2], dts[2]]
    what = ["A", "B" if name.endswith("gemm") else "x", "C" if name.endswith("gemm") else "y", "alpha", "beta"]
    mems = [_device.memory(p, int(np.prod(s)) * dt.itemsize, k == 2, fn, w)
            for k, (p, s, dt, w) in enumerate(zip(ptrs, shapes, dts, what, strict=True))]
    for mem, w in zip(mems, what, strict=True):
        _check(fn, mem.on_device, f"{w} {mem.addr:#x} is host memory; aclblas works on device memory")
    acc = np.int64 if types[0] == T.ACL_INT8 else np.float32  # int8 accumulates exactly; fp16 in float32

    def run() -> None:
        a, b, out, alpha, beta = (m.array(dt, s) for m, dt, s in zip(mems, dts, shapes, strict=True))
        a = a.T if trans[0] else a
        b = b.T if trans[1] else b
        prod = a.astype(acc) @ b.astype(acc)
        res = alpha.astype(acc)[0] * prod + beta.astype(acc)[0] * out.astype(acc)
        out[...] = res.astype(dts[2])

    # C is an input of the GEMM operator too (read even when beta is 0, as the device's operator does)
    _device.enqueue(stream, "kernel", name, run, mems, [mems[2]], fn, engine="numpy")


def _gemm(fn: str, name: str, ta: int, tb: int, tc: int, m: int, n: int, k: int, alpha: int, a: int, lda: int,
          b: int, ldb: int, beta: int, c: int, ldc: int, types: tuple[int, int, int], stream: int) -> None:
    trans = (_trans(fn, "transA", ta), _trans(fn, "transB", tb))
    _check(fn, tc == ACL_TRANS_N, f"transC {tc}: only ACL_TRANS_N (0) is supported")
    _check(fn, lda == ldb == ldc == -1, f"lda/ldb/ldc ({lda}, {ldb}, {ldc}) are reserved and must be -1")
    sa = (k, m) if trans[0] else (m, k)
    sb = (n, k) if trans[1] else (k, n)
    _run(fn, name, types, stream, [sa, sb, (m, n), (1,), (1,)], [a, b, c, alpha, beta], trans)


def _gemv(fn: str, name: str, ta: int, m: int, n: int, alpha: int, a: int, lda: int, x: int, incx: int, beta: int,
          y: int, incy: int, types: tuple[int, int, int], stream: int) -> None:
    t = _trans(fn, "transA", ta)
    _check(fn, lda == -1, f"lda {lda} is reserved and must be -1")
    _check(fn, incx == incy == -1, f"incx/incy ({incx}, {incy}) are reserved and must be -1")
    xlen, ylen = (m, n) if t else (n, m)
    _run(fn, name, types, stream, [(m, n), (xlen, 1), (ylen, 1), (1,), (1,)], [a, x, y, alpha, beta], (t, False))


@pyacl("acl.blas.gemm_ex", "iiiiiikkiikiikkiiik")
def gemm_ex(ta: int, tb: int, tc: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, type_a: int, b: int,
            ldb: int, type_b: int, beta: int, c: int, ldc: int, type_c: int, compute_type: int, stream: int) -> None:
    _gemm("acl.blas.gemm_ex", "gemm_ex", ta, tb, tc, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
          (type_a, type_b, type_c), stream)


@pyacl("acl.blas.hgemm", "iiiiiikkikikkiik")
def hgemm(ta: int, tb: int, tc: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, b: int, ldb: int,
          beta: int, c: int, ldc: int, compute_type: int, stream: int) -> None:
    _gemm("acl.blas.hgemm", "hgemm", ta, tb, tc, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
          (T.ACL_FLOAT16,) * 3, stream)


@pyacl("acl.blas.s8gemm", "iiiiiikkikikkiik")
def s8gemm(ta: int, tb: int, tc: int, m: int, n: int, k: int, alpha: int, a: int, lda: int, b: int, ldb: int,
           beta: int, c: int, ldc: int, compute_type: int, stream: int) -> None:
    _gemm("acl.blas.s8gemm", "s8gemm", ta, tb, tc, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
          (T.ACL_INT8, T.ACL_INT8, T.ACL_INT32), stream)


@pyacl("acl.blas.gemv_ex", "iiikkiikiikkiiik")
def gemv_ex(ta: int, m: int, n: int, alpha: int, a: int, lda: int, type_a: int, x: int, incx: int, type_x: int,
            beta: int, y: int, incy: int, type_y: int, compute_type: int, stream: int) -> None:
    _gemv("acl.blas.gemv_ex", "gemv_ex", ta, m, n, alpha, a, lda, x, incx, beta, y, incy, (type_a, type_x, type_y),
          stream)


@pyacl("acl.blas.hgemv", "iiikkikikkiik")
def hgemv(ta: int, m: int, n: int, alpha: int, a: int, lda: int, x: int, incx: int, beta: int, y: int, incy: int,
          compute_type: int, stream: int) -> None:
    _gemv("acl.blas.hgemv", "hgemv", ta, m, n, alpha, a, lda, x, incx, beta, y, incy, (T.ACL_FLOAT16,) * 3, stream)


@pyacl("acl.blas.s8gemv", "iiikkikikkiik")
def s8gemv(ta: int, m: int, n: int, alpha: int, a: int, lda: int, x: int, incx: int, beta: int, y: int, incy: int,
           compute_type: int, stream: int) -> None:
    _gemv("acl.blas.s8gemv", "s8gemv", ta, m, n, alpha, a, lda, x, incx, beta, y, incy,
          (T.ACL_INT8, T.ACL_INT8, T.ACL_INT32), stream)


_HANDLES = "operator handles for the CBLAS calls are not emulated; call acl.blas.gemm_ex / gemv_ex & co directly"
__getattr__: Any = not_emulated("acl.blas", [(r"create_handle_for_\w+", (0, R), _HANDLES), *generic(_HANDLES)])
