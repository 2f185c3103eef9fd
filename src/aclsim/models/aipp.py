"""Static AIPP (the AI preprocessing ATC inserts in front of a model input), done with numpy.

Reads ATC's `--insert_op_conf` file (`aipp_op { key: value ... }`) and applies, per image, in the
documented order: crop of the source image, colour-space conversion (CSC, 3x3 matrix in 1/256 steps
with input/output biases; `rbuv_swap_switch` swaps U/V or R/B first), padding, then per-channel
`(pixel - mean_chn_i - min_chn_i) * var_reci_chn_i`. Source: the ATC "AIPP configuration" reference
(aipp_op fields and formulas). Result: float32 NCHW, the model input's layout.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

# input_format -> (bytes per pixel numerator, denominator, channels the description reports)
FORMATS = {"YUV420SP_U8": (3, 2, 3), "RGB888_U8": (3, 1, 3), "XRGB8888_U8": (4, 1, 4), "YUV400_U8": (1, 1, 1)}


class AippError(ValueError):
    """An AIPP configuration aclsim cannot apply (the message says why)."""


def parse(text: str) -> list[dict[str, Any]]:
    """The `aipp_op` blocks of an ATC AIPP configuration file."""
    text = re.sub(r"#[^\n]*", "", text)
    blocks = re.findall(r"aipp_op\s*\{([^}]*)\}", text)
    if not blocks:
        raise AippError("no `aipp_op { ... }` block found")
    out = []
    for body in blocks:
        cfg: dict[str, Any] = {}
        for key, raw in re.findall(r"(\w+)\s*:\s*([^\s]+)", body):
            raw = raw.strip("\"'")
            if raw in ("true", "false"):
                cfg[key] = raw == "true"
            elif re.fullmatch(r"-?\d+", raw):
                cfg[key] = int(raw)
            elif re.fullmatch(r"-?[\d.]+(e-?\d+)?", raw):
                cfg[key] = float(raw)
            else:
                cfg[key] = raw
        if cfg.get("aipp_mode", "static") != "static":
            raise AippError(f"aipp_mode {cfg['aipp_mode']}: only static AIPP is emulated")
        fmt = cfg.get("input_format")
        if fmt not in FORMATS:
            raise AippError(f"input_format {fmt}: aclsim emulates {', '.join(FORMATS)}")
        out.append(cfg)
    return out


def source_hw(cfg: dict[str, Any], model_h: int, model_w: int) -> tuple[int, int]:
    return cfg.get("src_image_size_h") or model_h, cfg.get("src_image_size_w") or model_w


def image_size(cfg: dict[str, Any], h: int, w: int) -> int:
    num, den, _ = FORMATS[cfg["input_format"]]
    return h * w * num // den


def check(cfg: dict[str, Any], model_h: int, model_w: int) -> None:
    """Refuse a configuration whose crop/padding does not produce the model input's H x W."""
    h, w = source_hw(cfg, model_h, model_w)
    if cfg["input_format"] == "YUV420SP_U8" and (h % 2 or w % 2):
        raise AippError(f"YUV420SP_U8 source {w}x{h}: width and height must be even")
    ch, cw = _crop_box(cfg, h, w)[2:]
    oh = ch + cfg.get("top_padding_size", 0) + cfg.get("bottom_padding_size", 0)
    ow = cw + cfg.get("left_padding_size", 0) + cfg.get("right_padding_size", 0)
    if (oh, ow) != (model_h, model_w):
        raise AippError(f"after crop and padding the image is {ow}x{oh}, but the model input is {model_w}x{model_h}")


def _crop_box(cfg: dict[str, Any], h: int, w: int) -> tuple[int, int, int, int]:
    if not cfg.get("crop"):
        return 0, 0, h, w
    y, x = cfg.get("load_start_pos_h", 0), cfg.get("load_start_pos_w", 0)
    ch, cw = cfg.get("crop_size_h") or h - y, cfg.get("crop_size_w") or w - x
    if y + ch > h or x + cw > w:
        raise AippError(f"crop {cw}x{ch} at ({x}, {y}) does not fit the {w}x{h} source image")
    return y, x, ch, cw


def _pixels(cfg: dict[str, Any], img: np.ndarray, h: int, w: int) -> np.ndarray:
    """One source image (flat uint8) as an (h, w, c) array of its channels (YUV or RGB)."""
    fmt = cfg["input_format"]
    if fmt == "YUV420SP_U8":
        y = img[: h * w].reshape(h, w)
        uv = img[h * w:].reshape(h // 2, w // 2, 2).repeat(2, axis=0).repeat(2, axis=1)
        return np.dstack([y, uv])
    if fmt == "RGB888_U8":
        return img.reshape(h, w, 3)
    if fmt == "XRGB8888_U8":
        return img.reshape(h, w, 4)[:, :, 1:]
    return img.reshape(h, w, 1)


def _csc(cfg: dict[str, Any], px: np.ndarray) -> np.ndarray:
    m = np.array([[cfg.get(f"matrix_r{r}c{c}", 256 if r == c else 0) for c in range(3)] for r in range(3)],
                 dtype=np.int64)
    in_bias = np.array([cfg.get(f"input_bias_{i}", 0) for i in range(3)], dtype=np.int64)
    out_bias = np.array([cfg.get(f"output_bias_{i}", 0) for i in range(3)], dtype=np.int64)
    v = px.astype(np.int64) - in_bias
    out = ((v @ m.T) >> 8) + out_bias
    return np.clip(out, 0, 255)


def apply(cfg: dict[str, Any], raw: np.ndarray, n: int, model_h: int, model_w: int) -> np.ndarray:
    """Preprocess `n` source images in `raw` (uint8, flat) into a float32 (n, c, model_h, model_w) array."""
    h, w = source_hw(cfg, model_h, model_w)
    per = image_size(cfg, h, w)
    y0, x0, ch, cw = _crop_box(cfg, h, w)
    pt, pl = cfg.get("top_padding_size", 0), cfg.get("left_padding_size", 0)
    out = None
    for i in range(n):
        px = _pixels(cfg, raw[i * per:(i + 1) * per], h, w)[y0:y0 + ch, x0:x0 + cw]
        if cfg.get("rbuv_swap_switch") and px.shape[2] == 3:
            px = px[:, :, [0, 2, 1]] if cfg["input_format"] == "YUV420SP_U8" else px[:, :, ::-1]
        if cfg.get("csc_switch") and px.shape[2] == 3:
            px = _csc(cfg, px)
        c = px.shape[2]
        if out is None:
            out = np.full((n, c, model_h, model_w), float(cfg.get("padding_value", 0)), dtype=np.float32)
        out[i, :, pt:pt + ch, pl:pl + cw] = px.transpose(2, 0, 1)
    assert out is not None
    c = out.shape[1]
    mean = np.array([cfg.get(f"mean_chn_{k}", 0) for k in range(c)], np.float32).reshape(1, c, 1, 1)
    mn = np.array([cfg.get(f"min_chn_{k}", 0.0) for k in range(c)], np.float32).reshape(1, c, 1, 1)
    var = np.array([cfg.get(f"var_reci_chn_{k}", 1.0) for k in range(c)], np.float32).reshape(1, c, 1, 1)
    return (out - mean - mn) * var
