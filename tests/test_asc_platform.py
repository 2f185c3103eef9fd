"""aclsim.asc: platform and runtime queries, system variables, chip constants, tiling structs and the
TPipe/TBuf spellings real pyasc programs use."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from aclsim.asc.language.core.dtype import KnownTypes as KT
from aclsim.asc.language.core.struct import Field, Struct, StructField
from aclsim.asc.lib import runtime as rt
from aclsim.asc.runtime import config
from aclsim.chips import get_profile
from aclsim.runtime import get_runtime


def test_platform_and_kernel_type_have_pyasc_members():
    assert {p.value for p in config.Platform} >= {"Ascend910B1", "Ascend910B2C", "Ascend910B4-1", "Ascend910_9392"}
    assert len(config.Platform) == 12
    assert [k.name for k in config.KernelType] == [
        "AIV_ONLY", "AIC_ONLY", "MIX_AIV_HARD_SYNC", "MIX_AIC_HARD_SYNC", "MIX_AIV_1_0", "MIX_AIC_1_0",
        "MIX_AIC_1_1", "MIX_AIC_1_2"]


def test_set_platform_refuses_a_chip_without_a_profile():
    with pytest.raises(AttributeError, match="no chip profile for Ascend910_9392"):
        config.set_platform(config.Backend.Model, config.Platform.Ascend910_9392)


def test_device_info_reports_the_chip_profiles_core_counts():
    chip = get_profile(get_runtime().chip.name)
    aicore = rt.device_info(rt.DeviceModuleType.RT_MODULE_TYPE_AICORE, rt.DeviceInfoType.INFO_TYPE_CORE_NUM)
    vec = rt.device_info(rt.support.DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE,
                         rt.support.DeviceInfoType.INFO_TYPE_CORE_NUM)
    assert (aicore, vec) == (chip.ai_cores, chip.vector_cores)
    assert rt.current_platform() == chip.name
    with pytest.raises(ValueError, match="answers the core counts only"):
        rt.device_info(rt.DeviceModuleType.RT_MODULE_TYPE_SYSTEM, rt.DeviceInfoType.INFO_TYPE_IP)


def test_system_variables_and_chip_constants_inside_a_kernel():
    @asc.jit
    def kernel(out: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(out)
        c0 = asc.get_system_cycle()
        vals = [asc.get_sub_block_idx(), asc.get_sub_block_num(), int(asc.ascend_is_aiv()),
                int(asc.ascend_is_aic()), asc.property(asc.TOTAL_L1_SIZE), asc.property(asc.TOTAL_L0C_SIZE),
                asc.property(asc.DEFAULT_C0_SIZE), asc.get_data_block_size_in_bytes(),
                int(asc.get_system_cycle() >= c0)]
        for i, v in enumerate(vals):
            g.set_value(i, v)

    out = np.zeros(16, np.int64)
    kernel[1](out)
    chip = get_runtime().chip
    assert list(out[:9]) == [0, 1, 1, 0, chip.l1_size, chip.l0c_size, 32, 32, 1]


def test_trap_faults_the_core():
    @asc.jit
    def kernel(out: asc.GlobalAddress):
        asc.trap()

    with pytest.raises(asc.AscError, match=r"asc\.trap: the kernel executed trap\(\)"):
        kernel[1](np.zeros(8, np.float32))


class BlockConfig(Struct):
    block_length = Field(dtype=KT.int32, default=0)


class TileConfig(Struct):
    tile_length = Field(dtype=KT.int32, default=0)
    scale = Field(dtype=KT.float32, default=1.0)


class KernelConfig(Struct):
    block = StructField(BlockConfig)
    tile = StructField(TileConfig)


def test_tiling_structs_hold_typed_values_and_copy_by_value():
    cfg = KernelConfig(tile=TileConfig(tile_length=64.9))
    cfg.block = BlockConfig(block_length=2**31 + 5)  # int32 field: the value wraps as in the C struct
    assert cfg.tile.tile_length == 64 and cfg.block.block_length == -(2**31) + 5
    snap = cfg.snapshot()
    cfg.tile.tile_length = 8
    assert snap.tile.tile_length == 64
    with pytest.raises(TypeError, match="has no field"):
        KernelConfig(tiles=1)
    with pytest.raises(TypeError, match="holds a TileConfig"):
        cfg.tile = BlockConfig()


def test_a_tiling_struct_as_kernel_argument():
    @asc.jit
    def scale(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: KernelConfig):
        n = cfg.block.block_length
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + asc.get_block_idx() * n, n)
        zg.set_global_buffer(z + asc.get_block_idx() * n, n)
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf=buf, len=cfg.tile.tile_length * 4)  # newer pyasc spelling of num=
        t = cfg.tile.tile_length
        for i in range(n // t):
            a = buf.alloc_tensor(asc.float32)  # TBuf has the queue calls of TQueBind
            asc.data_copy(a, xg[i * t:], t)
            buf.enque(a)
            a = buf.deque(asc.float32)
            asc.muls(a, a, cfg.tile.scale, t)
            asc.data_copy(zg[i * t:], a, t)
            buf.free_tensor(a)

    x = np.arange(4 * 256, dtype=np.float32)
    z = np.zeros_like(x)
    scale[4](x, z, KernelConfig(block=BlockConfig(block_length=256), tile=TileConfig(tile_length=64, scale=0.5)))
    np.testing.assert_array_equal(z, x * np.float32(0.5))


def test_tpipe_init_after_destroy_makes_it_usable_again():
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        for k in range(2):
            pipe.init()
            q = asc.TQue(asc.TPosition.VECIN, 1)
            pipe.init_buffer(que=q, num=1, len=256)
            t = q.alloc_tensor(asc.float32)
            asc.data_copy(t, xg[k * 64:], 64)
            asc.adds(t, t, 1.0, 64)
            asc.data_copy(zg[k * 64:], t, 64)
            q.free_tensor(t)
            pipe.destroy()

    x = np.arange(128, dtype=np.float32)
    z = np.zeros_like(x)
    kernel[1](x, z)
    np.testing.assert_array_equal(z, x + 1)


def test_a_destroyed_pipe_without_init_still_refuses_buffers():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        pipe.destroy()
        pipe.init_buffer(asc.TQue(asc.TPosition.VECIN, 1), 1, 256)

    with pytest.raises(asc.AscError, match="the TPipe was destroyed"):
        kernel[1](np.zeros(8, np.float32))


@pytest.fixture(autouse=True)
def _device():
    with aclsim.Device(0):
        yield


def test_local_tensor_auto_needs_no_pipe_and_returns_its_memory():
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        for i in range(64):  # 64 x 3 tensors of 32 KiB: fits only if each iteration's memory comes back
            a = asc.LocalTensorAuto(asc.float32, n)
            b = asc.LocalTensorAuto(asc.float32, [n])
            c = asc.LocalTensorAuto(x.dtype, n)
            asc.data_copy(a, xg, n)
            asc.adds(b, a, float(i), n)
            asc.add(c, a, b, n)
        asc.data_copy(zg, c, n)

    n = 8192
    x = np.arange(n, dtype=np.float32)
    z = np.zeros_like(x)
    kernel[1](x, z, n)
    np.testing.assert_array_equal(z, x + x + 63)


def test_local_tensor_auto_memory_starts_unwritten_and_is_bounded():
    @asc.jit
    def uninit(x: asc.GlobalAddress):
        a = asc.LocalTensorAuto(asc.float32, 64)
        asc.muls(a, a, 2.0, 64)

    with pytest.raises(asc.AscError, match=r"asc\.muls: reads 64 x float32 but element 0 .* was never written"):
        uninit[1](np.zeros(8, np.float32))

    @asc.jit
    def too_big(x: asc.GlobalAddress):
        keep = [asc.LocalTensorAuto(asc.float32, 16384) for _ in range(4)]  # 4 x 64 KiB > the usable UB
        assert keep

    with pytest.raises(asc.AscError, match=r"asc\.LocalTensorAuto: UB is full"):
        too_big[1](np.zeros(8, np.float32))


def test_local_tensor_resizing_tags_and_offsets():
    @asc.jit
    def kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, overrun: bool):
        xg, og = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        og.set_global_buffer(out)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q, 1, 256 * 4)
        t = q.alloc_tensor(asc.DataType("float32"))   # pyasc's spelling of a type by name
        asc.data_copy(t, xg, 256)
        t.set_size(64)
        t.set_user_tag(13)
        u = asc.LocalTensor(asc.int32)
        u.set_addr_with_offset(t, 64)                # u: int32 view of t's elements 64..
        og.set_value(0, t.get_size())
        og.set_value(1, t.get_user_tag())
        og.set_value(2, u.get_phy_addr() - t.get_phy_addr())
        t.set_buffer_len(128)
        og.set_value(3, t.get_length())
        asc.muls(t, t, 2.0, 65 if overrun else 32)   # 65: past the 32 elements set_buffer_len left
        q.free_tensor(t)

    out = np.zeros(8, np.float32)
    kernel[1](np.arange(256, dtype=np.float32), out, False)
    assert list(out[:4]) == [64, 13, 256, 128]
    with pytest.raises(asc.AscError, match=r"asc\.muls: 65 x float32 needs 260 bytes but the tensor holds only 128"):
        kernel[1](np.arange(256, dtype=np.float32), out, True)


def test_aclsim_run_gives_torch_an_npu_device_in_host_memory(tmp_path):
    pytest.importorskip("torch")
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent("""
        import torch
        try:
            import torch_npu  # noqa: F401  (on an Ascend machine; aclsim's stand-in here)
        except ModuleNotFoundError:
            pass
        import asc
        import asc.lib.runtime as rt
        from asc.language.core.struct import Field, Struct
        from asc.language.core.dtype import KnownTypes as KT
        import aclsim.asc.language.core.struct as ours

        class Cfg(Struct):
            n = Field(dtype=KT.int32)

        @asc.jit
        def double(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: Cfg):
            xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
            xg.set_global_buffer(x)
            zg.set_global_buffer(z)
            t = asc.LocalTensorAuto(x.dtype, cfg.n)
            asc.data_copy(t, xg, cfg.n)
            asc.add(t, t, t, cfg.n)
            asc.data_copy(zg, t, cfg.n)

        x = torch.randn(256, device="npu")
        z = torch.zeros_like(x).to("npu")
        double[1, rt.current_stream()](x, z, Cfg(n=256))
        print(ours.Struct is Struct, torch.equal(z, x * 2))
    """))
    out = subprocess.run([sys.executable, "-m", "aclsim", "run", str(prog)], capture_output=True, text=True)
    assert out.stdout.split() == ["True", "True"], out.stderr
