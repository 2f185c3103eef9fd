"""AIPP in Ascend C: set_aipp_functions + load_image_to_local (GM image -> L1), against a per-pixel numpy model."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc

F = asc.AippInputFormat
# each case's result is a multiple of 32 bytes (data_copy's unit), so all of it reaches GM
BPP = {F.RGB888_U8: 3, F.XRGB8888_U8: 4, F.YUV400_U8: 1, F.YUV420SP_U8: 1}
BT601 = [[256, 0, 359], [256, -88, -183], [256, 454, 0]]  # YUV -> RGB in 1/256 steps


@asc.jit
def aipp_load(img: asc.GlobalAddress, out: asc.GlobalAddress, case: str, nbytes: int):
    """Load the image of CASES[case] through AIPP into A1, then A1 -> UB -> GM (`nbytes` of the result)."""
    fmt, cfg, p, w, h, dtype = CASES[case]
    img_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    img_gm.set_global_buffer(img)
    out_gm.set_global_buffer(out)
    pipe = asc.TPipe()
    q1, qv = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q1, 1, nbytes)
    pipe.init_buffer(qv, 1, nbytes)
    if fmt == asc.AippInputFormat.YUV420SP_U8:
        asc.set_aipp_functions(img_gm, img_gm[w * h:], fmt, build(cfg, dtype))
    else:
        asc.set_aipp_functions(img_gm, fmt, build(cfg, dtype))
    a1 = q1.alloc_tensor(out_gm.dtype)
    asc.load_image_to_local(a1, asc.LoadImageToLocalParams(
        p["horiz_size"], p["vert_size"], p.get("x0", 0), p.get("y0", 0), w, p.get("top", 0), p.get("bot", 0),
        p.get("left", 0), p.get("right", 0)))
    ub = qv.alloc_tensor(out_gm.dtype)
    count = nbytes // out_gm.dtype.sizeof()
    asc.data_copy(ub, a1, count)
    asc.data_copy(out_gm, ub, count)
    q1.free_tensor(a1)
    qv.free_tensor(ub)


def reference(img: np.ndarray, fmt: F, cfg: dict, p: dict, w: int, h: int, dtype: str) -> np.ndarray:
    """Per pixel, as the CANN pages describe AIPP: crop, swap, CSC (saturated), type conversion, padding."""
    isz = np.dtype(dtype).itemsize
    mode, cmode = cfg.get("padding_mode", 0), cfg.get("c_padding_mode", 0)
    vert = 1 if cfg.get("single_line") else p["vert_size"]
    horiz = p["horiz_size"]
    top, bot = (0, 0) if mode == 0 else (p.get("top", 0), p.get("bot", 0))
    left, right = p.get("left", 0), p.get("right", 0)
    cpad = 32 // isz if cmode == 0 else 4
    x0, y0 = p.get("x0", 0), p.get("y0", 0)
    csc = cfg.get("csc")
    nch = 1 if fmt == F.YUV400_U8 and csc is None else 3
    out = np.full((vert + top + bot, horiz + left + right, cpad), cfg.get("c_padding_value", 0), dtype)
    bpp = BPP[fmt]
    for i in range(vert):
        for j in range(horiz):
            y, x = y0 + i, x0 + j
            pix = [int(v) for v in img[(y * w + x) * bpp:(y * w + x + 1) * bpp]]
            if fmt == F.YUV420SP_U8:
                uv = w * h + (y0 // 2 + i // 2) * w + x0 + j // 2 * 2
                u, v = int(img[uv]), int(img[uv + 1])
                ch = [pix[0], v, u] if cfg.get("swap_uv") else [pix[0], u, v]
            elif fmt == F.YUV400_U8:
                ch = [pix[0], 0, 0] if csc else [pix[0]]
            else:
                r, g, b = pix[1:4] if fmt == F.XRGB8888_U8 and cfg.get("swap_ax") else pix[0:3]
                ch = [b, g, r] if cfg.get("swap_rb") else [r, g, b]
            if csc is not None:
                yuv_in = fmt in (F.YUV420SP_U8, F.YUV400_U8)
                bias_in = cfg.get("bias_in", [0, 0, 0]) if yuv_in else [0, 0, 0]
                bias_out = [0, 0, 0] if yuv_in else cfg.get("bias_out", [0, 0, 0])
                vals = []
                for k in range(3):
                    s = sum((ch[c] - bias_in[c]) * csc[k][c] for c in range(3)) + 128
                    q = abs(s) // 256 * (1 if s >= 0 else -1)  # C division
                    vals.append(min(255, max(0, q + bias_out[k])))
                ch = vals
            for k, value in enumerate(ch):
                mean = cfg.get("mean", [0, 0, 0])[k]
                if dtype == "int8":
                    out[top + i, left + j, k] = min(127, max(-128, value - mean))
                else:
                    half = np.float16(value - mean)
                    out[top + i, left + j, k] = (half - np.float16(cfg.get("min", [0, 0, 0])[k])) * np.float16(
                        cfg.get("var", [1, 1, 1])[k])
    height, width = out.shape[:2]
    for i in range(height):
        for j in range(width):
            if top <= i < top + vert and left <= j < left + horiz:
                continue
            if mode == 0:
                out[i, j, :4] = cfg.get("padding_values", [0, 0, 0, 0])[:cpad]
                continue
            if mode == 1:
                si, sj = min(max(i, top), top + vert - 1), min(max(j, left), left + horiz - 1)
            elif mode == 2:
                si = top + i if i < top else (i - bot if i >= top + vert else i)
                sj = left + j if j < left else (j - right if j >= left + horiz else j)
            else:
                si = 2 * top - i - 1 if i < top else (2 * (top + vert) - i - 1 if i >= top + vert else i)
                sj = 2 * left - j - 1 if j < left else (2 * (left + horiz) - j - 1 if j >= left + horiz else j)
            out[i, j, :nch] = out[si, sj, :nch]
    return out


def build(cfg: dict, dtype: str) -> asc.AippParams:
    csc = cfg.get("csc")
    csc_kw = {} if csc is None else {f"csc_matrix_r{r}_c{c}": csc[r][c] for r in range(3) for c in range(3)}
    for k in range(3):
        if csc is not None:
            csc_kw[f"csc_bias_in_{k}"] = cfg.get("bias_in", [0, 0, 0])[k]
            csc_kw[f"csc_bias_out_{k}"] = cfg.get("bias_out", [0, 0, 0])[k]
    dtc = {f"dtc_{name}_ch{k}": cfg.get(name, [default] * 3)[k]
           for name, default in (("mean", 0), ("min", 0.0), ("var", 1.0)) for k in range(3)}
    pv = cfg.get("padding_values", [0, 0, 0, 0])
    return asc.AippParams(
        dtype=asc.int8 if dtype == "int8" else asc.float16,
        padding_params=asc.AippPaddingParams(cfg.get("padding_mode", 0), *pv),
        swap_params=asc.AippSwapParams(cfg.get("swap_rb", False), cfg.get("swap_uv", False), cfg.get("swap_ax", False)),
        single_line_params=asc.AippSingleLineParams(cfg.get("single_line", False)),
        dtc_params=asc.AippDataTypeConvParams(**dtc),
        c_padding_params=asc.AippChannelPaddingParams(cfg.get("c_padding_mode", 0), cfg.get("c_padding_value", 0)),
        csc_params=asc.AippColorSpaceConvParams(csc is not None, **csc_kw),
    )


def run(case: str) -> tuple[np.ndarray, np.ndarray]:
    fmt, cfg, p, w, h, dtype = CASES[case]
    rng = np.random.default_rng(0)
    size = w * h * BPP[fmt] + (w * h // 2 if fmt == F.YUV420SP_U8 else 0)
    img = rng.integers(0, 256, size, dtype=np.uint8)
    want = reference(img, fmt, cfg, p, w, h, dtype)
    got = np.zeros(want.size, dtype)
    aipp_load[1](img, got, case, want.nbytes)
    return got.reshape(want.shape), want


CASES = {
    "rgb int8 swap mean const-pad": (F.RGB888_U8, {"swap_rb": True, "mean": [10, 200, 3], "c_padding_value": -1,
                                                   "padding_values": [5, -6, 7, -8]},
                                     {"horiz_size": 6, "vert_size": 4, "x0": 2, "y0": 3, "left": 2, "right": 3,
                                      "top": 2}, 12, 9, "int8"),
    "rgb half normalise 4 channels": (F.RGB888_U8, {"mean": [120, 110, 100], "min": [-1.5, 0.25, 2.0],
                                                    "var": [1 / 255, 0.0078125, 0.5], "c_padding_mode": 1,
                                                    "c_padding_value": 0.5},
                                      {"horiz_size": 8, "vert_size": 5}, 8, 6, "float16"),
    "xrgb swap ax": (F.XRGB8888_U8, {"swap_ax": True, "c_padding_mode": 1}, {"horiz_size": 4, "vert_size": 2,
                                                                             "x0": 2, "y0": 1}, 8, 5, "int8"),
    "xrgb swap ax+rb half": (F.XRGB8888_U8, {"swap_ax": True, "swap_rb": True, "mean": [1, 2, 3]},
                             {"horiz_size": 4, "vert_size": 2}, 4, 2, "float16"),
    "xrgb no swap": (F.XRGB8888_U8, {}, {"horiz_size": 2, "vert_size": 2}, 4, 4, "int8"),
    "yuv420 to rgb csc swap uv": (F.YUV420SP_U8, {"csc": BT601, "bias_in": [16, 128, 128], "swap_uv": True,
                                                  "var": [1 / 255] * 3},
                                  {"horiz_size": 6, "vert_size": 5, "x0": 2, "y0": 2}, 10, 8, "float16"),
    "yuv420 raw": (F.YUV420SP_U8, {"c_padding_mode": 1, "mean": [0, 128, 128]}, {"horiz_size": 4, "vert_size": 4},
                   4, 4, "int8"),
    "rgb to yuv csc bias out": (F.RGB888_U8, {"csc": [[66, 129, 25], [-38, -74, 112], [112, -94, -18]],
                                              "bias_out": [16, 128, 128], "c_padding_mode": 1},
                                {"horiz_size": 4, "vert_size": 3}, 6, 3, "float16"),
    "yuv400 gray const pad": (F.YUV400_U8, {"padding_values": [9, 8, 7, 6]},
                              {"horiz_size": 4, "vert_size": 3, "left": 1, "right": 2, "top": 5, "bot": 5},
                              6, 4, "int8"),
    "yuv400 csc": (F.YUV400_U8, {"csc": BT601, "bias_in": [16, 0, 0], "c_padding_mode": 1},
                   {"horiz_size": 4, "vert_size": 2}, 4, 2, "float16"),
    "edge padding": (F.RGB888_U8, {"padding_mode": 1, "c_padding_mode": 1},
                     {"horiz_size": 3, "vert_size": 2, "top": 2, "bot": 3, "left": 4, "right": 1}, 5, 4, "int8"),
    "block padding": (F.RGB888_U8, {"padding_mode": 2, "c_padding_mode": 1},
                      {"horiz_size": 4, "vert_size": 3, "top": 2, "bot": 3, "left": 4, "right": 1}, 6, 4, "int8"),
    "mirror padding": (F.RGB888_U8, {"padding_mode": 3, "mean": [50, 60, 70]},
                       {"horiz_size": 4, "vert_size": 3, "top": 1, "bot": 3, "left": 2, "right": 4}, 6, 5, "float16"),
    "single line": (F.RGB888_U8, {"single_line": True, "c_padding_mode": 1},
                    {"horiz_size": 8, "vert_size": 4, "y0": 2}, 8, 4, "int8"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_load_image_to_local_applies_the_configured_preprocessing(case):
    got, want = run(case)
    np.testing.assert_array_equal(got, want)


def test_a_plain_data_copy_after_set_aipp_functions_is_not_preprocessed():
    @asc.jit
    def plain(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        z_gm.set_global_buffer(z)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, n)
        cfg = asc.AippParams(asc.int8, swap_params=asc.AippSwapParams(is_swap_rb=True),
                             dtc_params=asc.AippDataTypeConvParams(dtc_mean_ch0=100))
        asc.set_aipp_functions(x_gm, asc.AippInputFormat.RGB888_U8, cfg)
        t = q.alloc_tensor(x_gm.dtype)
        asc.data_copy(t, x_gm, n)
        asc.data_copy(z_gm, t, n)
        q.free_tensor(t)

    x = np.arange(96, dtype=np.uint8)
    z = np.zeros_like(x)
    plain[1](x, z, x.size)
    np.testing.assert_array_equal(z, x)


def test_the_configuration_is_latched_when_set():
    @asc.jit
    def latched(img: asc.GlobalAddress, out: asc.GlobalAddress):
        img_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
        img_gm.set_global_buffer(img)
        out_gm.set_global_buffer(out)
        pipe = asc.TPipe()
        q1, qv = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q1, 1, 4 * 32)
        pipe.init_buffer(qv, 1, 4 * 32)
        dtc = asc.AippDataTypeConvParams(dtc_mean_ch0=1)
        asc.set_aipp_functions(img_gm, asc.AippInputFormat.RGB888_U8, asc.AippParams(asc.int8, dtc_params=dtc))
        dtc.dtc_mean_ch0 = 100  # after the call: the registers keep 1
        a1, ub = q1.alloc_tensor(asc.int8), qv.alloc_tensor(asc.int8)
        asc.load_image_to_local(a1, asc.LoadImageToLocalParams(2, 2, 0, 0, 2))
        asc.data_copy(ub, a1, 128)
        asc.data_copy(out_gm, ub, 128)
        q1.free_tensor(a1)
        qv.free_tensor(ub)

    img = np.arange(12, dtype=np.uint8) + 50
    out = np.zeros(128, np.int8)
    latched[1](img, out)
    assert out.reshape(4, 32)[:, 0].tolist() == (img.reshape(4, 3)[:, 0].astype(int) - 1).tolist()


@asc.jit
def misuse(img: asc.GlobalAddress, what: str):
    img_gm = asc.GlobalTensor()
    img_gm.set_global_buffer(img)
    pipe = asc.TPipe()
    q1, qv = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q1, 1, 1024)
    pipe.init_buffer(qv, 1, 1024)
    dt = asc.float16 if what == "dtype" else asc.int8
    dtc = asc.AippDataTypeConvParams(dtc_round_mode=1 if what == "round" else 0)
    if what == "edited":
        dtc.dtc_mean_ch2 = 300  # after construction: refused when set_aipp_functions latches it
    pad = asc.AippPaddingParams(padding_mode=2 if what == "block pad" else 0)
    if what == "xrgb align":
        asc.set_aipp_functions(img_gm[1:], asc.AippInputFormat.XRGB8888_U8, asc.AippParams(asc.int8))
    if what != "unset":
        asc.set_aipp_functions(img_gm, asc.AippInputFormat.RGB888_U8,
                               asc.AippParams(asc.int8, padding_params=pad, dtc_params=dtc))
    dst = qv.alloc_tensor(dt) if what == "ub" else q1.alloc_tensor(dt)
    p = {"odd start": asc.LoadImageToLocalParams(2, 2, 1, 0, 4),
         "block pad": asc.LoadImageToLocalParams(2, 2, 0, 0, 4, 0, 0, 3, 0),
         "overflow": asc.LoadImageToLocalParams(8, 5, 0, 0, 8),
         "range": asc.LoadImageToLocalParams(1, 2, 0, 0, 4),
         "past row": asc.LoadImageToLocalParams(4, 2, 2, 0, 4)}.get(what, asc.LoadImageToLocalParams(2, 2, 0, 0, 4))
    asc.load_image_to_local(dst, p)


@pytest.mark.parametrize(("what", "message"), [
    ("unset", r"no AIPP configuration on this core: call asc\.set_aipp_functions"),
    ("dtype", r"dst is float16 but the AippParams output type is int8"),
    ("ub", r"dst is in UB \(TPosition\.VECIN\) but must be in L1"),
    ("odd start", r"horiz_start_pos must be even for RGB888_U8"),
    ("block pad", r"padding mode 2 copies the padding from the cropped image"),
    ("overflow", r"the 8 x 5 image with 32 channels needs 1280 bytes of L1 but dst holds only 1024 bytes"),
    ("range", r"horiz_size must be in 2\.\.4095"),
    ("past row", r"past the 4-pixel source row"),
    ("xrgb align", r"src0 at GM 0x[0-9a-f]+ is not 4-byte aligned, as XRGB8888_U8 requires"),
    ("edited", r"dtc_mean_ch2=300 is out of range 0\.\.255"),
    ("round", r"dtc_round_mode=1 is configurable on Atlas 200I/500 A2 only .*aclsim does not emulate it"),
])
def test_misuse_faults_with_the_reason(what, message):
    with pytest.raises(asc.AscError, match=message):
        misuse[1](np.zeros(4096, np.uint8), what)


def test_bad_structs_are_refused_at_construction():
    with pytest.raises(TypeError, match=r"AippParams dtype must be asc\.int8 or asc\.float16"):
        asc.AippParams(asc.float32)
    with pytest.raises(ValueError, match=r"dtc_mean_ch1=256 is out of range 0\.\.255"):
        asc.AippDataTypeConvParams(dtc_mean_ch1=256)
    with pytest.raises(ValueError, match=r"padding_mode=4 is out of range 0\.\.3"):
        asc.AippPaddingParams(padding_mode=4)
    with pytest.raises(ValueError, match=r"c_padding_value=200 is not an int8"):
        asc.AippParams(asc.int8, c_padding_params=asc.AippChannelPaddingParams(0, 200))
