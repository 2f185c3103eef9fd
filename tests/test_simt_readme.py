"""The complete programs in the README's SIMT section run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _simt_programs() -> list[str]:
    text = README.read_text()
    section = text[text.index("## SIMT kernels in Python") :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return [b for b in blocks if "import numpy as np" in b]  # whole programs, not fragments


@pytest.mark.parametrize("program", _simt_programs())
def test_readme_program_runs(program, tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(program)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_section_has_the_array_and_cuda_examples():
    assert len(_simt_programs()) >= 2
