"""pyasc's `asc.data_copy`: its call forms, each sent to the data movement that carries it out."""

from __future__ import annotations

from typing import Any

from ...cube.fixpipe import data_copy_co1
from ...move.data_copy import blocked, count_copy
from ...move.nd2nz import nd2nz
from ...move.slices import extended
from ...types.cube_params import DataCopyCO12DstParams, Nd2NzParams
from ...types.params import DataCopyParams


def data_copy(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """`data_copy(dst, src, count)` or `data_copy(dst, src, DataCopyParams(...))`; GM<->local or local->local;
    `data_copy(dst_l1, src_gm, Nd2NzParams(...))` lays a matrix out in fractal NZ (move/nd2nz.py); the
    enhanced and slice forms are in move/slices.py."""
    if len(args) == 1 and not kwargs and type(args[0]) is int:  # the count form: the hot path
        count_copy(dst, src, args[0])
        return
    param = args[0] if args else next(iter(kwargs.values()), None)
    if len(args) + len(kwargs) in (2, 3):
        extended(dst, src, *args, **kwargs)
        return
    if len(args) + len(kwargs) != 1:
        raise TypeError("data_copy(dst, src, count), (dst, src, DataCopyParams[, DataCopyEnhancedParams]) or "
                        "(dst, src, dst_slices, src_slices[, dim_value])")
    if isinstance(param, DataCopyParams):
        blocked(dst, src, param)
    elif isinstance(param, Nd2NzParams):
        nd2nz(dst, src, param)
    elif isinstance(param, DataCopyCO12DstParams):
        data_copy_co1(dst, src, param)
    else:
        count_copy(dst, src, int(param))


