"""Call sites in native code: a return address -> `Site` (file, line, function) through DWARF.

The C face records the return address of every call into libascendcl; reports resolve it here, lazily
and once per address. The module holding the address comes from /proc/self/maps; its DWARF line table is
read by binutils' `addr2line` (installed wherever gcc is), one long-lived process per module.
"""

from __future__ import annotations

import bisect
import ctypes
import os
import shutil
import subprocess
import threading
from functools import lru_cache

from ..runtime import Site

_lock = threading.Lock()
_maps: list[tuple[int, int, str, int]] = []  # (start, end, path, load base)
_starts: list[int] = []
_resolvers: dict[str, subprocess.Popen | None] = {}


def _read_maps() -> None:
    global _maps, _starts
    rows, bases = [], {}
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 6 or not parts[5].startswith("/"):
                continue
            a, b = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5].strip()
            bases.setdefault(path, a - int(parts[2], 16))
            rows.append((a, b, path))
    _maps = sorted((a, b, p, bases[p]) for a, b, p in rows)
    _starts = [m[0] for m in _maps]


def module_of(addr: int) -> tuple[str, int]:
    """(path of the mapped file holding `addr`, its load base)."""
    with _lock:
        for fresh in (False, True):
            if fresh or not _maps:
                _read_maps()
            i = bisect.bisect_right(_starts, addr) - 1
            if i >= 0 and _maps[i][0] <= addr < _maps[i][1]:
                return _maps[i][2], _maps[i][3]
    return "", 0


def _is_pie(path: str) -> bool:
    with open(path, "rb") as f:
        head = f.read(18)
    return len(head) == 18 and int.from_bytes(head[16:18], "little") == 3  # ET_DYN


def _addr2line(path: str) -> subprocess.Popen | None:
    if path not in _resolvers:
        tool = shutil.which("addr2line")
        _resolvers[path] = subprocess.Popen(
            [tool, "-f", "-C", "-e", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
        ) if tool else None
    return _resolvers[path]


def _short(func: str) -> str:
    """`ns::f(std::string, int)` -> `ns::f`: the name without its parameter list (as Python sites name functions)."""
    depth = 0
    for i in range(len(func) - 1, -1, -1):  # the parameter list is the last balanced (...)
        depth += {")": 1, "(": -1}.get(func[i], 0)
        if depth == 0 and func[i] == "(" and i > 0 and not func.startswith("operator"):
            return func[:i]
    return func


def resolve(ra: int | None) -> Site | None:
    """The source line of the call that returns to `ra` (None when unknown; never raises)."""
    if not ra:
        return None
    try:
        return _resolve(int(ra))
    except (OSError, ValueError):
        return None


_libc = ctypes.CDLL(None)
_libc.backtrace.argtypes = [ctypes.c_void_p, ctypes.c_int]
_SYSTEM = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/")


def call_site(ra: int, depth: int = 8) -> Site | None:
    """The site of the native call returning to `ra`, with its native callers (up to `depth` frames, until
    the C library's start-up code): the stack is read now (backtrace), while the call is still on it."""
    site = resolve(ra)
    if site is None:
        return None
    frames = (ctypes.c_void_p * 128)()
    n = _libc.backtrace(frames, 128)
    addrs = [frames[i] or 0 for i in range(n)]
    if ra not in addrs:
        return site
    chain = []
    for a in addrs[addrs.index(ra):]:
        path = module_of(a)[0]
        s = resolve(a)
        if s is None or not path or path.startswith(_SYSTEM) or len(chain) == depth:
            break
        chain.append((s.filename, s.lineno, s.function))
    return Site(site.filename, site.lineno, site.function, tuple(chain))


@lru_cache(maxsize=4096)
def _resolve(ra: int) -> Site | None:
    path, base = module_of(int(ra))
    if not path:
        return None
    rel = int(ra) - 1 - (base if _is_pie(path) else 0)
    func, where = "??", "??:0"
    with _lock:
        proc = _addr2line(path)
        if proc is not None and proc.stdin and proc.stdout:
            try:
                proc.stdin.write(f"{rel:#x}\n")
                proc.stdin.flush()
                func, where = proc.stdout.readline().strip(), proc.stdout.readline().strip()
            except OSError:
                pass
    func = _short(func)
    file, _, line = where.rpartition(":")
    line = line.split()[0] if line else "0"
    if file in ("", "??"):
        return Site(os.path.basename(path), 0, func)
    try:
        rel_file = os.path.relpath(file)
        file = rel_file if not rel_file.startswith("..") else file
    except ValueError:
        pass
    return Site(file, int(line) if line.isdigit() else 0, func, ((file, int(line) if line.isdigit() else 0, func),))


_inliners: dict[str, subprocess.Popen | None] = {}


def code_site(addr: int, returns: bool = True) -> Site | None:
    """The source line of kernel code at `addr` (a return address, or with `returns` False the instruction
    itself), through inlined functions: the innermost frame outside aclsim's own headers (an access inside
    an inlined API function is the program's line that called it). None when unknown; never raises."""
    try:
        return _code_site(int(addr) - (1 if returns else 0))
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=8192)
def _code_site(at: int) -> Site | None:
    path, base = module_of(at)
    if not path:
        return None
    rel = at - (base if _is_pie(path) else 0)
    frames: list[tuple[str, str]] = []
    with _lock:
        if path not in _inliners:
            tool = shutil.which("addr2line")
            # -a prints each address before its frames: a second query (address 0) ends the first's inline chain
            _inliners[path] = subprocess.Popen(
                [tool, "-a", "-i", "-f", "-C", "-e", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1) if tool else None
        proc = _inliners[path]
        if proc is None or proc.stdin is None or proc.stdout is None:
            return None
        proc.stdin.write(f"{rel:#x}\n0\n")
        proc.stdin.flush()
        proc.stdout.readline()  # the queried address
        while True:
            func = proc.stdout.readline().strip()
            if not func or func.startswith("0x"):  # the sentinel's address: its two lines follow
                proc.stdout.readline()
                proc.stdout.readline()
                break
            frames.append((func, proc.stdout.readline().strip()))
    from . import INCLUDE

    own = str(INCLUDE)
    for func, where in frames:
        file, _, line = where.rpartition(":")
        line = line.split()[0] if line else "0"
        if file in ("", "??") or os.path.abspath(file).startswith(own):
            continue
        rel_file = os.path.relpath(file)
        file = rel_file if not rel_file.startswith("..") else file
        return Site(file, int(line) if line.isdigit() else 0, _short(func), ((file, int(line) if line.isdigit() else 0, _short(func)),))
    return None
