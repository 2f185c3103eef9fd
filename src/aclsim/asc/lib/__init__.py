"""pyasc's `asc.lib` namespace: only `asc.lib.runtime` is emulated."""

import importlib as _importlib


def __getattr__(name: str) -> object:
    """`asc.lib.runtime` and `asc.lib.host` without importing them first, as after pyasc's `import asc`."""
    if name in ("runtime", "host"):
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'asc.lib' has no attribute {name!r}")
