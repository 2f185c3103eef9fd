"""pyasc's `asc.language`: `core` (tiling structs, `KnownTypes`) and `basic` (the call forms of the instructions)."""
