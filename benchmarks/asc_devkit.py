"""CANN's single-file examples (hicann/asc-devkit `examples/**`), built with `aclsim cc` and run unmodified.

Given a checkout of asc-devkit, every example folder holding `.asc` files (each scenario its CMakeLists.txt
accepts, as `-DSCENARIO_NUM=n`) is copied into a scratch folder and run as its README tells a user:
`python3 ../scripts/gen_data.py`, build (here `aclsim cc` with the CMakeLists' definitions and the
architecture's `__NPU_ARCH__`), `./demo` (here `aclsim run`, on the Ascend 950 profile for `dav-3510`), then
`python3 ../scripts/verify_result.py`. Nothing of the examples is kept here.

    python benchmarks/asc_devkit.py ASC_DEVKIT [--only TEXT ...] [--groups all] [--keep DIR]

prints one row per example: PASS (its verify script, or its own "pass" line), RAN (no verification),
NOT EMULATED (the build or the run names what aclsim does not emulate), BUILD FAILED, FAIL (a wrong result:
the sanitizer's first finding, if any, is shown) or RUN FAILED; then the counts.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

# the groups issue 21 names: introduction, utilities, vector compute, data movement, sync (basic API), SIMT, hybrid
GROUPS = ("01_simd_cpp_api/00_introduction", "01_simd_cpp_api/01_utilities", "01_simd_cpp_api/03_basic_api",
          "03_simt_api", "05_simd_simt_hybrid")
SOCS = {"3510": "Ascend950PR_9589", "2002": "Ascend310P3"}  # CMake's dav-<arch> -> aclsim's chip profile
NAMED = re.compile(r"aclsim: ([^\"\n]*not emulated[^\"\n]*)|is not emulated[^\n]*")


def targets(examples: Path, groups: tuple[str, ...]) -> list[str]:
    """Every example folder with .asc files, one entry per scenario its CMakeLists.txt accepts."""
    out = []
    for group in groups:
        for cmake in sorted((examples / group).rglob("CMakeLists.txt")):
            folder = cmake.parent
            if not list(folder.glob("*.asc")):
                continue
            rel, text = str(folder.relative_to(examples)), cmake.read_text()
            if "SCENARIO_NUM" not in text:
                out.append(rel)
                continue
            allowed = re.search(r"SCENARIO_NUM must be ([0-9 ,or]+)", text)
            span = re.search(r'SCENARIO_NUM "\d+"[^\n]*\((\d+)-(\d+)\)', text)  # "Scenario number (0-3)"
            default = re.search(r'SCENARIO_NUM "(\d+)"', text)
            nums = (re.findall(r"\d+", allowed.group(1)) if allowed else
                    [str(i) for i in range(int(span.group(1)), int(span.group(2)) + 1)] if span else
                    [default.group(1) if default else "1"])
            out += [f"{rel}#{n}" for n in nums]
    return out


def _arch(cmake: str, scenario: str | None) -> str:
    """The NPU architecture to build for: the CMakeLists' default, unless a `message(FATAL_ERROR` under `if(...)`
    (nested ifs combine) refuses it for this scenario (e.g. `SCENARIO_NUM STREQUAL "4" AND NOT
    CMAKE_ASC_ARCHITECTURES STREQUAL "dav-3510"`) or an `if(...) set(CMAKE_ASC_ARCHITECTURES "dav-N" ... FORCE)`
    forces another: then what that asks, as a user would pick."""
    default = re.search(r'"dav-(\d+)"', cmake)  # the cache default comes first, then every architecture named
    archs = list(dict.fromkeys([*([default.group(1)] if default else []), *re.findall(r"dav-(\d+)", cmake)])) or ["2201"]
    refusals: list[list[str]] = []  # each: the conditions (of the enclosing ifs) that all hold when CMake stops
    forced: list[tuple[list[str], str]] = []
    stack: list[str] = []
    for m in re.finditer(r"\b(if|elseif|else|endif)\s*\(([^()]*)\)|message\(FATAL_ERROR|"
                         r'set\(CMAKE_ASC_ARCHITECTURES "dav-(\d+)"[^)]*FORCE', cmake):
        word, cond = m.group(1), m.group(2)
        if word == "if":
            stack.append(cond)
        elif word in ("elseif", "else"):
            if stack:
                stack[-1] = cond if word == "elseif" else "?"  # an else branch: not decided by this reading
        elif word == "endif":
            if stack:
                stack.pop()
        elif m.group(3):
            forced.append((list(stack), m.group(3)))
        elif stack:
            refusals.append(list(stack))

    def holds(clause: str, arch: str) -> bool | None:
        clause = clause.strip()
        negate = clause.startswith("NOT ")
        clause = clause[4:].strip() if negate else clause
        m = re.fullmatch(r'SCENARIO_NUM (?:STREQUAL|EQUAL) "?(\d+)"?', clause)
        a = re.fullmatch(r'CMAKE_ASC_ARCHITECTURES STREQUAL "dav-(\d+)"', clause)
        if m:
            value = m.group(1) == (scenario or "1")
        elif a:
            value = a.group(1) == arch
        else:
            return None  # a condition this reading does not decide
        return value != negate

    def true(conds: list[str], arch: str) -> bool:
        """Every condition (clauses joined by AND, alternatives by OR) surely holds."""
        def one(cond: str) -> bool:
            for alternative in cond.split(" OR "):
                values = [holds(c, arch) for c in alternative.split(" AND ")]
                if None not in values and all(values):
                    return True
            return False
        return all(one(c) for c in conds)

    for conds, arch in forced:
        if true(conds, archs[0]):
            return arch
    return next((a for a in archs if not any(true(c, a) for c in refusals)), archs[0])


def _sh(cmd: list[str], cwd: Path, timeout: int = 600) -> tuple[int, str]:
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout} s"


def _readme_args(readme: str, script: str, scenario: str | None) -> list[str]:
    m = re.search(r"python3? \.\./scripts/" + script + r"((?: +[^ #;\n]+)*)", readme)
    args = m.group(1).split() if m else []
    return [a.replace("${SCENARIO_NUM}", scenario or "1").replace("$SCENARIO_NUM", scenario or "1") for a in args]


def _named(out: str) -> str | None:
    m = NAMED.search(out)
    return (m.group(1) or m.group(0)).strip()[:160] if m else None


def run(examples: Path, target: str, scratch: Path) -> tuple[str, str]:
    """(status, reason) of one example: of each program when its folder builds several (one per `main`)."""
    rel, _, scenario = target.partition("#")
    src = examples / rel
    work = scratch / target.replace("/", "__").replace("#", "_s")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, work)
    build = work / "build"
    build.mkdir()
    cmake = (src / "CMakeLists.txt").read_text()
    readme = (src / "README.md").read_text() if (src / "README.md").exists() else ""
    flags = [f"-DSCENARIO_NUM={scenario}"] if scenario else []
    for call in re.findall(r"target_compile_definitions\([^)]*\)", cmake, re.S):
        flags += [f"-D{k}={v}" for k, v in re.findall(r"\b([A-Z_][A-Z0-9_]*)=([^\s)$]+)", call) if k != "SCENARIO_NUM"]
    arch = _arch(cmake, scenario)
    flags.append(f"-D__NPU_ARCH__={arch}")
    if (work / "scripts" / "gen_data.py").exists():
        rc, out = _sh([sys.executable, "../scripts/gen_data.py", *_readme_args(readme, "gen_data.py", scenario)], build)
        if rc:
            return "GEN FAILED", out.strip().splitlines()[-1][:160] if out.strip() else ""
    sources = sorted(p.name for p in src.glob("*.asc"))
    # host sources the CMakeLists builds with them (main.cpp beside a kernel .asc)
    sources += sorted({f for f in re.findall(r"([\w-]+\.(?:cpp|cc))\b", cmake) if (src / f).exists()})
    mains = [s for s in sources if re.search(r"^\s*\w+\s+main\s*\(", (src / s).read_text(), re.M)]
    programs = [[m, *(s for s in sources if s not in mains)] for m in mains] if len(mains) > 1 else [sources]
    results = [_program(build, files, flags, SOCS.get(arch), readme, scenario, cmake) for files in programs]
    return next((r for r in results if r[0] not in ("PASS", "RAN")), results[0])


def _program(build: Path, files: list[str], flags: list[str], soc: str | None, readme: str,
             scenario: str | None, cmake: str) -> tuple[str, str]:
    py = sys.executable
    rc, out = _sh([py, "-m", "aclsim", "cc", *flags, *[f"../{f}" for f in files], "-I..", "-o", "demo"], build)
    if rc:
        named = _named(out)
        first = next((line for line in out.splitlines() if "error" in line), out.strip()[-160:])
        return ("NOT EMULATED", named) if named else ("BUILD FAILED", first.strip()[:160])
    target = re.search(r"add_executable\(\s*([\w-]+)", cmake)
    argv = re.search(r"^\s*\./" + re.escape(target.group(1) if target else "demo") + r"((?: +[^ #\n]+)*)", readme,
                     re.M)  # the arguments the README runs the program with (`./sincos_compute 1024`)
    cmd = [py, "-m", "aclsim", "run", *(["--soc", soc] if soc else []), "./demo",
           *(argv.group(1).split() if argv else [])]
    rc, out = _sh(cmd, build)
    if (build.parent / "scripts" / "verify_result.py").exists():
        args = _readme_args(readme, "verify_result.py", scenario) or ["output/output.bin", "output/golden.bin"]
        vr, _ = _sh([py, "../scripts/verify_result.py", *args], build)
        if rc == 0 and vr == 0:
            return "PASS", ""
    elif rc == 0:
        passed = re.search(r"test pass|passed|\bpass\b|success", out, re.I) and not re.search(r"fail", out, re.I)
        return ("PASS", "its own check") if passed else ("RAN", "no verification")
    wanted = re.search(r"\[ASSERT\][^\n]*?(Assertion `[^\n]*' failed)", readme)
    if wanted and re.search(r"\[ASSERT\][^\n]*" + re.escape(wanted.group(1)), out):
        return "PASS", "the device assert its README shows"  # examples of assert stop on purpose
    named = _named(out)
    if named:
        return "NOT EMULATED", named
    _, checked = _sh([*cmd[:4], "--check", "all", *cmd[4:]], build)
    finding = next((line.replace("=========", "").strip() for line in checked.splitlines()
                    if re.search(r"Invalid|ERROR|Device fault|leak|race", line) and "ACLSIM CHECK" not in line), "")
    return ("FAIL" if rc == 0 else f"RUN FAILED rc={rc}"), finding[:200] or out.strip()[-160:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout", type=Path, help="a checkout of hicann/asc-devkit (or its mirror)")
    ap.add_argument("--only", nargs="*", default=[], help="run the examples whose name contains one of these")
    ap.add_argument("--groups", default=",".join(GROUPS), help="comma-separated example groups, or 'all'")
    ap.add_argument("--keep", type=Path, help="build in this folder and keep it (default: a temporary one)")
    args = ap.parse_args(argv)
    examples = args.checkout / "examples"
    groups = tuple(sorted({str(p.parent.relative_to(examples)) for p in examples.glob("*/*/")})) \
        if args.groups == "all" else tuple(args.groups.split(","))
    todo = [t for t in targets(examples, groups) if not args.only or any(o in t for o in args.only)]
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="asc-devkit-"))
    counts: Counter[str] = Counter()
    try:
        for i, target in enumerate(todo, 1):
            status, why = run(examples, target, scratch)
            counts[status.split(" rc=")[0]] += 1
            print(f"{status:14s} {target}" + (f"  -- {why}" if why else ""), flush=True)
            print(f"[{i}/{len(todo)}]", file=sys.stderr, flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    print(", ".join(f"{k}: {v}" for k, v in counts.most_common()), f"(of {len(todo)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
