"""Every example in examples/pitfalls/ under `aclsim run --check all`: the buggy version is caught
with the right class, at the line marked `# BUG`, identically in both scheduling modes; the
`--fixed` version reports nothing. Warnings (multi-core corruption) are listed apart from errors
and, as with msSanitizer's WARNING level, do not set the error exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aclsim.cli import main
from aclsim.runtime import reset_runtime

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PITFALLS = EXAMPLES / "pitfalls"
EXPECTED = {
    "wrong_direction.py": {"wrong-memcpy-kind"},
    "misaligned_async.py": {"misaligned-copy"},
    "leak.py": {"leak"},
    "read_before_sync.py": {"race-host-device"},
    "pinned_read_before_sync.py": {"race-host-device"},
    "thread_index.py": {"oob-read", "oob-write"},
    "uninitialized.py": {"uninitialized-kernel-read"},
    "use_after_free.py": {"use-after-free-queued"},
    "double_free.py": {"double-free"},
    "cross_stream_race.py": {"race-stream-stream"},
    "multicore_overlap.py": {"multi-core-corruption"},
    "missing_flag.py": {"pipe-raw-hazard", "pipe-war-hazard"},
}
WARNING_CLASSES = {"multi-core-corruption"}  # msSanitizer's WARNING level


def bug_line(script: Path) -> int:
    (line,) = [i for i, text in enumerate(script.read_text().splitlines(), 1) if "# BUG" in text]
    return line


def check_run(script: Path, tmp_path: Path, monkeypatch, mode: str, *args: str) -> tuple[int, dict]:
    """Run `aclsim run --check all --error-exitcode 3 --json F script args` in this process."""
    monkeypatch.setenv("ACLSIM_SCHEDULE", mode)
    reset_runtime()
    out = tmp_path / f"{script.stem}-{mode}{''.join(args)}.json"
    code = main(["run", "--check", "all", "--error-exitcode", "3", "--json", str(out), str(script), *args])
    return code, json.loads(out.read_text())


def test_every_pitfall_has_an_example():
    assert {p.name for p in PITFALLS.glob("*.py")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_pitfall_is_caught_at_its_line_in_both_modes(name, tmp_path, monkeypatch, capsys):
    script = PITFALLS / name
    line = bug_line(script)
    docs = {}
    for mode in ("lazy", "eager"):
        code, doc = check_run(script, tmp_path, monkeypatch, mode)
        assert code == (3 if EXPECTED[name] - WARNING_CLASSES else 0)  # warnings alone keep exit status 0
        docs[mode] = doc
    assert docs["lazy"] == docs["eager"]
    errors, warnings = docs["lazy"]["errors"], docs["lazy"]["warnings"]
    assert {e["class"] for e in errors} == EXPECTED[name] - WARNING_CLASSES
    assert {e["class"] for e in warnings} == EXPECTED[name] & WARNING_CLASSES
    for e in errors + warnings:
        text = json.dumps(e)
        assert f"{name}:{line}" in text or any(
            s["file"].endswith(name) and s["line"] == line for s in e["sites"].values()
        ), text
        assert e["fix"]
    stderr = capsys.readouterr().err
    assert f"ERROR SUMMARY: {len(errors)} error" in stderr
    assert (f"WARNING SUMMARY: {len(warnings)} warning" in stderr) == bool(warnings)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixed_pitfall_is_clean(name, tmp_path, monkeypatch, capsys):
    for mode in ("lazy", "eager"):
        code, doc = check_run(PITFALLS / name, tmp_path, monkeypatch, mode, "--fixed")
        assert (code, doc["errors"], doc["warnings"]) == (0, [], [])
    assert "ERROR SUMMARY: 0 errors" in capsys.readouterr().err


@pytest.mark.parametrize("script", sorted([*EXAMPLES.glob("*.py"), *EXAMPLES.glob("asc/*.py")]), ids=lambda p: p.name)
def test_correct_examples_have_no_findings(script, tmp_path, monkeypatch):
    for mode in ("lazy", "eager"):
        code, doc = check_run(script, tmp_path, monkeypatch, mode)
        assert (code, doc["errors"], doc["warnings"]) == (0, [], [])


def test_check_from_the_environment_and_tool_subsets(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ACLSIM_CHECK", "racecheck")
    reset_runtime()
    assert main(["run", str(PITFALLS / "leak.py")]) == 0  # leakcheck is not selected: nothing to report
    err = capsys.readouterr().err
    assert "ACLSIM CHECK (racecheck)" in err and "ERROR SUMMARY: 0 errors" in err and "LEAK SUMMARY" not in err
    reset_runtime()
    assert main(["run", str(PITFALLS / "wrong_direction.py")]) == 0  # the kind check is always on
    assert "Wrong copy direction" in capsys.readouterr().err


def test_unknown_tool_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "--check", "memcheck,leaks", str(PITFALLS / "leak.py")])
    assert e.value.code == 2
    assert "unknown sanitizer tool 'leaks'" in capsys.readouterr().err


def test_synccheck_is_msSanitizers_name_for_the_pipe_hazards_of_racecheck():
    from aclsim.check import parse_tools

    assert parse_tools("synccheck") == ["racecheck"]
    assert parse_tools("memcheck,SyncCheck") == ["memcheck", "racecheck"]
