"""The modeled NPU time of device work: one documented set of constants, overridable.

The emulator's own execution time says how long the CPU took; this model says roughly how long
the chip in the profile would take, so a trace shows both clocks. Every figure is an estimate:

- H2D / D2H copies: `copy_overhead + bytes / pcie_bandwidth` (PCIe between host and NPU).
- D2D copies: `copy_overhead + 2 * bytes / hbm_bandwidth` (each byte is read and written).
- memset: `copy_overhead + bytes / hbm_bandwidth`.
- kernels: `kernel_launch_overhead + max(memory, compute)` (a roofline) where
  `memory = (bytes_read + bytes_written) / (hbm_bandwidth * share)`,
  `compute = ops / (vector_cores * share * vector_lanes * clock_hz)`, `ops` is the kernel's
  `ops` when its engine reports one, else one operation per SIMT thread, and `share`
  is the fraction of vector cores the launch can occupy (blocks or cores / vector_cores, at most 1).
  Ascend C kernels that use the Cube (mmad, asc.adv.Matmul) also report `cube_flops`
  (whole 16 x 16 x 16 fractals), giving a third roof `cube_flops / (cube_cores * share *
  cube_flops_per_cycle * clock_hz)`: 4096 float16 MACs per cycle per AIC (asc-devkit's programming
  guide: the 16x16x16 cube), with `share` over the AICs.
- event record / wait and host callbacks: 0 (markers).

Defaults come from the chip profile (`pcie_bandwidth`, `hbm_bandwidth`, `vector_cores`,
`cube_mhz`); a vector instruction processes 256 bytes per cycle on Atlas A2 ("repeat" of 8 x 32 B
blocks, asc-devkit docs/zh/api/SIMD-API/C-API/通用说明和约束.md), i.e. 64 fp32 lanes. The two overheads are estimates of
the device-side cost of starting a task (not documented by CANN).

Override any field with `ACLSIM_MODEL_<FIELD>` (e.g. `ACLSIM_MODEL_PCIE_BANDWIDTH=32e9`) or with
a JSON object of fields in the file named by `ACLSIM_MODEL`; the environment variable wins.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..chips import ChipProfile

ENV_FILE = "ACLSIM_MODEL"
ENV_PREFIX = "ACLSIM_MODEL_"


@dataclass(frozen=True)
class CostModel:
    """Constants of the modeled NPU clock (bytes/s, Hz, seconds)."""

    pcie_bandwidth: float  # host <-> device copies
    hbm_bandwidth: float  # device memory
    vector_cores: int
    clock_hz: float
    vector_lanes: int = 64  # fp32 elements per vector instruction (256 B per cycle)
    cube_cores: int = 24  # AICs
    cube_flops_per_cycle: int = 8192  # per AIC: 16 x 16 x 16 multiply-adds
    kernel_launch_overhead: float = 5e-6
    copy_overhead: float = 2e-6

    @classmethod
    def for_chip(cls, chip: ChipProfile, env: Mapping[str, str] | None = None) -> CostModel:
        """The model for `chip` with the overrides found in `env` (default: os.environ)."""
        model = cls(chip.pcie_bandwidth, chip.hbm_bandwidth, chip.vector_cores, chip.cube_mhz * 1e6,
                    cube_cores=chip.ai_cores, cube_flops_per_cycle=chip.cube_flops_per_cycle)
        return model.with_overrides(overrides_from_env(env))

    def with_overrides(self, overrides: Mapping[str, tuple[Any, str]]) -> CostModel:
        """A copy with fields replaced; `overrides` maps field -> (value, where it came from)."""
        types = {f.name: f.type for f in fields(self)}
        changes: dict[str, Any] = {}
        for name, (raw, origin) in overrides.items():
            if name not in types:
                raise ValueError(f"{origin}: unknown model constant {name!r}; known: {', '.join(types)}")
            try:
                value = float(raw)
            except (TypeError, ValueError):
                raise ValueError(f"{origin}: {name} must be a number, got {raw!r}") from None
            integral = types[name] == "int"
            if not math.isfinite(value) or value < 0 or (integral and (value < 1 or value != int(value))):
                need = "a positive integer" if integral else "a finite number >= 0"
                raise ValueError(f"{origin}: {name} must be {need}, got {raw!r}")
            if name in ("pcie_bandwidth", "hbm_bandwidth", "clock_hz") and value == 0:
                raise ValueError(f"{origin}: {name} must be > 0")
            changes[name] = int(value) if integral else value
        return replace(self, **changes)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def task_time(self, kind: str, info: Mapping[str, Any]) -> float | None:
        """Modeled seconds of one device task (`kind` and `info` as on runtime Tasks); None for H2H."""
        if kind == "memcpy":
            direction, nbytes = info.get("direction"), info.get("bytes", 0)
            if direction in ("H2D", "D2H"):
                return self.copy_overhead + nbytes / self.pcie_bandwidth
            if direction == "D2D":
                return self.copy_overhead + 2 * nbytes / self.hbm_bandwidth
            return None  # host to host: no device involved
        if kind == "memset":
            return self.copy_overhead + info.get("bytes", 0) / self.hbm_bandwidth
        if kind == "kernel":
            return self.kernel_time(info)
        return 0.0

    def kernel_time(self, info: Mapping[str, Any]) -> float:
        grid, block, cores = info.get("grid"), info.get("block"), info.get("cores")
        if cores is not None:
            units, threads = int(cores), 0
        elif grid is not None:
            units = math.prod(grid)
            threads = units * math.prod(block or (1,))
        else:
            units, threads = self.vector_cores, 0
        share = min(1.0, max(units, 1) / self.vector_cores)
        moved = info.get("bytes_read", 0) + info.get("bytes_written", 0)
        memory = moved / (self.hbm_bandwidth * share)
        ops = info.get("ops", threads)
        compute = ops / (self.vector_cores * share * self.vector_lanes * self.clock_hz)
        cube_share = min(1.0, max(info.get("cube_cores", units), 1) / self.cube_cores)  # mix: AICs, not AIVs
        cube = info.get("cube_flops", 0) / (self.cube_cores * cube_share * self.cube_flops_per_cycle * self.clock_hz)
        return self.kernel_launch_overhead + max(memory, compute, cube)


def overrides_from_env(env: Mapping[str, str] | None = None) -> dict[str, tuple[Any, str]]:
    """Model constants set by ACLSIM_MODEL (JSON file) and ACLSIM_MODEL_<FIELD>: name -> (value, origin)."""
    env = os.environ if env is None else env
    overrides: dict[str, tuple[Any, str]] = {}
    path = env.get(ENV_FILE)
    if path:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise ValueError(f"{ENV_FILE}={path!r}: cannot read a JSON object of model constants: {e}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{ENV_FILE}={path!r}: expected a JSON object such as {{\"pcie_bandwidth\": 32e9}}")
        overrides.update({k: (v, f"{ENV_FILE} file") for k, v in data.items()})
    for f in fields(CostModel):
        raw = env.get(ENV_PREFIX + f.name.upper())
        if raw is not None:
            overrides[f.name] = (raw, ENV_PREFIX + f.name.upper())
    return overrides
