"""`asc.adv.Matmul`: the high-level matrix multiply, with pyasc's names and calling conventions.

pyasc `python/asc/language/adv/matmul.py`: `Matmul(a=MatmulType(...), b=..., c=..., bias=...)`,
`register_matmul(pipe, workspace, mm, tiling)`, `set_tensor_a/b`, `set_bias`, `set_tail`,
`iterate_all(c_gm)`, `with mm.iterate() as count: mm.get_tensor_c(ub)`, `iterate_batch`, `end`.
On the chip the API splits each core's `single_core_m x single_core_n` block into `base_m x
base_n` steps through L1/L0 (the tiling must fit them, checked at init); here a core's block is
one float32 (int32 for int8) numpy product, the same sums the Cube makes, and `iterate` hands
out its base blocks in the tiling's order (ORDER_M: m index fastest).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .. import faults
from ..cube.mmad import as_float
from ..faults import fail
from ..kernel.gang import KernelReturn
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor
from ..memory.tpipe import TPipe
from ..move.atomic import store
from ..move.data_copy import gm_rows
from ..types.bf16 import round_bits
from ..types.cube_params import CubeFormat, LayoutMode, c0
from ..types.dtypes import DataType, bfloat16, float16, int8, int32
from ..types.enums import TPosition
from .tiling import TCubeTiling

_strided = np.lib.stride_tricks.as_strided
OUT_TYPES = ("float32", "float16", "bfloat16", "int32")


@dataclass(frozen=True)
class MatmulType:
    """Where a Matmul operand lives, its format and element type, and whether it is transposed."""

    position: int
    format: int
    dtype: DataType
    is_trans: bool = False
    layout: int = LayoutMode.NONE


@dataclass
class MatmulConfig:
    """Matmul template configuration; presets from get_normal_config / get_mdl_config / ... . The
    schedule it selects changes speed on the chip, not the result, so only its fields are kept."""

    do_norm: bool = True
    do_basic_block: bool = False
    do_multi_data_load: bool = False
    basic_m: int = 0
    basic_n: int = 0
    basic_k: int = 0
    intrinsics_check: bool = False
    is_n_batch: bool = False
    en_vec_nd2nz: bool = False
    do_special_basic_block: bool = False
    do_mte2_preload: int = 0
    single_core_m: int = 0
    single_core_n: int = 0
    single_core_k: int = 0
    step_m: int = 0
    step_n: int = 0
    base_mn: int = 0
    single_core_mn: int = 0
    en_unit_flag: bool = True
    is_per_tensor: bool = False
    has_anti_quant_offset: bool = False
    do_ib_share_norm: bool = False
    do_special_mdl: bool = False
    enable_init: bool = True
    batch_mode: int = 0
    enable_end: bool = True
    enable_get_tensor_c: bool = True
    enable_set_org_shape: bool = True
    enable_set_bias: bool = True
    enable_set_tail: bool = True
    enable_quant_vector: bool = True
    enable_set_define_data: bool = True
    iterate_mode: int = 0
    enable_reuse: bool = True
    enable_ub_reuse: bool = False
    enable_l1_cache_ub: bool = False
    intra_block_part_sum: bool = False
    iterate_order: int = 2
    schedule_type: int = 0
    enable_double_cache: bool = False
    is_bias_batch: bool = True
    enable_static_pad_zeros: bool = False
    is_partial_output: bool = False
    enable_mix_dual_master: bool = False
    is_a2b2_shared: bool = False
    is_enable_channel_split: bool = False
    enable_kdim_reorder_load: bool = False
    is_co1_shared: bool = False
    shared_co1_buffer_size: int = 0
    batch_out_mode: int = 0
    extra: dict = field(default_factory=dict)


def _preset(base: dict[str, Any], kwargs: dict[str, Any]) -> MatmulConfig:
    known = {k: v for k, v in kwargs.items() if k in MatmulConfig.__dataclass_fields__}
    return replace(MatmulConfig(**base), **known, extra={k: v for k, v in kwargs.items() if k not in known})


def get_normal_config(**kwargs: Any) -> MatmulConfig:
    """The NORM template (the default)."""
    return _preset({"do_norm": True}, kwargs)


def get_mdl_config(**kwargs: Any) -> MatmulConfig:
    """The MDL template: several base blocks moved to L1 per DMA."""
    return _preset({"do_norm": False, "do_multi_data_load": True}, kwargs)


def get_special_mdl_config(**kwargs: Any) -> MatmulConfig:
    return _preset({"do_norm": False, "do_special_mdl": True}, kwargs)


def get_ib_share_norm_config(**kwargs: Any) -> MatmulConfig:
    return _preset({"do_norm": False, "do_ib_share_norm": True}, kwargs)


def get_basic_config(basic_m: int, basic_n: int, basic_k: int, **kwargs: Any) -> MatmulConfig:
    return _preset({"do_norm": False, "do_basic_block": True, "basic_m": basic_m, "basic_n": basic_n,
                    "basic_k": basic_k}, kwargs)


def get_special_basic_config(basic_m: int, basic_n: int, basic_k: int, single_core_m: int, single_core_n: int,
                             single_core_k: int, step_m: int, step_n: int, **kwargs: Any) -> MatmulConfig:
    return _preset({"do_norm": False, "do_special_basic_block": True, "basic_m": basic_m, "basic_n": basic_n,
                    "basic_k": basic_k, "single_core_m": single_core_m, "single_core_n": single_core_n,
                    "single_core_k": single_core_k, "step_m": step_m, "step_n": step_n}, kwargs)


def get_mm_config(**kwargs: Any) -> MatmulConfig:
    return _preset({}, kwargs)


def register_matmul(pipe: Any, workspace: Any, matmul: Matmul, tiling: TCubeTiling | None = None) -> None:
    """Bind the Matmul to the kernel's TPipe (and initialise it when `tiling` is given)."""
    if not isinstance(matmul, Matmul):
        raise TypeError(f"register_matmul expects an asc.adv.Matmul, got {type(matmul).__name__}")
    matmul.core = core = pipe.core if isinstance(pipe, TPipe) else faults.running("adv.register_matmul")
    if tiling is not None:
        matmul.init(tiling)
    if core.aic and core.launch.aic_body:
        # Ascend C's REGIST_MATMUL_OBJ on the AIC of a mix kernel: `if ASCEND_IS_AIC { KfcServer ...
        # serve the AIVs' requests ...; return; }`, so the AIC's body ends here (the AIVs compute the
        # Matmul themselves in aclsim)
        raise KernelReturn


class Matmul:
    """C = A @ B (+ bias) for one core's block; see the module docstring."""

    def __init__(self, a: MatmulType | None = None, b: MatmulType | None = None, c: MatmulType | None = None,
                 bias: MatmulType | None = None, matmul_config: MatmulConfig | None = None,
                 matmul_policy: int = 0) -> None:
        for name, v in (("a", a), ("b", b), ("c", c)):
            if not isinstance(v, MatmulType):
                raise ValueError(f"{name} must be MatmulType and cannot be None.")
        self.a_type, self.b_type, self.c_type = a, b, c
        self.bias_type = bias
        self.config = matmul_config or MatmulConfig()
        self.core: Any = None  # the core it runs on (register_matmul's pipe's, or the running one)
        self.tiling: TCubeTiling | None = None
        self.a: tuple[GlobalTensor, bool] | None = None
        self.b: tuple[GlobalTensor, bool] | None = None
        self.bias: GlobalTensor | None = None
        self.org = (0, 0, 0, 0)  # M, N, Ka, Kb
        self.single = (0, 0, 0)
        self.tail = (-1, -1, -1)
        self.quant: Any = None
        self.result: np.ndarray | None = None
        self.count = 0
        self.blocks: list[tuple[int, int]] = []
        self.ended = False
        for t, role in ((a, "A"), (b, "B")):
            if t.dtype.name not in ("float16", "bfloat16", "float32", "int8"):
                raise TypeError(f"Matmul {role} type {t.dtype.name} is not a Cube input type "
                                "(float16, bfloat16, float32, int8)")
        if c.dtype.name not in (*OUT_TYPES, "int8"):
            raise TypeError(f"Matmul C type {c.dtype.name} is not supported ({', '.join(OUT_TYPES)})")

    # -- set-up ------------------------------------------------------------------------------------
    def _core(self, api: str) -> Any:
        if self.core is None:
            self.core = faults.running(f"Matmul.{api}")
        core = self.core
        if self.ended:
            fail(f"Matmul.{api}", "the Matmul was already end()ed")
        return core

    def init(self, tiling: TCubeTiling) -> None:
        """Check the tiling against the chip's L1/L0 sizes and take its shapes."""
        api = "Matmul.init"
        core = self._core("init")
        self.core = core
        if not isinstance(tiling, TCubeTiling):
            raise TypeError(f"{api}: tiling must be an asc.adv.TCubeTiling, got {type(tiling).__name__}")
        t = tiling
        dims = {k: int(getattr(t, k)) for k in ("m", "n", "k_a", "single_core_m", "single_core_n", "single_core_k",
                                                "base_m", "base_n", "base_k")}
        if min(dims.values()) <= 0:
            zero = ", ".join(k for k, v in dims.items() if v <= 0)
            fail(api, f"the tiling has {zero} = 0: fill it with asc.lib.host (get_tiling) or set every shape field")
        ab, cb = self.a_type.dtype.itemsize, 4
        k0 = c0(self.a_type.dtype)
        bm, bn, bk = dims["base_m"], dims["base_n"], dims["base_k"]
        chip = core.chip
        pm, pn, pk = -(-bm // 16) * 16, -(-bn // 16) * 16, -(-bk // k0) * k0  # padded to whole fractals
        for what, need, have in (
            ("base_m x base_k of A in L0A", pm * pk * ab, chip.l0a_size),
            ("base_k x base_n of B in L0B", pk * pn * ab, chip.l0b_size),
            ("base_m x base_n of float32/int32 C in L0C", pm * pn * cb, chip.l0c_size),
            ("depth_a1 x base_m x base_k of A plus depth_b1 x base_k x base_n of B in L1",
             (max(int(t.depth_a1), 1) * pm + max(int(t.depth_b1), 1) * pn) * pk * ab, chip.l1_size),
        ):
            if need > have:
                fail(api, f"tiling base_m={bm}, base_n={bn}, base_k={bk}: {what} needs {need} bytes but "
                          f"{chip.name} has {have} (L0/L1 overflow)")
        self.tiling = t
        self.org = (dims["m"], dims["n"], dims["k_a"], int(t.k_b) or dims["k_a"])
        self.single = (dims["single_core_m"], dims["single_core_n"], dims["single_core_k"])

    def _need_init(self, api: str) -> TCubeTiling:
        if self.tiling is None:
            fail(f"Matmul.{api}", "the Matmul has no tiling: pass it to asc.adv.register_matmul(pipe, workspace, "
                                  "mm, tiling) or call mm.init(tiling)")
        return self.tiling

    def set_org_shape(self, org_m: int, org_n: int, org_ka: int, org_kb: int | None = None,
                      org_kc: int | None = None) -> None:
        self._need_init("set_org_shape")
        self.org = (int(org_m), int(org_n), int(org_ka), int(org_kb if org_kb is not None else org_ka))

    def set_single_shape(self, single_m: int, single_n: int, single_k: int) -> None:
        self._need_init("set_single_shape")
        self.single = (int(single_m), int(single_n), int(single_k))

    def set_tail(self, tail_m: int = -1, tail_n: int = -1, tail_k: int = -1) -> None:
        """This core's actual block when smaller than single_core_* (-1 keeps the tiling's)."""
        self.tail = (int(tail_m), int(tail_n), int(tail_k))
        self.result = None

    def set_tensor_a(self, tensor: Any, transpose: bool = False) -> None:
        self.a = (self._operand(tensor, self.a_type, "set_tensor_a"), bool(transpose))
        self.result = None

    def set_tensor_b(self, tensor: Any, transpose: bool = False) -> None:
        self.b = (self._operand(tensor, self.b_type, "set_tensor_b"), bool(transpose))
        self.result = None

    def set_bias(self, tensor: Any) -> None:
        self.bias = self._operand(tensor, self.bias_type or self.c_type, "set_bias", bias=True)
        self.result = None

    def disable_bias(self) -> None:
        self.bias = None
        self.result = None

    def set_quant_scalar(self, quant_scalar: int) -> None:
        """int8 x int8 -> float16 output: one dequantisation scale (float32 bits in a uint64)."""
        self.quant = int(quant_scalar)
        self.result = None

    def set_quant_vector(self, quant_vector: GlobalTensor) -> None:
        """int8 x int8 -> float16 output: one scale per column of C (uint64 each, float32 bits)."""
        self.quant = quant_vector
        self.result = None

    def set_workspace(self, addr: Any, size: int | None = None) -> None:
        """The GM workspace of the AIC/AIV message queue (the emulator needs none)."""

    def set_hf32(self, enable_hf32: bool = False, trans_mode: int = 0) -> None:
        if enable_hf32:
            fail("Matmul.set_hf32", "HF32 mode (float32 inputs rounded to 11-bit mantissas) is not emulated")

    def _operand(self, tensor: Any, mt: MatmulType, api: str, bias: bool = False) -> GlobalTensor:
        self._core(api)
        if not isinstance(tensor, GlobalTensor):
            raise TypeError(f"Matmul.{api}: aclsim emulates GM operands (TPosition.GM); got {type(tensor).__name__}")
        if mt.format != CubeFormat.ND:
            fail(f"Matmul.{api}", "CubeFormat.NZ operands are not emulated; pass ND matrices")
        if not bias and tensor.dtype is not mt.dtype:
            fail(f"Matmul.{api}", f"the tensor is {tensor.dtype.name} but its MatmulType says {mt.dtype.name}")
        return tensor

    # -- the product -------------------------------------------------------------------------------
    def _shape(self) -> tuple[int, int, int]:
        sm, sn, sk = self.single
        tm, tn, tk = self.tail
        return (tm if tm > 0 else sm), (tn if tn > 0 else sn), (tk if tk > 0 else sk)

    def _compute(self, api: str) -> np.ndarray:
        if self.result is not None:
            return self.result
        self._need_init(api)
        if self.a is None or self.b is None:
            fail(f"Matmul.{api}", "set_tensor_a and set_tensor_b first")
        m, n, k = self._shape()
        om, on, oka, okb = self.org
        (a, ta), (b, tb) = self.a, self.b
        ea = _read(self.core, a, k, m, om, api).T if ta else _read(self.core, a, m, k, oka, api)
        eb = _read(self.core, b, n, k, okb, api).T if tb else _read(self.core, b, k, n, on, api)
        acc = np.matmul(as_float(ea, a.dtype), as_float(eb, b.dtype))
        if self.bias is not None:
            acc += as_float(_read(self.core, self.bias, 1, n, n, api), self.bias.dtype).astype(acc.dtype)
        self.core.launch.cube_flops += 2 * m * n * k
        self.result = self._out(acc, n, api)
        return self.result

    def _out(self, acc: np.ndarray, n: int, api: str) -> np.ndarray:
        ct = self.c_type.dtype
        if self.a_type.dtype is int8 and ct is float16:
            if self.quant is None:
                fail(f"Matmul.{api}", "int8 x int8 -> float16 needs set_quant_scalar or set_quant_vector")
            bits = (np.array([self.quant], np.uint64) if isinstance(self.quant, int)
                    else _read(self.core, self.quant, 1, n, n, api).astype(np.uint64)[0])
            scale = (bits & 0xFFFFE000).astype(np.uint32).view(np.float32)  # 10-bit mantissa (fixpipe docs)
            return (acc.astype(np.float32) * scale).astype(np.float16)
        if ct is bfloat16:
            return round_bits(acc)
        if ct is int8:
            fail(f"Matmul.{api}", "int8 output (requantisation) is not emulated")
        if (acc.dtype == np.int32) != (ct is int32):
            fail(f"Matmul.{api}", f"C is {ct.name} but {self.a_type.dtype.name} inputs accumulate in "
                                  f"{'int32' if acc.dtype == np.int32 else 'float32'}")
        return acc.astype(ct.np, copy=False)

    def iterate_all(self, tensor: Any, en_atomic: int = 0, sync: bool = True, en_sequential_write: bool | None = None,
                    wait_iterate_all: bool | None = None, fake_msg: bool | None = None) -> None:
        """The whole block of C into GM (row stride: the original N)."""
        api = "iterate_all"
        self._core(api)
        c = self._compute(api)
        self._put(tensor, c, 0, 0, int(en_atomic), bool(en_sequential_write), api)

    def iterate(self, en_partial_sum: bool = False, sync: bool = True, local_c_matrix: Any = None) -> MatmulIterator:
        """`with mm.iterate() as count:` runs its body once per base block (`count` = 0, 1, ...)."""
        return MatmulIterator(self)

    def iterate_next(self) -> bool:
        """Ascend C's `while (mm.Iterate())` form: compute the next base block of C (True), or False after the
        last one (the next call starts over)."""
        self._core("iterate")
        if self.count == 0:
            self._compute("iterate")
            self.blocks = self._blocks()
        if self.count < len(self.blocks):
            self.count += 1
            return True
        self.count = 0
        return False

    def _blocks(self) -> list[tuple[int, int]]:
        t = self._need_init("iterate")
        m, n, _ = self._shape()
        mi, ni = -(-m // int(t.base_m)), -(-n // int(t.base_n))
        if int(t.iterate_order) == 1:  # ORDER_N: n index fastest
            return [(i, j) for i in range(mi) for j in range(ni)]
        return [(i, j) for j in range(ni) for i in range(mi)]

    def get_tensor_c(self, tensor: Any = None, en_atomic: int = 0, en_sequential_write: bool = False,
                     sync: bool = True, optional_tensor: Any = None) -> None:
        """The current base block of C (after `iterate`) into a UB tensor or GM."""
        api = "get_tensor_c"
        self._core(api)
        if tensor is None:
            fail(f"Matmul.{api}", "the form returning a GlobalTensor (sync=False) is not emulated")
        if not self.blocks or self.count == 0:
            fail(f"Matmul.{api}", "no block was computed: call it inside `with mm.iterate() as count:`")
        t = self.tiling
        i, j = self.blocks[self.count - 1]
        c = self._compute(api)
        bm, bn = int(t.base_m), int(t.base_n)
        block = c[i * bm : (i + 1) * bm, j * bn : (j + 1) * bn]
        for dst in (tensor, optional_tensor):
            if dst is not None:
                if en_sequential_write:
                    self._put(dst, block, 0, 0, int(en_atomic), True, api)
                else:
                    self._put(dst, block, i * bm, j * bn, int(en_atomic), False, api)

    def _put(self, dst: Any, vals: np.ndarray, row: int, col: int, atomic: int, sequential: bool, api: str) -> None:
        ct = self.c_type.dtype
        if dst.dtype is not ct:
            fail(f"Matmul.{api}", f"the C tensor is {dst.dtype.name} but the Matmul's C type is {ct.name}")
        rows, cols = vals.shape
        isz = ct.itemsize
        if isinstance(dst, GlobalTensor):
            pitch = cols if sequential else self.org[1]
            g = dst[row * pitch + col]
            out = gm_rows(self.core, g, rows, cols * isz, pitch * isz, f"Matmul.{api}", True)
            data = np.ascontiguousarray(vals).view(np.uint8).reshape(rows, -1)
            if atomic:
                fn = (None, np.add, np.minimum, np.maximum)[atomic]
                gv = out.view(ct.np)
                fn(gv, vals, out=gv)
            else:
                store(self.core, out, data, ct, f"Matmul.{api}")
            return
        if not isinstance(dst, LocalTensor):
            raise TypeError(f"Matmul.{api}: C goes to a GlobalTensor or a UB LocalTensor, got {type(dst).__name__}")
        if dst.gen != dst.buf.gen:
            dst.dead(f"Matmul.{api}")
        if dst.buf.pool.name != "UB" or self.c_type.position not in (TPosition.VECIN, TPosition.VECCALC,
                                                                      TPosition.VECOUT):
            fail(f"Matmul.{api}", f"C goes to a UB tensor only when its MatmulType position is VECIN/VECCALC/VECOUT "
                                  f"(it is TPosition.{TPosition(self.c_type.position).name}, the tensor is in "
                                  f"{dst.buf.pool.name})")
        pitch = cols if sequential else self._shape()[1]
        lo = dst.lo + (row * pitch + col) * isz
        need = ((rows - 1) * pitch + cols) * isz
        if lo + need > dst.end:
            fail(f"Matmul.{api}", f"a {rows} x {cols} {ct.name} block needs {need} bytes at UB byte {lo} but the "
                                  f"tensor ends at byte {dst.end} (tensor size overflow)")
        pool = dst.buf.pool
        _strided(pool.bytes[lo:], shape=(rows, cols * isz), strides=(pitch * isz, 1), writeable=True)[...] = \
            np.ascontiguousarray(vals).view(np.uint8).reshape(rows, -1)
        pool.marks(lo, (rows, cols * isz), (pitch * isz, 1))[...] = 1

    def iterate_batch(self, tensor: Any, batch_a: int, batch_b: int, en_sequential_write: bool = False,
                      matrix_stride_a: int = 0, matrix_stride_b: int = 0, matrix_stride_c: int = 0, *rest: Any,
                      **kwargs: Any) -> None:
        """Batched C[i] = A[i // (batch / batch_a)] @ B[i // (batch / batch_b)], matrices stacked (NORMAL)."""
        api = "iterate_batch"
        self._core(api)
        self._need_init(api)
        m, n, k = self._shape()
        batch = max(int(batch_a), int(batch_b))
        a, b = self.a, self.b
        if a is None or b is None:
            fail(f"Matmul.{api}", "set_tensor_a and set_tensor_b first")
        for i in range(batch):
            ia, ib = i // (batch // int(batch_a)), i // (batch // int(batch_b))
            self.a = (a[0][ia * m * k], a[1])
            self.b = (b[0][ib * k * n], b[1])
            self.result = None
            self._put(tensor[i * m * n], self._compute(api), 0, 0, 0, True, api)
        self.a, self.b, self.result = a, b, None

    def end(self) -> None:
        """Release the Matmul; no call may follow."""
        self._core("end")
        self.ended = True


class MatmulIterator:
    """What `mm.iterate()` returns: `@asc.jit` turns `with mm.iterate() as count:` into a loop over it."""

    def __init__(self, matmul: Matmul) -> None:
        self.matmul = matmul

    def __iter__(self) -> Iterator[int]:
        mm = self.matmul
        mm._compute("iterate")
        mm.blocks = mm._blocks()
        for count in range(len(mm.blocks)):
            mm.count = count + 1
            yield count
        mm.count = 0

    def __enter__(self) -> int:
        raise RuntimeError("`with mm.iterate() as count:` is a loop over the base blocks of C; aclsim runs it as "
                           "one only inside an @asc.jit function (its source must be available)")

    def __exit__(self, *args: Any) -> None:
        return None


def _read(core: Any, g: GlobalTensor, rows: int, cols: int, pitch: int, api: str) -> np.ndarray:
    """A rows x cols ND block of GM (row stride `pitch` elements), moved by `core`, as a numpy array."""
    isz = g.dtype.itemsize
    return gm_rows(core, g, rows, cols * isz, pitch * isz, f"Matmul.{api}", False).view(g.dtype.np)
