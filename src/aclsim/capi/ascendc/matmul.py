"""Handlers of matmul calls (to come)."""
