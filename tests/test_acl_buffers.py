"""Data buffers and tensor descriptions: pyACL's results, failure values and argument rules."""

from __future__ import annotations

import numpy as np
import pytest

from aclsim import acl

ACL_FLOAT, ACL_FLOAT16, ACL_INT64 = 0, 1, 9
ACL_FORMAT_NCHW, ACL_FORMAT_ND = 0, 2


def test_data_buffer_round_trip():
    acl.init()
    acl.rt.set_device(0)
    dev, _ = acl.rt.malloc(4096, 0)
    buf = acl.create_data_buffer(dev, 4096)
    assert buf != 0
    assert acl.get_data_buffer_addr(buf) == dev
    assert acl.get_data_buffer_size_v2(buf) == 4096 == acl.get_data_buffer_size(buf)
    assert acl.update_data_buffer(buf, dev + 1024, 1024) == 0
    assert (acl.get_data_buffer_addr(buf), acl.get_data_buffer_size_v2(buf)) == (dev + 1024, 1024)
    assert acl.destroy_data_buffer(buf) == 0
    assert acl.destroy_data_buffer(buf) == 100000  # already destroyed
    assert acl.get_data_buffer_addr(buf) == 0
    acl.rt.free(dev)
    acl.rt.reset_device(0)
    acl.finalize()


def test_data_buffer_rules():
    assert acl.create_data_buffer(0, 0) != 0  # an empty buffer
    assert acl.create_data_buffer(0, 16) == 0  # NULL data with a size
    assert "NULL" in acl.get_recent_err_msg()
    assert acl.get_data_buffer_size_v2(0) == 0
    assert acl.update_data_buffer(0, 0, 0) == 100000
    with pytest.raises(TypeError, match="args parse failed"):
        acl.create_data_buffer(None, 4)
    with pytest.raises(TypeError):
        acl.create_data_buffer(1.5, 4)


def test_data_buffer_size_deprecated_form_is_32_bit():
    buf = acl.create_data_buffer(0x1000, (1 << 32) + 8)
    assert acl.get_data_buffer_size(buf) == 8
    assert acl.get_data_buffer_size_v2(buf) == (1 << 32) + 8
    acl.destroy_data_buffer(buf)


def test_tensor_desc_describes_shape_type_and_size():
    desc = acl.create_tensor_desc(ACL_FLOAT16, [2, 3, 4], ACL_FORMAT_ND)
    assert desc != 0
    assert acl.get_tensor_desc_type(desc) == ACL_FLOAT16
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_ND
    assert acl.get_tensor_desc_num_dims(desc) == 3
    assert [acl.get_tensor_desc_dim_v2(desc, i) for i in range(3)] == [(2, 0), (3, 0), (4, 0)]
    assert acl.get_tensor_desc_element_count(desc) == 24
    assert acl.get_tensor_desc_size(desc) == 24 * np.dtype(np.float16).itemsize
    assert acl.get_tensor_desc_dim_v2(desc, 3) == (-1, 100000)
    assert acl.get_tensor_desc_dim(desc, 5) == -1
    assert acl.set_tensor_shape(desc, [6, 4]) == 0
    assert acl.get_tensor_desc_size(desc) == 48
    assert acl.set_tensor_format(desc, ACL_FORMAT_NCHW) == 0
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_NCHW
    acl.set_tensor_desc_name(desc, "x")
    assert acl.get_tensor_desc_name(desc) == "x"
    assert acl.destroy_tensor_desc(desc) is None
    assert acl.get_tensor_desc_type(desc) == -1  # ACL_DT_UNDEFINED for a dead description


def test_tensor_desc_dynamic_and_invalid_dims():
    dyn = acl.create_tensor_desc(ACL_FLOAT, [-1, 8], ACL_FORMAT_ND)
    assert acl.get_tensor_desc_size(dyn) == 0 and acl.get_tensor_desc_element_count(dyn) == 0
    assert acl.set_tensor_shape_range(dyn, 2, [[1, 16], [8, 8]]) == 0
    assert acl.get_tensor_desc_dim_range(dyn, 0, 2) == ([1, 16], 0)
    rank = acl.create_tensor_desc(ACL_FLOAT, [-2], ACL_FORMAT_ND)
    assert acl.get_tensor_desc_num_dims(rank) == 0xFFFFFFFFFFFFFFFE  # ACL_UNKNOWN_RANK
    assert acl.create_tensor_desc(ACL_FLOAT, [2, -3], ACL_FORMAT_ND) == 0
    assert acl.create_tensor_desc(ACL_FLOAT, [1] * 129, ACL_FORMAT_ND) == 0
    scalar = acl.create_tensor_desc(ACL_INT64, [], ACL_FORMAT_ND)
    assert acl.get_tensor_desc_num_dims(scalar) == 0 and acl.get_tensor_desc_size(scalar) == 8
    with pytest.raises(TypeError, match="args parse failed"):
        acl.create_tensor_desc(ACL_FLOAT, "2,3", ACL_FORMAT_ND)
    assert acl.get_data_type_size(ACL_FLOAT16) == 2 and acl.get_data_type_size(999) == 0
