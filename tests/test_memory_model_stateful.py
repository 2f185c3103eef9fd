"""Stateful property test: random malloc/free/memcpy/memset sequences against a plain reference model.

The model keeps each live allocation's bytes as a bytearray and the expected free memory; after every
step the emulator's contents and get_mem_info accounting must match it exactly.
"""

from __future__ import annotations

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, precondition, rule

import aclsim.acl as acl
from aclsim import constants as C
from aclsim.runtime import reset_runtime

POLICIES = [C.ACL_MEM_MALLOC_HUGE_FIRST, C.ACL_MEM_MALLOC_HUGE_ONLY, C.ACL_MEM_MALLOC_NORMAL_ONLY]
sizes = st.one_of(st.integers(1, 4096), st.integers(1 << 20, 3 << 20))


def _reserved(size: int, policy: int) -> int:
    """Independent restatement of the documented rounding and page rules."""
    alloc = (size + 31) // 32 * 32 + 32
    huge = policy == C.ACL_MEM_MALLOC_HUGE_ONLY or (policy == C.ACL_MEM_MALLOC_HUGE_FIRST and alloc > 1 << 20)
    page = 2 << 20 if huge else 4096
    return (alloc + page - 1) // page * page


class MemoryModel(RuleBasedStateMachine):
    allocs = Bundle("allocs")

    def __init__(self) -> None:
        super().__init__()
        reset_runtime()
        assert acl.rt.set_device(0) == 0
        self.free0, self.total = acl.rt.get_mem_info(C.ACL_HBM_MEM)[:2]
        self.model: dict[int, bytearray] = {}
        self.reserved: dict[int, int] = {}
        self.rng = np.random.default_rng(0)

    @rule(target=allocs, size=sizes, policy=st.sampled_from(POLICIES))
    def malloc(self, size, policy):
        ptr, ret = acl.rt.malloc(size, policy)
        assert ret == 0 and ptr % 64 == 0
        assert ptr not in self.model
        self.model[ptr] = bytearray(size)
        self.reserved[ptr] = _reserved(size, policy)
        acl.rt.memset(ptr, size, 0, size)  # the model starts from known bytes
        return ptr

    @rule(ptr=consumes(allocs))
    def free(self, ptr):
        assert acl.rt.free(ptr) == 0
        del self.model[ptr], self.reserved[ptr]
        assert acl.rt.free(ptr) == 107000  # a second free is refused

    @rule(ptr=allocs, data=st.data())
    def write_from_host(self, ptr, data):
        size = len(self.model[ptr])
        off = data.draw(st.integers(0, size - 1))
        n = data.draw(st.integers(1, size - off))
        payload = self.rng.integers(0, 256, n, dtype=np.uint8)
        assert acl.rt.memcpy(ptr + off, size - off, payload.ctypes.data, n, C.ACL_MEMCPY_HOST_TO_DEVICE) == 0
        self.model[ptr][off : off + n] = payload.tobytes()

    @rule(ptr=allocs, value=st.integers(0, 255), data=st.data())
    def memset(self, ptr, value, data):
        size = len(self.model[ptr])
        off = data.draw(st.integers(0, size - 1))
        n = data.draw(st.integers(1, size - off))
        assert acl.rt.memset(ptr + off, size - off, value, n) == 0
        self.model[ptr][off : off + n] = bytes([value]) * n

    @rule(dst=allocs, src=allocs, data=st.data())
    def copy_d2d(self, dst, src, data):
        n = data.draw(st.integers(1, min(len(self.model[dst]), len(self.model[src]))))
        assert acl.rt.memcpy(dst, len(self.model[dst]), src, n, C.ACL_MEMCPY_DEVICE_TO_DEVICE) == 0
        self.model[dst][:n] = self.model[src][:n]

    @rule(ptr=allocs)
    def copy_too_much_is_refused(self, ptr):
        size = len(self.model[ptr])
        junk = np.full(size + 1, 0xEE, dtype=np.uint8)
        assert acl.rt.memcpy(ptr, size, junk.ctypes.data, size + 1, C.ACL_MEMCPY_HOST_TO_DEVICE) == 107000

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def read_back(self, data):
        ptr = data.draw(st.sampled_from(sorted(self.model)))
        out = bytes(len(self.model[ptr]))
        assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), len(out), ptr, len(out), C.ACL_MEMCPY_DEVICE_TO_HOST) == 0
        assert out == bytes(self.model[ptr])

    @invariant()
    def accounting_matches(self):
        free, total, ret = acl.rt.get_mem_info(C.ACL_HBM_MEM)
        assert ret == 0 and total == self.total
        assert free == self.free0 - sum(self.reserved.values())

    def teardown(self):
        reset_runtime()


TestMemoryModel = MemoryModel.TestCase
TestMemoryModel.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
