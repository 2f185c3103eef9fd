"""What each built-in operator takes: its inputs by CANN's names, which are optional, and its data-type rules.

`check(op_type, inputs, outputs, attrs)` refuses a call that cannot fit before anything is queued, as
aclopCompileAndExecute / aclopExecuteV2 refuse it at the call: the wrong number of inputs or outputs, inputs
whose data types differ where the operator needs one type, an output whose type is not what the operator
produces. The codes are ACL_ERROR_OP_INPUT_NOT_MATCH (100021) and ACL_ERROR_OP_OUTPUT_NOT_MATCH (100022);
the message names the operator, the count it takes and the tensor by its CANN name. Input names and the
optional/dynamic inputs follow the CANN built-in operator reference (e.g. MatMul: x1, x2, optional bias;
ConcatV2: a dynamic list x then concat_dim).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import types as T

FLOATS = {np.dtype(t) for t in (np.float16, np.float32, np.float64)}
INDEX = {np.dtype(np.int32), np.dtype(np.int64)}
BOOL = np.dtype(np.bool_)

Tensor = tuple[np.dtype, tuple[int, ...]]  # (data type, dims) of a tensor description


class CallError(ValueError):
    """The call does not fit the operator; `code` is the ACL code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Signature:
    """An operator's inputs: `names` in order, a `dynamic` list (one or more tensors) at its place in them,
    `optional` names that may follow; `values` are inputs whose values shape the result (index types)."""

    names: tuple[str, ...]
    optional: tuple[str, ...] = ()
    dynamic: str | None = None
    rule: str = "same"  # same | float | compare | logical | cast | arg

    def arity(self) -> str:
        n = len(self.names) - (self.dynamic is not None)
        if self.dynamic is not None:
            return f"{n + 1} or more inputs ({', '.join(self.names)}; {self.dynamic} is a list of one or more)"
        if self.optional:
            return (f"{n} or {n + len(self.optional)} inputs ({', '.join(self.names)}, optional "
                    f"{', '.join(self.optional)})")
        return f"{n} input{'s' * (n != 1)} ({', '.join(self.names)})"

    def fits(self, count: int) -> bool:
        n = len(self.names)
        if self.dynamic is not None:
            return count >= n
        return n <= count <= n + len(self.optional)

    def name_of(self, k: int, count: int) -> str:
        """CANN's name of input `k` of a call with `count` inputs (x[i] inside a dynamic list)."""
        if self.dynamic is None:
            return (*self.names, *self.optional)[k]
        at = self.names.index(self.dynamic)
        extra = count - len(self.names)  # tensors of the list beyond the first
        if k < at:
            return self.names[k]
        if k <= at + extra:
            return f"{self.dynamic}[{k - at}]"
        return self.names[k - extra]


_VALUE_NAMES = {"perm", "offsets", "size", "begin", "end", "strides", "axes", "dimension", "concat_dim"}


def _sig(text: str, rule: str = "same") -> Signature:
    """"x1 x2 | bias" (bias optional), "x* concat_dim" (x a dynamic list)."""
    required, _, optional = text.partition("|")
    names = tuple(n.rstrip("*") for n in required.split())
    dynamic = next((n.rstrip("*") for n in required.split() if n.endswith("*")), None)
    return Signature(names, tuple(optional.split()), dynamic, rule)


_FLOAT_UNARY = ("Exp", "Log", "Sqrt", "Sigmoid", "Tanh", "Reciprocal", "Floor", "Ceil", "Erf", "Sin", "Cos",
                "Softplus", "Gelu", "Round")
_NUMBER_UNARY = ("Abs", "Neg", "Relu", "Sign")
_ARITHMETIC = ("Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Pow")
_REDUCE = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd")
_MATMUL = ("MatMul", "MatMulV2", "BatchMatMul", "BatchMatMulV2")

SIGNATURES: dict[str, Signature] = {
    **{op: _sig("x", "float") for op in _FLOAT_UNARY},
    **{op: _sig("x") for op in _NUMBER_UNARY},
    **{op: _sig("x1 x2") for op in _ARITHMETIC},
    **{op: _sig("x1 x2", "compare") for op in ("Equal", "Less", "Greater")},
    **{op: _sig("x1 x2", "logical") for op in ("LogicalAnd", "LogicalOr")},
    **{op: _sig("x", "float") for op in ("Softmax", "SoftmaxV2", "LogSoftmaxV2", "LeakyRelu")},
    "Cast": _sig("x", "cast"),
    **{op: _sig("x1 x2 | bias") for op in _MATMUL},
    "Transpose": _sig("x perm"), "TransposeD": _sig("x"),
    "Slice": _sig("x offsets size"), "SliceD": _sig("x"),
    "StridedSlice": _sig("x begin end strides"), "StridedSliceD": _sig("x"),
    "ConcatD": _sig("x*"), "ConcatV2D": _sig("x*"), "Concat": _sig("concat_dim x*"), "ConcatV2": _sig("x* concat_dim"),
    **{op: _sig("x axes") for op in _REDUCE}, **{op + "D": _sig("x") for op in _REDUCE},
    "Conv2D": _sig("x filter | bias", "float"),
    **{op: _sig("x dimension", "arg") for op in ("ArgMaxV2", "ArgMinV2")},
    **{op: _sig("x", "arg") for op in ("ArgMaxD", "ArgMinD")},
    "GEMM": _sig("a b c alpha beta", "gemm"),
}
# GEMM's (a and b, c and alpha and beta) data types: the combinations of the aclblasGemmEx reference
GEMM_TYPES = {(np.dtype(a), np.dtype(c)) for a, c in ((np.float16, np.float16), (np.float16, np.float32),
                                                      (np.int8, np.float32), (np.int8, np.int32))}


def _text(t: Tensor) -> str:
    return f"{t[0]}{list(t[1])}"


def check(op_type: str, inputs: list[Tensor], outputs: list[Tensor], attrs: dict[str, Any]) -> None:
    """CallError (100021 / 100022) when the call cannot fit `op_type` (which must be in SIGNATURES)."""
    sig = SIGNATURES[op_type]
    n = len(inputs)
    if not sig.fits(n):
        raise CallError(100021, f"{op_type} takes {sig.arity()}, got {n}")
    if len(outputs) != 1:
        raise CallError(100022, f"{op_type} has 1 output (y), got {len(outputs)}")
    names = [sig.name_of(k, n) for k in range(n)]
    listed = sum(1 for nm in names if nm.startswith(f"{sig.dynamic}["))
    if sig.dynamic is not None and "N" in attrs and attrs["N"] != listed:
        raise CallError(100021, f"{op_type}: attribute N is {attrs['N']}, but {listed} tensors are given as "
                        f"{sig.dynamic}")
    if sig.rule == "gemm":
        _check_gemm(inputs, outputs)
        return
    data = []
    for k, (t, name) in enumerate(zip(inputs, names, strict=True)):
        if name in _VALUE_NAMES:
            if t[0] not in INDEX:
                raise CallError(100021, f"{op_type}: input {k} ({name}) is {_text(t)}; it holds indices: int32 or "
                                "int64")
        else:
            data.append((k, name, t))
    k0, name0, (d0, _) = data[0]
    for k, name, t in data[1:]:
        if t[0] != d0:
            raise CallError(100021, f"{op_type}: input {k} ({name}) is {t[0]}, input {k0} ({name0}) is {d0}: "
                            "they must have one data type")
    if sig.rule == "float" and d0 not in FLOATS:
        raise CallError(100021, f"{op_type}: input {k0} ({name0}) is {d0}; {op_type} computes float16, float32 "
                        "or float64")
    if sig.rule == "logical" and d0 != BOOL:
        raise CallError(100021, f"{op_type}: input {k0} ({name0}) is {d0}; {op_type} takes bool tensors")
    want = _output_type(sig, op_type, d0, attrs)
    if want is not None and outputs[0][0] != want:
        raise CallError(100022, f"{op_type}: output 0 (y) is {outputs[0][0]}, {op_type} of {d0} gives {want}")


def _check_gemm(inputs: list[Tensor], outputs: list[Tensor]) -> None:
    """GEMM: a and b of one type, c, alpha and beta of another, a combination aclblas lists; y is c's type."""
    (da, _), (db, _), (dc, _), (dal, _), (dbe, _) = inputs
    if da != db or not dc == dal == dbe or (da, dc) not in GEMM_TYPES:
        raise CallError(100021, f"GEMM: inputs a, b, c, alpha, beta are {da}, {db}, {dc}, {dal}, {dbe}; a and b "
                        "take float16 or int8 alike, c, alpha and beta one type (float16 or float32 for float16 a, "
                        "float32 or int32 for int8 a)")
    if outputs[0][0] != dc:
        raise CallError(100022, f"GEMM: output 0 (y) is {outputs[0][0]}; it is c's type, {dc}")


def _output_type(sig: Signature, op_type: str, d0: np.dtype, attrs: dict[str, Any]) -> np.dtype | None:
    if sig.rule in ("compare", "logical"):
        return BOOL
    if sig.rule == "cast":
        dst = attrs.get("dst_type")
        return T.NUMPY.get(dst) if dst is not None else None
    if sig.rule == "arg":
        index = T.NUMPY.get(int(attrs.get("dtype", T.ACL_INT32)))
        if index not in INDEX:
            raise CallError(100021, f"{op_type}: attribute dtype {attrs.get('dtype')} is not an index type (int32 "
                            f"{T.ACL_INT32} or int64 {T.ACL_INT64})")
        return index
    return d0
