"""The instruction table: one engine function per Ascend C instruction, reachable from plain numbers.

What a native face (C++ `AscendC::Add(dst, src0, src1, count)` through a C ABI) relies on: every instruction
takes the core and typed operands, and the operands can be made from a core, a memory name, byte offsets, an
aclDataType code, counts and packed mask/repeat parameters, with the same results and faults as pyasc's calls.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim.asc import engine
from aclsim.asc.memory.gm import GlobalTensor
from aclsim.asc.memory.local import LocalTensor
from aclsim.asc.table import TABLE, UNITS
from aclsim.asc.vector.repeat import Repeat

N = 1024
FLOAT32 = 0  # aclDataType ACL_FLOAT


def test_every_instruction_is_an_engine_function_of_the_core_and_its_operands():
    assert len(TABLE) > 100
    for key, ins in TABLE.items():
        params = list(inspect.signature(ins.run).parameters)
        assert params[0] == "core", key
        assert ins.unit in UNITS and ins.run.__doc__, key
        assert ins.run.__module__.startswith(f"aclsim.asc.{ins.unit if ins.unit != 'system' else 'scalar'}"), key


def test_every_instruction_has_its_pyasc_name_in_the_asc_namespace():
    """(An instruction pyasc 1.1.1 has no name for has api "": only the C++ face calls it.)"""
    missing = sorted({ins.api for ins in TABLE.values() if ins.api and not callable(getattr(asc, ins.api, None))})
    assert missing == []


def test_the_table_lists_itself():
    text = engine.markdown()
    for key in ("Add", "DataCopy(Nd2NzParams)", "Mmad", "CrossCoreWaitFlag", "GetBlockIdx"):
        assert f"| `{key}` |" in text
    assert text.count("\n| `") == len(TABLE)


def _add_both_ways(x: np.ndarray, y: np.ndarray, form: str) -> tuple[np.ndarray, np.ndarray]:
    """z1 from pyasc's calls, z2 from the table with operands made of plain numbers."""
    z1, z2 = np.zeros_like(x), np.zeros_like(x)

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z1: asc.GlobalAddress, z2: asc.GlobalAddress):
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 3 * N * 4)
        a = buf.get(asc.float32)
        b, d = a[N:], a[2 * N:]
        g = [asc.GlobalTensor() for _ in range(4)]
        for t, p in zip(g, (x, y, z1, z2), strict=True):
            t.set_global_buffer(p)
        asc.data_copy(a, g[0], N)
        asc.data_copy(b, g[1], N)
        if form == "count":
            asc.add(d, a, b, N)
        else:
            asc.add(d, a, b, 64, N // 64, asc.BinaryRepeatParams())
        asc.data_copy(g[2], d, N)
        # the same, as a native face names it: core, memory, byte offsets, aclDataType code, counts
        core = d.buf.pool.core
        la, lb, ld = (LocalTensor.at(core, "UB", k * N * 4, FLOAT32, N) for k in range(3))
        ld2 = LocalTensor.at(core, "UB", 2 * N * 4, FLOAT32, N)
        assert ld2 is ld  # equal windows are one operand: the checks' memo holds across calls
        gx, gy, gz = (GlobalTensor.at(core, int(p), FLOAT32, N) for p in (x, y, z2))
        TABLE["DataCopy"].run(core, la, gx, N)
        TABLE["DataCopy"].run(core, lb, gy, N)
        n = N if form == "count" else Repeat.packed("add", 64, N // 64, 0x0008_0001_0008_0001_0008_0001, 3)
        TABLE["Add"].run(core, ld, la, lb, n)
        TABLE["DataCopy"].run(core, gz, ld, N)

    kernel[1](x, y, z1, z2)
    return z1, z2


@pytest.mark.parametrize("form", ["count", "mask/repeat"])
def test_an_add_from_plain_numbers_computes_what_pyasc_s_add_does(form):
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    z1, z2 = _add_both_ways(x, y, form)
    np.testing.assert_array_equal(z1, x + y)
    np.testing.assert_array_equal(z2, x + y)


def test_packed_repeat_parameters_are_the_typed_value_pyasc_s_form_gives():
    r = Repeat.packed("add", 64, 4, (8 << 16 | 1) | (16 << 16 | 2) << 32 | (8 << 16 | 1) << 64, 3)
    assert r is Repeat.of("add", 64, 4, [(1, 8), (2, 16), (1, 8)])  # interned: one value per call shape
    bits = Repeat.packed("add", (0x5 << 64) | 0xF, 1, 0x0008_0001, 1, bits=True)
    assert bits.mask == (0xF, 0x5)


def test_a_plain_number_operand_outside_its_memory_faults_as_pyasc_s_does():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 256)
        core = buf.get(asc.float32).buf.pool.core
        LocalTensor.at(core, "UB", 8, FLOAT32, 16)  # not 32-byte aligned

    with pytest.raises(asc.AscError, match=r"asc\.LocalTensor: address 8 is not 32-byte aligned"):
        kernel[1](np.zeros(4, np.float32))
