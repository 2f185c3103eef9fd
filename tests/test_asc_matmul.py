"""asc.adv.Matmul with asc.lib.host tilings, against numpy; tiling limits from the chip profile."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from aclsim.asc.lib import host
from aclsim.chips import get_profile

H = host


def make_tiling(m: int, n: int, k: int, dim: int, a_type=H.DataType.DT_FLOAT16, c_type=H.DataType.DT_FLOAT,
                c_pos=H.TPosition.GM, bias: bool = False, fix: tuple[int, int, int] | None = None) -> asc.adv.TCubeTiling:
    t = H.MultiCoreMatmulTiling(H.get_ascendc_platform())
    t.set_a_type(H.TPosition.GM, H.CubeFormat.ND, a_type, False)
    t.set_b_type(H.TPosition.GM, H.CubeFormat.ND, a_type, False)
    t.set_c_type(c_pos, H.CubeFormat.ND, c_type)
    t.set_bias_type(H.TPosition.GM, H.CubeFormat.ND, H.DataType.DT_FLOAT)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(bias)
    if fix:
        t.set_fix_split(*fix)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


@pytest.mark.parametrize("m, n, k, dim, dt", [
    (1024, 1024, 1024, 24, H.DataType.DT_FLOAT16), (128, 30720, 64, 24, H.DataType.DT_FLOAT16),
    (100, 200, 64, 8, H.DataType.DT_FLOAT16), (1024, 512, 256, 16, H.DataType.DT_FLOAT),
    (64, 64, 4096, 4, H.DataType.DT_INT8),
])
def test_host_tiling_covers_the_matrix_and_fits_l1_l0(m, n, k, dim, dt):
    t = make_tiling(m, n, k, dim, a_type=dt)
    chip = get_profile("Ascend910B1")
    isz = {H.DataType.DT_FLOAT16: 2, H.DataType.DT_FLOAT: 4, H.DataType.DT_INT8: 1}[dt]
    m_blocks, n_blocks = -(-m // t.single_core_m), -(-n // t.single_core_n)
    assert t.used_core_num == m_blocks * n_blocks <= dim
    assert (t.m, t.n, t.k_a, t.single_core_k) == (m, n, k, k)
    assert t.base_m * t.base_k * isz <= chip.l0a_size and t.base_k * t.base_n * isz <= chip.l0b_size
    assert t.base_m * t.base_n * 4 <= chip.l0c_size
    assert (t.depth_a1 * t.base_m + t.depth_b1 * t.base_n) * t.base_k * isz <= chip.l1_size
    assert t.base_m % 16 == 0 and t.base_n % 16 == 0 and t.base_k % (32 // isz) == 0


def test_host_tiling_that_cannot_fit_returns_minus_one_and_says_why():
    t = H.MultiCoreMatmulTiling(H.get_ascendc_platform())
    t.set_shape(512, 512, 512)
    t.set_fix_split(512, 512, 64)
    with pytest.warns(asc.AscWarning, match=r"base blocks 512 x 512 x 64 do not fit"):
        assert t.get_tiling(asc.adv.TCubeTiling()) == -1


def _tiling_with(setup) -> tuple[int, asc.adv.TCubeTiling]:
    t = H.MultiCoreMatmulTiling(H.get_ascendc_platform())
    t.set_dim(8)
    t.set_shape(1000, 1000, 512)
    t.set_org_shape(1000, 1000, 512)
    setup(t)
    tiling = asc.adv.TCubeTiling()
    return t.get_tiling(tiling), tiling


def test_host_setters_shape_the_tiling_as_cann_s_do():
    ret, t = _tiling_with(lambda h: h.set_align_split(64, 128, -1))
    assert ret == 0 and t.single_core_m % 64 == 0 and t.single_core_n % 128 == 0
    ret, t = _tiling_with(lambda h: h.set_split_range(64, 64, 32, 16, 16, 16))
    assert ret == 0 and t.base_m <= 64 and t.base_n <= 64 and 16 <= t.base_k <= 32
    ret, t = _tiling_with(lambda h: h.set_single_range(256, 512, -1, 128, -1, -1))
    assert ret == 0 and 128 <= t.single_core_m <= 256 and t.single_core_n <= 512
    ret, t = _tiling_with(lambda h: h.set_double_buffer(False, True, True, False))
    assert ret == 0 and (t.db_l0a, t.db_l0b, t.db_l0c) == (1, 2, 2) and t.depth_a1 * 2 <= t.depth_b1

    def int8(dequant):  # one core's single_core_n of 30720 uint64 scales take 240 KiB of L1 with TENSOR
        t = H.MultiCoreMatmulTiling(H.get_ascendc_platform())
        t.set_shape(256, 30720, 4096)
        t.set_a_type(H.TPosition.GM, H.CubeFormat.ND, H.DataType.DT_INT8)
        t.set_b_type(H.TPosition.GM, H.CubeFormat.ND, H.DataType.DT_INT8)
        t.set_dequant_type(dequant)
        tiling = asc.adv.TCubeTiling()
        assert t.get_tiling(tiling) == 0
        return tiling

    assert int8(H.DequantType.TENSOR).step_k_a < int8(H.DequantType.SCALAR).step_k_a


def test_host_setters_that_cannot_be_met_fail_the_tiling_or_say_they_are_not_emulated():
    with pytest.warns(asc.AscWarning, match=r"single_core_k is K=512 .*set_align_split's 96"):
        assert _tiling_with(lambda h: h.set_align_split(-1, -1, 96))[0] == -1
    with pytest.warns(asc.AscWarning, match=r"no split of M=1000 x N=1000 over 8 cores"):
        assert _tiling_with(lambda h: h.set_single_range(64, 64, -1, -1, -1, -1))[0] == -1
    with pytest.raises(NotImplementedError, match=r"trans_nd2nz=False .* is not emulated"):
        _tiling_with(lambda h: h.set_double_buffer(True, True, False, False, trans_nd2nz=False))


@asc.jit(matmul_cube_only=True)
def mm_cube(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
            tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """Cube-only: each AIC computes its single_core block of C = A @ B + bias, tails included."""
    if asc.ascend_is_aic():
        m_blocks = tiling.m.ceildiv(tiling.single_core_m)
        mi, ni = asc.get_block_idx() % m_blocks, asc.get_block_idx() // m_blocks
        a_gm, b_gm, bias_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
        b_gm.set_global_buffer(b + ni * tiling.single_core_n)
        bias_gm.set_global_buffer(bias + ni * tiling.single_core_n)
        c_gm.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_gm.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_gm.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_gm.dtype),
                            bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_gm.dtype),
                            matmul_config=asc.adv.get_mdl_config())
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.set_bias(bias_gm)
        mm.set_tail(min(tiling.single_core_m, tiling.m - mi * tiling.single_core_m),
                    min(tiling.single_core_n, tiling.n - ni * tiling.single_core_n), tiling.k_a)
        mm.iterate_all(c_gm)
        mm.end()


@pytest.mark.parametrize("m, n, k, dim", [(100, 200, 64, 8), (256, 96, 128, 3), (32, 32, 48, 1)])
def test_cube_only_iterate_all_with_tails_matches_numpy(m, n, k, dim):
    rng = np.random.default_rng(m)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    bias = rng.uniform(-1, 1, n).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = make_tiling(m, n, k, dim, bias=True)
    mm_cube[tiling.used_core_num](a, b, bias, c, tiling, np.zeros(64, np.uint8))
    want = a.astype(np.float32) @ b.astype(np.float32) + bias
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


@asc.jit
def mm_mix_relu(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, alpha: float,
                tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """Mix kernel: each AIV takes base blocks from the Matmul into UB, applies leaky ReLU, copies out."""
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    idx = asc.get_block_idx() % tiling.used_core_num
    mi, ni = idx % m_blocks, idx // m_blocks
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    b_gm.set_global_buffer(b + ni * tiling.single_core_n)
    c_gm.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    pipe = asc.TPipe()
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=out_q, num=2, len=tiling.base_m * tiling.base_n * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_gm.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_gm.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, c_gm.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    round_m = tiling.single_core_m // tiling.base_m
    with mm.iterate() as count:
        t = out_q.alloc_tensor(asc.float32)
        mm.get_tensor_c(t, en_sequential_write=True)
        asc.leaky_relu(t, t, alpha, tiling.base_m * tiling.base_n)
        out_q.enque(t)
        t = out_q.deque(asc.float32)
        start = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
        asc.data_copy(c_gm[start:], t, asc.DataCopyParams(tiling.base_m, tiling.base_n * 4 // 32, 0,
                                                          (tiling.n - tiling.base_n) * 4 // 32))
        out_q.free_tensor(t)
    mm.end()


def test_mix_kernel_iterate_get_tensor_c_into_ub_matches_numpy():
    m, n, k = 256, 512, 128
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    tiling = make_tiling(m, n, k, 4, c_pos=H.TPosition.VECCALC, fix=(64, 128, -1))
    assert tiling.used_core_num == 4 and tiling.base_m == 64
    mm_mix_relu[2](a, b, c, 0.1, tiling, np.zeros(64, np.uint8))  # 2 groups = 4 AIVs
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, np.where(want >= 0, want, want * np.float32(0.1)), rtol=1e-5, atol=1e-5)


def test_a_mix_launch_models_cube_time_on_its_aics_not_its_aivs():
    from aclsim.runtime import get_runtime
    from aclsim.trace import CostModel
    from aclsim.trace.recorder import work_details

    done = []

    class Watch:
        def on_task_done(self, task):
            done.append(task)

    m, n, k = 256, 512, 128
    tiling = make_tiling(m, n, k, 4, c_pos=H.TPosition.VECCALC, fix=(64, 128, -1))
    rt = get_runtime()
    watch = Watch()
    rt.bus.subscribe(watch)
    try:
        mm_mix_relu[2](np.ones((m, k), np.float16), np.ones((k, n), np.float16), np.zeros((m, n), np.float32), 0.1,
                       tiling, np.zeros(64, np.uint8))
    finally:
        rt.bus.unsubscribe(watch)
    kernel = next(t for t in done if t.kind == "kernel")
    assert kernel.work.cores == 4 and kernel.work.cube_cores == 2  # 2 blocks: 4 AIVs served by 2 AICs
    flops = kernel.work.cube_flops
    cube_s = flops / (2 * rt.chip.cube_flops_per_cycle * rt.chip.cube_mhz * 1e6)
    assert CostModel.for_chip(rt.chip).kernel_time(work_details(kernel.work)) >= cube_s


def test_int8_inputs_accumulate_in_int32():
    rng = np.random.default_rng(2)
    m, n, k = 64, 48, 96
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    c = np.zeros((m, n), np.int32)
    tiling = make_tiling(m, n, k, 1, a_type=H.DataType.DT_INT8, c_type=H.DataType.DT_INT32)
    mm_plain[1](a, b, c, tiling, np.zeros(64, np.uint8))
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_bfloat16_inputs_accumulate_in_float32():
    rng = np.random.default_rng(3)
    m, n, k = 64, 48, 96
    a = (rng.uniform(-1, 1, (m, k)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # bf16 bits
    b = (rng.uniform(-1, 1, (k, n)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    want = (a.astype(np.uint32) << 16).view(np.float32) @ (b.astype(np.uint32) << 16).view(np.float32)
    tiling = make_tiling(m, n, k, 1, a_type=H.DataType.DT_BF16)
    with aclsim.Device(0), aclsim.to_device(a) as da, aclsim.to_device(b) as db, \
            aclsim.to_device(np.zeros((m, n), np.float32)) as dc:
        mm_plain[1](asc.GlobalAddress(da.ptr, asc.bfloat16), asc.GlobalAddress(db.ptr, asc.bfloat16), dc, tiling,
                    asc.GlobalAddress(dc.ptr, asc.uint8))
        aclsim.Stream.default().synchronize()  # device arguments only: the launch is queued
        got = dc.copy_to_host()
    np.testing.assert_allclose(got, want, rtol=1e-6)


@asc.jit
def mm_plain(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
             workspace: asc.GlobalAddress):
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_gm.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_gm.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_gm.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    if asc.get_block_idx() == 0:
        mm.iterate_all(c_gm)
    mm.end()


def test_tiling_too_big_for_l0_is_an_error_naming_the_sizes():
    tiling = asc.adv.TCubeTiling(used_core_num=1, m=256, n=256, k_a=256, k_b=256, single_core_m=256,
                                 single_core_n=256, single_core_k=256, base_m=256, base_n=256, base_k=256)
    a = np.zeros((256, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    with pytest.raises(asc.AscError, match=r"Matmul\.init: tiling base_m=256, base_n=256, base_k=256: base_m x "
                                           r"base_k of A in L0A needs 131072 bytes but Ascend910B1 has 65536"):
        mm_plain[1](a, a, c, tiling, np.zeros(64, np.uint8))


def test_iterate_as_a_with_outside_a_kernel_function_is_refused():
    @asc.jit
    def k(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
        a_gm, b_gm = asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        b_gm.set_global_buffer(b)
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_gm.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_gm.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
        asc.adv.register_matmul(asc.TPipe(), None, mm, tiling)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        it = mm.iterate()
        with it:  # not the `with mm.iterate() as count:` statement the kernel rewrite turns into a loop
            pass

    a = np.zeros((32, 32), np.float16)
    with pytest.raises(asc.AscError, match=r"is a loop over the base blocks of C"):
        k[1](a, a, np.zeros((32, 32), np.float32), make_tiling(32, 32, 32, 1))


def test_cube_work_is_reported_and_modeled_against_the_cube_roof():
    from aclsim.runtime import get_runtime
    from aclsim.trace import CostModel
    from aclsim.trace.recorder import work_details

    done = []

    class Watch:
        def on_task_done(self, task):
            done.append(task)

    m, n, k = 256, 256, 512
    a = np.ones((m, k), np.float16)
    c = np.zeros((m, n), np.float32)
    tiling = make_tiling(m, n, k, 1)
    rt = get_runtime()
    watch = Watch()
    rt.bus.subscribe(watch)
    try:
        mm_plain[1](a, np.ones((k, n), np.float16), c, tiling, np.zeros(64, np.uint8))
    finally:
        rt.bus.unsubscribe(watch)
    assert (c == k).all()
    kernel = next(t for t in done if t.kind == "kernel")
    assert kernel.work.cube_flops == 2 * m * n * k
    model = CostModel.for_chip(rt.chip)
    cube_s = 2 * m * n * k / (1 * rt.chip.cube_flops_per_cycle * rt.chip.cube_mhz * 1e6)  # one AIC busy
    assert model.kernel_time(work_details(kernel.work)) >= cube_s


@asc.jit
def mm_dequant(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, scale_bits: int,
               tiling: asc.adv.TCubeTiling):
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_gm.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_gm.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_gm.dtype))
    asc.adv.register_matmul(asc.TPipe(), None, mm, tiling)
    mm.set_tensor_a(a_gm)
    mm.set_tensor_b(b_gm)
    if scale_bits:
        mm.set_quant_scalar(scale_bits)
    mm.iterate_all(c_gm)
    mm.end()


def test_int8_to_float16_dequantises_with_the_scalar_scale():
    rng = np.random.default_rng(6)
    m, n, k = 32, 32, 64
    a = rng.integers(-8, 8, (m, k), dtype=np.int8)
    b = rng.integers(-8, 8, (k, n), dtype=np.int8)
    c = np.zeros((m, n), np.float16)
    scale = np.float32(0.125)
    tiling = make_tiling(m, n, k, 1, a_type=H.DataType.DT_INT8, c_type=H.DataType.DT_FLOAT16)
    mm_dequant[1](a, b, c, int(scale.view(np.uint32)), tiling)
    want = ((a.astype(np.int32) @ b.astype(np.int32)).astype(np.float32) * scale).astype(np.float16)
    np.testing.assert_array_equal(c, want)
    with pytest.raises(asc.AscError, match=r"int8 x int8 -> float16 needs set_quant_scalar or set_quant_vector"):
        mm_dequant[1](a, b, c, 0, tiling)


def test_mix_launch_runs_two_aivs_and_the_aic_per_block_with_sub_block_indices():
    from aclsim.asc.runtime.config import KernelType

    @asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
    def who(out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        i = asc.get_block_idx()
        info = i * 100 + asc.get_sub_block_idx() * 10 + asc.get_sub_block_num() + int(asc.ascend_is_aiv())
        if asc.ascend_is_aiv():
            g.set_value(i, info)
        else:  # each block's AIC runs the body too, with block_idx = the block
            g.set_value(8 + i, info + 1000 * asc.get_block_num())

    out = np.zeros(12, np.int32)
    who[3](out)  # 3 mix blocks = 3 AICs + 6 AIVs
    np.testing.assert_array_equal(out[:6], [i * 100 + (i % 2) * 10 + 2 + 1 for i in range(6)])
    assert (out[6:8] == 0).all()
    np.testing.assert_array_equal(out[8:11], [g * 100 + 2 + 3000 for g in range(3)])
    assert out[11] == 0
