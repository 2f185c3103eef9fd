"""acl.media DVPP picture processing: JPEGD, JPEGE and VPC on device memory, checked against Pillow / numpy."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from aclsim import acl
from aclsim.models import picture

Image = pytest.importorskip("PIL.Image")

NV12, NV21, RGB888 = 1, 2, 12
H2D, D2H = 1, 2


def align(v, a):
    return (v + a - 1) // a * a


@pytest.fixture
def dvpp():
    acl.init()
    acl.rt.set_device(0)
    ctx, _ = acl.rt.create_context(0)
    stream, _ = acl.rt.create_stream()
    chan = acl.media.dvpp_create_channel_desc()
    assert acl.media.dvpp_create_channel(chan) == 0
    yield chan, stream
    acl.media.dvpp_destroy_channel(chan)
    acl.media.dvpp_destroy_channel_desc(chan)
    acl.rt.destroy_stream(stream)
    acl.rt.destroy_context(ctx)
    acl.rt.reset_device(0)
    acl.finalize()


def to_device(raw: bytes, size: int | None = None) -> int:
    size = size or len(raw)
    dev, ret = acl.media.dvpp_malloc(size)
    assert ret == 0
    assert acl.rt.memcpy(dev, size, acl.util.bytes_to_ptr(raw), len(raw), H2D) == 0
    return dev


def from_device(dev: int, size: int) -> np.ndarray:
    host = bytes(size)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(host), size, dev, size, D2H) == 0
    return np.frombuffer(host, np.uint8).copy()


def pic_desc(dev, fmt, w, h, ws, hs, size):
    d = acl.media.dvpp_create_pic_desc()
    for setter, v in ((acl.media.dvpp_set_pic_desc_data, dev), (acl.media.dvpp_set_pic_desc_format, fmt),
                      (acl.media.dvpp_set_pic_desc_width, w), (acl.media.dvpp_set_pic_desc_height, h),
                      (acl.media.dvpp_set_pic_desc_width_stride, ws),
                      (acl.media.dvpp_set_pic_desc_height_stride, hs), (acl.media.dvpp_set_pic_desc_size, size)):
        assert setter(d, v) == 0
    return d


def nv12_picture(w, h, seed=0, fill=None):
    """A random NV12 picture at 16/2-aligned strides: (y plane, uv plane (U, V), flat buffer with padding 7)."""
    rng = np.random.default_rng(seed)
    ws, hs = align(w, 16), align(h, 2)
    buf = np.full(ws * hs * 3 // 2, 7 if fill is None else fill, np.uint8)
    y = rng.integers(0, 256, (h, w), dtype=np.uint8)
    uv = rng.integers(0, 256, (h // 2, w // 2, 2), dtype=np.uint8)
    buf[: ws * hs].reshape(hs, ws)[:h, :w] = y
    buf[ws * hs:].reshape(hs // 2, ws)[: h // 2, :w] = uv.reshape(h // 2, w)
    return y, uv, buf, ws, hs


def planes(buf, w, h, ws, hs):
    y = buf[: ws * hs].reshape(hs, ws)[:h, :w]
    uv = buf[ws * hs: ws * hs * 3 // 2].reshape(hs // 2, ws)[: h // 2, :w].reshape(h // 2, w // 2, 2)
    return y, uv


def bilinear(a, oh, ow):
    """Independent bilinear reference, half-pixel centres, edge-clamped."""
    h, w = a.shape[:2]
    sy = np.clip((np.arange(oh) + 0.5) * h / oh - 0.5, 0, h - 1)
    sx = np.clip((np.arange(ow) + 0.5) * w / ow - 0.5, 0, w - 1)
    gy, gx = np.meshgrid(sy, sx, indexing="ij")
    y0, x0 = np.floor(gy).astype(int), np.floor(gx).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = gy - y0, gx - x0
    if a.ndim == 3:
        fy, fx = fy[..., None], fx[..., None]
    a = a.astype(np.float64)
    top = a[y0, x0] * (1 - fx) + a[y0, x1] * fx
    bot = a[y1, x0] * (1 - fx) + a[y1, x1] * fx
    return top * (1 - fy) + bot * fy


def jpeg_bytes(w, h, mode="RGB", **save):
    yy, xx = np.mgrid[0:h, 0:w]
    rgb = np.dstack([(xx * 255 // w), (yy * 255 // h), ((xx + yy) * 127 // (w + h))]).astype(np.uint8)
    im = Image.fromarray(rgb).convert(mode)
    out = io.BytesIO()
    im.save(out, "JPEG", quality=95, **save)
    return out.getvalue()


# ---------------------------------------------------------------- JPEG


def test_image_info_and_predicted_size_follow_the_header(dvpp):
    data = jpeg_bytes(150, 101)
    w, h, comps, ret = acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(data), len(data))
    assert (w, h, comps, ret) == (150, 101, 3, 0)
    assert acl.media.dvpp_jpeg_get_image_info_v2(acl.util.bytes_to_ptr(data), len(data))[3:] == (2, 0)  # 4:2:0
    grey = jpeg_bytes(64, 48, "L")
    assert acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(grey), len(grey))[2] == 1
    # Ascend910B1 (the default chip): width stride aligned to 64, height stride to 16, YUV420SP 3/2 bytes
    size, ret = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), NV12)
    assert ret == 0 and size == align(150, 64) * align(101, 16) * 3 // 2
    png = io.BytesIO()
    Image.new("RGB", (32, 32)).save(png, "PNG")
    raw = png.getvalue()
    assert acl.media.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(raw), len(raw))[3] == 100000
    assert "not a JPEG" in acl.get_recent_err_msg()


def test_jpeg_decode_writes_nv12_at_the_decoder_strides(dvpp):
    chan, stream = dvpp
    w, h = 200, 120
    data = jpeg_bytes(w, h)
    src = to_device(data)
    size, _ = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), NV12)
    out, _ = acl.media.dvpp_malloc(size)
    desc = pic_desc(out, NV12, 0, 0, 0, 0, size)
    assert acl.media.dvpp_jpeg_decode_async(chan, src, len(data), desc, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    ws, hs = acl.media.dvpp_get_pic_desc_width_stride(desc), acl.media.dvpp_get_pic_desc_height_stride(desc)
    assert (acl.media.dvpp_get_pic_desc_width(desc), acl.media.dvpp_get_pic_desc_height(desc)) == (w, h)
    assert (ws, hs) == (align(w, 64), align(h, 16))
    y, uv = planes(from_device(out, size), w, h, ws, hs)
    ref = np.asarray(Image.open(io.BytesIO(data)).convert("YCbCr")).astype(int)  # RGB decode, then JFIF YCbCr
    assert np.abs(y.astype(int) - ref[:, :, 0]).max() <= 3
    ref_uv = ref[:, :, 1:].reshape(h // 2, 2, w // 2, 2, 2).mean(axis=(1, 3))
    assert np.abs(uv.astype(int) - ref_uv).max() <= 3


def test_jpeg_decode_refuses_progressive_at_synchronize_with_the_reason(dvpp):
    chan, stream = dvpp
    data = jpeg_bytes(64, 64, progressive=True)
    src = to_device(data)
    out, _ = acl.media.dvpp_malloc(64 * 64 * 2)
    desc = pic_desc(out, NV12, 0, 0, 0, 0, 64 * 64 * 2)
    assert acl.media.dvpp_jpeg_decode_async(chan, src, len(data), desc, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 100000
    assert "progressive JPEG" in acl.get_recent_err_msg()
    assert acl.media.dvpp_get_pic_desc_ret_code(desc) != 0


def test_jpeg_encode_round_trips_and_reports_the_size(dvpp):
    chan, stream = dvpp
    w, h = 96, 64
    y, uv, buf, ws, hs = nv12_picture(w, h)
    y[:] = np.add.outer(np.arange(h), np.arange(w)).astype(np.uint8)  # smooth content JPEG keeps
    uv[:] = 128
    buf[: ws * hs].reshape(hs, ws)[:h, :w] = y
    buf[ws * hs:].reshape(hs // 2, ws)[: h // 2, :w] = 128
    src = to_device(buf.tobytes())
    desc = pic_desc(src, NV12, w, h, ws, hs, buf.size)
    cfg = acl.media.dvpp_create_jpege_config()
    assert acl.media.dvpp_set_jpege_config_level(cfg, 100) == 0
    cap, ret = acl.media.dvpp_jpeg_predict_enc_size(desc, cfg)
    assert ret == 0 and cap > 0
    out, _ = acl.media.dvpp_malloc(cap)
    size = np.array([cap], np.uint32).tobytes()  # acllite's way: a uint32 in host bytes, read back after sync
    assert acl.media.dvpp_jpeg_encode_async(chan, desc, out, acl.util.bytes_to_ptr(size), cfg, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    n = int(np.frombuffer(size, np.uint32)[0])
    assert 0 < n <= cap
    back = Image.open(io.BytesIO(from_device(out, n).tobytes()))
    assert back.size == (w, h)
    assert np.abs(np.asarray(back.convert("L")).astype(int) - y).mean() < 2


# ---------------------------------------------------------------- VPC


def run_vpc(call, chan, stream, inp, out_w, out_h, out_fmt=NV12, *extra, fill=9):
    """Run a VPC call from the NV12 picture `inp` (y, uv, buf, ws, hs, w, h) into a fresh output picture."""
    _, _, buf, ws, hs, w, h = inp
    src = to_device(buf.tobytes())
    din = pic_desc(src, NV12, w, h, ws, hs, buf.size)
    ows = align(out_w * 3, 16) if out_fmt == RGB888 else align(out_w, 16)
    ohs = align(out_h, 2)
    osize = ows * ohs if out_fmt == RGB888 else ows * ohs * 3 // 2
    dst = to_device(bytes([fill]) * osize)
    dout = pic_desc(dst, out_fmt, out_w, out_h, ows, ohs, osize)
    assert call(chan, din, dout, *extra, stream) == 0, acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(stream) == 0
    return from_device(dst, osize), ows, ohs


def test_resize_is_bilinear_per_plane_and_leaves_the_stride_padding(dvpp):
    chan, stream = dvpp
    y, uv, buf, ws, hs = nv12_picture(100, 60)
    cfg = acl.media.dvpp_create_resize_config()
    out, ows, ohs = run_vpc(acl.media.dvpp_vpc_resize_async, chan, stream, (y, uv, buf, ws, hs, 100, 60), 40, 30,
                            NV12, cfg)
    oy, ouv = planes(out, 40, 30, ows, ohs)
    assert np.abs(oy.astype(float) - bilinear(y, 30, 40)).max() <= 1
    assert np.abs(ouv.astype(float) - bilinear(uv, 15, 20)).max() <= 1
    assert (out[: ows * ohs].reshape(ohs, ows)[:, 40:] == 9).all()  # padding of the 48-byte stride untouched
    assert acl.media.dvpp_set_resize_config_interpolation(cfg, 2) == 0  # nearest neighbour
    out, ows, ohs = run_vpc(acl.media.dvpp_vpc_resize_async, chan, stream, (y, uv, buf, ws, hs, 100, 60), 50, 30,
                            NV12, cfg)
    assert np.array_equal(planes(out, 50, 30, ows, ohs)[0], y[::2, ::2])


def test_crop_to_the_same_size_copies_the_area_exactly(dvpp):
    chan, stream = dvpp
    y, uv, buf, ws, hs = nv12_picture(64, 48)
    roi = acl.media.dvpp_create_roi_config(10, 41, 4, 27)  # inclusive: 32 x 24
    out, ows, ohs = run_vpc(acl.media.dvpp_vpc_crop_async, chan, stream, (y, uv, buf, ws, hs, 64, 48), 32, 24,
                            NV12, roi)
    oy, ouv = planes(out, 32, 24, ows, ohs)
    assert np.array_equal(oy, y[4:28, 10:42])
    assert np.array_equal(ouv, uv[2:14, 5:21])


def test_crop_and_paste_writes_only_the_paste_area(dvpp):
    chan, stream = dvpp
    y, uv, buf, ws, hs = nv12_picture(64, 48)
    crop = acl.media.dvpp_create_roi_config(0, 31, 0, 23)
    paste = acl.media.dvpp_create_roi_config(16, 47, 8, 31)
    out, ows, ohs = run_vpc(acl.media.dvpp_vpc_crop_and_paste_async, chan, stream, (y, uv, buf, ws, hs, 64, 48),
                            64, 40, NV12, crop, paste)
    oy, ouv = planes(out, 64, 40, ows, ohs)
    assert np.array_equal(oy[8:32, 16:48], y[:24, :32])
    assert np.array_equal(ouv[4:16, 8:24], uv[:12, :16])
    mask = np.ones_like(oy, bool)
    mask[8:32, 16:48] = False
    assert (oy[mask] == 9).all()


def test_colour_conversion_nv12_to_rgb_matches_pillow_and_nv21_swaps_chroma(dvpp):
    chan, stream = dvpp
    w, h = 32, 16
    y, uv, buf, ws, hs = nv12_picture(w, h)
    out, ows, _ = run_vpc(acl.media.dvpp_vpc_convert_color_async, chan, stream, (y, uv, buf, ws, hs, w, h), w, h,
                          RGB888)
    rgb = out.reshape(-1, ows)[:h, : w * 3].reshape(h, w, 3)
    up = uv.repeat(2, axis=0).repeat(2, axis=1)
    ref = np.asarray(Image.fromarray(np.dstack([y, up]), "YCbCr").convert("RGB")).astype(int)
    assert np.abs(rgb.astype(int) - ref).max() <= 2
    out, ows, ohs = run_vpc(acl.media.dvpp_vpc_convert_color_async, chan, stream, (y, uv, buf, ws, hs, w, h), w, h,
                            NV21)
    oy, ovu = planes(out, w, h, ows, ohs)
    assert np.array_equal(oy, y) and np.array_equal(ovu, uv[:, :, ::-1])


def test_alignment_and_size_rules_are_clear_errors(dvpp):
    chan, stream = dvpp
    buf = nv12_picture(64, 48)[2]
    src = to_device(buf.tobytes())
    dst, _ = acl.media.dvpp_malloc(64 * 48 * 3 // 2)
    cfg = acl.media.dvpp_create_resize_config()
    good_in = pic_desc(src, NV12, 64, 48, 64, 48, buf.size)
    cases = [
        (pic_desc(src, NV12, 60, 48, 60, 48, buf.size), "multiple of 16 and >= 60"),  # width stride 60
        (pic_desc(src, NV12, 64, 47, 64, 47, buf.size), "height stride 47 must be even"),
        (pic_desc(src, NV12, 64, 48, 64, 48, 100), "needs 4608"),
        (pic_desc(src, 99, 64, 48, 64, 48, buf.size), "pixel format 99 is not emulated"),
    ]
    out = pic_desc(dst, NV12, 64, 48, 64, 48, 64 * 48 * 3 // 2)
    for bad, msg in cases:
        assert acl.media.dvpp_vpc_resize_async(chan, bad, out, cfg, stream) == 100000
        assert msg in acl.get_recent_err_msg()
    odd_out = pic_desc(dst, NV12, 63, 48, 64, 48, 64 * 48 * 3 // 2)
    assert acl.media.dvpp_vpc_resize_async(chan, good_in, odd_out, cfg, stream) == 100000
    assert "even width and height" in acl.get_recent_err_msg()
    odd_roi = acl.media.dvpp_create_roi_config(1, 32, 0, 23)
    assert acl.media.dvpp_vpc_crop_async(chan, good_in, out, odd_roi, stream) == 100000
    assert "left and top offsets must be even" in acl.get_recent_err_msg()
    crop = acl.media.dvpp_create_roi_config(0, 31, 0, 23)
    paste = acl.media.dvpp_create_roi_config(8, 39, 0, 23)
    assert acl.media.dvpp_vpc_crop_and_paste_async(chan, good_in, out, crop, paste, stream) == 100000
    assert "multiple of 16" in acl.get_recent_err_msg()
    host = acl.util.bytes_to_ptr(buf.tobytes())
    assert acl.media.dvpp_vpc_resize_async(chan, pic_desc(host, NV12, 64, 48, 64, 48, buf.size), out, cfg,
                                           stream) == 100000
    assert "host memory" in acl.get_recent_err_msg()
    idle = acl.media.dvpp_create_channel_desc()
    assert acl.media.dvpp_vpc_resize_async(idle, good_in, out, cfg, stream) == 100000
    assert "dvpp_create_channel" in acl.get_recent_err_msg()
    assert acl.media.dvpp_vpc_resize_async(chan, good_in, out, cfg, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0


def test_video_stays_refused():
    with pytest.warns(UserWarning, match="VDEC/VENC"):
        assert acl.media.venc_create_channel(0) == 200001


def test_missing_pillow_says_which_pip_command_fixes_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match=r"pip install 'aclsim\[images\]'"):
        picture.pillow()


def test_missing_onnxruntime_says_which_pip_command_fixes_it(monkeypatch):
    from aclsim.models import graph

    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ImportError, match=r"pip install 'aclsim\[models\]'"):
        graph.require("onnxruntime")


def test_reading_a_vpc_output_before_synchronize_is_a_race(dvpp):
    from aclsim.check import Session

    chan, stream = dvpp
    buf = nv12_picture(64, 48)[2]
    src = to_device(buf.tobytes())
    dst, _ = acl.media.dvpp_malloc(32 * 24 * 3 // 2)
    s = Session(["racecheck"])
    cfg = acl.media.dvpp_create_resize_config()
    assert acl.media.dvpp_vpc_resize_async(chan, pic_desc(src, NV12, 64, 48, 64, 48, buf.size),
                                           pic_desc(dst, NV12, 32, 24, 32, 24, 32 * 24 * 3 // 2), cfg, stream) == 0
    from_device(dst, 32 * 24 * 3 // 2)  # BUG: no synchronize_stream first
    s.stop()
    assert any(f.tool == "racecheck" for f in s.findings)
    assert acl.rt.synchronize_stream(stream) == 0


def test_model_reading_an_unfilled_letterbox_border_is_an_initcheck_finding(dvpp):
    from aclsim.check import Session

    chan, stream = dvpp
    buf = nv12_picture(64, 48)[2]
    src = to_device(buf.tobytes())
    s = Session(["initcheck"])
    canvas, _ = acl.media.dvpp_malloc(64 * 64 * 3 // 2)  # never filled: the border stays garbage
    out = pic_desc(canvas, NV12, 64, 64, 64, 64, 64 * 64 * 3 // 2)
    crop = acl.media.dvpp_create_roi_config(0, 63, 0, 47)
    paste = acl.media.dvpp_create_roi_config(0, 63, 0, 47)
    assert acl.media.dvpp_vpc_crop_and_paste_async(chan, pic_desc(src, NV12, 64, 48, 64, 48, buf.size), out, crop,
                                                   paste, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    from_device(canvas, 64 * 48)  # the pasted luma rows: written
    assert s.findings == []
    from_device(canvas, 64 * 64)  # the whole luma plane: rows 48..63 nothing wrote
    s.stop()
    assert [f.tool for f in s.findings] == ["initcheck"]


def test_jpeg_decode_keeps_a_larger_valid_stride_the_program_set(dvpp):
    chan, stream = dvpp
    data = jpeg_bytes(100, 50)
    ws, hs = align(100, 128), align(50, 16)  # acllite's Atlas 300 strides on a chip that needs only 64
    out, _ = acl.media.dvpp_malloc(ws * hs * 3 // 2)
    desc = pic_desc(out, NV12, 100, 50, ws, hs, ws * hs * 3 // 2)
    assert acl.media.dvpp_jpeg_decode_async(chan, to_device(data), len(data), desc, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.media.dvpp_get_pic_desc_width_stride(desc) == 128
    y, _ = planes(from_device(out, ws * hs * 3 // 2), 100, 50, ws, hs)
    ref = np.asarray(Image.open(io.BytesIO(data)).convert("YCbCr"))[:, :, 0].astype(int)
    assert np.abs(y.astype(int) - ref).max() <= 3
    small = pic_desc(out, NV12, 0, 0, 0, 0, 1000)
    assert acl.media.dvpp_jpeg_decode_async(chan, to_device(data), len(data), small, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 100000
    assert "dvpp_jpeg_predict_dec_size" in acl.get_recent_err_msg()


def test_batch_crop_assigns_crop_areas_to_outputs_in_order(dvpp):
    chan, stream = dvpp
    srcs = [nv12_picture(64, 48, seed=s) for s in (1, 2)]
    src_batch = acl.media.dvpp_create_batch_pic_desc(2)
    for k, (_, _, buf, ws, hs) in enumerate(srcs):
        d = acl.media.dvpp_get_pic_desc(src_batch, k)
        for f, v in (("data", to_device(buf.tobytes())), ("format", NV12), ("width", 64), ("height", 48),
                     ("width_stride", ws), ("height_stride", hs), ("size", buf.size)):
            assert getattr(acl.media, f"dvpp_set_pic_desc_{f}")(d, v) == 0
    dst_batch = acl.media.dvpp_create_batch_pic_desc(3)
    outs = []
    for k in range(3):
        dev, _ = acl.media.dvpp_malloc(32 * 16 * 3 // 2)
        d = acl.media.dvpp_get_pic_desc(dst_batch, k)
        for f, v in (("data", dev), ("format", NV12), ("width", 32), ("height", 16), ("width_stride", 32),
                     ("height_stride", 16), ("size", 32 * 16 * 3 // 2)):
            getattr(acl.media, f"dvpp_set_pic_desc_{f}")(d, v)
        outs.append(dev)
    boxes = [(0, 31, 0, 15), (32, 63, 0, 15), (0, 31, 32, 47)]  # left, right, top, bottom
    crops = [acl.media.dvpp_create_roi_config(*b) for b in boxes]
    assert acl.media.dvpp_vpc_batch_crop_async(chan, src_batch, [1, 2], dst_batch, crops, stream) == (dst_batch, 0)
    assert acl.rt.synchronize_stream(stream) == 0
    owners = [0, 1, 1]  # roi_nums [1, 2]: one crop from input 0, two from input 1
    for dev, (left, right, top, bottom), o in zip(outs, boxes, owners, strict=True):
        y, _ = planes(from_device(dev, 32 * 16 * 3 // 2), 32, 16, 32, 16)
        assert np.array_equal(y, srcs[o][0][top:bottom + 1, left:right + 1])
    assert acl.media.dvpp_vpc_batch_crop_async(chan, src_batch, [1, 1], dst_batch, crops, stream)[1] == 100000
    assert "must add up to the 3 output pictures" in acl.get_recent_err_msg()
    assert acl.media.dvpp_destroy_batch_pic_desc(src_batch) == 0
    assert acl.media.dvpp_get_pic_desc(src_batch, 0) == 0


def test_png_decode_to_rgb888_at_the_decoder_strides(dvpp):
    chan, stream = dvpp
    rgba = np.random.default_rng(5).integers(0, 256, (30, 50, 4), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(out, "PNG")
    data = out.getvalue()
    ptr = acl.util.bytes_to_ptr(data)
    assert acl.media.dvpp_png_get_image_info(ptr, len(data)) == (50, 30, 4, 0)
    size, ret = acl.media.dvpp_png_predict_dec_size(ptr, len(data), RGB888)
    assert ret == 0 and size == align(50, 128) * 3 * align(30, 16)
    assert acl.media.dvpp_png_predict_dec_size(ptr, len(data), NV12)[1] == 100000
    dev, _ = acl.media.dvpp_malloc(size)
    desc = pic_desc(dev, RGB888, 0, 0, 0, 0, size)
    assert acl.media.dvpp_png_decode_async(chan, to_device(data), len(data), desc, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    ws = acl.media.dvpp_get_pic_desc_width_stride(desc)
    assert ws == 384 and acl.media.dvpp_get_pic_desc_height_stride(desc) == 32
    rgb = from_device(dev, size).reshape(32, ws)[:30, :150].reshape(30, 50, 3)
    np.testing.assert_array_equal(rgb, rgba[:, :, :3])  # PNG is lossless: exactly the pixels, alpha dropped


def test_every_jpeg_call_without_pillow_says_which_pip_command_fixes_it(monkeypatch):
    jpeg = io.BytesIO()
    Image.new("RGB", (32, 16)).save(jpeg, "JPEG")
    for name in ("PIL", "PIL.Image", "PIL.JpegImagePlugin"):
        monkeypatch.setitem(sys.modules, name, None)
    for fn in (picture.jpeg_info, picture.jpeg_decode):
        with pytest.raises(ImportError, match=r"pip install 'aclsim\[images\]'"):
            fn(jpeg.getvalue())
