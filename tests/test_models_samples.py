"""End-to-end flows of the kinds the official pyACL samples run: JPEG -> DVPP -> AIPP model in a batch
(googlenet multi-batch), letterboxed crop-and-paste into a two-input detector (YOLO through acllite), a
single operator through an operator handle (slice sample) and ArgMaxV2 with a constant axis (VPC + resnet).
Every expectation is computed in the test with numpy / Pillow / ONNX Runtime."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from aclsim import acl
from aclsim.cli import main as cli

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
Image = pytest.importorskip("PIL.Image")

from onnx_models import cnn, run_onnx, save  # noqa: E402

NV12, H2D, D2H, D2D = 1, 1, 2, 3
ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64, ND = 0, 1, 3, 9, 2
AIPP_YUV = """aipp_op {
    aipp_mode : static
    input_format : YUV420SP_U8
    csc_switch : true
    matrix_r0c0 : 256
    matrix_r0c1 : 0
    matrix_r0c2 : 359
    matrix_r1c0 : 256
    matrix_r1c1 : -88
    matrix_r1c2 : -183
    matrix_r2c0 : 256
    matrix_r2c1 : 454
    matrix_r2c2 : 0
    input_bias_1 : 128
    input_bias_2 : 128
    mean_chn_0 : 120
    mean_chn_1 : 110
    mean_chn_2 : 100
}
"""


@pytest.fixture
def stream():
    acl.init()
    acl.rt.set_device(0)
    ctx, _ = acl.rt.create_context(0)
    s, _ = acl.rt.create_stream()
    yield s
    acl.rt.destroy_stream(s)
    acl.rt.destroy_context(ctx)
    acl.rt.reset_device(0)
    acl.finalize()


def align(v, a):
    return (v + a - 1) // a * a


def put(raw: bytes) -> int:
    dev, ret = acl.media.dvpp_malloc(len(raw))
    assert ret == 0 and acl.rt.memcpy(dev, len(raw), acl.util.bytes_to_ptr(raw), len(raw), H2D) == 0
    return dev


def get(dev: int, size: int) -> np.ndarray:
    host = bytes(size)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(host), size, dev, size, D2H) == 0
    return np.frombuffer(host, np.uint8).copy()


def desc(dev, w, h, ws, hs, size):
    d = acl.media.dvpp_create_pic_desc()
    for f, v in (("data", dev), ("format", NV12), ("width", w), ("height", h), ("width_stride", ws),
                 ("height_stride", hs), ("size", size)):
        assert getattr(acl.media, f"dvpp_set_pic_desc_{f}")(d, v) == 0
    return d


def jpeg(w, h, seed):
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (h // 8 + 1, w // 8 + 1, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(small).resize((w, h), Image.BILINEAR).save(out, "JPEG", quality=95)
    return out.getvalue()


def decode(chan, stream, data: bytes):
    """JPEGD into a buffer sized by predict_dec_size; returns the output description."""
    size, ret = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), NV12)
    assert ret == 0
    out, _ = acl.media.dvpp_malloc(size)
    d = desc(out, 0, 0, 0, 0, size)
    assert acl.media.dvpp_jpeg_decode_async(chan, put(data), len(data), d, stream) == 0
    return d


def bilinear(a: np.ndarray, oh: int, ow: int) -> np.ndarray:
    """Plain bilinear (half-pixel centres, edges clamped), the way the VPC scales."""
    h, w = a.shape
    sy = np.clip((np.arange(oh) + 0.5) * h / oh - 0.5, 0, h - 1)
    sx = np.clip((np.arange(ow) + 0.5) * w / ow - 0.5, 0, w - 1)
    y0, x0 = np.floor(sy).astype(int), np.floor(sx).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = (sy - y0)[:, None], (sx - x0)[None, :]
    a = a.astype(np.float64)
    top = a[y0][:, x0] * (1 - fx) + a[y0][:, x1] * fx
    return top * (1 - fy) + (a[y1][:, x0] * (1 - fx) + a[y1][:, x1] * fx) * fy


def aipp_reference(yuv: np.ndarray, h: int, w: int) -> np.ndarray:
    """The AIPP above in numpy: NV12 (h x w, no padding) -> RGB by the CSC matrix -> minus the means, NCHW."""
    y = yuv[: h * w].reshape(h, w).astype(np.int64)
    uv = yuv[h * w:].reshape(h // 2, w // 2, 2).repeat(2, 0).repeat(2, 1).astype(np.int64) - 128
    u, v = uv[:, :, 0], uv[:, :, 1]
    rgb = np.clip(np.stack([(256 * y + 359 * v) >> 8, (256 * y - 88 * u - 183 * v) >> 8, (256 * y + 454 * u) >> 8]),
                  0, 255)
    return (rgb - np.array([120, 110, 100])[:, None, None]).astype(np.float32)


def atc(tmp_path, model, name, *flags) -> str:
    src = save(model, tmp_path / f"{name}.onnx")
    assert cli(["atc", f"--model={src}", "--framework=5", f"--output={tmp_path / name}", "--soc_version=Ascend310P3",
                *flags]) == 0
    return str(tmp_path / name) + ".om"


def test_jpegs_through_dvpp_into_a_batched_aipp_model(tmp_path, stream):
    batch, side = 3, 16
    model, _ = cnn(batch=batch, hw=(side, side))
    (tmp_path / "aipp.cfg").write_text(AIPP_YUV)
    model_id, ret = acl.mdl.load_from_file(atc(tmp_path, model, "g", f"--insert_op_conf={tmp_path / 'aipp.cfg'}"))
    assert ret == 0
    mdesc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(mdesc, model_id) == 0
    one = side * side * 3 // 2
    assert acl.mdl.get_input_size_by_index(mdesc, 0) == batch * one
    batch_buf, _ = acl.rt.malloc(batch * one, 0)
    out_size = acl.mdl.get_output_size_by_index(mdesc, 0)
    out_buf, _ = acl.rt.malloc(out_size, 0)

    chan = acl.media.dvpp_create_channel_desc()
    assert acl.media.dvpp_create_channel(chan) == 0
    cfg = acl.media.dvpp_create_resize_config()
    sources = [jpeg(w, h, k) for k, (w, h) in enumerate([(120, 90), (64, 64), (99, 141)])]
    for k, data in enumerate(sources):
        dec = decode(chan, stream, data)
        assert acl.rt.synchronize_stream(stream) == 0
        w, h = acl.media.dvpp_get_pic_desc_width(dec), acl.media.dvpp_get_pic_desc_height(dec)
        din = desc(acl.media.dvpp_get_pic_desc_data(dec), w, h, acl.media.dvpp_get_pic_desc_width_stride(dec),
                   acl.media.dvpp_get_pic_desc_height_stride(dec), acl.media.dvpp_get_pic_desc_size(dec))
        small, _ = acl.media.dvpp_malloc(one)
        assert acl.media.dvpp_vpc_resize_async(chan, din, desc(small, side, side, side, side, one), cfg, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        assert acl.rt.memcpy(batch_buf + k * one, one, small, one, D2D) == 0

    inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(batch_buf, batch * one))
    acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(out_buf, out_size))
    assert acl.mdl.execute_async(model_id, inputs, outputs, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    prob = get(out_buf, out_size).view(np.float32).reshape(batch, -1)

    fed = get(batch_buf, batch * one).reshape(batch, one)
    x = np.stack([aipp_reference(f, side, side) for f in fed])
    np.testing.assert_allclose(prob, run_onnx(model, {"data": x})[0], rtol=1e-5, atol=1e-6)
    for f, data in zip(fed, sources, strict=True):  # what DVPP fed is the picture's luma, bilinear-resized
        ref_y = bilinear(np.asarray(Image.open(io.BytesIO(data)).convert("YCbCr"))[:, :, 0], side, side)
        assert np.abs(f[: side * side].reshape(side, side) - ref_y).max() <= 4


def test_letterbox_crop_and_paste_into_a_two_input_two_output_detector(tmp_path, stream):
    from onnx import TensorProto, helper, numpy_helper

    side = 32
    w_np = np.random.default_rng(3).standard_normal((3 * side * side, 12)).astype(np.float32) * 0.01
    nodes = [helper.make_node("Flatten", ["data"], ["f"]), helper.make_node("MatMul", ["f", "w"], ["m"]),
             helper.make_node("ReduceSum", ["img_info"], ["img_info_sum"], keepdims=1),
             helper.make_node("Add", ["m", "img_info_sum"], ["boxes"]),
             helper.make_node("ArgMax", ["m"], ["i64"], axis=1, keepdims=1),
             helper.make_node("Cast", ["i64"], ["count"], to=TensorProto.INT32)]
    g = helper.make_graph(nodes, "det", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, side, side]),
                                         helper.make_tensor_value_info("img_info", TensorProto.FLOAT, [1, 4])],
                          [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 12]),
                           helper.make_tensor_value_info("count", TensorProto.INT32, [1, 1])],
                          [numpy_helper.from_array(w_np, "w")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    (tmp_path / "aipp.cfg").write_text(AIPP_YUV)
    model_id, _ = acl.mdl.load_from_file(atc(tmp_path, model, "det", f"--insert_op_conf={tmp_path / 'aipp.cfg'}"))
    mdesc = acl.mdl.create_desc()
    acl.mdl.get_desc(mdesc, model_id)
    assert [acl.mdl.get_output_data_type(mdesc, i) for i in range(2)] == [ACL_FLOAT, ACL_INT32]

    chan = acl.media.dvpp_create_channel_desc()
    acl.media.dvpp_create_channel(chan)
    data = jpeg(64, 40, 5)
    dec = decode(chan, stream, data)
    assert acl.rt.synchronize_stream(stream) == 0
    w, h = acl.media.dvpp_get_pic_desc_width(dec), acl.media.dvpp_get_pic_desc_height(dec)
    din = desc(acl.media.dvpp_get_pic_desc_data(dec), w, h, acl.media.dvpp_get_pic_desc_width_stride(dec),
               acl.media.dvpp_get_pic_desc_height_stride(dec), acl.media.dvpp_get_pic_desc_size(dec))
    one = side * side * 3 // 2
    canvas = put(bytes([16]) * side * side + bytes([128]) * (one - side * side))  # black NV12, then the letterbox
    crop = acl.media.dvpp_create_roi_config(0, w - 1, 0, h - 1)
    paste = acl.media.dvpp_create_roi_config(0, side - 1, 0, 19)  # 64x40 keeps its ratio at 32x20
    assert acl.media.dvpp_vpc_crop_and_paste_async(chan, din, desc(canvas, side, side, side, side, one), crop, paste,
                                                   stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    info = np.array([[side, side, w, h]], np.float32)
    info_dev, _ = acl.rt.malloc(info.nbytes, 0)
    raw = info.tobytes()
    assert acl.rt.memcpy(info_dev, info.nbytes, acl.util.bytes_to_ptr(raw), info.nbytes, H2D) == 0
    outs = [acl.rt.malloc(acl.mdl.get_output_size_by_index(mdesc, i), 0)[0] for i in range(2)]
    inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(canvas, one))
    acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(info_dev, info.nbytes))
    for i, o in enumerate(outs):
        acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(o, acl.mdl.get_output_size_by_index(mdesc, i)))
    assert acl.mdl.execute(model_id, inputs, outputs) == 0

    fed = get(canvas, one)
    assert (fed[20 * side: side * side] == 16).all()  # below the paste area: the canvas as it was
    expect = run_onnx(model, {"data": aipp_reference(fed, side, side)[None], "img_info": info})
    np.testing.assert_allclose(get(outs[0], 48).view(np.float32).reshape(1, 12), expect[0], rtol=1e-5, atol=1e-5)
    assert get(outs[1], 4).view(np.int32)[0] == expect[1][0, 0]


def op_tensor(shape, dtype, data=None):
    acl_type = {np.float16: ACL_FLOAT16, np.float32: ACL_FLOAT, np.int32: ACL_INT32}[dtype]
    d = acl.create_tensor_desc(acl_type, list(shape), ND)
    size = acl.get_tensor_desc_size(d)
    dev, _ = acl.rt.malloc(size, 0)
    if data is not None:
        raw = np.ascontiguousarray(data, dtype).tobytes()
        acl.rt.memcpy(dev, size, acl.util.bytes_to_ptr(raw), size, H2D)
    return d, acl.create_data_buffer(dev, size), dev, size


def test_slice_through_an_operator_handle(tmp_path, stream):
    ops = [{"op": "Slice", "input_desc": [{"format": "ND", "shape": [6, 40], "type": "float16"},
                                          {"format": "ND", "shape": [2], "type": "int32"},
                                          {"format": "ND", "shape": [2], "type": "int32"}],
            "output_desc": [{"format": "ND", "shape": [3, 25], "type": "float16"}]}]
    (tmp_path / "slice.json").write_text(json.dumps(ops))
    x = np.arange(240, dtype=np.float16).reshape(6, 40)
    tensors = [op_tensor((6, 40), np.float16, x), op_tensor((2,), np.int32, [2, 10]),
               op_tensor((2,), np.int32, [3, 25])]
    out = op_tensor((3, 25), np.float16)
    attr = acl.op.create_attr()
    handle, ret = acl.op.create_handle("Slice", [t[0] for t in tensors], [out[0]], attr)
    assert ret == 100024 and "aclsim atc --singleop" in acl.get_recent_err_msg()  # no model loaded yet
    assert cli(["atc", f"--singleop={tmp_path / 'slice.json'}", f"--output={tmp_path / 'ops'}",
                "--soc_version=Ascend310P3"]) == 0
    assert acl.op.set_model_dir(str(tmp_path / "ops")) == 0
    handle, ret = acl.op.create_handle("Slice", [t[0] for t in tensors], [out[0]], attr)
    assert ret == 0
    assert acl.op.execute_with_handle(handle, [t[1] for t in tensors], [out[1]], stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(get(out[2], out[3]).view(np.float16).reshape(3, 25), x[2:5, 10:35])
    assert acl.op.destroy_handle(handle) == 0
    assert acl.op.execute_with_handle(handle, [t[1] for t in tensors], [out[1]], stream) == 100000


def test_argmax_v2_with_a_constant_axis_and_a_one_element_output(stream):
    x = np.random.default_rng(2).standard_normal(1000).astype(np.float16)
    xd, xb, _, _ = op_tensor((1000,), np.float16, x)
    axis = acl.create_tensor_desc(ACL_INT32, [1], ND)
    zero = bytes(acl.data_type_size(ACL_INT32))
    assert acl.set_tensor_const(axis, acl.util.bytes_to_ptr(zero), len(zero)) == 0
    od, ob, odev, osize = op_tensor((1,), np.int32)
    attr = acl.op.create_attr()
    assert acl.op.compile_and_execute("ArgMaxV2", [xd, axis], [xb, acl.create_data_buffer(0, 0)], [od], [ob], attr,
                                      0, 0, None, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert get(odev, osize).view(np.int32)[0] == int(np.argmax(x))
