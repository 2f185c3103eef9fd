"""simt.grid / simt.gridsize (1 to 3 dimensions, tuple unpacking), simt.laneid and simt.warpsize."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
from aclsim import simt
from aclsim.simt import Ptr


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def run(kernel, grid, block, *args):
    dev = [aclsim.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid, block](*dev)
    aclsim.Stream.default().synchronize()
    return [d.copy_to_host() for d in dev if isinstance(d, aclsim.DeviceArray)]


@simt.kernel
def saxpy_stride(a: np.float32, x: Ptr[np.float32], y: Ptr[np.float32], n: np.int32):
    for i in range(simt.grid(1), n, simt.gridsize(1)):
        y[i] = a * x[i] + y[i]


def test_grid_stride_loop_covers_every_element_once():
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, np.float32)
    out = run(saxpy_stride, 3, 64, 2.0, x, y, 1000)[1]  # 192 threads for 1000 elements
    assert np.array_equal(out, np.float32(2) * x + 1)


@simt.kernel
def positions2(out: Ptr[np.int32], w: np.uint32, h: np.uint32):
    i, j = simt.grid(2)
    sx, sy = simt.gridsize(2)
    if i < w and j < h:
        out[j * w + i] = i + 1000 * j + 1000000 * (sx == 8 and sy == 6)


def test_grid2_unpacks_x_and_y():
    out = run(positions2, (2, 3), (4, 2), np.zeros(7 * 5, np.int32), 7, 5)[0].reshape(5, 7)
    jj, ii = np.mgrid[0:5, 0:7]
    assert np.array_equal(out, ii + 1000 * jj + 1000000)


@simt.kernel
def positions3(out: Ptr[np.int32]):
    x, y, z = simt.grid(3)
    nx, ny, _ = simt.gridsize(3)
    out[(z * ny + y) * nx + x] = x + 10 * y + 100 * z


def test_grid3_matches_block_and_thread_indices():
    out = run(positions3, (2, 1, 3), (2, 3, 1), np.zeros(4 * 3 * 3, np.int32))[0].reshape(3, 3, 4)
    z, y, x = np.mgrid[0:3, 0:3, 0:4]
    assert np.array_equal(out, x + 10 * y + 100 * z)


@simt.kernel
def lanes(out: Ptr[np.int32]):
    t = simt.threadIdx.x + simt.threadIdx.y * simt.blockDim.x
    g = simt.blockIdx.x * simt.blockDim.x * simt.blockDim.y + t
    out[2 * g] = simt.laneid
    out[2 * g + 1] = simt.warpsize


def test_laneid_is_the_linear_thread_index_modulo_32():
    out = run(lanes, 2, (20, 5), np.zeros(2 * 200, np.int32))[0].reshape(200, 2)
    assert out[:, 0].tolist() == [t % 32 for t in range(100)] * 2
    assert set(out[:, 1].tolist()) == {32}


def test_grid_misuse_is_refused_with_the_fix():
    @simt.kernel
    def as_value(out: Ptr[np.int32]):
        out[0] = simt.grid(2)

    @simt.kernel
    def wrong_arity(out: Ptr[np.int32]):
        i, j = simt.grid(3)
        out[i] = j

    @simt.kernel
    def not_constant(out: Ptr[np.int32], d: np.int32):
        i = simt.grid(d)
        out[i] = 0

    with pytest.raises(simt.SimtError, match=r"storing the 2 values of 'simt.grid\(2\)' into one array element.*unpack it"):
        as_value.compile()
    with pytest.raises(simt.SimtError, match=r"unpacking the 3 values of 'simt.grid\(3\)' into 2 names"):
        wrong_arity.compile()
    with pytest.raises(simt.SimtError, match="without a constant number of dimensions"):
        not_constant.compile()
