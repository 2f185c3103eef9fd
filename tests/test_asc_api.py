"""aclsim.asc: the pyasc surface beyond queues and vector math: raw LocalTensors with manual
set_flag/wait_flag sync, queue queries, TPipe.reset/destroy, TBuf offsets, scalar GM access,
printf, pyasc's host helpers and launches on an explicit stream."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim.asc.lib import runtime as asc_rt
from aclsim.asc.runtime import config
from aclsim.runtime import get_runtime

CORES = 8
TILE_NUM = 8
BUFFER_NUM = 2


@asc.jit
def manual_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    """pyasc tutorial 01 style: LocalTensors at explicit UB addresses, pipes synchronised by hand."""
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    tile = block_length // TILE_NUM // BUFFER_NUM
    nbytes = tile * BUFFER_NUM * x.dtype.sizeof()
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile * BUFFER_NUM)
    y_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nbytes, tile * BUFFER_NUM)
    z_local = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, tile * BUFFER_NUM)
    for i in asc.range(TILE_NUM * BUFFER_NUM):
        b = i % BUFFER_NUM
        asc.data_copy(x_local[b * tile:], x_gm[i * tile:], tile)
        asc.data_copy(y_local[b * tile:], y_gm[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.add(z_local[b * tile:], x_local[b * tile:], y_local[b * tile:], tile)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * tile:], z_local[b * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, b)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def test_raw_local_tensors_with_manual_sync():
    rng = np.random.default_rng(1)
    x, y = rng.random(CORES * 2048, dtype=np.float32), rng.random(CORES * 2048, dtype=np.float32)
    x.flags.writeable = False  # read-only inputs are copied in, not back
    z = np.zeros_like(x)
    manual_add[CORES](x, y, z, 2048)
    np.testing.assert_array_equal(z, x + y)


def test_launch_on_pyasc_current_stream_after_set_platform():
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B4, device_id=0)
    assert get_runtime().chip.name == "Ascend910B4"
    x = np.arange(CORES * 2048, dtype=np.float32)
    z = np.zeros_like(x)
    manual_add[CORES, asc_rt.current_stream()](x, x, z, 2048)
    np.testing.assert_array_equal(z, 2 * x)


def test_raw_local_tensor_must_fit_the_usable_ub():
    @asc.jit
    def too_big(x: asc.GlobalAddress):
        asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 180 * 1024, 4096)

    with pytest.raises(asc.AscError, match=r"4096 x float32 at UB offset 184320 does not fit the 188416 usable bytes"):
        too_big[1](np.zeros(8, np.float32))


@asc.jit
def queue_state(z: asc.GlobalAddress):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(que=q, num=2, len=64)
    record = [q.has_tensor_in_que(), q.vacant_in_que(), q.get_tensor_count_in_que()]
    a = q.alloc_tensor(asc.float32)
    b = q.alloc_tensor(asc.float32)
    record.append(q.has_idle_buffer())
    q.enque(a)
    q.enque(b)
    record += [q.has_tensor_in_que(), q.vacant_in_que(), q.get_tensor_count_in_que()]
    first = q.deque(asc.float32)
    record.append(first.get_phy_addr() == a.get_phy_addr())  # FIFO
    q.free_tensor(first)
    q.free_tensor(q.deque(asc.float32))
    for i, v in enumerate(record):
        zg.set_value(i, int(v))


def test_queue_queries():
    z = np.full(8, -1, np.int32)
    queue_state[1](z)
    assert z[:8].tolist() == [0, 1, 0, 0, 1, 0, 2, 1]


@asc.jit
def after_reset(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, 64)
    t = q.alloc_tensor(asc.float32)
    asc.duplicate(t, 1.0, 16)
    pipe.reset()  # reset
    asc.adds(t, t, 1.0, 16)  # after-reset


def test_tensors_die_with_tpipe_reset():
    with pytest.raises(asc.AscError, match=r"asc\.adds: t is used after TPipe\.reset: its buffer was released at "
                                           r"\S*test_asc_api\.py:\d+"):
        after_reset[1](np.zeros(8, np.float32), np.zeros(8, np.float32))


def test_a_second_tpipe_is_refused_until_the_first_is_destroyed():
    @asc.jit
    def two_pipes(x: asc.GlobalAddress, destroy: bool):
        p = asc.TPipe()
        if destroy:
            p.destroy()
        asc.TPipe()

    two_pipes[1](np.zeros(8, np.float32), True)
    with pytest.raises(asc.AscError, match="a kernel may create only one TPipe"):
        two_pipes[1](np.zeros(8, np.float32), False)


def test_tbuf_offsets_and_scalar_gm_access():
    @asc.jit
    def scalars(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf=buf, num=256)
        hi = buf.get_with_offset(8, 128, asc.float32)
        asc.duplicate(hi, xg.get_value(3) * 2, 8)
        asc.data_copy(zg, hi, 8)
        asc.data_copy(zg[8:], buf.get(asc.float32)[32:], 8)  # the same bytes through get()

    x = np.arange(8, dtype=np.float32)
    z = np.zeros(16, np.float32)
    scalars[1](x, z)
    assert (z == 6).all()


def test_printf_formats_like_c(capsys):
    @asc.jit
    def hello(x: asc.GlobalAddress):
        asc.printf("block %d of %u: %.2f %s\n", asc.get_block_idx(), asc.get_block_num(), 1.5, "ok")

    hello[2](np.zeros(8, np.float32))
    assert capsys.readouterr().out == "block 0 of 2: 1.50 ok\nblock 1 of 2: 1.50 ok\n"


def test_dtypes():
    assert [t.sizeof() for t in (asc.half, asc.float32, asc.bfloat16, asc.int8, asc.uint16, asc.int32)] == \
        [2, 4, 2, 1, 2, 4]
    assert asc.half is asc.float16 and asc.float_ is asc.float32
    assert (asc.GlobalAddress(0x100, asc.half) + 3).addr == 0x106  # pointer arithmetic counts elements
    with pytest.raises(TypeError, match="has no Ascend C element type"):
        asc.GlobalAddress(0x100, np.complex64)


def test_vector_instructions_need_ub_tensors():
    @asc.jit
    def on_l1(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.A1, 1)
        pipe.init_buffer(q, 1, 1024)
        t = q.alloc_tensor(asc.float32)
        asc.duplicate(t, 1.0, 64)

    with pytest.raises(asc.AscError, match=r"asc\.duplicate: vector instructions work on UB tensors .*this tensor is "
                                           r"in L1 \(TPosition\.A1\)"):
        on_l1[1](np.zeros(8, np.float32))


def test_event_ids():
    @asc.jit
    def ids(z: asc.GlobalAddress):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        got = [pipe.alloc_event_id(asc.HardEvent.V_MTE3), pipe.alloc_event_id(asc.HardEvent.V_MTE3),
               pipe.fetch_event_id(asc.HardEvent.V_MTE3), pipe.alloc_event_id(asc.HardEvent.MTE2_V)]
        pipe.release_event_id(0, asc.HardEvent.V_MTE3)
        got.append(pipe.fetch_event_id(asc.HardEvent.V_MTE3))
        for i, v in enumerate(got):
            zg.set_value(i, v)

    z = np.full(8, -1, np.int32)
    ids[1](z)
    assert z[:5].tolist() == [0, 1, 2, 0, 0]
