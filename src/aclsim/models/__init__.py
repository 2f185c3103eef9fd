"""Model, operator and image engines behind `acl.mdl`, `acl.op` and `aclsim atc`.

`om` holds aclsim's model container (ONNX bytes plus what ATC records: IO description, AIPP, dynamic
dims); `graph` runs a model with ONNX Runtime on the CPU; `aipp` is the static AIPP preprocessing;
`types` the ACL data-type and format tables. None of these import the faces (`aclsim.acl`).
"""
