"""What `aclsim atc` does: check an ONNX model, fix its shapes and record what ATC records.

ATC semantics followed (ATC command reference): `--input_shape "name:d0,d1,...;name2:..."` fixes input
shapes, with -1 at the batch dim for `--dynamic_batch_size "1,2,4"` or at H and W for
`--dynamic_image_size "224,224;448,448"` (a dynamic model gets the extra input `ascend_mbatch_shape_data`,
written by acl.mdl.set_dynamic_batch_size / set_dynamic_hw_size); `--input_format` (NCHW default);
`--input_fp16_nodes "a;b"` makes those inputs float16; `--output_type FP16` or `"node:index:FP16;..."`;
`--insert_op_conf` static or dynamic AIPP; `--dynamic_dims "1,2;4,8"` with `--input_format=ND`: each gear gives the
values of all -1 dims of `--input_shape`, in input order; `--out_nodes "node:index;..."` makes those node
outputs the model's outputs, in that order, named as ATC names them ("node:index"; a bare name is a tensor).
Output dims and sizes are those of the largest gear.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import aipp as A
from . import types as T
from .graph import Session, require
from .om import DYNAMIC_TENSOR_NAME, OmModel, TensorInfo


class BuildError(ValueError):
    """The model or the options are invalid (the message names what and why)."""


@dataclass
class Options:
    input_shape: dict[str, list[int]] = field(default_factory=dict)
    input_format: str = "NCHW"
    input_fp16_nodes: list[str] = field(default_factory=list)
    output_type: str = ""
    aipp: list[dict[str, Any]] = field(default_factory=list)
    dynamic_batch: list[int] = field(default_factory=list)
    dynamic_hw: list[list[int]] = field(default_factory=list)
    dynamic_dims: list[list[int]] = field(default_factory=list)
    out_nodes: list[str] = field(default_factory=list)
    soc_version: str = ""


def parse_input_shape(text: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for part in filter(None, text.split(";")):
        name, sep, dims = part.rpartition(":")
        if not sep or not name:
            raise BuildError(f"--input_shape entry {part!r}: expected name:d0,d1,...")
        try:
            out[name] = [int(d) for d in dims.split(",")] if dims else []
        except ValueError:
            raise BuildError(f"--input_shape entry {part!r}: dims must be integers (-1 for a dynamic dim)")
    return out


def parse_gears(text: str, hw: bool, dims: bool = False) -> list[Any]:
    """Gears of --dynamic_batch_size ("1,2,4"), --dynamic_image_size ("h,w;h,w") or --dynamic_dims ("a,b;c,d")."""
    grouped = hw or dims
    try:
        if grouped:
            gears = [[int(v) for v in g.split(",")] for g in filter(None, text.split(";"))]
            if (hw and any(len(g) != 2 for g in gears)) or len({len(g) for g in gears}) > 1:
                raise ValueError
        else:
            gears = [int(v) for v in text.split(",") if v]
    except ValueError:
        want = "'h,w;h,w'" if hw else "'d0,d1;d0,d1' (as many values per gear)" if dims else "'1,2,4'"
        raise BuildError(f"dynamic gears {text!r}: expected {want}")
    flat = [v for g in gears for v in (g if grouped else [g])]
    if not 2 <= len(gears) <= 100 or any(v <= 0 for v in flat):  # ATC: 2..100 positive gears
        raise BuildError(f"dynamic gears {text!r}: give 2 to 100 positive gears")
    return gears


def _hw_axes(fmt: str) -> tuple[int, int]:
    return (1, 2) if fmt == "NHWC" else (2, 3)


def build(onnx_bytes: bytes, opts: Options) -> OmModel:
    """An aclsim model from ONNX bytes; BuildError when ATC would refuse the model or the options."""
    onnx = require("onnx")
    require("onnx.numpy_helper")
    try:
        proto = onnx.load_from_string(onnx_bytes)
        onnx.checker.check_model(proto)
    except Exception as e:
        raise BuildError(f"the ONNX model is invalid: {e}")
    inits = {i.name for i in proto.graph.initializer}
    graph_inputs = [i for i in proto.graph.input if i.name not in inits]
    names = [i.name for i in graph_inputs]
    unknown = set(opts.input_shape) - set(names)
    if unknown:
        raise BuildError(f"--input_shape names {sorted(unknown)}, but the model's inputs are {names}")
    if sum(map(bool, (opts.dynamic_batch, opts.dynamic_hw, opts.dynamic_dims))) > 1:
        raise BuildError("--dynamic_batch_size, --dynamic_image_size and --dynamic_dims exclude each other")
    if opts.dynamic_dims and opts.input_format != "ND":
        raise BuildError(f"--dynamic_dims needs --input_format=ND (got {opts.input_format}), as with ATC")
    if opts.out_nodes:
        _select_outputs(proto, opts.out_nodes)
    if len(opts.aipp) > len(names):
        raise BuildError(f"{len(opts.aipp)} aipp_op blocks for a model with {len(names)} inputs")

    fmt_code = T.FORMATS.get(opts.input_format)
    if fmt_code is None:
        raise BuildError(f"--input_format {opts.input_format}: use one of NCHW, NHWC, ND")
    shapes: dict[str, list[int]] = {}
    dtypes: dict[str, int] = {}
    for vi in graph_inputs:
        tt = vi.type.tensor_type
        dtypes[vi.name] = T.ONNX_TO_ACL.get(tt.elem_type, T.ACL_DT_UNDEFINED)
        if vi.name in opts.input_shape:
            dims = opts.input_shape[vi.name]
            if len(dims) != len(tt.shape.dim):
                raise BuildError(f"--input_shape {vi.name}: {len(dims)} dims, the model input has {len(tt.shape.dim)}")
        else:
            dims = [d.dim_value if d.HasField("dim_value") else 0 for d in tt.shape.dim]
            if any(d <= 0 for d in dims):
                raise BuildError(f"input {vi.name} has symbolic dims {_dim_text(tt)}; fix them with "
                                 f"--input_shape \"{vi.name}:...\" (-1 for a dynamic batch or image size)")
        shapes[vi.name] = dims

    gears = _gears(opts, shapes)
    for vi in graph_inputs:  # make the ONNX inputs exactly what ATC fixed (-1 stays symbolic)
        for k, d in enumerate(shapes[vi.name]):
            dim = vi.type.tensor_type.shape.dim[k]
            if d == -1:
                dim.dim_param = f"aclsim_dyn_{k}"
            else:
                dim.dim_value = d
    onnx_fixed = proto.SerializeToString()
    try:
        sess = Session(onnx_fixed)
    except Exception as e:
        raise BuildError(f"ONNX Runtime cannot load the model: {e}")

    inputs = []
    for idx, name in enumerate(names):
        inputs.append(_input_info(name, shapes[name], dtypes[name], fmt_code, opts, idx, gears))
    outs = _run_gears(sess, names, shapes, dtypes, gears, opts)
    outputs = []
    out_types = _output_types(opts.output_type, sess.output_names)
    for k, (oname, arr) in enumerate(zip(sess.output_names, outs, strict=True)):
        gdt = T.acl_type_of(arr.dtype)
        dt = out_types.get(k, gdt)
        outputs.append(TensorInfo(oname, list(arr.shape), dt, T.ACL_FORMAT_NCHW if arr.ndim == 4 else T.ACL_FORMAT_ND,
                                  int(arr.size) * T.SIZES[dt], graph_dtype=gdt))
    dynamic_aipp = [t for t in inputs if t.aipp and t.aipp.get("aipp_mode") == "dynamic"]
    if dynamic_aipp:
        if gears:
            raise BuildError("dynamic AIPP together with dynamic batch / image size / dims is not emulated")
        n = max(t.dims[0] for t in dynamic_aipp) * len(A.FIELDS)
        inputs.append(TensorInfo(A.DYNAMIC_TENSOR, [n], T.ACL_DOUBLE, T.ACL_FORMAT_ND, 8 * n, T.ACL_DOUBLE))
    if gears:
        n = 1 if opts.dynamic_batch else 2 if opts.dynamic_hw else len(opts.dynamic_dims[0])
        inputs.append(TensorInfo(DYNAMIC_TENSOR_NAME, [n], T.ACL_UINT64, T.ACL_FORMAT_ND, 8 * n, T.ACL_UINT64))
    weight = sum(onnx.numpy_helper.to_array(i).nbytes for i in proto.graph.initializer)
    return OmModel(onnx_fixed, inputs, outputs, opts.dynamic_batch, opts.dynamic_hw, opts.soc_version, weight,
                   opts.dynamic_dims)


def _select_outputs(proto: Any, out_nodes: list[str]) -> None:
    """--out_nodes: the graph's outputs become the named node outputs ("node:index") or tensors (a bare name),
    in the order given; each is exposed under the name ATC reports for it (the text given)."""
    onnx = require("onnx")
    nodes = {n.name: n for n in proto.graph.node if n.name}
    tensors = {o for n in proto.graph.node for o in n.output} | {i.name for i in proto.graph.input}
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
    except Exception as e:
        raise BuildError(f"--out_nodes: the model's tensor types cannot be inferred: {e}")
    types = {v.name: v.type for v in (*inferred.graph.value_info, *inferred.graph.output, *inferred.graph.input)}
    outputs = []
    for spec in out_nodes:
        node, sep, index = spec.rpartition(":")
        if sep and index.isdigit():
            if node not in nodes:
                raise BuildError(f"--out_nodes {spec!r}: the model has no node named {node!r} "
                                 f"(nodes: {sorted(nodes)[:12]}{' ...' if len(nodes) > 12 else ''})")
            outs = nodes[node].output
            if int(index) >= len(outs):
                raise BuildError(f"--out_nodes {spec!r}: node {node!r} has {len(outs)} outputs")
            tensor = outs[int(index)]
        elif spec in tensors:
            tensor = spec
        else:
            raise BuildError(f"--out_nodes {spec!r}: expected node_name:index (or a tensor name of the model)")
        if tensor not in types:
            raise BuildError(f"--out_nodes {spec!r}: the type of tensor {tensor!r} cannot be inferred")
        if spec != tensor:
            proto.graph.node.append(onnx.helper.make_node("Identity", [tensor], [spec]))
        vi = onnx.ValueInfoProto(name=spec)
        vi.type.CopyFrom(types[tensor])
        outputs.append(vi)
    del proto.graph.output[:]
    proto.graph.output.extend(outputs)


def _dim_text(tt: Any) -> str:
    return "[" + ", ".join(d.dim_param or str(d.dim_value) for d in tt.shape.dim) + "]"


def _gears(opts: Options, shapes: dict[str, list[int]]) -> list[dict[str, list[int]]]:
    """Concrete input shapes for each gear ([] for a static model)."""
    dyn = {n: s for n, s in shapes.items() if -1 in s}
    if not (opts.dynamic_batch or opts.dynamic_hw or opts.dynamic_dims):
        if dyn:
            raise BuildError(f"inputs {sorted(dyn)} have -1 dims but no --dynamic_batch_size / --dynamic_image_size "
                             "/ --dynamic_dims")
        return []
    if not dyn:
        raise BuildError("dynamic gears given, but no --input_shape dim is -1")
    if opts.dynamic_dims:
        return _dims_gears(opts.dynamic_dims, shapes)
    hw_axes = _hw_axes(opts.input_format)
    gears = []
    for g in opts.dynamic_batch or opts.dynamic_hw:
        cur = {}
        for n, s in shapes.items():
            s = list(s)
            if opts.dynamic_batch:
                if -1 in s[1:]:
                    raise BuildError(f"--dynamic_batch_size: input {n} may have -1 only at the batch dim, got {s}")
                if s and s[0] == -1:
                    s[0] = g
            elif -1 in s:
                if len(s) != 4 or [k for k, d in enumerate(s) if d == -1] != list(hw_axes):
                    raise BuildError(f"--dynamic_image_size: input {n} must be 4-D with -1 at H and W "
                                     f"({opts.input_format}), got {s}")
                s[hw_axes[0]], s[hw_axes[1]] = g
            cur[n] = s
        gears.append(cur)
    return gears


def _dims_gears(gears: list[list[int]], shapes: dict[str, list[int]]) -> list[dict[str, list[int]]]:
    """--dynamic_dims: each gear's values fill the -1 dims of all inputs, in input order."""
    count = sum(s.count(-1) for s in shapes.values())
    if len(gears[0]) != count:
        raise BuildError(f"--dynamic_dims gears have {len(gears[0])} values, but --input_shape has {count} -1 dims")
    out = []
    for g in gears:
        values = iter(g)
        out.append({n: [next(values) if d == -1 else d for d in s] for n, s in shapes.items()})
    return out


def _input_info(name: str, dims: list[int], dtype: int, fmt: int, opts: Options, idx: int,
                gears: list[dict[str, list[int]]]) -> TensorInfo:
    fmt = fmt if len(dims) == 4 else T.ACL_FORMAT_ND
    cfg = next((c for k, c in enumerate(opts.aipp) if c.get("related_input_rank", k) == idx), None)
    if cfg is not None:
        if len(dims) != 4 or -1 in dims:
            raise BuildError(f"AIPP on input {name}: needs a static 4-D input, got {dims}")
        mh, mw = (dims[1], dims[2]) if opts.input_format == "NHWC" else (dims[2], dims[3])
        nhwc = {"aclsim_model_h": mh, "aclsim_model_w": mw, "aclsim_nhwc": opts.input_format == "NHWC"}
        if cfg.get("aipp_mode") == "dynamic":  # the source image is set at run time: up to max_src_image_size bytes
            c = dims[3] if opts.input_format == "NHWC" else dims[1]
            return TensorInfo(name, [dims[0], mh, mw, c], T.ACL_UINT8, T.ACL_FORMAT_NHWC, cfg["max_src_image_size"],
                              dtype, {**cfg, **nhwc})
        try:
            A.check(cfg, mh, mw)
        except A.AippError as e:
            raise BuildError(f"AIPP on input {name}: {e}")
        h, w = A.source_hw(cfg, mh, mw)
        cfg = {**cfg, **nhwc}
        return TensorInfo(name, [dims[0], h, w, A.FORMATS[cfg["input_format"]][2]], T.ACL_UINT8, T.ACL_FORMAT_NHWC,
                          dims[0] * A.image_size(cfg, h, w), dtype, cfg)
    shown = T.ACL_FLOAT16 if name in opts.input_fp16_nodes else dtype
    biggest = max((int(np.prod(g[name])) for g in gears), default=int(np.prod(dims)))
    return TensorInfo(name, dims, shown, fmt, biggest * T.SIZES[shown], dtype)


def _run_gears(sess: Session, names: list[str], shapes: dict[str, list[int]], dtypes: dict[str, int],
               gears: list[dict[str, list[int]]], opts: Options) -> list[np.ndarray]:
    """Run every gear on zeros; per output keep the largest result (its dims and size are what ATC reports)."""
    best: list[np.ndarray] | None = None
    for g in gears or [shapes]:
        try:
            outs = sess.run({n: np.zeros(g[n], T.numpy_dtype(dtypes[n])) for n in names})
        except Exception as e:
            raise BuildError(f"the model does not run with input shapes {g}: {e}")
        best = outs if best is None else [o if o.size > b.size else b for o, b in zip(outs, best, strict=True)]
    assert best is not None
    return best


def _output_types(text: str, output_names: list[str]) -> dict[int, int]:
    if not text:
        return {}
    if text.upper() in T.NAMES:
        return dict.fromkeys(range(len(output_names)), T.NAMES[text.upper()])
    out = {}
    for part in filter(None, text.split(";")):
        try:
            node, index, dt = part.rsplit(":", 2)
            k = output_names.index(node) if node in output_names else int(index)
            out[k] = T.NAMES[dt.upper()]
        except (ValueError, KeyError):
            raise BuildError(f"--output_type entry {part!r}: expected FP32/FP16/UINT8/... or node:index:TYPE")
    return out
