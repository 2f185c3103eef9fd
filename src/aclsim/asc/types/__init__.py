"""Element types, bfloat16, rounding conversions, enums, parameter records and tiling structs: values with no state."""
