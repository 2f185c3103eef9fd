"""`python -m aclsim ...` is the `aclsim` command."""

from .cli import main

raise SystemExit(main())
