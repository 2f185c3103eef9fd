"""acl.blas: GEMM / GEMV on device memory, queued on the stream, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from aclsim import acl

ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32 = 0, 1, 2, 3
N, T = 0, 1
H2D, D2H = 1, 2


@pytest.fixture
def stream():
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    yield s
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()


def dev(a: np.ndarray) -> int:
    raw = np.ascontiguousarray(a).tobytes()
    p, ret = acl.rt.malloc(len(raw), 0)
    assert ret == 0 and acl.rt.memcpy(p, len(raw), acl.util.bytes_to_ptr(raw), len(raw), H2D) == 0
    return p


def host(p: int, like: np.ndarray) -> np.ndarray:
    raw = bytes(like.nbytes)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(raw), like.nbytes, p, like.nbytes, D2H) == 0
    return np.frombuffer(raw, like.dtype).reshape(like.shape)


@pytest.mark.parametrize(("ta", "tb"), [(N, N), (T, N), (N, T), (T, T)])
def test_gemm_ex_fp16_in_fp32_out_with_transposes(stream, ta, tb):
    rng = np.random.default_rng(0)
    m, n, k = 5, 7, 3
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float16)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    alpha, beta = np.array([1.5], np.float32), np.array([0.5], np.float32)
    pc = dev(c)
    assert acl.blas.gemm_ex(ta, tb, N, m, n, k, dev(alpha), dev(a), -1, ACL_FLOAT16, dev(b), -1, ACL_FLOAT16,
                            dev(beta), pc, -1, ACL_FLOAT, 0, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    opa = (a.T if ta else a).astype(np.float32)
    opb = (b.T if tb else b).astype(np.float32)
    np.testing.assert_allclose(host(pc, c), 1.5 * opa @ opb + 0.5 * c, rtol=1e-5, atol=1e-5)


def test_s8gemm_accumulates_exactly_in_int32(stream):
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (4, 64), dtype=np.int8)
    b = rng.integers(-128, 128, (64, 6), dtype=np.int8)
    c = rng.integers(-1000, 1000, (4, 6), dtype=np.int32)
    pc = dev(c)
    assert acl.blas.s8gemm(N, N, N, 4, 6, 64, dev(np.array([2], np.int32)), dev(a), -1, dev(b), -1,
                           dev(np.array([-1], np.int32)), pc, -1, 0, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(host(pc, c), 2 * (a.astype(np.int32) @ b.astype(np.int32)) - c)


@pytest.mark.parametrize("ta", [N, T])
def test_hgemv(stream, ta):
    rng = np.random.default_rng(2)
    m, n = 6, 4
    a = rng.standard_normal((m, n)).astype(np.float16)
    x = rng.standard_normal(m if ta else n).astype(np.float16)
    y = rng.standard_normal(n if ta else m).astype(np.float16)
    py = dev(y)
    assert acl.blas.hgemv(ta, m, n, dev(np.array([1.0], np.float16)), dev(a), -1, dev(x), -1,
                          dev(np.array([2.0], np.float16)), py, -1, 0, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    expect = (a.T if ta else a).astype(np.float32) @ x.astype(np.float32) + 2 * y.astype(np.float32)
    np.testing.assert_allclose(host(py, y).astype(np.float32), expect, rtol=2e-3, atol=2e-2)


def test_gemm_argument_rules_and_handles(stream):
    a = dev(np.ones((2, 2), np.float16))
    one = dev(np.ones(1, np.float16))
    call = lambda *over: acl.blas.hgemm(*over, 2, 2, 2, one, a, -1, a, -1, one, a, -1, 0, stream)  # noqa: E731
    assert call(N, N, T) == 100000 and "transC" in acl.get_recent_err_msg()
    assert call(2, N, N) == 100000 and "NZ" in acl.get_recent_err_msg()
    assert acl.blas.hgemm(N, N, N, 2, 2, 2, one, a, 2, a, -1, one, a, -1, 0, stream) == 100000
    assert "reserved and must be -1" in acl.get_recent_err_msg()
    assert acl.blas.gemm_ex(N, N, N, 2, 2, 2, one, a, -1, ACL_INT8, a, -1, ACL_FLOAT16, one, a, -1, ACL_FLOAT, 0,
                            stream) == 100000
    assert "not a combination" in acl.get_recent_err_msg()
    big = acl.blas.hgemm(N, N, N, 64, 64, 64, one, a, -1, a, -1, one, a, -1, 0, stream)
    assert big == 107000 and "past the end" in acl.get_recent_err_msg()  # A needs 8 KiB, the allocation has 8 B
    with pytest.raises(TypeError, match=r"acl\.blas\.hgemm args parse failed"):
        acl.blas.hgemm(N, N, N, 2, 2, 2, one, a, -1, a, -1, one, a, -1, 0)
    with pytest.warns(UserWarning, match="not emulated"):
        assert acl.blas.create_handle_for_hgemm(N, N, N, 2, 2, 2, 0) == (0, 200001)
