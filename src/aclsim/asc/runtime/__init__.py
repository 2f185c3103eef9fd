"""pyasc's `asc.runtime`: `@asc.jit` and the launch (`jit`), `config`."""
