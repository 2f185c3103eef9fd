"""Real pyACL programs written by others, run unmodified under `aclsim run` (issue 22's yardstick).

Given a folder of fetched checkouts (one folder per repository, named ``owner+name``), each program of
PROGRAMS is copied into a scratch folder, given what its README tells a user to prepare (an .om made with
`aclsim atc` from a random-weight ONNX model of the same inputs and outputs, with the README's ATC flags;
pictures the repository does not ship), and run as a new user would: `aclsim run prog.py`, then
`aclsim run --check all prog.py`. A Jupyter notebook is run as `jupyter nbconvert --execute` would run it:
its code cells in order, as one script beside the notebook. Nothing of the programs is kept here.

    python benchmarks/real_programs.py CHECKOUTS [--only KEY,...] [--no-check] [--keep DIR]

prints one table row per program: what it does, the result plain and under --check all, and for a
failure the cause as diagnosed (CAUSES below: aclsim's, not emulated, or the program's own).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

F32, U8, I32 = "float32", "uint8", "int32"


@dataclass
class Model:
    """An .om the program loads: built by `aclsim atc` from a random-weight ONNX model of this signature."""

    om: str                                   # path the program opens, relative to the run folder (ends in .om)
    inputs: list[tuple[str, str, tuple]]      # (name, dtype, shape) of the ONNX model
    outputs: list[tuple[str, str, tuple]]
    atc: tuple[str, ...] = ()                 # the README's further ATC flags
    onnx: str | None = None                   # an ONNX model the repository ships (relative to the repository)
    scale: float = 1.0                        # outputs are uniform in [0, scale)
    blob: bool = False                        # outputs 0 but a 0.95 rectangle (a "detection" for heat-map models)


@dataclass
class Program:
    key: str
    repo: str                                 # owner/name
    entry: str                                # script or notebook, relative to the repository
    what: str
    cwd: str | None = None                    # run folder relative to the repository (default: the entry's)
    args: tuple[str, ...] = ()
    models: tuple[Model, ...] = ()
    pictures: dict[str, tuple[int, int]] = field(default_factory=dict)   # path (rel. to run folder) -> (w, h)
    files: dict[str, Any] = field(default_factory=dict)                  # path -> bytes (or a function giving them)
    links: dict[str, str] = field(default_factory=dict)                  # path -> what it points to (a path
    # in the checkouts folder, or absolute); a path starting with / is made for the run and removed after it
    env: dict[str, str] = field(default_factory=dict)
    run: tuple[str, ...] = ()                 # further `aclsim run` options (e.g. --run-mode rc)
    timeout: int = 300


AIPP = "PyTorch/YOLOv5/model/aipp.cfg"
ACLLITE = "HuaweiAIFAE/pyacl_samples"


def _nb(path: str, what: str, models: tuple[Model, ...], **kw) -> Program:
    return Program(path.split("/")[1].lower() + "-" + path.split("/")[0].lower(), ACLLITE, path, what, models=models,
                   **kw)


PROGRAMS: list[Program] = [
    # --- HuaweiAIFAE/pyacl_samples: notebooks over the ACLLite utility layer (Common/acllite) ---
    _nb("PyTorch/YOLOv5/yolov5_without_dvpp.ipynb", "YOLOv5 detection, static AIPP (RGB888), FP16 output",
        (Model("model/yolov5s.om", [("images", F32, (1, 3, 640, 640))], [("output", F32, (1, 25500, 85))],
               ("--input_format=NCHW", "--soc_version=Ascend310", '--input_shape=images:1,3,640,640',
                "--enable_small_channel=1", "--output_type=FP16", "--insert_op_conf=model/aipp.cfg"), scale=0.4),)),
    _nb("PyTorch/YOLOv4/yolov4_without_dvpp.ipynb", "YOLOv4 detection (boxes + confs outputs)",
        (Model("model/yolov4.om", [("images", F32, (1, 3, 608, 608))],
               [("boxes", F32, (1, 22743, 1, 4)), ("confs", F32, (1, 22743, 80))],
               ("--input_shape=images:1,3,608,608", "--soc_version=Ascend310"), scale=0.5),)),
    _nb("PyTorch/YOLOv7/acl_yolov7.ipynb", "YOLOv7 detection (grid-decoded output)",
        (Model("model/yolov7.om", [("images", F32, (1, 3, 640, 640))], [("output", F32, (1, 25200, 85))],
               ("--soc_version=Ascend310",), scale=0.4),)),
    _nb("PyTorch/DeepLabV3Plus/deeplabv3plus_without_dvpp.ipynb", "DeepLabV3+ segmentation, FP16 output",
        (Model("model/deeplabv3plus513_310.om", [("actual_input_1", F32, (1, 3, 513, 513))],
               [("output", F32, (1, 21, 513, 513))],
               ("--soc_version=Ascend310", "--output_type=FP16", "--input_shape=actual_input_1:1,3,513,513")),)),
    _nb("PyTorch/CRAFT/craft_without_dvpp.ipynb", "CRAFT text detection",
        (Model("model/craft.om", [("input.1", F32, (1, 3, 736, 1280))],
               [("output", F32, (1, 368, 640, 2)), ("feature", F32, (1, 32, 368, 640))],
               ("--soc_version=Ascend310", "--precision_mode=allow_fp32_to_fp16")),)),
    _nb("PyTorch/DeepTextRecognition/deep_text_reco_without_dvpp.ipynb", "text recognition (ResNet-CTC) on boxes",
        (Model("model/None-ResNet-None-CTC.om", [("input", F32, (1, 1, 32, 100))], [("output", F32, (1, 26, 37))],
               ("--soc_version=Ascend310",)),), files={"results/.keep": b""}),
    _nb("PyTorch/InsightFaceDetec/insight_face_scrfd_without_dvpp.ipynb", "SCRFD face detection (9 outputs)",
        (Model("model/scrfd_34g.om", [("input.1", F32, (1, 3, 640, 640))],
               [(f"o{i}", F32, (1, n, k)) for i, (n, k) in enumerate(
                   [(12800, 1), (3200, 1), (800, 1), (12800, 4), (3200, 4), (800, 4)])],
               ("--soc_version=Ascend310", "--precision_mode=allow_fp32_to_fp16"), scale=0.3),)),
    _nb("TensorFlow/DeepFace/deepface_without_dvpp.ipynb", "ArcFace embeddings, static AIPP (NHWC input)",
        (Model("model/arcface.om", [("input_1", F32, (1, 112, 112, 3))], [("embedding", F32, (1, 512))],
               ('--input_shape=input_1:1,112,112,3', "--input_format=NHWC", "--soc_version=Ascend310", "--out_nodes=embedding:0",
                "--insert_op_conf=model/aipp_arcface_tf.cfg")),)),
    _nb("TensorFlow/YoloV3/yolov3_without_dvpp.ipynb", "YOLOv3 (TF) detection, static AIPP, 3 outputs",
        (Model("model/yolov3.om", [("input", F32, (1, 416, 416, 3))],
               [("s", F32, (1, 52, 52, 3, 85)), ("m", F32, (1, 26, 26, 3, 85)), ("l", F32, (1, 13, 13, 3, 85))],
               ("--input_shape=input:1,416,416,3", "--input_format=NHWC", "--insert_op_conf=model/aipp_yolov3_tf.cfg",
                "--soc_version=Ascend310"), scale=0.3),)),
    _nb("Caffe/YoloV3/yolov3_without_dvpp.ipynb", "YOLOv3 (Caffe) detection, AIPP, image-info input",
        (Model("model/yolov3_caffe_416_no_csc.om", [("data", F32, (1, 3, 416, 416)), ("img_info", F32, (1, 4))],
               [("box", F32, (1, 6 * 1024)), ("num", I32, (1, 8))],
               ("--soc_version=Ascend310", "--insert_op_conf=model/aipp_yolov3_416_no_csc.cfg"), scale=0.3),)),
    _nb("Caffe/DVPP_YoloV3/yolov3_with_dvpp.ipynb", "YOLOv3 (Caffe) with DVPP JPEG decode + resize, YUV AIPP",
        (Model("model/yolov3_caffe.om", [("data", F32, (1, 3, 416, 416)), ("img_info", F32, (1, 4))],
               [("box", F32, (1, 6 * 1024)), ("num", I32, (1, 8))],
               ("--soc_version=Ascend310", "--insert_op_conf=model/aipp_yolov3.cfg"), scale=0.3),)),
    _nb("MindSpore/YoloV5/yolov5_without_dvpp.ipynb", "YOLOv5 (MindSpore) detection, 3 outputs",
        (Model("model/yolov5s.om", [("x", F32, (1, 12, 320, 320))],
               [("o0", F32, (1, 20, 20, 3, 85)), ("o1", F32, (1, 40, 40, 3, 85)), ("o2", F32, (1, 80, 80, 3, 85))],
               ("--soc_version=Ascend310",), scale=0.3),)),
    _nb("Data_process/vdec/vdec_with_dvpp.ipynb", "DVPP video decode (VDEC) of an H.264 file", (),
        files={"video.h264": lambda: _h264(64, 48, 5)}),
    # --- the same author's other repositories ---
    Program("mask-classifier", "ktuna26/pyacl_mask_classifier_pt", "pt_mask_classifier_without_dvpp.ipynb",
            "MobileNetV2 mask / no-mask classifier on face crops",
            models=(Model("model/mask_model.om", [("input.1", F32, (1, 3, 128, 128))], [("output", F32, (1, 2))],
                          ("--soc_version=Ascend310", "--precision_mode=allow_fp32_to_fp16")),)),
    Program("ocr-notebook", "ktuna26/PyACL-OCR-REST-API", "pt_ocr_without_dvpp.ipynb",
            "OCR: CRAFT text detection then ResNet-CTC recognition, two models on device 7",
            models=(Model("weights/craft.om", [("input.1", F32, (1, 3, 800, 1280))],
                          [("output", F32, (1, 400, 640, 2)), ("feature", F32, (1, 32, 400, 640))],
                          ("--soc_version=Ascend310",), blob=True),
                    Model("weights/None-ResNet-None-CTC.om", [("input", F32, (1, 1, 32, 100))],
                          [("output", F32, (1, 26, 37))], ("--soc_version=Ascend310",))),
            pictures={"data/images/test.jpg": (640, 480)},
            links={"data/fonts/OpenSans_Condensed-SemiBold.ttf": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"},
            env={"ACLSIM_DEVICES": "8"}),
    # --- Atlas 200 DK programs (RC mode) over the atlas_utils layer ---
    Program("yolox-nano", "HITSZ-NRSL/yolox_for_cann_atlas200dk", "src/acl_yolox.py",
            "YOLOX-nano detection over atlas_utils (the repository's own ONNX model)",
            models=(Model("../model/yolox_nano.om", [], [], ("--input_format=NCHW", "--soc_version=Ascend310"),
                          onnx="model/yolox_nano.onnx"),), run=("--run-mode", "rc"),
            links={"../../atlas_utils": "HITSZ-NRSL+yolox_for_cann_atlas200dk/atlas_utils"}),
    Program("yolox-nano-main", "HITSZ-NRSL/yolox_for_cann_atlas200dk", "src/main_yolox.py",
            "YOLOX-nano: the same model through the repository's second entry point",
            models=(Model("../model/yolox_nano.om", [], [], ("--input_format=NCHW", "--soc_version=Ascend310"),
                          onnx="model/yolox_nano.onnx"),), run=("--run-mode", "rc")),
    Program("yolov3-remote-sensing", "Hanawh/Atlas_200DK_yolov3_v5_python", "v3_object_detect.py",
            "YOLOv3 remote-sensing detection (7 classes), 3 feature-map outputs",
            cwd="",
            models=(Model("yolov3_1128.om", [("input", U8, (1, 416, 416, 3))],
                          [("s", F32, (1, 52, 52, 36)), ("m", F32, (1, 26, 26, 36)), ("l", F32, (1, 13, 13, 36))],
                          ("--input_format=NHWC", "--soc_version=Ascend310"), scale=0.3),),
            pictures={"test_data/a.jpg": (800, 600)}, run=("--run-mode", "rc")),
    Program("yolov5-remote-sensing", "Hanawh/Atlas_200DK_yolov3_v5_python", "v5_object_detect.py",
            "YOLOv5 remote-sensing detection on a 320x640 focus-sliced input",
            cwd="",
            models=(Model("yolov5_0828.om", [("images", F32, (1, 12, 160, 320))],
                          [("o0", F32, (1, 36, 40, 80)), ("o1", F32, (1, 36, 20, 40)), ("o2", F32, (1, 36, 10, 20))],
                          ("--soc_version=Ascend310",), scale=0.3),), run=("--run-mode", "rc")),
    Program("cats-vs-dogs", "vitalwarley/atlas200dk-cats-vs-dogs", "hcia-v3/src/main.py",
            "cat/dog classifier: DVPP JPEG decode + resize, then the model (HCIA course)",
            models=(Model("../model/model.om", [("x", F32, (1, 256, 224, 3))], [("y", F32, (1, 2))],
                          ('--input_shape=x:1,256,224,3', "--input_format=NHWC", "--soc_version=Ascend310")),),
            run=("--run-mode", "rc")),
    Program("hdr", "xubuyuan18/ICT-AI", "code/HDR/main.py", "HDR image enhancement (ICT contest entry)",
            run=("--run-mode", "rc")),
    Program("dvpp-crop", "yinguobing/pyACL_standalone_samples", "crop.py",
            "DVPP VPC crop of an NV12 picture, standalone tutorial",
            files={"wood_rabbit_1024_1068_nv12.yuv": bytes(range(256)) * (1024 * 1608 // 256),
                   "atlas/__init__.py": b"", "atlas/common/__init__.py": b""},
            links={"atlas/common/atlas_utils": "HITSZ-NRSL+yolox_for_cann_atlas200dk/atlas_utils"},
            env={"PYTHONPATH": "atlas/common"}),
    Program("transreid-compare", "zixfy/pyACL-inference", "test/onnx_compare.py",
            "TransReID on 2 NPUs in parallel (ACLNetHandler) against ONNX Runtime",
            cwd="", models=(Model("/root/disk/zzx/huawei-npu/transreid_bs16_highprecision.om",
                                  [("x", F32, (16, 3, 256, 128))], [("feat", F32, (16, 129, 768))],
                                  ("--soc_version=Ascend310",)),),
            links={"/root/disk/torch_program/model/pth2om/transreid_bs16.onnx":
                   "/root/disk/zzx/huawei-npu/transreid_bs16_highprecision.stand_in.onnx"},
            env={"ACLSIM_DEVICES": "2", "PYTHONPATH": "."}),
]


# pyasc kernels with torch from repositories other than pyasc's own (run as scripts with their defaults)
SKILLS, SKILLS_ASC2 = "aloschilov/pyasc-skill-stack", "compiler-team-ru/pyasc-skill-stack"
PYASC: list[Program] = [
    *(Program(f"pyasc-{Path(f).stem}", SKILLS, f"golden/{f}", "pyasc kernel checked against torch", cwd="",
              timeout=600)
      for f in ("kernels/abs_f16.py", "kernels/gelu_f16.py", "kernels/gelu_f32.py", "kernels/leaky_relu_f16.py",
                "kernels/matmul_f16.py", "kernels/reduce_sum_f16.py", "kernels/reduce_sum_f32.py",
                "kernels/rms_norm_f16.py", "kernels/rms_norm_f32.py", "kernels/softmax_f16.py",
                "archive/mul_f16.py", "archive/sub_f16.py", "tutorials/01_add.py", "tutorials/02_add_framework.py",
                "tutorials/03_matmul_mix.py", "tutorials/04_matmul_cube_only.py", "tutorials/05_matmul_leakyrelu.py")),
    Program("pyasc-add-team", SKILLS, "teams/pyasc-kernel-dev-team/kernels/add/kernel.py",
            "pyasc add kernel of the agent team", cwd="", timeout=600),
    *(Program(f"asc2-{Path(f).stem}", SKILLS_ASC2, f"golden/{f}", "asc2 (tile language) kernel against torch",
              cwd="", timeout=600)
      for f in ("kernels/abs_f32.py", "kernels/layer_norm_v4_f32.py", "tutorials/01_add.py")),
]

LEAK = ("--check: ACLLite's execute copies each input to a fresh device buffer it never frees "
        "(acllite_utils.copy_data_host_to_device), a real leak of the layer")
CAUSES: dict[str, str] = {
    **dict.fromkeys(("yolov5-pytorch", "yolov4-pytorch", "yolov7-pytorch", "deeplabv3plus-pytorch", "craft-pytorch",
                     "deeptextrecognition-pytorch", "insightfacedetec-pytorch", "deepface-tensorflow",
                     "yolov3-tensorflow", "yolov3-caffe", "yolov5-mindspore"), LEAK),
    "dvpp_yolov3-caffe": "program's own: its AclLiteImage made from a file never reads the JPEG's width and height, "
                         "so JPEGD gets a 0-byte output buffer (dvpp_malloc(0) is 100000, as in CANN)",
    "vdec-data_process": "not emulated: VDEC (each acl.media.vdec_* call warns at its line); the sample also calls "
                         "PyAV's removed Packet.to_bytes()",
    "ocr-notebook": "needs the real CRAFT model: the random stand-in finds no text box and the program then runs "
                    "the recognizer down the detector's path (its reshape fails)",
    "yolov5-remote-sensing": "program's own: np.float (removed in NumPy 1.24)",
    "cats-vs-dogs": "needs the Atlas 200 DK's libatlasutil.so (a prebuilt camera/presenter library atlas_utils "
                    "loads at import; not in the repository)",
    "hdr": "program's own: imports acllite_module and utils, which the repository does not have",
    "dvpp-crop": "needs a display: stops at cv2.imshow, before its DVPP part",
}


# ----------------------------------------------------------------------------------------------------------

def _random_onnx(m: Model, seed: int):
    """Outputs uniform in [0, scale) that depend on the first input (so the model reads it)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    types = {F32: TensorProto.FLOAT, U8: TensorProto.UINT8, I32: TensorProto.INT32}
    x0 = m.inputs[0][0]
    nodes = [helper.make_node("Cast", [x0], ["x0f"], to=TensorProto.FLOAT),
             helper.make_node("ReduceMean", ["x0f"], ["mean"], keepdims=0),
             helper.make_node("Mul", ["mean", "zero"], ["dep"])]
    inits = [numpy_helper.from_array(np.zeros((), np.float32), "zero")]
    for i, (name, dt, shape) in enumerate(m.outputs):
        value = (rng.random(shape) * m.scale).astype(np.float32)
        if m.blob:
            value = np.zeros(shape, np.float32)
            value[..., shape[1] // 4: shape[1] // 3, shape[2] // 4: shape[2] // 2, :] = 0.95
        inits.append(numpy_helper.from_array(value, f"c{i}"))
        nodes.append(helper.make_node("Add", [f"c{i}", "dep"], [f"a{i}"]))
        nodes.append(helper.make_node("Cast", [f"a{i}"], [name], name=name, to=types[dt]))
    outs = [helper.make_tensor_value_info(n, types[d], list(s)) for n, d, s in m.outputs]
    g = helper.make_graph(nodes, "real_program_stand_in",
                          [helper.make_tensor_value_info(n, types[d], list(s)) for n, d, s in m.inputs], outs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def _aclsim() -> list[str]:
    return [sys.executable, "-m", "aclsim"]


def build_model(m: Model, run_dir: Path, repo_dir: Path, seed: int) -> str | None:
    """Write the .om the program opens; returns an error line or None."""
    import onnx

    om = run_dir / m.om
    om.parent.mkdir(parents=True, exist_ok=True)
    src = repo_dir / m.onnx if m.onnx else om.with_suffix(".stand_in.onnx")
    if not m.onnx:
        onnx.save(_random_onnx(m, seed), str(src))
    cmd = [*_aclsim(), "atc", f"--model={src}", "--framework=5", f"--output={om.with_suffix('')}"]
    flags = list(m.atc) or []
    if not any(f.startswith("--soc_version") for f in flags):
        flags.append("--soc_version=Ascend310")
    p = subprocess.run(cmd + flags, cwd=run_dir, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return "atc: " + _last_error(p.stdout + p.stderr)
    return None


def notebook_script(nb: Path) -> Path:
    """The notebook's code cells in order as one script beside it (IPython's `!`/`%` lines left out)."""
    cells = json.loads(nb.read_text())["cells"]
    lines: list[str] = []
    for c in cells:
        if c.get("cell_type") != "code":
            continue
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        lines += [ln for ln in src.splitlines() if not ln.lstrip().startswith(("!", "%"))]
        lines.append("")
    out = nb.with_name(nb.stem + "_nb.py")
    out.write_text("\n".join(lines))
    return out


def _last_error(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^[A-Za-z_.]*(Error|Exception|Fault)\b", ln) or "ERROR" in ln or "error" in ln.lower():
            return ln[:200]
    return (lines[-1] if lines else "")[:200]


def _h264(w: int, h: int, frames: int) -> bytes:
    """A short H.264 elementary stream (PyAV, which the VDEC sample itself imports)."""
    import io

    import av

    buf = io.BytesIO()
    with av.open(buf, "w", format="h264") as out:
        s = out.add_stream("libx264", rate=25)
        s.width, s.height, s.pix_fmt = w, h, "yuv420p"
        for i in range(frames):
            frame = av.VideoFrame.from_ndarray(np.full((h, w, 3), 40 * i, np.uint8), format="rgb24")
            out.mux(s.encode(frame))
        out.mux(s.encode())
    return buf.getvalue()


def _picture(path: Path, size: tuple[int, int], seed: int) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    w, h = size
    Image.fromarray(np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)).save(path)


def prepare(p: Program, checkouts: Path, scratch: Path) -> tuple[Path, Path, str | None]:
    repo_dir = checkouts / p.repo.replace("/", "+")
    if not repo_dir.is_dir():
        return repo_dir, repo_dir, f"no checkout at {repo_dir}"
    work = scratch / p.key / "repo"
    if work.parent.exists():
        shutil.rmtree(work.parent)
    shutil.copytree(repo_dir, work, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    run_dir = work / (p.cwd if p.cwd is not None else str(Path(p.entry).parent))
    for rel, size in p.pictures.items():
        _picture(run_dir / rel, size, seed=len(rel))
    for rel, data in p.files.items():
        (run_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / rel).write_bytes(data() if callable(data) else data)
    for i, m in enumerate(p.models):
        err = build_model(m, run_dir, work, seed=i)
        if err:
            return work, run_dir, err
    for rel, target in p.links.items():
        link = run_dir / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target if target.startswith("/") else checkouts / target)
    return work, run_dir, None


def cleanup(p: Program) -> None:
    """Remove what the run made outside its scratch folder (absolute paths a program hard-codes)."""
    for path in [*(m.om for m in p.models), *p.links]:
        if path.startswith("/"):
            for f in Path(path).parent.glob(Path(path).stem + "*"):
                f.unlink()


def run_one(p: Program, work: Path, run_dir: Path, check: bool) -> tuple[str, str]:
    entry = work / p.entry
    script = notebook_script(entry) if entry.suffix == ".ipynb" else entry
    cmd = [*_aclsim(), "run", *p.run, *(["--check", "all"] if check else []), str(script), *p.args]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", **p.env}
    try:
        r = subprocess.run(cmd, cwd=run_dir, capture_output=True, text=True, timeout=p.timeout, env=env,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout", f"no end within {p.timeout} s"
    findings = re.search(r"ERROR SUMMARY: (\d+) error", r.stderr)
    if r.returncode == 0:
        if check and findings and findings.group(1) != "0":
            return "runs, findings", f"{findings.group(1)} sanitizer errors: " + _first_finding(r.stderr)
        return "runs", ""
    return f"fails ({r.returncode})", _last_error(r.stderr or r.stdout)


def _first_finding(stderr: str) -> str:
    """The first finding's headline (the line after the sanitizer's banner)."""
    lines = stderr.splitlines()
    for k, ln in enumerate(lines):
        if "ACLSIM CHECK" in ln and k + 1 < len(lines):
            return lines[k + 1].replace("=========", "").strip()[:160]
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", type=Path, help="folder of fetched repositories, one per owner+name")
    ap.add_argument("--only", default="", help="comma-separated keys")
    ap.add_argument("--no-check", action="store_true", help="skip the --check all run")
    ap.add_argument("--keep", type=Path, help="scratch folder to keep (default: a temporary one)")
    ap.add_argument("--verbose", action="store_true", help="print each program's output tail")
    a = ap.parse_args()
    only = {k for k in a.only.split(",") if k}
    scratch = a.keep or Path(tempfile.mkdtemp(prefix="aclsim-real-"))
    rows = []
    for p in PROGRAMS + PYASC:
        if only and p.key not in only:
            continue
        work, run_dir, err = prepare(p, a.checkouts.resolve(), scratch)
        if err:
            res, why, cres, cwhy = "not run", err, "", ""
        else:
            res, why = run_one(p, work, run_dir, check=False)
            cres, cwhy = ("", "") if a.no_check else run_one(p, work, run_dir, check=True)
        cleanup(p)
        rows.append((p, res, why, cres, cwhy))
        print(f"{p.key:32} {res:16} {cres:16} {why or cwhy}", file=sys.stderr, flush=True)
    print("| program | repository / path | what it does | aclsim run | --check all | note |")
    print("|---|---|---|---|---|---|")
    for p, res, why, cres, cwhy in rows:
        note = CAUSES.get(p.key) or why or cwhy
        print(f"| {p.key} | {p.repo} `{p.entry}` | {p.what} | {res} | {cres} | {note} |")
    ok = sum(r[1] == "runs" for r in rows)
    print(f"\n{ok} of {len(rows)} run")
    if not a.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
