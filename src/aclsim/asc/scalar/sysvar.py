"""System variables a kernel reads, and chip constants through `asc.property` (pyasc `basic/sys_var.py`,
`basic/common.py`, `core/properties.py`).

Each block runs as one core: a vector core (`ascend_is_aiv()`), or a cube core when the kernel is
declared `@asc.jit(kernel_type=KernelType.AIC_ONLY)`; `get_sub_block_num()` is 1 and
`get_sub_block_idx()` 0 (inference: a block of a vector-only launch is a lone vector core, not one
of a cube core's pair); in mix launches (cube/mix.py) two AIVs run per block, and with
MIX_AIC_1_1/1_2 the block's AIC runs the body too. The cycle
counter is the modeled device clock of the timeline (runtime/scheduler.py: a task starts when its
stream is free and lasts as long as the emulator took) in the chip's cycles: differences measure how
long the emulator took, not how long the NPU would.
"""

from __future__ import annotations

import sys
from typing import Any

from aclsim.runtime.observe import now

from ..faults import fail
from ..table import instruction

ONE_BLK = 32  # bytes in a data block (CANN kernel_utils_constants.h ONE_BLK_SIZE)


@instruction("GetBlockIdx", "get_block_idx", "system")
def get_block_idx(core: Any) -> int:
    """Index of the block this core runs (0 .. get_block_num() - 1)."""
    return core.idx


@instruction("GetBlockNum", "get_block_num", "system")
def get_block_num(core: Any) -> int:
    """Number of blocks the kernel was launched with."""
    return core.num


@instruction("GetSubBlockIdx", "get_sub_block_idx", "system")
def get_sub_block_idx(core: Any) -> int:
    """Index of this vector core within its AI Core group (0 for an AIV-only block and on an AIC)."""
    return 0 if core.aic else core.idx % core.launch.mix


@instruction("GetSubBlockNum", "get_sub_block_num", "system")
def get_sub_block_num(core: Any) -> int:
    """Vector cores per block (1 for an AIV-only launch, 2 in a mix launch: cube/mix.py)."""
    return core.launch.mix


@instruction("ASCEND_IS_AIV", "ascend_is_aiv", "system")
def ascend_is_aiv(core: Any) -> bool:
    """True on a vector core."""
    return not core.aic


@instruction("ASCEND_IS_AIC", "ascend_is_aic", "system")
def ascend_is_aic(core: Any) -> bool:
    """True on a cube core: in cube-only kernels, and on each block's AIC in MIX_AIC_1_1/1_2 kernels."""
    return core.aic


def _cycles(core: Any, since_start: float) -> int:
    """Cycles of the chip's clock at `since_start` seconds into the launch, on the modeled device clock (the
    timeline's): the kernel task's modeled start plus that time."""
    launch = core.launch
    start = launch.task.start if launch.task is not None else launch.started
    return int((start + since_start) * core.chip.cube_mhz * 1e6)


@instruction("GetSystemCycle", "get_system_cycle", "system")
def get_system_cycle(core: Any) -> int:
    """A cycle counter on the modeled device clock: how long the launch has run so far, from its modeled start."""
    return _cycles(core, now() - core.launch.started)


@instruction("PrintTimeStamp", "print_time_stamp", "system")
def print_time_stamp(core: Any, desc_id: int) -> None:
    """Print a time stamp as the NPU's dump does (Ascend C PrintTimeStamp page: "descId is 11, rsv is 0,
    timeStamp is ..., pcPtr is ..., entry is ..."): timeStamp is get_system_cycle(), entry the kernel's
    start in cycles; there is no program counter to show, so pcPtr is left out."""
    stamp = _cycles(core, now() - core.launch.started)
    sys.stdout.write(f"descId is {int(desc_id)}, rsv is 0, timeStamp is {stamp}, entry is {_cycles(core, 0.0)}.\n")
    sys.stdout.flush()


@instruction("GetDataBlockSizeInBytes", "get_data_block_size_in_bytes", "system")
def get_data_block_size_in_bytes(core: Any) -> int:
    """Bytes per data block (32)."""
    return ONE_BLK


@instruction("Trap", "trap", "system")
def trap(core: Any) -> None:
    """Stop the core with an exception, as the trap instruction does."""
    fail("trap", "the kernel executed trap(): the core stops with an AI Core exception")


class Property:
    """A chip constant read with `asc.property(asc.TOTAL_L1_SIZE)`."""

    __slots__ = ("attr", "name")

    def __init__(self, name: str, attr: str | int) -> None:
        self.name, self.attr = name, attr

    def __repr__(self) -> str:
        return f"asc.{self.name}"


TOTAL_L1_SIZE = Property("TOTAL_L1_SIZE", "l1_size")
TOTAL_L0C_SIZE = Property("TOTAL_L0C_SIZE", "l0c_size")
DEFAULT_C0_SIZE = Property("DEFAULT_C0_SIZE", 32)  # bytes of the C0 dimension of fractal formats
ONE_BLK_SIZE = Property("ONE_BLK_SIZE", ONE_BLK)
