"""The `numba.cuda` face: numba CUDA kernels and their host code on the emulated Ascend runtime.

    from aclsim.simt import cuda          # instead of: from numba import cuda

    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    d_out = cuda.device_array_like(x)
    axpy[blocks, threads](2.0, cuda.to_device(x), cuda.to_device(y), d_out)
    result = d_out.copy_to_host()

Kernels compile with `aclsim.simt` (so the sanitizer and the trace see every launch) once per
combination of argument types, as numba specializes: device arrays (and host numpy arrays,
copied in and back around the launch as numba does) become `simt.Array[dtype, ndim]`, Python ints
int64 and floats float64. Arithmetic inside follows simt's C rules, not numba's numpy promotion
(docs/simt.md, 'numba CUDA programs', lists the differences). Like numba, the first use of the device makes device 0
current when no device is.

This is a face over the runtime and the simt engine, like `aclsim.api` (kernels.py: jit and launches,
host.py: device arrays and streams); the engine never imports it. Names numba has and this face does
not emulate raise an AttributeError saying so.
"""

from __future__ import annotations

from typing import Any

from .. import lang
from ..lang import (
    blockDim,
    blockIdx,
    cg,
    const,
    grid,
    gridDim,
    gridsize,
    laneid,
    local,
    shared,
    syncthreads,
    syncthreads_and,
    syncthreads_count,
    syncthreads_or,
    threadfence,
    threadfence_block,
    threadfence_system,
    threadIdx,
    warpsize,
)
from .host import (
    DeviceNDArray,
    compile,
    compile_for_current_device,
    compile_ptx,
    compile_ptx_for_current_device,
    default_stream,
    device_array,
    device_array_like,
    event,
    external_stream,
    is_available,
    pinned,
    pinned_array,
    pinned_array_like,
    stream,
    synchronize,
    to_device,
)
from .kernels import In, InOut, Out, Reduce, atomic, jit, random, vectorize

# Warp functions (cuda.shfl_sync, cuda.ballot_sync, cuda.activemask, ...), bit intrinsics (cuda.popc,
# clz, ffs, brev), cuda.selp, cuda.fma, cuda.cbrt and cuda.fp16.
_KERNEL_NAMES = (*lang.WARP_FUNCTIONS, *lang.BIT_FUNCTIONS, "selp", "fma", "cbrt", "fp16")
globals().update({_n: getattr(lang, _n) for _n in _KERNEL_NAMES})


def __getattr__(name: str) -> Any:
    raise AttributeError(f"aclsim.simt.cuda does not emulate numba.cuda.{name}; docs/simt.md "
                         "('numba CUDA programs') lists what the cuda namespace offers")


__all__ = [
    "DeviceNDArray", "In", "InOut", "Out", "Reduce", "compile", "compile_for_current_device", "compile_ptx",
    "compile_ptx_for_current_device", "external_stream", "vectorize",
    "atomic", "blockDim", "blockIdx", "cg", "const", "random", "default_stream", "device_array", "device_array_like", "event", "grid",
    "gridDim", "gridsize", "is_available", "jit", "laneid", "local", "pinned", "pinned_array", "pinned_array_like",
    "shared", "stream", "synchronize", "syncthreads", "syncthreads_and", "syncthreads_count", "syncthreads_or",
    "threadIdx", "threadfence", "threadfence_block", "threadfence_system", "to_device", "warpsize",
    *_KERNEL_NAMES,
]
