"""aclsim's `.om` container: the ONNX model plus what ATC fixes at conversion time.

A real OM (built by Huawei's ATC) is an NPU binary for one chip; aclsim cannot run it. `aclsim atc`
writes this container instead:

    magic "ACLSIMOM" | version (u32 LE) | header length (u32 LE) | header (UTF-8 JSON) | payload (ONNX bytes)

The header is the IO description as the `acl.mdl` description calls report it, AIPP configuration, dynamic
batch / image size gears and output types; from version 2 it also records the payload's length and CRC-32
(GE's ModelFileHeader likewise carries the model's length and a checksum), so a cut or corrupted file is
refused at load, not at execution. Version 1 files (no length, no checksum) still load.

`load` checks the container only: magic, version, sizes, the header's schema (every field present, of
its type). `models/verify.py` checks the ONNX graph and the header against it. A real OM starts with GE's
ModelFileHeader magic 0x444F4D49 ("IMOD" in little-endian bytes); it is recognised and refused with a
message saying how to get the aclsim equivalent.

Codes (acl_base.h): a container that cannot be decoded (truncated header, not JSON, a field of the wrong
type, unknown fields, checksum mismatch, unknown version) -> ACL_ERROR_DESERIALIZE_MODEL (100012); a payload
shorter or longer than the header says -> ACL_ERROR_MODEL_SIZE_INVALID (100015); a header field missing ->
ACL_ERROR_MODEL_MISSING_ATTR (100016); not a model at all -> ACL_ERROR_PARSE_MODEL (100013).
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import AclError, Code

MAGIC = b"ACLSIMOM"
VERSION = 2
_READS = (1, 2)  # container versions this aclsim loads
_PREFIX = len(MAGIC) + 8  # magic, version, header length
REAL_OM_MAGIC = struct.pack("<I", 0x444F4D49)  # GE ModelFileHeader.magic (MODEL_FILE_MAGIC_NUM)
ONNX_HINT = ("convert the ONNX model with `aclsim atc --model=model.onnx --framework=5 --output=model "
             "--soc_version=...` (the same flags as ATC), or pass the .onnx file to acl.mdl.load_from_file")
REBUILD = "rebuild it with `aclsim atc`"
DYNAMIC_TENSOR_NAME = "ascend_mbatch_shape_data"  # ACL_DYNAMIC_TENSOR_NAME in acl_mdl.h


@dataclass
class TensorInfo:
    """One model input or output as the description calls report it."""

    name: str
    dims: list[int]  # -1 where a dynamic batch / image size makes a dim variable
    dtype: int  # aclDataType the application sees
    format: int  # aclFormat
    size: int  # bytes at the largest gear
    graph_dtype: int = -1  # aclDataType inside the ONNX graph (may differ: --input_fp16_nodes, AIPP, --output_type)
    aipp: dict[str, Any] | None = None  # static AIPP configuration applied to this input


@dataclass
class OmModel:
    onnx: bytes
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    dynamic_batch: list[int] = field(default_factory=list)
    dynamic_hw: list[list[int]] = field(default_factory=list)
    soc_version: str = ""
    weight_size: int = 0
    dynamic_dims: list[list[int]] = field(default_factory=list)  # --dynamic_dims gears: values of the -1 dims

    @property
    def dynamic(self) -> bool:
        return bool(self.dynamic_batch or self.dynamic_hw or self.dynamic_dims)


def dump(m: OmModel) -> bytes:
    meta = asdict(m)
    del meta["onnx"]
    meta["payload_size"] = len(m.onnx)
    meta["payload_crc32"] = zlib.crc32(m.onnx)
    head = json.dumps(meta).encode()
    return MAGIC + struct.pack("<II", VERSION, len(head)) + head + m.onnx


def is_onnx(data: bytes) -> bool:
    """An ONNX ModelProto starts with field 1 (ir_version, varint): byte 0x08."""
    return data[:1] == b"\x08"


class ContainerError(Exception):
    """The container is damaged; `code` is the ACL code it maps to."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------------------------------ the header's schema
def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _ints(v: Any) -> bool:
    return isinstance(v, list) and all(_int(x) for x in v)


_KINDS = {  # kind -> (test, what the error message says it must be)
    "str": (lambda v: isinstance(v, str), "a string"),
    "int": (_int, "an integer"),
    "ints": (_ints, "a list of integers"),
    "int lists": (lambda v: isinstance(v, list) and all(_ints(x) for x in v), "a list of lists of integers"),
    "tensors": (lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v), "a list of objects"),
    "aipp": (lambda v: v is None or isinstance(v, dict), "null or an object"),
}
_TENSOR = {"name": "str", "dims": "ints", "dtype": "int", "format": "int", "size": "int", "graph_dtype": "int",
           "aipp": "aipp"}
_MODEL = {"inputs": "tensors", "outputs": "tensors", "dynamic_batch": "ints", "dynamic_hw": "int lists",
          "soc_version": "str", "weight_size": "int", "dynamic_dims": "int lists"}
_PAYLOAD = {"payload_size": "int", "payload_crc32": "int"}  # version 2


def _fields(obj: dict, schema: dict[str, str], where: str) -> dict[str, Any]:
    unknown = sorted(set(obj) - set(schema))
    if unknown:
        raise ContainerError(Code.ERROR_DESERIALIZE_MODEL, f"{where} has unknown fields {unknown}")
    for key, kind in schema.items():
        if key not in obj:
            raise ContainerError(Code.ERROR_MODEL_MISSING_ATTR, f"{where} lacks the field {key!r}")
        test, what = _KINDS[kind]
        if not test(obj[key]):
            raise ContainerError(Code.ERROR_DESERIALIZE_MODEL,
                                 f"{where}: {key} is {json.dumps(obj[key])[:60]}, it must be {what}")
    return obj


def _header(data: bytes) -> tuple[int, dict[str, Any], bytes]:
    """(version, header, payload) of an aclsim container; ContainerError when it is damaged."""
    if len(data) < _PREFIX:
        raise ContainerError(Code.ERROR_DESERIALIZE_MODEL, f"{len(data)} bytes: too short for the container header")
    version, n = struct.unpack_from("<II", data, len(MAGIC))
    if version not in _READS:
        raise ContainerError(Code.ERROR_DESERIALIZE_MODEL, f"container version {version}; this aclsim reads "
                             f"versions {', '.join(map(str, _READS))}")
    if n > len(data) - _PREFIX:
        raise ContainerError(Code.ERROR_MODEL_SIZE_INVALID, f"the header says it is {n} bytes, but only "
                             f"{len(data) - _PREFIX} follow: the model is cut short")
    try:
        meta = json.loads(data[_PREFIX:_PREFIX + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ContainerError(Code.ERROR_DESERIALIZE_MODEL, f"the header is not UTF-8 JSON ({e})")
    if not isinstance(meta, dict):
        raise ContainerError(Code.ERROR_DESERIALIZE_MODEL, "the header is not a JSON object")
    payload = data[_PREFIX + n:]
    _fields(meta, {**_MODEL, **(_PAYLOAD if version >= 2 else {})}, "the header")
    for side in ("inputs", "outputs"):
        for k, t in enumerate(meta[side]):
            _fields(t, _TENSOR, f"{side[:-1]} {k} of the header")
    if version >= 2:
        size, crc = meta.pop("payload_size"), meta.pop("payload_crc32")
        if size != len(payload):
            raise ContainerError(Code.ERROR_MODEL_SIZE_INVALID, f"the ONNX payload is {len(payload)} bytes, the "
                                 f"header says {size}: the model is {'cut short' if len(payload) < size else 'padded'}")
        if zlib.crc32(payload) != crc:
            raise ContainerError(Code.ERROR_DESERIALIZE_MODEL, "the ONNX payload does not match the header's "
                                 "checksum: the file is corrupted")
    return version, meta, payload


def load(data: bytes, where: str, fn: str) -> tuple[OmModel | None, bytes | None]:
    """(model, None) for an aclsim container, (None, onnx_bytes) for raw ONNX; AclError otherwise."""
    if data.startswith(MAGIC):
        try:
            _, meta, payload = _header(data)
        except ContainerError as e:
            raise AclError(e.code, f"{fn}: {where} is a damaged aclsim model: {e}; {REBUILD}")
        meta["inputs"] = [TensorInfo(**t) for t in meta["inputs"]]
        meta["outputs"] = [TensorInfo(**t) for t in meta["outputs"]]
        return OmModel(onnx=payload, **meta), None
    if data.startswith(REAL_OM_MAGIC):
        raise AclError(Code.ERROR_PARSE_MODEL, f"{fn}: {where} is an OM model built by Huawei's ATC for an NPU; "
                       f"aclsim cannot run NPU binaries: {ONNX_HINT}")
    if is_onnx(data):
        return None, data
    raise AclError(Code.ERROR_PARSE_MODEL, f"{fn}: {where} is neither an aclsim .om nor an ONNX model: {ONNX_HINT}")
