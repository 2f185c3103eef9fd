"""Limits and interruptions the runtime must survive with a code, never a crash or a silent redo."""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import aclsim.acl as acl
from aclsim import constants as C
from aclsim.runtime import Task, get_runtime


def test_an_interrupted_kernel_fails_its_stream_instead_of_running_twice():
    acl.rt.set_device(0)
    dev, _ = acl.rt.malloc(4096, 0)
    acl.rt.memset(dev, 4096, 0, 4096)
    rt = get_runtime()
    view = rt.find_allocation(dev).data[:1024].view(np.int32)

    def half_then_ctrl_c(task: Task) -> None:
        view[:128] += 1  # the blocks that ran before the interrupt
        raise KeyboardInterrupt

    rt.launch(0, Task("kernel", "long", half_then_ctrl_c))
    with pytest.raises(KeyboardInterrupt):
        acl.rt.synchronize_stream(0)
    assert acl.rt.synchronize_stream(0) == 507000  # reported once, at the next wait
    assert "interrupted" in acl.get_recent_err_msg()
    assert acl.rt.synchronize_stream(0) == 0
    assert view[:128].tolist() == [1] * 128  # applied once, never re-run
    assert acl.rt.stream_query(0) == (C.ACL_STREAM_STATUS_COMPLETE, 0)


def test_streams_are_limited_per_device_across_contexts():
    acl.rt.set_device(0)
    chip = get_runtime().chip
    acl.rt.create_context(0)
    made = [acl.rt.create_stream()[0] for _ in range(chip.max_streams // 2)]
    acl.rt.create_context(0)
    rets = [acl.rt.create_stream()[1] for _ in range(chip.max_streams)]
    # default streams of the device's three contexts count: 1984 in all on an Ascend910B1
    assert rets.count(0) == chip.max_streams - len(made) - 3
    assert set(rets[rets.index(207008):]) == {207008}
    assert made


def test_events_are_limited_per_device():
    acl.rt.set_device(0)
    limit = get_runtime().chip.max_events  # 65536 on an Ascend910B1 (DOC-RT 07)
    acl.rt.create_context(0)  # a second context on the same device shares the limit
    rets = [acl.rt.create_event()[1] for _ in range(limit // 2)]
    acl.rt.set_device(0)
    rets += [acl.rt.create_event()[1] for _ in range(limit - limit // 2 + 2)]
    assert rets[:limit] == [0] * limit and rets[limit:] == [207007, 207007]


def test_a_negative_event_timeout_is_refused_like_the_stream_one():
    acl.rt.set_device(0)
    ev, _ = acl.rt.create_event()
    assert acl.rt.synchronize_event_with_timeout(ev, -5) == 107000
    assert acl.rt.synchronize_stream_with_timeout(0, -5) == 107000
    assert acl.rt.synchronize_event_with_timeout(ev, -1) == 0


def test_set_device_under_a_virtual_memory_limit_returns_207001():
    prog = textwrap.dedent("""
        import aclsim.acl as acl
        print(acl.rt.set_device(0))
        print(acl.get_recent_err_msg())
        print(acl.rt.get_device())
    """)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # below the chip's 64 GiB

    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, preexec_fn=limit, timeout=60)
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stderr
    assert lines[0] == "207001" and "ulimit -v" in lines[1]
    assert lines[2] == "(0, 107002)"  # nothing was set
