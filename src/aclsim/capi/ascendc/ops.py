"""The operation codes of the Ascend C ABI, read from the header the C++ side compiles (`ascendc/ops.def`), and the
registry of their handlers.

A handler takes the running core (None on the host) and the call's words: `h(core, a, b, c, d, e, f)` for
`aclsim_asc`, `h(core, a, b, c, d, e, s)` for `aclsim_asc_scalar` (s: a float), `h(core, a, b)` for
`aclsim_asc_real` (it returns a float). Vector instructions have one code per instruction and their call form
added to it (`FORM_REPEAT`, `FORM_BITS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .. import INCLUDE

FORM_REPEAT = 0x1000  # ascendc/abi.h ASC_FORM_*
FORM_BITS = 0x2000
FORMS = (0, FORM_REPEAT, FORM_BITS)

OPS: list[tuple[str, str]] = re.findall(r"^ASC\((\w+),\s*(\w+)\)", (INCLUDE / "ascendc" / "ops.def").read_text(),
                                        flags=re.M)
CODE = {name: i for i, (name, _) in enumerate(OPS)}
KIND = dict(OPS)

Handler = Callable[..., Any]
HANDLERS: dict[int, Handler] = {}


def handles(*names: str, form: int = 0) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of operations `names` (in call form `form`)."""

    def register(fn: Handler) -> Handler:
        for name in names:
            if name not in CODE:
                raise ValueError(f"{name} is not an operation of ascendc/ops.def")
            HANDLERS[CODE[name] + form] = fn
        return fn

    return register
