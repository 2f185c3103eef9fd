"""numba-cuda's own kernel tests on aclsim's numba.cuda face, against numba's CUDA simulator.

numba-cuda 0.30.4 ships its test suite inside the package (numba.cuda.tests.cudapy). This script
installs that release into a virtual environment of its own (with the test dependencies numba-cuda
lists and this checkout of aclsim, editable), then runs the cudapy tests twice, both times with
NUMBA_ENABLE_CUDASIM=1 (numba.cuda's testing helpers need no GPU that way):

  sim     as shipped: `cuda` is numba's CUDA simulator (the baseline);
  aclsim  with only the cuda imports of each test module rewritten, at import time: `from numba
          import cuda` to `from aclsim.simt import cuda`, and `from numba.cuda import jit, ...` to take
          from the face the names it has (numba's types, `from numba.cuda import float32`, stay
          numba's). Nothing of numba-cuda is copied or edited on disk.

A test counts as *kernel-writing* when, on the simulator, it compiles a `cuda.jit` kernel or device
function or launches a kernel. The bar is: of the kernel-writing tests the simulator passes, how
many pass on aclsim; each failure is put under a cause (first matching pattern of CAUSES, else its
message). "crashes" are tests whose worker process died (a segfault, a hang past the time limit).

    python benchmarks/numba_cuda_suite.py                 # set up (first time: a few minutes), run both, compare
    python benchmarks/numba_cuda_suite.py --mode aclsim   # rerun aclsim only (the sim results are kept)
    python benchmarks/numba_cuda_suite.py -k test_atomics # a subset (pytest -k), e.g. while fixing
    python benchmarks/numba_cuda_suite.py --list-failures # every failing test with its message

To measure another version of aclsim (before/after a change), put its src/ first on PYTHONPATH and give
its results another name: `PYTHONPATH=/path/to/old/src python benchmarks/numba_cuda_suite.py --mode aclsim
--tag before`, then `--mode compare --tag before` shows them.

The environment and results live in --work (default: ~/.cache/aclsim/numba-cuda-0.30.4). The same
file is the pytest plugin of the runs (`-p numba_cuda_suite`): it provides numba-cuda's conftest
fixture, rewrites the import, and records each test's outcome and whether it wrote a kernel.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

NUMBA_CUDA = "numba-cuda==0.30.4"
# numba-cuda's test dependency group (pyproject.toml, [dependency-groups] test), less its CI tools
TEST_DEPS = ["pytest>=8,<9", "pytest-timeout", "pytest-benchmark", "filecheck", "psutil", "cffi", "ml_dtypes"]
PACKAGE = "numba.cuda.tests.cudapy"
REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent

# Causes of failure on aclsim, in order: (name, pattern over the failure's text).
CAUSES: list[tuple[str, str]] = [
    ("kernel built by exec (no source file)", r"source code is not available"),
    ("not emulated (said so)", r"not emulated|does not emulate"),
    ("timeout", r"Timeout"),
]


# ----------------------------------------------------------------------------- the pytest plugin
_state: dict[str, Any] = {"kernel": False, "results": {}}


def _mark_kernel(*_a: Any, **_k: Any) -> None:
    _state["kernel"] = True


def _wrap(owner: Any, name: str) -> None:
    orig = getattr(owner, name)

    def wrapped(*a: Any, **k: Any) -> Any:
        _state["kernel"] = True
        return orig(*a, **k)

    wrapped.__wrapped__ = orig  # type: ignore[attr-defined]
    setattr(owner, name, wrapped)


class _RewriteCudaImport:
    """A meta-path finder: modules of the cudapy test folder load with `cuda` from aclsim."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        import importlib.util

        leaf = fullname.rpartition(".")[2]
        # pytest's importlib mode names the modules after their path (cuda.tests.cudapy.test_x)
        if not fullname.endswith(f"tests.cudapy.{leaf}") or not path:
            return None
        parts = fullname.split(".")  # path is the module's folder or its package root
        found = [Path(p, *parts[k:-1], f"{leaf}.py") for p in path for k in range(len(parts))]
        origin = next((f for f in found if f.is_file()), None)
        if origin is None:
            return None
        return importlib.util.spec_from_file_location(fullname, origin, loader=_Loader(fullname, str(origin)))


class _Loader:
    def __init__(self, fullname: str, origin: str) -> None:
        self.fullname, self.origin = fullname, origin

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        src = Path(self.origin).read_text()
        code = compile(rewrite_import(src), self.origin, "exec")
        exec(code, module.__dict__)


def rewrite_import(src: str) -> str:
    """`from numba import cuda[, x]` -> `from aclsim.simt import cuda` (+ `from numba import x`), and
    `from numba.cuda import jit, float32` -> the names the face has from it (jit), the rest from numba
    (float32: numba's own types stay numba's, as in a user's program)."""
    import aclsim.cuda as face

    def names_of(text: str) -> list[str]:
        return [n.strip() for n in text.strip("()").replace("\n", " ").split(",") if n.strip()]

    def sub(m: re.Match) -> str:
        indent, module, names = m.group(1), m.group(2), names_of(m.group(3))
        if module == "numba":
            ours = [n for n in names if n == "cuda"]
            out = [f"{indent}from aclsim.simt import cuda"] if ours else []
        else:
            ours = [n for n in names if " as " not in n and hasattr(face, n)]
            out = [f"{indent}from aclsim.cuda import {', '.join(ours)}"] if ours else []
        rest = [n for n in names if n not in ours]
        if rest:
            out.append(f"{indent}from {module} import {', '.join(rest)}")
        return "\n".join(out) if ours else m.group(0)

    return re.sub(r"^([ \t]*)from (numba|numba\.cuda) import ([^\n(]+|\([^)]*\))", sub, src, flags=re.M)


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--dump-failed-filechecks", action="store_true", help="(numba-cuda's conftest option)")
    parser.addoption("--suite-face", default="sim", choices=("sim", "aclsim"))
    parser.addoption("--suite-out", default=None)


def pytest_configure(config: Any) -> None:
    import pytest

    face = config.getoption("suite_face")
    _state["out"] = config.getoption("suite_out")
    if face == "aclsim":
        sys.meta_path.insert(0, _RewriteCudaImport())
        import aclsim.cuda as face_mod
        from aclsim.simt import lang

        _wrap(face_mod, "jit")
        _wrap(face_mod.CudaKernel, "_launch")
        _wrap(lang.DeviceFunction, "__init__")
    else:
        from numba import cuda
        from numba.cuda.simulator import kernel as simkernel

        _wrap(cuda, "jit")
        _wrap(simkernel.FakeCUDAKernel, "__call__")

    class _Fixture:
        @pytest.fixture(scope="class")
        def initialize_from_pytest_config(self, request: Any) -> None:
            request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")

    config.pluginmanager.register(_Fixture(), "numba_cuda_conftest")


def pytest_runtest_setup(item: Any) -> None:
    _state["kernel"] = False


def pytest_runtest_logreport(report: Any) -> None:
    res = _state["results"]
    r = res.setdefault(report.nodeid, {"outcome": "passed", "kernel": False, "message": "", "seconds": 0.0})
    r["seconds"] += report.duration
    r["kernel"] = r["kernel"] or _state["kernel"]
    if report.skipped and r["outcome"] == "passed":
        r["outcome"] = "skipped"
    elif report.failed:
        r["outcome"] = "failed"
        text = report.longreprtext or ""
        r["message"] = _message(text)
        r["detail"] = text[-3000:]


def pytest_collectreport(report: Any) -> None:
    if report.failed:  # a test module that does not import: its tests fail with this message
        _state["results"][report.nodeid + "::<module>"] = {
            "outcome": "failed", "kernel": False, "seconds": 0.0, "message": _message(report.longreprtext or ""),
            "detail": (report.longreprtext or "")[-3000:]}


def pytest_sessionfinish(session: Any) -> None:
    if _state.get("out"):
        Path(_state["out"]).write_text(json.dumps(_state["results"], indent=0))


def _message(text: str) -> str:
    """The exception line of a pytest failure report (the last 'E   ' block's first line)."""
    lines = [ln[4:].strip() for ln in text.splitlines() if ln.startswith("E   ")]
    for ln in lines:
        if re.match(r"^[\w.]+(Error|Exception|Fault|Interrupt|Exit)\b|^Failed:|^Timeout", ln):
            return ln[:300]
    return (lines[0] if lines else text.strip().splitlines()[-1] if text.strip() else "")[:300]


# ----------------------------------------------------------------------------- the driver
def _venv_python(work: Path) -> Path:
    return work / "venv" / "bin" / "python"


def setup(work: Path) -> Path:
    py = _venv_python(work)
    if not py.exists():
        print(f"creating {work / 'venv'} with {NUMBA_CUDA} and its test dependencies ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", NUMBA_CUDA, *TEST_DEPS], check=True)
    # this checkout of aclsim, every time (cheap when already there)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "-e", str(REPO)], check=True)
    return py


def run(py: Path, face: str, out: Path, work: Path, extra: list[str], timeout: int) -> int:
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)  # (yours after ours)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=path, ACLSIM_SIMT_JIT_CACHE="0")
    env.pop("ACLSIM_SIMT_ENGINE", None)
    cmd = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "numba_cuda_suite", "--import-mode=importlib", "--assert=plain",
           "--benchmark-disable", "--continue-on-collection-errors", f"--timeout={timeout}", f"--suite-face={face}", f"--suite-out={out}",
           "-o", "addopts=", "--pyargs", PACKAGE, *extra]
    t0 = time.perf_counter()
    log = out.with_suffix(".log")
    with log.open("w") as f:
        rc = subprocess.run(cmd, env=env, cwd=work, stdout=f, stderr=subprocess.STDOUT).returncode
    print(f"{face}: pytest exit {rc} in {time.perf_counter() - t0:.0f} s (log {log})", flush=True)
    if not out.exists():
        print(f"{face}: no results written: the test process died (a crash); see the log", flush=True)
    return rc


def cause_of(r: dict) -> str:
    text = r.get("message", "") + "\n" + r.get("detail", "")
    for name, pat in CAUSES:
        if re.search(pat, text):
            return name
    m = re.search(r":\d+: (.*?) is not supported in a simt", text)
    if m:  # a refused construct: named with its identifiers elided
        return "refused: " + re.sub(r"'[^']*'", "'…'", m.group(1))[:120]
    msg = re.sub(r"/\S+:\d+: ", "", r.get("message", ""))
    return re.sub(r"\(\w+\)$", "", msg)[:140] or "(no message)"


def compare(work: Path, list_failures: bool, subset: bool, tag: str = "aclsim") -> None:
    sim = json.loads((work / "sim.json").read_text())
    acl = json.loads((work / (f"{tag}-subset.json" if subset else f"{tag}.json")).read_text())
    base = {k for k, r in sim.items() if r["outcome"] == "passed" and r["kernel"]}
    if subset:
        base &= set(acl)
    passed = {k for k in base if acl.get(k, {}).get("outcome") == "passed"}
    for k in base:  # tests of a module that failed to import on aclsim
        if k not in acl and k.split("::")[0] + "::<module>" in acl:
            acl[k] = dict(acl[k.split("::")[0] + "::<module>"], kernel=True)
    missing = [k for k in base if k not in acl]
    print(f"\ncudapy tests: {len(sim)} collected; the simulator passes {sum(r['outcome'] == 'passed' for r in sim.values())}, "
          f"of which {len(base)} write a kernel")
    print(f"aclsim passes {len(passed)} of those {len(base)} kernel-writing tests "
          f"({sum(r['outcome'] == 'passed' for r in acl.values())} tests in all)")
    through = {k for k in passed if acl[k].get("kernel")}
    print(f"  {len(through)} of the {len(passed)} made or launched a kernel through aclsim's face; the other "
          f"{len(passed) - len(through)} used only numba names the face does not have (cuda.vectorize, ...), "
          "which stay numba's simulator")
    if missing:
        print(f"{len(missing)} of them have no aclsim result (the run died: a crash)")
    causes = Counter()
    by_cause: dict[str, list[str]] = {}
    for k in sorted(base - passed):
        r = acl.get(k, {"outcome": "crash", "message": "no result"})
        c = "skipped on aclsim" if r["outcome"] == "skipped" else cause_of(r)
        causes[c] += 1
        by_cause.setdefault(c, []).append(k)
    print("\nfailures by cause (tests):")
    for c, n in causes.most_common():
        print(f"  {n:4d}  {c}")
    if list_failures:
        for c, ks in by_cause.items():
            print(f"\n== {c}")
            for k in ks:
                print(f"  {k}\n      {acl.get(k, {}).get('message', '')[:240]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                    / "aclsim" / "numba-cuda-0.30.4")
    ap.add_argument("--mode", choices=("both", "sim", "aclsim", "compare"), default="both")
    ap.add_argument("-k", default=None, help="pytest -k expression (a subset)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per test (pytest-timeout)")
    ap.add_argument("--list-failures", action="store_true")
    ap.add_argument("--tag", default="aclsim", help="the name of the aclsim results (another version: 'before')")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    py = setup(args.work) if args.mode != "compare" else _venv_python(args.work)
    extra = ["-k", args.k] if args.k else []
    faces = {"both": ("sim", "aclsim"), "sim": ("sim",), "aclsim": ("aclsim",), "compare": ()}[args.mode]
    for face in faces:
        name = args.tag if face == "aclsim" else face
        out = args.work / f"{name}.json"
        if args.k and face == "sim" and out.exists():
            continue  # keep the full baseline
        target = out if not args.k or face == "sim" else args.work / f"{name}-subset.json"
        run(py, face, target, args.work, extra, args.timeout)
    if (args.work / "sim.json").exists() and (args.work / (f"{args.tag}-subset.json" if args.k
                                                           else f"{args.tag}.json")).exists():
        compare(args.work, args.list_failures, subset=bool(args.k), tag=args.tag)


if __name__ == "__main__":
    main()
