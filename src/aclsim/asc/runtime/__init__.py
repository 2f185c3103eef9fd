"""pyasc's `asc.runtime` namespace: only `asc.runtime.config` is emulated."""
