"""The Ascend C API in C++, form by form: tests/c/ascendc/api.asc runs each family of calls on the emulated device
and writes what they computed; numpy says what they should have (the same inputs, the documented semantics)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "c" / "ascendc" / "api.asc"
N = 256

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("g++") is None or not sysconfig.get_config_var("Py_ENABLE_SHARED"),
    reason="the C face needs gcc, g++ and a Python with a shared libpython")


def aclsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """The program built once, run once for every case; (output directory, its run)."""
    out = tmp_path_factory.mktemp("api")
    prog = out / "api"
    r = aclsim("cc", str(SOURCE), "-o", str(prog))
    assert r.returncode == 0, r.stderr
    run = aclsim("run", "--check", "all", str(prog), str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    return out, prog, run


@pytest.fixture(scope="module")
def xy(api):
    data = np.fromfile(api[0] / "x.bin", np.float32)
    return data[:N], data[N:]


def result(api, case: str, dtype=np.float32) -> np.ndarray:
    return np.fromfile(api[0] / f"{case}.bin", dtype)


def test_the_whole_run_is_clean_under_the_sanitizer(api):
    assert "cases failed: 0" in api[2].stdout
    assert "ERROR SUMMARY: 0 errors" in api[2].stderr


def test_binary_instructions_in_count_lane_count_and_lane_bit_forms(api, xy):
    x, y = xy
    add, sub, mul, mx, mn = result(api, "binary_forms").reshape(5, N)
    np.testing.assert_array_equal(add, x + y)
    np.testing.assert_array_equal(mx, np.maximum(x, y))
    np.testing.assert_array_equal(mn, np.minimum(x, y))
    sub = sub.reshape(4, 64)  # mask 32: the first 32 lanes of each 64-float repeat
    np.testing.assert_array_equal(sub[:, :32], (x - y).reshape(4, 64)[:, :32])
    assert (sub[:, 32:] == -1).all()
    np.testing.assert_array_equal(mul[::2], (x * y)[::2])  # lane bits 0x5555...: the even lanes
    assert (mul[1::2] == -1).all()


def test_scalar_unary_and_counter_mask_forms(api, xy):
    x, _ = xy
    adds, maxs, leaky, absv, relu, exp, counted = result(api, "scalar_unary").reshape(7, N)
    np.testing.assert_array_equal(adds, x + np.float32(2.5))
    np.testing.assert_array_equal(maxs, np.maximum(x, 0))
    np.testing.assert_allclose(leaky, np.where(x > 0, x, x * np.float32(0.1)), rtol=1e-6)
    np.testing.assert_array_equal(absv, np.abs(x))
    np.testing.assert_array_equal(relu, np.maximum(x, 0))
    np.testing.assert_allclose(exp, np.exp(x / 64), rtol=1e-6)
    np.testing.assert_array_equal(counted[:100], x[:100] * np.float32(0.5))  # COUNTER mode: 100 elements
    assert (counted[100:] == -1).all()


def test_casts_compare_select_and_integer_vectors(api, xy):
    x, y = xy
    raw = result(api, "convert_select", np.uint8)
    h = raw[: 2 * N].view(np.float16)
    back = raw[2 * N : 6 * N].view(np.float32)
    bits = raw[6 * N : 6 * N + 32]
    sel = raw[6 * N + 32 : 10 * N + 32].view(np.float32)
    ints = raw[10 * N + 32 :].view(np.int32)
    np.testing.assert_array_equal(h, x.astype(np.float16))  # CAST_RINT: round to nearest even
    np.testing.assert_array_equal(back, x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(bits, np.packbits(x < y, bitorder="little"))
    np.testing.assert_array_equal(sel, np.where(x < y, x, y))
    np.testing.assert_array_equal(ints, np.r_[np.arange(8), np.ones(N - 8)].astype(np.int32) * 3 + 7)


def test_reductions_with_index_and_a_gather(api, xy):
    x, _ = xy
    r = result(api, "reduce_gather")
    np.testing.assert_allclose(r[0], x.sum(), rtol=1e-5)
    assert r[8] == x.max() and r[9:10].view(np.uint32)[0] == x.argmax()  # calIndex: the index's bits
    assert r[2] == r[0] and r[4] == x.max() and r[5:6].view(np.uint32)[0] == x.argmax()  # ACC_VAL, MAX_MIN_CNT
    np.testing.assert_allclose(r[16:20], x.reshape(4, 64).sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(r[24:56], x.reshape(32, 8).max(axis=1))
    np.testing.assert_array_equal(r[64:128], x[7 * np.arange(64) % N])


def test_padded_blocked_sliced_and_scalar_gm_moves(api, xy):
    x, _ = xy
    m = result(api, "movement")
    padded = m[:16].view(np.float16)
    np.testing.assert_array_equal(padded[:20], x.view(np.float16)[:20])
    assert (padded[20:] == 7).all()
    np.testing.assert_array_equal(m[16:48], x.reshape(-1, 8)[0:8:2].ravel())  # 4 blocks, one skipped after each
    np.testing.assert_array_equal(m[48:80], x.reshape(8, 32)[2:6, 8:16].ravel())
    assert m[80] == x[3] + x[4]
    np.testing.assert_array_equal(m[96:112], m[16:32])  # DataCopyEnhancedParams{}: the blocked copy


def test_cores_meet_at_sync_all_and_pass_cross_core_flags(api):
    out = result(api, "cores", np.int32)
    np.testing.assert_array_equal(out[:8], [1, 2, 3, 0, 4, 4, 4, 4])


def test_a_mix_block_runs_its_aic_and_both_aivs(api):
    who = result(api, "mix_cores", np.int32)[:21].reshape(7, 3)
    # AIVs 0..3 (two per block, sub-blocks 0 and 1); the AICs of blocks 0 and 1 at slots 4 and 6
    np.testing.assert_array_equal(who[:4], [[0, 0, 0], [1, 1, 0], [2, 0, 0], [3, 1, 0]])
    np.testing.assert_array_equal(who[[4, 6]], [[0, 0, 1], [1, 0, 1]])


def test_scalar_gm_atomics_and_flags_between_blocks(api):
    out = result(api, "gm_scalar", np.int32)
    assert out[0] == 1 + 2 + 3 + 4  # AtomicAdd from every core
    assert out[1] == 100 and list(out[4:8]) == [0, 100, 100, 100]  # the first AtomicCas wins (core 0 runs first)
    assert out[3] == 78  # core 0 waited (IBWait) for core 3's IBSet and its write
    assert not out[32:64].any()  # the flag went up and down again


def test_printf_and_dump_tensor_print_from_each_core(api, xy):
    x, _ = xy
    out = api[2].stdout
    for core in (0, 1):
        assert f"core {core} of 2: x[1] = {x[1]:.2f}, ok" in out
    assert out.count("DumpTensor: desc=5, addr=0, data_type=float32, position=UB, dump_size=8") == 2


def test_ascend_950s_flexible_scalar_position_in_compares_and_select(api, xy):
    out, prog, _ = api
    r = aclsim("run", "--soc", "Ascend950PR_9589", "--check", "all", str(prog), str(out), "soc950_flexible")
    assert r.returncode == 0 and "cases failed: 0" in r.stdout, r.stdout + r.stderr
    x, y = xy
    raw = result(api, "soc950_flexible", np.uint8)
    bits = raw[:96].reshape(3, 32)
    np.testing.assert_array_equal(bits[0], np.packbits(x < y[0], bitorder="little"))
    np.testing.assert_array_equal(bits[1], np.packbits(y[0] < x, bitorder="little"))  # the scalar on the left
    np.testing.assert_array_equal(bits[2], np.packbits(np.float32(0.5) <= x, bitorder="little"))
    sel = raw[96 : 96 + 3 * N * 4].view(np.float32).reshape(3, N)
    np.testing.assert_array_equal(sel[0], np.where(x < y[0], x, y[0]))
    np.testing.assert_array_equal(sel[1], np.where(x < y[0], y[0], x))
    np.testing.assert_array_equal(sel[2], np.where(x < y[0], np.float32(7), x))
    arith = raw[96 + 3 * N * 4 : 96 + 7 * N * 4].view(np.float32).reshape(4, N)
    np.testing.assert_array_equal(arith[0], np.float32(10) - x)  # the scalar on the left
    np.testing.assert_array_equal(arith[1], y[0] - x)
    np.testing.assert_array_equal(arith[2], x + y[0])
    np.testing.assert_array_equal(arith[3], x / np.float32(4))
    np.testing.assert_array_equal(raw[96 + 7 * N * 4 :].view(np.uint16), y.view(np.uint16) & 0xFF)


def test_the_flexible_scalar_position_is_refused_before_ascend_950(api):
    out, prog, _ = api
    r = aclsim("run", str(prog), str(out), "soc950_flexible")
    assert r.returncode == 1
    assert "exists only on Ascend 950PR/950DT" in r.stdout and "--soc Ascend950PR_9589" in r.stdout, r.stdout


@pytest.mark.parametrize(("case", "says"), [
    ("err_not_emulated", "AscendC::Fixpipe: not emulated by aclsim: L0C -> L1 / UB"),
    ("err_wait_forever", "AscendC::CrossCoreWaitFlag: waits forever"),
    ("err_gm_overrun", "AscendC::DataCopy: accesses 1280 bytes at GM"),
    ("err_unwritten_read", "AscendC::Adds: reads 256 x float32 but element 64 (UB byte 256) was never written"),
])
def test_a_faulting_call_stops_its_launch_with_the_engines_message_and_line(api, case, says):
    out, prog, _ = api
    r = aclsim("run", str(prog), str(out), case)
    assert r.returncode == 1
    line = next(i for i, ln in enumerate(SOURCE.read_text().splitlines(), 1)
                if ln.startswith(f"__global__ __vector__ void {case}("))
    body = SOURCE.read_text().splitlines()[line:]
    call = line + 1 + next(i for i, ln in enumerate(body) if ln.startswith("}")) - 1  # the body's last line
    assert f"{case}: 507015 ACL_ERROR_RT_AICORE_EXCEPTION (507015): {case}: core" in r.stdout
    assert says in r.stdout
    assert f"(at {SOURCE.relative_to(ROOT)}:{call} in {case})" in r.stdout
