"""Executing a loaded model on device buffers: the engine behind `acl.mdl.execute` / `execute_async`.

`prepare` checks a call against the model (buffer counts and sizes, the dynamic gear the dynamic input
holds) before anything runs, and returns the work: `run()` reads the inputs from device memory, applies
static or dynamic AIPP and the data-type casts the header records, runs the ONNX Runtime session and
writes the outputs. The face queues `run` on a stream (or runs it now) and reports the reads and writes.

Memory arrives through a `claim(addr, nbytes, write, what)` the face gives: it validates the range as the
runtime validates a copy and returns an object with `.nbytes` and `.array(dtype, shape)`, so this engine
never sees a handle, a heap or a face.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..errors import AclError, Code
from ..runtime import KernelFault
from . import aipp as A
from . import types as T
from .model import Model, dynamic_aipp
from .om import TensorInfo
from .verify import SPECIAL, gear_shape


class Memory(Protocol):
    nbytes: int

    def array(self, dtype: Any = np.uint8, shape: tuple[int, ...] | None = None) -> np.ndarray: ...


Claim = Callable[[int, int, bool, str], Memory]


@dataclass
class Execution:
    """One validated model run: `run()` and the memory it reads and writes (for the observers)."""

    run: Callable[[], None]
    reads: list[Memory]
    writes: list[Memory]
    read_now: list[Memory]  # read at the call itself (the dynamic gear's value), not when the work runs


def _gear_value(m: Model, mem: Memory, fn: str) -> list[int]:
    """The gear the dynamic input selects; 145013 when it holds none of the model's gears."""
    value = [int(v) for v in mem.array(np.uint64)]
    o = m.om
    if o.dynamic_batch:
        if value[0] not in o.dynamic_batch:
            raise AclError(Code.ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, f"{fn}: the dynamic input holds batch {value[0]}"
                           f", not one of {o.dynamic_batch}: call acl.mdl.set_dynamic_batch_size first")
        return value[:1]
    gears, setter = (o.dynamic_hw, "set_dynamic_hw_size") if o.dynamic_hw else (o.dynamic_dims, "set_input_dynamic_dims")
    if value not in gears:
        raise AclError(Code.ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, f"{fn}: the dynamic input holds {value}, not one of "
                       f"{gears}: call acl.mdl.{setter} first")
    return value


def prepare(m: Model, inputs: list[tuple[int, int]], outputs: list[tuple[int, int]], claim: Claim,
            fn: str) -> Execution:
    """Validate a call with these (address, size) buffers; AclError (and nothing run) when it does not fit."""
    o = m.om
    for bufs, ts, what, code in ((inputs, o.inputs, "input", Code.ERROR_MODEL_INPUT_NOT_MATCH),
                                 (outputs, o.outputs, "output", Code.ERROR_MODEL_OUTPUT_NOT_MATCH)):
        if len(bufs) != len(ts):
            raise AclError(code, f"{fn}: the {what} dataset has {len(bufs)} buffers, the model has {len(ts)} {what}s")
    read_now, reads = [], []
    gear = None
    if o.dynamic:
        t, (addr, _) = o.inputs[-1], inputs[-1]
        slot = claim(addr, t.size, False, "dynamic input buffer")
        read_now.append(slot)
        gear = _gear_value(m, slot, fn)
    params = None  # the dynamic AIPP parameters (the model's last input), when it has them
    if o.inputs[-1].name == A.DYNAMIC_TENSOR:
        t = o.inputs[-1]
        params = claim(inputs[-1][0], t.size, False, f"input {len(inputs) - 1} ({t.name})")
        reads.append(params)
    feeds = []
    for k, (t, (addr, size)) in enumerate(zip(o.inputs, inputs, strict=True)):
        if t.name in SPECIAL:
            continue
        shape = list(t.dims) if gear is None or t.aipp else gear_shape(o, t, gear)
        need = t.size if t.aipp else math.prod(shape) * T.SIZES[t.dtype]  # AIPP inputs are static
        if size < need:
            raise AclError(Code.ERROR_MODEL_INPUT_NOT_MATCH, f"{fn}: input {k} ({t.name}) buffer has {size} bytes, "
                           f"the model reads {need} (acl.mdl.get_input_size_by_index)")
        mem = claim(addr, need, False, f"input {k} ({t.name})")
        reads.append(mem)
        feeds.append((t, mem, shape))
    writes = []
    for k, (t, (addr, size)) in enumerate(zip(o.outputs, outputs, strict=True)):
        if size < t.size:
            raise AclError(Code.ERROR_MODEL_OUTPUT_NOT_MATCH, f"{fn}: output {k} ({t.name}) buffer has {size} "
                           f"bytes, the model writes up to {t.size} (acl.mdl.get_output_size_by_index)")
        writes.append(claim(addr, t.size, True, f"output {k} ({t.name})"))
    return Execution(lambda: _run(m, feeds, params, writes, fn), reads, writes, read_now)


def _feed(t: TensorInfo, mem: Memory, shape: list[int], params: Memory | None, fn: str) -> np.ndarray:
    """One input as the graph takes it: AIPP applied, cast to the graph's data type."""
    if not t.aipp:
        a = mem.array(T.numpy_dtype(t.dtype), tuple(shape))
        return a if t.dtype == t.graph_dtype else a.astype(T.numpy_dtype(t.graph_dtype))
    cfg, mh, mw = t.aipp, t.aipp["aclsim_model_h"], t.aipp["aclsim_model_w"]
    try:
        if dynamic_aipp(t):
            assert params is not None
            rows = params.array(np.float64).reshape(-1, len(A.FIELDS))[: shape[0]]
            x = A.apply_dynamic(rows, mem.array(), mh, mw)
        else:
            x = A.apply(cfg, mem.array(), shape[0], mh, mw)
    except A.AippError as e:
        raise KernelFault(f"{fn}: {'dynamic ' * dynamic_aipp(t)}AIPP on input {t.name}: {e}",
                          Code.ERROR_MODEL_INPUT_NOT_MATCH)
    if cfg["aclsim_nhwc"]:
        x = x.transpose(0, 2, 3, 1)
    return x.astype(T.numpy_dtype(t.graph_dtype), copy=False)


def _run(m: Model, feeds: list, params: Memory | None, writes: list[Memory], fn: str) -> None:
    fd = {t.name: _feed(t, mem, shape, params, fn) for t, mem, shape in feeds}
    try:
        with m.lock:
            results = m.session.run(fd)
    except Exception as e:  # a graph that cannot run these inputs (e.g. a gear its Reshape does not allow)
        raise KernelFault(f"{fn}: model {m.id}: ONNX Runtime could not run it: {str(e).strip()[:300]}",
                          Code.ERROR_RT_INTERNAL_ERROR) from None
    for t, mem, r in zip(m.om.outputs, writes, results, strict=True):
        r = np.ascontiguousarray(r, dtype=T.numpy_dtype(t.dtype))
        if r.nbytes > mem.nbytes:
            raise KernelFault(f"{fn}: model {m.id}: output {t.name} is {list(r.shape)} ({r.nbytes} bytes), more than "
                              f"the {mem.nbytes} bytes its description gives", Code.ERROR_MODEL_OUTPUT_NOT_MATCH)
        mem.array()[: r.nbytes] = r.reshape(-1).view(np.uint8)
    m.cur_output_dims = [list(r.shape) for r in results]
