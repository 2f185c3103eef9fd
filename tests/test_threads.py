"""Several host threads, each with its own context, use the runtime at once without corrupting it."""

from __future__ import annotations

import threading

import numpy as np

import aclsim
import aclsim.acl as acl
from aclsim import constants as C


def test_threads_with_own_contexts_and_streams():
    aclsim.configure(devices=2)
    errors: list[str] = []
    barrier = threading.Barrier(4)

    def worker(i: int) -> None:
        try:
            dev = i % 2
            ctx, ret = acl.rt.create_context(dev)
            assert ret == 0
            assert acl.rt.get_device() == (dev, 0)
            stream, _ = acl.rt.create_stream()
            rng = np.random.default_rng(i)
            barrier.wait()
            for step in range(40):
                n = int(rng.integers(1, 5000))
                data = rng.integers(0, 255, n, dtype=np.uint8)
                d, ret = acl.rt.malloc(n, C.ACL_MEM_MALLOC_NORMAL_ONLY)
                assert ret == 0, ret
                assert acl.rt.memcpy_async(d, n, data.ctypes.data, n, 1, stream) == 0
                h, _ = acl.rt.malloc_host(n)
                assert acl.rt.memcpy_async(h, n, d, n, 2, stream) == 0
                assert acl.rt.synchronize_stream(stream) == 0
                if acl.util.ptr_to_bytes(h, n) != data.tobytes():
                    errors.append(f"thread {i} step {step}: bytes differ")
                assert acl.rt.free(d) == 0 and acl.rt.free_host(h) == 0
            assert acl.rt.destroy_stream(stream) == 0
            assert acl.rt.destroy_context(ctx) == 0
        except AssertionError as e:  # surface failures from the thread
            errors.append(f"thread {i}: {e!r}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    for dev in (0, 1):
        acl.rt.set_device(dev)
        free, total, _ = acl.rt.get_mem_info(C.ACL_HBM_MEM)
        assert free == total  # every allocation came back
