"""`aclsim explain CODE`: name, meaning and fix of an ACL return code."""

from __future__ import annotations

import argparse

from ..errors import Code, describe

ALL_HINT = " (`aclsim explain --all` lists every code it knows)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain", help="explain an ACL return code",
        description="Print the name, meaning and usual fix of an ACL return code (e.g. 107002), "
        "or list them all with --all.",
    )
    p.add_argument("code", nargs="*", help="ACL return code(s), e.g. 107002 or ACL_ERROR_RT_CONTEXT_NULL")
    p.add_argument("--all", action="store_true", help="list every code aclsim knows")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    codes = [int(c) for c in Code] if args.all else args.code
    if not codes:
        print("usage: aclsim explain CODE [CODE ...]   (or --all)")
        return 2
    status = 0
    for c in codes:
        text = str(c)
        if not text.lstrip("-").isdigit():
            match = [m for m in Code if m.acl_name == text.upper() or m.name == text.upper()]
            if not match:
                print(f"{text}: not an ACL code name known to aclsim{ALL_HINT}")
                status = 1
                continue
            text = str(int(match[0]))
        out = describe(int(text))
        unknown = out.endswith("not an ACL code known to aclsim")
        status |= unknown
        print(out + ALL_HINT if unknown else out)
    return status
