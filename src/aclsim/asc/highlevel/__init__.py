"""Ascend C's high-level APIs (Matmul, element-wise math, softmax, rmsnorm, quant, sort), built on the engine."""
