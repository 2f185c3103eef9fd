"""Which cores run a kernel's body: vector cores, cube cores, or mix blocks of one AIC and its AIVs."""

from __future__ import annotations

from typing import Any


def mix_ratio(fn: Any, options: dict[str, Any], chip: Any) -> tuple[int, bool, bool]:
    """(AIVs running the body per launched block, whether each block's AIC runs it too, whether every
    core is an AIC). `kernel_type` says so (pyasc `runtime/config.py` KernelType: AIC_ONLY and the
    MIX_AIC_1_0 / MIX_AIC_HARD_SYNC cube kernels run on AICs; MIX_AIC_1_1 / MIX_AIC_1_2 blocks are
    one AIC and one / two AIVs, all running the body, which branches on `ascend_is_aic()`). And pyasc
    compiles a kernel that builds an `asc.adv.Matmul` without `matmul_cube_only=True` or a
    kernel_type as a MIX kernel on A2/A3: each block is one AIC serving the Matmul plus two AIVs
    running the body, AIV `block_idx * 2 + sub_block_idx` of `2 * block_num` (the Ascend C programming
    guide's blockDim of a mixed kernel: one AIC and two AIVs per block); that AIC runs no user code, so it is not
    emulated as a core."""
    kt = options.get("kernel_type")
    if kt is not None:
        kt = getattr(kt, "value", kt)
        if kt in (1, 3, 5):  # AIC_ONLY, MIX_AIC_HARD_SYNC, MIX_AIC_1_0
            return 1, False, True
        if kt in (6, 7):  # MIX_AIC_1_1, MIX_AIC_1_2
            return kt - 5, True, False
        return 1, False, False
    if options.get("matmul_cube_only"):
        return 1, False, True
    if not chip.separated or "Matmul" not in fn.__code__.co_names:
        return 1, False, False
    return 2, False, False
