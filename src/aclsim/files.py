"""Writing output files (traces, sanitizer reports, plots) whole or not at all, and aclsim's cache folder."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def cache_root() -> Path:
    """aclsim's cache folder: $ACLSIM_CACHE_DIR, else $XDG_CACHE_HOME/aclsim, else ~/.cache/aclsim
    (libascendcl's build, the SIMT JIT's compiled kernels, the `atc` command put on a program's PATH)."""
    env = os.environ.get("ACLSIM_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "aclsim"


def _mode() -> int:
    """The permissions open() would give a new file: 0o666 less the umask (Linux shows it in /proc/self/status;
    elsewhere it is read by setting it back at once)."""
    try:
        with open("/proc/self/status") as f:
            mask = next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str, data: str | bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`.

    A full disk, a size limit or an interruption leaves the previous file (or none) and no temporary file:
    never a truncated one. A path that is not a regular file (/dev/stdout, a pipe) is written directly.
    OSError when the file cannot be written.
    """
    raw = data.encode() if isinstance(data, str) else data
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISREG(os.stat(path).st_mode):
            with open(path, "wb") as f:
                f.write(raw)
            return
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())  # a full disk shows here, before the rename, not later
        os.chmod(tmp, _mode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
