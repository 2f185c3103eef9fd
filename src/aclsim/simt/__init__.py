"""SIMT kernels written as per-thread Python and run vectorized across threads at numpy speed.

    from aclsim import simt
    import numpy as np

    @simt.kernel
    def square(inp: simt.Ptr[np.float32], out: simt.Ptr[np.float32], size: np.uint32):
        tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
        if tid < size:
            out[tid] = inp[tid] * inp[tid]

    square[(size + 255) // 256, 256, stream](x_dev, y_dev, size)   # queued; runs at synchronize

Arithmetic follows C (uint32 wraps, float32 stays float32, integer `/` truncates, `%` is the C
remainder); `if`/`for range`/`while`/`break`/`continue`/`return` may diverge per thread. Every load
and store is checked: an address outside every live allocation faults the launch (507015 at the
next synchronize, with kernel, block, thread, index, address and line in acl.get_recent_err_msg()).
"""

from . import lang
from .kernel import MAX_THREADS_PER_BLOCK, Kernel, kernel
from .lang import (
    Array,
    ArrayType,
    DeviceFunction,
    Ptr,
    PtrType,
    SimtError,
    abs,
    acos,
    asin,
    atan,
    atan2,
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_exch,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_sub,
    atomic_xor,
    blockDim,
    blockIdx,
    ceil,
    const,
    cos,
    cosh,
    device,
    dim3,
    exp,
    exp2,
    fabs,
    floor,
    fma,
    grid,
    gridDim,
    gridsize,
    laneid,
    local,
    log,
    log2,
    log10,
    max,
    min,
    pow,
    rsqrt,
    shared,
    sin,
    sinh,
    sqrt,
    syncthreads,
    syncthreads_and,
    syncthreads_count,
    syncthreads_or,
    tan,
    tanh,
    this_grid,
    threadfence,
    threadfence_block,
    threadfence_system,
    threadIdx,
    trunc,
    warpsize,
)
from .mathfns import MATH

__all__ = [
    "MAX_THREADS_PER_BLOCK", "Array", "ArrayType", "DeviceFunction", "Kernel", "Ptr", "PtrType", "SimtError", "abs", "acos", "asin", "atan",
    "atan2", "atomic_add", "atomic_and", "atomic_cas", "atomic_exch", "atomic_max", "atomic_min", "atomic_or",
    "atomic_sub", "atomic_xor", "blockDim", "blockIdx", "ceil", "const", "cos", "cosh", "device", "dim3", "exp", "exp2", "fabs",
    "floor", "fma", "grid", "gridDim", "gridsize", "kernel", "laneid", "local", "log", "log2", "log10", "max", "min", "pow",
    "rsqrt", "shared", "sin", "sinh", "sqrt", "syncthreads", "syncthreads_and", "syncthreads_count", "syncthreads_or", "tan", "tanh",
    "this_grid", "threadIdx", "threadfence", "threadfence_block", "threadfence_system", "trunc", "warpsize",
]
# Every math function (simt.hypot, simt.erf, simt.isnan, ...): the table is in mathfns.
globals().update({_n: getattr(lang, _n) for _n in MATH})
__all__ += [n for n in MATH if n not in __all__]
# Warp functions (simt.shfl_sync, simt.ballot_sync, ...): listed in lang.WARP_FUNCTIONS.
globals().update({_n: getattr(lang, _n) for _n in lang.WARP_FUNCTIONS})
__all__ += list(lang.WARP_FUNCTIONS)


def __getattr__(name: str) -> object:
    """`from aclsim.simt import cuda`: the numba.cuda face (a face over this engine, so imported on demand)."""
    if name == "cuda":
        import importlib

        return importlib.import_module("aclsim.cuda")
    raise AttributeError(f"module 'aclsim.simt' has no attribute {name!r}")
