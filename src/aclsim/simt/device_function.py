"""`@simt.device` functions and the parameter annotations kernels and device functions declare.

Its own module so that the compiler (which compiles device functions) and `kernel.py` (which
compiles and launches kernels) both import it without importing each other.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from .ctype import scalar_dtype
from .lang import ArrayType, PtrType, SimtError


def params_of(fn: Any, what: str, require: bool) -> dict[str, Any]:
    """Parameter name -> PtrType, ArrayType, scalar np.dtype, or None (untyped device-function parameter)."""
    try:
        ann = inspect.get_annotations(fn, eval_str=True)
    except Exception as e:
        raise SimtError(f"{what} {fn.__name__}: cannot evaluate its annotations ({e})") from None
    out: dict[str, Any] = {}
    for name in inspect.signature(fn).parameters:
        a = ann.get(name)
        if isinstance(a, (PtrType, ArrayType)):
            out[name] = a
            continue
        dt = scalar_dtype(a) if a is not None else None
        if dt is None and (require or a is not None):
            raise SimtError(
                f"{what} {fn.__name__}: parameter '{name}' needs a type annotation: simt.Ptr[np.float32] (any bool, "
                f"integer or float dtype) for a device pointer, simt.Array[np.float32, 2] for a device array, "
                f"or a scalar type (np.uint32, np.int32, np.float32, int, float)"
                + (f"; got {a!r}" if a is not None else "")
            )
        out[name] = dt
    return out


class DeviceFunction:
    """A `@simt.device` helper, callable from kernels and other device functions."""

    def __init__(self, fn: Any, signature: tuple[tuple[Any, ...], Any] | None = None) -> None:
        """`signature`: (parameter types, return type or None), as numba's cuda.jit("f4(f4, i4)", device=True)
        fixes them: arguments convert to the parameter types, the result to the return type."""
        self.fn = self.py_func = fn
        self.signature = signature
        # compiler.Compiled per set of compile-time arguments (front.static_key), built by the kernels that call it
        self.compiled: dict[tuple, Any] = {}
        self.source: Any = None  # front.Source, parsed once
        functools.update_wrapper(self, fn)

    def params(self) -> dict[str, Any]:
        if self.signature is not None:
            names = list(inspect.signature(self.fn).parameters)
            if len(names) != len(self.signature[0]):
                raise SimtError(f"device function {self.fn.__name__}: its signature has {len(self.signature[0])} "
                                f"argument types for {len(names)} parameters")
            # arrays pass through as they are (their shape and strides come with them)
            return {n: None if isinstance(t, ArrayType) else t for n, t in zip(names, self.signature[0], strict=True)}
        return params_of(self.fn, "device function", require=False)

    @property
    def restype(self) -> Any:
        return self.signature[1] if self.signature is not None else None

    def __call__(self, *args: Any) -> Any:
        raise SimtError(f"@simt.device function {self.fn.__name__} can only be called from a kernel")


def device(fn: Any) -> DeviceFunction:
    """Decorator: a function kernels can call (compiled along with them)."""
    return DeviceFunction(fn)
