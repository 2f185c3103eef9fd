"""`aclsim run script.py [args]`: run a program with `import acl` resolving to aclsim."""

from __future__ import annotations

import argparse
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import Any

DESCRIPTION = """\
Run a Python program against the emulated Ascend runtime. Inside it, `import acl` gives
aclsim's pyACL-compatible module (and `import asc` gives aclsim.asc when the real pyasc is
not installed), so pyACL programs run unmodified, with the same return codes.

Add --check to find memory bugs, --trace/--summary to see what the device did.
"""

EPILOG = """\
examples:
  aclsim run examples/seed_square.py
  aclsim run --check all ./prog arg1       (a C/C++ program built with aclsim cc: same options)
  aclsim run --check all --error-exitcode 3 my_prog.py --my-flag
  aclsim run --trace out.json --summary my_prog.py     (open out.json in ui.perfetto.dev)
  ACLSIM_SOC=Ascend310P3 ACLSIM_DEVICES=2 aclsim run my_prog.py

environment (every variable aclsim reads; `aclsim info` shows the values in force):
  ACLSIM_SOC        chip profile (Ascend910B1 default; `aclsim info --socs` lists them all)
  ACLSIM_DEVICES    number of emulated devices (default 1)
  ACLSIM_SCHEDULE   lazy (default: device work runs when the host waits) or eager
  ACLSIM_RUN_MODE   same as --run-mode
  ACLSIM_OOB        same as --oob
  PATH              the program's starts with a folder (in aclsim's cache) whose `atc` runs `aclsim atc`
  ACLSIM_CHECK      same as --check
  ACLSIM_SEED       seed of the garbage fresh Ascend C local memory starts with (default 0)
  ACLSIM_SIMT_JIT   SIMT kernels on the numba JIT (with numba installed): unset = loop kernels whose
                    loop interleaves or with <= 4096 threads, 0 = never, 1 = every launch it can translate
  ACLSIM_SIMT_JIT_CACHE  where compiled SIMT kernels are kept between runs (default
                    simt-jit in aclsim's cache, i.e. ~/.cache/aclsim/simt-jit); 0 = nowhere
  ACLSIM_SIMT_ENGINE  reference = SIMT launches on the slow per-thread reference executor (the oracle)
  XDG_CACHE_HOME    the user's cache folder (aclsim's cache is $XDG_CACHE_HOME/aclsim)
  ACLSIM_MODEL      JSON file of timeline cost-model constants (see `aclsim info`)
  ACLSIM_MODEL_<NAME>  one cost-model constant, e.g. ACLSIM_MODEL_PCIE_BANDWIDTH=32e9
  ACLSIM_CACHE_DIR  aclsim's cache: libascendcl.so for C/C++ programs, the atc command, the JIT's
                    kernels (default $XDG_CACHE_HOME/aclsim, i.e. ~/.cache/aclsim)
  ACLSIM_RUN_OPTIONS  set by `aclsim run ./prog` for a C/C++ program: the run's options, as JSON
  CC                C compiler of `aclsim cc` and of the libascendcl build (default gcc)
  CXX               C++ compiler of `aclsim cc` (default g++)
  ASCEND_GLOBAL_LOG_LEVEL  as in CANN: lowest level acl.app_log prints (0 debug .. 3 error, default 3)

notes:
  Sanitizer reports and the summary go to stderr; the program's own output is untouched.
  Outside `aclsim run` (plain scripts, pytest) use `from aclsim import acl` and
  `import aclsim.asc as asc`; `pytest --aclsim-check=all` fails tests that produce sanitizer errors.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="run a pyACL / aclsim program (or a C/C++ one) on the emulator", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--soc", help="chip profile to emulate (overrides ACLSIM_SOC)")
    p.add_argument("--devices", type=int, help="number of devices (overrides ACLSIM_DEVICES)")
    p.add_argument("--schedule", choices=["lazy", "eager"], help="when queued device work runs")
    p.add_argument("--run-mode", choices=["ep", "rc"],
                   help="ep (default): a host with an NPU card, host and device memory apart; rc: the program runs "
                   "on the device (Atlas 200 DK): acl.rt.get_run_mode() is ACL_DEVICE and the host reads and "
                   "writes device memory (env ACLSIM_RUN_MODE)")
    p.add_argument("--oob", choices=["fault", "hardware"],
                   help="kernel accesses past an allocation: fault (default) stops the kernel with the reason; "
                   "hardware lets those inside memory the real allocator maps behind it (its pages; a torch "
                   "tensor's caching-allocator segment) proceed as on the NPU and lists each once at exit "
                   "(env ACLSIM_OOB; --check still reports them as errors)")
    g = p.add_argument_group("sanitizer")
    g.add_argument(
        "--check", metavar="TOOLS",
        help="comma-separated: memcheck,racecheck,initcheck,leakcheck (or 'all'; msSanitizer's 'synccheck' selects "
        "racecheck, which reports pipe hazards inside an AI Core); env ACLSIM_CHECK",
    )
    g.add_argument("--error-exitcode", type=int, metavar="N", help="exit with N when the sanitizer found errors")
    g.add_argument("--json", metavar="FILE", help="also write sanitizer findings as JSON to FILE")
    t = p.add_argument_group("timeline")
    t.add_argument("--trace", metavar="FILE", help="write a Chrome/Perfetto trace of host calls and device work")
    t.add_argument("--summary", action="store_true", help="print kernels, copies and memory at exit")
    p.add_argument("script", nargs="?", help="the Python program to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the program")
    p.set_defaults(func=run)


class _NotEmulated(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import asc2` (pyasc's newer tile-level language) fails at the import with what to do, not a bare
    ModuleNotFoundError that reads as a missing install: aclsim emulates pyasc's `asc` API only. The finder
    answers (so a find_spec probe does not raise); loading the module raises."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(name, self) if name.split(".")[0] == "asc2" else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        raise ModuleNotFoundError(
            f"No module named {spec.name!r}: asc2, pyasc's tile-level kernel language, is not emulated by aclsim "
            "(`aclsim run` gives `import asc`, pyasc's Ascend C API: asc.language, asc.jit); run asc2 kernels "
            "with the real pyasc on an NPU", name=spec.name)

    def exec_module(self, module: object) -> None:  # never reached: create_module raises
        raise AssertionError


def install_aliases() -> None:
    """Make `import acl` (and `import asc` when pyasc is absent) resolve to aclsim."""
    from .. import acl

    sys.modules["acl"] = acl
    for sub in acl.SUBMODULES:
        sys.modules[f"acl.{sub}"] = getattr(acl, sub)
    real_pyasc = "asc" in sys.modules or importlib.util.find_spec("asc") is not None
    if not real_pyasc and importlib.util.find_spec("aclsim.asc") is not None:
        sys.modules["asc"] = importlib.import_module("aclsim.asc")
        for sub in ("lib.runtime", "runtime.config", "language.core.struct", "language.core.dtype"):
            importlib.import_module(f"aclsim.asc.{sub}")
        for name, module in list(sys.modules.items()):  # `import asc.X` gives the very module aclsim.asc.X
            if name.startswith("aclsim.asc."):
                sys.modules[name.removeprefix("aclsim.")] = module
        if importlib.util.find_spec("torch") is not None and importlib.util.find_spec("torch_npu") is None:
            importlib.import_module("aclsim.asc.torch_npu").install()  # device="npu" tensors live in host memory
    if not any(isinstance(f, _NotEmulated) for f in sys.meta_path) and importlib.util.find_spec("asc2") is None:
        sys.meta_path.append(_NotEmulated())


def run(args: argparse.Namespace) -> int:
    if not args.script:
        print("aclsim run: name the program to run, e.g. `aclsim run prog.py [args]` (see aclsim run --help)",
              file=sys.stderr)
        return 2
    from .run_native import is_native, run_native

    if is_native(args.script):  # a compiled C/C++ program (aclsim cc, or its own build files)
        return run_native(args)
    for value, var in ((args.schedule, "ACLSIM_SCHEDULE"), (args.run_mode, "ACLSIM_RUN_MODE"), (args.oob, "ACLSIM_OOB")):
        if value:
            os.environ[var] = value
    from ..acl._device import run_mode
    from ..runtime import get_runtime, reset_runtime
    from ..runtime.oob import oob_mode

    try:  # the runtime reads ACLSIM_SOC / ACLSIM_DEVICES / ACLSIM_SCHEDULE (...): refuse bad values up front
        if args.soc or args.devices:
            reset_runtime(args.soc, args.devices)
        else:
            get_runtime()
        run_mode()
        oob_mode()
    except ValueError as e:
        print(f"aclsim run: {e}", file=sys.stderr)
        return 2
    if not os.path.isfile(args.script):
        print(f"aclsim run: no such file: {args.script}", file=sys.stderr)
        return 2
    check = None
    tools = args.check or os.environ.get("ACLSIM_CHECK")
    if tools:
        from ..check import start_session

        check = start_session(tools, error_exitcode=args.error_exitcode, json_path=args.json,
                              source="--check" if args.check else "ACLSIM_CHECK")
    from ..trace import start_session as start_trace

    # Always started: without --trace/--summary it only shows long device work on a terminal.
    trace = start_trace(trace_path=args.trace, summary=args.summary)
    install_aliases()
    _atc_on_path()
    from ..runtime.core import process_is_exiting

    with _sigterm_unwinds():  # also while the sanitizer runs the work still queued at exit
        code, interrupted = run_script(args.script, args.args)
        if interrupted is None:  # an interrupted program's live allocations are not leaks
            process_is_exiting()
        found = check.finish(interrupted) if check is not None else None
    trace_status = trace.finish()
    stopped = check.report.interrupted if check is not None else None
    if stopped and code == 0:  # Ctrl-C while the sanitizer ran the work left queued at exit
        code = 128 + signal.Signals[stopped]
    fault = trace.faults.line()
    if fault and code == 0:  # the program went on as if nothing failed: say so (see trace/faults.py)
        print(fault, file=sys.stderr)
    if found is not None:  # as compute-sanitizer: --error-exitcode wins whenever errors were reported
        return found
    return trace_status if trace_status is not None and code == 0 else code


def _atc_on_path() -> None:
    """Put an `atc` command that runs `aclsim atc` first on PATH, for programs that convert their models.

    It lives in aclsim's cache folder, one per Python interpreter, written once: nothing to clean up when a
    run ends however it ends (a temporary folder stayed behind after SIGKILL or os._exit)."""
    import hashlib

    from ..files import cache_root, write_atomic

    script = f'#!/bin/sh\nexec "{sys.executable}" -m aclsim atc "$@"\n'
    d = cache_root() / f"bin-{hashlib.sha256(script.encode()).hexdigest()[:12]}"
    path = d / "atc"
    try:
        if not path.is_file() or path.read_text() != script:
            d.mkdir(parents=True, exist_ok=True)
            write_atomic(str(path), script)
        os.chmod(path, 0o755)
    except OSError:  # a read-only cache: programs then find no atc, as on a machine without CANN
        return
    os.environ["PATH"] = str(d) + os.pathsep + os.environ.get("PATH", "")


class Terminated(KeyboardInterrupt):
    """SIGTERM (e.g. a CI timeout), raised in the program so that it unwinds and the report is written."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated("SIGTERM")  # the sanitizer names the interruption after str(exception)


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """SIGTERM raises `Terminated` (in the main thread) instead of killing the process with no report.

    (`os._exit` and SIGKILL end the process at once: nothing can report after them.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


def run_script(path: str, argv: list[str]) -> tuple[int, str | None]:
    """Run `path` as __main__ with `argv`; returns its exit status and the signal that stopped it, if any."""
    old_argv, old_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [path, *argv]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
        return 0, None
    except SystemExit as e:
        if e.code is None:
            return 0, None
        if isinstance(e.code, int):
            return e.code, None
        print(e.code, file=sys.stderr)
        return 1, None
    except Terminated:
        print("aclsim run: terminated by SIGTERM", file=sys.stderr)
        return 128 + signal.SIGTERM, "SIGTERM"
    except BaseException as e:
        tb = e.__traceback__  # start the traceback at the user's program, not at aclsim's launcher
        while tb is not None and (tb.tb_frame.f_code.co_filename == __file__
                                  or tb.tb_frame.f_code.co_filename.startswith("<frozen runpy")):
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb)
        if isinstance(e, KeyboardInterrupt):  # Ctrl-C: the status a shell gives a process killed by SIGINT
            return 128 + signal.SIGINT, "SIGINT"
        return 1, None
    finally:
        sys.argv = old_argv
        if sys.path and sys.path[0] != old_path0:
            sys.path.pop(0)
