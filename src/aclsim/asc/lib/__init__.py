"""pyasc's `asc.lib` namespace: `asc.lib.runtime` and `asc.lib.host`, reachable without importing them first, as
after pyasc's `import asc`."""

from ..coverage import module_getattr

__getattr__ = module_getattr("asc.lib", __name__)
