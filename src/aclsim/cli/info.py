"""`aclsim info`: the emulated devices (like `npu-smi info`) and the active configuration."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import fields

from ..chips import DEFAULT_SOC, PROFILES, ChipProfile
from ..runtime import Runtime, get_runtime
from ..trace.model import ENV_FILE, ENV_PREFIX, CostModel, overrides_from_env
from ..trace.units import fmt_bytes

MB = 1024 * 1024

# Variables aclsim reads, with their default and meaning.
SETTINGS = [
    ("ACLSIM_SOC", DEFAULT_SOC, "chip profile to emulate"),
    ("ACLSIM_DEVICES", "1", "number of emulated devices"),
    ("ACLSIM_SCHEDULE", "lazy", "when queued device work runs: lazy (when the host waits) or eager"),
    ("ACLSIM_CHECK", "off", "sanitizer tools for aclsim run (memcheck,racecheck,initcheck,leakcheck)"),
    ("ACLSIM_SEED", "0", "seed of the random bytes fresh Ascend C local memory (UB, L1, ...) starts with"),
    ("ACLSIM_SIMT_JIT", "auto", "numba JIT (if installed) for interleavable loops or <= 4096 threads; 0/1: never/always"),
    (ENV_FILE, "-", "JSON file overriding timeline model constants"),
]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info", help="show the emulated devices and the active configuration",
        description="Print the emulated NPUs like `npu-smi info` (chip profile, memory in use, AI Cores, "
        "on-chip buffer sizes), the ACLSIM_* settings in force and the timeline's cost model.",
    )
    p.add_argument("--soc", help="show this chip profile instead of ACLSIM_SOC's")
    p.add_argument("--devices", type=int, help="show this many devices instead of ACLSIM_DEVICES")
    p.add_argument("--socs", action="store_true", help="list every chip profile aclsim can emulate")
    p.set_defaults(func=run)


def _boxed(header: list[str], rows: list[list[str]], title: str) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    inner = len(rule) - 4

    def line(r: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"

    return ["+" + "-" * (inner + 2) + "+", f"| {title[:inner].ljust(inner)} |", rule, line(header),
            rule.replace("-", "="), *map(line, rows), rule]


def device_table(rt: Runtime) -> list[str]:
    """One row per emulated device, npu-smi style."""
    from .. import __version__

    rows = []
    for dev in rt.devices:
        chip = dev.chip
        used = dev.heap.used_bytes if dev.heap is not None else 0
        rows.append([
            str(dev.id), chip.name, chip.family, str(chip.arch),
            f"{used // MB} / {chip.memory_size // MB}", str(chip.ai_cores), str(chip.vector_cores),
            fmt_bytes(chip.ub_size), fmt_bytes(chip.l1_size), fmt_bytes(chip.l2_size), str(chip.max_streams),
        ])
    kind = rt.chip.memory_kind
    header = ["NPU", "Name", "Family", "Arch", f"{kind}-Usage(MB)", "AI Cores", "Vector Cores", "UB", "L1", "L2",
              "Streams"]
    title = f"aclsim {__version__}: emulated npu-smi info ({len(rows)} device(s), CPU emulation, no NPU used)"
    return [*_boxed(header, rows, title), "Memory in use is this process's: every aclsim process emulates its own devices."]


def socs_table() -> list[str]:
    rows = [[p.name, p.family, str(p.arch), fmt_bytes(p.memory_size), p.memory_kind, str(p.ai_cores),
             str(p.vector_cores), fmt_bytes(p.ub_size), fmt_bytes(p.l1_size), str(p.cube_mhz)]
            for p in PROFILES.values()]
    header = ["SoC", "Family", "Arch", "Memory", "Kind", "AI Cores", "Vector Cores", "UB", "L1", "MHz"]
    return _boxed(header, rows, f"chip profiles (default {DEFAULT_SOC}; choose with ACLSIM_SOC or --soc)")


def settings_lines(args: argparse.Namespace, chip: ChipProfile) -> list[str]:
    lines = ["Configuration (environment)"]
    flags = {"ACLSIM_SOC": chip.name if args.soc else None, "ACLSIM_DEVICES": args.devices}
    width = max(len(name) for name, _, _ in SETTINGS)
    for name, default, meaning in SETTINGS:
        value = os.environ.get(name)
        if flags.get(name) is not None:
            shown, origin = str(flags[name]), f"--{name.removeprefix('ACLSIM_').lower()}"
        else:
            shown, origin = (value, "set") if value is not None else (default, "default")
        lines.append(f"  {name.ljust(width)}  {shown:<12} {'(' + origin + ')':<11}  {meaning}")
    known = {name for name, _, _ in SETTINGS} | {ENV_PREFIX + f.name.upper() for f in fields(CostModel)}
    others = sorted(k for k in os.environ if k.startswith("ACLSIM_") and k not in known)
    if others:
        lines.append("  also set: " + ", ".join(f"{k}={os.environ[k]}" for k in others))
    return lines


def model_lines(chip: ChipProfile) -> list[str]:
    model = CostModel.for_chip(chip)
    origins = {name: origin for name, (_, origin) in overrides_from_env().items()}
    from_chip = {"pcie_bandwidth", "hbm_bandwidth", "vector_cores", "clock_hz"}
    lines = [f"Timeline cost model (modeled NPU time in traces; override with {ENV_PREFIX}<NAME> or {ENV_FILE})"]
    for name, value in model.as_dict().items():
        if "bandwidth" in name:
            shown = f"{value / 1e9:g} GB/s"
        elif name == "clock_hz":
            shown = f"{value / 1e9:g} GHz"
        elif "overhead" in name:
            shown = f"{value * 1e6:g} us"
        else:
            shown = str(value)
        origin = origins.get(name, f"{chip.name} profile" if name in from_chip else "estimate")
        lines.append(f"  {name:<24} {shown:<14} ({origin})")
    return lines


def run(args: argparse.Namespace) -> int:
    if args.devices is not None and not 1 <= args.devices <= 64:
        print(f"aclsim info: --devices must be between 1 and 64, got {args.devices}", file=sys.stderr)
        return 2
    try:
        rt = Runtime(args.soc, args.devices) if args.soc or args.devices else get_runtime()
        out = socs_table() if args.socs else device_table(rt)
        out += ["", *settings_lines(args, rt.chip), "", *model_lines(rt.chip)]
    except ValueError as e:
        print(f"aclsim info: {e}", file=sys.stderr)
        return 2
    print("\n".join(out))
    return 0
