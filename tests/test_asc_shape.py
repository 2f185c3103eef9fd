"""asc.ShapeInfo / asc.array / get_shape_size, and the shape a Local/GlobalTensor carries."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc


def test_array_forms():
    np.testing.assert_array_equal(asc.array(asc.int32, (4, 64)), [4, 64])
    filled = asc.array(asc.float32, 3, 1.5)
    assert filled.dtype == np.float32 and filled.tolist() == [1.5, 1.5, 1.5]
    with pytest.raises(ValueError, match="positive"):
        asc.array(asc.int32, 0)
    with pytest.raises(ValueError, match="fill_value cannot be given together"):
        asc.array(asc.int32, (1, 2), 0)


def test_shape_info_dims_original_shape_and_size():
    info = asc.ShapeInfo(asc.array(asc.int32, (2, 3, 64)), asc.array(asc.int32, (2, 3, 50)), asc.DataFormat.ND)
    assert [info.shape(i) for i in range(3)] == [2, 3, 64]
    assert info.original_shape(2) == 50
    assert asc.get_shape_size(info) == 2 * 3 * 64
    assert asc.ShapeInfo(asc.array(asc.int32, (8, 16))).original_shape(1) == 16  # defaults to the shape
    with pytest.raises(IndexError):
        info.shape(3)
    with pytest.raises(ValueError, match="at most 8"):
        asc.ShapeInfo(list(range(1, 10)))


def test_tensors_carry_the_shape_they_were_given():
    @asc.jit
    def kernel(x: asc.GlobalAddress, out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        t = asc.LocalTensorAuto(asc.float32, 64)
        assert g.get_shape_info().dims == () and t.get_shape_info().dims == ()
        g.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (4, 16))))
        t.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (8, 8))))
        o = asc.GlobalTensor()
        o.set_global_buffer(out)
        o.set_value(0, asc.get_shape_size(g.get_shape_info()))
        o.set_value(1, t.get_shape_info().shape(0))

    out = np.zeros(8, np.int32)
    kernel[1](np.zeros(64, np.float32), out)
    assert out[:2].tolist() == [64, 8]
