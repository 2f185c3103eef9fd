"""Ascend C enumerations with pyasc's names and values (pyasc `python/asc/language/core/enums.py`)."""

from __future__ import annotations

from enum import IntEnum


class TPosition(IntEnum):
    """Logical memory positions; VECIN/VECOUT/VECCALC live in the Unified Buffer."""

    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11


class HardEvent(IntEnum):
    """Producer_consumer pipe pairs for set_flag / wait_flag."""

    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31
    MTE1_FIX = 32
    FIX_MTE1 = 33
    FIX_FIX = 34


class PipeID(IntEnum):
    """Instruction pipes (pipe_barrier)."""

    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10


class RoundMode(IntEnum):
    """Rounding of `cast`: CAST_NONE rounds to nearest even when precision is lost."""

    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6


class CMPMODE(IntEnum):
    """Comparison of `compare` / `compare_scalar`."""

    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SelMode(IntEnum):
    """How `select` reads its operands."""

    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


class MaskMode(IntEnum):
    """How the vector mask register is read: lanes of each repeat (NORMAL) or an element count (COUNTER)."""

    NORMAL = 0
    COUNTER = 1


class DeqScale(IntEnum):
    """Dequantisation modes of DataCopyEnhancedParams (pyasc core/enums.py)."""

    DEQ_NONE = 0
    DEQ = 1
    VDEQ = 2
    DEQ8 = 3
    VDEQ8 = 4
    DEQ16 = 5
    VDEQ16 = 6


class BlockMode(IntEnum):
    """Basic fractal of an enhanced data_copy (pyasc core/enums.py)."""

    BLOCK_MODE_NORMAL = 0
    BLOCK_MODE_MATRIX = 1
    BLOCK_MODE_VECTOR = 2
    BLOCK_MODE_SMALL_CHANNEL = 3
    BLOCK_MODE_DEPTHWISE = 4


class pad_t(IntEnum):  # pyasc spells it in lower case
    """Padding modes of an enhanced data_copy (pyasc core/enums.py)."""

    PAD_NONE = 0
    PAD_MODE1 = 1
    PAD_MODE2 = 2
    PAD_MODE3 = 3
    PAD_MODE4 = 4
    PAD_MODE5 = 5
    PAD_MODE6 = 6
    PAD_MODE7 = 7


class CacheLine(IntEnum):
    """What DataCacheCleanAndInvalid acts on (Ascend C CacheLine)."""

    SINGLE_CACHE_LINE = 0
    ENTIRE_DATA_CACHE = 1


class DcciDst(IntEnum):
    """Which cache lines DataCacheCleanAndInvalid acts on (Ascend C DcciDst)."""

    CACHELINE_ALL = 0
    CACHELINE_UB = 1
    CACHELINE_OUT = 2
    CACHELINE_ATOMIC = 3


class MemDsbT(IntEnum):
    """The accesses DataSyncBarrier waits for (Ascend C MemDsbT)."""

    ALL = 0
    DDR = 1
    UB = 2
    SEQ = 3
