"""pyasc's `asc.language.core`: the tiling-struct helpers (`struct`) and `dtype.KnownTypes`.

Absolute imports: under `aclsim run` this package may load as `asc.language.core`.
"""
