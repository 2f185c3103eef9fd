"""The command line: `aclsim run` runs pyACL programs unmodified; `aclsim explain` teaches codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _aclsim(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, timeout=120, **kw)


def test_run_official_style_memory_sample():
    r = _aclsim("run", str(ROOT / "examples" / "pyacl_memory.py"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all return codes 0, every byte right" in r.stdout
    assert "FAILED" not in r.stdout


def test_run_passes_arguments_and_exit_status(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import sys, acl\n"
        "assert acl.rt.malloc(64, 0)[1] == 107002\n"
        "print('args', sys.argv[1:], acl.get_soc_name())\n"
        "sys.exit(int(sys.argv[1]))\n"
    )
    r = _aclsim("run", "--soc", "Ascend310P3", str(prog), "3", "--flag")
    assert r.returncode == 3
    assert "args ['3', '--flag'] Ascend310P3" in r.stdout


def test_run_reports_script_exceptions(tmp_path):
    prog = tmp_path / "boom.py"
    prog.write_text("raise ValueError('boom')\n")
    r = _aclsim("run", str(prog))
    assert r.returncode == 1 and "ValueError: boom" in r.stderr


def test_run_missing_script():
    r = _aclsim("run", "does_not_exist.py")
    assert r.returncode == 2 and "no such file" in r.stderr


def test_explain_codes():
    r = _aclsim("explain", "107002", "ACL_ERROR_RT_MEMORY_ALLOCATION")
    assert r.returncode == 0
    assert "ACL_ERROR_RT_CONTEXT_NULL" in r.stdout and "set_device" in r.stdout
    assert "207001" in r.stdout
    assert _aclsim("explain", "12345").returncode == 1


def test_help_lists_commands():
    r = _aclsim("--help")
    assert r.returncode == 0 and "run" in r.stdout and "explain" in r.stdout
    r = _aclsim("run", "--help")
    assert "ACLSIM_SOC" in r.stdout and "--check" in r.stdout


def test_bad_environment_is_refused_before_the_program_runs(tmp_path):
    import os

    prog = tmp_path / "p.py"
    prog.write_text("print('ran')\n")
    for var, value, words in [("ACLSIM_SOC", "bogus", "unknown SoC"), ("ACLSIM_SCHEDULE", "soon", "lazy' or 'eager"),
                              ("ACLSIM_DEVICES", "0", "between 1 and 64")]:
        r = _aclsim("run", str(prog), env={**os.environ, var: value})
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr
        assert "ran" not in r.stdout


def test_run_without_a_program_says_what_to_do():
    r = _aclsim("run")
    assert r.returncode == 2 and "aclsim run prog.py" in r.stderr


def test_user_traceback_starts_in_the_user_program(tmp_path):
    prog = tmp_path / "boom.py"
    prog.write_text("def f():\n    raise KeyError('k')\nf()\n")
    r = _aclsim("run", str(prog))
    frames = [line for line in r.stderr.splitlines() if line.strip().startswith("File ")]
    assert frames and all(str(prog) in f for f in frames)



def test_run_puts_atc_on_path_and_leaves_nothing_behind_when_the_program_exits_abruptly(tmp_path):
    """Programs that convert their models call `atc`; a run that ends by os._exit (or SIGKILL) has no
    chance to clean up, so the command must not live in a temporary folder."""
    import os

    prog = tmp_path / "prog.py"
    prog.write_text("import os, shutil\nprint(shutil.which('atc'))\nos._exit(0)\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "ACLSIM_CACHE_DIR": str(tmp_path / "cache")}
    r = _aclsim("run", str(prog), env=env)
    assert r.returncode == 0, r.stderr
    atc = Path(r.stdout.strip())
    assert atc.parent.parent == tmp_path / "cache" and atc.name == "atc"
    assert "aclsim atc" in atc.read_text()
    assert list(tmp.iterdir()) == []


FAULTING_PROGRAM = '''
import numpy as np
import acl
from aclsim import simt

@simt.kernel
def scatter(x: simt.Ptr[np.float32], n: np.uint32):
    i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    x[i + 10000000] = 1.0

acl.init(); acl.rt.set_device(0); ctx, _ = acl.rt.create_context(0); s, _ = acl.rt.create_stream()
p, _ = acl.rt.malloc(1024, 0)
scatter[1, 32, s](p, 10)
acl.rt.synchronize_stream(s)  # the program ignores the 507015 it returns
scatter[1, 32, s](p, 10)
acl.rt.synchronize_stream(s)
print("finished")
'''


def test_run_names_a_kernel_fault_the_program_ignored(tmp_path):
    script = tmp_path / "ignores.py"
    script.write_text(FAULTING_PROGRAM)
    r = _aclsim("run", str(script))
    assert r.returncode == 0 and r.stdout.strip() == "finished"  # the program's own output and status untouched
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("aclsim: device work failed")]
    assert len(lines) == 1, r.stderr
    assert "(and 1 more)" in lines[0] and "kernel 'scatter'" in lines[0] and "ignores.py:9" in lines[0]
    assert "507015 ACL_ERROR_RT_AICORE_EXCEPTION" in lines[0]


def test_run_of_a_correct_program_prints_no_fault_line(tmp_path):
    script = tmp_path / "ok.py"
    script.write_text(FAULTING_PROGRAM.replace("i + 10000000", "i % 8"))
    r = _aclsim("run", str(script))
    assert r.returncode == 0 and "device work failed" not in r.stderr
