"""Host-side kernel arguments as pyasc's launcher takes them (pyasc `runtime/launcher.py`).

Host arrays (numpy arrays, torch CPU tensors and any object with `__dlpack__`,
`__array_interface__` or the buffer protocol) are copied to device memory for the launch and back
after it; plain values (numbers, strings, enums, element types, tiling structs, and tuples or lists
of those) pass by value; anything else is refused at the launch. torch is never imported: a tensor
is reached through DLPack (`np.from_dlpack`, which shares its memory); a bfloat16 tensor, which numpy's
DLPack lacks, through an int16 view of the same memory read as ml_dtypes bfloat16 (bf16.py).
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Any

import numpy as np

from ..types import bf16
from ..types.dtypes import DataType
from ..types.struct import Struct

ACCEPTED = ("numpy arrays, torch CPU tensors or objects with __dlpack__, __array_interface__ or the buffer protocol "
            "(copied in and out), device memory (DeviceArray, asc.GlobalAddress), numbers, strings, enums, "
            "asc element types, tiling structs (asc.language.core.struct.Struct), and tuples or lists of values")
_KDLCPU = 1  # DLPack device type of host memory
_SCALARS = (int, float, complex, str, np.generic, Enum, DataType, type(None))


def by_value(v: Any) -> tuple[bool, Any]:
    """(True, what the kernel receives) for a plain value passed by value, else (False, None)."""
    if isinstance(v, _SCALARS):
        return True, v
    if isinstance(v, Struct):
        return True, v.snapshot()  # the kernel gets the struct as it was at the launch
    if isinstance(v, tuple | list) and all(by_value(x)[0] for x in v):
        return True, v
    return False, None


def host_view(name: str, v: Any) -> np.ndarray | None:
    """A numpy view of a host array-like kernel argument (sharing its memory), or None if `v` is none."""
    if isinstance(v, np.ndarray):
        return v
    if hasattr(v, "__dlpack__") and hasattr(v, "__dlpack_device__"):
        device = v.__dlpack_device__()
        if int(device[0]) != _KDLCPU:
            raise TypeError(f"kernel argument {name!r} lives on DLPack device {tuple(device)}, not in host memory: "
                            "aclsim runs kernels on the CPU, pass a CPU tensor (t.cpu())")
        if getattr(v, "requires_grad", False):
            v = v.detach()  # same memory; DLPack refuses tensors that require grad
        try:
            return np.from_dlpack(v)
        except (BufferError, TypeError, RuntimeError) as e:
            if str(getattr(v, "dtype", "")) == "torch.bfloat16":  # numpy's DLPack has no bfloat16: share the bits
                torch = sys.modules[type(v).__module__.split(".")[0]]
                return bf16.values(np.from_dlpack(v.view(torch.int16)))
            raise TypeError(f"kernel argument {name!r}: its elements cannot be shared with numpy ({e}); pass a "
                            "tensor of float16/float32/int8..int64/uint8..uint64 elements") from None
    if hasattr(v, "__array_interface__"):
        return np.asarray(v)
    try:
        return np.asarray(memoryview(v))
    except TypeError:
        return None
