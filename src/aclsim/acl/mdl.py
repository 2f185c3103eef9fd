"""`acl.mdl`: load a model, describe it, build datasets, execute it (ONNX Runtime on the CPU).

A model is an `.om` written by `aclsim atc` or an `.onnx` file. Inputs and outputs live in emulated
device memory: `execute` reads the input buffers and writes the output buffers as device work, so the
sanitizer sees it (a model reading an input the host never copied in is an initcheck finding), and
`execute_async` is queued on its stream like any other device work. Signatures and result shapes follow
the pyACL reference (bare values for the description getters, `(value, ret)` elsewhere).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import AclError, Code
from ..models import aipp as A
from ..models import om
from ..models import types as T
from ..models.execute import prepare
from ..models.model import Model, dynamic_aipp, full_dims, parse, sizes
from ..models.model import load as load_model
from . import _device, _handles
from ._args import parser, pyacl
from ._missing import generic, not_emulated
from .buffers import DataBuffer, _bare, failed


@dataclass(eq=False)
class Desc:
    model: Model | None = None


@dataclass(eq=False)
class Dataset:
    buffers: list[int] = field(default_factory=list)


_models: dict[int, Model] = {}
_ids = itertools.count(1)


# ---------------------------------------------------------------- loading


def _read(path: str, fn: str) -> bytes:
    # aclmdlLoadFromFile: a path that cannot be read fails the model read (ACL_ERROR_READ_MODEL_FAILURE)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise AclError(Code.ERROR_READ_MODEL_FAILURE, f"{fn}: cannot read the model file {path!r}: {e.strerror}")


def _host_bytes(ptr: int, size: int, fn: str) -> bytes:
    if ptr == 0 or size == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: model must not be NULL and size must be > 0")
    return _device.memory(ptr, size, False, fn, "model").array().tobytes()


def _load(data: bytes, where: str, fn: str) -> int:
    _device.require_context(fn)
    m = load_model(next(_ids), data, where, fn)
    _models[m.id] = m
    return m.id


@pyacl("acl.mdl.load_from_file", "s", fail=(0,))
def load_from_file(path: str) -> int:
    return _load(_read(path, "acl.mdl.load_from_file"), path, "acl.mdl.load_from_file")


@pyacl("acl.mdl.load_from_mem", "kk", fail=(0,))
def load_from_mem(model: int, size: int) -> int:
    fn = "acl.mdl.load_from_mem"
    return _load(_host_bytes(model, size, fn), f"the {size} bytes at {model:#x}", fn)


def _check_mem(fn: str, work: int, work_size: int, weight: int, weight_size: int, m: om.OmModel) -> None:
    need_work, need_weight = sizes(m)
    if work_size < need_work or weight_size < need_weight:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: work/weight memory of {work_size}/{weight_size} bytes; "
                       f"acl.mdl.query_size says the model needs {need_work}/{need_weight}")
    _device.memory(work, need_work, True, fn, "work_ptr")
    if need_weight:
        _device.memory(weight, need_weight, True, fn, "weight_ptr")


@pyacl("acl.mdl.load_from_file_with_mem", "skkkk", fail=(0,))
def load_from_file_with_mem(path: str, work: int, work_size: int, weight: int, weight_size: int) -> int:
    fn = "acl.mdl.load_from_file_with_mem"
    data = _read(path, fn)
    _check_mem(fn, work, work_size, weight, weight_size, parse(data, path, fn))
    return _load(data, path, fn)


@pyacl("acl.mdl.load_from_mem_with_mem", "kkkkkk", fail=(0,))
def load_from_mem_with_mem(model: int, size: int, work: int, work_size: int, weight: int, weight_size: int) -> int:
    fn = "acl.mdl.load_from_mem_with_mem"
    data = _host_bytes(model, size, fn)
    where = f"the {size} bytes at {model:#x}"
    _check_mem(fn, work, work_size, weight, weight_size, parse(data, where, fn))
    return _load(data, where, fn)


def _model(model_id: int, fn: str) -> Model:
    m = _models.get(model_id)
    if m is None:
        raise AclError(Code.ERROR_INVALID_MODEL_ID, f"{fn}: model id {model_id} is not loaded (unloaded, or never "
                       "returned by acl.mdl.load_*)")
    return m


@pyacl("acl.mdl.unload", "I")
def unload(model_id: int) -> None:
    _model(model_id, "acl.mdl.unload")
    del _models[model_id]


@pyacl("acl.mdl.query_size", "s", fail=(0, 0))
def query_size(path: str) -> tuple[int, int]:
    return sizes(parse(_read(path, "acl.mdl.query_size"), path, "acl.mdl.query_size"))


@pyacl("acl.mdl.query_size_from_mem", "kk", fail=(0, 0))
def query_size_from_mem(model: int, size: int) -> tuple[int, int]:
    fn = "acl.mdl.query_size_from_mem"
    return sizes(parse(_host_bytes(model, size, fn), f"the {size} bytes at {model:#x}", fn))


# ---------------------------------------------------------------- descriptions


def create_desc(*args: Any) -> int:
    """acl.mdl.create_desc() -> desc."""
    parser("acl.mdl.create_desc", "")(args)
    return _handles.new(Desc())


@pyacl("acl.mdl.destroy_desc", "k")
def destroy_desc(desc: int) -> None:
    _handles.get(desc, Desc, "acl.mdl.destroy_desc", "model description")
    _handles.drop(desc)


@pyacl("acl.mdl.get_desc", "kI")
def get_desc(desc: int, model_id: int) -> None:
    d = _handles.get(desc, Desc, "acl.mdl.get_desc", "model description")
    d.model = _model(model_id, "acl.mdl.get_desc")


def _described(desc: int, fn: str) -> Model:
    d = _handles.get(desc, Desc, fn, "model description")
    if d.model is None:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the description is empty; call acl.mdl.get_desc first")
    return d.model


def _tensor(desc: int, index: int, outputs: bool, fn: str) -> om.TensorInfo:
    m = _described(desc, fn)
    ts = m.om.outputs if outputs else m.om.inputs
    if not 0 <= index < len(ts):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: index {index} is out of range: the model has {len(ts)} "
                       + ("outputs" if outputs else "inputs"))
    return ts[index]


@_bare("acl.mdl.get_num_inputs", "k", 0)
def get_num_inputs(desc: int) -> int:
    return len(_described(desc, "acl.mdl.get_num_inputs").om.inputs)


@_bare("acl.mdl.get_num_outputs", "k", 0)
def get_num_outputs(desc: int) -> int:
    return len(_described(desc, "acl.mdl.get_num_outputs").om.outputs)


@_bare("acl.mdl.get_input_size_by_index", "kk", 0)
def get_input_size_by_index(desc: int, index: int) -> int:
    return _tensor(desc, index, False, "acl.mdl.get_input_size_by_index").size


@_bare("acl.mdl.get_output_size_by_index", "kk", 0)
def get_output_size_by_index(desc: int, index: int) -> int:
    return _tensor(desc, index, True, "acl.mdl.get_output_size_by_index").size


def _dims(name: str, dims: list[int]) -> dict:
    return {"name": name, "dimCount": len(dims), "dims": list(dims)}


@pyacl("acl.mdl.get_input_dims", "kk", fail=({},))
def get_input_dims(desc: int, index: int) -> dict:
    t = _tensor(desc, index, False, "acl.mdl.get_input_dims")
    return _dims(t.name, t.dims)


@pyacl("acl.mdl.get_input_dims_v2", "kk", fail=({},))
def get_input_dims_v2(desc: int, index: int) -> dict:
    """With static AIPP, H is scaled so that the dims multiply to the input size (aclmdlGetInputDimsV2)."""
    t = _tensor(desc, index, False, "acl.mdl.get_input_dims_v2")
    if t.aipp is None or dynamic_aipp(t):
        return _dims(t.name, t.dims)
    n, h, w, _ = t.dims
    num, den, _ = A.FORMATS[t.aipp["input_format"]]
    return _dims(t.name, [n, h * num // den, w, 1] if den > 1 else [n, h, w, num])


@pyacl("acl.mdl.get_output_dims", "kk", fail=({},))
def get_output_dims(desc: int, index: int) -> dict:
    t = _tensor(desc, index, True, "acl.mdl.get_output_dims")
    return _dims(t.name, t.dims)


@pyacl("acl.mdl.get_cur_output_dims", "kk", fail=({},))
def get_cur_output_dims(desc: int, index: int) -> dict:
    t = _tensor(desc, index, True, "acl.mdl.get_cur_output_dims")
    return _dims(t.name, _described(desc, "acl.mdl.get_cur_output_dims").cur_output_dims[index])


@_bare("acl.mdl.get_input_name_by_index", "kk", "")
def get_input_name_by_index(desc: int, index: int) -> str:
    return _tensor(desc, index, False, "acl.mdl.get_input_name_by_index").name


@_bare("acl.mdl.get_output_name_by_index", "kk", "")
def get_output_name_by_index(desc: int, index: int) -> str:
    return _tensor(desc, index, True, "acl.mdl.get_output_name_by_index").name


@_bare("acl.mdl.get_input_format", "kk", T.ACL_FORMAT_UNDEFINED)
def get_input_format(desc: int, index: int) -> int:
    return _tensor(desc, index, False, "acl.mdl.get_input_format").format


@_bare("acl.mdl.get_output_format", "kk", T.ACL_FORMAT_UNDEFINED)
def get_output_format(desc: int, index: int) -> int:
    return _tensor(desc, index, True, "acl.mdl.get_output_format").format


@_bare("acl.mdl.get_input_data_type", "kk", T.ACL_DT_UNDEFINED)
def get_input_data_type(desc: int, index: int) -> int:
    return _tensor(desc, index, False, "acl.mdl.get_input_data_type").dtype


@_bare("acl.mdl.get_output_data_type", "kk", T.ACL_DT_UNDEFINED)
def get_output_data_type(desc: int, index: int) -> int:
    return _tensor(desc, index, True, "acl.mdl.get_output_data_type").dtype


def _index_by_name(desc: int, name: str, outputs: bool, fn: str) -> int:
    m = _described(desc, fn)
    for k, t in enumerate(m.om.outputs if outputs else m.om.inputs):
        if t.name == name:
            return k
    raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the model has no {'output' if outputs else 'input'} {name!r}")


@pyacl("acl.mdl.get_input_index_by_name", "ks", fail=(0,))
def get_input_index_by_name(desc: int, name: str) -> int:
    return _index_by_name(desc, name, False, "acl.mdl.get_input_index_by_name")


@pyacl("acl.mdl.get_output_index_by_name", "ks", fail=(0,))
def get_output_index_by_name(desc: int, name: str) -> int:
    return _index_by_name(desc, name, True, "acl.mdl.get_output_index_by_name")


@pyacl("acl.mdl.get_dynamic_batch", "k", fail=({},))
def get_dynamic_batch(desc: int) -> dict:
    b = _described(desc, "acl.mdl.get_dynamic_batch").om.dynamic_batch
    return {"batchCount": len(b), "batch": list(b)}


@pyacl("acl.mdl.get_dynamic_hw", "ki", fail=({},))
def get_dynamic_hw(desc: int, index: int) -> dict:
    hw = _described(desc, "acl.mdl.get_dynamic_hw").om.dynamic_hw
    return {"hwCount": len(hw), "hw": [list(g) for g in hw]}


# ---------------------------------------------------------------- datasets


def create_dataset(*args: Any) -> int:
    """acl.mdl.create_dataset() -> dataset."""
    parser("acl.mdl.create_dataset", "")(args)
    return _handles.new(Dataset())


@pyacl("acl.mdl.destroy_dataset", "k")
def destroy_dataset(dataset: int) -> None:
    _handles.get(dataset, Dataset, "acl.mdl.destroy_dataset", "dataset")
    _handles.drop(dataset)


@pyacl("acl.mdl.add_dataset_buffer", "kk", fail=(0,))
def add_dataset_buffer(dataset: int, buffer: int) -> int:
    ds = _handles.get(dataset, Dataset, "acl.mdl.add_dataset_buffer", "dataset")
    _handles.get(buffer, DataBuffer, "acl.mdl.add_dataset_buffer", "data buffer")
    ds.buffers.append(buffer)
    return dataset


@_bare("acl.mdl.get_dataset_buffer", "kk", 0)
def get_dataset_buffer(dataset: int, index: int) -> int:
    ds = _handles.get(dataset, Dataset, "acl.mdl.get_dataset_buffer", "dataset")
    if not 0 <= index < len(ds.buffers):
        raise AclError(Code.ERROR_INVALID_PARAM, f"acl.mdl.get_dataset_buffer: index {index} of {len(ds.buffers)}")
    return ds.buffers[index]


@_bare("acl.mdl.get_dataset_num_buffers", "k", 0)
def get_dataset_num_buffers(dataset: int) -> int:
    return len(_handles.get(dataset, Dataset, "acl.mdl.get_dataset_num_buffers", "dataset").buffers)


# ---------------------------------------------------------------- dynamic batch / image size


def _dynamic_slot(model_id: int, dataset: int, index: int, fn: str) -> tuple[Model, _device.Bytes]:
    m = _model(model_id, fn)
    if not m.om.dynamic:
        raise AclError(Code.ERROR_MODEL_NOT_DYNAMIC, f"{fn}: model {model_id} has no dynamic batch, image size or "
                       "dims (build it with --dynamic_batch_size, --dynamic_image_size or --dynamic_dims)")
    ds = _handles.get(dataset, Dataset, fn, "dataset")
    dyn = len(m.om.inputs) - 1
    if index != dyn or index >= len(ds.buffers):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: index {index} is not the dynamic input: use "
                       f"acl.mdl.get_input_index_by_name(desc, '{om.DYNAMIC_TENSOR_NAME}') ({dyn}) and add a "
                       "buffer for it to the dataset first")
    b = _handles.get(ds.buffers[index], DataBuffer, fn, "data buffer")
    need = m.om.inputs[dyn].size
    if b.size < need:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the dynamic input's buffer has {b.size} bytes, needs {need}")
    return m, _device.memory(b.addr, need, True, fn, "dynamic input buffer")


@pyacl("acl.mdl.set_dynamic_batch_size", "IkkK")
def set_dynamic_batch_size(model_id: int, dataset: int, index: int, batch: int) -> None:
    fn = "acl.mdl.set_dynamic_batch_size"
    m, mem = _dynamic_slot(model_id, dataset, index, fn)
    if batch not in m.om.dynamic_batch:
        raise AclError(Code.ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, f"{fn}: batch {batch} is not one of the model's "
                       f"gears {m.om.dynamic_batch}")
    _device.report_access([(mem, True)], fn)
    mem.array(np.uint64)[:] = batch  # as aclmdlSetDynamicBatchSize, a copy of the value into the input buffer


@pyacl("acl.mdl.set_dynamic_hw_size", "IkkKK")
def set_dynamic_hw_size(model_id: int, dataset: int, index: int, height: int, width: int) -> None:
    fn = "acl.mdl.set_dynamic_hw_size"
    m, mem = _dynamic_slot(model_id, dataset, index, fn)
    if [height, width] not in m.om.dynamic_hw:
        raise AclError(Code.ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, f"{fn}: {height}x{width} is not one of the model's "
                       f"image sizes {m.om.dynamic_hw}")
    _device.report_access([(mem, True)], fn)
    mem.array(np.uint64)[:] = (height, width)


@pyacl("acl.mdl.set_input_dynamic_dims", "IkkO")
def set_input_dynamic_dims(model_id: int, dataset: int, index: int, dims: Any) -> None:
    """`dims` is an aclmdlIODims dict whose "dims" are the dims of all inputs of one --dynamic_dims gear."""
    fn = "acl.mdl.set_input_dynamic_dims"
    if not isinstance(dims, dict) or not isinstance(dims.get("dims"), (list, tuple)):
        raise TypeError(f"{fn} args parse failed")
    m, mem = _dynamic_slot(model_id, dataset, index, fn)
    if not m.om.dynamic_dims:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: model {model_id} was built with a dynamic batch or image "
                       "size: use acl.mdl.set_dynamic_batch_size / set_dynamic_hw_size")
    full = [int(v) for v in dims["dims"]][: int(dims.get("dimCount", len(dims["dims"])))]
    for gear in m.om.dynamic_dims:
        if full_dims(m.om, gear) == full:
            _device.report_access([(mem, True)], fn)
            mem.array(np.uint64)[:] = gear
            return
    raise AclError(Code.ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, f"{fn}: dims {full} are not one of the model's gears "
                   f"{[full_dims(m.om, g) for g in m.om.dynamic_dims]} (acl.mdl.get_input_dynamic_dims)")


@pyacl("acl.mdl.get_input_dynamic_gear_count", "kk", fail=(0,))
def get_input_dynamic_gear_count(desc: int, index: int) -> int:
    """The --dynamic_dims gear count (0 for other models); `index` is reserved (-1) and not used."""
    return len(_described(desc, "acl.mdl.get_input_dynamic_gear_count").om.dynamic_dims)


@pyacl("acl.mdl.get_input_dynamic_dims", "kkk", fail=([],))
def get_input_dynamic_dims(desc: int, index: int, gear_count: int) -> list[dict]:
    """One aclmdlIODims per gear (the dims of all inputs); `index` is reserved (-1) and not used."""
    fn = "acl.mdl.get_input_dynamic_dims"
    m = _described(desc, fn).om
    if gear_count != len(m.dynamic_dims):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: gear_count {gear_count}, the model has "
                       f"{len(m.dynamic_dims)} (acl.mdl.get_input_dynamic_gear_count)")
    return [_dims("", full_dims(m, g)) for g in m.dynamic_dims]


# ---------------------------------------------------------------- execution


def _buffers(dataset: int, what: str, fn: str) -> list[tuple[int, int]]:
    ds = _handles.get(dataset, Dataset, fn, f"{what} dataset")
    return [(b.addr, b.size) for b in (_handles.get(h, DataBuffer, fn, f"{what} data buffer") for h in ds.buffers)]


def _prepare(model_id: int, inputs: int, outputs: int, fn: str) -> tuple[Model, Any]:
    """Check the call (nothing runs on a bad one) and report the bytes it read at the call itself."""
    m = _model(model_id, fn)

    def claim(addr: int, nbytes: int, write: bool, what: str) -> _device.Bytes:
        return _device.operand(addr, nbytes, write, fn, what)  # device memory (in EP mode: host refused)

    ex = prepare(m, _buffers(inputs, "input", fn), _buffers(outputs, "output", fn), claim, fn)
    _device.report_access([(b, False) for b in ex.read_now], fn)
    return m, ex


@pyacl("acl.mdl.execute", "Ikk")
def execute(model_id: int, inputs: int, outputs: int) -> None:
    """Synchronous: the model runs now, reading and writing device memory as a host-visible call."""
    fn = "acl.mdl.execute"
    _device.require_context(fn)
    _, ex = _prepare(model_id, inputs, outputs, fn)
    _device.report_access([*((r, False) for r in ex.reads), *((w, True) for w in ex.writes)], fn)
    _device.run_now(ex.run, fn)


@pyacl("acl.mdl.execute_async", "Ikkk")
def execute_async(model_id: int, inputs: int, outputs: int, stream: int) -> None:
    """Queued on `stream` like a kernel: results are valid after acl.rt.synchronize_stream."""
    fn = "acl.mdl.execute_async"
    _device.require_context(fn)
    m, ex = _prepare(model_id, inputs, outputs, fn)
    _device.enqueue(stream, "kernel", f"model {m.id}", ex.run, ex.reads, ex.writes, fn, keep=m)


# ---------------------------------------------------------------- dynamic AIPP


@dataclass(eq=False)
class AippSet:
    """aclmdlAIPP: one parameter dict per image of the batch (set_aipp_* without batch_index set them all)."""

    images: list[dict[str, Any]]


def create_aipp(*args: Any) -> int:
    """acl.mdl.create_aipp(batch_size) -> aipp_set (0 on failure)."""
    (batch,) = parser("acl.mdl.create_aipp", "k")(args)
    if not 1 <= batch <= 1024:
        failed(AclError(Code.ERROR_INVALID_PARAM, f"acl.mdl.create_aipp: batch_size {batch} must be 1..1024"))
        return 0
    return _handles.new(AippSet([{} for _ in range(batch)]))


@pyacl("acl.mdl.destroy_aipp", "k")
def destroy_aipp(aipp_set: int) -> None:
    _handles.get(aipp_set, AippSet, "acl.mdl.destroy_aipp", "dynamic AIPP parameter set")
    _handles.drop(aipp_set)


def _aipp_setter(name: str, fmt: str, keys: tuple[str, ...], per_image: bool, convert: Any = None) -> Any:
    """A set_aipp_* call: its values go to `keys` of every image, or of image `batch_index` (the last argument)."""
    fn = f"acl.mdl.{name}"

    @pyacl(fn, "k" + fmt)
    def setter(aipp_set: int, *values: Any) -> None:
        a = _handles.get(aipp_set, AippSet, fn, "dynamic AIPP parameter set")
        targets = a.images
        if per_image:
            *values, index = values
            if not 0 <= index < len(a.images):
                raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: batch_index {index} of a {len(a.images)}-image set")
            targets = [a.images[index]]
        update = convert(fn, values) if convert else dict(zip(keys, values, strict=True))
        for img in targets:
            img.update(update)

    setter.__name__ = name
    return setter


def _input_format(fn: str, values: list) -> dict:
    fmt = A.INPUT_FORMATS.get(values[0])
    if fmt is None:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: input format {values[0]}: aclsim applies "
                       + ", ".join(f"{k} ({v})" for k, v in A.INPUT_FORMATS.items()))
    return {"input_format": fmt}


def _switch(flag: str, keys: tuple[str, ...]) -> Any:
    """Parameters behind an on/off switch: stored only when it is on (off leaves the step out)."""
    def convert(fn: str, values: list) -> dict:
        on, *rest = values
        return {flag: bool(on), **(dict(zip(keys, rest, strict=True)) if on else dict.fromkeys(keys, 0))}
    return convert


def _refused(what: str) -> Any:
    def convert(fn: str, values: list) -> dict:
        if values[0]:
            raise AclError(Code.ERROR_API_NOT_SUPPORT, f"{fn}: {what} is not emulated by aclsim's AIPP")
        return {}
    return convert


_CSC = (*(f"matrix_r{r}c{c}" for r in range(3) for c in range(3)), *(f"output_bias_{i}" for i in range(3)),
        *(f"input_bias_{i}" for i in range(3)))
set_aipp_input_format = _aipp_setter("set_aipp_input_format", "i", (), False, _input_format)
set_aipp_src_image_size = _aipp_setter("set_aipp_src_image_size", "ii", ("src_image_size_w", "src_image_size_h"),
                                       False)
set_aipp_csc_params = _aipp_setter("set_aipp_csc_params", "i" * 16, (), False, _switch("csc_switch", _CSC))
set_aipp_rbuv_swap_switch = _aipp_setter("set_aipp_rbuv_swap_switch", "i", ("rbuv_swap_switch",), False)
set_aipp_ax_swap_switch = _aipp_setter("set_aipp_ax_swap_switch", "i", (), False, _refused("the AX swap"))
set_aipp_scf_params = _aipp_setter("set_aipp_scf_params", "iiiiik", (), True, _refused("scaling (SCF)"))
set_aipp_crop_params = _aipp_setter("set_aipp_crop_params", "iiiiik", (), True, _switch(
    "crop", ("load_start_pos_w", "load_start_pos_h", "crop_size_w", "crop_size_h")))
set_aipp_padding_params = _aipp_setter("set_aipp_padding_params", "iiiiik", (), True, _switch(
    "padding", ("top_padding_size", "bottom_padding_size", "left_padding_size", "right_padding_size")))
set_aipp_dtc_pixel_mean_params = _aipp_setter("set_aipp_dtc_pixel_mean_params", "iiiik",
                                              tuple(f"mean_chn_{i}" for i in range(4)), True)
set_aipp_dtc_pixel_min_params = _aipp_setter("set_aipp_dtc_pixel_min_params", "ffffk",
                                             tuple(f"min_chn_{i}" for i in range(4)), True)
set_aipp_pixel_var_reci = _aipp_setter("set_aipp_pixel_var_reci", "ffffk",
                                       tuple(f"var_reci_chn_{i}" for i in range(4)), True)


def _write_aipp(m: Model, ds: Dataset, index: int, a: AippSet, fn: str) -> None:
    t = m.om.inputs[index]
    related = [x for x in m.om.inputs if dynamic_aipp(x)]
    if t.name != A.DYNAMIC_TENSOR or not related:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: input {index} is not the dynamic AIPP input (the model "
                       f"needs aipp_mode: dynamic; its index is acl.mdl.get_input_index_by_name(desc, "
                       f"'{A.DYNAMIC_TENSOR}'))")
    if len(a.images) != related[0].dims[0]:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the parameter set is for {len(a.images)} images, the "
                       f"model input {related[0].name} has batch {related[0].dims[0]}")
    if index >= len(ds.buffers):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: add a buffer for input {index} to the dataset first")
    b = _handles.get(ds.buffers[index], DataBuffer, fn, "data buffer")
    rows = A.pack(a.images).reshape(-1)
    if b.size < t.size:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the dynamic AIPP input's buffer has {b.size} bytes, "
                       f"needs {t.size} (acl.mdl.get_input_size_by_index)")
    mem = _device.memory(b.addr, rows.nbytes, True, fn, "dynamic AIPP input buffer")
    _device.report_access([(mem, True)], fn)
    mem.array(np.float64)[:] = rows


@pyacl("acl.mdl.get_aipp_type", "Ik", fail=(0, 0))
def get_aipp_type(model_id: int, index: int) -> tuple[int, int]:
    """(aclmdlInputAippType, the attached dynamic AIPP input's index or 0xFFFFFFFF) of input `index`."""
    fn = "acl.mdl.get_aipp_type"
    ins = _model(model_id, fn).om.inputs
    if not 0 <= index < len(ins):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: index {index} is out of range: the model has {len(ins)} "
                       "inputs")
    t = ins[index]
    if dynamic_aipp(t):
        return 2, len(ins) - 1  # ACL_DATA_WITH_DYNAMIC_AIPP, the parameters' input (aclsim puts it last)
    return (3 if t.name == A.DYNAMIC_TENSOR else 1 if t.aipp else 0), 0xFFFFFFFF


@pyacl("acl.mdl.set_input_aipp", "IkKk")
def set_input_aipp(model_id: int, dataset: int, index: int, aipp_set: int) -> None:
    """Write the parameters into the dynamic AIPP input (`index` is that input's, as in aclmdlSetInputAIPP)."""
    fn = "acl.mdl.set_input_aipp"
    a = _handles.get(aipp_set, AippSet, fn, "dynamic AIPP parameter set")
    _write_aipp(_model(model_id, fn), _handles.get(dataset, Dataset, fn, "dataset"), index, a, fn)


@pyacl("acl.mdl.set_aipp_by_input_index", "IkKk")
def set_aipp_by_input_index(model_id: int, dataset: int, index: int, aipp_set: int) -> None:
    """As set_input_aipp, with `index` the image input the dynamic AIPP belongs to."""
    fn = "acl.mdl.set_aipp_by_input_index"
    m = _model(model_id, fn)
    if not 0 <= index < len(m.om.inputs) or not dynamic_aipp(m.om.inputs[index]):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: input {index} has no dynamic AIPP")
    a = _handles.get(aipp_set, AippSet, fn, "dynamic AIPP parameter set")
    _write_aipp(m, _handles.get(dataset, Dataset, fn, "dataset"), len(m.om.inputs) - 1, a, fn)


__getattr__ = not_emulated("acl.mdl", generic("aclsim emulates the acl.mdl calls docs/models.md lists "
                                              "(no AIPP queries or model queues)"))
