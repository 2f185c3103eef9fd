"""Cores of one launch waiting for each other: cross_core_set_flag / cross_core_wait_flag and sync_all."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim.asc.runtime.config import KernelType

V = asc.PipeID.PIPE_V


def gm(x: asc.GlobalAddress) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    return g


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def aiv_aic_round_trip(buf: asc.GlobalAddress, out: asc.GlobalAddress):
    """AIVs publish values; the AIC (which runs first) waits for both, sums them, publishes the sum;
    the AIVs wait for it and scale their own value by it."""
    b, o = gm(buf), gm(out)
    blk = asc.get_block_idx()
    if asc.ascend_is_aiv():
        b.set_value(blk, (blk + 1) * 3)
        asc.cross_core_set_flag(2, 2, V)
        asc.cross_core_wait_flag(2, 2, V)
        o.set_value(blk, b.get_value(blk) * b.get_value(100 + blk // 2))
    else:
        asc.cross_core_wait_flag(2, 2, V)
        b.set_value(100 + blk, b.get_value(2 * blk) + b.get_value(2 * blk + 1))
        asc.cross_core_set_flag(2, 2, V)


def test_mode2_aic_waits_for_both_aivs_and_they_wait_for_it():
    groups = 3
    buf = np.zeros(128, np.int32)
    out = np.zeros(2 * groups, np.int32)
    aiv_aic_round_trip[groups](buf, out)
    vals = (np.arange(2 * groups) + 1) * 3
    sums = vals.reshape(groups, 2).sum(axis=1)
    np.testing.assert_array_equal(out, vals * np.repeat(sums, 2))


@asc.jit
def rotate_after_sync_all(buf: asc.GlobalAddress, out: asc.GlobalAddress):
    b, o = gm(buf), gm(out)
    i, n = asc.get_block_idx(), asc.get_block_num()
    b.set_value(i, i * i + 1)
    asc.sync_all()
    o.set_value(i, b.get_value((i + 1) % n))  # written by the next core, which runs after this one


def test_sync_all_makes_every_cores_writes_visible_to_the_others():
    n = 8
    buf = np.zeros(n, np.int32)
    out = np.zeros(n, np.int32)
    rotate_after_sync_all[n](buf, out)
    np.testing.assert_array_equal(out, np.roll(np.arange(n) ** 2 + 1, -1))


@asc.jit
def rotate_after_soft_sync(buf: asc.GlobalAddress, ws: asc.GlobalAddress, out: asc.GlobalAddress):
    b, o = gm(buf), gm(out)
    i, n = asc.get_block_idx(), asc.get_block_num()
    pipe = asc.TPipe()
    q = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(q, n * 32)
    b.set_value(i, 7 * i)
    asc.sync_all(gm(ws), q.get(asc.int32), used_cores=n)
    o.set_value(i, b.get_value((i + 1) % n))


def test_soft_sync_all_with_workspaces_is_a_barrier_too():
    n = 4
    buf, out = np.zeros(n, np.int32), np.zeros(n, np.int32)
    rotate_after_soft_sync[n](buf, np.zeros(n * 8, np.int32), out)
    np.testing.assert_array_equal(out, np.roll(7 * np.arange(n), -1))


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def aiv_pairs(buf: asc.GlobalAddress, out: asc.GlobalAddress, mode: int):
    b, o = gm(buf), gm(out)
    if asc.ascend_is_aiv():
        i = asc.get_block_idx()
        b.set_value(i, 10 * i + 5)
        asc.cross_core_set_flag(4, mode, V)
        asc.cross_core_wait_flag(4, mode, V)
        o.set_value(i, b.get_value(i ^ 1))  # the other AIV of the block (mode 1) / any AIV (mode 0)


@pytest.mark.parametrize("mode", [0, 1])
def test_mode0_and_mode1_let_aivs_see_each_others_writes(mode):
    blocks = 3
    buf, out = np.zeros(2 * blocks, np.int32), np.zeros(2 * blocks, np.int32)
    aiv_pairs[blocks](buf, out, mode)
    vals = 10 * np.arange(2 * blocks) + 5
    np.testing.assert_array_equal(out, vals.reshape(-1, 2)[:, ::-1].ravel())


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def aic_forgets_to_set(out: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        asc.cross_core_wait_flag(3, 2, V)  # the AIC never sets flag 3
        gm(out).set_value(asc.get_block_idx(), 1)


def test_a_wait_nothing_satisfies_is_an_error_naming_both_cores_and_the_flag_not_a_hang():
    with pytest.raises(asc.AscError) as e:
        aic_forgets_to_set[1](np.zeros(2, np.int32))
    msg = str(e.value)
    assert "core 0 of 2" in msg and "AIC 0 of 1 returned without getting there" in msg
    assert "cross_core_wait_flag(flag_id=3, mode_id=2)" in msg and "test_asc_crosscore.py" in msg


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def aivs_wait_first(out: asc.GlobalAddress):
    if asc.ascend_is_aiv():
        asc.cross_core_wait_flag(1, 1, V)  # both wait before setting: a cycle
        asc.cross_core_set_flag(1, 1, V)


def test_a_cycle_of_waits_names_the_other_waiting_core_and_its_line():
    with pytest.raises(asc.AscError) as e:
        aivs_wait_first[1](np.zeros(1, np.int32))
    msg = str(e.value)
    assert "core 0 of 2" in msg and "core 1 of 2 waits in cross_core_wait_flag(flag_id=1, mode_id=1)" in msg


@asc.jit
def one_core_skips_sync_all(out: asc.GlobalAddress):
    if asc.get_block_idx() != 2:
        asc.sync_all()


def test_sync_all_a_core_never_reaches_is_an_error_naming_it():
    with pytest.raises(asc.AscError, match=r"core 0 of 4: asc.sync_all: waits forever in sync_all.*core 2 of 4 returned"):
        one_core_skips_sync_all[4](np.zeros(1, np.int32))


@asc.jit
def faults_while_others_wait(out: asc.GlobalAddress):
    if asc.get_block_idx() == 1:
        asc.trap()
    asc.sync_all()


def test_a_fault_on_one_core_ends_the_launch_while_others_wait():
    with pytest.raises(asc.AscError, match=r"core 1 of 3: asc.trap"):
        faults_while_others_wait[3](np.zeros(1, np.int32))
    rotate_after_sync_all[2](np.zeros(2, np.int32), np.zeros(2, np.int32))  # the next launch runs normally


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def leaves_a_flag_set(out: asc.GlobalAddress):
    if asc.ascend_is_aic():
        asc.cross_core_set_flag(5, 2, V)


def test_a_flag_set_and_never_waited_for_is_reported_at_the_end():
    with pytest.raises(asc.AscError, match=r"cross-core flags set but never waited for: core 0 of 2: flag 5"):
        leaves_a_flag_set[1](np.zeros(1, np.int32))


@asc.jit
def bad_flag(out: asc.GlobalAddress, flag: int, mode: int):
    asc.cross_core_set_flag(flag, mode, V)


@pytest.mark.parametrize(("flag", "mode", "text"), [
    (11, 0, r"flag_id=11 is out of range 0..10"),
    (0, 2, r"mode_id=2 synchronises a block's AIC with its AIVs, but this launch runs the body on AIVs only"),
    (0, 4, r"mode_id=4 is not a cross-core mode"),
])
def test_bad_flag_ids_and_modes_are_errors(flag, mode, text):
    with pytest.raises(asc.AscError, match=text):
        bad_flag[1](np.zeros(1, np.int32), flag, mode)


@asc.jit
def sets_too_often(out: asc.GlobalAddress):
    for _ in range(16):
        asc.cross_core_set_flag(0, 0, V)


def test_a_counter_holds_at_most_15_sets():
    with pytest.raises(asc.AscError, match=r"set 16 times without a wait: its counter holds at most 15"):
        sets_too_often[1](np.zeros(1, np.int32))


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def mix_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, marks: asc.GlobalAddress,
               tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.half),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.half),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(asc.TPipe(), workspace, mm, tiling)
    gm(marks).set_value(asc.get_block_idx() + 4 * int(asc.ascend_is_aic()), 1)  # the AIC never gets here
    if asc.get_block_idx() == 0:
        mm.set_tensor_a(gm(a))
        mm.set_tensor_b(gm(b))
        mm.iterate_all(gm(c))
    mm.end()


def test_register_matmul_ends_the_aic_body_of_a_mix_kernel():
    from aclsim.asc.lib import host

    m = n = k = 32
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(1)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    marks = np.zeros(8, np.int32)
    mix_matmul[1](a, b, c, marks, tiling, np.zeros(64, np.uint8))
    np.testing.assert_array_equal(marks, [1, 1, 0, 0, 0, 0, 0, 0])  # two AIVs, no AIC
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6, atol=1e-6)


def test_the_sanitizer_accepts_accesses_ordered_by_sync_all_and_still_reports_unordered_ones():
    assert multicore_findings(rotate_after_sync_all, 4, np.zeros(4, np.int32), np.zeros(4, np.int32)) == []
    assert len(multicore_findings(rotate_without_sync, 4, np.zeros(4, np.int32), np.zeros(4, np.int32))) == 1


def multicore_findings(kernel, n, *args):
    import io

    from aclsim.check import Session

    s = Session(["memcheck"], out=io.StringIO())
    kernel[n](*args)
    s.stop()
    return [f for f in s.report.findings if f.kind == "multi-core-corruption"]


@asc.jit
def rotate_without_sync(buf: asc.GlobalAddress, out: asc.GlobalAddress):
    b, o = gm(buf), gm(out)
    i, n = asc.get_block_idx(), asc.get_block_num()
    b.set_value(i, i * i + 1)
    o.set_value(i, b.get_value((i + 1) % n))  # races with the next core's write


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def cube_then_vector(a: asc.GlobalAddress, b: asc.GlobalAddress, work: asc.GlobalAddress, out: asc.GlobalAddress):
    """The AIC computes A @ B (32 x 16 x 16, float16 -> float32) into `work`; each AIV waits for it,
    then scales its 16 rows by 2 in the UB and writes them to `out`."""
    w, o = gm(work), gm(out)
    pipe = asc.TPipe()
    if asc.ascend_is_aic():
        qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
        qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
        for q, nbytes in ((qa1, 1024), (qb1, 512), (qa2, 1024), (qb2, 512), (qc, 2048)):
            pipe.init_buffer(q, 1, nbytes)
        a1, b1, a2, b2 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half), qa2.alloc_tensor(asc.half), \
            qb2.alloc_tensor(asc.half)
        asc.data_copy(a1, gm(a), asc.Nd2NzParams(1, 32, 16, 0, 16, 32, 1, 0))
        asc.data_copy(b1, gm(b), asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
        asc.load_data(a2, a1, asc.LoadData2DParams(0, 2, 1, 0, 0))
        asc.load_data(b2, b1, asc.LoadData2DParams(0, 1, 1, 0, 0, True))
        c1 = qc.alloc_tensor(asc.float32)
        asc.mmad(c1, a2, b2, asc.MmadParams(32, 16, 16))
        asc.fixpipe(w, c1, asc.FixpipeParamsV220(16, 32, 32, 16))
        for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
            q.free_tensor(t)
        asc.cross_core_set_flag(3, 2, asc.PipeID.PIPE_FIX)
    else:
        asc.cross_core_wait_flag(3, 2, V)
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 16 * 16 * 4)
        t = q.alloc_tensor(asc.float32)
        half = asc.get_sub_block_idx() * 16 * 16
        asc.data_copy(t, w[half:], 16 * 16)
        asc.muls(t, t, 2.0, 16 * 16)
        asc.data_copy(o[half:], t, 16 * 16)
        q.free_tensor(t)


def test_an_aic_hands_its_matmul_to_the_aivs_of_its_block():
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    out = np.zeros((32, 16), np.float32)
    cube_then_vector[1](a, b, np.zeros((32, 16), np.float32), out)
    np.testing.assert_allclose(out, 2 * (a.astype(np.float32) @ b.astype(np.float32)), rtol=1e-6, atol=1e-6)


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def publish_then_write(work: asc.GlobalAddress, out: asc.GlobalAddress):
    """The AIC sets the flag before it writes `work`: the AIVs' reads race with that write."""
    w, o = gm(work), gm(out)
    if asc.ascend_is_aic():
        asc.cross_core_set_flag(3, 2, asc.PipeID.PIPE_FIX)
        w.set_value(asc.get_block_idx(), 7)
    else:
        asc.cross_core_wait_flag(3, 2, V)
        o.set_value(asc.get_block_idx(), w.get_value(asc.get_block_idx() // 2))


def test_the_sanitizer_accepts_a_flag_ordered_hand_off_and_reports_a_write_after_the_set():
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    work, out = np.zeros((32, 16), np.float32), np.zeros((32, 16), np.float32)
    assert multicore_findings(cube_then_vector, 1, a, b, work, out) == []
    found = multicore_findings(publish_then_write, 2, np.zeros(2, np.int32), np.zeros(4, np.int32))
    assert len(found) == 1 and "reads global memory another core writes" in found[0].headline
    assert any(line.startswith("AIC 0 writes") for line in found[0].details)


def test_synchronising_more_blocks_than_the_chip_runs_at_once_is_an_error_not_a_hang():
    with pytest.raises(asc.AscError, match=r"launched with 49 blocks but Ascend910B1 runs at most 48 AIVs at once"):
        rotate_after_sync_all[49](np.zeros(49, np.int32), np.zeros(49, np.int32))
    with pytest.raises(asc.AscError, match=r"launched with 25 blocks but Ascend910B1 runs at most 24 mix blocks"):
        aiv_pairs[25](np.zeros(50, np.int32), np.zeros(50, np.int32), 1)
