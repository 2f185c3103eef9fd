"""The DVPP picture engine behind `acl.media`: pixel formats, strided picture buffers, the JPEG codec
(Pillow) and VPC resize / crop / paste / colour conversion (numpy).

A picture is held as planes: YUV (`y` (h, w) and `uv` (ceil(h/2), ceil(w/2), 2) in U, V order, i.e.
YUV420SP whatever the source) or RGB ((h, w, 3) in R, G, B order). Buffers are read and written at
their width/height strides, so the padding a strided buffer has is never touched. Rules (strides,
sizes, ROI offsets) follow the CANN "JPEGD/JPEGE/VPC functions and restrictions" pages of the pyACL
reference; where they are silent the comment says what aclsim does.
"""

from __future__ import annotations

import importlib
import io
from dataclasses import dataclass
from typing import Any

import numpy as np

# acldvppPixelFormat values aclsim emulates (acl/ops/acl_dvpp.h)
YUV400, NV12, NV21, RGB888, BGR888 = 0, 1, 2, 12, 13
FORMAT_NAMES = {YUV400: "YUV400", NV12: "YUV420SP NV12", NV21: "YUV420SP NV21", RGB888: "RGB888", BGR888: "BGR888"}
YUV420SP = (NV12, NV21)
# acldvppJpegFormat (aclJpegGetImageInfoV2): by Pillow's get_sampling() (-1 gray/unknown, 0 444, 1 422, 2 420)
JPEG_FORMAT = {0: 0, 1: 1, 2: 2}
JPEG_GRAY, JPEG_UNKNOWN = 3, 1000

INSTALL_HINT = "install the images extra: pip install 'aclsim[images]' (Pillow)"


class PictureError(ValueError):
    """A picture, ROI or JPEG stream DVPP would refuse (the message says which rule)."""


class MissingPillow(ImportError):
    """Pillow is not installed; the message says how to get it."""


def pillow() -> Any:
    """PIL.Image, or MissingPillow with the install hint."""
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        raise MissingPillow(f"DVPP picture processing in aclsim decodes and encodes with Pillow: {INSTALL_HINT}")


def align(v: int, a: int) -> int:
    return (v + a - 1) // a * a


@dataclass
class Layout:
    """Where a picture lies in its buffer: format, size and strides (width stride in bytes for RGB)."""

    fmt: int
    width: int
    height: int
    wstride: int
    hstride: int

    def size(self) -> int:
        """Bytes the buffer needs: stride_w * stride_h * 3/2 for YUV420SP, stride_w * stride_h otherwise."""
        return self.wstride * self.hstride * 3 // 2 if self.fmt in YUV420SP else self.wstride * self.hstride


@dataclass
class Planes:
    """Picture content: `y` + `uv` (YUV) or `rgb` (RGB order)."""

    y: np.ndarray | None = None
    uv: np.ndarray | None = None
    rgb: np.ndarray | None = None

    @property
    def hw(self) -> tuple[int, int]:
        a = self.y if self.y is not None else self.rgb
        return a.shape[0], a.shape[1]


# ---------------------------------------------------------------- rules


def check_layout(p: Layout, buf_size: int, what: str, output: bool) -> None:
    """VPC's rules for an input or output picture: format, resolution, stride alignment, buffer size."""
    if p.fmt not in FORMAT_NAMES:
        raise PictureError(f"{what}: pixel format {p.fmt} is not emulated (aclsim emulates "
                           + ", ".join(f"{k} {v}" for k, v in FORMAT_NAMES.items()) + ")")
    lo_w, lo_h, hi = 10, 6, 4096 if output else 8192
    if not (lo_w <= p.width <= hi and lo_h <= p.height <= hi):
        raise PictureError(f"{what}: {p.width}x{p.height} is outside VPC's {lo_w}x{lo_h} to {hi}x{hi}")
    row = p.width * 3 if p.fmt in (RGB888, BGR888) else p.width
    if p.wstride % 16 or p.wstride < row:
        raise PictureError(f"{what}: width stride {p.wstride} must be a multiple of 16 and >= {row} "
                           f"({'3 x ' if row != p.width else ''}width {p.width}): use {align(row, 16)}")
    if p.hstride % 2 or p.hstride < p.height:
        raise PictureError(f"{what}: height stride {p.hstride} must be even and >= height {p.height}: "
                           f"use {align(p.height, 2)}")
    if output and p.fmt in YUV420SP and (p.width % 2 or p.height % 2):
        raise PictureError(f"{what}: a YUV420SP output picture needs an even width and height, got "
                           f"{p.width}x{p.height}")
    if buf_size < p.size():
        raise PictureError(f"{what}: the buffer has {buf_size} bytes; {FORMAT_NAMES[p.fmt]} at strides "
                           f"{p.wstride}x{p.hstride} needs {p.size()}")


@dataclass
class Roi:
    """A crop or paste area: inclusive pixel offsets (acldvppRoiConfig)."""

    left: int
    right: int
    top: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left + 1

    @property
    def height(self) -> int:
        return self.bottom - self.top + 1


def check_roi(r: Roi, p: Layout, what: str, paste: bool) -> None:
    """VPC's ROI rules: inside the picture, left/top even and right/bottom odd (YUV420SP chroma is 2x2),
    at least 10x6; a paste area's left offset 16-aligned (the Atlas 200/300/500 rule; later chips
    relax it, aclsim keeps the strict one so code stays portable)."""
    if not (0 <= r.left <= r.right < p.width and 0 <= r.top <= r.bottom < p.height):
        raise PictureError(f"{what} ({r.left}, {r.right}, {r.top}, {r.bottom}) (left, right, top, bottom, "
                           f"inclusive) does not fit the {p.width}x{p.height} picture")
    if r.left % 2 or r.top % 2 or r.right % 2 == 0 or r.bottom % 2 == 0:
        raise PictureError(f"{what} ({r.left}, {r.right}, {r.top}, {r.bottom}): left and top offsets must be "
                           "even, right and bottom offsets odd")
    if r.width < 10 or r.height < 6:
        raise PictureError(f"{what}: {r.width}x{r.height} is smaller than VPC's 10x6")
    if paste and r.left % 16:
        raise PictureError(f"{what}: the paste area's left offset {r.left} must be a multiple of 16")


# ---------------------------------------------------------------- buffers <-> planes


def read(buf: np.ndarray, p: Layout) -> Planes:
    """The picture in `buf` (flat uint8) as planes (views where possible)."""
    if p.fmt in (RGB888, BGR888):
        rgb = buf[: p.wstride * p.hstride].reshape(p.hstride, p.wstride)[: p.height, : p.width * 3]
        rgb = rgb.reshape(p.height, p.width, 3)
        return Planes(rgb=rgb[:, :, ::-1] if p.fmt == BGR888 else rgb)
    y = buf[: p.wstride * p.hstride].reshape(p.hstride, p.wstride)[: p.height, : p.width]
    if p.fmt == YUV400:
        return Planes(y=y, uv=np.full(((p.height + 1) // 2, (p.width + 1) // 2, 2), 128, np.uint8))
    cw, ch = (p.width + 1) // 2, (p.height + 1) // 2
    uv = buf[p.wstride * p.hstride: p.size()].reshape(p.hstride // 2, p.wstride // 2, 2)[:ch, :cw]
    return Planes(y=y, uv=uv[:, :, ::-1] if p.fmt == NV21 else uv)


def write(buf: np.ndarray, p: Layout, img: Planes, x: int = 0, y: int = 0) -> None:
    """Write `img` into the picture in `buf` with its top-left corner at (x, y) (even for YUV420SP)."""
    h, w = img.hw
    if p.fmt in (RGB888, BGR888):
        rgb = to_rgb(img)
        rows = buf[: p.wstride * p.hstride].reshape(p.hstride, p.wstride)
        rows[y: y + h, x * 3: (x + w) * 3] = (rgb[:, :, ::-1] if p.fmt == BGR888 else rgb).reshape(h, w * 3)
        return
    img = to_yuv(img)
    buf[: p.wstride * p.hstride].reshape(p.hstride, p.wstride)[y: y + h, x: x + w] = img.y
    if p.fmt == YUV400:
        return
    uv = buf[p.wstride * p.hstride: p.size()].reshape(p.hstride // 2, p.wstride // 2, 2)
    uv[y // 2: y // 2 + (h + 1) // 2, x // 2: x // 2 + (w + 1) // 2] = img.uv[:, :, ::-1] if p.fmt == NV21 else img.uv


def spans(p: Layout, x: int, y: int, w: int, h: int) -> list[tuple[int, int]]:
    """The (offset, bytes) row pieces of the buffer that a w x h area at (x, y) covers, plane by plane."""
    if p.fmt in (RGB888, BGR888):
        return [(r * p.wstride + 3 * x, 3 * w) for r in range(y, y + h)]
    out = [(r * p.wstride + x, w) for r in range(y, y + h)]
    if p.fmt in YUV420SP:
        base, cw = p.wstride * p.hstride, w + w % 2
        out += [(base + r * p.wstride + x, cw) for r in range(y // 2, (y + h + 1) // 2)]
    return out


# ---------------------------------------------------------------- colour space
# BT.601 full range (JFIF's YCbCr), the colour space a JPEG's YUV is in; the reference does not give
# VPC's CSC matrix, so aclsim uses the same one both ways.

def to_rgb(img: Planes) -> np.ndarray:
    if img.rgb is not None:
        return img.rgb
    h, w = img.hw
    y = img.y.astype(np.float32)
    uv = img.uv.repeat(2, axis=0).repeat(2, axis=1)[:h, :w].astype(np.float32) - 128.0
    u, v = uv[:, :, 0], uv[:, :, 1]
    rgb = np.stack([y + 1.402 * v, y - 0.344136 * u - 0.714136 * v, y + 1.772 * u], axis=-1)
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def to_yuv(img: Planes) -> Planes:
    if img.y is not None:
        return img
    rgb = img.rgb.astype(np.float32)
    r, g, b = rgb[:, :, 0], rgb[:, :, 1], rgb[:, :, 2]
    y = 0.299 * r + 0.587 * g + 0.114 * b
    u = -0.168736 * r - 0.331264 * g + 0.5 * b + 128.0
    v = 0.5 * r - 0.418688 * g - 0.081312 * b + 128.0
    uv = _half(np.stack([u, v], axis=-1))
    return Planes(y=np.clip(np.rint(y), 0, 255).astype(np.uint8), uv=np.clip(np.rint(uv), 0, 255).astype(np.uint8))


def _half(a: np.ndarray) -> np.ndarray:
    """2x2 mean (chroma subsampling), odd edges by repeating the last row/column."""
    h, w = a.shape[:2]
    if h % 2 or w % 2:
        a = np.pad(a, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")
    return a.reshape(a.shape[0] // 2, 2, a.shape[1] // 2, 2, -1).mean(axis=(1, 3))


# ---------------------------------------------------------------- geometry


def _axis(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bilinear taps with half-pixel centres (OpenCV's convention): (i0, i1, weight of i1)."""
    pos = np.clip((np.arange(n_out, dtype=np.float32) + 0.5) * (n_in / n_out) - 0.5, 0, n_in - 1)
    i0 = pos.astype(np.intp)
    return i0, np.minimum(i0 + 1, n_in - 1), (pos - i0)


def _resize_plane(a: np.ndarray, oh: int, ow: int, nearest: bool) -> np.ndarray:
    h, w = a.shape[:2]
    if (h, w) == (oh, ow):
        return a
    if nearest:
        ys = np.minimum((np.arange(oh) * h) // oh, h - 1)
        xs = np.minimum((np.arange(ow) * w) // ow, w - 1)
        return a[ys][:, xs]
    y0, y1, wy = _axis(h, oh)
    x0, x1, wx = _axis(w, ow)
    ext = (slice(None), *([None] * (a.ndim - 1)))
    rows = a[y0].astype(np.float32)
    rows += (a[y1].astype(np.float32) - rows) * wy[ext]
    ext = (None, slice(None), *([None] * (a.ndim - 2)))
    out = rows[:, x0]
    out += (rows[:, x1] - out) * wx[ext]
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def resize(img: Planes, ow: int, oh: int, nearest: bool = False) -> Planes:
    """Scale to ow x oh (bilinear, or nearest neighbour); YUV chroma is scaled at half resolution."""
    if img.rgb is not None:
        return Planes(rgb=_resize_plane(img.rgb, oh, ow, nearest))
    return Planes(y=_resize_plane(img.y, oh, ow, nearest),
                  uv=_resize_plane(img.uv, (oh + 1) // 2, (ow + 1) // 2, nearest))


def crop(img: Planes, r: Roi) -> Planes:
    if img.rgb is not None:
        return Planes(rgb=img.rgb[r.top: r.bottom + 1, r.left: r.right + 1])
    return Planes(y=img.y[r.top: r.bottom + 1, r.left: r.right + 1],
                  uv=img.uv[r.top // 2: (r.bottom + 2) // 2, r.left // 2: (r.right + 2) // 2])


# ---------------------------------------------------------------- JPEG


@dataclass
class JpegInfo:
    width: int
    height: int
    components: int
    format: int  # acldvppJpegFormat


def _open(data: bytes, kind: str = "JPEG") -> Any:
    Image = pillow()
    try:
        im = Image.open(io.BytesIO(data), formats=[kind])
    except Exception as e:
        raise PictureError(f"the data is not a {kind} stream Pillow can read ({type(e).__name__}: {e})")
    return im


def jpeg_info(data: bytes) -> JpegInfo:
    """Width, height, colour components and subsampling from the JPEG header (nothing decoded)."""
    im = _open(data)  # first: without Pillow it raises MissingPillow with the install hint
    from PIL import JpegImagePlugin

    comps = len(im.getbands())
    fmt = JPEG_GRAY if im.mode == "L" else JPEG_FORMAT.get(JpegImagePlugin.get_sampling(im), JPEG_UNKNOWN)
    return JpegInfo(im.width, im.height, comps, fmt)


def jpeg_decode(data: bytes) -> Planes:
    """Decode a baseline Huffman JPEG to YUV420SP planes, as JPEGD does: progressive and arithmetic-coded
    streams and colour spaces other than YCbCr/grey are refused (JPEGD's documented limits)."""
    im = _open(data)
    if im.info.get("progressive") or im.info.get("progression"):
        raise PictureError("progressive JPEG: JPEGD decodes baseline (Huffman, sequential) JPEG only")
    if im.mode not in ("RGB", "L"):
        raise PictureError(f"JPEG in {im.mode} colour space: JPEGD decodes YUV (YCbCr) and grey JPEG only")
    if im.mode == "RGB":
        im.draft("YCbCr", im.size)  # libjpeg's own YCbCr output: no RGB round trip
    try:
        im.load()
    except Exception as e:
        raise PictureError(f"the JPEG stream is damaged or unsupported ({type(e).__name__}: {e})")
    if im.mode == "L":
        y = np.asarray(im)
        return Planes(y=y, uv=np.full(((y.shape[0] + 1) // 2, (y.shape[1] + 1) // 2, 2), 128, np.uint8))
    y = np.asarray(im.getchannel(0))
    w, h = im.size
    if w % 2 == 0 and h % 2 == 0:
        uv = np.asarray(im.reduce(2))[:, :, 1:]  # Pillow's 2x2 box mean, in C
    else:
        uv = np.rint(_half(np.asarray(im)[:, :, 1:].astype(np.float32))).astype(np.uint8)
    return Planes(y=y, uv=uv)


def jpeg_encode(img: Planes, quality: int) -> bytes:
    """Encode as JPEG (4:2:0) at `quality` 1..100, from YCbCr directly."""
    Image = pillow()
    yuv = to_yuv(img)
    h, w = yuv.hw
    uv = yuv.uv.repeat(2, axis=0).repeat(2, axis=1)[:h, :w]
    ycc = Image.frombytes("YCbCr", (w, h), np.ascontiguousarray(np.dstack([yuv.y, uv])).tobytes())
    out = io.BytesIO()
    ycc.save(out, "JPEG", quality=quality, subsampling=2)
    return out.getvalue()


# PNGD decodes RGB, grey and RGBA PNG (and palette PNG, expanded) to RGB888; 16-bit samples are refused.
_PNG_MODES = {"RGB": 3, "L": 1, "RGBA": 4, "LA": 2, "P": 3}


def png_info(data: bytes) -> JpegInfo:
    """Width, height and colour components from the PNG header (format: JPEG_UNKNOWN, PNG has none)."""
    im = _open(data, "PNG")
    if im.mode not in _PNG_MODES:
        raise PictureError(f"PNG in mode {im.mode} (16-bit or other samples): PNGD decodes 8-bit RGB, RGBA and grey")
    return JpegInfo(im.width, im.height, _PNG_MODES[im.mode], JPEG_UNKNOWN)


def png_decode(data: bytes) -> Planes:
    """Decode a PNG to RGB (alpha dropped, grey and palette expanded), as PNGD's RGB888 output."""
    png_info(data)
    im = _open(data, "PNG")
    try:
        return Planes(rgb=np.asarray(im.convert("RGB")))
    except Exception as e:
        raise PictureError(f"the PNG stream is damaged ({type(e).__name__}: {e})")
