"""pyasc's `asc.language` package: only `asc.language.core` (tiling structs, `KnownTypes`) is emulated."""
