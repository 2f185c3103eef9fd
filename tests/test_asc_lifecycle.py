"""aclsim.asc: every life-cycle, UB and sync error faults the launch with a message naming the
core, the API call and the kernel source line; numpy launches raise AscError, stream launches
report 507015 at synchronize."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from aclsim import acl
from aclsim.runtime import get_runtime

HERE = os.path.basename(__file__)
with open(__file__) as _f:
    SOURCE = _f.read().splitlines()


def line_of(marker: str) -> int:
    """Line number of the source line ending with the comment `# <marker>`."""
    return next(i for i, s in enumerate(SOURCE, 1) if s.rstrip().endswith(f"# {marker}"))


def fault(kernel: asc.JITFunction, cores: int = 2, *args: object) -> str:
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(256, dtype=np.float32)
    with pytest.raises(asc.AscError) as info:
        kernel[cores](x, z, *args)
    assert info.value.code == 507015
    return str(info.value)


def assert_at(msg: str, marker: str, kernel: str, api: str) -> None:
    assert f"{kernel}: core 0 of 2: asc.{api}: " in msg
    assert f"{HERE}:{line_of(marker)} in " in msg


def _setup(x, z, num=2, length=256):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, num, length)
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    return pipe, q, xg, zg


@asc.jit
def use_after_free(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, xg, zg = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, 64)
    q.free_tensor(t)  # freed-here
    asc.data_copy(zg, t, 64)  # use-after-free


def test_use_after_free_names_the_free_and_the_use():
    msg = fault(use_after_free)
    assert_at(msg, "use-after-free", "use_after_free", "data_copy")
    assert "t is used after free_tensor" in msg
    assert f"{HERE}:{line_of('freed-here')}" in msg


@asc.jit
def double_free(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, _, _ = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    q.free_tensor(t)
    q.free_tensor(t)  # double-free


def test_double_free():
    msg = fault(double_free)
    assert_at(msg, "double-free", "double_free", "TQue.free_tensor")
    assert "double free" in msg and "q (VECIN)" in msg


@asc.jit
def deque_empty(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, _, _ = _setup(x, z)
    q.deque(asc.float32)  # deque-empty


def test_deque_on_empty_queue_names_the_queue_instead_of_hanging():
    msg = fault(deque_empty)
    assert_at(msg, "deque-empty", "deque_empty", "TQue.deque")
    assert "queue q (VECIN) is empty" in msg and "hang" in msg


@asc.jit
def alloc_too_many(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, _, _ = _setup(x, z)
    q.alloc_tensor(asc.float32)
    q.alloc_tensor(asc.float32)
    q.alloc_tensor(asc.float32)  # third-alloc


def test_alloc_beyond_the_queue_buffers():
    msg = fault(alloc_too_many)
    assert_at(msg, "third-alloc", "alloc_too_many", "TQue.alloc_tensor")
    assert "has 2 buffer(s) and none is free" in msg


@asc.jit
def leaks(x: asc.GlobalAddress, z: asc.GlobalAddress):  # leaking-kernel
    _, q, _, _ = _setup(x, z)
    q.alloc_tensor(asc.float32)  # leaked-alloc


def test_tensor_still_allocated_at_return():
    msg = fault(leaks)
    assert "leaks: core 0 of 2: asc.TPipe: the kernel returned with 1 tensor(s) not freed" in msg
    assert re.search(rf"from alloc_tensor at \S*{HERE}:{line_of('leaked-alloc')}\)", msg)
    assert f"{HERE}:{line_of('leaking-kernel')} in leaks, when it returned" in msg


@asc.jit
def uninit_read(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, _, zg = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.adds(t, t, 1.0, 64)  # uninit-read
    asc.data_copy(zg, t, 64)
    q.free_tensor(t)


def test_computing_on_local_bytes_never_written():
    """(A copy of them is legal: the DMA moves the garbage, tests/test_asc_copy_garbage.py.)"""
    msg = fault(uninit_read)
    assert_at(msg, "uninit-read", "uninit_read", "adds")
    assert "element 0 (UB byte 0) was never written" in msg and "garbage, not zeros" in msg


@asc.jit
def position_limit(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    queues = [asc.TQue(asc.TPosition.VECIN, 1) for _ in range(9)]
    for q in queues:
        pipe.init_buffer(q, 1, 32)
    for q in queues:
        q.alloc_tensor(asc.float32)  # ninth-alloc


def test_at_most_eight_live_tensors_per_position():
    msg = fault(position_limit)
    assert_at(msg, "ninth-alloc", "position_limit", "TQue.alloc_tensor")
    assert "max buffer number in same queue position is 8" in msg


@asc.jit
def too_many_buffers(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    pipe.init_buffer(asc.TQue(asc.TPosition.VECIN, 1), 40, 32)
    pipe.init_buffer(asc.TQue(asc.TPosition.VECOUT, 1), 25, 32)  # buffer-65


def test_a_pipe_manages_at_most_64_buffers():
    msg = fault(too_many_buffers)
    assert_at(msg, "buffer-65", "too_many_buffers", "TPipe.init_buffer")
    assert "at most 64 buffers; this call would make 65" in msg


@asc.jit
def oversubscribe(x: asc.GlobalAddress, z: asc.GlobalAddress, length: int):
    pipe = asc.TPipe()
    pipe.init_buffer(asc.TQue(asc.TPosition.VECIN, 1), 2, 64 * 1024)
    pipe.init_buffer(asc.TQue(asc.TPosition.VECOUT, 1), 1, length)  # oversubscribe


@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend310P3"])
def test_ub_oversubscription_names_the_ub_size_and_the_request(soc):
    aclsim.configure(soc)
    chip = get_runtime().chip
    left = chip.ub_usable - 2 * 64 * 1024
    msg = fault(oversubscribe, 2, left + 1)
    assert_at(msg, "oversubscribe", "oversubscribe", "TPipe.init_buffer")
    rounded = (left + 1 + 31) // 32 * 32
    assert f"asked for 1 x {rounded} bytes (len {left + 1} rounded up to 32)" in msg
    assert f"{chip.name}'s UB has {chip.ub_usable} usable bytes ({chip.ub_size} total" in msg
    assert f"only {left} bytes are left" in msg


def test_the_whole_usable_ub_can_be_carved():
    z = np.zeros(256, np.float32)
    oversubscribe[1](np.zeros(256, np.float32), z, get_runtime().chip.ub_usable - 2 * 64 * 1024)


@asc.jit
def layout(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    a = asc.TQue(asc.TPosition.VECIN, 1)
    b = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(a, 2, 20)
    pipe.init_buffer(b, 1, 20)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    ta = a.alloc_tensor(asc.float32)
    tb = b.alloc_tensor(asc.float32)
    zg.set_value(0, ta.get_phy_addr())
    zg.set_value(1, tb.get_phy_addr())
    zg.set_value(2, tb.get_size())
    a.free_tensor(ta)
    b.free_tensor(tb)


def test_init_buffer_rounds_lengths_up_to_32_bytes():
    z = np.zeros(4, np.float32)
    layout[1](np.zeros(4, np.float32), z)
    assert z[:3].tolist() == [0, 2 * 32, 32 // 4]


@asc.jit
def truncated(x: asc.GlobalAddress, z: asc.GlobalAddress, count: int):
    _, q, xg, zg = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, count)  # truncated-copy
    asc.data_copy(zg, t, count // 8 * 8)
    q.free_tensor(t)


def test_data_copy_length_not_multiple_of_32_bytes_is_truncated_with_a_warning():
    x = np.arange(256, dtype=np.float32) + 1
    z = np.zeros(256, np.float32)
    with pytest.warns(asc.AscWarning, match=r"20 x float32 = 80 bytes is not a multiple of 32: the hardware moves "
                                            r"only 64 bytes.*use asc.data_copy_pad") as rec:
        truncated[2](x, z, 20)
    assert len(rec) == 1  # once per call site and launch, not once per core
    assert rec[0].lineno == line_of("truncated-copy")
    np.testing.assert_array_equal(z[:16], x[:16])
    assert not z[16:].any()


@asc.jit
def tail_without_pad(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, xg, _ = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, 20)
    asc.muls(t, t, 2.0, 20)  # tail-read
    q.free_tensor(t)


def test_the_dropped_tail_is_caught_when_computed_on():
    with pytest.warns(asc.AscWarning):
        msg = fault(tail_without_pad)
    assert_at(msg, "tail-read", "tail_without_pad", "muls")
    assert "element 16 (UB byte 64) was never written" in msg and "use data_copy_pad" in msg


@asc.jit
def misaligned_local(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, xg, _ = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t[3:], xg, 8)  # misaligned-local
    q.free_tensor(t)


def test_local_operands_must_be_32_byte_aligned():
    msg = fault(misaligned_local)
    assert_at(msg, "misaligned-local", "misaligned_local", "data_copy")
    assert "UB offset 12, not 32-byte aligned" in msg


@asc.jit
def overflow_local(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, xg, _ = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, 128)  # overflow-local
    q.free_tensor(t)


def test_local_tensor_overflow():
    msg = fault(overflow_local)
    assert_at(msg, "overflow-local", "overflow_local", "data_copy")
    assert "128 x float32 needs 512 bytes but the tensor holds only 256 bytes" in msg


@asc.jit
def gm_overrun(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, xg, _ = _setup(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg[256:], 64)  # gm-overrun
    q.free_tensor(t)


def test_gm_access_past_the_allocation_faults():
    msg = fault(gm_overrun)
    assert_at(msg, "gm-overrun", "gm_overrun", "data_copy")
    # the same wording simt uses: measured from the bytes requested, placed against the reserved end
    assert ("0 bytes past the 1024 bytes requested" in msg
            and "its 256-byte access runs 224 bytes over the end of the 1056 bytes the runtime reserved" in msg)


@asc.jit
def unpaired_wait(x: asc.GlobalAddress, z: asc.GlobalAddress):
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)  # second-wait


@asc.jit
def unpaired_set(x: asc.GlobalAddress, z: asc.GlobalAddress):  # unpaired-set-kernel
    asc.set_flag(asc.HardEvent.V_MTE3, 1)


def test_set_flag_and_wait_flag_must_pair():
    msg = fault(unpaired_wait)
    assert_at(msg, "second-wait", "unpaired_wait", "wait_flag")
    assert "wait_flag(HardEvent.MTE2_V, 0) has no matching set_flag" in msg
    msg = fault(unpaired_set)
    assert "set_flag never waited for: HardEvent.V_MTE3 id 1" in msg
    assert f"{HERE}:{line_of('unpaired-set-kernel')}" in msg


@asc.jit
def python_error(x: asc.GlobalAddress, z: asc.GlobalAddress):
    if asc.get_block_idx() == 1:
        raise ValueError("bad tiling")  # python-error


def test_a_python_exception_in_the_kernel_names_the_core_and_line():
    msg = fault(python_error)
    assert "python_error: core 1 of 2: asc.kernel: ValueError: bad tiling" in msg
    assert f"{HERE}:{line_of('python-error')} in python_error" in msg


def test_launch_on_a_stream_reports_507015_at_synchronize():
    acl.rt.set_device(0)
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    x = aclsim.to_device(np.arange(256, dtype=np.float32))
    z = aclsim.empty(256, np.float32)
    use_after_free[2, stream](x, asc.GlobalAddress(z.ptr, asc.float32))  # queued: nothing raised yet
    assert acl.rt.synchronize_stream(stream) == 507015
    msg = acl.get_recent_err_msg()
    assert "use_after_free: core 0 of 2: asc.data_copy: t is used after free_tensor" in msg
    assert acl.rt.synchronize_stream(stream) == 0  # the error was reported once


def test_local_memory_starts_with_garbage(capsys):
    @asc.jit
    def dump(x: asc.GlobalAddress, z: asc.GlobalAddress):
        _, q, _, _ = _setup(x, z)
        t = q.alloc_tensor(asc.int32)
        asc.dump_tensor(t, 7, 64)
        q.free_tensor(t)

    dump[1](np.zeros(4, np.float32), np.zeros(4, np.float32))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "DumpTensor: desc=7, addr=0, data_type=int32, position=UB, dump_size=64"
    values = [int(v) for v in re.findall(r"-?\d+", out[1])]
    assert len(values) == 64 and len(set(values)) > 1 and any(values)


def test_a_kernel_called_like_a_function_explains_how_to_launch():
    with pytest.raises(TypeError, match=r"use_after_free\[core_num\]"):
        use_after_free(np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match=r"core_num must be an integer in 1\.\.65535"):
        use_after_free[0]
    with pytest.raises(RuntimeError, match="only run inside a kernel"):
        asc.get_block_idx()


@asc.jit
def over_depth(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, _, _ = _setup(x, z)
    a = q.alloc_tensor(asc.float32)
    b = q.alloc_tensor(asc.float32)
    asc.duplicate(a, 1.0, 64)
    asc.duplicate(b, 1.0, 64)
    q.enque(a)
    a = q.deque(asc.float32)
    q.enque(a)  # a dequeued tensor may be enqueued again
    q.enque(b)  # over-depth


def test_enque_beyond_the_queue_depth():
    msg = fault(over_depth)
    assert_at(msg, "over-depth", "over_depth", "TQue.enque")
    assert "already holds 1 tensor(s) (usedCount is 1, which exceed depth limits 1)" in msg


def test_gm_addresses_must_be_element_aligned():
    acl.rt.set_device(0)
    x = aclsim.to_device(np.arange(256, dtype=np.float32))
    z = aclsim.empty(256, np.float32)
    stream = aclsim.Stream.default()
    use_after_free[1, stream](asc.GlobalAddress(x.ptr + 2, asc.float32), z)
    with pytest.raises(aclsim.AclError, match=r"asc\.GlobalTensor\.set_global_buffer: GM address 0x[0-9a-f]+ is not "
                                              r"aligned to sizeof\(float32\) = 4 bytes"):
        stream.synchronize()


@asc.jit
def copy_through_ub(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _, q, xg, zg = _setup(x, z, num=1, length=1024)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, 256)
    asc.data_copy(zg, t, 256)
    q.free_tensor(t)


def test_a_launch_that_opens_device_0_itself_leaves_no_error_message():
    # The launch probes for a current context before opening device 0, as pyasc does; the probe's
    # ACL_ERROR_RT_CONTEXT_NULL is not an error of the program's and must not show up afterwards.
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(256, dtype=np.float32)
    copy_through_ub[1](x, z)
    assert np.array_equal(z, x)
    assert acl.get_recent_err_msg() is None
    assert asc.lib.runtime.current_stream() is not None and acl.get_recent_err_msg() is None
