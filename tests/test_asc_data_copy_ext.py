"""data_copy's slice form (SliceInfo, GM <-> UB) and enhanced form (DataCopyEnhancedParams) against numpy
slicing of the same data; the refusals of slices the hardware cannot express."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm

ROWS, COLS = 4, 96  # GM holds a 4 x 96 float16 matrix, dimension 0 (contiguous) first
# dimension 0: elements 16..79 in bursts of one 32-byte block (16 halves) with 8-element gaps -> 3 bursts;
# dimension 1: rows 0..2 taking every second one -> rows 0 and 2
GM_SLICES = ((16, 79, 8, 1, COLS), (0, 2, 1, 1, ROWS))
UB_SLICES = ((0, 47, 0, 1, 48), (0, 1, 0, 1, 2))  # the 2 x 48 picked elements, contiguous in UB


def _ub(dtype, n):
    b = asc.TBuf(asc.TPosition.VECCALC)
    asc.get_tpipe_ptr().init_buffer(b, n * dtype.itemsize)
    return b.get(dtype)


def _picked(x):
    m = x.reshape(ROWS, COLS)
    return np.concatenate([m[r, c : c + 16] for r in (0, 2) for c in (16, 40, 64)])


@asc.jit
def gather_slices(x: asc.GlobalAddress, z: asc.GlobalAddress, gm_slices: tuple, ub_slices: tuple):
    asc.TPipe()
    t = _ub(x.dtype, 96)
    asc.data_copy(t, _gm(x), [asc.SliceInfo(*s) for s in ub_slices], [asc.SliceInfo(*s) for s in gm_slices], 2)
    asc.data_copy(_gm(z), t, 96)


def test_slice_form_gm_to_ub_picks_bursts_of_the_selected_rows():
    x = np.arange(ROWS * COLS).astype(np.float16)
    z = np.zeros(96, np.float16)
    gather_slices[1](x, z, GM_SLICES, UB_SLICES)
    np.testing.assert_array_equal(z, _picked(x))


@asc.jit
def scatter_slices(x: asc.GlobalAddress, z: asc.GlobalAddress, gm_slices: tuple, ub_slices: tuple):
    asc.TPipe()
    t = _ub(x.dtype, 96)
    asc.data_copy(t, _gm(x), 96)
    asc.data_copy(_gm(z), t, slice_list1=[asc.SliceInfo(*s) for s in gm_slices],
                  slice_list2=[asc.SliceInfo(*s) for s in ub_slices], dim_value=2)


def test_slice_form_ub_to_gm_writes_only_the_sliced_elements():
    x = np.arange(96).astype(np.float16)
    z = np.full(ROWS * COLS, -1, np.float16)
    scatter_slices[1](x, z, GM_SLICES, UB_SLICES)
    ref = np.full(ROWS * COLS, -1, np.float16)
    m = ref.reshape(ROWS, COLS)
    k = iter(x.reshape(-1, 16))
    for r in (0, 2):
        for c in (16, 40, 64):
            m[r, c : c + 16] = next(k)
    np.testing.assert_array_equal(z, ref)


def test_slice_range_that_is_not_whole_bursts_is_refused():
    bad = ((16, 70, 8, 1, COLS), (0, 2, 1, 1, ROWS))
    with pytest.raises(asc.AscError, match=r"is not a whole number of bursts of 1 x 32 bytes"):
        gather_slices[1](np.zeros(ROWS * COLS, np.float16), np.zeros(96, np.float16), bad, UB_SLICES)


def test_slice_ub_stride_must_be_whole_blocks():
    ub = ((0, 47, 4, 1, 64), (0, 1, 0, 1, 2))  # 4 halves = 8 bytes between bursts in UB
    with pytest.raises(asc.AscError, match=r"UB-side stride of 4 elements is not a multiple of 32 bytes"):
        gather_slices[1](np.zeros(ROWS * COLS, np.float16), np.zeros(96, np.float16), GM_SLICES, ub)


def _enhanced(enh: tuple):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        asc.TPipe()
        t = _ub(x.dtype, 256)
        p = asc.DataCopyParams(4, 1, 1, 0)  # 4 blocks of 32 bytes, every other block of GM
        asc.data_copy(t, _gm(x), params=p, enhanced_params=asc.DataCopyEnhancedParams(*enh))
        asc.data_copy(_gm(z), t, 64)

    return k


def test_default_enhanced_params_are_the_blocked_copy():
    x = np.arange(256).astype(np.float16)
    z = np.zeros(64, np.float16)
    _enhanced(())[1](x, z)
    np.testing.assert_array_equal(z, x.reshape(-1, 16)[0:8:2].ravel())


def test_cube_path_enhancements_are_not_emulated():
    x = np.zeros(256, np.float16)
    with pytest.raises(asc.AscError, match=r"asc\.data_copy with DataCopyEnhancedParams\(.*is_relu_in=True.* is a "
                                           r"pyasc API that aclsim does not emulate"):
        _enhanced((asc.BlockMode.BLOCK_MODE_NORMAL, asc.DeqScale.DEQ_NONE, 0, 0, True))[1](x, np.zeros(64, np.float16))
