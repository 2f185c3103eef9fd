"""Model, operator and image engines behind `acl.mdl`, `acl.op`, `acl.media`, `acl.blas` and `aclsim atc`.

`om` holds aclsim's model container (ONNX bytes plus what ATC records: IO description, AIPP, dynamic
dims); `verify` checks a loaded one against its ONNX graph; `model` loads models and `execute` runs them
(AIPP, casts, ONNX Runtime, outputs); `graph` is the ONNX Runtime session; `aipp` the AIPP preprocessing;
`ops`/`singleop` the built-in operators; `picture` DVPP's pictures; `types` the ACL data-type and format
tables. This package is an engine: it imports the runtime and the base modules, never a face (`aclsim.acl`).
"""
