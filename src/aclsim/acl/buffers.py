"""Top-level pyACL data buffers (`aclDataBuffer`) and tensor descriptions (`aclTensorDesc`).

Signatures and failure results follow the pyACL reference (create_* return a bare handle, 0 on failure;
getters return a bare value). Memory a buffer points to is checked when a model or operator uses it, as
on the device, not when the buffer is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import AclError, Code, record_error
from ..models import types as T
from . import _device, _handles
from ._args import parser, pyacl

ACL_MAX_DIM_CNT = 128
ACL_UNKNOWN_RANK = 0xFFFFFFFFFFFFFFFE  # get_tensor_desc_num_dims of a dims == [-2] description


@dataclass(eq=False)
class DataBuffer:
    addr: int
    size: int


@dataclass(eq=False)
class TensorDesc:
    dtype: int
    dims: list[int]
    format: int
    name: str = ""
    storage_format: int = T.ACL_FORMAT_UNDEFINED
    storage_dims: list[int] = field(default_factory=list)
    shape_range: list[list[int]] = field(default_factory=list)
    const: bytes | None = None
    placement: int = 0
    dynamic_input: str = ""

    @property
    def element_count(self) -> int:
        if any(d < 0 for d in self.dims):
            return 0  # unknown dims: nothing to count yet
        n = 1
        for d in self.dims:
            n *= d
        return n


def failed(err: AclError) -> None:
    """A pyACL call that returns no code failed with `err`: its message goes to acl.get_recent_err_msg()."""
    record_error(str(err))


def _bare(fn: str, fmt: str, on_fail: Any):
    """A pyACL call that returns a bare value: parse args, and on AclError record it and return `on_fail`."""
    parse = parser(fn, fmt)

    def deco(impl):
        def wrapper(*args: Any) -> Any:
            try:
                return impl(*parse(args))
            except AclError as e:
                failed(e)
                return on_fail

        wrapper.__name__ = impl.__name__
        wrapper.__qualname__ = fn
        wrapper.__doc__ = impl.__doc__
        return wrapper

    return deco


# ---------------------------------------------------------------- data buffers


@_bare("acl.create_data_buffer", "kk", 0)
def create_data_buffer(data: int, size: int) -> int:
    """acl.create_data_buffer(data, size) -> buffer (0 on failure). data 0 needs size 0 (an empty buffer)."""
    if data == 0 and size != 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"acl.create_data_buffer: data is 0 (NULL) but size is {size}; "
                       "an empty buffer has size 0")
    return _handles.new(DataBuffer(data, size))


@pyacl("acl.destroy_data_buffer", "k")
def destroy_data_buffer(buffer: int) -> None:
    _handles.get(buffer, DataBuffer, "acl.destroy_data_buffer", "data buffer")
    _handles.drop(buffer)


@_bare("acl.get_data_buffer_addr", "k", 0)
def get_data_buffer_addr(buffer: int) -> int:
    return _handles.get(buffer, DataBuffer, "acl.get_data_buffer_addr", "data buffer").addr


@_bare("acl.get_data_buffer_size", "k", 0)
def get_data_buffer_size(buffer: int) -> int:
    """Deprecated form: the size as a 32-bit value (aclGetDataBufferSize returns uint32_t)."""
    return _handles.get(buffer, DataBuffer, "acl.get_data_buffer_size", "data buffer").size & 0xFFFFFFFF


@_bare("acl.get_data_buffer_size_v2", "k", 0)
def get_data_buffer_size_v2(buffer: int) -> int:
    return _handles.get(buffer, DataBuffer, "acl.get_data_buffer_size_v2", "data buffer").size


@pyacl("acl.update_data_buffer", "kkk")
def update_data_buffer(buffer: int, data: int, size: int) -> None:
    b = _handles.get(buffer, DataBuffer, "acl.update_data_buffer", "data buffer")
    if data == 0 and size != 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"acl.update_data_buffer: data is 0 (NULL) but size is {size}")
    b.addr, b.size = data, size


# ---------------------------------------------------------------- tensor descriptions


def _dims(fn: str, dims: Any) -> list[int]:
    if dims is None:
        return []
    if not isinstance(dims, (list, tuple)) or not all(isinstance(d, int) for d in dims):
        raise TypeError(f"{fn} args parse failed")
    if len(dims) > ACL_MAX_DIM_CNT:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {len(dims)} dims; at most {ACL_MAX_DIM_CNT}")
    if any(d < -2 for d in dims) or (-2 in dims and list(dims) != [-2]):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: dims {list(dims)}: each dim is >= 0, -1 (unknown) "
                       "or the whole shape is [-2] (unknown rank)")
    return list(dims)


def _desc(handle: int, fn: str) -> TensorDesc:
    return _handles.get(handle, TensorDesc, fn, "tensor description")


def create_tensor_desc(*args: Any) -> int:
    """acl.create_tensor_desc(data_type, dims, format) -> desc (0 on failure)."""
    fn = "acl.create_tensor_desc"
    dtype, dims, fmt = parser(fn, "iOi")(args)
    try:
        return _handles.new(TensorDesc(dtype, _dims(fn, dims), fmt))
    except AclError as e:
        failed(e)
        return 0


def destroy_tensor_desc(*args: Any) -> None:
    (h,) = parser("acl.destroy_tensor_desc", "k")(args)
    if _handles.find(h, TensorDesc) is not None:
        _handles.drop(h)


@_bare("acl.get_tensor_desc_type", "k", T.ACL_DT_UNDEFINED)
def get_tensor_desc_type(desc: int) -> int:
    return _desc(desc, "acl.get_tensor_desc_type").dtype


@_bare("acl.get_tensor_desc_format", "k", T.ACL_FORMAT_UNDEFINED)
def get_tensor_desc_format(desc: int) -> int:
    return _desc(desc, "acl.get_tensor_desc_format").format


@_bare("acl.get_tensor_desc_size", "k", 0)
def get_tensor_desc_size(desc: int) -> int:
    d = _desc(desc, "acl.get_tensor_desc_size")
    return d.element_count * T.SIZES.get(d.dtype, 0)


@_bare("acl.get_tensor_desc_element_count", "k", 0)
def get_tensor_desc_element_count(desc: int) -> int:
    return _desc(desc, "acl.get_tensor_desc_element_count").element_count


@_bare("acl.get_tensor_desc_num_dims", "k", 0)
def get_tensor_desc_num_dims(desc: int) -> int:
    d = _desc(desc, "acl.get_tensor_desc_num_dims")
    return ACL_UNKNOWN_RANK if d.dims == [-2] else len(d.dims)


def _dim(fn: str, desc: int, index: int) -> int:
    d = _desc(desc, fn)
    if not 0 <= index < len(d.dims) or d.dims == [-2]:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: index {index} is out of range: the description has "
                       f"{len(d.dims)} dims")
    return d.dims[index]


@_bare("acl.get_tensor_desc_dim", "kk", -1)
def get_tensor_desc_dim(desc: int, index: int) -> int:
    """Deprecated form: the dim, or -1 on failure."""
    return _dim("acl.get_tensor_desc_dim", desc, index)


@pyacl("acl.get_tensor_desc_dim_v2", "kk", fail=(-1,))
def get_tensor_desc_dim_v2(desc: int, index: int) -> int:
    return _dim("acl.get_tensor_desc_dim_v2", desc, index)


@pyacl("acl.get_tensor_desc_dim_range", "kkk", fail=([],))
def get_tensor_desc_dim_range(desc: int, index: int, dim_range_num: int) -> list[int]:
    d = _desc(desc, "acl.get_tensor_desc_dim_range")
    if dim_range_num != 2 or not 0 <= index < max(len(d.dims), len(d.shape_range)):
        raise AclError(Code.ERROR_INVALID_PARAM, f"acl.get_tensor_desc_dim_range: index {index} / dim_range_num "
                       f"{dim_range_num} invalid (dim_range_num is 2: [min, max])")
    if index < len(d.shape_range):
        return list(d.shape_range[index])
    return [d.dims[index], d.dims[index]]


def set_tensor_desc_name(*args: Any) -> None:
    h, name = parser("acl.set_tensor_desc_name", "ks")(args)
    d = _handles.find(h, TensorDesc)
    if d is not None:
        d.name = name


@_bare("acl.get_tensor_desc_name", "k", "")
def get_tensor_desc_name(desc: int) -> str:
    return _desc(desc, "acl.get_tensor_desc_name").name


@pyacl("acl.set_tensor_shape", "kO")
def set_tensor_shape(desc: int, dims: Any) -> None:
    _desc(desc, "acl.set_tensor_shape").dims = _dims("acl.set_tensor_shape", dims)


@pyacl("acl.set_tensor_format", "ki")
def set_tensor_format(desc: int, fmt: int) -> None:
    _desc(desc, "acl.set_tensor_format").format = fmt


@pyacl("acl.set_tensor_storage_format", "ki")
def set_tensor_storage_format(desc: int, fmt: int) -> None:
    _desc(desc, "acl.set_tensor_storage_format").storage_format = fmt


@pyacl("acl.set_tensor_storage_shape", "kO")
def set_tensor_storage_shape(desc: int, dims: Any) -> None:
    _desc(desc, "acl.set_tensor_storage_shape").storage_dims = _dims("acl.set_tensor_storage_shape", dims)


@pyacl("acl.set_tensor_shape_range", "kkO")
def set_tensor_shape_range(desc: int, dim_range_num: int, ranges: Any) -> None:
    fn = "acl.set_tensor_shape_range"
    d = _desc(desc, fn)
    if (not isinstance(ranges, (list, tuple)) or len(ranges) != dim_range_num
            or not all(isinstance(r, (list, tuple)) and len(r) == 2 for r in ranges)):
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: ranges must be {dim_range_num} [min, max] pairs")
    d.shape_range = [list(r) for r in ranges]


@pyacl("acl.set_tensor_const", "kkk")
def set_tensor_const(desc: int, data: int, length: int) -> None:
    d = _desc(desc, "acl.set_tensor_const")
    if data == 0 or length == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, "acl.set_tensor_const: data must not be NULL and length > 0")
    d.const = _device.memory(data, length, False, "acl.set_tensor_const", "data").array().tobytes()


@pyacl("acl.set_tensor_place_ment", "ki")
def set_tensor_place_ment(desc: int, mem_type: int) -> None:
    _desc(desc, "acl.set_tensor_place_ment").placement = mem_type


@pyacl("acl.set_tensor_dynamic_input", "ks")
def set_tensor_dynamic_input(desc: int, name: str) -> None:
    _desc(desc, "acl.set_tensor_dynamic_input").dynamic_input = name


def _type_size(fn: str) -> Any:
    @_bare(fn, "i", 0)
    def size(data_type: int) -> int:
        if data_type not in T.SIZES:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: unknown data type {data_type}")
        return T.SIZES[data_type]

    size.__name__ = fn.rsplit(".", 1)[1]
    return size


get_data_type_size = _type_size("acl.get_data_type_size")
data_type_size = _type_size("acl.data_type_size")  # aclDataTypeSize: pyACL's documented name; 0 when unknown
