"""ATC's single-operator mode: `--singleop=ops.json --output=DIR` and the models `acl.op.set_model_dir` loads.

ops.json is ATC's list of operators (`op`, `input_desc` / `output_desc` with `format`, `shape`, `type`,
optional `attr` [{name, type, value}]). aclsim writes one small file per operator (magic `ACLSIMOP` +
the operator's JSON); `acl.op.execute_v2` runs an operator only when a loaded model matches its type,
data types and shapes (-1 in a model shape matches any size), as with single-operator OM models.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from . import types as T
from .om import REAL_OM_MAGIC
from .ops import SUPPORTED

MAGIC = b"ACLSIMOP"
_TYPES = {"float": T.ACL_FLOAT, "float32": T.ACL_FLOAT, "float16": T.ACL_FLOAT16, "int8": T.ACL_INT8,
          "int16": T.ACL_INT16, "int32": T.ACL_INT32, "int64": T.ACL_INT64, "uint8": T.ACL_UINT8,
          "uint16": T.ACL_UINT16, "uint32": T.ACL_UINT32, "uint64": T.ACL_UINT64, "bool": T.ACL_BOOL,
          "double": T.ACL_DOUBLE, "float64": T.ACL_DOUBLE}


@dataclass(frozen=True)
class TensorSpec:
    dtype: int
    shape: tuple[int, ...] | None  # None: any shape (unknown rank)

    def matches(self, dtype: int, shape: list[int]) -> bool:
        if dtype != self.dtype:
            return False
        if self.shape is None:
            return True
        return len(shape) == len(self.shape) and all(m in (-1, s) for m, s in zip(self.shape, shape, strict=True))


@dataclass(frozen=True)
class OpModel:
    op: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]

    def matches(self, op: str, ins: list[tuple[int, list[int]]], outs: list[tuple[int, list[int]]]) -> bool:
        return (op == self.op and len(ins) == len(self.inputs) and len(outs) == len(self.outputs)
                and all(s.matches(*t) for s, t in zip(self.inputs, ins, strict=True))
                and all(s.matches(*t) for s, t in zip(self.outputs, outs, strict=True)))


def _tensor(d: dict[str, Any], where: str) -> TensorSpec:
    t = str(d.get("type", "")).lower()
    if t not in _TYPES:
        raise ValueError(f"{where}: type {d.get('type')!r} is not one of {', '.join(_TYPES)}")
    shape = d.get("shape")
    if shape == [-2] or shape is None:
        return TensorSpec(_TYPES[t], None)
    if not isinstance(shape, list) or not all(isinstance(v, int) and v >= -1 for v in shape):
        raise ValueError(f"{where}: shape {shape!r} must be a list of dims (-1 for any size)")
    return TensorSpec(_TYPES[t], tuple(shape))


def parse(text: str) -> list[OpModel]:
    try:
        items = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"the single-operator description is not valid JSON: {e}")
    if not isinstance(items, list) or not items:
        raise ValueError("the single-operator description must be a non-empty JSON list of operators")
    out = []
    for k, it in enumerate(items):
        op = it.get("op") if isinstance(it, dict) else None
        if not isinstance(op, str):
            raise ValueError(f"operator {k}: missing \"op\"")
        if op not in SUPPORTED:
            raise ValueError(f"operator {k}: type {op!r} is not emulated by aclsim (emulated: {', '.join(SUPPORTED)})")
        ins = tuple(_tensor(d, f"operator {k} ({op}) input {j}") for j, d in enumerate(it.get("input_desc", [])))
        outs = tuple(_tensor(d, f"operator {k} ({op}) output {j}") for j, d in enumerate(it.get("output_desc", [])))
        if not outs:
            raise ValueError(f"operator {k} ({op}): no output_desc")
        out.append(OpModel(op, ins, outs))
    return out


def _dump(m: OpModel) -> bytes:
    spec = {"op": m.op, "inputs": [[t.dtype, t.shape] for t in m.inputs],
            "outputs": [[t.dtype, t.shape] for t in m.outputs]}
    return MAGIC + json.dumps(spec).encode()


def _format_code(d: dict[str, Any], where: str) -> int:
    name = str(d.get("format", "ND")).upper()
    if name not in T.FORMATS:
        raise ValueError(f"{where}: format {d.get('format')!r} is not one of {', '.join(T.FORMATS)}")
    return T.FORMATS[name]


def file_name(k: int, item: dict[str, Any]) -> str:
    """The name ATC gives operator `k`'s model: index, op type, then per input and output tensor its aclDataType,
    aclFormat and dims, joined by "_" (e.g. 0_Add_1_2_192_1_1_2_192_1_1_2_192_1.om: three float16 ND [192, 1]
    tensors; -2 for an unknown rank). Files of that form are what programs load by name, as seen in public
    code that executes ATC-built Add models (e.g. "op_models/0_Add_1_2_192_1_1_2_192_1_1_2_192_1.om")."""
    op = item["op"]
    parts = [str(k), op]
    for what in ("input_desc", "output_desc"):
        for j, d in enumerate(item.get(what, [])):
            where = f"operator {k} ({op}) {what.split('_')[0]} {j}"
            t = _tensor(d, where)
            dims = d.get("shape") if t.shape is not None else [-2]
            parts += [str(t.dtype), str(_format_code(d, where)), *map(str, dims)]
    return "_".join(parts) + ".om"


def write_models(text: str, out_dir: str) -> list[str]:
    """Write one model file per operator of an ATC single-operator description, named as ATC names them;
    returns the paths."""
    models = parse(text)
    items = json.loads(text)
    names = [file_name(k, it) for k, it in enumerate(items)]
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for name, m in zip(names, models, strict=True):
        path = os.path.join(out_dir, name)
        with open(path, "wb") as f:
            f.write(_dump(m))
        paths.append(path)
    return paths


def load(data: bytes, where: str) -> OpModel:
    """A single-operator model from its bytes; ValueError (saying why) otherwise."""
    if data.startswith(REAL_OM_MAGIC):
        raise ValueError(f"{where} is a single-operator OM built by Huawei's ATC for an NPU; rebuild it with "
                         "`aclsim atc --singleop=ops.json --output=DIR`")
    if not data.startswith(MAGIC):
        raise ValueError(f"{where} is not a single-operator model from `aclsim atc --singleop`")
    try:
        spec = json.loads(data[len(MAGIC):])
        conv = lambda ts: tuple(TensorSpec(d, None if s is None else tuple(s)) for d, s in ts)  # noqa: E731
        return OpModel(spec["op"], conv(spec["inputs"]), conv(spec["outputs"]))
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{where} is a damaged single-operator model ({e})")
