"""`aclsim atc`: ATC's command line, writing aclsim's model container instead of an NPU binary."""

from __future__ import annotations

import argparse
import os
import sys

DESCRIPTION = """\
Convert an ONNX model as Huawei's ATC does, with ATC's flags, into an .om that acl.mdl.load_from_file
loads under aclsim (aclsim's own container: the ONNX model plus the shapes, gears, output types and
AIPP that ATC fixes). The model is checked and run once per gear with ONNX Runtime, so a model that
would fail at execute time fails here. A real ATC-built .om is an NPU binary aclsim cannot run.
Needs the models extra: pip install 'aclsim[models]'.
"""

EPILOG = """\
examples:
  aclsim atc --model=resnet50.onnx --framework=5 --output=resnet50 --soc_version=Ascend310P3
  aclsim atc --model=m.onnx --framework=5 --output=m_dyn --soc_version=Ascend910B1 \\
             --input_shape="data:-1,3,224,224" --dynamic_batch_size="1,2,4,8"
  aclsim atc --model=m.onnx --framework=5 --output=m_aipp --soc_version=Ascend310P3 \\
             --insert_op_conf=aipp.cfg --output_type=FP32
  aclsim atc --singleop=ops.json --output=op_models --soc_version=Ascend910B1
"""


# ATC's --precision_mode values (ATC command reference, "--precision_mode")
PRECISION_MODES = ("force_fp32", "force_fp16", "cube_fp16in_fp32out", "allow_mix_precision", "allow_fp32_to_fp16",
                   "must_keep_origin_dtype", "allow_mix_precision_fp16", "allow_mix_precision_bf16",
                   "allow_fp32_to_bf16", "force_lowerprecision")
# ATC flags that choose kernels, fusion, memory reuse or logging: accepted with any value
TUNING_FLAGS = ("--enable_small_channel", "--op_select_implmode", "--optypelist_for_implmode", "--fusion_switch_file",
                "--buffer_optimize", "--op_precision_mode", "--modify_mixlist", "--keep_dtype", "--check_report",
                "--disable_reuse_memory", "--auto_tune_mode", "--op_debug_level", "--host_env_os", "--host_env_cpu",
                "--precision_mode_v2", "--allow_hf32", "--virtual_type", "--compression_optimize_conf",
                "--sparsity", "--customize_dtypes", "--dump_mode", "--status_check", "--enable_compress_weight")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("atc", help="convert an ONNX model to an aclsim .om (ATC's flags)", description=DESCRIPTION,
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="the ONNX model file")
    p.add_argument("--framework", type=int, help="source framework: 5 = ONNX (the only one aclsim converts)")
    p.add_argument("--output", help="output path without .om (or the directory, with --singleop)")
    p.add_argument("--soc_version", help="target chip, e.g. Ascend310P3 or Ascend910B1 (recorded)")
    p.add_argument("--input_shape", default="", help='"name:n,c,h,w;name2:..." (-1 for dynamic dims)')
    p.add_argument("--input_format", default="NCHW", help="NCHW (default), NHWC or ND")
    p.add_argument("--output_type", default="", help='FP32, FP16, UINT8, ... or "node:index:FP16;..."')
    p.add_argument("--input_fp16_nodes", default="", help='"name1;name2": inputs the application feeds as float16')
    p.add_argument("--insert_op_conf", help="static AIPP configuration file (aipp_op { ... })")
    p.add_argument("--dynamic_batch_size", default="", help='batch gears, e.g. "1,2,4,8"')
    p.add_argument("--dynamic_image_size", default="", help='image size gears, e.g. "224,224;448,448"')
    p.add_argument("--dynamic_dims", default="",
                   help='ND gears: the values of all -1 dims per gear, e.g. "1,16;4,32" (with --input_format=ND)')
    p.add_argument("--out_nodes", default="",
                   help='"node:index;node2:index": those node outputs become the model\'s outputs, in that order')
    tuning = p.add_argument_group(
        "accepted for ATC command lines, no effect here",
        "how the NPU computes or how ATC tunes, not what the model's inputs and outputs are; aclsim runs the "
        "graph with ONNX Runtime in the model's own data types. Also accepted with any value: "
        + ", ".join(TUNING_FLAGS))
    tuning.add_argument("--precision_mode", choices=PRECISION_MODES, help="operator precision on the NPU")
    for flag in TUNING_FLAGS:
        tuning.add_argument(flag, help=argparse.SUPPRESS)
    p.add_argument("--singleop", help="single-operator description JSON: writes one model per operator to --output")
    p.add_argument("--log", default="null", choices=["debug", "info", "warning", "error", "null"],
                   help="log level (aclsim prints a summary at info and debug)")
    p.set_defaults(func=run)


def _fail(msg: str) -> int:
    print(f"ATC run failed: {msg}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    from ..models.graph import MissingDependency

    try:
        return _singleop(args) if args.singleop else _model(args)
    except MissingDependency as e:
        return _fail(str(e))
    except ValueError as e:  # BuildError, AippError, bad JSON
        return _fail(str(e))


def _model(args: argparse.Namespace) -> int:
    from ..models import aipp, om
    from ..models.build import Options, build, parse_gears, parse_input_shape

    if not args.model or not args.output:
        return _fail("--model and --output are required (see aclsim atc --help)")
    if args.framework != 5:
        return _fail(f"--framework={args.framework}: aclsim converts ONNX models only (--framework=5); export the "
                     "model to ONNX first (torch.onnx.export, tf2onnx, paddle2onnx, ...)")
    if not args.soc_version:
        return _fail("--soc_version is required, as with ATC (e.g. --soc_version=Ascend310P3)")
    try:
        with open(args.model, "rb") as f:
            data = f.read()
    except OSError as e:
        return _fail(f"cannot read --model {args.model}: {e.strerror}")
    if data.startswith(om.REAL_OM_MAGIC) or data.startswith(om.MAGIC):
        return _fail(f"{args.model} is already an .om model; give the ONNX model it came from")
    if not om.is_onnx(data):
        return _fail(f"{args.model} is not an ONNX model")
    cfgs = []
    if args.insert_op_conf:
        try:
            with open(args.insert_op_conf) as f:
                cfgs = aipp.parse(f.read())
        except OSError as e:
            return _fail(f"cannot read --insert_op_conf {args.insert_op_conf}: {e.strerror}")
    opts = Options(
        input_shape=parse_input_shape(args.input_shape),
        input_format=args.input_format,
        input_fp16_nodes=[n for n in args.input_fp16_nodes.split(";") if n],
        output_type=args.output_type,
        aipp=cfgs,
        dynamic_batch=parse_gears(args.dynamic_batch_size, False) if args.dynamic_batch_size else [],
        dynamic_hw=parse_gears(args.dynamic_image_size, True) if args.dynamic_image_size else [],
        dynamic_dims=parse_gears(args.dynamic_dims, False, dims=True) if args.dynamic_dims else [],
        out_nodes=[n.strip() for n in args.out_nodes.split(";") if n.strip()],
        soc_version=args.soc_version,
    )
    model = build(data, opts)
    out = args.output if args.output.endswith(".om") else args.output + ".om"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "wb") as f:
        f.write(om.dump(model))
    if args.log in ("info", "debug"):
        for kind, ts in (("input", model.inputs), ("output", model.outputs)):
            for t in ts:
                print(f"  {kind} {t.name}: dims {t.dims} data type {t.dtype} format {t.format} size {t.size}")
    print("ATC run success, welcome to the next use.")
    return 0


def _singleop(args: argparse.Namespace) -> int:
    from ..models.ops import require_runtime
    from ..models.singleop import write_models

    require_runtime()  # the models it writes run on ONNX Runtime: say so now rather than at execute
    if not args.output:
        return _fail("--singleop needs --output=DIR")
    try:
        with open(args.singleop) as f:
            text = f.read()
    except OSError as e:
        return _fail(f"cannot read --singleop {args.singleop}: {e.strerror}")
    for path in write_models(text, args.output):
        if args.log in ("info", "debug"):
            print(f"  wrote {path}")
    print("ATC run success, welcome to the next use.")
    return 0
