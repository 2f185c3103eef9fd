"""Data movement instructions: DataCopy in its forms, DataCopyPad, atomic stores, transposes, AIPP."""
