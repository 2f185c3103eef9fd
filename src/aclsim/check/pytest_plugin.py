"""pytest plugin (entry point `aclsim`): `pytest --aclsim-check=all` runs each test under the
sanitizer and fails a test whose body produced findings, with the report as the failure text."""

from __future__ import annotations

import io
from typing import Any

import pytest

_KEY = pytest.StashKey[str]()


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("aclsim")
    group.addoption(
        "--aclsim-check", metavar="TOOLS", default=None,
        help="check each test with the aclsim sanitizer: 'all' or a comma-separated list of "
             "memcheck,racecheck,initcheck,leakcheck; a test with sanitizer errors fails",
    )


def pytest_configure(config: Any) -> None:
    spec = config.getoption("aclsim_check", None)
    if spec:
        from .session import parse_tools

        try:
            parse_tools(spec)
        except ValueError as e:
            raise pytest.UsageError(f"--aclsim-check: {e}") from None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    spec = item.config.getoption("aclsim_check", None)
    if not spec:
        yield
        return
    from .session import Session, parse_tools

    session = Session(parse_tools(spec))
    try:
        yield
    finally:
        session.stop("the end of the test")  # leaks: what the test body allocated and did not free
    if session.report.error_count:
        out = io.StringIO()
        session.report.write_text(out)
        item.stash[_KEY] = out.getvalue()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    outcome = yield
    report = outcome.get_result()
    text = item.stash.get(_KEY, None)
    if call.when == "call" and text is not None and report.passed:
        report.outcome = "failed"
        report.longrepr = f"aclsim sanitizer found errors in {item.nodeid}:\n{text}"
