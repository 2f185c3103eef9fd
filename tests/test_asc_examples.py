"""The Ascend C examples run unmodified under `aclsim run` (`import asc` -> aclsim.asc) and standalone,
and each checks its result against numpy (exit status 1 on mismatch)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = ["add_custom.py", "add_custom_pyacl.py", "softmax_rows.py", "pad_tail.py", "matmul_bias_relu.py"]
EXAMPLES += ["adv_gelu_softmax.py", "topk_rows.py", "matmul_softmax_mix.py", "nchw_to_5hd.py"]
EXAMPLES += ["conv2d_img2col.py"]


def run(*argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACLSIM_")}
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_under_aclsim_run(name):
    p = run(sys.executable, "-m", "aclsim", "run", f"examples/asc/{name}")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "matches numpy" in p.stdout
    assert "Warning" not in p.stderr


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_standalone(name):
    p = run(sys.executable, f"examples/asc/{name}")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "matches numpy" in p.stdout


def test_import_asc_resolves_to_aclsim_under_run(tmp_path):
    script = tmp_path / "which.py"
    script.write_text("import asc, asc.lib.runtime as rt, asc.runtime.config as config\n"
                      "config.set_platform(config.Backend.Model)\n"
                      "print(asc.__name__, asc.TPipe.__module__, type(rt.current_stream()).__name__)\n")
    p = run(sys.executable, "-m", "aclsim", "run", str(script))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["aclsim.asc", "aclsim.asc.memory.tpipe", "Stream"]


def test_asc2_kernels_fail_at_the_import_saying_asc2_is_not_emulated(tmp_path):
    script = tmp_path / "tile.py"
    script.write_text("try:\n    import asc2\nexcept ImportError as e:\n    print('caught', type(e).__name__)\n"
                      "import asc2\n")
    p = run(sys.executable, "-m", "aclsim", "run", str(script))
    assert p.returncode != 0
    assert p.stdout.split() == ["caught", "ModuleNotFoundError"]  # programs that probe for it still can
    assert "tile.py\", line 5" in p.stderr and "asc2, pyasc's tile-level kernel language, is not emulated" in p.stderr
