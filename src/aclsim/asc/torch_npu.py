"""A stand-in for `torch_npu` under `aclsim run`: torch's "npu" device is host memory.

On an Ascend machine `torch_npu` (loaded by torch's device-backend autoload) adds the "npu"
device, and pyasc programs create their tensors with `device="npu"`. Here the NPU is emulated in
host memory, so an "npu" tensor is a CPU tensor: a torch function mode rewrites `device="npu"` /
`"npu:N"` arguments and `.to("npu")` to "cpu", and `Tensor.npu()` returns the tensor. Kernel
launches then copy such tensors like any host tensor. Only active when `aclsim run` finds torch
installed and the real torch_npu absent; nothing here runs otherwise (torch is not imported).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any

_ACTIVE: list[Any] = []  # the installed mode, once


def _is_npu(device: Any) -> bool:
    text = device if isinstance(device, str) else None
    return text is not None and (text == "npu" or text.startswith("npu:"))


def activate() -> None:
    """Make "npu" mean host memory in torch calls (idempotent; imports torch)."""
    if _ACTIVE:
        return
    import torch
    from torch.overrides import TorchFunctionMode

    class NpuIsHost(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            if _is_npu(kwargs.get("device")):
                kwargs = {**kwargs, "device": "cpu"}
            if args and _is_npu(args[-1]) and getattr(func, "__name__", "") == "to":
                args = (*args[:-1], "cpu")
            return func(*args, **kwargs)

    mode = NpuIsHost()
    mode.__enter__()  # stays on for the rest of the program
    _ACTIVE.append(mode)
    if not hasattr(torch.Tensor, "npu"):
        torch.Tensor.npu = lambda self, *a, **k: self  # type: ignore[attr-defined]


class _AfterTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Runs `activate()` right after the program imports torch."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "torch" or _ACTIVE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        real = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> ModuleType | None:
                return real.create_module(spec)

            def exec_module(self, module: ModuleType) -> None:
                real.exec_module(module)
                activate()

        spec.loader = Loader()
        return spec


def install() -> None:
    """Under `aclsim run`: provide `torch_npu` and activate the "npu" device when torch is imported."""
    sys.modules.setdefault("torch_npu", sys.modules[__name__])
    if "torch" in sys.modules:
        activate()
    elif not any(isinstance(f, _AfterTorch) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterTorch())
