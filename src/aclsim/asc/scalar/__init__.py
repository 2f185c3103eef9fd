"""Scalar-unit functions, system variables and debugging output."""
