"""aclsim's `.om` container: the ONNX model plus what ATC fixes at conversion time.

A real OM (built by Huawei's ATC) is an NPU binary for one chip; aclsim cannot run it. `aclsim atc`
writes this container instead: the magic `ACLSIMOM`, a version, a JSON header (IO description as the
`acl.mdl` description calls report it, AIPP configuration, dynamic batch / image size gears, output
types) and the ONNX bytes. A real OM starts with GE's ModelFileHeader magic 0x444F4D49 ("IMOD" in
little-endian bytes); it is recognised and refused with a message saying how to get the aclsim equivalent.
"""

from __future__ import annotations

import json
import struct
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import AclError, Code

MAGIC = b"ACLSIMOM"
VERSION = 1
REAL_OM_MAGIC = struct.pack("<I", 0x444F4D49)  # GE ModelFileHeader.magic (MODEL_FILE_MAGIC_NUM)
ONNX_HINT = ("convert the ONNX model with `aclsim atc --model=model.onnx --framework=5 --output=model "
             "--soc_version=...` (the same flags as ATC), or pass the .onnx file to acl.mdl.load_from_file")
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
    head = json.dumps(meta).encode()
    return MAGIC + struct.pack("<II", VERSION, len(head)) + head + m.onnx


def is_onnx(data: bytes) -> bool:
    """An ONNX ModelProto starts with field 1 (ir_version, varint): byte 0x08."""
    return data[:1] == b"\x08"


def load(data: bytes, where: str, fn: str) -> tuple[OmModel | None, bytes | None]:
    """(model, None) for an aclsim container, (None, onnx_bytes) for raw ONNX; AclError otherwise."""
    if data.startswith(MAGIC):
        try:
            version, n = struct.unpack_from("<II", data, len(MAGIC))
            if version != VERSION:
                raise ValueError(f"container version {version}, this aclsim reads {VERSION}")
            start = len(MAGIC) + 8
            meta = json.loads(data[start:start + n])
            meta["inputs"] = [TensorInfo(**t) for t in meta["inputs"]]
            meta["outputs"] = [TensorInfo(**t) for t in meta["outputs"]]
            return OmModel(onnx=data[start + n:], **meta), None
        except (ValueError, KeyError, TypeError, struct.error) as e:
            raise AclError(Code.ERROR_DESERIALIZE_MODEL, f"{fn}: {where} is a damaged aclsim model ({e}); "
                           "rebuild it with `aclsim atc`")
    if data.startswith(REAL_OM_MAGIC):
        raise AclError(Code.ERROR_PARSE_MODEL, f"{fn}: {where} is an OM model built by Huawei's ATC for an NPU; "
                       f"aclsim cannot run NPU binaries: {ONNX_HINT}")
    if is_onnx(data):
        return None, data
    raise AclError(Code.ERROR_PARSE_MODEL, f"{fn}: {where} is neither an aclsim .om nor an ONNX model: {ONNX_HINT}")
