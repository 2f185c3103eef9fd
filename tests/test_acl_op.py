"""acl.op: single operators on device buffers, checked against numpy."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from aclsim import acl
from aclsim.cli import main as cli

ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64, ND = 0, 1, 3, 9, 2
DTYPES = {np.dtype(np.float32): ACL_FLOAT, np.dtype(np.float16): ACL_FLOAT16, np.dtype(np.int32): ACL_INT32,
          np.dtype(np.int64): ACL_INT64, np.dtype(np.int8): 2}  # ACL_INT8


@pytest.fixture
def stream():
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    yield s
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()


class Tensor:
    """A device tensor with its description and data buffer, as the single-operator samples build them."""

    def __init__(self, shape, dtype, data=None):
        self.shape, self.dtype = list(shape), np.dtype(dtype)
        self.desc = acl.create_tensor_desc(DTYPES[self.dtype], self.shape, ND)
        self.nbytes = max(acl.get_tensor_desc_size(self.desc), 1)
        self.dev, ret = acl.rt.malloc(self.nbytes, 0)
        assert ret == 0
        self.buf = acl.create_data_buffer(self.dev, self.nbytes)
        if data is not None:
            raw = np.ascontiguousarray(data, self.dtype).tobytes()
            assert acl.rt.memcpy(self.dev, self.nbytes, acl.util.bytes_to_ptr(raw), len(raw), 1) == 0

    def numpy(self):
        host = bytes(self.nbytes)
        assert acl.rt.memcpy(acl.util.bytes_to_ptr(host), self.nbytes, self.dev, self.nbytes, 2) == 0
        return np.frombuffer(host, self.dtype)[: int(np.prod(self.shape))].reshape(self.shape)


def attr(**values):
    a = acl.op.create_attr()
    for k, v in values.items():
        if isinstance(v, bool):
            assert acl.op.set_attr_bool(a, k, int(v)) == 0
        elif isinstance(v, int):
            assert acl.op.set_attr_int(a, k, v) == 0
        elif isinstance(v, float):
            assert acl.op.set_attr_float(a, k, v) == 0
        elif isinstance(v, str):
            assert acl.op.set_attr_string(a, k, v) == 0
        else:
            assert acl.op.set_attr_list_int(a, k, list(v)) == 0
    return a


def compute(stream, op, inputs, out_shape, out_dtype=np.float32, **attrs):
    """compile_and_execute one operator; returns the output as numpy."""
    out = Tensor(out_shape, out_dtype)
    a = attr(**attrs)
    ret = acl.op.compile_and_execute(op, [t.desc for t in inputs], [t.buf for t in inputs], [out.desc], [out.buf],
                                     a, 0, 0, None, stream)
    assert ret == 0, acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(stream) == 0, acl.get_recent_err_msg()
    acl.op.destroy_attr(a)
    return out.numpy()


def test_add_sample_flow_with_singleop_models(tmp_path, stream):
    ops_json = [{"op": "Add", "input_desc": [{"format": "ND", "shape": [8, 16], "type": "int32"}] * 2,
                 "output_desc": [{"format": "ND", "shape": [8, 16], "type": "int32"}]}]
    (tmp_path / "ops.json").write_text(json.dumps(ops_json))
    assert cli(["atc", f"--singleop={tmp_path / 'ops.json'}", f"--output={tmp_path / 'op_models'}",
                "--soc_version=Ascend910B1"]) == 0
    rng = np.random.default_rng(0)
    a, b = rng.integers(-100, 100, (8, 16), dtype=np.int32), rng.integers(-100, 100, (8, 16), dtype=np.int32)
    x1, x2, y = Tensor(a.shape, np.int32, a), Tensor(b.shape, np.int32, b), Tensor(a.shape, np.int32)
    args = ([x1.desc, x2.desc], [x1.buf, x2.buf], [y.desc], [y.buf], acl.op.create_attr(), stream)
    assert acl.op.execute_v2("Add", *args) == 100024  # ACL_ERROR_OP_NOT_FOUND: no model loaded yet
    assert "aclsim atc --singleop" in acl.get_recent_err_msg()
    assert acl.op.set_model_dir(str(tmp_path / "op_models")) == 0
    assert acl.op.execute_v2("Add", *args) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(y.numpy(), a + b)
    f = Tensor([8, 16], np.float32)
    assert acl.op.execute_v2("Add", [f.desc, f.desc], [f.buf, f.buf], [f.desc], [f.buf], 0, stream) == 100024


def test_unknown_types_and_bad_singleop_files(tmp_path, stream, capsys):
    x = Tensor([4], np.float32, np.ones(4))
    a = acl.op.create_attr()
    assert acl.op.compile_and_execute("FancyOp", [x.desc], [x.buf], [x.desc], [x.buf], a, 0, 0, None, stream) == 100020
    assert "'FancyOp' is not emulated" in acl.get_recent_err_msg()
    assert acl.op.update_params("FancyOp", [x.desc], [x.desc], a) == 100020
    assert acl.op.update_params("Add", [x.desc, x.desc], [x.desc], a) == 0
    assert acl.op.update_params("Add", [x.desc], [x.desc], a) == 100021  # Add takes x1 and x2
    (tmp_path / "ops.json").write_text(json.dumps([{"op": "FancyOp", "input_desc": [], "output_desc": []}]))
    assert cli(["atc", f"--singleop={tmp_path / 'ops.json'}", f"--output={tmp_path / 'd'}"]) == 1
    assert "'FancyOp' is not emulated" in capsys.readouterr().err
    real = tmp_path / "real"
    real.mkdir()
    (real / "0_Add.om").write_bytes(b"IMOD" + bytes(64))
    assert acl.op.set_model_dir(str(real)) == 100025  # ACL_ERROR_OP_LOAD_FAILED
    assert "aclsim atc --singleop" in acl.get_recent_err_msg()
    assert acl.op.set_model_dir(str(tmp_path / "missing")) == 100000


def test_elementwise_activation_and_matmul(stream):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    ta, tb = Tensor(a.shape, np.float32, a), Tensor(b.shape, np.float32, b)
    np.testing.assert_allclose(compute(stream, "Mul", [ta, tb], a.shape), a * b, rtol=1e-6)
    np.testing.assert_allclose(compute(stream, "Maximum", [ta, tb], a.shape), np.maximum(a, b))
    np.testing.assert_allclose(compute(stream, "Relu", [ta], a.shape), np.maximum(a, 0))
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(compute(stream, "SoftmaxV2", [ta], a.shape, axes=[1]), e / e.sum(1, keepdims=True),
                               rtol=1e-5)
    np.testing.assert_allclose(compute(stream, "LeakyRelu", [ta], a.shape, negative_slope=0.1),
                               np.where(a > 0, a, 0.1 * a), rtol=1e-6)
    np.testing.assert_allclose(compute(stream, "MatMul", [ta, tb], (3, 3), transpose_x2=True), a @ b.T, rtol=1e-5)
    c = rng.standard_normal((2, 3, 4)).astype(np.float32)
    tc = Tensor(c.shape, np.float32, c)
    np.testing.assert_allclose(compute(stream, "BatchMatMul", [tc, tc], (2, 3, 3), adj_x2=True),
                               c @ c.transpose(0, 2, 1), rtol=1e-5)


def test_gemm_the_operator_aclblas_runs(stream):
    """GEMM (a, b, c, alpha, beta; transpose_a/b): what `atc --singleop` builds for aclblas samples; float16 a and
    b accumulate in float32; the output is c's type; types outside aclblas's combinations are refused."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((5, 3)).astype(np.float16), rng.standard_normal((5, 4)).astype(np.float16)
    c = rng.standard_normal((3, 4)).astype(np.float32)
    al, be = np.array(1.5, np.float32), np.array(-0.5, np.float32)
    ins = [Tensor(x.shape, x.dtype, x) for x in (a, b, c, al, be)]
    want = 1.5 * (a.astype(np.float32).T @ b.astype(np.float32)) - 0.5 * c
    np.testing.assert_allclose(compute(stream, "GEMM", ins, (3, 4), transpose_a=True), want, rtol=1e-5, atol=1e-6)
    i8 = [Tensor((2, 2), np.int8, np.array([[100, -7], [3, 127]], np.int8)),
          Tensor((2, 2), np.int8, np.eye(2, dtype=np.int8))]
    i32 = [Tensor(s, np.int32, v) for s, v in (((2, 2), np.ones((2, 2), np.int32)), ((), np.array(3, np.int32)),
                                              ((), np.array(2, np.int32)))]
    np.testing.assert_array_equal(compute(stream, "GEMM", i8 + i32, (2, 2), np.int32),
                                  [[302, -19], [11, 383]])
    out = Tensor((3, 4), np.float32)
    wrong = [Tensor(x.shape, np.float32, x.astype(np.float32)) for x in (a, b)] + ins[2:]
    ret = acl.op.compile_and_execute("GEMM", [x.desc for x in wrong], [x.buf for x in wrong], [out.desc], [out.buf],
                                     attr(), 0, 0, None, stream)
    assert ret == 100021 and "GEMM: inputs a, b, c, alpha, beta are float32" in acl.get_recent_err_msg()


def test_shape_operators(stream):
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    t = Tensor(x.shape, np.float32, x)
    np.testing.assert_array_equal(compute(stream, "TransposeD", [t], (4, 2, 3), perm=[2, 0, 1]), x.transpose(2, 0, 1))
    perm = Tensor([3], np.int32, [1, 2, 0])
    np.testing.assert_array_equal(compute(stream, "Transpose", [t, perm], (3, 4, 2)), x.transpose(1, 2, 0))
    np.testing.assert_array_equal(compute(stream, "SliceD", [t], (1, 2, 2), offsets=[1, 0, 1], size=[1, 2, 2]),
                                  x[1:2, 0:2, 1:3])
    off, size = Tensor([3], np.int64, [0, 1, 0]), Tensor([3], np.int64, [2, -1, 3])
    np.testing.assert_array_equal(compute(stream, "Slice", [t, off, size], (2, 2, 3)), x[:, 1:, :3])
    np.testing.assert_array_equal(compute(stream, "StridedSliceD", [t], (2, 2, 2), begin=[0, 0, 0], end=[2, 3, 4],
                                          strides=[1, 2, 2]), x[:, ::2, ::2])
    np.testing.assert_array_equal(compute(stream, "ConcatD", [t, t], (2, 6, 4), concat_dim=1, N=2),
                                  np.concatenate([x, x], 1))
    np.testing.assert_allclose(compute(stream, "ReduceSumD", [t], (2, 1, 4), axes=[1], keep_dims=True),
                               x.sum(1, keepdims=True))
    axes = Tensor([1], np.int64, [2])
    np.testing.assert_allclose(compute(stream, "ReduceMax", [t, axes], (2, 3)), x.max(2))
    np.testing.assert_allclose(compute(stream, "ReduceMeanD", [t], ()), x.mean(), rtol=1e-6)


def conv2d_reference(x, w, b, stride, pad):
    n, _, h, wd = x.shape
    o, _c, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return (out + b.reshape(1, -1, 1, 1)).astype(np.float32)


def test_conv2d(stream):
    rng = np.random.default_rng(2)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((1, 3, 7, 7), (4, 3, 3, 3), (4,)))
    tx, tw, tb = Tensor(x.shape, np.float32, x), Tensor(w.shape, np.float32, w), Tensor(b.shape, np.float32, b)
    got = compute(stream, "Conv2D", [tx, tw, tb], (1, 4, 4, 4), strides=[1, 1, 2, 2], pads=[1, 1, 1, 1],
                  dilations=[1, 1, 1, 1], data_format="NCHW")
    np.testing.assert_allclose(got, conv2d_reference(x, w, b, 2, 1), rtol=1e-4, atol=1e-5)


def test_cast_needs_a_cast_model_and_converts(tmp_path, stream):
    x = np.array([1.5, -2.25, 3.0, 65504.0], np.float32)
    tx, ty = Tensor(x.shape, np.float32, x), Tensor(x.shape, np.float16)
    assert acl.op.cast(tx.desc, tx.buf, ty.desc, ty.buf, 0, stream) == 100024
    ops_json = [{"op": "Cast", "input_desc": [{"format": "ND", "shape": [-1], "type": "float32"}],
                 "output_desc": [{"format": "ND", "shape": [-1], "type": "float16"}]}]
    (tmp_path / "cast.json").write_text(json.dumps(ops_json))
    assert cli(["atc", f"--singleop={tmp_path / 'cast.json'}", f"--output={tmp_path / 'm'}"]) == 0
    assert acl.op.set_model_dir(str(tmp_path / "m")) == 0
    assert acl.op.cast(tx.desc, tx.buf, ty.desc, ty.buf, 0, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(ty.numpy(), x.astype(np.float16))


def test_wrong_output_shape_fails_the_stream_with_the_reason(stream):
    x = Tensor([2, 3], np.float32, np.ones((2, 3)))
    y = Tensor([3, 2], np.float32)
    a = acl.op.create_attr()
    assert acl.op.compile_and_execute("Relu", [x.desc], [x.buf], [y.desc], [y.buf], a, 0, 0, None, stream) == 100022
    assert "produces output 0 as float32[2, 3]" in acl.get_recent_err_msg()  # at the call, not at synchronize
    assert acl.rt.synchronize_stream(stream) == 0


def test_argument_rules(stream):
    x = Tensor([4], np.float32, np.ones(4))
    small = Tensor([2], np.float32)
    a = acl.op.create_attr()
    assert acl.op.compile_and_execute("Relu", [x.desc], [small.buf], [x.desc], [x.buf], a, 0, 0, None,
                                      stream) == 100021
    assert acl.op.compile_and_execute("Relu", [x.desc], [x.buf, x.buf], [x.desc], [x.buf], a, 0, 0, None,
                                      stream) == 100000
    with pytest.raises(TypeError, match="args parse failed"):
        acl.op.execute_v2("Relu", x.desc, [x.buf], [x.desc], [x.buf], a, stream)
    with pytest.raises(TypeError, match="args parse failed"):
        acl.op.set_attr_list_int(a, "axes", [1.5])
    assert acl.op.set_attr_int(0, "x", 1) == 100000


def test_without_onnx_the_call_itself_says_which_pip_command_fixes_it(tmp_path, stream, monkeypatch, capsys):
    import sys

    x = Tensor([4], np.float32, np.arange(4))
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"pip install 'aclsim\[models\]'"):
        acl.op.compile_and_execute("Relu", [x.desc], [x.buf], [x.desc], [x.buf], 0, 0, 0, None, stream)
    (tmp_path / "ops.json").write_text(json.dumps([{"op": "Relu", "input_desc": [{"format": "ND", "shape": [4],
                                                    "type": "float"}], "output_desc": [{"format": "ND", "shape": [4],
                                                                                        "type": "float"}]}]))
    assert cli(["atc", f"--singleop={tmp_path / 'ops.json'}", f"--output={tmp_path / 'm'}"]) == 1
    assert "pip install 'aclsim[models]'" in capsys.readouterr().err


def test_singleop_files_are_named_as_atc_names_them(tmp_path):
    """index, op type, then per tensor its aclDataType, aclFormat and dims: programs open these files by name."""
    ops = [{"op": "Add", "input_desc": [{"format": "ND", "shape": [192, 1], "type": "float16"}] * 2,
            "output_desc": [{"format": "ND", "shape": [192, 1], "type": "float16"}]},
           {"op": "Add", "input_desc": [{"format": "NCHW", "shape": [8, 16], "type": "int32"},
                                        {"format": "NCHW", "shape": [-1, 16], "type": "int32"}],
            "output_desc": [{"format": "NCHW", "shape": [-2], "type": "int32"}]}]
    (tmp_path / "ops.json").write_text(json.dumps(ops))
    assert cli(["atc", f"--singleop={tmp_path / 'ops.json'}", f"--output={tmp_path / 'm'}",
                "--soc_version=Ascend910B1"]) == 0
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == [
        "0_Add_1_2_192_1_1_2_192_1_1_2_192_1.om", "1_Add_3_0_8_16_3_0_-1_16_3_0_-2.om"]
    ops[0]["input_desc"] = [{"format": "NOPE", "shape": [1], "type": "float16"}] * 2
    (tmp_path / "ops.json").write_text(json.dumps(ops))
    assert cli(["atc", f"--singleop={tmp_path / 'ops.json'}", f"--output={tmp_path / 'n'}"]) == 1


def test_host_memory_as_an_operand_is_refused_in_ep_mode_and_named_by_check(stream, monkeypatch):
    """The NPU cannot read a host pointer over PCIe: execute refuses it (100000) instead of returning 0; on a
    device-side program (RC mode) host and device share memory and it runs."""
    from aclsim.check import Session

    a = np.arange(16, dtype=np.float32)
    x, y = Tensor([16], np.float32, a), Tensor([16], np.float32)
    host_buf = acl.create_data_buffer(a.ctypes.data, a.nbytes)
    args = ([x.desc, x.desc], [x.buf, host_buf], [y.desc], [y.buf], acl.op.create_attr(), 0, 0, None, stream)
    s = Session({"memcheck"}, out=None)
    assert acl.op.compile_and_execute("Add", *args) == 100000
    s.stop()
    assert "input 1 is host memory" in acl.get_recent_err_msg()
    assert [f.kind for f in s.findings] == ["host-operand"] and s.findings[0].code == 100000
    monkeypatch.setenv("ACLSIM_RUN_MODE", "rc")
    assert acl.op.compile_and_execute("Add", *args) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(y.numpy(), a + a)


ARITY = [  # (operator, number of inputs, number of outputs, code, words of the message) (issue 23, defect 2)
    ("Add", 0, 1, 100021, "Add takes 2 inputs (x1, x2), got 0"),
    ("Add", 1, 1, 100021, "Add takes 2 inputs (x1, x2), got 1"),
    ("Add", 3, 1, 100021, "Add takes 2 inputs (x1, x2), got 3"),
    ("Relu", 0, 1, 100021, "Relu takes 1 input (x), got 0"),
    ("Relu", 2, 1, 100021, "Relu takes 1 input (x), got 2"),
    ("MatMul", 1, 1, 100021, "MatMul takes 2 or 3 inputs (x1, x2, optional bias), got 1"),
    ("Conv2D", 1, 1, 100021, "Conv2D takes 2 or 3 inputs (x, filter, optional bias), got 1"),
    ("ArgMaxV2", 1, 1, 100021, "ArgMaxV2 takes 2 inputs (x, dimension), got 1"),
    ("ConcatV2", 1, 1, 100021, "ConcatV2 takes 2 or more inputs"),
    ("Add", 2, 2, 100022, "Add has 1 output (y), got 2"),
    ("Add", 2, 0, 100022, "Add has 1 output (y), got 0"),
]


@pytest.mark.parametrize("op,n_in,n_out,code,words", ARITY, ids=[f"{a[0]}-{a[1]}in-{a[2]}out" for a in ARITY])
def test_the_operator_arity_is_checked_at_the_call(stream, op, n_in, n_out, code, words):
    x = Tensor([2, 2, 2, 2], np.float32, np.ones(16))
    ys = [Tensor([2, 2, 2, 2], np.float32) for _ in range(n_out)]
    ret = acl.op.compile_and_execute(op, [x.desc] * n_in, [x.buf] * n_in, [y.desc for y in ys], [y.buf for y in ys],
                                     0, 0, 0, None, stream)
    assert ret == code
    assert words in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(stream) == 0  # nothing was queued: the stream has nothing to report
    assert all(not y.numpy().any() for y in ys)  # and no output was written


def test_operator_data_types_are_checked_at_the_call(stream):
    f, i = Tensor([4], np.float32, np.ones(4)), Tensor([4], np.int32, np.ones(4))
    call = acl.op.compile_and_execute
    assert call("Add", [f.desc, i.desc], [f.buf, i.buf], [f.desc], [f.buf], 0, 0, 0, None, stream) == 100021
    assert "input 1 (x2) is int32, input 0 (x1) is float32: they must have one data type" in acl.get_recent_err_msg()
    assert call("Add", [f.desc, f.desc], [f.buf, f.buf], [i.desc], [i.buf], 0, 0, 0, None, stream) == 100022
    assert "output 0 (y) is int32, Add of float32 gives float32" in acl.get_recent_err_msg()
    assert call("Exp", [i.desc], [i.buf], [i.desc], [i.buf], 0, 0, 0, None, stream) == 100021
    assert "Exp computes float16, float32 or float64" in acl.get_recent_err_msg()
    assert call("Transpose", [f.desc, f.desc], [f.buf, f.buf], [f.desc], [f.buf], 0, 0, 0, None, stream) == 100021
    assert "input 1 (perm) is float32[4]; it holds indices" in acl.get_recent_err_msg()
    m = Tensor([3, 5], np.float32)
    assert call("MatMul", [f.desc, m.desc], [f.buf, m.buf], [m.desc], [m.buf], 0, 0, 0, None, stream) == 100021
    assert "MatMul cannot run on inputs" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(stream) == 0


def test_an_operator_missing_a_required_attribute_says_which(stream):
    # Found by the fuzz suite: TransposeD without `perm` used to fail inside onnx's node builder.
    x = Tensor([], np.float32, np.ones(()))
    ret = acl.op.compile_and_execute("TransposeD", [x.desc], [x.buf], [x.desc], [x.buf], 0, 0, 0, None, stream)
    assert ret == 100021
    assert "the attribute perm is required" in acl.get_recent_err_msg()
