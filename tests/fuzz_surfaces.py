"""Generated cases for the newer surfaces: models (containers, datasets, descriptions), operators, DVPP,
Ascend C queues and UB, SIMT launch configurations. Each case is a list of small ints (hypothesis shrinks it,
a failure prints as plain data); `run(surface, case)` runs one in the fuzz child (tests/fuzzer.py) and holds it
to the outcome rule:

  - a documented code, or a clear error raised at the call (an AclError, a SimtError, pyACL's "args parse
    failed", a message naming the API), or success;
  - never an exception from inside aclsim that says nothing (IndexError, KeyError... surfacing from its code,
    at the call or as the message of a failed synchronize), never a hang or a crash (the parent watches);
  - never a silent success: a case built to be invalid must fail, and a valid one's results are checked
    where a reference is cheap (elementwise operators, the model against ONNX Runtime, a SIMT fill).

`run` returns the outcome ("ok", "code" or "error") for the per-surface figures.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

import aclsim.asc as asc
from aclsim import simt

SURFACES = ("models", "operators", "dvpp", "asc", "simt")
PKG = None  # aclsim's source folder (set in the child)


def generate(surface: str, draw: Callable[[int, int], int]) -> list[int]:
    """A case of `surface`: 24 small ints (what they mean is up to the surface's runner)."""
    return [draw(0, 1 << 16) for _ in range(24)]


# ------------------------------------------------------------------------------------------- the outcome rule
class Violation(AssertionError):
    """The case broke the outcome rule (the message says how)."""


_ACCIDENTAL = re.compile(r"\b(IndexError|KeyError|AttributeError|ZeroDivisionError|UnboundLocalError|NameError|"
                         r"AssertionError|RecursionError|UFuncTypeError|TypeError|ValueError|OverflowError|"
                         r"StopIteration|UnicodeDecodeError): (.{0,80})")


def check_message(msg: str | None, where: str) -> None:
    """A failure's recent-error message must say what is wrong, not carry a bare Python error from aclsim."""
    for m in _ACCIDENTAL.finditer(msg or ""):
        if not re.search(r"acl\.|asc\.|simt|aclsim|kernel|onnx|ONNX|JPEG|PNG|picture|image", m.group(2)):
            raise Violation(f"{where}: an internal Python error surfaced as a code: {m.group(0)!r}")


def _from_aclsim(e: BaseException) -> bool:
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and last.startswith(PKG)


def clear(e: BaseException) -> bool:
    """An error aclsim raised on purpose, at the call, saying what is wrong."""
    from aclsim.errors import AclError
    from aclsim.simt.lang import SimtError

    cause = e.__cause__
    if cause is not None and not isinstance(cause, (AclError, SimtError)) and _from_aclsim(cause) and not clear(cause):
        return False
    if isinstance(e, (AclError, SimtError)):
        return True
    msg = str(e)
    if isinstance(e, (TypeError, ValueError, NotImplementedError, RuntimeError, AttributeError, ImportError)):
        return bool(re.match(r"(acl|asc|simt|aclsim|kernel)\b", msg) or "args parse failed" in msg
                    or re.search(r"\b(acl|asc)\.\w+", msg))
    return False


def guarded(fn: Callable[[], Any], where: str) -> tuple[Any, BaseException | None]:
    """Call `fn`: (result, None), or (None, error) for a clear error; any other exception is a violation."""
    try:
        return fn(), None
    except Exception as e:
        if clear(e):
            return None, e
        raise Violation(f"{where}: {type(e).__name__} from inside aclsim: {e}\n"
                        + "".join(traceback.format_exception(e)[-6:])) from e


def ret_of(r: Any) -> int:
    return r[-1] if isinstance(r, tuple) else r


class Outcome:
    """Tallies what a case did: the first failure decides ("code" / "error"), else "ok"."""

    def __init__(self) -> None:
        self.kind = "ok"

    def code(self, name: str, r: Any, codes: set[int], main: bool = False) -> int:
        """Check a pyACL result; a failure of the case's `main` call (not of a probing getter) decides."""
        import aclsim.acl as acl

        c = ret_of(r)
        if c not in codes:
            raise Violation(f"{name} returned {c}, which is no documented ACL code")
        if c:
            check_message(acl.get_recent_err_msg(), name)
            if main and self.kind == "ok":
                self.kind = "code"
        return c

    def error(self) -> None:
        if self.kind == "ok":
            self.kind = "error"


def _codes() -> set[int]:
    from aclsim.errors import Code

    return {0} | {int(c) for c in Code}


# ------------------------------------------------------------------------------------------- shared state
class Env:
    """What a child prepares once: models built with `aclsim atc`, a JPEG, kernels."""

    def __init__(self) -> None:
        self.models: list[bytes] = []
        with tempfile.TemporaryDirectory(prefix="aclsim-fuzz-") as folder:  # the models are kept in memory
            self._build_models(folder)
        from PIL import Image

        yy, xx = np.mgrid[0:48, 0:64]
        rgb = np.dstack([xx * 4, yy * 5, (xx + yy) * 2]).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(rgb).save(buf, "JPEG", quality=90)
        self.jpeg = buf.getvalue()
        self.codes = _codes()

    def _build_models(self, folder: str) -> None:
        import onnx_models as om
        from aclsim.cli import main as cli

        m, self.mlp_w = om.mlp(batch=2)
        aipp = os.path.join(folder, "aipp.cfg")
        with open(aipp, "w") as f:
            f.write("aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_w: 20 src_image_size_h: 18 "
                    "crop: true load_start_pos_w: 2 load_start_pos_h: 2 crop_size_w: 16 crop_size_h: 16 "
                    "mean_chn_0: 10 var_reci_chn_0: 0.5 }")
        for name, model, flags in (("mlp", m, []), ("dyn", om.mlp(batch="b")[0],
                                   ["--input_shape=x:-1,8", "--dynamic_batch_size=1,2,4"]),
                                   ("cnn", om.cnn()[0], []), ("aipp", om.cnn()[0], [f"--insert_op_conf={aipp}"])):
            src = om.save(model, os.path.join(folder, f"{name}.onnx"))
            out = os.path.join(folder, name)
            with open(os.devnull, "w") as sink:
                import contextlib

                with contextlib.redirect_stdout(sink):
                    assert cli(["atc", f"--model={src}", "--framework=5", f"--output={out}",
                                "--soc_version=Ascend310P3", *flags]) == 0, (name, flags)
            with open(out + ".om", "rb") as f:
                self.models.append(f.read())


# ------------------------------------------------------------------------------------------- models
_WEIRD = [None, -1, 0, 1, 999, 2**40, 1.5, "x", "", [], [1, "a"], [-1, 8], {}, {"input_format": "bogus"}, True]
_FIELDS = ["name", "dims", "dtype", "format", "size", "graph_dtype", "aipp"]
_TOP = ["inputs", "outputs", "dynamic_batch", "dynamic_hw", "soc_version", "weight_size", "dynamic_dims",
        "payload_size", "payload_crc32"]


def _damage(data: bytes, c: list[int]) -> tuple[bytes, bool]:
    """A damaged copy of an .om, and whether the damage must make the load fail."""
    (n,) = struct.unpack_from("<I", data, 12)
    head, payload = json.loads(data[16:16 + n]), data[16 + n:]
    kind = c[1] % 5
    if kind == 0:  # bits flipped in the payload: the checksum must tell
        b = bytearray(payload)
        for k in range(1 + c[2] % 4):
            b[c[3 + k] % len(b)] ^= 1 << (c[7 + k] % 8)
        return data[:16 + n] + bytes(b), True
    if kind == 1:  # cut anywhere
        return data[: c[2] % len(data)], True
    if kind == 2:  # a field of an input or output set to a weird value
        side = head["inputs" if c[2] % 2 else "outputs"]
        if side:
            side[c[3] % len(side)][_FIELDS[c[4] % len(_FIELDS)]] = _WEIRD[c[5] % len(_WEIRD)]
    elif kind == 3:  # a top-level field set to a weird value, or removed
        key = _TOP[c[2] % len(_TOP)]
        if c[3] % 4 == 0:
            head.pop(key, None)
        else:
            head[key] = _WEIRD[c[4] % len(_WEIRD)]
    else:  # bytes flipped anywhere (magic, version, header, payload)
        b = bytearray(data)
        b[c[2] % len(b)] ^= 1 << (c[3] % 8)
        return bytes(b), False
    raw = json.dumps(head).encode()
    return data[:8] + struct.pack("<II", 2, len(raw)) + raw + payload, False


def _buffers(n: int, sizes: list[int], c: list[int], o: Outcome, freed: list[int]) -> tuple[int, list[int], bool]:
    """A dataset of `n` buffers for tensors of `sizes`: valid device buffers, or (by c) too small ones, NULL
    ones (create_data_buffer refuses them: the dataset has one buffer less) or ones freed before the call
    (their pointers go to `freed`, freed once every dataset is made so that no malloc reuses them).
    Returns (dataset, device pointers, valid)."""
    import aclsim.acl as acl

    ds = acl.mdl.create_dataset()
    ptrs, fine, added = [], True, 0
    for k in range(n):
        size = sizes[k] if k < len(sizes) else 64
        how = c[k % len(c)] % 9
        nbytes = size if how else 1  # 0: a buffer too small for any gear
        if how == 7:
            buf = acl.create_data_buffer(0, nbytes)
        else:
            p, r = acl.rt.malloc(max(nbytes, 1), 0)
            o.code("malloc", r, _codes())
            ptrs.append(p)
            if how == 8:
                freed.append(p)
            buf = acl.create_data_buffer(p, nbytes)
        if buf:
            fine &= how not in (0, 8)
            added += 1
            acl.mdl.add_dataset_buffer(ds, buf)
    return ds, ptrs, fine and added == len(sizes)


def run_models(env: Env, c: list[int]) -> str:
    import aclsim.acl as acl

    o = Outcome()
    which = c[9] % len(env.models)
    data = env.models[which]
    must_fail = False
    if c[0] % 3 == 0:
        data, must_fail = _damage(data, c)
    size = len(data) if c[8] % 5 else [0, len(data) - 1, len(data) // 2, len(data) + 64, 1][c[8] % 25 // 5]
    if size > len(data):
        data = data + bytes(size - len(data))  # the size names bytes past the model: they are read too
    o.code("query_size_from_mem", guarded(lambda: acl.mdl.query_size_from_mem(acl.util.bytes_to_ptr(data), size),
                                          "query_size_from_mem")[0], env.codes)
    must_fail |= size < len(data) and size != len(data.rstrip(b"\0"))
    mid, err = guarded(lambda: acl.mdl.load_from_mem(acl.util.bytes_to_ptr(data), size), "load_from_mem")
    if err is not None:
        raise Violation(f"load_from_mem raised {type(err).__name__}: {err}")
    if o.code("load_from_mem", mid, env.codes, True):
        return o.kind
    if must_fail:
        raise Violation("a damaged model loaded with 0 (silent success)")
    mid = mid[0]
    desc = acl.mdl.create_desc()
    o.code("get_desc", acl.mdl.get_desc(desc, mid if c[11] % 13 else mid + 7), env.codes)
    for getter in (acl.mdl.get_input_dims, acl.mdl.get_output_dims, acl.mdl.get_cur_output_dims,
                   acl.mdl.get_input_dims_v2):
        o.code(getter.__name__, getter(desc, c[12] % 4), env.codes)
    for getter in (acl.mdl.get_input_size_by_index, acl.mdl.get_output_data_type, acl.mdl.get_input_format,
                   acl.mdl.get_input_name_by_index):
        guarded(lambda g=getter: g(desc, c[13] % 4), getter.__name__)
    o.code("get_input_index_by_name", acl.mdl.get_input_index_by_name(desc, ["x", "data", "zz", ""][c[14] % 4]),
           env.codes)
    real = acl.mdl.create_desc()  # (the probed description may be empty: the datasets follow the model's own)
    o.code("get_desc", acl.mdl.get_desc(real, mid), env.codes)
    n_in, n_out = acl.mdl.get_num_inputs(real), acl.mdl.get_num_outputs(real)
    ins = [acl.mdl.get_input_size_by_index(real, i) for i in range(n_in)]
    outs = [acl.mdl.get_output_size_by_index(real, i) for i in range(n_out)]
    freed: list[int] = []
    in_ds, in_p, in_ok = _buffers(n_in + (c[15] % 7 == 0) - (c[15] % 11 == 0), ins, c[16:19], o, freed)
    out_ds, out_p, out_ok = _buffers(n_out + (c[19] % 7 == 0), outs, c[20:23], o, freed)
    for p in freed:
        acl.rt.free(p)
    gear_ok = True
    if n_in and acl.mdl.get_input_name_by_index(real, n_in - 1) == "ascend_mbatch_shape_data":
        batch = [1, 2, 4, 3, 0][c[23] % 5]
        r = o.code("set_dynamic_batch_size", acl.mdl.set_dynamic_batch_size(mid, in_ds, n_in - 1, batch), env.codes)
        gear_ok = r == 0
    stream = 0 if c[10] % 2 else acl.rt.create_stream()[0]
    if c[10] % 4 < 2:
        r = o.code("execute", acl.mdl.execute(mid, in_ds, out_ds), env.codes, True)
    else:
        r = o.code("execute_async", acl.mdl.execute_async(mid, in_ds, out_ds, stream), env.codes, True)
        r = r or o.code("synchronize_stream", acl.rt.synchronize_stream(stream), env.codes, True)
    if r == 0 and not (in_ok and out_ok and gear_ok):
        raise Violation(f"execute of model {which} with invalid datasets returned 0 (silent success)")
    if r == 0 and which == 0 and c[0] % 3 != 0:  # the static MLP: the output is the reference's
        x = np.zeros((2, 8), np.float32)
        assert acl.rt.memcpy(x.ctypes.data, x.nbytes, in_p[0], x.nbytes, 2) == 0
        y = np.zeros((2, 5), np.float32)
        assert acl.rt.memcpy(y.ctypes.data, y.nbytes, out_p[0], y.nbytes, 2) == 0
        w = env.mlp_w
        if not np.allclose(y, np.maximum(x @ w["w1"] + w["b1"], 0) @ w["w2"] + w["b2"], atol=1e-4, equal_nan=True):
            raise Violation("the model's output differs from the reference (silent wrong result)")
    o.code("destroy_desc", acl.mdl.destroy_desc(desc), env.codes)
    o.code("destroy_desc", acl.mdl.destroy_desc(real), env.codes)
    o.code("unload", acl.mdl.unload(mid), env.codes)
    return o.kind


# ------------------------------------------------------------------------------------------- operators
_DT = [(np.float32, 0), (np.float16, 1), (np.int32, 3), (np.int64, 9), (np.bool_, 12), (np.uint8, 4)]
_ATTRS = [("axes", [0]), ("axes", [-1]), ("keep_dims", True), ("perm", [1, 0]), ("transpose_x2", True),
          ("dst_type", 1), ("dimension", 0), ("offsets", [0, 0]), ("size", [1, 1]), ("negative_slope", 0.1),
          ("concat_dim", 0), ("N", 2), ("strides", [1, 1, 1, 1]), ("pads", [0, 0, 0, 0]), ("dtype", 3),
          ("begin", [0]), ("end", [1]), ("data_format", "NHWC"), ("axes", [5])]
_NUMPY = {"Relu": lambda a: np.maximum(a, 0), "Abs": np.abs, "Neg": np.negative, "Exp": np.exp,
          "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Maximum": np.maximum, "Minimum": np.minimum}


def run_operators(env: Env, c: list[int]) -> str:
    import aclsim.acl as acl
    from aclsim.models.ops import SUPPORTED
    from aclsim.models.signatures import SIGNATURES

    o = Outcome()
    names = [*SUPPORTED, "FancyOp", "add"]
    op = names[c[0] % len(names)] if c[1] % 2 else list(_NUMPY)[c[0] % len(_NUMPY)]
    n_in, n_out = c[2] % 5, 1 if c[3] % 6 else c[3] % 3
    same = c[4] % 3 != 0  # most cases: one dtype and one shape for all tensors (the common valid case)
    shape = [1 + c[5 + k] % 4 for k in range(c[9] % 4)]
    tensors, arrays = [], []
    rng = np.random.default_rng(c[10])
    for k in range(n_in + n_out):
        dt, code = _DT[0] if same else _DT[c[11 + k % 6] % len(_DT)]
        shp = shape if same or c[17 + k % 4] % 2 else [1 + (c[17 + k % 4] >> 3) % 3]
        desc = acl.create_tensor_desc(code, shp, 2)
        nbytes = max(int(np.prod(shp)) * np.dtype(dt).itemsize, 1)
        p, r = acl.rt.malloc(nbytes, 0)
        o.code("malloc", r, env.codes)
        a = (rng.standard_normal(shp) * 3).astype(dt) if dt != np.bool_ else rng.integers(0, 2, shp).astype(dt)
        if k < n_in:
            raw = np.ascontiguousarray(a).tobytes()
            if raw:
                assert acl.rt.memcpy(p, nbytes, acl.util.bytes_to_ptr(raw), len(raw), 1) == 0
        tensors.append((desc, acl.create_data_buffer(p, nbytes), p, dt, shp))
        arrays.append(a)
    attr = acl.op.create_attr()
    for k in range(c[22] % 3):
        key, val = _ATTRS[c[23 - k] % len(_ATTRS)]
        setter = (acl.op.set_attr_bool if isinstance(val, bool) else acl.op.set_attr_int if isinstance(val, int)
                  else acl.op.set_attr_float if isinstance(val, float) else acl.op.set_attr_string
                  if isinstance(val, str) else acl.op.set_attr_list_int)
        o.code(f"set_attr {key}", setter(attr, key, int(val) if isinstance(val, bool) else val), env.codes)
    ins, outs = tensors[:n_in], tensors[n_in:]
    stream, _ = acl.rt.create_stream()
    ret = o.code(f"compile_and_execute {op}", acl.op.compile_and_execute(
        op, [t[0] for t in ins], [t[1] for t in ins], [t[0] for t in outs], [t[1] for t in outs], attr, 0, 0, None,
        stream), env.codes, True)
    sig = SIGNATURES.get(op)
    if ret == 0 and (sig is None or not sig.fits(n_in) or n_out != 1):
        raise Violation(f"{op} with {n_in} inputs and {n_out} outputs returned 0 (silent success)")
    if ret == 0:
        sync = o.code("synchronize_stream", acl.rt.synchronize_stream(stream), env.codes, True)
        if sync == 0 and op in _NUMPY and same and shape and ins[0][3] == np.float32:
            got = np.zeros(shape, np.float32)
            assert acl.rt.memcpy(got.ctypes.data, got.nbytes, outs[0][2], got.nbytes, 2) == 0
            with np.errstate(all="ignore"):
                want = _NUMPY[op](*arrays[:n_in]).astype(np.float32)
            if not np.allclose(got, want, rtol=1e-3, atol=1e-3, equal_nan=True):
                raise Violation(f"{op} computed a different result than numpy (silent wrong result)")
    acl.op.destroy_attr(attr)
    for desc, buf, p, _, _ in tensors:
        acl.destroy_data_buffer(buf)
        acl.destroy_tensor_desc(desc)
        acl.rt.free(p)
    acl.rt.destroy_stream(stream)
    return o.kind


# ------------------------------------------------------------------------------------------- DVPP
_FMTS = [1, 2, 0, 12, 13, 7]  # NV12, NV21, YUV400, RGB888, BGR888, one aclsim does not emulate


def _pic(c: list[int], k: int, o: Outcome, env: Env, output: bool) -> tuple[int, int, bool]:
    """A picture description (and its device buffer) from c[k:k+6]: a valid one, or (one case in three) one
    that breaks a documented rule (width stride a multiple of 16 and >= the width, height stride >= the height,
    a buffer that holds the picture, even sizes for a YUV420SP output: JPEGD's odd-sized pictures are valid VPC
    inputs, an emulated format). Returns (desc, buffer, valid)."""
    import aclsim.acl as acl

    fmt = _FMTS[c[k] % 5]
    w, h = [16, 32, 64, 48, 50][c[k + 1] % 5], [16, 24, 48, 32, 30][c[k + 2] % 5]
    per = 3 if fmt in (12, 13) else 1
    ws, hs = (w + 15) // 16 * 16 * per, h + c[k + 3] % 2 * 2
    broken = c[k + 4] % 8 if c[k + 5] % 3 == 0 else None
    if broken == 0:
        fmt = 7
    elif broken == 1:
        w = 0
    elif broken == 2:
        ws = w * per + 8 if (w * per + 8) % 16 else w * per + 4
    elif broken == 3:
        ws = (w - 16) * per
    elif broken == 4:
        hs = h - 2
    elif broken == 5 and fmt in (1, 2):
        w, ws = 31, 32
    need = ws * hs * 3 // 2 if fmt in (1, 2) else ws * hs
    size = need // 2 if broken == 6 else need + (c[k + 3] >> 4) % 64
    valid = broken is None or (broken == 5 and (fmt not in (1, 2) or not output)) or broken == 7
    p, r = acl.media.dvpp_malloc(max(size, 1))
    o.code("dvpp_malloc", r, env.codes)
    d = acl.media.dvpp_create_pic_desc()
    for setter, v in ((acl.media.dvpp_set_pic_desc_data, p), (acl.media.dvpp_set_pic_desc_format, fmt),
                      (acl.media.dvpp_set_pic_desc_width, w), (acl.media.dvpp_set_pic_desc_height, h),
                      (acl.media.dvpp_set_pic_desc_width_stride, ws), (acl.media.dvpp_set_pic_desc_height_stride, hs),
                      (acl.media.dvpp_set_pic_desc_size, size)):
        o.code(setter.__name__, setter(d, v), env.codes)
    return d, p, valid


def run_dvpp(env: Env, c: list[int]) -> str:
    import aclsim.acl as acl

    o = Outcome()
    chan = acl.media.dvpp_create_channel_desc()
    if c[0] % 9:
        o.code("dvpp_create_channel", acl.media.dvpp_create_channel(chan), env.codes)
    stream, _ = acl.rt.create_stream()
    din, pin, ok_in = _pic(c, 1, o, env, False)
    dout, pout, ok_out = _pic(c, 7, o, env, True)
    call = c[13] % 6
    roi = acl.media.dvpp_create_roi_config(*[[0, 15, 0, 15], [0, 31, 0, 23], [2, 9, 2, 9], [1, 500, 0, 7]][c[14] % 4])
    valid = ok_in and ok_out and c[0] % 9 != 0
    if call == 0:
        ret = acl.media.dvpp_vpc_resize_async(chan, din, dout, acl.media.dvpp_create_resize_config(), stream)
    elif call == 1:
        ret = acl.media.dvpp_vpc_crop_async(chan, din, dout, roi, stream)
        valid = False if c[14] % 4 == 3 else valid and None  # an ROI may or may not fit: either outcome
    elif call == 2:
        ret = acl.media.dvpp_vpc_convert_color_async(chan, din, dout, stream)
        valid = valid and None
    elif call == 3:
        ret = acl.media.dvpp_vpc_crop_and_paste_async(chan, din, dout, roi, roi, stream)
        valid = False if c[14] % 4 == 3 else valid and None
    elif call == 4 and c[20] % 2:  # JPEG encode of the input picture into a buffer of some size
        cap = np.array([[4096, 16, 0, 1 << 20][c[21] % 4]], np.uint32)
        dst, _ = acl.media.dvpp_malloc(max(int(cap[0]), 1))
        cfg = acl.media.dvpp_create_jpege_config()
        acl.media.dvpp_set_jpege_config_level(cfg, [100, 50, 0, 101][c[22] % 4])
        ret = acl.media.dvpp_jpeg_encode_async(chan, din, dst, cap.ctypes.data, cfg, stream)
        valid = False if not ok_in or cap[0] == 0 or c[22] % 4 == 3 else None
    else:  # JPEG decode of the JPEG, a cut JPEG or garbage, from device memory
        data = [env.jpeg, env.jpeg[: c[15] % len(env.jpeg)], bytes(v % 256 for v in c[16:20]) * 9][c[15] % 3]
        src, r = acl.media.dvpp_malloc(max(len(data), 1))
        if data:
            acl.rt.memcpy(src, len(data), acl.util.bytes_to_ptr(data), len(data), 1)
        ret = acl.media.dvpp_jpeg_decode_async(chan, src, len(data), dout, stream)
        valid = None
    r = o.code("dvpp call", ret, env.codes, True)
    if r == 0 and valid is False:
        raise Violation(f"DVPP call {call} with an invalid picture or ROI returned 0 (silent success)")
    if r == 0:
        o.code("synchronize_stream", acl.rt.synchronize_stream(stream), env.codes, True)
    for p in (pin, pout):
        acl.media.dvpp_free(p)
    acl.rt.destroy_stream(stream)
    return o.kind


# ------------------------------------------------------------------------------------------- Ascend C
PROGRAM: list[int] = []  # the ops fuzz_kernel runs (the kernel body reads it)


@asc.jit
def fuzz_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Runs PROGRAM: 4 ints per op on two queues (init_buffer, alloc/enque/deque/free, data_copy in and out of
    tensors and slices, vector ops in count and mask/repeat form, a reduction, scalar access, pipe flags), with
    sizes, counts, masks and repeats that fit or do not fit the Unified Buffer."""
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    queues = [asc.TQue(asc.TPosition.VECIN, 2), asc.TQue(asc.TPosition.VECOUT, 2)]
    held = []
    p = PROGRAM
    for i in range(0, len(p) - 3, 4):
        op, a, b, n = p[i] % 16, p[i + 1], p[i + 2], p[i + 3]
        q = queues[a % 2]
        count = [0, 8, 64, 256, 1024, 100000, 7][n % 7]
        if op == 0:
            pipe.init_buffer(q, 1 + b % 3, [256, 1024, 4096, 1 << 20, 0, 100][n % 6])
        elif op == 1:
            t = q.alloc_tensor(asc.float32)
            if t is not None:
                held.append(t)
        elif op == 2 and held:
            q.enque(held[b % len(held)])
        elif op == 3:
            t = q.deque(asc.float32)
            if t is not None:
                held.append(t)
        elif op == 4 and held:
            q.free_tensor(held[b % len(held)])
        elif op == 5 and held:
            asc.data_copy(held[b % len(held)], xg[(n * 8) % 512:], count)
        elif op == 6 and held:
            asc.data_copy(zg[(n * 8) % 512:], held[b % len(held)], count)
        elif op == 7 and held:
            t = held[b % len(held)]
            asc.add(t, t, held[n % len(held)], count)
        elif op == 8 and held:
            asc.duplicate(held[b % len(held)], float(n), count)
        elif op == 9 and held:
            asc.exp(held[b % len(held)], held[n % len(held)], count)
        elif op == 10 and held:
            asc.muls(held[b % len(held)], held[n % len(held)], 2.0, count)
        elif op == 11 and held:
            asc.reduce_sum(held[b % len(held)], held[n % len(held)], held[a % len(held)], count)
        elif op == 12 and held:  # the mask / repeat form, with masks and repeats in and out of range
            t = held[b % len(held)]
            asc.add(t, t, t, [0, 8, 64, 65, 128, 300][n % 6], [0, 1, 4, 255, 256][a % 5],
                    asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
        elif op == 13:  # flags between pipes, a wait with no set among them
            ev = [asc.HardEvent.MTE2_V, asc.HardEvent.V_MTE3, asc.HardEvent.MTE3_MTE2][n % 3]
            (asc.set_flag if b % 3 else asc.wait_flag)(ev, a % 8)
        elif op == 14 and held:  # scalar access of a local tensor, inside and past its end
            t = held[b % len(held)]
            t.set_value([0, 5, 255, 256, 4096][n % 5], 1.5)
            t.get_value([0, 7, 300][a % 3])
        elif op == 15 and held:  # a tensor slice, then a copy of it
            t = held[b % len(held)]
            asc.data_copy(zg, t[[0, 8, 64, 248, 1024][n % 5]:], count)


def run_asc(env: Env, c: list[int]) -> str:
    o = Outcome()
    # most programs start by giving both queues buffers (2 x 1 KiB), so that what follows goes deeper
    PROGRAM[:] = ([0, 0, 1, 1, 0, 1, 1, 1] if c[0] % 5 else []) + c[1:]
    x = np.arange(1024, dtype=np.float32)
    z = np.zeros(1024, np.float32)
    _, err = guarded(lambda: fuzz_kernel[1 + c[0] % 3](x, z), "Ascend C launch")
    if err is not None:
        check_message(str(err), "Ascend C launch")
        o.error()
    return o.kind


# ------------------------------------------------------------------------------------------- SIMT
_DIMS: list[Any] = [1, 2, 7, 32, 0, -1, 2049, 2**31, 2**32, 1.5, "a", None, (2, 2), (1, 1, 1, 1), (4, 0), [3], 512]
_VALID_DIMS: list[Any] = [1, 2, 7, 32, 512, 2048, (2, 2), (3, 1), (1, 2, 1)]


@simt.kernel
def fill(x: simt.Ptr[np.int32], n: np.int32, v: np.int32):
    i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x + simt.blockIdx.y * simt.gridDim.x * simt.blockDim.x
    if i < n:
        x[i] = v


def _dim_ok(d: Any, limit: int) -> bool:
    if isinstance(d, bool):
        return False
    if isinstance(d, int):
        return 0 < d <= limit
    return (isinstance(d, (tuple, list)) and 1 <= len(d) <= 3
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= limit for v in d))


def run_simt(env: Env, c: list[int]) -> str:
    import aclsim.acl as acl

    o = Outcome()
    pool = _DIMS if c[7] % 2 else _VALID_DIMS  # half the launches have a valid shape
    grid, block = pool[c[0] % len(pool)], pool[c[1] % len(pool)] if c[2] % 3 else 64
    n = c[3] % 3000
    x, r = acl.rt.malloc(max(n, 1) * 4, 0)
    o.code("malloc", r, env.codes)
    stream_kind = c[4] % 5
    stream = [None, 0, acl.rt.create_stream()[0], 12345, None][stream_kind]
    if stream_kind == 4:
        stream = acl.rt.create_stream()[0]
        acl.rt.destroy_stream(stream)
    args: list[Any] = [x, n, 7]
    bad_args = c[5] % 6 == 0
    if bad_args:
        args = [[x, n], [x, n, 7, 1], [1.5, n, 7], [np.zeros(4, np.int32), n, 7], [x, "n", 7]][c[6] % 5]
    blocks = grid if isinstance(grid, int) else int(np.prod(grid)) if isinstance(grid, (tuple, list)) else 0
    threads = block if isinstance(block, int) else int(np.prod(block)) if isinstance(block, (tuple, list)) else 0
    valid = (_dim_ok(grid, 2**32 - 1) and _dim_ok(block, 2048) and threads <= 2048 and not bad_args
             and stream_kind in (0, 1, 2))
    config = (grid, block) if stream is None else (grid, block, stream)
    task, err = guarded(lambda: fill[config](*args), "SIMT launch")
    if err is not None:
        o.error()
        if valid:
            raise Violation(f"a valid launch {config} was refused: {err}")
        return o.kind
    if blocks * threads > 2**20:  # a huge valid launch: drop it rather than run it (the fuzz checks the call)
        get_rt().scheduler.discard(task.stream)
        return o.kind
    s = stream if isinstance(stream, int) and stream_kind in (2, 4) else 0
    ret = o.code("synchronize_stream", acl.rt.synchronize_stream(s), env.codes, True)
    if ret == 0 and not valid:
        raise Violation(f"the invalid launch {config} with {args!r:.60} ran with 0 (silent success)")
    if ret == 0 and n and isinstance(block, int) and not isinstance(grid, list) and len(np.atleast_1d(grid)) <= 2:
        got = np.zeros(n, np.int32)
        assert acl.rt.memcpy(got.ctypes.data, got.nbytes, x, got.nbytes, 2) == 0
        covered = min(n, blocks * threads)
        if not (got[:covered] == 7).all():
            raise Violation(f"the launch {config} left elements unwritten (silent wrong result)")
    return o.kind


def get_rt():
    from aclsim.runtime import get_runtime

    return get_runtime()


# ------------------------------------------------------------------------------------------- the child's entry
RUNNERS = {"models": run_models, "operators": run_operators, "dvpp": run_dvpp, "asc": run_asc, "simt": run_simt}


def prepare() -> Env:
    """Build once per child what the cases share."""
    global PKG
    import aclsim

    PKG = os.path.dirname(os.path.abspath(aclsim.__file__))
    return Env()


def run(env: Env, surface: str, case: list[int]) -> str:
    """One case on a fresh runtime (device 0 current); its outcome, or Violation."""
    import aclsim.acl as acl
    from aclsim.runtime import reset_runtime

    reset_runtime()
    acl.init()
    acl.rt.set_device(0)
    # SIMT launches run on the numpy engine: numba would compile every new launch shape (seconds each)
    jit, os.environ["ACLSIM_SIMT_JIT"] = os.environ.get("ACLSIM_SIMT_JIT"), "0"
    try:
        return RUNNERS[surface](env, case)
    finally:
        acl.get_recent_err_msg()
        if jit is None:
            del os.environ["ACLSIM_SIMT_JIT"]
        else:
            os.environ["ACLSIM_SIMT_JIT"] = jit
