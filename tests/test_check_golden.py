"""The sanitizer's reports on every pitfall example, word for word.

Users read these reports (and CI logs grep them), so a change to their text must be deliberate:
the expected reports live in tests/golden/pitfalls/. After an intended change, regenerate them with
`ACLSIM_UPDATE_GOLDEN=1 python -m pytest tests/test_check_golden.py` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aclsim.cli import main
from aclsim.runtime import reset_runtime

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "pitfalls"
CASES = [(p.stem, fixed) for p in sorted((ROOT / "examples" / "pitfalls").glob("*.py")) for fixed in (False, True)]


@pytest.mark.parametrize(("name", "fixed"), CASES, ids=[f"{n}{'--fixed' if f else ''}" for n, f in CASES])
def test_pitfall_report_text_is_unchanged(name, fixed, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)  # reports name the script by the path it was given
    monkeypatch.setenv("ACLSIM_SCHEDULE", "lazy")
    reset_runtime()
    main(["run", "--check", "all", f"examples/pitfalls/{name}.py", *(["--fixed"] if fixed else [])])
    report = capsys.readouterr().err
    golden = GOLDEN / f"{name}{'--fixed' if fixed else ''}.txt"
    if os.environ.get("ACLSIM_UPDATE_GOLDEN"):
        golden.write_text(report)
    assert report == golden.read_text()
