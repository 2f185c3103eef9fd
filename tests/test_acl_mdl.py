"""acl.mdl and `aclsim atc`: ONNX models converted and run as pyACL programs run OM models."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from aclsim import acl
from aclsim.check import Session
from aclsim.cli import main as cli
from onnx_models import cnn, mlp, mlp_reference, run_onnx, save

ACL_FLOAT, ACL_FLOAT16, ACL_UINT8, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND = 0, 1, 4, 0, 1, 2
H2D, D2H = 1, 2


@pytest.fixture
def ctx():
    acl.init()
    acl.rt.set_device(0)
    context, _ = acl.rt.create_context(0)
    yield context
    acl.rt.destroy_context(context)
    acl.rt.reset_device(0)
    acl.finalize()


def atc(tmp_path, model, name="m", *flags) -> str:
    src = save(model, tmp_path / f"{name}.onnx")
    out = tmp_path / name
    assert cli(["atc", f"--model={src}", "--framework=5", f"--output={out}", "--soc_version=Ascend310P3",
                *flags]) == 0
    return str(out) + ".om"


class Net:
    """The official samples' pattern: load, describe, one device buffer per input/output, datasets."""

    def __init__(self, path: str) -> None:
        self.model_id, ret = acl.mdl.load_from_file(path)
        assert ret == 0, acl.get_recent_err_msg()
        self.desc = acl.mdl.create_desc()
        assert acl.mdl.get_desc(self.desc, self.model_id) == 0
        self.ins = self._alloc(acl.mdl.get_num_inputs(self.desc), acl.mdl.get_input_size_by_index)
        self.outs = self._alloc(acl.mdl.get_num_outputs(self.desc), acl.mdl.get_output_size_by_index)
        self.in_ds, self.out_ds = self._dataset(self.ins), self._dataset(self.outs)

    def _alloc(self, n, size_of):
        out = []
        for i in range(n):
            size = size_of(self.desc, i)
            ptr, ret = acl.rt.malloc(size, 0)
            assert ret == 0
            out.append((ptr, size))
        return out

    @staticmethod
    def _dataset(bufs):
        ds = acl.mdl.create_dataset()
        for ptr, size in bufs:
            _, ret = acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(ptr, size))
            assert ret == 0
        return ds

    def put(self, i: int, array: np.ndarray) -> None:
        data = np.ascontiguousarray(array).tobytes()
        assert acl.rt.memcpy(self.ins[i][0], self.ins[i][1], acl.util.bytes_to_ptr(data), len(data), H2D) == 0

    def get(self, i: int, dtype=np.float32, cur: bool = False) -> np.ndarray:
        dims, ret = (acl.mdl.get_cur_output_dims if cur else acl.mdl.get_output_dims)(self.desc, i)
        assert ret == 0
        ptr, size = self.outs[i]
        host = bytes(size)
        assert acl.rt.memcpy(acl.util.bytes_to_ptr(host), size, ptr, size, D2H) == 0
        n = int(np.prod(dims["dims"]))
        return np.frombuffer(host, dtype)[:n].reshape(dims["dims"])

    def close(self) -> None:
        for ds in (self.in_ds, self.out_ds):
            for i in range(acl.mdl.get_dataset_num_buffers(ds)):
                assert acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(ds, i)) == 0
            assert acl.mdl.destroy_dataset(ds) == 0
        for ptr, _ in self.ins + self.outs:
            acl.rt.free(ptr)
        assert acl.mdl.unload(self.model_id) == 0
        assert acl.mdl.destroy_desc(self.desc) == 0


def test_atc_model_describes_and_runs_like_numpy(tmp_path, ctx):
    model, w = mlp(batch=3)
    net = Net(atc(tmp_path, model))
    d = net.desc
    assert (acl.mdl.get_num_inputs(d), acl.mdl.get_num_outputs(d)) == (1, 1)
    assert acl.mdl.get_input_dims(d, 0) == ({"name": "x", "dimCount": 2, "dims": [3, 8]}, 0)
    assert acl.mdl.get_output_dims(d, 0) == ({"name": "y", "dimCount": 2, "dims": [3, 5]}, 0)
    assert acl.mdl.get_input_size_by_index(d, 0) == 3 * 8 * 4
    assert acl.mdl.get_output_size_by_index(d, 0) == 3 * 5 * 4
    assert acl.mdl.get_input_data_type(d, 0) == ACL_FLOAT == acl.mdl.get_output_data_type(d, 0)
    assert acl.mdl.get_input_format(d, 0) == ACL_FORMAT_ND
    assert acl.mdl.get_input_name_by_index(d, 0) == "x" and acl.mdl.get_output_name_by_index(d, 0) == "y"
    assert acl.mdl.get_input_index_by_name(d, "x") == (0, 0)
    assert acl.mdl.get_input_index_by_name(d, "ascend_mbatch_shape_data")[1] != 0  # not a dynamic model
    assert acl.mdl.get_input_size_by_index(d, 5) == 0 and acl.mdl.get_input_dims(d, 5)[1] == 100000
    x = np.random.default_rng(3).standard_normal((3, 8)).astype(np.float32)
    net.put(0, x)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    np.testing.assert_allclose(net.get(0), mlp_reference(x, w), rtol=1e-5, atol=1e-5)
    net.close()


def test_onnx_loads_directly_and_query_size(tmp_path, ctx):
    model, w = mlp()
    path = save(model, tmp_path / "m.onnx")
    work, weight, ret = acl.mdl.query_size(path)
    assert ret == 0 and weight == sum(v.nbytes for v in w.values()) and work > 0
    net = Net(path)
    x = np.ones((1, 8), np.float32)
    net.put(0, x)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    np.testing.assert_allclose(net.get(0), mlp_reference(x, w), rtol=1e-5, atol=1e-5)
    net.close()


def test_load_from_mem_and_with_mem(tmp_path, ctx):
    model, _ = mlp()
    data = open(atc(tmp_path, model), "rb").read()  # noqa: SIM115
    mid, ret = acl.mdl.load_from_mem(acl.util.bytes_to_ptr(data), len(data))
    assert ret == 0 and acl.mdl.unload(mid) == 0
    assert acl.mdl.unload(mid) == 100011  # ACL_ERROR_INVALID_MODEL_ID
    work_size, weight_size, _ = acl.mdl.query_size(str(tmp_path / "m.om"))
    work, _ = acl.rt.malloc(work_size, 0)
    weight, _ = acl.rt.malloc(weight_size, 0)
    mid, ret = acl.mdl.load_from_file_with_mem(str(tmp_path / "m.om"), work, work_size, weight, weight_size)
    assert ret == 0 and acl.mdl.unload(mid) == 0
    assert acl.mdl.load_from_file_with_mem(str(tmp_path / "m.om"), work, 16, weight, weight_size)[1] == 100000
    acl.rt.free(work)
    acl.rt.free(weight)


def test_real_om_and_junk_are_refused_with_the_way_out(tmp_path, ctx):
    real = tmp_path / "resnet50.om"
    real.write_bytes(bytes.fromhex("494d4f44") + bytes(252) + b"\x00" * 64)  # GE ModelFileHeader magic "IMOD"
    assert acl.mdl.load_from_file(str(real)) == (0, 100013)
    msg = acl.get_recent_err_msg()
    assert "built by Huawei's ATC" in msg and "aclsim atc --model=" in msg
    junk = tmp_path / "junk.om"
    junk.write_bytes(b"not a model at all")
    assert acl.mdl.load_from_file(str(junk))[1] == 100013
    assert acl.mdl.load_from_file(str(tmp_path / "missing.om"))[1] == 100014


def test_execute_argument_checks(tmp_path, ctx):
    model, _ = mlp()
    net = Net(atc(tmp_path, model))
    empty = acl.mdl.create_dataset()
    assert acl.mdl.execute(net.model_id, empty, net.out_ds) == 100017  # ACL_ERROR_MODEL_INPUT_NOT_MATCH
    small, _ = acl.rt.malloc(4, 0)
    out_small = acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(out_small, acl.create_data_buffer(small, 4))
    assert acl.mdl.execute(net.model_id, net.in_ds, out_small) == 100018
    assert "get_output_size_by_index" in acl.get_recent_err_msg()
    assert acl.mdl.execute(999, net.in_ds, net.out_ds) == 100011
    acl.rt.free(small)
    net.close()


def test_execute_async_is_queued_on_the_stream(tmp_path, ctx):
    model, w = mlp(batch=2)
    net = Net(atc(tmp_path, model))
    stream, _ = acl.rt.create_stream()
    x = np.random.default_rng(5).standard_normal((2, 8)).astype(np.float32)
    data = x.tobytes()
    host, _ = acl.rt.malloc_host(len(data))
    acl.rt.memcpy(host, len(data), acl.util.bytes_to_ptr(data), len(data), 0)
    assert acl.rt.memcpy_async(net.ins[0][0], net.ins[0][1], host, len(data), H2D, stream) == 0
    assert acl.mdl.execute_async(net.model_id, net.in_ds, net.out_ds, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_allclose(net.get(0), mlp_reference(x, w), rtol=1e-5, atol=1e-5)
    assert acl.mdl.execute_async(net.model_id, net.in_ds, net.out_ds, 0xBAD) == 107017  # not a stream
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    net.close()


def test_model_reading_an_input_never_copied_in_is_an_initcheck_finding(tmp_path, ctx):
    model, _ = mlp()
    path = atc(tmp_path, model)
    s = Session(["initcheck"])  # before the buffers are allocated, so it tracks them
    net = Net(path)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0  # the host never copied x in
    s.stop()
    assert [f.tool for f in s.findings] == ["initcheck"]
    assert "acl.mdl.execute" in " ".join([s.findings[0].headline, *s.findings[0].details])
    net.close()


def test_missing_synchronize_after_execute_async_is_a_race(tmp_path, ctx):
    model, _ = mlp()
    net = Net(atc(tmp_path, model))
    net.put(0, np.ones((1, 8), np.float32))
    stream, _ = acl.rt.create_stream()
    s = Session(["racecheck"])
    acl.mdl.execute_async(net.model_id, net.in_ds, net.out_ds, stream)
    net.get(0)  # BUG: no synchronize_stream first
    s.stop()
    assert any(f.tool == "racecheck" for f in s.findings)
    acl.rt.synchronize_stream(stream)
    acl.rt.destroy_stream(stream)
    net.close()


def test_dynamic_batch(tmp_path, ctx):
    model, w = mlp(batch="N")
    net = Net(atc(tmp_path, model, "dyn", "--input_shape=x:-1,8", "--dynamic_batch_size=1,2,4"))
    d = net.desc
    assert acl.mdl.get_num_inputs(d) == 2
    idx, ret = acl.mdl.get_input_index_by_name(d, "ascend_mbatch_shape_data")
    assert (idx, ret) == (1, 0)
    assert acl.mdl.get_dynamic_batch(d) == ({"batchCount": 3, "batch": [1, 2, 4]}, 0)
    assert acl.mdl.get_input_dims(d, 0)[0]["dims"] == [-1, 8]
    assert acl.mdl.get_input_size_by_index(d, 0) == 4 * 8 * 4  # largest gear
    assert acl.mdl.get_output_dims(d, 0)[0]["dims"] == [4, 5]
    x = np.random.default_rng(9).standard_normal((4, 8)).astype(np.float32)
    net.put(0, x)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 145013  # no batch chosen yet
    assert acl.mdl.set_dynamic_batch_size(net.model_id, net.in_ds, idx, 3) == 145013
    assert acl.mdl.set_dynamic_batch_size(net.model_id, net.in_ds, 0, 2) == 100000
    assert acl.mdl.set_dynamic_batch_size(net.model_id, net.in_ds, idx, 2) == 0
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    assert acl.mdl.get_cur_output_dims(d, 0)[0]["dims"] == [2, 5]
    np.testing.assert_allclose(net.get(0, cur=True), mlp_reference(x[:2], w), rtol=1e-5, atol=1e-5)
    net.close()


def test_static_model_refuses_dynamic_calls(tmp_path, ctx):
    model, _ = mlp()
    net = Net(atc(tmp_path, model))
    assert acl.mdl.set_dynamic_batch_size(net.model_id, net.in_ds, 0, 1) == 100019  # ACL_ERROR_MODEL_NOT_DYNAMIC
    assert acl.mdl.get_dynamic_batch(net.desc) == ({"batchCount": 0, "batch": []}, 0)
    net.close()


def test_dynamic_image_size(tmp_path, ctx):
    model, _ = cnn(hw=("H", "W"))
    net = Net(atc(tmp_path, model, "hw", "--input_shape=data:1,3,-1,-1", "--dynamic_image_size=8,8;16,12"))
    assert acl.mdl.get_dynamic_hw(net.desc, -1) == ({"hwCount": 2, "hw": [[8, 8], [16, 12]]}, 0)
    assert acl.mdl.get_input_size_by_index(net.desc, 0) == 3 * 16 * 12 * 4
    x = np.random.default_rng(2).standard_normal((1, 3, 16, 12)).astype(np.float32)
    net.put(0, x)
    assert acl.mdl.set_dynamic_hw_size(net.model_id, net.in_ds, 1, 16, 12) == 0
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    np.testing.assert_allclose(net.get(0, cur=True), run_onnx(model, {"data": x})[0], rtol=1e-5, atol=1e-6)
    assert acl.mdl.set_dynamic_hw_size(net.model_id, net.in_ds, 1, 9, 9) == 145013
    net.close()


def test_output_type_and_fp16_input(tmp_path, ctx):
    model, w = mlp()
    net = Net(atc(tmp_path, model, "t", "--output_type=FP16", "--input_fp16_nodes=x"))
    assert acl.mdl.get_input_data_type(net.desc, 0) == ACL_FLOAT16
    assert acl.mdl.get_output_data_type(net.desc, 0) == ACL_FLOAT16
    assert acl.mdl.get_output_size_by_index(net.desc, 0) == 5 * 2
    x = np.random.default_rng(4).standard_normal((1, 8)).astype(np.float16)
    net.put(0, x)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    want = mlp_reference(x.astype(np.float32), w).astype(np.float16)
    np.testing.assert_allclose(net.get(0, np.float16).astype(np.float32), want.astype(np.float32), rtol=2e-3,
                               atol=2e-3)
    net.close()


AIPP_RGB = """
aipp_op {
  aipp_mode: static
  input_format: RGB888_U8
  src_image_size_w: 20
  src_image_size_h: 18
  crop: true
  load_start_pos_w: 2
  load_start_pos_h: 1
  crop_size_w: 16
  crop_size_h: 16
  rbuv_swap_switch: true
  mean_chn_0: 104
  mean_chn_1: 117
  mean_chn_2: 123
  var_reci_chn_0: 0.5
  var_reci_chn_1: 0.5
  var_reci_chn_2: 0.5
}
"""


def test_static_aipp_crop_swap_and_normalise(tmp_path, ctx):
    model, _ = cnn()
    cfg = tmp_path / "aipp.cfg"
    cfg.write_text(AIPP_RGB)
    net = Net(atc(tmp_path, model, "aipp", f"--insert_op_conf={cfg}"))
    assert acl.mdl.get_input_data_type(net.desc, 0) == ACL_UINT8
    assert acl.mdl.get_input_format(net.desc, 0) == ACL_FORMAT_NHWC
    assert acl.mdl.get_input_dims(net.desc, 0)[0]["dims"] == [1, 18, 20, 3]
    assert acl.mdl.get_input_size_by_index(net.desc, 0) == 18 * 20 * 3
    img = np.random.default_rng(6).integers(0, 256, (18, 20, 3), dtype=np.uint8)
    net.put(0, img)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    # the same preprocessing by hand: crop, RGB -> BGR, (x - mean) * var_reci, HWC -> NCHW
    crop = img[1:17, 2:18, ::-1].astype(np.float32)
    x = ((crop - np.array([104, 117, 123], np.float32)) * 0.5).transpose(2, 0, 1)[None]
    np.testing.assert_allclose(net.get(0), run_onnx(model, {"data": x})[0], rtol=1e-5, atol=1e-6)
    net.close()


AIPP_YUV = """
aipp_op {
  aipp_mode: static
  input_format: YUV420SP_U8
  csc_switch: true
  rbuv_swap_switch: false
  matrix_r0c0: 256
  matrix_r0c1: 0
  matrix_r0c2: 359
  matrix_r1c0: 256
  matrix_r1c1: -88
  matrix_r1c2: -183
  matrix_r2c0: 256
  matrix_r2c1: 454
  matrix_r2c2: 0
  input_bias_0: 0
  input_bias_1: 128
  input_bias_2: 128
}
"""


def test_static_aipp_yuv420sp_to_rgb(tmp_path, ctx):
    model, _ = cnn()
    cfg = tmp_path / "yuv.cfg"
    cfg.write_text(AIPP_YUV)
    net = Net(atc(tmp_path, model, "yuv", f"--insert_op_conf={cfg}"))
    assert acl.mdl.get_input_size_by_index(net.desc, 0) == 16 * 16 * 3 // 2
    assert acl.mdl.get_input_dims_v2(net.desc, 0)[0]["dims"] == [1, 24, 16, 1]
    assert acl.mdl.get_aipp_type(net.model_id, 0) == (1, 0xFFFFFFFF, 0)  # ACL_DATA_WITH_STATIC_AIPP
    rng = np.random.default_rng(8)
    y = rng.integers(16, 235, (16, 16), dtype=np.uint8)
    uv = rng.integers(16, 240, (8, 8, 2), dtype=np.uint8)
    net.put(0, np.concatenate([y.reshape(-1), uv.reshape(-1)]))
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    u = uv[:, :, 0].repeat(2, 0).repeat(2, 1).astype(np.int64) - 128
    v = uv[:, :, 1].repeat(2, 0).repeat(2, 1).astype(np.int64) - 128
    yy = y.astype(np.int64)
    rgb = np.stack([(256 * yy + 359 * v) >> 8, (256 * yy - 88 * u - 183 * v) >> 8, (256 * yy + 454 * u) >> 8])
    x = np.clip(rgb, 0, 255).astype(np.float32)[None]
    np.testing.assert_allclose(net.get(0), run_onnx(model, {"data": x})[0], rtol=1e-5, atol=1e-6)
    net.close()


def test_atc_refuses_what_atc_refuses(tmp_path, capsys):
    model, _ = mlp(batch="N")
    src = save(model, tmp_path / "sym.onnx")
    base = ["atc", f"--model={src}", f"--output={tmp_path / 'o'}", "--soc_version=Ascend310P3"]
    assert cli([*base, "--framework=3"]) == 1
    assert "ONNX models only" in capsys.readouterr().err
    assert cli([*base, "--framework=5"]) == 1
    assert "--input_shape" in capsys.readouterr().err  # symbolic batch needs a shape
    assert cli([*base, "--framework=5", "--input_shape=x:-1,8"]) == 1
    assert "dynamic" in capsys.readouterr().err
    assert cli([*base, "--framework=5", "--input_shape=x:-1,8", "--dynamic_batch_size=4"]) == 1
    assert "2 to 100" in capsys.readouterr().err
    assert cli([*base, "--framework=5", "--input_shape=nope:1,8"]) == 1
    assert "model's inputs are ['x']" in capsys.readouterr().err
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage")
    assert cli(["atc", f"--model={bad}", "--framework=5", f"--output={tmp_path / 'b'}",
                "--soc_version=Ascend310P3"]) == 1
    assert "ONNX model is invalid" in capsys.readouterr().err


def test_dynamic_dims_across_two_inputs(tmp_path, ctx):
    from onnx import TensorProto, helper

    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", 4]),
                           helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, "n"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["m", "n"])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    assert cli(["atc", f"--model={save(model, tmp_path / 'mm.onnx')}", "--framework=5", f"--output={tmp_path / 'n'}",
                "--soc_version=Ascend310P3", "--input_shape=x:-1,4;w:4,-1", "--dynamic_dims=2,3;5,6"]) == 1  # NCHW
    net = Net(atc(tmp_path, model, "mm", "--input_shape=x:-1,4;w:4,-1", "--dynamic_dims=2,3;5,6",
                  "--input_format=ND"))
    d = net.desc
    assert acl.mdl.get_input_dynamic_gear_count(d, -1) == (2, 0)
    gears, ret = acl.mdl.get_input_dynamic_dims(d, -1, 2)
    assert ret == 0 and [g["dims"] for g in gears] == [[2, 4, 4, 3], [5, 4, 4, 6]]
    assert acl.mdl.get_output_size_by_index(d, 0) == 5 * 6 * 4  # the largest gear
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((4, 6)).astype(np.float32)
    net.put(0, x)
    net.put(1, w)
    idx = acl.mdl.get_input_index_by_name(d, "ascend_mbatch_shape_data")[0]
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 145013  # no gear chosen yet
    bad = {"name": "", "dimCount": 4, "dims": [5, 4, 4, 3]}
    assert acl.mdl.set_input_dynamic_dims(net.model_id, net.in_ds, idx, bad) == 145013
    assert "[2, 4, 4, 3], [5, 4, 4, 6]" in acl.get_recent_err_msg()
    assert acl.mdl.set_input_dynamic_dims(net.model_id, net.in_ds, idx, gears[1]) == 0
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    assert acl.mdl.get_cur_output_dims(d, 0)[0]["dims"] == [5, 6]
    np.testing.assert_allclose(net.get(0, cur=True), x @ w, rtol=1e-5, atol=1e-5)
    net.close()


def test_dynamic_aipp_per_image_crop_and_mean(tmp_path, ctx):
    model, _ = cnn(batch=2, hw=(16, 16))
    cfg = tmp_path / "dyn.cfg"
    cfg.write_text("aipp_op {\n  aipp_mode: dynamic\n  related_input_rank: 0\n  max_src_image_size: 2200\n}\n")
    net = Net(atc(tmp_path, model, "dynaipp", f"--insert_op_conf={cfg}"))
    d = net.desc
    assert acl.mdl.get_input_size_by_index(d, 0) == 2200
    idx, ret = acl.mdl.get_input_index_by_name(d, "ascend_dynamic_aipp_data")
    assert (idx, ret) == (1, 0)
    assert acl.mdl.get_aipp_type(net.model_id, 0) == (2, idx, 0)  # ACL_DATA_WITH_DYNAMIC_AIPP
    assert acl.mdl.get_aipp_type(net.model_id, idx) == (3, 0xFFFFFFFF, 0)  # ACL_DYNAMIC_AIPP_NODE
    rng = np.random.default_rng(11)
    imgs = rng.integers(0, 256, (2, 18, 20, 3), dtype=np.uint8)  # two RGB888 sources, 20 wide, 18 high
    net.put(0, imgs.reshape(-1))
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 100017  # no parameters yet
    assert "set_input_aipp" in acl.get_recent_err_msg()

    aipp = acl.mdl.create_aipp(2)
    assert acl.mdl.set_aipp_input_format(aipp, 3) == 0  # ACL_RGB888_U8
    assert acl.mdl.set_aipp_src_image_size(aipp, 20, 18) == 0
    assert acl.mdl.set_aipp_crop_params(aipp, 1, 0, 0, 16, 16, 0) == 0
    assert acl.mdl.set_aipp_crop_params(aipp, 1, 4, 2, 16, 16, 1) == 0  # start w 4, h 2
    assert acl.mdl.set_aipp_dtc_pixel_mean_params(aipp, 10, 20, 30, 0, 0) == 0
    assert acl.mdl.set_aipp_dtc_pixel_mean_params(aipp, 100, 100, 100, 0, 1) == 0
    assert acl.mdl.set_aipp_pixel_var_reci(aipp, 0.5, 0.5, 0.5, 1.0, 1) == 0
    assert acl.mdl.set_aipp_scf_params(aipp, 1, 20, 18, 16, 16, 0) == 200001
    assert acl.mdl.set_aipp_crop_params(aipp, 1, 0, 0, 16, 16, 2) == 100000  # batch_index out of range
    assert acl.mdl.set_input_aipp(net.model_id, net.in_ds, 0, aipp) == 100000  # not the AIPP input
    assert acl.mdl.set_input_aipp(net.model_id, net.in_ds, idx, aipp) == 0
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0

    x0 = imgs[0, :16, :16].astype(np.float32) - np.array([10, 20, 30], np.float32)
    x1 = (imgs[1, 2:18, 4:20].astype(np.float32) - 100) * 0.5
    x = np.stack([x0, x1]).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(net.get(0), run_onnx(model, {"data": x})[0], rtol=1e-5, atol=1e-6)
    assert acl.mdl.set_aipp_by_input_index(net.model_id, net.in_ds, 0, acl.mdl.create_aipp(1)) == 100000  # batch 2
    assert acl.mdl.destroy_aipp(aipp) == 0
    net.close()


def test_atc_accepts_the_tuning_flags_of_readme_command_lines(tmp_path, ctx, capsys):
    """Deployment READMEs pass ATC's precision and tuning flags; they choose NPU kernels, not the model's I/O."""
    model, w = mlp()
    path = atc(tmp_path, model, "tuned", "--precision_mode=allow_fp32_to_fp16", "--enable_small_channel=1",
               "--op_select_implmode=high_performance", "--fusion_switch_file=fusion.cfg")
    net = Net(path)
    x = np.random.default_rng(3).standard_normal((1, 8)).astype(np.float32)
    net.put(0, x)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    np.testing.assert_allclose(net.get(0), mlp_reference(x, w), rtol=1e-5, atol=1e-5)
    src = save(model, tmp_path / "t.onnx")
    with pytest.raises(SystemExit):  # a mode ATC does not know is still an error
        cli(["atc", f"--model={src}", "--framework=5", f"--output={tmp_path / 't'}", "--soc_version=Ascend310P3",
             "--precision_mode=allow_fp64"])
    assert "precision_mode" in capsys.readouterr().err


def test_atc_out_nodes_select_and_name_the_outputs(tmp_path, ctx, capsys):
    """--out_nodes "node:index;...": those node outputs are the model's outputs, in that order, named as given."""
    from onnx import TensorProto, helper

    g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="act"),
                           helper.make_node("Neg", ["r"], ["n"], name="neg"),
                           helper.make_node("Abs", ["n"], ["y"], name="abs")], "chain",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    net = Net(atc(tmp_path, model, "sel", "--out_nodes=neg:0;act:0"))
    d = net.desc
    assert acl.mdl.get_num_outputs(d) == 2
    assert [acl.mdl.get_output_name_by_index(d, i) for i in range(2)] == ["neg:0", "act:0"]
    assert acl.mdl.get_output_dims(d, 1) == ({"name": "act:0", "dimCount": 2, "dims": [2, 3]}, 0)
    x = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    net.put(0, x)
    assert acl.mdl.execute(net.model_id, net.in_ds, net.out_ds) == 0
    np.testing.assert_array_equal(net.get(0), -np.maximum(x, 0))
    np.testing.assert_array_equal(net.get(1), np.maximum(x, 0))
    src = save(model, tmp_path / "c.onnx")
    base = ["atc", f"--model={src}", "--framework=5", f"--output={tmp_path / 'c'}", "--soc_version=Ascend310P3"]
    assert cli([*base, "--out_nodes=nope:0"]) == 1
    assert "no node named 'nope'" in capsys.readouterr().err
    assert cli([*base, "--out_nodes=act:1"]) == 1
    assert "has 1 outputs" in capsys.readouterr().err
