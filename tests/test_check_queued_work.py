"""The sanitizer sees every kind of queued device work as it sees a kernel (issue 23, defect 5): a model
(acl.mdl.execute_async), an operator, a DVPP decode and a BLAS call declare the buffers they read and write
in their typed work description, so a free under them, a race with another stream and a host read before
the synchronize are reported in the same format, naming the call that queued the work."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from aclsim import acl
from aclsim.check import Session
from onnx_models import mlp, save

H2D, D2H = 1, 2


@pytest.fixture
def stream():
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    yield s
    acl.rt.synchronize_device()
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()


def device(data: np.ndarray | bytes, size: int | None = None) -> int:
    raw = data.tobytes() if isinstance(data, np.ndarray) else data
    size = size or len(raw)
    d, ret = acl.rt.malloc(size, 0)
    assert ret == 0
    assert acl.rt.memcpy(d, size, acl.util.bytes_to_ptr(raw), len(raw), H2D) == 0
    return d


def queued_free(findings) -> list:
    return [f for f in findings if f.kind == "use-after-free-queued"]


def test_freeing_a_model_output_while_execute_async_is_queued(stream, tmp_path):
    model_id, ret = acl.mdl.load_from_file(save(mlp()[0], tmp_path / "m.onnx"))
    assert ret == 0
    x, y = device(np.ones(8, np.float32)), device(bytes(20))
    ins, outs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    acl.mdl.add_dataset_buffer(ins, acl.create_data_buffer(x, 32))
    acl.mdl.add_dataset_buffer(outs, acl.create_data_buffer(y, 20))
    s = Session(["memcheck", "racecheck"])
    assert acl.mdl.execute_async(model_id, ins, outs, stream) == 0
    assert acl.rt.free(y) == 0  # BUG: the model still writes y when the stream runs it
    reused, _ = acl.rt.malloc(20, 0)  # the same address goes to a new owner
    assert acl.rt.synchronize_stream(stream) == 0
    s.stop()
    (f,) = queued_free(s.findings)
    assert f.headline == "Use after free: memory freed while queued device work still uses it"
    assert f"model {model_id} (acl.mdl.execute_async) was given a pointer into it" in f.details[1]
    assert reused == y
    for p in (x, reused):
        acl.rt.free(p)
    acl.mdl.unload(model_id)


def test_freeing_a_jpeg_source_while_the_decode_is_queued(stream):
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 90)).save(out, "JPEG")
    data = out.getvalue()
    chan = acl.media.dvpp_create_channel_desc()
    assert acl.media.dvpp_create_channel(chan) == 0
    src, _ = acl.media.dvpp_malloc(len(data))
    assert acl.rt.memcpy(src, len(data), acl.util.bytes_to_ptr(data), len(data), H2D) == 0
    size, _ = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), 1)
    dst, _ = acl.media.dvpp_malloc(size)
    desc = acl.media.dvpp_create_pic_desc()
    acl.media.dvpp_set_pic_desc_data(desc, dst)
    acl.media.dvpp_set_pic_desc_size(desc, size)
    acl.media.dvpp_set_pic_desc_format(desc, 1)
    s = Session(["memcheck"])
    assert acl.media.dvpp_jpeg_decode_async(chan, src, len(data), desc, stream) == 0
    assert acl.media.dvpp_free(src) == 0  # BUG: the decoder reads src when the stream runs it
    acl.rt.synchronize_stream(stream)
    s.stop()
    (f,) = queued_free(s.findings)
    assert "jpegd (acl.media.dvpp_jpeg_decode_async) was given a pointer into it" in f.details[1]
    acl.media.dvpp_free(dst)
    acl.media.dvpp_destroy_pic_desc(desc)
    acl.media.dvpp_destroy_channel(chan)
    acl.media.dvpp_destroy_channel_desc(chan)


def test_an_operator_and_a_blas_call_are_ordered_against_frees_and_other_streams(stream):
    x = device(np.arange(16, dtype=np.float32))
    y, _ = acl.rt.malloc(64, 0)
    desc = acl.create_tensor_desc(0, [16], 2)
    buf_x, buf_y = acl.create_data_buffer(x, 64), acl.create_data_buffer(y, 64)
    other, _ = acl.rt.create_stream()
    s = Session(["memcheck", "racecheck"])
    assert acl.op.compile_and_execute("Relu", [desc], [buf_x], [desc], [buf_y], 0, 0, 0, None, stream) == 0
    assert acl.op.compile_and_execute("Neg", [desc], [buf_y], [desc], [buf_x], 0, 0, 0, None, other) == 0  # BUG
    a, c = device(np.ones((2, 2), np.float32)), device(np.zeros((2, 2), np.float32))
    alpha, beta = device(np.ones(1, np.float32)), device(np.zeros(1, np.float32))
    assert acl.blas.gemm_ex(0, 0, 0, 2, 2, 2, alpha, a, -1, 0, a, -1, 0, beta, c, -1, 0, 0, stream) == 0
    assert acl.rt.free(c) == 0  # BUG: the GEMM writes C when the stream runs it
    acl.rt.synchronize_device()
    s.stop()
    races = [f for f in s.findings if f.kind == "race-stream-stream"]
    assert races and "Relu (acl.op.compile_and_execute)" in races[0].details[0] + races[0].details[1]
    (f,) = queued_free(s.findings)
    assert "gemm_ex (acl.blas.gemm_ex) was given a pointer into it" in f.details[1]
    acl.rt.destroy_stream(other)
    for p in (x, y, a, alpha, beta):
        acl.rt.free(p)
