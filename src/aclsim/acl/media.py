"""`acl.media`: DVPP memory and picture processing (JPEGD, JPEGE, VPC), on emulated device memory.

DVPP buffers are ordinary device memory. Channel and picture descriptions, ROI / resize / JPEGE
configurations are handles as in pyACL; the processing calls validate the descriptions at the call
(DVPP's stride, size and ROI rules: a misaligned stride is refused with the rule and the value to
use) and are queued on the stream like a kernel, so results are valid after acl.rt.synchronize_stream
and the sanitizer sees their reads and writes. A JPEG that cannot be decoded makes that synchronize
return the code, with the reason in acl.get_recent_err_msg() and in the output description's ret code.
The pixel work is `models/picture.py` (Pillow + numpy). Video (VDEC/VENC) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import AclError, Code
from ..models import picture as P
from ..runtime import get_runtime
from . import _device, _handles
from ._args import parser, pyacl
from ._missing import R, not_emulated
from .buffers import _bare, failed


@pyacl("acl.media.dvpp_malloc", "k", fail=(0,))
def dvpp_malloc(size: int) -> int:
    return get_runtime().malloc(size, 0, "dvpp_malloc").start


@pyacl("acl.media.dvpp_free", "k")
def dvpp_free(dev_ptr: int) -> None:
    get_runtime().free(dev_ptr, "acl.media.dvpp_free")


# ---------------------------------------------------------------- handles


@dataclass(eq=False)
class ChannelDesc:
    mode: int = 0
    created: bool = False


@dataclass(eq=False)
class PicDesc:
    data: int = 0
    size: int = 0
    format: int = 0
    width: int = 0
    height: int = 0
    width_stride: int = 0
    height_stride: int = 0
    ret_code: int = 0

    def layout(self) -> P.Layout:
        return P.Layout(self.format, self.width, self.height, self.width_stride, self.height_stride)


@dataclass(eq=False)
class RoiConfig:
    roi: P.Roi


@dataclass(eq=False)
class ResizeConfig:
    interpolation: int = 0


@dataclass(eq=False)
class JpegeConfig:
    level: int = 100


_KINDS = {ChannelDesc: "channel description", PicDesc: "picture description", RoiConfig: "ROI configuration",
          ResizeConfig: "resize configuration", JpegeConfig: "JPEGE configuration"}


def _get(handle: int, kind: type, fn: str) -> Any:
    return _handles.get(handle, kind, fn, _KINDS[kind])


def _creator(name: str, kind: type, fmt: str = "") -> Any:
    def create(*args: Any) -> int:
        return _handles.new(kind(*parser(f"acl.media.{name}", fmt)(args)))

    create.__name__ = create.__qualname__ = name
    create.__doc__ = f"acl.media.{name}() -> handle."
    return create


def _destroyer(name: str, kind: type) -> Any:
    @pyacl(f"acl.media.{name}", "k")
    def destroy(handle: int) -> None:
        _get(handle, kind, f"acl.media.{name}")
        _handles.drop(handle)

    destroy.__name__ = name
    return destroy


def _field(prefix: str, kind: type, attr: str, fmt: str = "I") -> tuple[Any, Any]:
    """The pyACL setter (ret) and getter (bare value) of one description field."""
    set_name, get_name = f"dvpp_set_{prefix}_{attr}", f"dvpp_get_{prefix}_{attr}"

    @pyacl(f"acl.media.{set_name}", "k" + fmt)
    def setter(handle: int, value: int) -> None:
        setattr(_get(handle, kind, f"acl.media.{set_name}"), attr, value)

    @_bare(f"acl.media.{get_name}", "k", 0)
    def getter(handle: int) -> int:
        return getattr(_get(handle, kind, f"acl.media.{get_name}"), attr)

    setter.__name__, getter.__name__ = set_name, get_name
    return setter, getter


dvpp_create_channel_desc = _creator("dvpp_create_channel_desc", ChannelDesc)
dvpp_destroy_channel_desc = _destroyer("dvpp_destroy_channel_desc", ChannelDesc)
dvpp_set_channel_desc_mode, dvpp_get_channel_desc_mode = _field("channel_desc", ChannelDesc, "mode")


@pyacl("acl.media.dvpp_create_channel", "k")
def dvpp_create_channel(desc: int) -> None:
    fn = "acl.media.dvpp_create_channel"
    _device.require_context(fn)
    _get(desc, ChannelDesc, fn).created = True


@pyacl("acl.media.dvpp_destroy_channel", "k")
def dvpp_destroy_channel(desc: int) -> None:
    _get(desc, ChannelDesc, "acl.media.dvpp_destroy_channel").created = False


dvpp_create_pic_desc = _creator("dvpp_create_pic_desc", PicDesc)
dvpp_destroy_pic_desc = _destroyer("dvpp_destroy_pic_desc", PicDesc)
dvpp_set_pic_desc_data, dvpp_get_pic_desc_data = _field("pic_desc", PicDesc, "data", "k")
dvpp_set_pic_desc_size, dvpp_get_pic_desc_size = _field("pic_desc", PicDesc, "size")
dvpp_set_pic_desc_format, dvpp_get_pic_desc_format = _field("pic_desc", PicDesc, "format")
dvpp_set_pic_desc_width, dvpp_get_pic_desc_width = _field("pic_desc", PicDesc, "width")
dvpp_set_pic_desc_height, dvpp_get_pic_desc_height = _field("pic_desc", PicDesc, "height")
dvpp_set_pic_desc_width_stride, dvpp_get_pic_desc_width_stride = _field("pic_desc", PicDesc, "width_stride")
dvpp_set_pic_desc_height_stride, dvpp_get_pic_desc_height_stride = _field("pic_desc", PicDesc, "height_stride")
dvpp_set_pic_desc_ret_code, dvpp_get_pic_desc_ret_code = _field("pic_desc", PicDesc, "ret_code")


def dvpp_create_roi_config(*args: Any) -> int:
    """acl.media.dvpp_create_roi_config(left, right, top, bottom) -> config (offsets inclusive)."""
    return _handles.new(RoiConfig(P.Roi(*parser("acl.media.dvpp_create_roi_config", "IIII")(args))))


dvpp_destroy_roi_config = _destroyer("dvpp_destroy_roi_config", RoiConfig)


@pyacl("acl.media.dvpp_set_roi_config", "kIIII")
def dvpp_set_roi_config(config: int, left: int, right: int, top: int, bottom: int) -> None:
    _get(config, RoiConfig, "acl.media.dvpp_set_roi_config").roi = P.Roi(left, right, top, bottom)


def _roi_side(side: str) -> Any:
    name = f"dvpp_set_roi_config_{side}"

    @pyacl(f"acl.media.{name}", "kI")
    def set_side(config: int, value: int) -> None:
        setattr(_get(config, RoiConfig, f"acl.media.{name}").roi, side, value)

    set_side.__name__ = name
    return set_side


dvpp_set_roi_config_left, dvpp_set_roi_config_right = _roi_side("left"), _roi_side("right")
dvpp_set_roi_config_top, dvpp_set_roi_config_bottom = _roi_side("top"), _roi_side("bottom")

dvpp_create_resize_config = _creator("dvpp_create_resize_config", ResizeConfig)
dvpp_destroy_resize_config = _destroyer("dvpp_destroy_resize_config", ResizeConfig)
dvpp_set_resize_config_interpolation, dvpp_get_resize_config_interpolation = _field(
    "resize_config", ResizeConfig, "interpolation")
dvpp_create_jpege_config = _creator("dvpp_create_jpege_config", JpegeConfig)
dvpp_destroy_jpege_config = _destroyer("dvpp_destroy_jpege_config", JpegeConfig)
dvpp_set_jpege_config_level, dvpp_get_jpege_config_level = _field("jpege_config", JpegeConfig, "level")


# ---------------------------------------------------------------- common checks


def _channel(desc: int, fn: str) -> None:
    _device.require_context(fn)
    if not _get(desc, ChannelDesc, fn).created:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the channel is not created; call "
                       "acl.media.dvpp_create_channel(channel_desc) first")


def _rule(fn: str, e: P.PictureError) -> AclError:
    return AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {e}")


def _dvpp_memory(addr: int, nbytes: int, write: bool, fn: str, what: str) -> _device.Bytes:
    """DVPP reads and writes device memory (acl.media.dvpp_malloc), never host memory."""
    mem = _device.memory(addr, nbytes, write, fn, what)
    if not mem.on_device:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {what} {addr:#x} is host memory; DVPP works on device "
                       "memory from acl.media.dvpp_malloc (copy it there with acl.rt.memcpy)")
    return mem


def _picture(desc: int, fn: str, what: str, output: bool) -> tuple[PicDesc, P.Layout, _device.Bytes]:
    d = _get(desc, PicDesc, fn)
    p = d.layout()
    try:
        P.check_layout(p, d.size, f"{what} picture", output)
    except P.PictureError as e:
        raise _rule(fn, e)
    return d, p, _dvpp_memory(d.data, p.size(), output, fn, f"{what} picture data")


def _host_bytes(data: int, size: int, fn: str) -> bytes:
    if data == 0 or size == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: data must not be NULL and size must be > 0")
    return _device.memory(data, size, False, fn, "data").array().tobytes()


def _jpegd_align() -> int:
    """JPEGD's output width-stride alignment: 64 on the chips aclsim models (Atlas inference, A2: Ascend310P,
    Ascend910B), 128 on Atlas 200/300/500 and the first training series."""
    name = _device.chip_name()
    return 64 if name.startswith(("Ascend310P", "Ascend910B", "Ascend310B")) else 128


@dataclass(frozen=True)
class _Codec:
    """A DVPP decoder: its output formats, width-stride alignment (pixels) and the engine calls."""

    name: str
    formats: tuple[int, ...]
    align: Any  # () -> int
    info: Any  # bytes -> P.JpegInfo
    decode: Any  # bytes -> P.Planes

    def check_format(self, fmt: int, fn: str) -> None:
        if fmt not in self.formats:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {self.name} output format {fmt}: aclsim decodes to "
                           + ", ".join(f"{P.FORMAT_NAMES[f]} ({f})" for f in self.formats))

    def layout(self, fmt: int, width: int, height: int) -> P.Layout:
        """The decoder's output: width stride aligned (x 3 bytes for RGB), height stride to 16."""
        per = 3 if fmt in (P.RGB888, P.BGR888) else 1
        return P.Layout(fmt, width, height, P.align(width, self.align()) * per, P.align(height, 16))


# JPEGD: YUV420SP out (JPEGD "functions and restrictions"); PNGD: RGB888 out, width stride
# align(width, 128) x 3, height stride align(height, 16) (PNGD "functions and restrictions").
_JPEGD = _Codec("JPEGD", P.YUV420SP, _jpegd_align, P.jpeg_info, P.jpeg_decode)
_PNGD = _Codec("PNGD", (P.RGB888,), lambda: 128, P.png_info, P.png_decode)


def _info(codec: _Codec, data: bytes, fn: str) -> P.JpegInfo:
    try:
        return codec.info(data)
    except P.PictureError as e:
        raise _rule(fn, e)


def _predict(codec: _Codec, fn: str, data: int, size: int, output_format: int) -> int:
    codec.check_format(output_format, fn)
    i = _info(codec, _host_bytes(data, size, fn), fn)
    return codec.layout(output_format, i.width, i.height).size()


def _decode(codec: _Codec, fn: str, channel_desc: int, data: int, size: int, output_desc: int,
            stream: int) -> None:
    """Decode the picture at `data` (device memory) into the output description's buffer; the decoder sets the
    description's width, height and strides to the decoded picture's (a stride the program set is kept when
    it is a valid one, e.g. 128-aligned where 64 is the minimum)."""
    P.pillow()  # a missing Pillow fails the call, not the queued work
    _channel(channel_desc, fn)
    if data == 0 or size == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: data must not be NULL and size must be > 0")
    src = _dvpp_memory(data, size, False, fn, f"{codec.name} input data")
    d = _get(output_desc, PicDesc, fn)
    codec.check_format(d.format, fn)
    dst = _dvpp_memory(d.data, d.size, True, fn, "output picture data")

    def run() -> None:
        try:
            img = codec.decode(src.array().tobytes())
            h, w = img.hw
            p = codec.layout(d.format, w, h)
            unit = p.wstride // P.align(w, codec.align()) * codec.align()
            if d.width_stride >= p.wstride and d.width_stride % unit == 0 and d.height_stride >= p.hstride \
                    and d.height_stride % 16 == 0:
                p.wstride, p.hstride = d.width_stride, d.height_stride
            if d.size < p.size():
                raise P.PictureError(f"the output buffer has {d.size} bytes; the decoded {w}x{h} picture at strides "
                                     f"{p.wstride}x{p.hstride} needs {p.size()} ({fn.replace('decode_async', 'predict_dec_size')})")
        except P.PictureError as e:
            d.ret_code = int(Code.ERROR_INVALID_PARAM)
            raise _device.fault(f"{fn}: {e}", Code.ERROR_INVALID_PARAM)
        P.write(dst.array(), p, img)
        d.width, d.height, d.width_stride, d.height_stride, d.ret_code = w, h, p.wstride, p.hstride, 0

    _device.enqueue(stream, "kernel", codec.name.lower(), run, [src], [dst], fn, engine="dvpp")


# ---------------------------------------------------------------- JPEG


@pyacl("acl.media.dvpp_jpeg_get_image_info", "kI", fail=(0, 0, 0))
def dvpp_jpeg_get_image_info(data: int, size: int) -> tuple[int, int, int]:
    """(width, height, components) from the JPEG header in host memory."""
    i = _info(_JPEGD, _host_bytes(data, size, "acl.media.dvpp_jpeg_get_image_info"),
              "acl.media.dvpp_jpeg_get_image_info")
    return i.width, i.height, i.components


@pyacl("acl.media.dvpp_jpeg_get_image_info_v2", "kI", fail=(0, 0, 0, 0))
def dvpp_jpeg_get_image_info_v2(data: int, size: int) -> tuple[int, int, int, int]:
    """(width, height, components, acldvppJpegFormat) from the JPEG header in host memory."""
    fn = "acl.media.dvpp_jpeg_get_image_info_v2"
    i = _info(_JPEGD, _host_bytes(data, size, fn), fn)
    return i.width, i.height, i.components, i.format


@pyacl("acl.media.dvpp_jpeg_predict_dec_size", "kIi", fail=(0,))
def dvpp_jpeg_predict_dec_size(data: int, size: int, output_format: int) -> int:
    """The output buffer JPEGD needs: width stride x height stride x 3/2 for YUV420SP."""
    return _predict(_JPEGD, "acl.media.dvpp_jpeg_predict_dec_size", data, size, output_format)


@pyacl("acl.media.dvpp_jpeg_decode_async", "kkIkk")
def dvpp_jpeg_decode_async(channel_desc: int, data: int, size: int, output_desc: int, stream: int) -> None:
    _decode(_JPEGD, "acl.media.dvpp_jpeg_decode_async", channel_desc, data, size, output_desc, stream)


@pyacl("acl.media.dvpp_png_get_image_info", "kI", fail=(0, 0, 0))
def dvpp_png_get_image_info(data: int, size: int) -> tuple[int, int, int]:
    """(width, height, components) from the PNG header in host memory."""
    i = _info(_PNGD, _host_bytes(data, size, "acl.media.dvpp_png_get_image_info"),
              "acl.media.dvpp_png_get_image_info")
    return i.width, i.height, i.components


@pyacl("acl.media.dvpp_png_predict_dec_size", "kIi", fail=(0,))
def dvpp_png_predict_dec_size(data: int, size: int, output_format: int) -> int:
    """The output buffer PNGD needs: width stride x height stride (RGB888)."""
    return _predict(_PNGD, "acl.media.dvpp_png_predict_dec_size", data, size, output_format)


@pyacl("acl.media.dvpp_png_decode_async", "kkIkk")
def dvpp_png_decode_async(channel_desc: int, data: int, size: int, output_desc: int, stream: int) -> None:
    _decode(_PNGD, "acl.media.dvpp_png_decode_async", channel_desc, data, size, output_desc, stream)


@pyacl("acl.media.dvpp_jpeg_predict_enc_size", "kk", fail=(0,))
def dvpp_jpeg_predict_enc_size(input_desc: int, config: int) -> int:
    """An upper bound of the JPEG size: twice the YUV420SP input (a JPEG at level 100 of noise stays under it)."""
    fn = "acl.media.dvpp_jpeg_predict_enc_size"
    d = _get(input_desc, PicDesc, fn)
    _get(config, JpegeConfig, fn)
    return P.align(d.layout().size() * 2, 128)


@pyacl("acl.media.dvpp_jpeg_encode_async", "kkkkkk")
def dvpp_jpeg_encode_async(channel_desc: int, input_desc: int, data: int, size: int, config: int,
                           stream: int) -> None:
    """Encode the YUV420SP input picture as JPEG into `data` (device memory); `size` points to a uint32 in
    host memory: the buffer's capacity in, the JPEG's size out (after the stream's synchronize)."""
    fn = "acl.media.dvpp_jpeg_encode_async"
    P.pillow()
    _channel(channel_desc, fn)
    _, p, src = _picture(input_desc, fn, "input", True)
    if p.fmt not in P.YUV420SP:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: JPEGE input format {p.fmt}: aclsim encodes YUV420SP "
                       f"NV12 ({P.NV12}) or NV21 ({P.NV21})")
    if p.width < 32 or p.height < 32:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {p.width}x{p.height} is below JPEGE's 32x32")
    level = _get(config, JpegeConfig, fn).level
    if not 0 <= level <= 100:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: JPEGE level {level} is outside 0..100")
    size_mem = _device.memory(size, 4, True, fn, "size")
    capacity = int(size_mem.array("<u4")[0])
    if data == 0 or capacity == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: data must not be NULL and *size (the buffer's bytes) > 0")
    dst = _dvpp_memory(data, capacity, True, fn, "output data")

    def run() -> None:
        # Pillow's quality scale stands for the level; level 0 encodes as 100 does (the reference: 0 ~ 100).
        jpeg = P.jpeg_encode(P.read(src.array(), p), level or 100)
        if len(jpeg) > capacity:
            raise _device.fault(f"{fn}: the JPEG is {len(jpeg)} bytes, the output buffer {capacity} "
                                "(acl.media.dvpp_jpeg_predict_enc_size)", Code.ERROR_INVALID_PARAM)
        dst.array()[: len(jpeg)] = memoryview(jpeg)
        size_mem.array("<u4")[0] = len(jpeg)

    _device.enqueue(stream, "kernel", "jpege", run, [src], [dst], fn, engine="dvpp")


# ---------------------------------------------------------------- VPC


def _roi(config: int, p: P.Layout, fn: str, what: str, paste: bool) -> P.Roi:
    r = _get(config, RoiConfig, fn).roi
    try:
        P.check_roi(r, p, what, paste)
    except P.PictureError as e:
        raise _rule(fn, e)
    return P.Roi(r.left, r.right, r.top, r.bottom)  # the values at the call, as the device takes them


def _nearest(config: int | None, fn: str) -> bool:
    """acldvppResizeConfig interpolation: 0 default (bilinear), 1 bilinear, 2 nearest neighbour (OpenCV's),
    3 bilinear, 4 nearest neighbour (TensorFlow's)."""
    mode = 0 if config is None else _get(config, ResizeConfig, fn).interpolation
    if mode > 4:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: interpolation {mode}: 0 or 1/3 bilinear, 2/4 nearest")
    return mode in (2, 4)


Job = tuple[int, int, "int | None", "int | None"]  # input desc, output desc, crop area, paste area (handles)


def _vpc(fn: str, channel_desc: int, input_desc: int, output_desc: int, stream: int, crop_area: int | None = None,
         paste_area: int | None = None, resize_config: int | None = None, same_size: bool = False) -> None:
    """One VPC operation: crop the input (whole picture if no crop area), scale it to the paste area (whole
    output if none) and write it there in the output's format (colour conversion when formats differ)."""
    _vpc_jobs(fn, channel_desc, [(input_desc, output_desc, crop_area, paste_area)], stream, resize_config,
              same_size)


def _vpc_jobs(fn: str, channel_desc: int, jobs: list[Job], stream: int, resize_config: int | None = None,
              same_size: bool = False) -> None:
    """Validate every job at the call, then queue them as one device task."""
    _channel(channel_desc, fn)
    nearest = _nearest(resize_config, fn)
    steps, reads, writes = [], [], []
    for k, (input_desc, output_desc, crop_area, paste_area) in enumerate(jobs):
        tag = f" {k}" if len(jobs) > 1 else ""
        _, pin, src = _picture(input_desc, fn, "input" + tag, False)
        _, pout, dst = _picture(output_desc, fn, "output" + tag, True)
        crop = None if crop_area is None else _roi(crop_area, pin, fn, "crop area" + tag, False)
        paste = None if paste_area is None else _roi(paste_area, pout, fn, "paste area" + tag, True)
        if same_size and (pin.width, pin.height) != (pout.width, pout.height):
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: colour conversion keeps the size: input {pin.width}x"
                           f"{pin.height}, output {pout.width}x{pout.height}")
        ow, oh = (paste.width, paste.height) if paste else (pout.width, pout.height)
        x, y = (paste.left, paste.top) if paste else (0, 0)
        steps.append((src, pin, crop, dst, pout, ow, oh, x, y))
        reads.append(src)
        # A paste writes only its area: the rest of the output keeps what it had (uninitialised memory stays
        # so for initcheck, e.g. a letterbox border nothing filled).
        if paste is not None and _device.observed():
            writes += [_device.memory(dst.addr + off, n, True, fn, "output picture data")
                       for off, n in P.spans(pout, x, y, ow, oh)]
        else:
            writes.append(dst)

    def run() -> None:
        for src, pin, crop, dst, pout, ow, oh, x, y in steps:
            img = P.read(src.array(), pin)
            if crop is not None:
                img = P.crop(img, crop)
            P.write(dst.array(), pout, P.resize(img, ow, oh, nearest), x, y)

    _device.enqueue(stream, "kernel", fn.rsplit(".", 1)[1].removesuffix("_async"), run, reads, writes, fn,
                    engine="dvpp")


@pyacl("acl.media.dvpp_vpc_resize_async", "kkkkk")
def dvpp_vpc_resize_async(channel_desc: int, input_desc: int, output_desc: int, resize_config: int,
                          stream: int) -> None:
    _vpc("acl.media.dvpp_vpc_resize_async", channel_desc, input_desc, output_desc, stream,
         resize_config=resize_config)


@pyacl("acl.media.dvpp_vpc_crop_async", "kkkkk")
def dvpp_vpc_crop_async(channel_desc: int, input_desc: int, output_desc: int, crop_area: int, stream: int) -> None:
    """The crop area, scaled to the output picture's size."""
    _vpc("acl.media.dvpp_vpc_crop_async", channel_desc, input_desc, output_desc, stream, crop_area=crop_area)


@pyacl("acl.media.dvpp_vpc_crop_resize_async", "kkkkkk")
def dvpp_vpc_crop_resize_async(channel_desc: int, input_desc: int, output_desc: int, crop_area: int,
                               resize_config: int, stream: int) -> None:
    _vpc("acl.media.dvpp_vpc_crop_resize_async", channel_desc, input_desc, output_desc, stream,
         crop_area=crop_area, resize_config=resize_config)


@pyacl("acl.media.dvpp_vpc_crop_and_paste_async", "kkkkkk")
def dvpp_vpc_crop_and_paste_async(channel_desc: int, input_desc: int, output_desc: int, crop_area: int,
                                  paste_area: int, stream: int) -> None:
    """The crop area, scaled to the paste area and written there; the rest of the output is left as it was."""
    _vpc("acl.media.dvpp_vpc_crop_and_paste_async", channel_desc, input_desc, output_desc, stream,
         crop_area=crop_area, paste_area=paste_area)


@pyacl("acl.media.dvpp_vpc_crop_resize_paste_async", "kkkkkkk")
def dvpp_vpc_crop_resize_paste_async(channel_desc: int, input_desc: int, output_desc: int, crop_area: int,
                                     paste_area: int, resize_config: int, stream: int) -> None:
    _vpc("acl.media.dvpp_vpc_crop_resize_paste_async", channel_desc, input_desc, output_desc, stream,
         crop_area=crop_area, paste_area=paste_area, resize_config=resize_config)


@pyacl("acl.media.dvpp_vpc_convert_color_async", "kkkk")
def dvpp_vpc_convert_color_async(channel_desc: int, input_desc: int, output_desc: int, stream: int) -> None:
    """The input picture in the output's pixel format (YUV420SP NV12/NV21, YUV400, RGB888, BGR888)."""
    _vpc("acl.media.dvpp_vpc_convert_color_async", channel_desc, input_desc, output_desc, stream, same_size=True)


# ---------------------------------------------------------------- batch VPC


@dataclass(eq=False)
class BatchPicDesc:
    pics: list[int]  # picture description handles, owned by the batch


def dvpp_create_batch_pic_desc(*args: Any) -> int:
    """acl.media.dvpp_create_batch_pic_desc(batch_size) -> batch description (0 on failure)."""
    (n,) = parser("acl.media.dvpp_create_batch_pic_desc", "I")(args)
    if not 1 <= n <= 256:
        failed(AclError(Code.ERROR_INVALID_PARAM, f"acl.media.dvpp_create_batch_pic_desc: batch_size {n} must be "
                        "1..256"))
        return 0
    return _handles.new(BatchPicDesc([_handles.new(PicDesc()) for _ in range(n)]))


@_bare("acl.media.dvpp_get_pic_desc", "kI", 0)
def dvpp_get_pic_desc(batch_desc: int, index: int) -> int:
    """The picture description `index` of a batch (it belongs to the batch: not destroyed on its own)."""
    b = _handles.get(batch_desc, BatchPicDesc, "acl.media.dvpp_get_pic_desc", "batch picture description")
    if index >= len(b.pics):
        raise AclError(Code.ERROR_INVALID_PARAM, f"acl.media.dvpp_get_pic_desc: index {index} of {len(b.pics)}")
    return b.pics[index]


@pyacl("acl.media.dvpp_destroy_batch_pic_desc", "k")
def dvpp_destroy_batch_pic_desc(batch_desc: int) -> None:
    b = _handles.get(batch_desc, BatchPicDesc, "acl.media.dvpp_destroy_batch_pic_desc", "batch picture description")
    for h in (*b.pics, batch_desc):
        _handles.drop(h)


def _batch_jobs(fn: str, src_batch: int, roi_nums: Any, dst_batch: int, crops: Any, pastes: Any) -> list[Job]:
    """roi_nums[i] crop areas from input i, taken in order, each to the next output picture (aclvpcBatch*)."""
    lists = [roi_nums, crops] + ([] if pastes is None else [pastes])
    if not all(isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v) for v in lists):
        raise TypeError(f"{fn} args parse failed")
    srcs = _handles.get(src_batch, BatchPicDesc, fn, "input batch picture description").pics
    dsts = _handles.get(dst_batch, BatchPicDesc, fn, "output batch picture description").pics
    total = sum(roi_nums)
    if len(roi_nums) > len(srcs) or any(n < 0 for n in roi_nums) or total > 256 or total != len(dsts) \
            or len(crops) != total or (pastes is not None and len(pastes) != total):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: roi_nums {list(roi_nums)} (one count per input picture, "
                       f"sum <= 256) must add up to the {len(dsts)} output pictures and the {len(crops)} crop areas"
                       + ("" if pastes is None else f" and {len(pastes)} paste areas"))
    owners = [k for k, n in enumerate(roi_nums) for _ in range(n)]
    return [(srcs[o], dsts[k], crops[k], None if pastes is None else pastes[k]) for k, o in enumerate(owners)]


@pyacl("acl.media.dvpp_vpc_batch_crop_async", "kkOkOk", fail=(0,))
def dvpp_vpc_batch_crop_async(channel_desc: int, src_batch: int, roi_nums: Any, dst_batch: int, crop_areas: Any,
                              stream: int) -> int:
    """Each crop area scaled to its output picture; returns (dst_batch_pic_descs, ret) as pyACL does."""
    fn = "acl.media.dvpp_vpc_batch_crop_async"
    _vpc_jobs(fn, channel_desc, _batch_jobs(fn, src_batch, roi_nums, dst_batch, crop_areas, None), stream)
    return dst_batch


@pyacl("acl.media.dvpp_vpc_batch_crop_and_paste_async", "kkOkOOk", fail=(0,))
def dvpp_vpc_batch_crop_and_paste_async(channel_desc: int, src_batch: int, roi_nums: Any, dst_batch: int,
                                        crop_areas: Any, paste_areas: Any, stream: int) -> int:
    """Each crop area scaled to its paste area of its output picture; returns (dst_batch_pic_descs, ret)."""
    fn = "acl.media.dvpp_vpc_batch_crop_and_paste_async"
    _vpc_jobs(fn, channel_desc, _batch_jobs(fn, src_batch, roi_nums, dst_batch, crop_areas, paste_areas), stream)
    return dst_batch


_VIDEO = "video decode/encode (VDEC/VENC) needs the NPU's codec hardware; decode frames on the host instead"
_PICTURE = ("aclsim emulates JPEGD, JPEGE and VPC resize, crop, crop-and-paste, colour conversion, batch crop "
            "(and paste), PNGD; the other batch calls, histograms and pyramids are not emulated")
# Result shapes from the pyACL media reference: create_*desc/config return a handle, get_*_desc_* a value,
# predict (value, ret), everything else ret.
__getattr__ = not_emulated("acl.media", [
    (r"(vdec|venc)_create_\w*(desc|config)", (0,), _VIDEO),
    (r"(vdec|venc)_get_\w+", (0,), _VIDEO),
    (r"(vdec|venc)_\w+", (R,), _VIDEO),
    (r"dvpp_create_\w*(desc|config)", (0,), _PICTURE),
    (r"dvpp_get_\w+_desc_\w+|dvpp_get_\w+_config_\w+", (0,), _PICTURE),
    (r"dvpp_\w*predict\w*", (0, R), _PICTURE),
    (r"dvpp_\w+", (R,), _PICTURE),
])
