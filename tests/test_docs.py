"""The README and the docs site say what aclsim really does.

- The site builds with `mkdocs build --strict` (no broken link or anchor, every page in the nav).
- Every `console` block is a transcript of programs in examples/: its commands are run and their output
  must match what the block shows (`...` lines skip lines, `…` skips text within a line, times may differ).
- Every `python` block that starts with an import is a complete program and runs; a block after
  `<!-- file: PATH -->` is a verbatim part of that file.
- The generated pages (pyasc coverage, the examples list) are current.
- The README is a short guide whose links resolve; install lines work from a checkout; no page carries
  figures of one run; `aclsim run --help` lists every environment variable aclsim reads.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
TAG = re.compile(r"<!--\s*file:\s*(\S+)\s*-->\s*$")


def _blocks(lang: str) -> list[tuple[str, int, str, str | None]]:
    """(page, index, body, file tag) of every top-level fenced block of `lang` in the README and docs."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for i, m in enumerate(m for m in FENCE.finditer(text) if m[1] == lang):
            before = text[:m.start()].rstrip().splitlines()
            tag = TAG.search(before[-1]) if before else None
            found.append((page.relative_to(ROOT).as_posix(), i, m[2], tag[1] if tag else None))
    return found


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACLSIM_")}
    return env | {"PY": sys.executable, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="the test extra installs mkdocs; CI builds the site")
    pytest.importorskip("material", reason="the test extra installs mkdocs-material")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                        "-d", str(tmp_path / "site")], capture_output=True, text=True, timeout=300,
                       env=_env() | {"NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "site" / "index.html").exists()
    for page in ("pyacl", "simt", "asc", "checking", "c", "coverage/pyasc", "architecture"):
        assert (tmp_path / "site" / page / "index.html").exists(), page


# --- console blocks: transcripts of real runs ---------------------------------------------------------

_TIME = re.compile(r"\d[\d,]*(\.\d+)?\s*(ms|us|µs|s|GB/s|MB/s)\b")


def _norm(line: str) -> str:
    return " ".join(_TIME.sub("<time>", line).split())


def _same(shown: str, real: str) -> bool:
    shown, real = _norm(shown), _norm(real)
    if "…" not in shown:
        return shown == real
    return re.fullmatch(".*".join(re.escape(part) for part in shown.split("…")), real) is not None


def _transcript_matches(shown: list[str], real: list[str]) -> bool:
    """`shown` is `real` with runs of lines replaced by `...` lines."""
    segments: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == "...":
            segments.append([])
        else:
            segments[-1].append(line)
    pos = 0
    for k, seg in enumerate(segments):
        if not seg:
            continue
        last = k == len(segments) - 1
        starts = [pos] if k == 0 else range(pos, len(real) - len(seg) + 1)
        for start in starts:
            window = real[start:start + len(seg)]
            if len(window) == len(seg) and all(map(_same, seg, window)) and \
                    (not last or start + len(seg) == len(real)):
                pos = start + len(seg)
                break
        else:
            return False
    return True


def _run_transcript(block: str, cwd: Path) -> list[str]:
    """Run the block's `$ ` commands in bash as a user would, each echoed as its prompt line."""
    script = ['aclsim() { "$PY" -m aclsim "$@"; }', 'python() { "$PY" "$@"; }', "__rc=0"]
    for line in block.splitlines():
        if line.startswith("$ "):
            command = line[2:]
            script += [f"echo {shlex.quote(line)}", "(exit $__rc)", f"{command} 2>&1", "__rc=$?"]
    r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=_env(), capture_output=True, text=True,
                       timeout=600)
    return [line.rstrip() for line in r.stdout.rstrip("\n").splitlines()]


def _needs(block: str) -> list[str]:
    """Optional packages a transcript's programs need (its `$ ` lines name them)."""
    needs = {"examples/models/": ["onnx", "onnxruntime", "PIL"], "trace-plot": ["matplotlib"]}
    return [m for key, mods in needs.items() if key in block for m in mods]


CONSOLE = _blocks("console")


@pytest.mark.parametrize(("page", "index", "block"), [b[:3] for b in CONSOLE],
                         ids=[f"{b[0]}#{b[1]}" for b in CONSOLE])
def test_console_block_is_a_real_transcript(page, index, block, tmp_path):
    for module in _needs(block):
        pytest.importorskip(module)
    shown = [line.rstrip() for line in block.rstrip("\n").splitlines()]
    assert shown and shown[0].startswith("$ "), f"{page}: a console block starts with its command"
    for line in shown:
        if line.startswith("$ "):
            for program in re.findall(r"\S+\.py\b", line):
                assert program.startswith("examples/"), f"{page}: show programs of examples/, not {program}"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    real = _run_transcript(block, tmp_path)
    assert _transcript_matches(shown, real), (
        f"{page}, console block {index}: the output shown is not what the commands print now.\n"
        "--- shown\n" + "\n".join(shown) + "\n--- real\n" + "\n".join(real))


def test_the_transcript_matcher_skips_only_what_it_is_told_to():
    real = ["$ x", "a 1.5 ms", "b", "c", "d"]
    assert _transcript_matches(["$ x", "a 9 ms", "...", "d"], real)
    assert _transcript_matches(["$ x", "…", "...", "c", "d"], real)
    assert not _transcript_matches(["$ x", "a 9 ms", "...", "c"], real)  # the end is anchored
    assert not _transcript_matches(["$ x", "b", "...", "d"], real)  # so is the start
    assert not _transcript_matches(["$ x", "a 9 ms", "c", "d"], real)  # lines are not skipped silently
    assert not _transcript_matches(["$ x", "a 9 kB", "...", "d"], real)  # only times may differ


# --- python blocks: complete programs run; tagged blocks are the example's text ------------------------

PYTHON = _blocks("python")
PROGRAMS = [b for b in PYTHON if re.match(r"(import|from) \w", b[2])]


@pytest.mark.parametrize(("page", "index", "program"), [b[:3] for b in PROGRAMS],
                         ids=[f"{b[0]}#{b[1]}" for b in PROGRAMS])
def test_program_in_the_docs_runs(page, index, program, tmp_path):
    for module in ("torch",):
        if re.search(rf"^import {module}\b", program, re.M) and importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}")
    path = tmp_path / "prog.py"
    path.write_text(program)
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", str(path)], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path, env=_env())
    assert r.returncode == 0, f"{page}, python block {index}:\n{r.stdout}{r.stderr}"


def test_the_guides_show_whole_programs():
    pages = {page for page, *_ in PROGRAMS}
    for page in ("docs/simt.md", "docs/asc.md", "docs/pythonic.md", "README.md"):
        assert page in pages, page
    assert sum(page == "docs/simt.md" for page, *_ in PROGRAMS) >= 3  # arrays, shared memory, numba.cuda


@pytest.mark.parametrize(("page", "index", "block", "path"), [b for b in _blocks("python") if b[3]],
                         ids=[f"{b[0]}#{b[1]}" for b in PYTHON if b[3]])
def test_tagged_block_is_the_examples_text(page, index, block, path):
    assert block in (ROOT / path).read_text(encoding="utf-8"), f"{page}: block {index} is not {path}'s text"


def test_every_example_runs_in_the_suite():
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("*.py"))
    shown = "\n".join(block for *_, block, _ in CONSOLE)
    for path in sorted((ROOT / "examples").rglob("*.py")):
        name = path.relative_to(ROOT / "examples").as_posix()
        if path.parent.name == "pitfalls":
            continue  # tests/test_check_pitfalls.py runs every one
        assert path.name in tests or f"examples/{name}" in shown, f"no test runs examples/{name}"


# --- generated pages ------------------------------------------------------------------------------------


def _generator():
    spec = importlib.util.spec_from_file_location("gen_pages", DOCS / "gen_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_pages_are_current():
    for path, text in _generator().pages().items():
        assert path.read_text(encoding="utf-8") == text, \
            f"{path.relative_to(ROOT)} is stale: run `python docs/gen_pages.py` and commit it"


def test_examples_page_lists_every_example():
    page = (DOCS / "examples.md").read_text(encoding="utf-8")
    for path in (ROOT / "examples").rglob("*.py"):
        assert f"`{path.relative_to(ROOT).as_posix()}`" in page


# --- the README and the pages' rules --------------------------------------------------------------------


def test_readme_is_a_short_guide_whose_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 400
    for heading in ("## Set up on a new machine", "## A 5-minute tour", "## Finding bugs", "## Documentation"):
        assert heading in text
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not re.match(r"\w+://", link)]
    assert "docs/checking.md" in local and "docs/timeline.png" in local
    for link in local:
        assert (ROOT / link).exists(), f"README links to {link}, which does not exist"


def test_install_lines_work_from_a_checkout():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras["docs"]) <= set(extras["test"])  # the test command builds the site
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"pip install\s+['\"]?aclsim", text), f"{page.name}: aclsim is not on a package index"
        for spec in re.findall(r"pip install (?:-q )?-e '\.\[([\w,]+)\]'", text):
            for extra in spec.split(","):
                assert extra in extras, f"{page.name}: no extra {extra!r} in pyproject.toml"


def test_pages_carry_no_run_notes():
    notes = re.compile(r"earlier run|busier run|noisy run|same run:|\bVM\b|other jobs|this machine|one run each|"
                       r"lightly loaded|issue[- ]\d+ target", re.I)
    for page in PAGES:
        if page.name == "architecture.md":
            continue
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        found = notes.search(text)
        assert not found, f"{page.relative_to(ROOT)}: run note {found[0]!r}: benchmarks print their own figures"


def _environment_variables_read() -> set[str]:
    """Names of the environment variables src/ reads: ACLSIM_* string constants and os.environ/getenv keys."""
    names = set()
    for path in (ROOT / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    re.fullmatch(r"ACLSIM_[A-Z0-9_]+", node.value):
                names.add(node.value)
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and \
                    isinstance(node.args[0].value, str) and ast.unparse(node.func) in (
                        "os.environ.get", "os.getenv", "environ.get", "getenv"):
                names.add(node.args[0].value)
            if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("os.environ", "environ") and \
                    isinstance(node.slice, ast.Constant):
                names.add(node.slice.value)
    return names


def test_run_help_lists_every_environment_variable():
    names = _environment_variables_read()
    assert {"ACLSIM_SOC", "ACLSIM_SIMT_JIT", "ACLSIM_MODEL_", "ASCEND_GLOBAL_LOG_LEVEL"} <= names
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", "--help"], capture_output=True, text=True,
                       timeout=60, env=_env())
    listed = set(re.findall(r"^\s+([A-Z][A-Z0-9_]*(?:<NAME>)?)\s", r.stdout, re.M))
    for name in sorted(names):
        wanted = name + "<NAME>" if name.endswith("_") else name  # a prefix: ACLSIM_MODEL_<NAME>
        assert wanted in listed, f"aclsim run --help does not list {wanted}"


def test_getting_started_gives_the_readmes_two_setup_commands():
    def bash_blocks(path: Path) -> list[str]:
        return re.findall(r"```bash\n(.*?)\n```", path.read_text(encoding="utf-8"), re.S)

    assert bash_blocks(DOCS / "getting-started.md") == bash_blocks(README)
    assert len(bash_blocks(README)) == 2
