"""The vector unit's instructions (element-wise, cast, compare, reductions, gather, sort, ...) and its mask/repeat machinery."""
