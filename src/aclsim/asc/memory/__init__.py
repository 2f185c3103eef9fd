"""Instruction operands and their life cycle: LocalTensor, GlobalTensor, TPipe / TQue / TBuf, LocalTensorAuto."""
