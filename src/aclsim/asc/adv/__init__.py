"""pyasc's `asc.adv` (`asc.language.adv`): the high-level APIs of `aclsim.asc.highlevel` under pyasc's names:
Matmul and its tiling, element-wise math, softmax, rmsnorm, quant, sort."""

from __future__ import annotations

from ..coverage import module_getattr
from ..highlevel.elementwise import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    axpy,
    ceil,
    cos,
    cosh,
    digamma,
    erf,
    erfc,
    exp,
    floor,
    frac,
    lgamma,
    log,
    power,
    round,
    sign,
    sin,
    sinh,
    tan,
    tanh,
    trunc,
    xor,
)
from ..highlevel.matmul import (
    Matmul,
    MatmulConfig,
    MatmulType,
    get_basic_config,
    get_ib_share_norm_config,
    get_mdl_config,
    get_mm_config,
    get_normal_config,
    get_special_basic_config,
    get_special_mdl_config,
    register_matmul,
)
from ..highlevel.norm import RmsNormTiling, rmsnorm
from ..highlevel.quant import QuantConfig, quant
from ..highlevel.softmax import SoftmaxTiling, softmax
from ..highlevel.sort import concat, extract
from ..highlevel.tiling import TCubeTiling

__getattr__ = module_getattr("asc.language.adv")  # pyasc names aclsim lacks raise NotEmulatedError

__all__ = [
    "Matmul", "MatmulConfig", "MatmulType", "TCubeTiling", "get_basic_config", "get_ib_share_norm_config",
    "get_mdl_config", "get_mm_config", "get_normal_config", "get_special_basic_config", "get_special_mdl_config",
    "register_matmul",
]
__all__ += [  # element-wise math (highlevel/elementwise.py)
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "axpy", "ceil", "cos", "cosh", "digamma", "erf", "erfc", "exp",
    "floor", "frac", "lgamma", "log", "power", "round", "sign", "sin", "sinh", "tan", "tanh", "trunc", "xor",
]
__all__ += ["QuantConfig", "quant"]  # quant.py
__all__ += ["SoftmaxTiling", "softmax"]  # softmax.py
__all__ += ["RmsNormTiling", "rmsnorm"]  # norm.py
__all__ += ["concat", "extract"]  # sort.py
