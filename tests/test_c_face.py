"""The C face: C/C++ programs built with `aclsim cc` (or their own CMake against `aclsim home`) and run
with `aclsim run`, on the same runtime, codes and sanitizer as Python programs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from aclsim.errors import Code

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "tests" / "c"
EXAMPLES = ROOT / "examples" / "c"

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("g++") is None or not sysconfig.get_config_var("Py_ENABLE_SHARED"),
    reason="the C face needs gcc, g++ and a Python with a shared libpython")


def aclsim(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, check=False)


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """build(source) -> path of the program `aclsim cc` made from it (once per module)."""
    out = tmp_path_factory.mktemp("cprogs")
    made: dict[Path, Path] = {}

    def make(source: Path, *flags: str) -> Path:
        if source not in made:
            prog = out / source.stem
            r = aclsim("cc", *flags, str(source), "-o", str(prog), "-lpthread")
            assert r.returncode == 0, r.stderr
            made[source] = prog
        return made[source]

    return make


def line_of(source: Path, marker: str) -> int:
    return next(i for i, ln in enumerate(source.read_text().splitlines(), 1) if marker in ln)


def test_the_articles_memory_flow_builds_and_runs(build):
    prog = build(EXAMPLES / "memflow.c")
    r = aclsim("run", str(prog))
    assert r.returncode == 0, r.stderr
    assert "round trip equal" in r.stdout and "MiB free of 65536 MiB" in r.stdout
    direct = subprocess.run([str(prog)], capture_output=True, text=True, timeout=60, check=False)  # defaults
    assert direct.returncode == 0 and "round trip equal" in direct.stdout


def test_copies_streams_events_callbacks_and_threads_from_cpp(build):
    r = aclsim("run", "--check", "all", str(build(CSRC / "runtime_calls.cpp")))
    assert r.returncode == 0, r.stdout + r.stderr
    values = dict(ln.split(" ", 1) for ln in r.stdout.splitlines())
    flags = ["sync_round_trip", "default_kind", "memset", "memcpy2d", "async_round_trip", "event_complete",
             "elapsed_nonnegative", "thread_no_context", "thread_context_same", "mem_free_le_total"]
    assert {k: values[k] for k in flags} == dict.fromkeys(flags, "1")
    assert values["callbacks"] == "2" and values["thread_malloc"] == "0" and values["failures"] == "0"
    assert values["worker_errors"] == "0"  # four threads at once
    assert values["device_count"] == "1" and values["run_mode"] == "1"  # ACL_HOST
    assert values["soc"] == "Ascend910B1" and values["ptr_location"] == "1"  # ACL_MEM_LOCATION_TYPE_DEVICE
    assert "ERROR SUMMARY: 0 errors" in r.stderr


# Documented codes (AscendCL API reference, hicann/runtime docs/zh/api_ref/) for the calls of tests/c/bad_args.c.
DOCUMENTED = {
    "malloc_before_set_device": Code.ERROR_RT_CONTEXT_NULL, "get_mem_info_before_set_device": Code.ERROR_RT_CONTEXT_NULL,
    "init": 0, "init_again": Code.ERROR_REPEAT_INITIALIZE, "set_device_out_of_range": Code.ERROR_RT_INVALID_DEVICEID,
    "set_device": 0, "malloc_null_out": Code.ERROR_INVALID_PARAM, "malloc_size_0": Code.ERROR_INVALID_PARAM,
    "malloc_too_big": Code.ERROR_RT_MEMORY_ALLOCATION, "malloc_host_size_0": Code.ERROR_INVALID_PARAM, "malloc": 0,
    "free_null": Code.ERROR_INVALID_PARAM, "free_host_null": Code.ERROR_INVALID_PARAM,
    "memcpy_count_over_dest_max": Code.ERROR_RT_PARAM_INVALID, "memcpy_count_0": 0,
    "memcpy_null_dst": Code.ERROR_INVALID_PARAM, "memcpy_kind_9": Code.ERROR_INVALID_PARAM,
    "memcpy_async_h2h": Code.ERROR_RT_FEATURE_NOT_SUPPORT, "memset_async_count_over_max": Code.ERROR_RT_PARAM_INVALID,
    "get_mem_info_null_free": Code.ERROR_INVALID_PARAM, "get_device_null": Code.ERROR_INVALID_PARAM,
    "create_stream_null": Code.ERROR_INVALID_PARAM, "create_stream": 0, "destroy_stream": 0,
    "create_event": 0, "destroy_event": 0, "elapsed_null_ms": Code.ERROR_INVALID_PARAM, "free": 0,
    "not_emulated": Code.ERROR_API_NOT_SUPPORT, "reset_device": 0, "finalize": 0,
    "finalize_again": Code.ERROR_REPEAT_FINALIZE,
}


def test_bad_arguments_return_the_documented_codes(build):
    r = aclsim("run", str(build(CSRC / "bad_args.c")))
    assert r.returncode == 0, r.stderr
    got = dict(ln.split(" ", 1) for ln in r.stdout.splitlines())
    assert {k: int(got[k]) for k in DOCUMENTED} == {k: int(v) for k, v in DOCUMENTED.items()}
    assert "aclrtSetGroup is not emulated" in got["not_emulated_message"]
    assert re.search(rf"\[ERROR\] APP\(\d+,bad_args\):\S+ \[bad_args.c:{line_of(CSRC / 'bad_args.c', 'APP_LOG')}\]logged 7",
                     r.stderr), r.stderr


def test_bad_arguments_return_what_the_pyacl_face_returns(build):
    """The C face adds no rules of its own: what both faces can express gives the same code."""
    r = aclsim("run", str(build(CSRC / "bad_args.c")))
    got = {k: int(v) for k, v in (ln.split(" ", 1) for ln in r.stdout.splitlines()) if v.lstrip("-").isdigit()}
    script = """
import acl, json
out = {}
out["malloc_before_set_device"] = acl.rt.malloc(64, 0)[1]
acl.init(); acl.rt.set_device(0)
out["malloc_size_0"] = acl.rt.malloc(0, 0)[1]
dev, _ = acl.rt.malloc(256, 0)
host = bytearray(256); hp = acl.util.bytes_to_ptr(bytes(host))
out["memcpy_count_over_dest_max"] = acl.rt.memcpy(dev, 10, hp, 11, 1)
out["memcpy_kind_9"] = acl.rt.memcpy(dev, 256, hp, 256, 9)
out["memset_async_count_over_max"] = acl.rt.memset_async(dev, 10, 0, 11, 0)
out["free_null"] = acl.rt.free(0)
out["free"] = acl.rt.free(dev)
out["double_free"] = acl.rt.free(dev)
print(json.dumps(out))
"""
    py = subprocess.run(
        [sys.executable, "-c", "from aclsim.cli.run import install_aliases; install_aliases()\n" + script],
        capture_output=True, text=True, timeout=120, check=False)
    assert py.returncode == 0, py.stderr
    expected = json.loads(py.stdout.splitlines()[-1])
    assert {k: got[k] for k in expected} == expected


def test_fuzzing_the_c_api_returns_codes_and_never_crashes(build):
    prog = build(CSRC / "fuzz.c")
    known = {int(c) for c in Code}
    total = 0
    for seed in range(1, 6):
        r = aclsim("run", str(prog), str(seed), "2000")
        assert r.returncode == 0, f"seed {seed}: {r.stderr[-2000:]}"
        assert "internal error" not in r.stderr
        counts = {int(c): int(n) for c, n in re.findall(r"^code (-?\d+) (\d+)$", r.stdout, re.M)}
        assert set(counts) <= known, set(counts) - known
        assert counts.get(0, 0) > 0 and sum(counts.values()) == int(re.search(r"calls (\d+)", r.stdout)[1])
        total += sum(counts.values())
    assert total >= 10_000


PITFALLS = ["leak", "double_free", "misaligned_async", "wrong_direction"]


def _findings(path: Path) -> tuple:
    d = json.loads(path.read_text())
    return sorted((f["tool"], f["class"], f.get("count", 1)) for f in d["errors"] + d["warnings"]), d["leaked_bytes"]


@pytest.mark.parametrize("fixed", [False, True], ids=["bug", "fixed"])
@pytest.mark.parametrize("name", PITFALLS)
def test_c_pitfalls_get_the_findings_of_their_python_twins(build, tmp_path, name, fixed):
    extra = ["--fixed"] if fixed else []
    c = aclsim("run", "--check", "all", "--json", str(tmp_path / "c.json"), "--error-exitcode", "9",
               str(build(EXAMPLES / "pitfalls" / f"{name}.c")), *extra)
    py = aclsim("run", "--check", "all", "--json", str(tmp_path / "py.json"), "--error-exitcode", "9",
                f"examples/pitfalls/{name}.py", *extra, cwd=ROOT)
    assert _findings(tmp_path / "c.json") == _findings(tmp_path / "py.json")
    assert c.returncode == py.returncode == (0 if fixed else 9)


@pytest.mark.parametrize(("name", "marker", "text"), [
    ("leak", "BUG", r"allocated at:\n=========         \S*{file}:{line} in main"),
    ("double_free", "BUG", r"second free at \S*{file}:{line} in main"),
])
def test_reports_name_the_c_line_and_the_c_functions(build, name, marker, text):
    src = EXAMPLES / "pitfalls" / f"{name}.c"
    r = aclsim("run", "--check", "all", str(build(src)))
    assert re.search(text.format(file=re.escape(src.name), line=line_of(src, marker)), r.stderr), r.stderr
    assert "aclrtFree" in r.stderr and "acl.rt." not in r.stderr


def test_reports_list_the_native_callers(build):
    src = CSRC / "leak_in_helper.c"
    r = aclsim("run", "--check", "leakcheck", str(build(src)))
    pattern = (rf"allocated at:\n=========\s+\S*leak_in_helper.c:{line_of(src, 'ALLOC')} in make_buffer\n"
               rf"=========\s+\S*leak_in_helper.c:{line_of(src, 'CALLER')} in main\n")
    assert re.search(pattern, r.stderr), r.stderr


def test_a_host_dereference_of_a_device_pointer_is_named_with_the_allocation(build):
    src = CSRC / "host_deref.c"
    prog = build(src)
    checked = aclsim("run", "--check", "all", "--error-exitcode", "5", str(prog))
    err = re.sub(r"\S*/(host_deref\.c)", r"\1", checked.stderr)
    assert checked.returncode == 5 and "about to read" in checked.stdout and "read " not in checked.stdout.split("\n", 1)[1]
    assert "Invalid host access to device memory" in err
    assert "the host read device memory at 0x20000000000c" in err
    assert f"at host_deref.c:{line_of(src, 'BUG')} in main" in err
    assert f"allocated at host_deref.c:{line_of(src, 'ALLOC')} in main" in err
    assert "ERROR SUMMARY: 1 error" in err
    plain = aclsim("run", str(prog))  # without --check: the report, then the fault ends the program
    assert plain.returncode == 128 + 11 and "Invalid host access to device memory" in plain.stderr
    assert "killed by SIGSEGV" in plain.stderr


def test_an_om_model_runs_from_cpp(build, tmp_path):
    """aclmdl* from C++: load an .om made by `aclsim atc`, describe it, execute it; the same numbers as onnxruntime."""
    pytest.importorskip("onnxruntime")
    import numpy as np

    from onnx_models import mlp, run_onnx, save

    model, _ = mlp(batch=2)
    save(model, tmp_path / "mlp.onnx")
    r = aclsim("atc", f"--model={tmp_path / 'mlp.onnx'}", "--framework=5", f"--output={tmp_path / 'mlp'}",
               "--soc_version=Ascend910B1")
    assert r.returncode == 0, r.stderr
    x = np.random.default_rng(3).standard_normal((2, 8)).astype(np.float32)
    x.tofile(tmp_path / "x.bin")
    r = aclsim("run", "--check", "all", str(build(CSRC / "model.cpp")), str(tmp_path / "mlp.om"), str(tmp_path / "x.bin"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(ln.split(" ", 1) for ln in r.stdout.splitlines())
    assert (out["inputs"], out["outputs"], out["input_name"], out["input_dims"]) == ("1", "1", "x", "2 8")
    assert out["input_type"] == "0" and out["output_name"] == "y"  # ACL_FLOAT
    assert (out["buffers"], out["same_buffer"], out["buffer_size"]) == ("1", "1", str(2 * 5 * 4))
    expected = run_onnx(model, {"x": x})[0].ravel()
    np.testing.assert_allclose([float(v) for v in out["output"].split()], expected, rtol=1e-5, atol=1e-5)
    assert "ERROR SUMMARY: 0 errors" in r.stderr


def test_single_operators_run_from_cpp(build, tmp_path):
    """aclopExecuteV2 and operator handles from C++ on models made by `aclsim atc --singleop`."""
    pytest.importorskip("onnxruntime")
    desc = {"format": "ND", "shape": [8, 16], "type": "int32"}
    (tmp_path / "ops.json").write_text(json.dumps([{"op": "Add", "input_desc": [desc, desc], "output_desc": [desc]}]))
    r = aclsim("atc", f"--singleop={tmp_path / 'ops.json'}", f"--output={tmp_path / 'ops'}", "--soc_version=Ascend910B1")
    assert r.returncode == 0, r.stderr
    r = aclsim("run", "--check", "all", str(build(CSRC / "op.cpp")), str(tmp_path / "ops"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(ln.split(" ", 1) for ln in r.stdout.splitlines())
    assert out["before_model_dir"] == str(int(Code.ERROR_OP_NOT_FOUND))
    assert (out["execute_v2_wrong"], out["handle_wrong"], out["shape"]) == ("0", "0", "2 16")


def test_blas_and_float16_conversions_from_cpp(build):
    """acl/ops/acl_cblas.h on the operator engine, and aclFloatToFloat16/aclFloat16ToFloat (which returned 0)."""
    r = aclsim("run", "--check", "all", str(build(CSRC / "blas.cpp")))
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(ln.split(" ", 1) for ln in r.stdout.splitlines())
    assert (out["half_of_2_5"], out["float_of_0x3c00"], out["round_trip_0_1"]) == ("0x4100", "1", "0.099976")
    assert out["overflow_is_inf"] == "1"
    assert (out["gemm_ex"], out["gemm_ex_max_error"]) == ("0", "0")
    assert out["nz_refused"] == str(int(Code.ERROR_INVALID_PARAM))
    assert out["handle_not_emulated"] == str(int(Code.ERROR_API_NOT_SUPPORT))
    assert "ERROR SUMMARY: 0 errors" in r.stderr


def test_dvpp_decode_and_resize_from_cpp_equal_the_pyacl_faces(build, tmp_path):
    pytest.importorskip("PIL")
    import numpy as np

    from aclsim import acl
    from test_acl_media import jpeg_bytes

    data = jpeg_bytes(200, 120)
    (tmp_path / "im.jpg").write_bytes(data)
    r = aclsim("run", "--check", "all", str(build(CSRC / "dvpp.cpp")), str(tmp_path / "im.jpg"), "96", "64",
               str(tmp_path / "out.yuv"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(ln.split(" ", 1) for ln in r.stdout.splitlines())
    assert out["info"] == "200 120 3" and out["decoded"] == "200 120 256 128" and out["resized"] == "96 64 96 64"
    # the same calls through the pyACL face
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    chan = acl.media.dvpp_create_channel_desc()
    acl.media.dvpp_create_channel(chan)
    size, _ = acl.media.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), 1)
    assert out["predicted"] == str(size)
    src, _ = acl.media.dvpp_malloc(len(data))
    acl.rt.memcpy(src, len(data), acl.util.bytes_to_ptr(data), len(data), 1)
    dec, _ = acl.media.dvpp_malloc(size)
    dd = acl.media.dvpp_create_pic_desc()
    for setter, v in ((acl.media.dvpp_set_pic_desc_data, dec), (acl.media.dvpp_set_pic_desc_size, size),
                      (acl.media.dvpp_set_pic_desc_format, 1)):
        assert setter(dd, v) == 0
    assert acl.media.dvpp_jpeg_decode_async(chan, src, len(data), dd, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    o_size = 96 * 64 * 3 // 2
    o, _ = acl.media.dvpp_malloc(o_size)
    od = acl.media.dvpp_create_pic_desc()
    for setter, v in ((acl.media.dvpp_set_pic_desc_data, o), (acl.media.dvpp_set_pic_desc_format, 1),
                      (acl.media.dvpp_set_pic_desc_width, 96), (acl.media.dvpp_set_pic_desc_height, 64),
                      (acl.media.dvpp_set_pic_desc_width_stride, 96), (acl.media.dvpp_set_pic_desc_height_stride, 64),
                      (acl.media.dvpp_set_pic_desc_size, o_size)):
        assert setter(od, v) == 0
    assert acl.media.dvpp_vpc_resize_async(chan, dd, od, acl.media.dvpp_create_resize_config(), stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    expected = bytes(o_size)
    acl.rt.memcpy(acl.util.bytes_to_ptr(expected), o_size, o, o_size, 2)
    assert np.array_equal(np.fromfile(tmp_path / "out.yuv", np.uint8), np.frombuffer(expected, np.uint8))


def test_in_rc_mode_host_code_shares_device_memory(build):
    """--run-mode rc: the program runs on the device's CPU (an Atlas 200 DK), so device pointers are its memory."""
    r = aclsim("run", "--run-mode", "rc", "--check", "all", str(build(CSRC / "host_deref.c")))
    assert r.returncode == 0 and "read 0.000000" in r.stdout, r.stderr
    assert "Invalid host access" not in r.stderr


def test_trace_and_summary_of_a_c_program(build, tmp_path):
    r = aclsim("run", "--trace", str(tmp_path / "t.json"), "--summary", str(build(EXAMPLES / "memflow.c")))
    assert r.returncode == 0, r.stderr
    events = json.loads((tmp_path / "t.json").read_text())
    names = {e.get("name") for e in (events["traceEvents"] if isinstance(events, dict) else events)}
    assert "aclrtMalloc" in names and not any(str(n).startswith("acl.rt.") for n in names)
    assert "H2D" in r.stderr and "D2H" in r.stderr


def test_cc_help_teaches_and_other_options_go_to_the_compiler(tmp_path):
    r = aclsim("cc", "--help")
    assert r.returncode == 0 and "rpath" in r.stdout and "aclsim cc memflow.c -o memflow" in r.stdout
    obj = tmp_path / "memflow.o"
    assert aclsim("cc", "-c", "-DUNUSED=1", str(EXAMPLES / "memflow.c"), "-o", str(obj)).returncode == 0
    assert obj.exists()


def test_cc_prints_compiler_errors_as_the_compiler_does(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text('#include "acl/acl.h"\nint main(void) { aclrtMalloc(1); return 0 }\n')
    r = aclsim("cc", str(bad), "-o", str(tmp_path / "bad"))
    assert r.returncode != 0 and "bad.c:2" in r.stderr and "error" in r.stderr


def test_run_options_are_checked_for_native_programs(build):
    prog = str(build(EXAMPLES / "memflow.c"))
    assert aclsim("run", "--check", "nonsense", prog).returncode == 2
    assert aclsim("run", "--soc", "NoSuchChip", prog).returncode == 2
    r = aclsim("run", "--soc", "Ascend310P3", str(build(CSRC / "runtime_calls.cpp")))
    assert "soc Ascend310P3" in r.stdout


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_a_samples_style_cmake_project_builds_against_aclsim_home(tmp_path):
    """Ascend/samples' CMakeLists find headers under $DDK_PATH/runtime/include and link -lascendcl from
    $NPU_HOST_LIB; `aclsim home` is such a directory."""
    home = aclsim("home").stdout.strip()
    assert (Path(home) / "include" / "acl" / "acl.h").exists() and (Path(home) / "lib64" / "libascendcl.so").exists()
    (tmp_path / "src").mkdir()
    shutil.copy(EXAMPLES / "memflow.c", tmp_path / "src" / "main.cpp")
    (tmp_path / "src" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.5.1)\nproject(sample)\nadd_compile_options(-std=c++11)\n"
        "include_directories($ENV{DDK_PATH}/runtime/include/)\nlink_directories($ENV{NPU_HOST_LIB})\n"
        "add_executable(main main.cpp)\ntarget_link_libraries(main ascendcl stdc++)\n")
    env = dict(os.environ, DDK_PATH=home, NPU_HOST_LIB=f"{home}/runtime/lib64/stub")
    (tmp_path / "build").mkdir()
    for cmd in (["cmake", "../src", "-DCMAKE_CXX_COMPILER=g++"], ["make"]):
        r = subprocess.run(cmd, cwd=tmp_path / "build", env=env, capture_output=True, text=True, check=False,
                           timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
    run = aclsim("run", str(tmp_path / "build" / "main"))
    assert run.returncode == 0 and "round trip equal" in run.stdout, run.stderr
    # a project of one's own: find_package(ascendcl) and its imported target
    (tmp_path / "pkg").mkdir()
    shutil.copy(EXAMPLES / "memflow.c", tmp_path / "pkg" / "memflow.c")
    (tmp_path / "pkg" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.5.1)\nproject(mine C)\nfind_package(ascendcl REQUIRED)\n"
        "add_executable(memflow memflow.c)\ntarget_link_libraries(memflow ascendcl::ascendcl)\n")
    for cmd in (["cmake", "-S", ".", "-B", "out", f"-DCMAKE_PREFIX_PATH={home}"], ["cmake", "--build", "out"]):
        r = subprocess.run(cmd, cwd=tmp_path / "pkg", capture_output=True, text=True, check=False, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
    run = subprocess.run([str(tmp_path / "pkg" / "out" / "memflow")], capture_output=True, text=True, timeout=60,
                         check=False)  # CMake's build rpath reaches libascendcl
    assert run.returncode == 0 and "round trip equal" in run.stdout, run.stderr
