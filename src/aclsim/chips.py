"""Chip profiles: what each emulated Ascend SoC has.

Figures from CANN 8.1's platform ini files (`data/platform_config/<SoC>.ini`: ai_core_cnt,
vector_core_cnt, memory_size, ub_size, l1_size, l0_*_size, cube_freq).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


@dataclass(frozen=True)
class ChipProfile:
    """Static description of one SoC."""

    name: str
    family: str
    arch: int  # __NPU_ARCH__
    ai_cores: int  # cube cores (AIC), or AI Cores on coupled parts
    vector_cores: int
    memory_size: int  # device memory in bytes
    memory_kind: str  # "HBM" or "DDR": the kind get_mem_info reports
    l2_size: int
    ub_size: int
    ub_reserved: int  # top of UB used by the Ascend C API as temp space
    l1_size: int
    l0a_size: int
    l0b_size: int
    l0c_size: int
    cube_mhz: int
    max_streams: int
    max_events: int
    malloc_padding: int = 32  # the "+32" aclrtMalloc adds after rounding up to 32
    tensors_per_position: int = 8
    data_copy_pad: bool = True  # DataCopyPad exists (A2/A3 yes, 310P no)
    separated: bool = True  # AIC/AIV split (A2/A3) versus coupled (310P)
    bt_size: int = 1024  # BiasTable (TPosition.C2) bytes, ini `bt_size`
    cube_flops_per_cycle: int = 8192  # 16x16x16 float16 MACs per cycle per AIC (2 flops each)
    # SIMT programming (threadIdx, warps, asc_vf_call): Ascend 950 only (asc-devkit SIMT API pages, "产品支持情况")
    simt: bool = False
    # Modeled transfer rates for the timeline (bytes per second); documented estimates.
    hbm_bandwidth: float = 1.6e12
    pcie_bandwidth: float = 25e9

    @property
    def ub_usable(self) -> int:
        """UB bytes a kernel may carve with TPipe.init_buffer."""
        return self.ub_size - self.ub_reserved


PROFILES: dict[str, ChipProfile] = {
    p.name: p
    for p in [
        ChipProfile(
            "Ascend910B1", "Atlas A2", 2201, 24, 48, 64 * GiB, "HBM", 192 * MiB, 192 * KiB, 8 * KiB,
            512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 1850, 1984, 65536,
        ),
        ChipProfile(
            "Ascend910B2", "Atlas A2", 2201, 24, 48, 64 * GiB, "HBM", 192 * MiB, 192 * KiB, 8 * KiB,
            512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 1800, 1984, 65536,
        ),
        ChipProfile(
            "Ascend910B3", "Atlas A2", 2201, 20, 40, 64 * GiB, "HBM", 192 * MiB, 192 * KiB, 8 * KiB,
            512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 1800, 1984, 65536,
        ),
        ChipProfile(
            "Ascend910B4", "Atlas A2", 2201, 20, 40, 32 * GiB, "HBM", 96 * MiB, 192 * KiB, 8 * KiB,
            512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 1500, 1984, 65536, hbm_bandwidth=0.8e12,
        ),
        # Ascend 950 (arch 3510): the CANN 8.1 platform ini (provisional, as "Ascend910_95"); named as asc-devkit's
        # examples name it. No "+32" on aclrtMalloc (aclrtMalloc, api_ref 11-01); SIMT with up to 2048 threads per block.
        ChipProfile(
            "Ascend950PR_9589", "Ascend 950", 3510, 32, 64, 128 * GiB, "HBM", 128 * MiB, 253952, 8 * KiB,
            512 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 1650, 1984, 65536, malloc_padding=0, simt=True,
        ),
        ChipProfile(
            "Ascend310P3", "Atlas inference", 2002, 8, 7, 24_000_000_000, "DDR", 16 * MiB, 256 * KiB,
            8 * KiB, 1 * MiB, 64 * KiB, 64 * KiB, 256 * KiB, 1060, 1024, 1023,
            data_copy_pad=False, separated=False, hbm_bandwidth=0.2e12, pcie_bandwidth=16e9,
        ),
    ]
}

DEFAULT_SOC = "Ascend910B1"


def get_profile(name: str) -> ChipProfile:
    """The profile called `name` (case-insensitive); ValueError lists the known ones."""
    for key, prof in PROFILES.items():
        if key.lower() == name.lower():
            return prof
    raise ValueError(f"unknown SoC {name!r}; known: {', '.join(PROFILES)}")


def profile_from_env() -> ChipProfile:
    """The profile named by ACLSIM_SOC, else the default Ascend910B1."""
    return get_profile(os.environ.get("ACLSIM_SOC", DEFAULT_SOC))


def device_count_from_env() -> int:
    """Number of devices from ACLSIM_DEVICES (default 1, at least 1, at most 64)."""
    raw = os.environ.get("ACLSIM_DEVICES", "1")
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"ACLSIM_DEVICES must be an integer, got {raw!r}") from None
    if not 1 <= n <= 64:
        raise ValueError(f"ACLSIM_DEVICES must be between 1 and 64, got {n}")
    return n
