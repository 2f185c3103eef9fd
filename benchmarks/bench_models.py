"""acl.mdl.execute against ONNX Runtime's own run, and DVPP JPEG decode + resize against Pillow's (issue 14).

Target: execute <= 1.2x (ORT run + the copies). "ORT run" is `InferenceSession.run` on numpy inputs;
"copies" are what an ORT user does around it to match the pyACL flow (input bytes into an array, the
outputs out of ORT's arrays into a buffer). acl.mdl.execute reads its inputs from and writes its outputs
to emulated device memory itself. The H2D/D2H memcpys of the pyACL program are the same in both flows
and not counted.

Target: JPEGD + VPC resize of a 1920x1080 JPEG to 224x224 (dvpp_jpeg_decode_async, dvpp_vpc_resize_async,
each followed by synchronize_stream, the JPEG already in device memory) <= 2x Pillow's own
`Image.open(bytes).resize((224, 224), BILINEAR)` on the same bytes.

Run: python benchmarks/bench_models.py   (needs onnx, onnxruntime and Pillow)
"""

from __future__ import annotations

import io
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from PIL import Image

import aclsim.acl as acl
from aclsim.runtime import reset_runtime


def convnet(size: int = 224, seed: int = 0) -> onnx.ModelProto:
    """Four stride-2 3x3 convolutions with ReLU, global pool, a 1000-way classifier with softmax."""
    rng = np.random.default_rng(seed)
    inits, nodes, prev, ch = [], [], "data", 3
    for i, out in enumerate((16, 32, 64, 128)):
        w = (rng.standard_normal((out, ch, 3, 3)) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(np.zeros(out, np.float32), f"b{i}")]
        nodes += [helper.make_node("Conv", [prev, f"w{i}", f"b{i}"], [f"c{i}"], pads=[1, 1, 1, 1], strides=[2, 2]),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}"])]
        prev, ch = f"r{i}", out
    inits += [numpy_helper.from_array(rng.standard_normal((1000, ch)).astype(np.float32), "fw"),
              numpy_helper.from_array(np.zeros(1000, np.float32), "fb")]
    nodes += [helper.make_node("GlobalAveragePool", [prev], ["p"]), helper.make_node("Flatten", ["p"], ["f"]),
              helper.make_node("Gemm", ["f", "fw", "fb"], ["l"], transB=1),
              helper.make_node("Softmax", ["l"], ["prob"], axis=1)]
    g = helper.make_graph(nodes, "convnet", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, size, size])],
                          [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 1000])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def median_ms(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main(reps: int = 30) -> None:
    model = convnet()
    x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    raw, out_buf = x.tobytes(), bytearray(4000)

    def ort_flow() -> None:
        feed = np.frombuffer(raw, np.float32).reshape(x.shape)
        (prob,) = sess.run(None, {"data": feed})
        out_buf[:] = prob.tobytes()

    ort_ms = median_ms(lambda: sess.run(None, {"data": x}), reps)
    ort_copies_ms = median_ms(ort_flow, reps)

    reset_runtime()
    acl.init()
    acl.rt.set_device(0)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "convnet.onnx"
        onnx.save(model, path)
        model_id, ret = acl.mdl.load_from_file(str(path))
    assert ret == 0, acl.get_recent_err_msg()
    desc = acl.mdl.create_desc()
    acl.mdl.get_desc(desc, model_id)
    sets = []
    for n, size_of in ((1, acl.mdl.get_input_size_by_index), (1, acl.mdl.get_output_size_by_index)):
        ds = acl.mdl.create_dataset()
        for i in range(n):
            size = size_of(desc, i)
            dev, _ = acl.rt.malloc(size, 0)
            acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(dev, size))
        sets.append(ds)
    dev_in = acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(sets[0], 0))
    acl.rt.memcpy(dev_in, len(raw), acl.util.bytes_to_ptr(raw), len(raw), 1)
    exec_ms = median_ms(lambda: acl.mdl.execute(model_id, sets[0], sets[1]), reps)
    print(f"convnet 1x3x224x224 -> 1000 classes, median of {reps} runs (2-core VM)")
    print(f"  onnxruntime run                 {ort_ms:8.2f} ms")
    print(f"  onnxruntime run + copies        {ort_copies_ms:8.2f} ms")
    print(f"  acl.mdl.execute                 {exec_ms:8.2f} ms")
    print(f"  ratio execute / (run + copies)  {exec_ms / ort_copies_ms:8.2f}x   (target <= 1.2x)")
    print(f"  ratio execute / run             {exec_ms / ort_ms:8.2f}x")
    jpeg_resize(reps)


def photo_jpeg(w: int = 1920, h: int = 1080) -> bytes:
    """A photo-like 1080p JPEG (smooth gradients plus noise, quality 90, 4:2:0)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    noise = np.random.default_rng(2).normal(0, 12, (h, w, 3))
    rgb = np.dstack([xx / w * 255, yy / h * 255, 128 + 100 * np.sin(xx / 97) * np.cos(yy / 61)]) + noise
    out = io.BytesIO()
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(out, "JPEG", quality=90)
    return out.getvalue()


def jpeg_resize(reps: int) -> None:
    data = photo_jpeg()
    pil_ms = median_ms(lambda: Image.open(io.BytesIO(data)).resize((224, 224), Image.BILINEAR), reps)
    stream, _ = acl.rt.create_stream()
    chan = acl.media.dvpp_create_channel_desc()
    acl.media.dvpp_create_channel(chan)
    src, _ = acl.media.dvpp_malloc(len(data))
    acl.rt.memcpy(src, len(data), acl.util.bytes_to_ptr(data), len(data), 1)
    dec_size, _ = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), 1)
    dec_buf, _ = acl.media.dvpp_malloc(dec_size)
    out_size = 224 * 224 * 3 // 2
    out_buf, _ = acl.media.dvpp_malloc(out_size)

    def pic(ptr: int, size: int, dims: tuple[int, int, int, int]) -> int:
        d = acl.media.dvpp_create_pic_desc()
        acl.media.dvpp_set_pic_desc_data(d, ptr)
        acl.media.dvpp_set_pic_desc_size(d, size)
        acl.media.dvpp_set_pic_desc_format(d, 1)
        for setter, v in zip((acl.media.dvpp_set_pic_desc_width, acl.media.dvpp_set_pic_desc_height,
                              acl.media.dvpp_set_pic_desc_width_stride, acl.media.dvpp_set_pic_desc_height_stride),
                             dims, strict=True):
            setter(d, v)
        return d

    dec = pic(dec_buf, dec_size, (0, 0, 0, 0))
    out = pic(out_buf, out_size, (224, 224, 224, 224))
    cfg = acl.media.dvpp_create_resize_config()

    def dvpp_flow() -> None:
        assert acl.media.dvpp_jpeg_decode_async(chan, src, len(data), dec, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        assert acl.media.dvpp_vpc_resize_async(chan, dec, out, cfg, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0

    dvpp_ms = median_ms(dvpp_flow, reps)
    print(f"JPEG 1920x1080 ({len(data) // 1024} KiB) decode + resize to 224x224, median of {reps} runs")
    print(f"  Pillow open + resize (bilinear) {pil_ms:8.2f} ms")
    print(f"  JPEGD + VPC resize (NV12)       {dvpp_ms:8.2f} ms")
    print(f"  ratio DVPP / Pillow             {dvpp_ms / pil_ms:8.2f}x   (target <= 2x)")


if __name__ == "__main__":
    main()
