"""A loaded model: the checked `.om` (or an ONNX file converted on the fly) and its ONNX Runtime session.

`load` is what `acl.mdl.load_from_file` / `load_from_mem` do below the face: the container checked
(`om.load`), an ONNX file converted as `aclsim atc` would (`build`), the graph and the header checked
(`verify`), the session made. Every failure is an AclError with the documented model code and a message
that names what is wrong; nothing raises from ONNX or ONNX Runtime.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ..errors import AclError, Code
from . import om
from .build import Options, build
from .graph import MissingDependency, Session
from .verify import verify


@dataclass(eq=False)
class Model:
    """A model `acl.mdl` loaded: what the description calls report, and the session that runs it."""

    id: int
    om: om.OmModel
    session: Session
    cur_output_dims: list[list[int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # one run at a time per session


def parse(data: bytes, where: str, fn: str) -> om.OmModel:
    """The checked model in `data` (an aclsim .om, or ONNX converted with ATC's defaults); AclError otherwise."""
    m, onnx_bytes = om.load(data, where, fn)
    if m is not None:
        verify(m, where, fn)
        return m
    try:
        return build(onnx_bytes, Options())
    except ValueError as e:
        raise AclError(Code.ERROR_PARSE_MODEL, f"{fn}: {where}: {e}")


def load(model_id: int, data: bytes, where: str, fn: str) -> Model:
    """A model ready to execute (MissingDependency, with the pip command, without onnx/onnxruntime)."""
    m = parse(data, where, fn)
    try:
        session = Session(m.onnx)
    except MissingDependency:
        raise
    except Exception as e:  # ONNX Runtime refuses a graph the checker passed (an operator it lacks, ...)
        raise AclError(Code.ERROR_PARSE_MODEL, f"{fn}: {where}: ONNX Runtime cannot load the model: "
                       f"{str(e).strip()[:300]}")
    return Model(model_id, m, session, [list(o.dims) for o in m.outputs])


def sizes(m: om.OmModel) -> tuple[int, int]:
    """(work, weight) bytes: the IO tensors plus the weights, as an upper bound of what the NPU would need."""
    return sum(t.size for t in (*m.inputs, *m.outputs)) + 1024, m.weight_size


def full_dims(m: om.OmModel, gear: list[int]) -> list[int]:
    """The aclmdlIODims of a --dynamic_dims gear: the dims of all inputs in order, the gear's values in the -1s."""
    values = iter(gear)
    return [next(values) if d == -1 else d for t in m.inputs if t.name != om.DYNAMIC_TENSOR_NAME for d in t.dims]


def dynamic_aipp(t: om.TensorInfo) -> bool:
    """True for an input whose AIPP parameters are set at run time (aipp_mode: dynamic)."""
    return bool(t.aipp) and t.aipp.get("aipp_mode") == "dynamic"
