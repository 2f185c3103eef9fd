"""Static AIPP (the AI preprocessing ATC inserts in front of a model input), done with numpy.

Reads ATC's `--insert_op_conf` file (`aipp_op { key: value ... }`) and applies, per image, in the
documented order: crop of the source image, colour-space conversion (CSC, 3x3 matrix in 1/256 steps
with input/output biases; `rbuv_swap_switch` swaps U/V or R/B first), padding, then per-channel
`(pixel - mean_chn_i - min_chn_i) * var_reci_chn_i`. Source: the ATC "AIPP configuration" reference
(aipp_op fields and formulas). Result: float32 NCHW, the model input's layout.

Dynamic AIPP (`aipp_mode: dynamic`): the model gets the extra input `ascend_dynamic_aipp_data`, into
which acl.mdl.set_input_aipp writes each image's parameters; aclsim packs them as float64 rows of
`FIELDS` (its own layout: the program never reads that buffer) and applies them per image at execution.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

# input_format -> (bytes per pixel numerator, denominator, channels the description reports)
FORMATS = {"YUV420SP_U8": (3, 2, 3), "RGB888_U8": (3, 1, 3), "XRGB8888_U8": (4, 1, 4), "YUV400_U8": (1, 1, 1)}


DYNAMIC_TENSOR = "ascend_dynamic_aipp_data"  # ACL_DYNAMIC_AIPP_NAME in acl_mdl.h
# aclAippInputFormat -> the configuration file's input_format (the formats aclsim applies)
INPUT_FORMATS = {1: "YUV420SP_U8", 2: "XRGB8888_U8", 3: "RGB888_U8", 4: "YUV400_U8"}
FIELDS = ("input_format", "src_image_size_w", "src_image_size_h", "csc_switch",
          *(f"matrix_r{r}c{c}" for r in range(3) for c in range(3)), *(f"output_bias_{i}" for i in range(3)),
          *(f"input_bias_{i}" for i in range(3)), "rbuv_swap_switch", "crop", "load_start_pos_w", "load_start_pos_h",
          "crop_size_w", "crop_size_h", "top_padding_size", "bottom_padding_size", "left_padding_size",
          "right_padding_size", *(f"{k}_chn_{i}" for k in ("mean", "min", "var_reci") for i in range(4)))


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
        mode = cfg.get("aipp_mode", "static")
        if mode == "dynamic":
            if not isinstance(cfg.get("max_src_image_size"), int) or cfg["max_src_image_size"] <= 0:
                raise AippError("aipp_mode dynamic needs max_src_image_size (the largest source image, in bytes)")
            out.append(cfg)
            continue
        if mode != "static":
            raise AippError(f"aipp_mode {mode}: static and dynamic AIPP are emulated")
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


NUMBERS = (*FIELDS[1:], "padding_value", "max_src_image_size", "related_input_rank")  # keys that hold a number


def check_numbers(cfg: dict[str, Any]) -> None:
    """Refuse a configuration whose numeric settings are not numbers (e.g. `crop_size_w: abc`)."""
    bad = [k for k in NUMBERS if k in cfg and not isinstance(cfg[k], (int, float))]
    if bad:
        raise AippError(", ".join(f"{k} {cfg[k]!r}" for k in bad) + ": must be numbers")


def check(cfg: dict[str, Any], model_h: int, model_w: int) -> None:
    """Refuse a configuration whose crop/padding does not produce the model input's H x W."""
    check_numbers(cfg)
    if cfg.get("input_format") not in FORMATS:
        raise AippError(f"input_format {cfg.get('input_format')}: aclsim emulates {', '.join(FORMATS)}")
    h, w = source_hw(cfg, model_h, model_w)
    if h <= 0 or w <= 0:
        raise AippError(f"source image {w}x{h}: width and height must be > 0")
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


def pack(cfgs: list[dict[str, Any]]) -> np.ndarray:
    """Per-image dynamic parameters as float64 rows of FIELDS (input_format by its aclAippInputFormat code)."""
    codes = {v: k for k, v in INPUT_FORMATS.items()}
    rows = [[codes.get(c.get("input_format"), 0) if f == "input_format"
             else float(c.get(f, 1.0 if f.startswith("var_reci_") else 0)) for f in FIELDS] for c in cfgs]
    return np.array(rows, np.float64)


def apply_dynamic(rows: np.ndarray, raw: np.ndarray, model_h: int, model_w: int) -> np.ndarray:
    """Apply packed per-image parameters (one row per image of the batch) to the source images in `raw`."""
    imgs = []
    offset = 0
    for row in rows:
        cfg: dict[str, Any] = {f: v.item() if f.startswith(("min_", "var_reci_")) else int(v)
                               for f, v in zip(FIELDS, row, strict=True)}
        fmt = INPUT_FORMATS.get(cfg["input_format"])
        if fmt is None:
            raise AippError("no dynamic AIPP parameters: call acl.mdl.set_input_aipp (with the input format set by "
                            "acl.mdl.set_aipp_input_format) before executing")
        cfg["input_format"] = fmt
        check(cfg, model_h, model_w)
        h, w = source_hw(cfg, model_h, model_w)
        size = image_size(cfg, h, w)
        if offset + size > raw.size:
            raise AippError(f"the images need {offset + size} bytes, the input buffer has {raw.size} "
                            "(max_src_image_size)")
        imgs.append(apply(cfg, raw[offset:offset + size], 1, model_h, model_w))
        offset += size
    return np.concatenate(imgs)
