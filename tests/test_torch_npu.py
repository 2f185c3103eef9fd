"""torch.npu in the torch_npu stand-in: the device module every torch_npu program calls (synchronize, devices,
streams, events, memory statistics), over aclsim's runtime. Each test runs a program under `aclsim run`."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")


def _run(tmp_path, body: str, *flags: str, env: dict | None = None) -> subprocess.CompletedProcess:
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, "-m", "aclsim", "run", *flags, str(prog)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


def test_devices_synchronize_and_device_strings(tmp_path):
    r = _run(tmp_path, """
        import torch
        import torch_npu
        import acl
        assert torch.npu is torch_npu.npu and torch.npu.is_available()
        assert torch.npu.device_count() == 2
        assert torch.npu.current_device() == 0           # device 0 opened lazily, as torch_npu does
        torch.npu.set_device("npu:1")
        assert torch.npu.current_device() == 1 and acl.rt.get_device() == (1, 0)
        torch.npu.set_device(torch.device("npu:0"))      # torch.device knows "npu" under the stand-in
        assert torch.npu.current_device() == 0
        x = torch.ones(4, device=torch.device("npu:0"))
        torch.npu.synchronize()
        torch.npu.synchronize(0)
        print(x.sum().item(), torch.npu.get_device_name(), torch.npu.get_device_properties(0).total_memory > 0)
        try:
            torch.npu.set_device(5)
        except RuntimeError as e:
            print("refused:", "107001" in str(e))
        try:
            torch.npu.no_such_thing
        except AttributeError as e:
            print("missing:", "not emulated" in str(e))
    """, env={"ACLSIM_DEVICES": "2", "ACLSIM_SOC": "Ascend910B1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:3] == ["4.0 Ascend910B1 True", "refused: True", "missing: True"]


def test_synchronize_waits_for_queued_kernels_and_raises_their_faults(tmp_path):
    r = _run(tmp_path, """
        import numpy as np
        import torch
        import torch_npu
        import acl
        import asc
        import asc.lib.runtime as rt

        @asc.jit
        def fill(z: asc.GlobalAddress, n: int):
            zg = asc.GlobalTensor()
            zg.set_global_buffer(z)
            t = asc.LocalTensorAuto(z.dtype, n)
            asc.duplicate(t, 7.0, n)
            asc.data_copy(zg, t, n)

        torch.npu.set_device(0)
        d, _ = acl.rt.malloc(256 * 4, 0)
        fill[1, rt.current_stream()](asc.GlobalAddress(d, asc.float32), 256)  # device memory: queued
        torch.npu.synchronize()                                              # runs it
        out = np.zeros(256, np.float32)
        acl.rt.memcpy(out.ctypes.data, out.nbytes, d, out.nbytes, 2)
        print(out[0], out[-1])
        fill[1, rt.current_stream()](asc.GlobalAddress(d, asc.float32), 4096)  # 16 KiB into a 1 KiB buffer
        try:
            torch.npu.synchronize()
        except RuntimeError as e:
            print("fault:", "507015" in str(e))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["7.0 7.0", "fault: True"]


def test_streams_and_events(tmp_path):
    r = _run(tmp_path, """
        import torch
        import torch_npu
        import acl
        s0 = torch.npu.current_stream()
        assert s0.npu_stream == 0 and s0 == torch.npu.default_stream()
        s = torch.npu.Stream()
        assert s.npu_stream != 0 and acl.rt.synchronize_stream(s.npu_stream) == 0  # a pyACL stream handle
        with torch.npu.stream(s):
            assert torch.npu.current_stream() == s
        assert torch.npu.current_stream() == s0
        start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
        assert start.query()                 # never recorded: complete
        start.record()
        end.record(s)
        s.wait_event(start)
        s.wait_stream(s0)
        end.synchronize()
        s.synchronize()
        print(s.query(), end.query(), start.elapsed_time(end) >= 0.0)
        try:
            torch.npu.Event().elapsed_time(end)
        except RuntimeError as e:
            print("timing:", "enable_timing" in str(e))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["True True True", "timing: True"]


def test_memory_statistics_are_the_runtimes_device_memory(tmp_path):
    r = _run(tmp_path, """
        import torch
        import torch_npu
        import acl
        torch.npu.set_device(0)
        base = torch.npu.memory_allocated()
        d, _ = acl.rt.malloc(3000, 0)
        print(torch.npu.memory_allocated() - base, torch.npu.memory_reserved() >= 4096)
        free, total = torch.npu.mem_get_info()
        assert (free, total, 0) == acl.rt.get_mem_info(0) or total > free
        acl.rt.free(d)
        print(torch.npu.memory_allocated() - base, torch.npu.max_memory_reserved() >= 4096)
        torch.npu.reset_peak_memory_stats()
        torch.npu.empty_cache()
        print(torch.npu.max_memory_reserved() == torch.npu.memory_reserved())
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:3] == ["3000 True", "0 True", "True"]


VADD_PAST_THE_END = """
    import torch
    import torch_npu
    import asc
    import asc.lib.runtime as rt

    @asc.jit
    def vadd(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block: int, tile: int):
        off = asc.get_block_idx() * block
        xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x + off)
        yg.set_global_buffer(y + off)
        zg.set_global_buffer(z + off)
        a, b = asc.LocalTensorAuto(x.dtype, tile), asc.LocalTensorAuto(x.dtype, tile)
        asc.data_copy(a, xg, tile)
        asc.data_copy(b, yg, tile)
        asc.add(a, a, b, tile)
        asc.data_copy(zg, a, tile)

    x, y = torch.randn(1000, device="npu"), torch.randn(1000, device="npu")
    z = torch.zeros_like(x)
    vadd[16, rt.current_stream()](x, y, z, 63, 512)   # 16 cores x 512-element tiles over 1000 elements
    torch.npu.synchronize()
    print("equal", torch.allclose(z, x + y))
"""


def test_tiles_past_a_small_tensor_fault_by_default_and_run_as_on_the_npu_in_hardware_mode(tmp_path):
    """pyasc's generalization tests read and write past their tensors: the NPU lets them, because the bytes behind
    a small torch_npu tensor belong to its caching allocator's 2 MiB segment."""
    r = _run(tmp_path, VADD_PAST_THE_END)
    assert r.returncode == 1 and "507015" in r.stderr and "the runtime reserved" in r.stderr
    r = _run(tmp_path, VADD_PAST_THE_END, "--oob", "hardware")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "equal True"
    assert "--oob hardware let" in r.stderr and "prog.py:16 in vadd" in r.stderr  # listed with its line
    r = _run(tmp_path, VADD_PAST_THE_END, "--check", "memcheck", "--error-exitcode", "3", env={"ACLSIM_OOB": "hardware"})
    assert r.returncode == 3 and "Invalid __global__ read" in r.stderr, r.stderr
