"""The layers of docs/architecture.md, checked on the source: who may import whom.

A rule broken here is how an emulator grows hidden couplings (an engine that needs a face, an
observer that reaches into the runtime), so the suite refuses it as soon as it appears.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "src" / "aclsim"
BASE = {"aclsim.errors", "aclsim.constants", "aclsim.chips"}


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(absolute module, names imported from it, line) for every import in `path`."""
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    package = parts if path.name == "__init__.py" else parts[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join([*base, node.module] if node.module else base)
            out.append((mod, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
    return out


def _modules(sub: str) -> list[Path]:
    return sorted((PKG / sub).rglob("*.py"))


def _aclsim_imports(sub: str):
    """(file, module, names, line) of each import of an aclsim module; `from aclsim import x` counts as aclsim.x."""
    for path in _modules(sub):
        for mod, names, line in _imports(path):
            if mod == "aclsim":
                for n in names:
                    yield path, f"aclsim.{n}", [], line
            elif mod.startswith("aclsim."):
                yield path, mod, names, line


def test_the_runtime_imports_nothing_above_it():
    bad = [(p.name, m, ln) for p, m, _, ln in _aclsim_imports("runtime")
           if not (m.startswith("aclsim.runtime") or m in BASE)]
    assert bad == []


@pytest.mark.parametrize("engine", ["simt", "asc", "native"])
def test_engines_import_no_face(engine):
    faces = ("aclsim.api", "aclsim.acl", "aclsim.cli")
    bad = [(p.name, m, ln) for p, m, _, ln in _aclsim_imports(engine) if m.startswith(faces)]
    assert bad == []


@pytest.mark.parametrize("observer", ["check", "trace"])
def test_observers_use_only_public_runtime_names(observer):
    bad = []
    for path, mod, names, line in _aclsim_imports(observer):
        if mod.startswith("aclsim.runtime"):
            private = [n for n in names if n.startswith("_")] + ([mod] if "._" in mod else [])
            if private:
                bad.append((path.name, line, private))
    assert bad == []


@pytest.mark.parametrize("observer", ["check", "trace"])
def test_observers_never_parse_call_arguments_or_take_the_runtime_lock(observer):
    offenders = []
    for path in _modules(observer):
        text = path.read_text()
        for needle in (".args[", ".lock", ".scheduler", "task.info"):
            if needle in text:
                offenders.append((path.name, needle))
    assert offenders == []


def test_no_runtime_room_grows_past_400_lines():
    long = {p.name: n for p in _modules("runtime") if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}
