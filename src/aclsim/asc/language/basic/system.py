"""pyasc's scalar, system and debugging calls (`asc.get_block_idx`, `asc.scalar_cast`, `asc.printf`,
`asc.property`, ...), sent to the instructions of the engine's table (aclsim.asc.scalar). Signatures:
hicann/pyasc `python/asc/language/basic/sys_var.py`, `scalar.py`, `dump_tensor.py`, `common.py`,
`core/properties.py`."""

from __future__ import annotations

from typing import Any

from aclsim.runtime import get_runtime

from ... import faults
from ...engine import TABLE
from ...scalar.sysvar import Property
from .forms import direct

(get_block_idx, get_block_num, get_sub_block_idx, get_sub_block_num, ascend_is_aiv, ascend_is_aic, get_system_cycle,
 print_time_stamp, get_data_block_size_in_bytes, trap, get_task_ratio) = (
    direct(TABLE[k]) for k in ("GetBlockIdx", "GetBlockNum", "GetSubBlockIdx", "GetSubBlockNum", "ASCEND_IS_AIV",
                               "ASCEND_IS_AIC", "GetSystemCycle", "PrintTimeStamp", "GetDataBlockSizeInBytes", "Trap",
                               "GetTaskRation"))
(scalar_cast, scalar_count_leading_zero, scalar_get_count_of_value, scalar_get_sff_value,
 count_bits_cnt_same_as_sign_bit) = (
    direct(TABLE[k]) for k in ("ScalarCast", "ScalarCountLeadingZero", "ScalarGetCountOfValue", "ScalarGetSFFValue",
                               "CountBitsCntSameAsSignBit"))
printf, dump_tensor = (direct(TABLE[k]) for k in ("PRINTF", "DumpTensor"))
init_soc_state = direct(TABLE["InitSocState"])
data_cache_clean_and_invalid = direct(TABLE["DataCacheCleanAndInvalid"])


def property(prop: Property) -> Any:
    """The value of a chip constant on the running core's chip (or the runtime's chip on the host)."""
    if not isinstance(prop, Property):
        raise TypeError(f"asc.property takes a chip constant such as asc.TOTAL_L1_SIZE, got {prop!r}")
    if isinstance(prop.attr, int):
        return prop.attr
    core = faults.running_or_none()
    return getattr((core.chip if core is not None else get_runtime().chip), prop.attr)

