"""What a newcomer meets in the first hour: the README's set-up, the docs' snippets, `import aclsim` giving every
submodule, `aclsim demo --bug` teaching, and the command line's hints."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_aclsim_reaches_check_and_trace_without_importing_them(tmp_path):
    r = _python(
        "import sys, aclsim\n"
        "assert 'aclsim.check' not in sys.modules and 'aclsim.trace' not in sys.modules  # import stays light\n"
        f"with aclsim.trace.start_session({str(tmp_path / 't.json')!r}):\n"
        "    session = aclsim.check.enable('leakcheck')\n"
        "    with aclsim.Device(0):\n"
        "        x = aclsim.zeros(4)\n"
        "print(aclsim.constants.ACL_MEMCPY_HOST_TO_DEVICE, aclsim.simt.kernel.__name__, aclsim.acl.rt.__name__)\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[:2] == ["1", "kernel"]
    assert (tmp_path / "t.json").exists()
    assert "ERROR SUMMARY" in r.stderr  # the sanitizer enabled through the lazy attribute reports at exit
    r = _python("import aclsim; aclsim.nothing")
    assert "module 'aclsim' has no attribute 'nothing'" in r.stderr


def _demo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", "demo", *args], capture_output=True, text=True, timeout=300)


def test_demo_no_bounds_check_teaches_the_bug_it_runs():
    r = _demo("--size", "4096", "--bug", "no-bounds-check")  # 16 full blocks: only the extra block faults
    assert r.returncode == 1
    out = r.stdout
    shown = out[out.index("The kernel this run launches"):out.index("Step 1")]
    assert "if tid < size:\n" not in shown and "if (tid < size)" not in shown  # the guarded kernel is not shown
    assert ">>  4      output[tid] = input[tid] * input[tid]  # BUG" in shown
    assert "grid 17 x 1 x 1 blocks" in out
    assert "at square_kernel_unguarded.py:4:" in out  # the fault names the kernel's line as listed
    assert "cli/demo" not in out and "demo_bugs" not in out
    before_result = out[:out.index("Result: FAIL")]
    assert "equal input * input" not in before_result  # the output of a faulted launch is not "all equal"
    assert "not meaningful: the kernel faulted (synchronize returned 507015)" in before_result
    lesson = " ".join(out[out.index("Result: FAIL"):].split())  # the lesson's paragraphs are wrapped
    for heading in ("What went wrong", "What the sanitizer says", "The fix"):
        assert heading in lesson
    assert "threads 4,096 and above load input[tid] and store output[tid] past the end" in lesson
    assert "Device fault: kernel square_kernel stopped with an exception" in lesson
    assert "if tid < size:" in lesson and "(size + 255) // 256" in lesson


def test_demo_off_by_one_teaches_the_bug_it_runs():
    r = _demo("--size", "1000", "--bug", "off-by-one")
    assert r.returncode == 1
    out = r.stdout
    assert "square_kernel[4, 256, stream](dev_in, dev_out, 999)" in out
    assert ">> BUG: the size argument is size - 1" in out
    lesson = " ".join(out[out.index("Result: FAIL"):].split())
    assert "thread 999 failed `if tid < size` and never wrote output[999]" in lesson
    assert "1 of 1,000 elements came back wrong, first output[999]" in lesson
    assert "Uninitialized read: acl.rt.memcpy copies 4 bytes of device memory that nothing wrote" in lesson
    assert "square_kernel[grid, 256, stream](dev_in, dev_out, size)" in lesson


def test_demo_without_a_bug_has_no_lesson():
    out = _demo("--size", "300").stdout
    assert "Result: PASS" in out and "What went wrong" not in out and "if tid < size:" in out


def test_trace_plot_says_which_times_the_trace_spans(tmp_path):
    pytest.importorskip("matplotlib")
    trace = tmp_path / "t.json"
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", "--trace", str(trace),
                        str(ROOT / "examples" / "seed_square.py")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "aclsim", "trace-plot", str(trace), "-o", str(tmp_path / "t.png")],
                       capture_output=True, text=True, timeout=300)
    m = re.search(r"wrote .*t\.png \(([\d.]+) ms to ([\d.]+) ms since the trace started\)", r.stdout)
    assert m and float(m[1]) < float(m[2]), r.stdout + r.stderr
    events = [e for e in json.loads(trace.read_text())["traceEvents"] if e.get("ph") == "X"]
    assert float(m[1]) == pytest.approx(min(e["ts"] for e in events) / 1e3, abs=1e-3)
    assert float(m[2]) == pytest.approx(max(e["ts"] + e.get("dur", 0) for e in events) / 1e3, abs=1e-3)


def _aclsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, timeout=120)


def test_a_typoed_command_gets_did_you_mean():
    r = _aclsim("exlpain", "107002")
    assert r.returncode == 2
    assert "unknown command 'exlpain'; did you mean 'explain'?" in r.stderr
    assert "did you mean 'trace-plot'?" in _aclsim("trace_plot", "t.json").stderr
    r = _aclsim("zzz")
    assert "unknown command 'zzz' (commands: demo, run, explain, info, trace-plot, atc, cc, home)" in r.stderr
    assert "did you mean" not in r.stderr


def test_explain_names_the_dead_report_thread_case_and_points_unknown_codes_to_all():
    out = " ".join(_aclsim("explain", "507046").stdout.split())
    assert "report thread has exited" in out and "process_report" in out
    r = _aclsim("explain", "123456", "NOT_A_CODE")
    assert r.returncode == 1
    assert r.stdout.count("`aclsim explain --all` lists every code it knows") == 2


def _setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Set up on a new machine"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```bash\n(.*?)\n```", section, re.S)


def test_readme_setup_activates_the_venv_and_ci_runs_its_test_command():
    demo, tests = _setup_commands()  # exactly two set-up commands
    activate = "python3 -m venv .venv && . .venv/bin/activate && "
    assert demo.startswith(activate) and demo.endswith("&& aclsim demo")
    assert tests.startswith(activate) and tests.endswith("&& python -m pytest -q")
    readme = (ROOT / "README.md").read_text()
    assert "In a new shell, activate it again first: `. .venv/bin/activate`" in readme
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert tests in ci  # verbatim


def test_the_activation_makes_later_commands_work_in_a_plain_shell(tmp_path):
    """What the set-up's `. .venv/bin/activate` gives a new shell: aclsim, python and pytest of the venv."""
    venv = Path(sys.prefix)
    if not (venv / "bin" / "activate").exists():
        pytest.skip("tests do not run inside a virtual environment")
    script = f". {venv}/bin/activate && aclsim explain 107002 && python -c 'import aclsim' && pytest --version"
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert "ACL_ERROR_RT_CONTEXT_NULL" in r.stdout


def test_docs_name_constants_instead_of_numbers():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    readme = "\n".join(p.read_text() for p in pages)
    code = "\n".join(re.findall(r"```python\n(.*?)```", readme, re.S))
    assert "= 0, 1, 2" not in code and "# 1 = blocking" not in code
    import aclsim.constants as C

    for name in re.findall(r"from aclsim\.constants import ([\w, ]+)", code):
        for n in name.split(","):
            assert hasattr(C, n.strip()), n
    for documented in ("ACL_MEM_MALLOC_HUGE_FIRST", "ACL_MEMCPY_DEVICE_TO_HOST", "ACL_HBM_MEM", "NPY_FLOAT32",
                       "aclsim.constants", "will be deprecated", "os._exit"):
        assert documented in readme
