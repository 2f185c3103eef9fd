"""Handlers of the kernel-side Matmul (lib/matmul_intf.h): a Matmul object is the engine's
(aclsim.asc.highlevel.matmul), made from the MatmulType template arguments; each C++ method is one operation of
`MatmulCall` (the list in matmul_intf.h's `MatmulOp`)."""

from __future__ import annotations

import ctypes
from typing import Any

from ...asc.highlevel.matmul import Matmul, MatmulType, register_matmul
from ...asc.highlevel.tiling import FIELDS, TCubeTiling
from ...asc.memory.tpipe import TPipe
from ...asc.types.cube_params import LayoutMode
from .memory import obj
from .operands import DTYPES, gm, state, tensor
from .ops import handles
from .system import signed

OPS = ("register", "init", "set_org_shape", "set_single_shape", "set_tail", "set_tensor_a", "set_tensor_b",
       "set_bias", "disable_bias", "set_quant_scalar", "set_quant_vector", "iterate", "iterate_all",
       "get_tensor_c", "iterate_batch", "end", "set_hf32", "set_batch_num")  # matmul_intf.h's MatmulOp, in order


def matmul_type(spec: int) -> MatmulType:
    """A MatmulType from its spec word: position | format << 8 | aclDataType << 16 | isTrans << 24 | layout << 32."""
    return MatmulType(spec & 0xFF, (spec >> 8) & 0xFF, DTYPES[(spec >> 16) & 0xFF], bool(spec >> 24 & 1),
                      LayoutMode((spec >> 32) & 0xFF))


def tiling_at(ptr: int) -> TCubeTiling | None:
    """The TCubeTiling struct at address `ptr` (the kernel's own copy: its int32 fields in CANN's order)."""
    if not ptr:
        return None
    values = (ctypes.c_int32 * len(FIELDS)).from_address(ptr)
    return TCubeTiling(**dict(zip(FIELDS, values, strict=True)))


@handles("MatmulNew")
def _new(core: Any, spec: int, *words: Any) -> int:
    a, b, c, bias = (matmul_type(w) for w in (ctypes.c_uint64 * 4).from_address(spec))
    return state(core).keep(Matmul(a, b, c, bias))


def _mm(core: Any, h: int) -> Matmul:
    return obj(core, h, Matmul, "Matmul")


@handles("MatmulCall")
def _call(core: Any, h: int, op: int, a: int, b: int, c: int, d: int) -> Any:
    mm = _mm(core, h)
    name = OPS[op]
    if name in ("register", "init"):
        pipe = obj(core, b, TPipe, "TPipe") if b else None
        if name == "init" and pipe is None:
            mm.init(tiling_at(a))
        else:
            register_matmul(pipe, None, mm, tiling_at(a))
    elif name == "set_org_shape":
        mm.set_org_shape(a, b, c, d)
    elif name == "set_single_shape":
        mm.set_single_shape(a, b, c)
    elif name == "set_tail":
        mm.set_tail(signed(a), signed(b), signed(c))
    elif name in ("set_tensor_a", "set_tensor_b"):
        getattr(mm, name)(gm(core, a), bool(b))
    elif name == "set_bias":
        mm.set_bias(gm(core, a))
    elif name == "disable_bias":
        mm.disable_bias()
    elif name == "set_quant_scalar":
        mm.set_quant_scalar(a)
    elif name == "set_quant_vector":
        mm.set_quant_vector(gm(core, a))
    elif name == "iterate":
        return int(mm.iterate_next())
    elif name == "iterate_all":
        mm.iterate_all(tensor(core, a, bool(b)), c, en_sequential_write=bool(d))
    elif name == "get_tensor_c":
        mm.get_tensor_c(tensor(core, a, bool(b)), c, bool(d))
    elif name == "iterate_batch":
        if b & 0xFFFF:
            from ...asc.faults import fail

            fail("Matmul.iterate_batch", "enPartialSum and enAtomic of IterateBatch are not emulated")
        batch_a, batch_b = getattr(mm, "native_batch", (1, 1))
        mm.iterate_batch(gm(core, a), batch_a, batch_b, bool(b >> 16 & 1), c, d)
    elif name == "end":
        mm.end()
    elif name == "set_hf32":
        mm.set_hf32(bool(a), b)
    elif name == "set_batch_num":  # the batch counts IterateBatch computes (C++ passes them here, not there)
        mm.native_batch = (a, b)
    return 0



