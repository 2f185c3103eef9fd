"""Shared fixtures: every test starts with a fresh runtime (one Ascend910B1 unless it asks otherwise)."""

from __future__ import annotations

import pytest

from aclsim.errors import take_recent_errors
from aclsim.runtime import reset_runtime


@pytest.fixture(autouse=True)
def fresh_runtime(monkeypatch):
    monkeypatch.delenv("ACLSIM_SOC", raising=False)
    monkeypatch.delenv("ACLSIM_DEVICES", raising=False)
    monkeypatch.delenv("ACLSIM_SCHEDULE", raising=False)
    monkeypatch.delenv("ACLSIM_CHECK", raising=False)
    # the numpy engine runs SIMT kernels unless a test asks for the numba JIT (tests/test_simt_jit.py does)
    monkeypatch.setenv("ACLSIM_SIMT_JIT", "0")
    rt = reset_runtime()
    take_recent_errors()
    before = list(rt.bus.observers)
    yield rt
    new = reset_runtime()  # carries observers over: drop the ones this test subscribed
    for o in list(new.bus.observers):
        if o not in before:
            new.bus.unsubscribe(o)
