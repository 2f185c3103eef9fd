"""aclsim.simt memory: always-on fault checking, shared memory and barriers, atomics, streams, observers."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
from aclsim import acl, simt
from aclsim.runtime import get_runtime
from aclsim.simt import Ptr, blockDim, blockIdx, threadIdx


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def sync_code(stream=None) -> int:
    """acl.rt.synchronize_stream's return code."""
    return acl.rt.synchronize_stream(stream.handle if stream else 0)


@simt.kernel
def unguarded(inp: Ptr[np.float32], out: Ptr[np.float32]):
    tid = blockIdx.x * blockDim.x + threadIdx.x
    out[tid] = inp[tid] * 2  # no bounds check


UNGUARDED_LINE = unguarded.fn.__code__.co_firstlineno + 3


def test_out_of_bounds_load_faults_with_kernel_coordinates_index_address_and_line():
    n = 1000  # 4000 bytes; the runtime reserves 4032, so elements 1000..1007 do not fault
    dx, dy = aclsim.to_device(np.ones(n, np.float32)), aclsim.empty(n)
    s = aclsim.Stream()
    unguarded[4, 256, s](dx, dy)
    assert sync_code(s) == 507015
    msg = acl.get_recent_err_msg()
    addr = dx.ptr + 1008 * 4
    assert "kernel 'unguarded'" in msg
    assert "block (3, 0, 0) thread (240, 0, 0)" in msg
    assert "inp[1008]" in msg
    assert f"{addr:#x}" in msg
    assert f"test_simt_memory.py:{UNGUARDED_LINE}" in msg
    assert sync_code(s) == 0  # the error is reported once


@simt.kernel
def shifted(inp: Ptr[np.float32], out: Ptr[np.float32], shift: np.int32):
    i = np.int32(threadIdx.x)
    out[i] = inp[i + shift]


def test_negative_index_never_wraps_around():
    dx, dy = aclsim.to_device(np.arange(8, dtype=np.float32)), aclsim.zeros(8)
    shifted[1, 8](dx, dy, -1)
    assert sync_code() == 507015
    msg = acl.get_recent_err_msg()
    assert "inp[-1]" in msg and "4 bytes before the allocation" in msg
    assert "block (0, 0, 0) thread (0, 0, 0)" in msg


def past_end_message(ptr: int, shift: int) -> str:
    dy = aclsim.zeros(8)
    shifted[1, 8](ptr, dy, shift)
    assert sync_code() == 507015
    return acl.get_recent_err_msg()


def test_an_access_past_the_end_is_measured_from_the_bytes_requested():
    dx = aclsim.to_device(np.arange(1000, dtype=np.float32))  # 4000 bytes requested
    alloc = get_runtime().find_allocation(dx.ptr)
    reserved = alloc.alloc_size
    first_past = reserved // 4  # the first element beyond the runtime's padding faults
    msg = past_end_message(dx.ptr, first_past)
    assert f"inp[{first_past}]" in msg and f"{dx.ptr + reserved:#x}" in msg
    assert (f"{reserved - 4000} bytes past the 4000 bytes requested for the allocation at {dx.ptr:#x} "
            f"(exactly at the end of the {reserved} bytes the runtime reserved)") in msg
    msg = past_end_message(dx.ptr, first_past + 5)
    assert (f"{reserved + 20 - 4000} bytes past the 4000 bytes requested for the allocation at {dx.ptr:#x} "
            f"(20 bytes past the end of the {reserved} bytes the runtime reserved)") in msg
    # a misaligned element that starts inside the padding but runs over its end
    msg = past_end_message(dx.ptr + 2, first_past - 1)
    assert (f"{reserved - 2 - 4000} bytes past the 4000 bytes requested for the allocation at {dx.ptr:#x} "
            f"(its 4-byte access runs 2 bytes over the end of the {reserved} bytes the runtime reserved)") in msg


def test_offset_pointer_may_index_backwards_inside_its_allocation():
    x = np.arange(16, dtype=np.float32)
    dx, dy = aclsim.to_device(x), aclsim.zeros(8)
    shifted[1, 8](dx.ptr + 8 * 4, dy, -3)
    assert sync_code() == 0
    assert np.array_equal(dy.copy_to_host(), x[5:13])


def test_access_landing_in_another_live_allocation_is_not_a_fault():
    a = aclsim.to_device(np.zeros(8, np.float32))
    b = aclsim.to_device(np.arange(100, 108, dtype=np.float32))
    out = aclsim.zeros(8)
    shifted[1, 8](a, out, (b.ptr - a.ptr) // 4)
    assert sync_code() == 0
    assert np.array_equal(out.copy_to_host(), np.arange(100, 108, dtype=np.float32))


def test_freed_pointer_faults():
    a = aclsim.to_device(np.ones(8, np.float32))
    out = aclsim.zeros(8)
    ptr = a.ptr
    a.free()
    shifted[1, 8](ptr, out, 0)
    assert sync_code() == 507015
    assert "not inside any live allocation" in acl.get_recent_err_msg()


@simt.kernel
def fill(out: Ptr[np.float32], value: np.float32, n: np.uint32):
    i = blockIdx.x * blockDim.x + threadIdx.x
    if i < n:
        out[i] = value


def test_launch_is_asynchronous_until_the_stream_is_synchronized():
    n = 1024
    out = aclsim.zeros(n)
    device_bytes = get_runtime().find_allocation(out.ptr).data[: n * 4].view(np.float32)
    with aclsim.Stream() as s:
        fill[4, 256, s](out, 3.5, n)
        assert (device_bytes == 0).all()  # lazy: queued, not run
        s.synchronize()
        assert (device_bytes == 3.5).all()


def test_work_after_a_faulting_kernel_on_the_stream_is_dropped_until_reported():
    n = 256
    dx, dy = aclsim.to_device(np.ones(n, np.float32)), aclsim.zeros(n)
    s = aclsim.Stream()
    unguarded[2, 256, s](dx, dy)
    fill[1, 256, s](dy, 9.0, n)
    assert sync_code(s) == 507015
    fill[1, 256, s](dy, 9.0, n)
    assert sync_code(s) == 0
    assert (dy.copy_to_host() == 9.0).all()


# ------------------------------------------------------------------------------------ shared memory
THREADS = 128


@simt.kernel
def block_sum(x: Ptr[np.float32], total: Ptr[np.float32], n: np.uint32):
    partial = simt.shared.array(THREADS, np.float32)
    tid = threadIdx.x
    i = blockIdx.x * blockDim.x + tid
    partial[tid] = x[i] if i < n else np.float32(0)
    simt.syncthreads()
    stride = blockDim.x // 2
    while stride > 0:
        if tid < stride:
            partial[tid] += partial[tid + stride]
        simt.syncthreads()
        stride //= 2
    if tid == 0:
        simt.atomic_add(total, 0, partial[0])


def test_shared_memory_tree_reduction_with_atomic_finish():
    n = 50_001
    x = np.random.default_rng(8).random(n, dtype=np.float32)
    total = aclsim.zeros(1)
    block_sum[(n + THREADS - 1) // THREADS, THREADS](aclsim.to_device(x), total, n)
    blocks = (n + THREADS - 1) // THREADS
    p = np.zeros(blocks * THREADS, np.float32)
    p[:n] = x
    p = p.reshape(blocks, THREADS)
    s = THREADS // 2
    while s:
        p[:, :s] += p[:, s : 2 * s]
        s //= 2
    expected = np.add.accumulate(np.concatenate(([np.float32(0)], p[:, 0])), dtype=np.float32)[-1]
    assert total.copy_to_host()[0] == expected


@simt.kernel
def transpose_tile(a: Ptr[np.int32], out: Ptr[np.int32], n: np.uint32):
    tile = simt.shared.array((8, 8), np.int32)
    x = blockIdx.x * 8 + threadIdx.x
    y = blockIdx.y * 8 + threadIdx.y
    tile[threadIdx.y, threadIdx.x] = a[y * n + x]
    simt.syncthreads()
    tx = blockIdx.y * 8 + threadIdx.x
    ty = blockIdx.x * 8 + threadIdx.y
    out[ty * n + tx] = tile[threadIdx.x, threadIdx.y]


def test_two_dimensional_shared_array():
    n = 32
    a = np.arange(n * n, dtype=np.int32)
    out = aclsim.zeros(n * n, np.int32)
    transpose_tile[(4, 4), (8, 8)](aclsim.to_device(a), out, n)
    assert np.array_equal(out.copy_to_host().reshape(n, n), a.reshape(n, n).T)


@simt.kernel
def divergent_barrier(out: Ptr[np.int32]):
    t = threadIdx.x
    if t < 5:
        simt.syncthreads()
    out[t] = 1


def test_barrier_reached_by_part_of_a_block_is_an_error():
    out = aclsim.zeros(64, np.int32)
    divergent_barrier[2, 32](out)
    assert sync_code() == 507015
    msg = acl.get_recent_err_msg()
    line = divergent_barrier.fn.__code__.co_firstlineno + 4
    assert "barrier divergence" in msg and f"test_simt_memory.py:{line}" in msg
    assert "only 5 of the 32 live threads of block (0, 0, 0)" in msg


@simt.kernel
def exit_then_barrier(x: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    sm = simt.shared.array(64, np.float32)
    i = blockIdx.x * blockDim.x + threadIdx.x
    if i >= n:
        return
    sm[threadIdx.x] = x[i]
    simt.syncthreads()
    out[i] = sm[threadIdx.x] + 1


def test_threads_that_returned_do_not_count_at_a_barrier():
    n = 100
    x = np.arange(n, dtype=np.float32)
    out = aclsim.zeros(n)
    exit_then_barrier[2, 64](aclsim.to_device(x), out, n)
    assert sync_code() == 0
    assert np.array_equal(out.copy_to_host(), x + 1)


@simt.kernel
def shared_oob(out: Ptr[np.float32]):
    sm = simt.shared.array(32, np.float32)
    sm[threadIdx.x] = 1.0
    out[threadIdx.x] = sm[threadIdx.x]


def test_shared_memory_index_out_of_range_faults():
    shared_oob[1, 40](aclsim.zeros(40))
    assert sync_code() == 507015
    msg = acl.get_recent_err_msg()
    assert "shared memory index 32 out of range" in msg and "thread (32, 0, 0)" in msg


# ------------------------------------------------------------------------------------ atomics
@simt.kernel
def histogram(x: Ptr[np.int32], hist: Ptr[np.int32], n: np.uint32):
    i = blockIdx.x * blockDim.x + threadIdx.x
    if i < n:
        simt.atomic_add(hist, x[i] % 16, 1)


def test_atomic_add_with_conflicts_counts_exactly():
    n = 100_000
    x = np.random.default_rng(9).integers(0, 1000, n, dtype=np.int32)
    hist = aclsim.zeros(16, np.int32)
    histogram[(n + 255) // 256, 256](aclsim.to_device(x), hist, n)
    assert np.array_equal(hist.copy_to_host(), np.bincount(x % 16, minlength=16))


@simt.kernel
def ticket(counter: Ptr[np.uint32], tickets: Ptr[np.uint32]):
    i = blockIdx.x * blockDim.x + threadIdx.x
    tickets[i] = simt.atomic_add(counter, 0, 1)


def test_atomic_returns_old_values_in_a_serial_order():
    counter, tickets = aclsim.zeros(1, np.uint32), aclsim.zeros(2048, np.uint32)
    ticket[8, 256](counter, tickets)
    assert counter.copy_to_host()[0] == 2048
    assert np.array_equal(np.sort(tickets.copy_to_host()), np.arange(2048))


@simt.kernel
def float_accumulate(x: Ptr[np.float32], total: Ptr[np.float32], old: Ptr[np.float32]):
    i = blockIdx.x * blockDim.x + threadIdx.x
    old[i] = simt.atomic_add(total, 0, x[i])


def test_float_atomic_add_equals_a_sequential_float32_sum():
    x = np.random.default_rng(10).random(1000, dtype=np.float32)
    total, old = aclsim.zeros(1), aclsim.zeros(1024)
    float_accumulate[4, 250](aclsim.to_device(x), total, old)
    seq = np.add.accumulate(np.concatenate(([np.float32(0)], x)), dtype=np.float32)
    assert total.copy_to_host()[0] == seq[-1]
    assert np.array_equal(old.copy_to_host()[:1000], seq[:-1])


@simt.kernel
def other_atomics(x: Ptr[np.int32], mx: Ptr[np.int32], lock: Ptr[np.int32], won: Ptr[np.int32], last: Ptr[np.int32]):
    i = np.int32(blockIdx.x * blockDim.x + threadIdx.x)
    simt.atomic_max(mx, i % 4, x[i])
    won[i] = simt.atomic_cas(lock, 0, 0, i + 1)
    simt.atomic_exch(last, 0, i)


def test_atomic_max_cas_and_exch():
    n = 512
    x = np.random.default_rng(12).integers(-1000, 1000, n, dtype=np.int32)
    mx = aclsim.to_device(np.full(4, -5000, np.int32))
    lock, won, last = aclsim.zeros(1, np.int32), aclsim.zeros(n, np.int32), aclsim.zeros(1, np.int32)
    other_atomics[2, 256](aclsim.to_device(x), mx, lock, won, last)
    assert np.array_equal(mx.copy_to_host(), x.reshape(-1, 4).max(axis=0))
    assert lock.copy_to_host()[0] == 1  # only the first compare-and-swap succeeds
    w = won.copy_to_host()
    assert w[0] == 0 and (w[1:] == 1).all()
    assert last.copy_to_host()[0] == n - 1  # the serial order is lane order


@simt.kernel
def shared_histogram(x: Ptr[np.int32], hist: Ptr[np.int32], n: np.uint32):
    local = simt.shared.array(8, np.int32)
    if threadIdx.x < 8:
        local[threadIdx.x] = 0
    simt.syncthreads()
    i = blockIdx.x * blockDim.x + threadIdx.x
    if i < n:
        simt.atomic_add(local, x[i] % 8, 1)
    simt.syncthreads()
    if threadIdx.x < 8:
        simt.atomic_add(hist, threadIdx.x, local[threadIdx.x])


def test_atomics_on_shared_memory():
    n = 10_000
    x = np.random.default_rng(13).integers(0, 100, n, dtype=np.int32)
    hist = aclsim.zeros(8, np.int32)
    shared_histogram[(n + 127) // 128, 128](aclsim.to_device(x), hist, n)
    assert np.array_equal(hist.copy_to_host(), np.bincount(x % 8, minlength=8))


# ------------------------------------------------------------------------------------ observers
class AccessLog:
    def __init__(self):
        self.events = []

    def on_kernel_access(self, access):
        self.events.append(access)


@simt.kernel
def copy_some(inp: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    i = blockIdx.x * blockDim.x + threadIdx.x
    if i < n:
        out[i] = inp[i]


def test_kernel_access_events_describe_every_element_and_lane():
    n = 300
    dx, dy = aclsim.to_device(np.ones(n, np.float32)), aclsim.zeros(n)
    log = AccessLog()
    get_runtime().bus.subscribe(log)
    try:
        copy_some[2, 256](dx, dy, n)
        aclsim.Stream.default().synchronize()
    finally:
        get_runtime().bus.unsubscribe(log)
    load, store = log.events
    assert (load.write, store.write) == (False, True)
    assert load.alloc is dx.allocation and store.alloc is dy.allocation
    for e in (load, store):  # offsets None means every element of [lo, hi)
        offsets = e.offsets if e.offsets is not None else np.arange(e.lo, e.hi, e.itemsize)
        assert np.array_equal(offsets, np.arange(n) * 4) and np.array_equal(np.asarray(e.lanes), np.arange(n))
    assert (load.lo, load.hi, load.itemsize) == (0, n * 4, 4)
    assert load.line == copy_some.fn.__code__.co_firstlineno + 4
    assert load.describe(257) == "block (1, 0, 0) thread (1, 0, 0)"
    assert load.api == "load" and store.api == "store" and not store.atomic


@simt.kernel
def gather_odd(inp: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    i = blockIdx.x * blockDim.x + threadIdx.x
    if i % 2 == 1:
        out[i] = inp[(i * 7) % n]


def test_kernel_access_events_for_a_masked_gather_list_each_active_lane():
    n = 64
    dx, dy = aclsim.to_device(np.arange(n, dtype=np.float32)), aclsim.zeros(n)
    log = AccessLog()
    get_runtime().bus.subscribe(log)
    try:
        gather_odd[2, 32](dx, dy, n)
        aclsim.Stream.default().synchronize()
    finally:
        get_runtime().bus.unsubscribe(log)
    load, store = log.events
    lanes = np.arange(1, n, 2)
    assert np.array_equal(load.lanes, lanes) and np.array_equal(store.lanes, lanes)
    assert np.array_equal(load.offsets, (lanes * 7 % n) * 4) and np.array_equal(store.offsets, lanes * 4)
    assert np.array_equal(dy.copy_to_host()[1::2], (lanes * 7 % n).astype(np.float32))


def test_fault_inside_a_device_function_names_its_file_and_line(tmp_path):
    helpers = tmp_path / "helpers_mod.py"
    helpers.write_text(
        "from aclsim import simt\n\n@simt.device\ndef read(p, i):\n    return p[i]\n"
    )
    import importlib.util

    spec = importlib.util.spec_from_file_location("helpers_mod", helpers)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    read = mod.read

    @simt.kernel
    def uses_helper(x: Ptr[np.float32], out: Ptr[np.float32], j: np.uint32, k: np.uint32):
        out[threadIdx.x + k] = read(x, threadIdx.x + j)

    uses_helper[1, 4](aclsim.zeros(4), aclsim.zeros(4), 100, 0)
    assert sync_code() == 507015
    assert f"{helpers}:5" in acl.get_recent_err_msg()
    line = uses_helper.fn.__code__.co_firstlineno + 2
    uses_helper[1, 4](aclsim.zeros(4), aclsim.zeros(4), 0, 100)  # same launch configuration, fault in the kernel
    assert sync_code() == 507015
    assert f"test_simt_memory.py:{line}" in acl.get_recent_err_msg()
