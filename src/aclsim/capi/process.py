"""The C program's side of `aclsim run ./prog`: sessions at start, reports at exit, device-pointer faults.

`aclsim run` passes its options in the environment (ACLSIM_CHECK, ACLSIM_SOC, ... and ACLSIM_RUN_OPTIONS,
a JSON object: error_exitcode, json, trace, summary, status_file). The first call into libascendcl starts
the sanitizer and the timeline as `aclsim run prog.py` does; at exit (a C atexit handler) they write their
reports and the status file tells `aclsim run` which exit code to use. A program started without
`aclsim run` runs with the defaults (no sanitizer, no timeline).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from typing import Any

from ..runtime import FOREIGN_CALLER, get_runtime
from ..runtime.devrange import DEVICE_BASE, WINDOW_END, device_of, set_host_access
from ..runtime.observe import resolve_foreign_sites
from . import sites

_state: dict[str, Any] = {"check": None, "trace": None, "options": {}, "done": False, "ffi": None}


def start(ffi: Any, lib: Any, c_names: dict[str, str]) -> None:
    """Called once, when the library's interpreter has started. `c_names`: pyACL call name -> C function."""
    _state["ffi"] = ffi
    resolve_foreign_sites(lambda ra: sites.call_site(_addr(ra)))
    from ..acl._device import run_mode

    if run_mode() == "rc":  # the program runs on the device's CPU: device pointers are its memory too
        set_host_access(True)
    else:
        lib.aclsim_c_install_fault_handler(DEVICE_BASE, WINDOW_END)
    opts = json.loads(os.environ.get("ACLSIM_RUN_OPTIONS") or "{}")
    _state["options"] = opts
    tools = os.environ.get("ACLSIM_CHECK")
    if tools:
        from ..check import start_session

        _state["check"] = start_session(tools, error_exitcode=opts.get("error_exitcode"), json_path=opts.get("json"),
                                        source="--check" if opts.get("check_flag") else "ACLSIM_CHECK")
        _state["check"].out = _CNames(sys.stderr, c_names)
    if opts:
        from ..trace import start_session as start_trace

        _state["trace"] = start_trace(trace_path=opts.get("trace"), summary=bool(opts.get("summary")))
        _state["trace"].out = _CNames(_state["trace"].out, c_names)
    _state["c_names"] = c_names
    if lib.aclsim_c_embedded():
        lib.aclsim_c_register_exit()  # a C program never finalizes Python: report from a C atexit handler
    else:  # loaded into a Python process (ctypes): report before the interpreter finalizes
        import atexit

        atexit.register(at_exit)


class _CNames:
    """A text stream that writes pyACL call names as the C functions a C program called (acl.rt.free -> aclrtFree)."""

    def __init__(self, out: Any, names: dict[str, str]) -> None:
        self.out = out
        ordered = sorted(names, key=len, reverse=True)
        self.pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in ordered) + r")\b") if names else None
        self.names = names

    def write(self, text: str) -> int:
        if self.pattern is not None:
            text = self.pattern.sub(lambda m: self.names[m.group(1)], text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding: the stream's own
        return getattr(self.out, name)


def _finish(interrupted: str | None = None) -> dict:
    if _state["done"]:
        return {}
    _state["done"] = True
    from ..runtime.core import process_is_exiting

    if interrupted is None:
        process_is_exiting()
    check, trace = _state["check"], _state["trace"]
    found = check.finish(interrupted) if check is not None else None
    trace_status = trace.finish() if trace is not None else None
    if trace is not None and trace.trace_path and trace_status is None:
        _rename_in_file(trace.trace_path, _state["c_names"])
    status = {"found": found, "trace_status": trace_status, "fault": trace.faults.line() if trace is not None else None}
    path = _state["options"].get("status_file")
    if path:
        with open(path, "w") as f:
            json.dump(status, f)
    sys.stderr.flush()
    return status


def _rename_in_file(path: str, names: dict[str, str]) -> None:
    """The timeline names host calls as the C program made them (aclrtMemcpy, not acl.rt.memcpy)."""
    buf = io.StringIO()
    with open(path) as f:
        _CNames(buf, names).write(f.read())
    with open(path, "w") as f:
        f.write(buf.getvalue())


def at_exit() -> None:
    """The program is exiting normally: reports, then the status file."""
    _finish()


def host_fault(addr: int, pc: int, write: int, frames: Any, nframes: int) -> int:
    """Host code dereferenced a device pointer. Report it; the exit status to use, or -1 to die by the signal."""
    rt = get_runtime()
    d = device_of(addr)
    heap = rt.devices[d].heap if d is not None and d < len(rt.devices) else None
    alloc = heap.find(addr) if heap is not None else None
    freed = heap.freed_at(addr) if heap is not None and alloc is None else None
    site = sites.resolve(pc + 1) if pc else None  # resolve() looks one byte back (it expects return addresses)
    mine = sites.module_of(pc)[0]  # callers in the faulting program or library, not in libc or aclsim
    ras = [int(_addr(frames[i])) for i in range(nframes)]
    stack = [sites.resolve(ra) for ra in ras if sites.module_of(ra)[0] == mine]
    callers = [s for s in stack if s is not None and s.lineno and s != site][:3]
    what = {1: "wrote", 0: "read"}.get(write, "accessed")
    lines = [f"the host {what} device memory at {addr:#x}",
             f"at {site}" if site is not None else "at an unknown place (build with -g for file:line)"]
    lines += [f"called from {s}" for s in callers]
    a = alloc or freed
    if a is not None:
        state = "freed " if a is freed else ""
        lines.append(f"{addr:#x} is {addr - a.start} bytes into the {state}device allocation at {a.start:#x} of "
                     f"{a.size} bytes, allocated at {a.site if a.site is not None else 'an unknown place'}")
    else:
        lines.append(f"{addr:#x} is in device {d}'s address range but in no allocation")
    fix = ("device memory is not host memory (EP mode: on an NPU this access faults); copy it with "
           "aclrtMemcpy(..., ACL_MEMCPY_DEVICE_TO_HOST) into host memory and use that")
    check = _state["check"]
    if check is not None:
        from ..check.findings import Finding

        check.report.add(Finding("memcheck", "host-deref", "Invalid host access to device memory", lines, fix,
                                 ("host-deref", pc), (0,), sites={"access": site}))
        _finish("SIGSEGV")
        code = _state["options"].get("error_exitcode")
        return int(code) if code is not None else 128 + 11
    print("========= aclsim: Invalid host access to device memory", file=sys.stderr)
    for ln in lines:
        print(f"=========     {ln}", file=sys.stderr)
    print(f"=========     fix: {fix}", file=sys.stderr)
    sys.stderr.flush()
    FOREIGN_CALLER.ra = None
    return -1


def _addr(p: Any) -> int:
    return int(_state["ffi"].cast("uintptr_t", p))
