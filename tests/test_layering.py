"""The layers of docs/architecture.md, checked on the source: who may import whom.

A rule broken here is how an emulator grows hidden couplings (an engine that needs a face, an
observer that reaches into the runtime), so the suite refuses it as soon as it appears.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "src" / "aclsim"
BASE = {"aclsim.errors", "aclsim.constants", "aclsim.chips", "aclsim.files"}


def _imports(path: Path, text: str | None = None) -> list[tuple[str, list[str], int]]:
    """(absolute module, names imported from it, line) for every import in `path` (or in `text`, as if it stood
    there), wherever it stands (inside a function too), and every module a call of importlib.import_module or
    __import__ names by a literal."""
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    package = parts if path.name == "__init__.py" else parts[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join([*base, node.module] if node.module else base)
            out.append((mod, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str) and (
                  (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                  or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__")))):
            out.append((node.args[0].value, [], node.lineno))
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


# The faces: pyACL, the Pythonic API, the command line, the C API and the numba.cuda face (which stands
# inside simt/, above its engine, so that `from aclsim.simt import cuda` is a plain import)
FACES = ("aclsim.api", "aclsim.acl", "aclsim.cli", "aclsim.capi", "aclsim.simt.cuda")


@pytest.mark.parametrize("engine", ["simt", "asc", "native"])
def test_engines_import_no_face(engine):
    """Counting imports inside functions and importlib's by name: an engine that needs a face is an arrow
    back up, however it is spelled."""
    bad = [(str(p.relative_to(PKG)), m, ln) for p, m, _, ln in _aclsim_imports(engine)
           if m.startswith(FACES) and not _module_name(p).startswith(FACES)]
    assert bad == []


def test_the_imports_test_sees_function_level_and_importlib_imports():
    """(the rule above would otherwise miss an engine that imports a face inside a function or by name)"""
    text = "def f():\n    import importlib\n    from .. import api\n    return importlib.import_module('aclsim.simt.cuda')\n"
    found = {(m, tuple(n)) for m, n, _ in _imports(PKG / "simt" / "probe.py", text)}
    assert found == {("importlib", ()), ("aclsim", ("api",)), ("aclsim.simt.cuda", ())}


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


def test_the_model_engine_imports_only_the_runtime_and_base():
    """models/ (acl.mdl, acl.op, DVPP and ATC's work) is an engine: the faces call it, it never calls a face."""
    bad = [(p.name, m, ln) for p, m, _, ln in _aclsim_imports("models")
           if not (m.startswith(("aclsim.models", "aclsim.runtime")) or m in BASE)]
    assert bad == []


def test_base_modules_import_only_each_other():
    bad = []
    for name in sorted(BASE):
        path = PKG / f"{name.removeprefix('aclsim.')}.py"
        bad += [(path.name, m, ln) for m, _, ln in _imports(path)
                if (m == "aclsim" or m.startswith("aclsim.")) and m not in BASE]
    assert bad == []


@pytest.mark.parametrize("observer", ["check", "trace"])
def test_observers_import_the_runtime_only_through_its_public_modules(observer):
    """An observer sees the runtime's package and its bus (`aclsim.runtime`, `aclsim.runtime.observe`), the base
    modules and its own package: never a room (`runtime.copies`, ...), an engine or a face."""
    allowed = {"aclsim.runtime", "aclsim.runtime.observe", "aclsim.__version__", *BASE}
    bad = [(p.name, m, ln) for p, m, _, ln in _aclsim_imports(observer)
           if m not in allowed and not m.startswith(f"aclsim.{observer}")]
    assert bad == []


@pytest.mark.parametrize("observer", ["check", "trace"])
def test_observers_never_walk_the_program_s_frames(observer):
    """What an observer knows comes in typed records (a copy in flight is `CopyInFlight`), never from reading
    another thread's stack or a function's locals."""
    offenders = [(p.name, needle) for p in _modules(observer) for needle in ("_current_frames", "f_locals", "f_back")
                 if needle in p.read_text()]
    assert offenders == []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    """Module -> the aclsim modules it imports, wherever the import stands (a function-level import is an arrow
    like any other; `from package import module` is an arrow to the module)."""
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        out = set()
        for mod, names, _ in _imports(path):
            for n in names or [None]:
                sub = f"{mod}.{n}" if n else mod
                out.add(sub if sub in modules else mod)
        graph[name] = {m for m in out if m in modules and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# packages whose cycles another piece of work removes (none today); a cycle anywhere else fails
KNOWN_CYCLES: dict[str, str] = {}


@pytest.mark.parametrize("package", sorted({p.name for p in PKG.iterdir() if p.is_dir() and p.name != "__pycache__"}))
def test_no_import_cycle_counting_imports_inside_functions(package):
    if package in KNOWN_CYCLES:
        pytest.xfail(KNOWN_CYCLES[package])
    prefix = f"aclsim.{package}"
    cycles = [c for c in _cycles(_graph()) if any(m == prefix or m.startswith(prefix + ".") for m in c)]
    assert cycles == []


def test_no_import_cycle_between_the_ascend_c_engines_units():
    """asc's folders (and top modules) import each other one way only: no arrow runs back up."""
    units: dict[str, set[str]] = {}
    for mod, deps in _graph().items():
        if mod.startswith("aclsim.asc."):
            unit = ".".join(mod.split(".")[:3])
            units.setdefault(unit, set()).update(".".join(d.split(".")[:3]) for d in deps
                                                 if d.startswith("aclsim.asc.") and not d.startswith(unit + ".")
                                                 and d != unit)
    assert _cycles(units) == []


def test_no_folder_holds_more_than_20_modules():
    crowded = {str(d.relative_to(PKG)): n for d in [PKG, *PKG.rglob("*")] if d.is_dir()
               if (n := len(list(d.glob("*.py")))) > 20}
    assert crowded == {}



def test_ascend_c_instructions_take_their_core_and_never_look_for_the_running_one():
    """The units of the instruction table get the core they run on as an operand; only faces and the framework
    classes' constructors ask for the running core (pyasc's calls name none)."""
    offenders = []
    for unit in ("aicore", "types", "vector", "move", "cube", "sync", "scalar"):
        for path in _modules(f"asc/{unit}"):
            text = path.read_text()
            for needle in ("running(", "running_or_none(", "set_running("):
                if needle in text:
                    offenders.append((f"{unit}/{path.name}", needle))
    assert offenders == []
