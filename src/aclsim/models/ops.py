"""Built-in CANN operators as small ONNX graphs, run with ONNX Runtime; one cached session per signature.

`run(op_type, inputs, attrs, out_dtypes)` computes an operator on numpy arrays. Operator names, input
order and attribute names follow the CANN built-in operator reference (e.g. `Add`, `MatMul` with
`transpose_x1`, `ReduceSumD` with `axes`/`keep_dims`, `Conv2D` with NCHW `strides`/`pads`/`dilations`).
Operators whose shape-like arguments are tensors (`Transpose`'s perm, `Slice`'s offsets/size,
`ReduceSum`'s axes, `ConcatV2`'s axis) read them from the input data, as the device does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import types as T
from .graph import Session, require
from .signatures import SIGNATURES, CallError, Tensor, check


class UnknownOperator(KeyError):
    """No emulation for this operator type."""


class OperatorError(ValueError):
    """The inputs or attributes do not fit the operator (the message says how)."""


Spec = tuple[list[Any], list[str], dict[str, np.ndarray]]  # (nodes, graph input names, constant initializers)

_UNARY = {"Abs": "Abs", "Neg": "Neg", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt", "Relu": "Relu",
          "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Reciprocal": "Reciprocal", "Floor": "Floor", "Ceil": "Ceil",
          "Sign": "Sign", "Erf": "Erf", "Sin": "Sin", "Cos": "Cos", "Softplus": "Softplus", "Gelu": "Gelu",
          "Round": "Round"}
_BINARY = {"Add": "Add", "AddV2": "Add", "Sub": "Sub", "Mul": "Mul", "Div": "Div", "RealDiv": "Div",
           "Maximum": "Max", "Minimum": "Min", "Pow": "Pow", "Equal": "Equal", "Less": "Less",
           "Greater": "Greater", "LogicalAnd": "And", "LogicalOr": "Or"}
_REDUCE = {"ReduceSum": "ReduceSum", "ReduceMean": "ReduceMean", "ReduceMax": "ReduceMax",
           "ReduceMin": "ReduceMin", "ReduceProd": "ReduceProd"}


def _h() -> Any:
    return require("onnx").helper


def _node(op: str, ins: list[str], outs: list[str], **attrs: Any) -> Any:
    return _h().make_node(op, ins, outs, **attrs)


def _ints(a: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(a).reshape(-1)]


def _unary(onnx_op: str) -> Callable[..., Spec]:
    return lambda xs, at: ([_node(onnx_op, ["x0"], ["y0"])], ["x0"], {})


def _binary(onnx_op: str) -> Callable[..., Spec]:
    return lambda xs, at: ([_node(onnx_op, ["x0", "x1"], ["y0"])], ["x0", "x1"], {})


def _softmax(onnx_op: str) -> Callable[..., Spec]:
    def spec(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
        axes = at.get("axes", [-1])
        if len(axes) != 1:
            raise OperatorError(f"axes {axes}: one axis is emulated")
        return [_node(onnx_op, ["x0"], ["y0"], axis=int(axes[0]))], ["x0"], {}
    return spec


def _leaky_relu(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
    return [_node("LeakyRelu", ["x0"], ["y0"], alpha=float(at.get("negative_slope", 0.0)))], ["x0"], {}


def _cast(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
    dst = at.get("dst_type")
    if dst not in T.ACL_TO_ONNX:
        raise OperatorError(f"dst_type {dst} is not a data type Cast supports")
    return [_node("Cast", ["x0"], ["y0"], to=T.ACL_TO_ONNX[dst])], ["x0"], {}


def _matmul(a_attr: str, b_attr: str) -> Callable[..., Spec]:
    def spec(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
        nodes, a, b = [], "x0", "x1"
        for flag, name in ((a_attr, "x0"), (b_attr, "x1")):
            if at.get(flag):
                rank = xs[0 if name == "x0" else 1].ndim
                perm = [*range(rank - 2), rank - 1, rank - 2]
                nodes.append(_node("Transpose", [name], [name + "t"], perm=perm))
                a, b = (name + "t", b) if name == "x0" else (a, name + "t")
        names = ["x0", "x1"]
        if len(xs) == 3:  # bias
            nodes += [_node("MatMul", [a, b], ["mm"]), _node("Add", ["mm", "x2"], ["y0"])]
            names.append("x2")
        else:
            nodes.append(_node("MatMul", [a, b], ["y0"]))
        return nodes, names, {}
    return spec


def _gemm(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
    """y = alpha * op(a) @ op(b) + beta * c (CANN's GEMM, the operator aclblasGemmEx runs), accumulated in float32
    for float16 a and b, exactly (in float64) for int8, then rounded to c's type."""
    acc = T.ACL_TO_ONNX[T.ACL_DOUBLE if xs[0].dtype == np.int8 else T.ACL_FLOAT]
    nodes = [_node("Cast", [f"x{k}"], [f"f{k}"], to=acc) for k in range(5)]
    a, b = "f0", "f1"
    for flag, name in (("transpose_a", "f0"), ("transpose_b", "f1")):
        if at.get(flag):
            nodes.append(_node("Transpose", [name], [name + "t"], perm=[1, 0]))
            a, b = (name + "t", b) if name == "f0" else (a, name + "t")
    nodes += [_node("MatMul", [a, b], ["ab"]), _node("Mul", ["ab", "f3"], ["s"]), _node("Mul", ["f2", "f4"], ["t"]),
              _node("Add", ["s", "t"], ["r"]),
              _node("Cast", ["r"], ["y0"], to=T.ACL_TO_ONNX[T.acl_type_of(xs[2].dtype)])]
    return nodes, [f"x{k}" for k in range(5)], {}


def _transpose(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
    if len(xs) == 1 and "perm" not in at:
        raise OperatorError("the attribute perm is required (a permutation of the input's dims)")
    perm = _ints(xs[1]) if len(xs) > 1 else list(at["perm"])
    if sorted(perm) != list(range(xs[0].ndim)):
        raise OperatorError(f"perm {perm} is not a permutation of {xs[0].ndim} dims")
    if not perm:  # a 0-d tensor: nothing to permute
        return [_node("Identity", ["x0"], ["y0"])], ["x0"], {}
    return [_node("Transpose", ["x0"], ["y0"], perm=perm)], ["x0"], {}


def _slice(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
    offsets = _ints(xs[1]) if len(xs) > 1 else list(at.get("offsets", []))
    size = _ints(xs[2]) if len(xs) > 2 else list(at.get("size", []))
    shape = xs[0].shape
    if len(offsets) != len(shape) or len(size) != len(shape):
        raise OperatorError(f"offsets {offsets} and size {size} need one value per dim of {list(shape)}")
    ends = [shape[k] if s == -1 else o + s for k, (o, s) in enumerate(zip(offsets, size, strict=True))]
    if any(o < 0 or e > d or o > e for o, e, d in zip(offsets, ends, shape, strict=True)):
        raise OperatorError(f"offsets {offsets} / size {size} go outside the input shape {list(shape)}")
    return _slice_nodes(offsets, ends, list(range(len(shape))), [1] * len(shape))


def _slice_nodes(starts: list[int], ends: list[int], axes: list[int], steps: list[int]) -> Spec:
    consts = {n: np.array(v, np.int64) for n, v in (("starts", starts), ("ends", ends), ("axes", axes),
                                                    ("steps", steps))}
    return [_node("Slice", ["x0", "starts", "ends", "axes", "steps"], ["y0"])], ["x0"], consts


def _strided_slice(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
    begin = _ints(xs[1]) if len(xs) > 1 else list(at.get("begin", []))
    end = _ints(xs[2]) if len(xs) > 2 else list(at.get("end", []))
    strides = _ints(xs[3]) if len(xs) > 3 else list(at.get("strides", [1] * len(begin)))
    masks = [m for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
             if at.get(m)]
    if masks:
        raise OperatorError(f"{', '.join(masks)} set: StridedSlice masks are not emulated")
    if not len(begin) == len(end) == len(strides) or 0 in strides:
        raise OperatorError(f"begin {begin}, end {end}, strides {strides}: same lengths, no zero stride")
    return _slice_nodes(begin, end, list(range(len(begin))), strides)


def _concat(xs: list[np.ndarray], at: dict[str, Any], axis_input: str | None) -> Spec:
    data = list(range(len(xs)))
    if axis_input == "first":
        axis, data = int(_ints(xs[0])[0]), data[1:]
    elif axis_input == "last":
        axis, data = int(_ints(xs[-1])[0]), data[:-1]
    else:
        axis = int(at.get("concat_dim", at.get("axis", 0)))
    names = [f"x{k}" for k in data]
    return [_node("Concat", names, ["y0"], axis=axis)], names, {}


def _reduce(onnx_op: str, axes_input: bool) -> Callable[..., Spec]:
    def spec(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
        axes = _ints(xs[1]) if axes_input else list(at.get("axes", []))
        keep = int(bool(at.get("keep_dims", False)))
        if not axes:  # CANN: empty axes reduces every dim
            axes = list(range(xs[0].ndim))
        return ([_node(onnx_op, ["x0", "axes"], ["y0"], keepdims=keep)], ["x0"],
                {"axes": np.array(axes, np.int64)})
    return spec


def _conv2d(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
    if at.get("data_format", "NCHW") != "NCHW":
        raise OperatorError(f"data_format {at['data_format']}: Conv2D is emulated for NCHW")
    strides, dil = list(at.get("strides", [1, 1, 1, 1])), list(at.get("dilations", [1, 1, 1, 1]))
    pads = list(at.get("pads", [0, 0, 0, 0]))  # top, bottom, left, right
    if len(strides) != 4 or len(pads) != 4 or len(dil) != 4:
        raise OperatorError("strides, pads and dilations each need 4 values (NCHW order; pads top,bottom,left,right)")
    names = ["x0", "x1"] + (["x2"] if len(xs) > 2 else [])
    node = _node("Conv", names, ["y0"], strides=strides[2:], dilations=dil[2:], group=int(at.get("groups", 1)),
                 pads=[pads[0], pads[2], pads[1], pads[3]])
    return [node], names, {}


def _arg(onnx_op: str, axis_input: bool) -> Callable[..., Spec]:
    """ArgMaxV2/ArgMinV2 (axis from input 1) and ArgMaxD/ArgMinD (attribute `dimension`); index type from the
    `dtype` attribute, int32 by default (CANN's built-in operator reference)."""
    def spec(xs: list[np.ndarray], at: dict[str, Any]) -> Spec:
        axis = _ints(xs[1])[0] if axis_input else int(at.get("dimension", 0))
        to = T.ACL_TO_ONNX.get(int(at.get("dtype", T.ACL_INT32)))
        if to is None:
            raise OperatorError(f"dtype {at['dtype']} is not an index type")
        return [_node(onnx_op, ["x0"], ["i"], axis=axis, keepdims=0), _node("Cast", ["i"], ["y0"], to=to)], ["x0"], {}
    return spec


_OPS: dict[str, Callable[[list[np.ndarray], dict[str, Any]], Spec]] = {
    **{k: _unary(v) for k, v in _UNARY.items()},
    **{k: _binary(v) for k, v in _BINARY.items()},
    "Softmax": _softmax("Softmax"), "SoftmaxV2": _softmax("Softmax"), "LogSoftmaxV2": _softmax("LogSoftmax"),
    "LeakyRelu": _leaky_relu, "Cast": _cast,
    "MatMul": _matmul("transpose_x1", "transpose_x2"), "MatMulV2": _matmul("transpose_x1", "transpose_x2"),
    "BatchMatMul": _matmul("adj_x1", "adj_x2"), "BatchMatMulV2": _matmul("adj_x1", "adj_x2"),
    "Transpose": _transpose, "TransposeD": _transpose,
    "Slice": _slice, "SliceD": _slice, "StridedSlice": _strided_slice, "StridedSliceD": _strided_slice,
    "ConcatD": lambda xs, at: _concat(xs, at, None), "ConcatV2D": lambda xs, at: _concat(xs, at, None),
    "Concat": lambda xs, at: _concat(xs, at, "first"), "ConcatV2": lambda xs, at: _concat(xs, at, "last"),
    **{k: _reduce(v, True) for k, v in _REDUCE.items()},
    **{k + "D": _reduce(v, False) for k, v in _REDUCE.items()},
    "Conv2D": _conv2d, "GEMM": _gemm,
    "ArgMaxV2": _arg("ArgMax", True), "ArgMaxD": _arg("ArgMax", False),
    "ArgMinV2": _arg("ArgMin", True), "ArgMinD": _arg("ArgMin", False),
}
# Inputs whose values shape the graph (they become part of the cache key, not graph inputs).
_VALUE_INPUTS = {"Transpose": (1,), "Slice": (1, 2), "StridedSlice": (1, 2, 3), "Concat": (0,), "ConcatV2": (-1,),
                 "ArgMaxV2": (1,), "ArgMinV2": (1,), **{k: (1,) for k in _REDUCE}}

SUPPORTED = tuple(sorted(_OPS))
assert set(SUPPORTED) == set(SIGNATURES), "every operator has its signature (models/signatures.py)"


@dataclass
class Compiled:
    """An operator's graph for one signature: its session, and output 0's type and shape as ONNX infers them."""

    session: Session
    shape: tuple[int | None, ...] | None


_cache: dict[tuple, Compiled] = {}
_lock = threading.Lock()


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, (list, tuple)) else v


def require_runtime() -> None:
    """Operators run as one-node ONNX graphs: MissingDependency (with the pip command) without onnx/onnxruntime."""
    require("onnx")
    require("onnxruntime")


def _compiled(op_type: str, xs: list[np.ndarray], attrs: dict[str, Any], out_dtypes: list[np.dtype]) -> Compiled:
    build = _OPS.get(op_type)
    if build is None:
        raise UnknownOperator(op_type)
    values = tuple(tuple(_ints(xs[k])) for k in _VALUE_INPUTS.get(op_type, ()) if -len(xs) <= k < len(xs))
    key = (op_type, tuple((x.dtype.str, x.shape) for x in xs), tuple(d.str for d in out_dtypes),
           tuple(sorted((k, _freeze(v)) for k, v in attrs.items())), values)
    with _lock:
        c = _cache.get(key)
    if c is None:
        c = _compile(op_type, build, xs, attrs, out_dtypes)
        with _lock:
            _cache[key] = c
    return c


def run(op_type: str, xs: list[np.ndarray], attrs: dict[str, Any], out_dtypes: list[np.dtype]) -> list[np.ndarray]:
    """Compute `op_type` on `xs`; UnknownOperator / OperatorError when it cannot."""
    sess = _compiled(op_type, xs, attrs, out_dtypes).session
    return sess.run({n: xs[int(n[1:])] for n in sess.input_names})


def check_call(op_type: str, inputs: list[Tensor], outputs: list[Tensor], attrs: dict[str, Any]) -> None:
    """Everything about a call that does not depend on the data, checked at the call: the signature (arity, data
    types), and for an operator whose graph does not depend on input values, the graph itself (attributes,
    shapes that do not combine) and the output shape it gives. CallError with the code otherwise."""
    check(op_type, inputs, outputs, attrs)
    if op_type in _VALUE_INPUTS:
        return  # its graph depends on the values of some inputs, which are known when the stream runs it
    xs = [np.lib.stride_tricks.as_strided(np.zeros(1, d), shape, [0] * len(shape)) for d, shape in inputs]
    try:
        shape = _compiled(op_type, xs, attrs, [d for d, _ in outputs]).shape
    except OperatorError as e:
        raise CallError(100021, str(e))
    d, dims = outputs[0]
    if shape is not None and None not in shape and not same_shape(shape, dims):
        raise CallError(100022, f"{op_type} produces output 0 as {d}{list(shape)}, but its description says "
                        f"{d}{list(dims)}")


def same_shape(a: Any, b: Any) -> bool:
    """Shapes that differ only in size-1 dims are the same bytes (the official vpc_resnet50 sample describes
    ArgMaxV2's scalar result as [1])."""
    return [x for x in a if x != 1] == [x for x in b if x != 1]


def _compile(op_type: str, build: Callable[..., Spec], xs: list[np.ndarray], attrs: dict[str, Any],
             out_dtypes: list[np.dtype]) -> Compiled:
    onnx = require("onnx")
    h, nh = onnx.helper, require("onnx.numpy_helper")
    what = (f"{op_type} cannot run on inputs {[f'{x.dtype}{list(x.shape)}' for x in xs]} with attributes "
            f"{attrs}")
    try:
        nodes, names, consts = build(xs, attrs)
        inputs = [h.make_tensor_value_info(n, T.ACL_TO_ONNX[T.acl_type_of(xs[int(n[1:])].dtype)],
                                           list(xs[int(n[1:])].shape)) for n in names]
        outputs = [h.make_tensor_value_info(f"y{k}", T.ACL_TO_ONNX[T.acl_type_of(d)], None)
                   for k, d in enumerate(out_dtypes[:1])]
        graph = h.make_graph(nodes, op_type, inputs, outputs, [nh.from_array(v, k) for k, v in consts.items()])
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 20)])
        model.ir_version = min(model.ir_version, 9)
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output[0].type.tensor_type
        session = Session(model.SerializeToString())
    except OperatorError:
        raise
    except (KeyError, ValueError, TypeError) as e:  # an attribute or type the graph cannot take
        raise OperatorError(f"{what}: {str(e).strip()[:300]}")
    except Exception as e:  # ONNX's shape inference or ONNX Runtime refusing the graph
        raise OperatorError(f"{what}: {str(e).strip()[:300]}")
    shape = (tuple(d.dim_value if d.HasField("dim_value") else None for d in inferred.shape.dim)
             if inferred.HasField("shape") else None)
    return Compiled(session, shape)
