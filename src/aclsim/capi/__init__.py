"""The C face: AscendCL's C API (`acl/acl.h`, libascendcl.so) over aclsim's runtime.

`include/` holds the headers (CANN's names, types, values and signatures); `build.py` makes
libascendcl.so (cffi embedding: C wrappers over Python adapters, built once into a cache directory);
`adapter.py` maps each C function onto the pyACL face's function of the same call; `process.py` is the
C program's side of `aclsim run` (sessions, reports at exit, device-pointer faults); `sites.py` turns native
return addresses into file:line; `home.py` lays out a CANN-like install (`aclsim home`).
"""

from __future__ import annotations

from .build import INCLUDE, library_path

__all__ = ["INCLUDE", "library_path"]
