"""Blocks ordered through flags in a GM workspace (ib_set / ib_wait, wait_pre_block / notify_next_block) and the
scalar unit's cache and memory barriers, on the engine's cores (asc/sync/blocks.py, asc/scalar/gm.py)."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc


def gm(x: asc.GlobalAddress) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    return g


def ub_workspace(nbytes: int) -> asc.LocalTensor:
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, nbytes)
    return buf.get(asc.int32)


@asc.jit
def first_waits_for_second(work: asc.GlobalAddress, out: asc.GlobalAddress):
    """Core 0 runs first and waits for core 1's value (ib_wait suspends it until core 1's ib_set)."""
    w, o = gm(work), gm(out)
    ub = ub_workspace(64)
    if asc.get_block_idx() == 1:
        o.set_value(1, 42)
        asc.ib_set(w, ub, 1, 0)
    else:
        asc.ib_wait(w, ub, 1, 0)
        o.set_value(0, o.get_value(1) + 1)


def test_ib_wait_suspends_a_core_until_another_core_s_ib_set():
    work = np.zeros(2 * 8, np.int32)
    out = np.zeros(2, np.int32)
    first_waits_for_second[2](work, out)
    assert list(out) == [43, 42]
    assert work[8] == 0  # ib_wait took the flag down again


@asc.jit
def waits_for_nobody(work: asc.GlobalAddress):
    asc.ib_wait(gm(work), ub_workspace(64), 1, 0)


def test_an_ib_wait_no_core_satisfies_is_an_error():
    with pytest.raises(asc.AscError, match=r"asc.ib_wait: waits forever: it polls block 1's flag of event 0 for 1"):
        waits_for_nobody[2](np.zeros(2 * 8, np.int32))


@asc.jit
def in_block_order(work: asc.GlobalAddress, out: asc.GlobalAddress):
    """Each block appends its index after the blocks before it, twice (two rounds)."""
    w, o = gm(work), gm(out)
    n = asc.get_block_num()
    ub = ub_workspace(4 * (n * 8 + 8))
    ub.set_value(n * 8, 1)  # InitDetermineComputeWorkspace's round count (the C++ API sets it)
    for rnd in range(2):
        asc.wait_pre_block(w, ub)
        k = o.get_value(0)
        o.set_value(1 + k, rnd * 10 + asc.get_block_idx())
        o.set_value(0, k + 1)
        asc.notify_next_block(w, ub)


def test_wait_pre_block_and_notify_next_block_order_the_blocks_in_each_round():
    n = 4
    out = np.zeros(1 + 2 * n, np.int32)
    in_block_order[n](np.zeros(n * 8, np.int32), out)
    assert list(out[1:]) == [0, 1, 2, 3, 10, 11, 12, 13]


@asc.jit
def barriers(x: asc.GlobalAddress):
    g = gm(x)
    asc.data_sync_barrier(asc.MemDsbT.DDR)
    asc.data_cache_clean_and_invalid(asc.CacheLine.SINGLE_CACHE_LINE, g, asc.DcciDst.CACHELINE_OUT)
    asc.data_cache_clean_and_invalid(asc.CacheLine.ENTIRE_DATA_CACHE, g)


def test_cache_and_memory_barriers_take_their_operands():
    barriers[1](np.zeros(8, np.int32))  # no cache is modelled: nothing else to see


@asc.jit
def spins_on_a_flag(flag: asc.GlobalAddress, out: asc.GlobalAddress):
    """Core 0 (which runs first) spins until core 1 raises the flag: a polling loop in the kernel itself."""
    f, o = gm(flag), gm(out)
    if asc.get_block_idx() == 0:
        while f.get_value(0) == 0:
            pass
        o.set_value(0, f.get_value(0) + 1)
    else:
        f.set_value(0, 7)


def test_a_core_polling_gm_hands_over_to_the_core_it_waits_for():
    out = np.zeros(1, np.int32)
    spins_on_a_flag[2](np.zeros(1, np.int32), out)
    assert out[0] == 8


@asc.jit
def spins_for_nothing(flag: asc.GlobalAddress):
    while gm(flag).get_value(0) == 0:
        pass


def test_a_poll_no_core_will_satisfy_faults_instead_of_spinning(monkeypatch):
    from aclsim.asc.memory import gm as gm_module

    monkeypatch.setattr(gm_module, "SPIN_LIMIT", 4 * gm_module.POLL_READS)
    with pytest.raises(asc.AscError, match=r"core 0 of 2: asc.GlobalTensor.get_value: polls GM for a value no core "
                                           r"will store"):
        spins_for_nothing[2](np.zeros(1, np.int32))
