"""Checking a loaded `.om` before it is accepted: its ONNX graph, and its header against that graph.

`om.load` checks the container (bytes, header schema); this module checks what the header says: every
input and output named as in the graph, in order, with a data type aclsim can hold and the graph's type
where the graph fixes one, dims that fit the graph and the dynamic gears, sizes that match the dims, AIPP
settings that apply, and the dynamic inputs ATC adds in their place. A model that passes runs without
surprises; one that does not is refused at load with ACL_ERROR_PARSE_MODEL (100013), naming what is wrong.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import AclError, Code
from . import aipp as A
from . import types as T
from .graph import require
from .om import DYNAMIC_TENSOR_NAME, REBUILD, OmModel, TensorInfo

_FORMATS = set(T.FORMATS.values())
SPECIAL = (DYNAMIC_TENSOR_NAME, A.DYNAMIC_TENSOR)  # the inputs ATC adds after the graph's own


class Invalid(ValueError):
    """The model is not what its header says (the message names the input, output or field)."""


def verify(m: OmModel, where: str, fn: str) -> None:
    """AclError 100013 unless the ONNX graph is valid and the header describes it."""
    try:
        graph = _graph(m.onnx)
        _io(m, graph)
        _dynamic(m)
    except Invalid as e:
        raise AclError(Code.ERROR_PARSE_MODEL, f"{fn}: {where}: {e}; {REBUILD}")


def _graph(payload: bytes) -> Any:
    onnx = require("onnx")
    try:
        proto = onnx.load_from_string(payload)
        onnx.checker.check_model(proto)
    except Exception as e:  # protobuf, checker and decoding errors all mean the same: not a valid graph
        raise Invalid(f"the ONNX graph is invalid ({_first_line(e)})")
    return proto.graph


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:200]


def _io(m: OmModel, graph: Any) -> None:
    inits = {i.name for i in graph.initializer}
    graph_in = [i for i in graph.input if i.name not in inits]
    own = [t for t in m.inputs if t.name not in SPECIAL]
    if m.inputs[len(own):] != [t for t in m.inputs if t.name in SPECIAL]:
        raise Invalid(f"the inputs {list(SPECIAL)} must come after the graph's own inputs")
    if [t.name for t in own] != [i.name for i in graph_in]:
        raise Invalid(f"the header's inputs {[t.name for t in own]} are not the graph's {[i.name for i in graph_in]}")
    if [t.name for t in m.outputs] != [o.name for o in graph.output]:
        raise Invalid(f"the header's outputs {[t.name for t in m.outputs]} are not the graph's "
                      f"{[o.name for o in graph.output]}")
    for k, (t, vi) in enumerate(zip(own, graph_in, strict=True)):
        where = f"input {k} ({t.name})"
        _types(t, vi, where)
        if t.aipp is not None:
            _aipp(t, vi, where)
        else:
            _dims(t, vi, where, m.dynamic)
    for k, (t, vi) in enumerate(zip(m.outputs, graph.output, strict=True)):
        where = f"output {k} ({t.name})"
        _types(t, vi, where)
        if not t.dims or any(d <= 0 for d in t.dims):
            raise Invalid(f"{where}: dims {t.dims} must be positive")
        if t.size != math.prod(t.dims) * T.SIZES[t.dtype]:
            raise Invalid(f"{where}: size {t.size} is not dims {t.dims} x {T.SIZES[t.dtype]} bytes")
    if m.weight_size < 0:
        raise Invalid(f"weight_size {m.weight_size} is negative")


def _types(t: TensorInfo, vi: Any, where: str) -> None:
    for name, dt in (("data type", t.dtype), ("graph data type", t.graph_dtype)):
        if dt not in T.NUMPY:
            raise Invalid(f"{where}: {name} {dt} is not an aclDataType aclsim can hold "
                          f"({', '.join(map(str, sorted(T.NUMPY)))})")
    elem = T.ONNX_TO_ACL.get(vi.type.tensor_type.elem_type)
    if elem is not None and elem != t.graph_dtype:
        raise Invalid(f"{where}: graph data type {t.graph_dtype}, but the graph holds {elem}")
    if t.format not in _FORMATS:
        raise Invalid(f"{where}: format {t.format} is not an aclFormat")


def _graph_dims(vi: Any) -> list[int | None]:
    return [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]


def _dims(t: TensorInfo, vi: Any, where: str, dynamic: bool) -> None:
    g = _graph_dims(vi)
    if len(t.dims) != len(g):
        raise Invalid(f"{where}: dims {t.dims}, but the graph's input has {len(g)} dims")
    for d, gd in zip(t.dims, g, strict=True):
        if d == -1 and dynamic:
            continue
        if d <= 0 or (gd is not None and gd != d):
            raise Invalid(f"{where}: dims {t.dims} do not fit the graph's {[x if x else '?' for x in g]}"
                          + ("" if dynamic else " (-1 needs dynamic gears)"))


def _aipp(t: TensorInfo, vi: Any, where: str) -> None:
    cfg = t.aipp
    assert cfg is not None
    g = _graph_dims(vi)
    mh, mw, nhwc = cfg.get("aclsim_model_h"), cfg.get("aclsim_model_w"), cfg.get("aclsim_nhwc")
    if not (isinstance(mh, int) and isinstance(mw, int) and isinstance(nhwc, bool) and mh > 0 and mw > 0):
        raise Invalid(f"{where}: AIPP needs the model input's aclsim_model_h, aclsim_model_w (> 0) and "
                      "aclsim_nhwc (true/false)")
    if len(g) != 4 or (g[1:3] if nhwc else g[2:4]) != [mh, mw] or len(t.dims) != 4 or t.dims[0] <= 0:
        raise Invalid(f"{where}: AIPP for a {mh}x{mw} 4-D input, but the graph's input is {g} and dims {t.dims}")
    c = g[3] if nhwc else g[1]
    if t.dtype != T.ACL_UINT8:
        raise Invalid(f"{where}: an AIPP input holds uint8 images (data type {T.ACL_UINT8}), not {t.dtype}")
    try:
        if cfg.get("aipp_mode") == "dynamic":
            size = cfg.get("max_src_image_size")
            if not isinstance(size, int) or size <= 0:
                raise A.AippError("aipp_mode dynamic needs max_src_image_size > 0")
            A.check_numbers(cfg)
            expect = ([t.dims[0], mh, mw, c], size)
        else:
            A.check(cfg, mh, mw)
            h, w = A.source_hw(cfg, mh, mw)
            expect = ([t.dims[0], h, w, A.FORMATS[cfg["input_format"]][2]], t.dims[0] * A.image_size(cfg, h, w))
    except A.AippError as e:
        raise Invalid(f"{where}: AIPP {e}")
    if (t.dims, t.size) != expect:
        raise Invalid(f"{where}: AIPP dims {t.dims} / size {t.size}, the configuration gives {expect[0]} / {expect[1]}")


def _dynamic(m: OmModel) -> None:
    """The gears, the -1 dims they fill and the extra inputs ATC adds for them."""
    kinds = [k for k, v in (("batch", m.dynamic_batch), ("image size", m.dynamic_hw), ("dims", m.dynamic_dims)) if v]
    if len(kinds) > 1:
        raise Invalid(f"dynamic {' and '.join(kinds)} gears together (ATC allows one kind)")
    own = [t for t in m.inputs if t.name not in SPECIAL and t.aipp is None]
    holes = [sum(d == -1 for d in t.dims) for t in own]
    if m.dynamic_batch:
        gears = [[b] for b in m.dynamic_batch]
        if any(-1 in t.dims[1:] for t in own):
            raise Invalid("dynamic batch: -1 is allowed only at the batch dim")
    elif m.dynamic_hw:
        gears = m.dynamic_hw
        if any(len(g) != 2 for g in gears) or any(h not in (0, 2) for h in holes):
            raise Invalid("dynamic image size: gears are [h, w] and each image input has two -1 dims (H and W)")
    else:
        gears = m.dynamic_dims
        if any(len(g) != sum(holes) for g in gears):
            raise Invalid(f"dynamic dims: each gear needs {sum(holes)} values (one per -1 dim)")
    if any(v <= 0 for g in gears for v in g):
        raise Invalid(f"dynamic gears {gears} must be positive")
    extra = [t for t in m.inputs if t.name == DYNAMIC_TENSOR_NAME]
    if bool(extra) != m.dynamic or (m.dynamic and not any(holes)):
        raise Invalid(f"a model with dynamic gears has -1 dims and the input {DYNAMIC_TENSOR_NAME}; this one has "
                      f"{'gears' if m.dynamic else 'no gears'}, {sum(holes)} -1 dims and "
                      f"{'the' if extra else 'no'} input")
    if extra:
        k = len(gears[0])
        _extra(extra[0], [k], T.ACL_UINT64)
        for t in own:
            biggest = max(math.prod(s) for s in (gear_shape(m, t, g) for g in gears))
            if t.size != biggest * T.SIZES[t.dtype]:
                raise Invalid(f"input {t.name}: size {t.size}, its largest gear holds {biggest} elements of "
                              f"{T.SIZES[t.dtype]} bytes")
    else:
        for t in own:
            if t.size != math.prod(t.dims) * T.SIZES[t.dtype]:
                raise Invalid(f"input {t.name}: size {t.size} is not dims {t.dims} x {T.SIZES[t.dtype]} bytes")
    dyn_aipp = [t for t in m.inputs if t.aipp is not None and t.aipp.get("aipp_mode") == "dynamic"]
    params = [t for t in m.inputs if t.name == A.DYNAMIC_TENSOR]
    if bool(dyn_aipp) != bool(params):
        raise Invalid(f"dynamic AIPP and the input {A.DYNAMIC_TENSOR} go together")
    if params:
        _extra(params[0], [max(t.dims[0] for t in dyn_aipp) * len(A.FIELDS)], T.ACL_DOUBLE)


def _extra(t: TensorInfo, dims: list[int], dtype: int) -> None:
    if (t.dims, t.dtype, t.size) != (dims, dtype, math.prod(dims) * T.SIZES[dtype]):
        raise Invalid(f"input {t.name}: dims {t.dims}, data type {t.dtype}, size {t.size}; ATC makes it dims {dims}, "
                      f"data type {dtype}, size {math.prod(dims) * T.SIZES[dtype]}")


def gear_shape(m: OmModel, t: TensorInfo, gear: list[int]) -> list[int]:
    """Input `t`'s shape at one gear (its value in the dynamic input): the gear fills its -1 dims."""
    if m.dynamic_batch:
        return [gear[0] if d == -1 else d for d in t.dims]
    if m.dynamic_hw:
        values = iter(gear)
    else:  # dynamic dims run on across the inputs, in order
        before = [u for u in m.inputs if u.name not in SPECIAL and u.aipp is None]
        skip = sum(d == -1 for u in before[: before.index(t)] for d in u.dims)
        values = iter(gear[skip:])
    return [next(values) if d == -1 else d for d in t.dims]
