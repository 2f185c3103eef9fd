"""`acl.op`: single operators on device buffers, computed with one-node ONNX graphs (ONNX Runtime).

As on the device, `execute_v2` runs an operator only when a single-operator model for it is loaded
(`set_model_dir` on a directory from `aclsim atc --singleop`, or `load`), matching its type, data types
and shapes; `compile_and_execute(_v2)` needs no model. Work is queued on the stream like a kernel:
results are valid after `acl.rt.synchronize_stream`, and an operator that fails while running makes that
synchronize return the code (message in `acl.get_recent_err_msg()`). Return codes: 100024
(ACL_ERROR_OP_NOT_FOUND) for no matching model, 100020 (ACL_ERROR_OP_TYPE_NOT_MATCH) for an operator type
aclsim does not emulate, 100021 / 100022 for inputs / outputs that do not fit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import AclError, Code
from ..models import ops, singleop
from ..models import types as T
from . import _device, _handles
from ._args import parser, pyacl
from ._missing import generic, not_emulated
from .buffers import DataBuffer, TensorDesc

_models: list[singleop.OpModel] = []


# ---------------------------------------------------------------- attributes


class Attr(dict):
    """aclopAttr: attribute name -> value."""


def create_attr(*args: Any) -> int:
    """acl.op.create_attr() -> attr."""
    parser("acl.op.create_attr", "")(args)
    return _handles.new(Attr())


def destroy_attr(*args: Any) -> None:
    (h,) = parser("acl.op.destroy_attr", "k")(args)
    if _handles.find(h, Attr) is not None:
        _handles.drop(h)


def _setter(name: str, fmt: str, convert: Any) -> Any:
    @pyacl(f"acl.op.{name}", "ks" + fmt)
    def set_attr(attr: int, attr_name: str, value: Any) -> None:
        a = _handles.get(attr, Attr, f"acl.op.{name}", "operator attribute")
        try:
            a[attr_name] = convert(value)
        except (TypeError, ValueError):
            raise TypeError(f"acl.op.{name} args parse failed")

    set_attr.__name__ = name
    return set_attr


def _list_of(kind: type) -> Any:
    def conv(v: Any) -> list:
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, kind) for x in v):
            raise TypeError
        return [kind(x) for x in v]
    return conv


set_attr_int = _setter("set_attr_int", "L", int)
set_attr_float = _setter("set_attr_float", "f", float)
set_attr_bool = _setter("set_attr_bool", "i", bool)
set_attr_string = _setter("set_attr_string", "s", str)
set_attr_data_type = _setter("set_attr_data_type", "i", int)
set_attr_list_int = _setter("set_attr_list_int", "O", _list_of(int))
set_attr_list_float = _setter("set_attr_list_float", "O", lambda v: [float(x) for x in _list_of(object)(v)])
set_attr_list_bool = _setter("set_attr_list_bool", "O", lambda v: [bool(x) for x in _list_of(int)(v)])
set_attr_list_string = _setter("set_attr_list_string", "O", _list_of(str))
set_attr_list_data_type = _setter("set_attr_list_data_type", "O", _list_of(int))


# ---------------------------------------------------------------- single-operator models


def _add_model(data: bytes, where: str, fn: str) -> None:
    try:
        m = singleop.load(data, where)
    except ValueError as e:
        raise AclError(Code.ERROR_OP_LOAD_FAILED, f"{fn}: {e}")
    if m not in _models:
        _models.append(m)


@pyacl("acl.op.set_model_dir", "s")
def set_model_dir(model_dir: str) -> None:
    fn = "acl.op.set_model_dir"
    if not os.path.isdir(model_dir):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {model_dir!r} is not a directory")
    for name in sorted(os.listdir(model_dir)):
        if name.endswith(".om"):
            with open(os.path.join(model_dir, name), "rb") as f:
                _add_model(f.read(), os.path.join(model_dir, name), fn)


@pyacl("acl.op.load", "kk")
def load(model: int, size: int) -> None:
    fn = "acl.op.load"
    if model == 0 or size == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: model must not be NULL and size must be > 0")
    _add_model(_device.memory(model, size, False, fn, "model").array().tobytes(), f"the model at {model:#x}", fn)


# ---------------------------------------------------------------- execution


def _list(v: Any, fn: str) -> list[int]:
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, int) for x in v):
        raise TypeError(f"{fn} args parse failed")
    return list(v)


def _tensors(fn: str, what: str, descs: list[int], bufs: list[int], code: Code,
             write: bool) -> list[tuple[TensorDesc, _device.Bytes | None]]:
    """Each description with the memory its buffer gives, or None for a constant input (acl.set_tensor_const:
    the value travels in the description, the buffer may be empty)."""
    if len(descs) != len(bufs):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {len(descs)} {what} descriptions but {len(bufs)} buffers")
    out: list[tuple[TensorDesc, _device.Bytes | None]] = []
    for k, (dh, bh) in enumerate(zip(descs, bufs, strict=True)):
        d = _handles.get(dh, TensorDesc, fn, f"{what} {k} tensor description")
        b = _handles.get(bh, DataBuffer, fn, f"{what} {k} data buffer")
        _computable(fn, [d], what, k, code)
        need = d.element_count * T.SIZES[d.dtype]
        if d.const is not None and not write:
            if len(d.const) < need:
                raise AclError(code, f"{fn}: {what} {k} constant has {len(d.const)} bytes, its description needs "
                               f"{need}")
            out.append((d, None))
            continue
        if b.size < need:
            raise AclError(code, f"{fn}: {what} {k} buffer has {b.size} bytes, its description needs {need}")
        out.append((d, _device.operand(b.addr, need, write, fn, f"{what} {k}")))
    return out


def _computable(fn: str, descs: list[TensorDesc], what: str = "tensor", first: int = 0,
                code: Code = Code.ERROR_OP_INPUT_NOT_MATCH) -> list[TensorDesc]:
    """The descriptions, each with a numeric data type and known dims (AclError `code` naming the first that has not)."""
    for k, d in enumerate(descs, first):
        if d.dtype not in T.NUMPY or any(x < 0 for x in d.dims):
            raise AclError(code, f"{fn}: {what} {k}: data type {d.dtype} / dims {d.dims} cannot be computed "
                           "(give a numeric type and known dims)")
    return descs


def _value(d: TensorDesc, mem: _device.Bytes | None) -> Any:
    dtype, shape = T.numpy_dtype(d.dtype), tuple(d.dims)
    if mem is None:
        return np.frombuffer(d.const, dtype, d.element_count).reshape(shape)
    return mem.array(dtype, shape)


def _check_type(fn: str, op_type: str) -> None:
    if op_type not in ops.SUPPORTED:
        raise AclError(Code.ERROR_OP_TYPE_NOT_MATCH, f"{fn}: operator type {op_type!r} is not emulated by aclsim "
                       f"(emulated: {', '.join(ops.SUPPORTED)})")


def _require_model(fn: str, op_type: str, ins: list[TensorDesc], outs: list[TensorDesc]) -> None:
    """As on the device, a single-operator model matching the type, data types and shapes must be loaded."""
    sig_in = [(d.dtype, d.dims) for d in ins]
    sig_out = [(d.dtype, d.dims) for d in outs]
    if not any(m.matches(op_type, sig_in, sig_out) for m in _models):
        raise AclError(Code.ERROR_OP_NOT_FOUND, f"{fn}: no single-operator model for {op_type} with inputs "
                       f"{sig_in} and outputs {sig_out} (data type, dims); describe it in ops.json, run `aclsim atc "
                       "--singleop=ops.json --output=DIR` and call acl.op.set_model_dir(DIR) first")


def _signature(descs: list[TensorDesc]) -> list[ops.Tensor]:
    return [(T.numpy_dtype(d.dtype), tuple(d.dims)) for d in descs]


def _check_call(fn: str, op_type: str, ins: list[TensorDesc], outs: list[TensorDesc], attrs: dict) -> None:
    """The operator type, then everything about the call that does not depend on the data (arity, data types,
    attributes, shapes), at the call as aclopCompileAndExecute compiles at the call: nothing fails later at
    synchronize that could be known now."""
    _check_type(fn, op_type)
    ops.require_runtime()  # without onnx the user hears why now, not when the stream reaches the work
    try:
        ops.check_call(op_type, _signature(ins), _signature(outs), attrs)
    except ops.CallError as e:
        raise AclError(e.code, f"{fn}: {e}")


def _submit(fn: str, op_type: str, in_descs: Any, inputs: Any, out_descs: Any, outputs: Any, attr: int,
            stream: int, need_model: bool) -> None:
    _device.require_context(fn)
    ins = _tensors(fn, "input", _list(in_descs, fn), _list(inputs, fn), Code.ERROR_OP_INPUT_NOT_MATCH, False)
    outs = _tensors(fn, "output", _list(out_descs, fn), _list(outputs, fn), Code.ERROR_OP_OUTPUT_NOT_MATCH, True)
    attrs = dict(_handles.get(attr, Attr, fn, "operator attribute")) if attr else {}
    _check_call(fn, op_type, [d for d, _ in ins], [d for d, _ in outs], attrs)
    if need_model:
        _require_model(fn, op_type, [d for d, _ in ins], [d for d, _ in outs])

    def run() -> None:
        xs = [_value(d, m) for d, m in ins]
        dtypes = [T.numpy_dtype(d.dtype) for d, _ in outs]
        try:
            results = ops.run(op_type, xs, attrs, dtypes)
        except ops.OperatorError as e:  # a graph shaped by input values (perm, axes, ...) that do not fit
            raise _device.fault(f"{fn}: {op_type}: {e}", Code.ERROR_OP_INPUT_NOT_MATCH)
        (d, mem), r = outs[0], results[0]
        if not ops.same_shape(r.shape, d.dims) or r.dtype != T.numpy_dtype(d.dtype):
            raise _device.fault(f"{fn}: {op_type} produces output 0 as {r.dtype}{list(r.shape)}, but its "
                                f"description says {T.numpy_dtype(d.dtype)}{d.dims}", Code.ERROR_OP_OUTPUT_NOT_MATCH)
        mem.array(r.dtype, tuple(d.dims))[...] = r.reshape(d.dims)

    _device.enqueue(stream, "kernel", op_type, run, [m for _, m in ins if m is not None], [m for _, m in outs], fn)


@pyacl("acl.op.execute_v2", "sOOOOkk")
def execute_v2(op_type: str, in_descs: Any, inputs: Any, out_descs: Any, outputs: Any, attr: int,
               stream: int) -> None:
    _submit("acl.op.execute_v2", op_type, in_descs, inputs, out_descs, outputs, attr, stream, True)


@pyacl("acl.op.execute", "sOOOOkk")
def execute(op_type: str, in_descs: Any, inputs: Any, out_descs: Any, outputs: Any, attr: int, stream: int) -> None:
    _submit("acl.op.execute", op_type, in_descs, inputs, out_descs, outputs, attr, stream, True)


def _compile_and_execute(name: str) -> Any:
    @pyacl(f"acl.op.{name}", "sOOOOkiiOk")
    def fn(op_type: str, in_descs: Any, inputs: Any, out_descs: Any, outputs: Any, attr: int, engine_type: int,
           compile_flag: int, op_path: Any, stream: int) -> None:
        _submit(f"acl.op.{name}", op_type, in_descs, inputs, out_descs, outputs, attr, stream, False)

    fn.__name__ = name
    return fn


compile_and_execute = _compile_and_execute("compile_and_execute")
compile_and_execute_v2 = _compile_and_execute("compile_and_execute_v2")


@pyacl("acl.op.cast", "kkkkik")
def cast(in_desc: int, in_buf: int, out_desc: int, out_buf: int, truncate: int, stream: int) -> None:
    """aclopCast: convert to the output description's data type (a loaded Cast model is needed, as on the device)."""
    fn = "acl.op.cast"
    d = _handles.get(out_desc, TensorDesc, fn, "output tensor description")
    attr = _handles.new(Attr(dst_type=d.dtype, truncate=bool(truncate)))
    try:
        _submit(fn, "Cast", [in_desc], [in_buf], [out_desc], [out_buf], attr, stream, True)
    finally:
        _handles.drop(attr)


@pyacl("acl.op.update_params", "sOOk")
def update_params(op_type: str, in_descs: Any, out_descs: Any, attr: int) -> None:
    """Compile-time check: the operator type, the signature and (when the graph does not depend on input values)
    the shapes, as compile_and_execute checks them at its call."""
    fn = "acl.op.update_params"
    ins = [_handles.get(h, TensorDesc, fn, f"input {k} tensor description") for k, h in enumerate(_list(in_descs, fn))]
    outs = [_handles.get(h, TensorDesc, fn, f"output {k} tensor description")
            for k, h in enumerate(_list(out_descs, fn))]
    attrs = dict(_handles.get(attr, Attr, fn, "operator attribute")) if attr else {}
    _check_call(fn, op_type, _computable(fn, ins), _computable(fn, outs), attrs)


# ---------------------------------------------------------------- operator handles


@dataclass(eq=False)
class OpHandle:
    """aclopHandle: an operator with fixed descriptions and attributes, run with execute_with_handle."""

    op_type: str
    in_descs: list[int]
    out_descs: list[int]
    attr: int


@pyacl("acl.op.create_handle", "sOOk", fail=(0,))
def create_handle(op_type: str, in_descs: Any, out_descs: Any, attr: int) -> int:
    """Needs a loaded single-operator model matching the descriptions, as aclopCreateHandle does."""
    fn = "acl.op.create_handle"
    ins, outs = (_list(v, fn) for v in (in_descs, out_descs))
    in_d = [_handles.get(h, TensorDesc, fn, f"input {k} tensor description") for k, h in enumerate(ins)]
    out_d = [_handles.get(h, TensorDesc, fn, f"output {k} tensor description") for k, h in enumerate(outs)]
    attrs = dict(_handles.get(attr, Attr, fn, "operator attribute")) if attr else {}
    _check_call(fn, op_type, _computable(fn, in_d), _computable(fn, out_d), attrs)
    _require_model(fn, op_type, in_d, out_d)
    return _handles.new(OpHandle(op_type, ins, outs, attr))


@pyacl("acl.op.execute_with_handle", "kOOk")
def execute_with_handle(handle: int, inputs: Any, outputs: Any, stream: int) -> None:
    fn = "acl.op.execute_with_handle"
    h = _handles.get(handle, OpHandle, fn, "operator handle")
    _submit(fn, h.op_type, h.in_descs, inputs, h.out_descs, outputs, h.attr, stream, True)


@pyacl("acl.op.destroy_handle", "k")
def destroy_handle(handle: int) -> None:
    _handles.get(handle, OpHandle, "acl.op.destroy_handle", "operator handle")
    _handles.drop(handle)


__getattr__ = not_emulated("acl.op", generic("aclsim emulates the acl.op calls docs/models.md lists (no custom "
                                             "operators or infer_shape)"))
