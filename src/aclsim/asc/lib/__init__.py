"""pyasc's `asc.lib` namespace: only `asc.lib.runtime` is emulated."""
