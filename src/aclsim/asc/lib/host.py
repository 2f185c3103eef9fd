"""`asc.lib.host`: the host-side Matmul tiling API (pyasc `python/asc/lib/host/wrappers.py` names).

pyasc binds CANN's C++ `matmul_tiling` library; aclsim computes a tiling itself from the chip
profile, with the same calls: `MultiCoreMatmulTiling(get_ascendc_platform())`, `set_a_type`,
`set_b_type`, `set_c_type`, `set_bias_type`, `set_dim`, `set_org_shape`, `set_shape`,
`enable_bias`, `set_traverse`, `set_fix_split`, `set_buffer_space`, `get_tiling(tiling)`.

How the tiling is chosen (documented choices, not CANN's exact search): the M x N output is
split over at most `dim` cores in 16-aligned blocks, minimising the largest core's Cube work plus
its operand traffic; K is not split. Base blocks default to 128 x 256 (halved while they do not fit
L0C, or half the UB when C goes to the UB), base_k is the largest multiple of 16 for which A and B
double-buffer in L0A/L0B, and the L1 depth is what fits L1. Like the C++ API, every setter returns
0 and `get_tiling` returns 0, or -1 when no tiling fits (with an AscWarning saying why).

Absolute imports on purpose: under `aclsim run` this file may be loaded as `asc.lib.host`.
"""

from __future__ import annotations

import warnings
from enum import IntEnum
from typing import Any

from aclsim.asc.faults import AscWarning
from aclsim.asc.highlevel.tiling import TCubeTiling
from aclsim.chips import ChipProfile
from aclsim.runtime import get_runtime


class TPosition(IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 12
    SPM = 13
    SHM = 14
    TSCM = 15
    MAX = 16


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    ROW_MAJOR = 8
    COLUMN_MAJOR = 9


class DataType(IntEnum):
    """GE data type codes."""

    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_BF16 = 27
    DT_BFLOAT16 = 27


class MatrixTraverse(IntEnum):
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(IntEnum):
    NORMAL = 0
    HF32 = 1
    MXMODE = 2


class DequantType(IntEnum):
    SCALAR = 0
    TENSOR = 1


class ScheduleType(IntEnum):
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1


SIZE = {DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2, DataType.DT_INT8: 1,
        DataType.DT_INT32: 4}
UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


class PlatformAscendC:
    """What the tiling needs to know about the SoC (`PlatformAscendC` in CANN)."""

    def __init__(self, chip: ChipProfile | None = None) -> None:
        self.chip = chip or get_runtime().chip

    def get_soc_version(self) -> str:
        return self.chip.name

    def get_core_num_aic(self) -> int:
        return self.chip.ai_cores

    def get_core_num_aiv(self) -> int:
        return self.chip.vector_cores

    def get_core_num(self) -> int:
        return self.chip.vector_cores if self.chip.separated else self.chip.ai_cores


class PlatformAscendCManager:
    @staticmethod
    def get_instance(soc_version: str | None = None) -> PlatformAscendC:
        from aclsim.chips import get_profile

        return PlatformAscendC(get_profile(soc_version) if soc_version else None)


def get_ascendc_platform() -> PlatformAscendC:
    """The platform of the emulated SoC (ACLSIM_SOC, or asc.runtime.config.set_platform)."""
    return PlatformAscendC()


def _up(x: int, k: int) -> int:
    return -(-x // k) * k


class MatmulApiTilingBase:
    """Shared setters of the tiling classes; `get_tiling` fills an `asc.adv.TCubeTiling`."""

    def __init__(self, platform: PlatformAscendC | None = None) -> None:
        self.platform = platform if isinstance(platform, PlatformAscendC) else get_ascendc_platform()
        self.types: dict[str, tuple[int, int, int, bool]] = {
            "a": (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False),
            "b": (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT16, False),
            "c": (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT, False),
            "bias": (TPosition.GM, CubeFormat.ND, DataType.DT_FLOAT, False),
        }
        self.shape = (-1, -1, -1)
        self.org: tuple[int, int, int, int] | None = None
        self.fix = (-1, -1, -1)
        self.space = (-1, -1, -1, -1)
        self.bias = False
        self.traverse = MatrixTraverse.NOSET
        self.dim = 1
        self.single_fixed = (-1, -1, -1)
        self.layout: dict[str, tuple[int, ...]] = {}
        self.batch_num = 0
        self.result: dict[str, int] = {}
        self.core_split = (1, 1, 1)  # (dim, m_dim, n_dim) of the last get_tiling
        self.sparse = False
        self.double = (True, True, False)  # double buffering of A (L1 and L0A), B (L1 and L0B), C (L0C)
        self.split_range = (-1,) * 6  # max base m, n, k, min base m, n, k (-1: free)
        self.single_range = (-1,) * 6  # max single-core m, n, k, min m, n, k (-1: free)
        self.align = (-1, -1, -1)  # single-core m, n, k multiples (-1 or 0: free)
        self.dequant = DequantType.SCALAR

    # setters (each returns 0, as the C++ API does)
    def set_a_type(self, pos: int, type: int, data_type: int, is_trans: bool = False) -> int:
        self.types["a"] = (pos, type, DataType(data_type), bool(is_trans))
        return 0

    def set_b_type(self, pos: int, type: int, data_type: int, is_trans: bool = False) -> int:
        self.types["b"] = (pos, type, DataType(data_type), bool(is_trans))
        return 0

    def set_c_type(self, pos: int, type: int, data_type: int) -> int:
        self.types["c"] = (pos, type, DataType(data_type), False)
        return 0

    def set_bias_type(self, pos: int, type: int, data_type: int) -> int:
        self.types["bias"] = (pos, type, DataType(data_type), False)
        return 0

    def enable_bias(self, is_bias_in: bool = False) -> int:
        self.bias = bool(is_bias_in)
        return 0

    def set_shape(self, m: int, n: int, k: int) -> int:
        self.shape = (int(m), int(n), int(k))
        return 0

    def set_org_shape(self, org_m_in: int, org_n_in: int, org_ka_in: int, org_kb_in: int | None = None) -> int:
        self.org = (int(org_m_in), int(org_n_in), int(org_ka_in), int(org_kb_in if org_kb_in is not None else org_ka_in))
        return 0

    def set_fix_split(self, base_m_in: int = -1, base_n_in: int = -1, base_k_in: int = -1) -> int:
        self.fix = (int(base_m_in), int(base_n_in), int(base_k_in))
        return 0

    def set_buffer_space(self, l1_size: int = -1, l0_c_size: int = -1, ub_size: int = -1, bt_size: int = -1) -> int:
        self.space = (int(l1_size), int(l0_c_size), int(ub_size), int(bt_size))
        return 0

    def set_traverse(self, traverse: int) -> int:
        self.traverse = MatrixTraverse(traverse)
        return 0

    def set_a_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        self.layout["a"] = (b, s, n, g, d)
        return 0

    def set_b_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        self.layout["b"] = (b, s, n, g, d)
        return 0

    def set_c_layout(self, b: int, s: int, n: int, g: int, d: int) -> int:
        self.layout["c"] = (b, s, n, g, d)
        return 0

    def set_batch_num(self, batch: int) -> int:
        self.batch_num = int(batch)
        return 0

    def set_double_buffer(self, a: bool, b: bool, c: bool, bias: bool, trans_nd2nz: bool = True,
                          trans_nz2nd: bool = True) -> int:
        """Whether A, B (in L1 and L0A/L0B) and C (in L0C) are double-buffered: db_l0a/db_l0b/db_l0c and
        depth_a1/depth_b1 of the tiling follow, and base_k leaves room for them. The BiasTable's double buffer has no
        TCubeTiling field. Telling the tiling that no ND2NZ / NZ2ND conversion is needed is not emulated."""
        if not trans_nd2nz or not trans_nz2nd:
            raise NotImplementedError("asc.lib.host set_double_buffer: trans_nd2nz=False / trans_nz2nd=False (no "
                                      "layout conversion) is not emulated; aclsim's tiling assumes the conversions")
        self.double = (bool(a), bool(b), bool(c))
        return 0

    def set_batch_info_for_normal(self, batch_a: int, batch_b: int, m: int, n: int, k: int) -> int:
        self.batch_num = max(int(batch_a), int(batch_b))
        self.shape = (int(m), int(n), int(k))
        return 0

    def set_matmul_config_params(self, *args: Any, **kwargs: Any) -> None:
        """The template choice (MatmulConfigParams or its fields) changes speed on the chip, not the tiling's
        shapes here."""

    def set_split_range(self, max_base_m: int = -1, max_base_n: int = -1, max_base_k: int = -1, min_base_m: int = -1,
                        min_base_n: int = -1, min_base_k: int = -1) -> int:
        """Bounds of base_m, base_n, base_k (-1: free); get_tiling fails (-1) when no base block within them fits."""
        self.split_range = tuple(int(v) for v in (max_base_m, max_base_n, max_base_k, min_base_m, min_base_n,
                                                  min_base_k))
        return 0

    def set_sparse(self, is_sparse_in: bool = False) -> int:
        """Recorded; the sparse Matmul itself (set_sparse_index, mmad_with_sparse) is not emulated."""
        self.sparse = bool(is_sparse_in)
        return 0

    def set_mad_type(self, mad_type: int) -> int:
        if MatrixMadType(mad_type) is not MatrixMadType.NORMAL:
            raise NotImplementedError("asc.lib.host: only MatrixMadType.NORMAL is emulated (HF32/MX modes are not)")
        return 0

    def set_dequant_type(self, dequant_type: int) -> int:
        """SCALAR: one dequantisation scale; TENSOR: one per output column, kept in L1 (uint64 each), which the
        tiling then leaves room for."""
        self.dequant = DequantType(dequant_type)
        return 0

    def get_base_m(self) -> int:
        """base_m of the last get_tiling, or the fixed split before one (-1 when neither)."""
        return self.result.get("base_m", self.fix[0])

    def get_base_n(self) -> int:
        return self.result.get("base_n", self.fix[1])

    def get_base_k(self) -> int:
        return self.result.get("base_k", self.fix[2])

    # the tiling
    def _split(self, m: int, n: int, dim: int) -> tuple[int, int]:
        """Per-core (single_m, single_n): 16-aligned blocks over at most `dim` cores, least critical work."""
        fm, fn, _ = self.single_fixed
        if fm > 0 and fn > 0:
            return fm, fn
        am, an = (a if a > 0 else 16 for a in self.align[:2])
        hi_m, hi_n, _, lo_m, lo_n, _ = self.single_range
        best: tuple[float, int, int, int] | None = None
        for md in range(1, dim + 1):
            for nd in range(1, dim // md + 1):
                sm, sn = _up(-(-m // md), am), _up(-(-n // nd), an)
                if (0 < hi_m < sm) or (0 < hi_n < sn) or sm < lo_m or sn < lo_n:
                    continue
                cores = -(-m // sm) * -(-n // sn)
                cost = sm * sn + 64 * (sm + sn)  # Cube MACs per K plus the A/B rows it streams in
                key = (cost, cores, sm, sn)
                if best is None or key < best:
                    best = key
        if best is None:
            raise ValueError(f"no split of M={m} x N={n} over {dim} cores has single-core shapes within "
                             f"set_single_range {self.single_range} aligned to set_align_split {self.align[:2]}")
        return best[2], best[3]

    def get_tiling(self, tiling: TCubeTiling) -> int:
        """Fill `tiling`; 0 on success, -1 (with an AscWarning) when the shapes cannot be tiled."""
        try:
            fields = self._compute()
        except ValueError as e:
            warnings.warn(f"asc.lib.host get_tiling: {e}", AscWarning, stacklevel=2)
            return -1
        for k, v in fields.items():
            setattr(tiling, k, v)
        self.result = fields
        return 0

    def _compute(self) -> dict[str, int]:
        m, n, k = self.shape
        if min(m, n, k) <= 0:
            if self.org is None:
                raise ValueError("set_shape(m, n, k) (or set_org_shape) was not called")
            m, n, k = self.org[:3]
        om, on, oka, okb = self.org or (m, n, k, k)
        chip = self.platform.chip
        isz = SIZE.get(self.types["a"][2], 2)
        k0 = 32 // isz
        c_pos, _, c_dt, _ = self.types["c"]
        csz = SIZE.get(c_dt, 4)
        l1, l0c, ub, _ = self.space
        l1 = chip.l1_size if l1 < 0 else l1
        l0c = chip.l0c_size if l0c < 0 else l0c
        ub = chip.ub_usable if ub < 0 else ub
        dim = 1 if self.batch_num else max(1, self.dim)
        sm, sn = self._split(m, n, dim)
        sk = self.single_fixed[2] if self.single_fixed[2] > 0 else k
        ak, (hi_k, lo_k) = self.align[2], self.single_range[2::3]
        if (ak > 0 and sk % ak) or 0 < hi_k < sk or sk < lo_k:
            raise ValueError(f"single_core_k is K={sk} (aclsim does not split K over cores), outside "
                             f"set_single_range's K bounds or not a multiple of set_align_split's {ak}")
        if self.dequant is DequantType.TENSOR:
            l1 -= _up(sn * 8, 32)  # the per-column uint64 dequantisation scales wait in L1
        db_a, db_b, db_c = (2 if d else 1 for d in self.double)
        max_m, max_n, max_k, min_m, min_n, min_k = self.split_range
        bm, bn, bk = self.fix
        bm = bm if bm > 0 else min(128, _up(sm, 16), max_m if max_m > 0 else 128)
        bn = bn if bn > 0 else min(256, _up(sn, 16), max_n if max_n > 0 else 256)
        if self.fix[1] <= 0:
            while bn > max(16, min_n) and (db_c * bm * bn * 4 > l0c or (c_pos in UB_POSITIONS and bm * bn * csz > ub // 2)):
                bn //= 2
        if self.fix[0] <= 0:
            while bm > max(16, min_m) and (db_c * bm * bn * 4 > l0c or (c_pos in UB_POSITIONS and bm * bn * csz > ub // 2)):
                bm //= 2
        if bk <= 0:
            fit = min(chip.l0a_size // (db_a * bm * isz), chip.l0b_size // (db_b * bn * isz))
            bk = min(_up(sk, 16), fit // 16 * 16, max_k if max_k > 0 else _up(sk, 16))
        if not (min_m <= bm and min_n <= bn and min_k <= bk):
            raise ValueError(f"base blocks {bm} x {bn} x {bk} fall below set_split_range's minimum "
                             f"{min_m} x {min_n} x {min_k}")
        # the Matmul pads base blocks to whole fractals (16 rows, C0 = 32 bytes along K) in L0
        pm, pn, pk = _up(bm, 16), _up(bn, 16), _up(bk, k0)
        if db_c * pm * pn * 4 > l0c or db_a * pm * pk * isz > chip.l0a_size or db_b * pk * pn * isz > chip.l0b_size:
            raise ValueError(f"base blocks {bm} x {bn} x {bk} do not fit {chip.name}'s L0A/L0B ({chip.l0a_size} bytes) "
                             f"and L0C ({l0c} bytes)")
        k_steps = -(-sk // bk)
        step_k = max(1, min(k_steps, l1 // (2 * (bm + bn) * bk * isz)))
        if (bm + bn) * bk * isz > l1:
            raise ValueError(f"one base_m x base_k of A and base_k x base_n of B ({(bm + bn) * bk * isz} bytes) do not "
                             f"fit L1 ({l1} bytes)")
        doubled = 2 * (bm + bn) * bk * isz * step_k <= l1
        depth_a, depth_b = (2 * step_k if doubled and d else step_k for d in self.double[:2])
        cores = -(-m // sm) * -(-n // sn)
        self.core_split = (dim, -(-m // sm), -(-n // sn))
        out = {
            "used_core_num": cores, "m": om, "n": on, "k_a": oka, "k_b": okb,
            "single_core_m": sm, "single_core_n": sn, "single_core_k": sk,
            "base_m": bm, "base_n": bn, "base_k": bk, "depth_a1": depth_a, "depth_b1": depth_b,
            "step_m": 1, "step_n": 1, "step_k_a": step_k, "step_k_b": step_k, "is_bias": int(self.bias),
            "iterate_order": 1 if self.traverse is MatrixTraverse.FIRSTN else 0,
            "db_l0a": db_a, "db_l0b": db_b, "db_l0c": db_c, "batch_num": self.batch_num,
        }
        for side, keys in (("a", ("b", "s", "n", "g", "d")), ("b", ("b", "s", "n", "g", "d")),
                           ("c", ("b", "s1", "n", "g", "s2"))):
            for key, v in zip(keys, self.layout.get(side, ()), strict=False):
                out[f"{side}_layout_info_{key}"] = int(v)
        return out


class MatmulApiTiling(MatmulApiTilingBase):
    """Tiling for one core (the whole shape is the core's block)."""


class MultiCoreMatmulTiling(MatmulApiTilingBase):
    """Tiling over `set_dim(n)` cores."""

    def set_dim(self, dim: int) -> int:
        self.dim = int(dim)
        return 0

    def set_single_shape(self, single_m_in: int = -1, single_n_in: int = -1, single_k_in: int = -1) -> int:
        self.single_fixed = (int(single_m_in), int(single_n_in), int(single_k_in))
        return 0

    def set_single_range(self, max_m: int = -1, max_n: int = -1, max_k: int = -1, min_m: int = -1, min_n: int = -1,
                         min_k: int = -1) -> int:
        """Bounds of single_core_m, single_core_n, single_core_k (-1: free). aclsim does not split K over cores, so
        single_core_k is K: get_tiling fails (-1) when K lies outside the K bounds."""
        self.single_range = tuple(int(v) for v in (max_m, max_n, max_k, min_m, min_n, min_k))
        return 0

    def set_align_split(self, align_m: int, align_n: int, align_k: int) -> int:
        """single_core_m / single_core_n / single_core_k become multiples of these (-1 or 0: free; CANN
        SetAlignSplit). single_core_k is K here (K is not split): get_tiling fails (-1) when K is not a multiple."""
        self.align = (int(align_m), int(align_n), int(align_k))
        return 0

    def enable_multi_core_split_k(self, flag: bool) -> None:
        """Allowed, but aclsim's tiling does not split K over cores (single_core_k stays K): still a
        correct partition for kernels that read it from the tiling."""

    def get_core_num(self) -> tuple[int, ...]:
        """(dim, m_dim, n_dim) of the last get_tiling."""
        return self.core_split

    def get_single_shape(self) -> tuple[int, int, int]:
        r = self.result
        return r.get("single_core_m", -1), r.get("single_core_n", -1), r.get("single_core_k", -1)


class BatchMatmulTiling(MultiCoreMatmulTiling):
    """Tiling of batched matmuls (one core per launch in aclsim's choice)."""

    def get_core_num(self) -> tuple[int, ...]:
        """(dim, m_dim, n_dim, batch_core_m, batch_core_n) of the last get_tiling."""
        return (*self.core_split, 1, 1)


class MatmulConfigParams:
    """The Matmul template a tiling is made for (`set_matmul_config_params`)."""

    def __init__(self, mm_config_type: int = 1, enable_l1_cache_ub: bool = False,
                 schedule_type: int = ScheduleType.INNER_PRODUCT, traverse: int = MatrixTraverse.NOSET,
                 en_vec_nd2nz: bool = False) -> None:
        self.mm_config_type = mm_config_type
        self.enable_l1_cache_ub = enable_l1_cache_ub
        self.schedule_type = ScheduleType(schedule_type)
        self.traverse = MatrixTraverse(traverse)
        self.en_vec_nd2nz = en_vec_nd2nz
