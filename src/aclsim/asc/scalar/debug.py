"""Kernel-side debugging output: `printf` and `dump_tensor` (pyasc `basic/dump_tensor.py`).

dump_tensor prints the header the NPU's dump prints (Ascend C DumpTensor page: "DumpTensor:
desc=5, addr=0, data_type=float16, position=UB, dump_size=32" then the values); it does not check
that the bytes were written, so it also shows the garbage an unwritten tensor holds.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import numpy as np

from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.dtypes import bfloat16

_SPEC = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z|j|t)?([diouxXfFeEgGcs%])")


def _py_format(fmt: str) -> str:
    return _SPEC.sub(lambda m: "%%" if m.group(2) == "%" else
                     "%" + m.group(1) + ("d" if m.group(2) in "iu" else m.group(2)), fmt)


@instruction("PRINTF", "printf", "system")
def printf(core: Any, desc: str, *params: Any) -> None:
    """C-style formatted print from the kernel (`%d %u %f %x %s` ...)."""
    text = _py_format(desc) % tuple(params) if params else desc
    sys.stdout.write(text)
    sys.stdout.flush()


@instruction("DumpTensor", "dump_tensor", "system")
def dump_tensor(core: Any, tensor: LocalTensor | GlobalTensor, desc: int, dump_size: int, shape_info: Any = None) -> None:
    """Print the first `dump_size` elements of a local or global tensor with a DumpTensor header."""
    api = "dump_tensor"
    n = int(dump_size)
    dt = tensor.dtype
    if isinstance(tensor, LocalTensor):
        tensor.bounds(n, api)
        values, addr, where = tensor.arr[:n], tensor.lo, tensor.buf.pool.name
    else:
        buf, off, _ = tensor.region(n * dt.itemsize, api)
        values, addr, where = buf[off : off + n * dt.itemsize].view(dt.np), tensor.addr, "GM"
    if dt is bfloat16:
        values = (values.astype(np.uint32) << 16).view(np.float32)
    shown = ", ".join(f"{float(v):f}" if dt.is_float else str(int(v)) for v in values)
    sys.stdout.write(f"DumpTensor: desc={int(desc)}, addr={addr:x}, data_type={dt.name}, position={where}, "
                     f"dump_size={n}\n[{shown}]\n")
    sys.stdout.flush()
