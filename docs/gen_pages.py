"""Write the generated pages of the docs site: `python docs/gen_pages.py`.

- docs/coverage/pyasc.md: `aclsim.asc.coverage.table()` (which pyasc 1.1.1 names aclsim emulates);
- docs/examples.md: every program in examples/, with the first paragraph of its docstring.

tests/test_docs.py regenerates both and fails when a committed page differs: run this script and commit
the pages.
"""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

PYASC_HEADER = """\
# Coverage: pyasc names

Every public name of the pyasc 1.1.1 wheel (`src/aclsim/asc/pyasc_names.txt`), and whether `aclsim.asc`
emulates it. A name marked *no* fails where a kernel uses it, with
`asc.X is a pyasc API that aclsim does not emulate (yet) (at file:line in kernel)`; the notes say where an
emulated name stops. This page is generated from the code by `python docs/gen_pages.py`
(`aclsim.asc.coverage.table()`), and a test keeps it current. The guides:
[Ascend C kernels](../asc.md) and [the Cube unit](../asc-cube.md).

"""

EXAMPLES_HEADER = """\
# Examples

Every program in `examples/`, run by the test suite. Run one from the activated checkout with
`aclsim run examples/...` (the Ascend C and SIMT programs also run as plain `python` scripts). This page
is generated from the programs' docstrings by `python docs/gen_pages.py`.
"""

FOLDERS = {
    "": ("pyACL programs and SIMT kernels", "[pyACL programs](pyacl.md), [SIMT kernels](simt.md)"),
    "asc": ("Ascend C kernels", "[Ascend C kernels](asc.md), [the Cube unit](asc-cube.md)"),
    "models": ("Models and pictures", "[Models, operators and images](models.md)"),
    "pitfalls": ("Pitfalls: one classic bug each",
                 "[Finding bugs](checking.md); each marks its bug with `# BUG` and runs fixed with `--fixed`"),
    "errors": ("Errors aclsim reports without `--check`",
               "each fails on purpose, to show the message"),
}


def _summary(path: Path) -> str:
    """The first paragraph of a program's docstring, on one line."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n")[0].split())


def examples_page() -> str:
    lines = [EXAMPLES_HEADER]
    examples = ROOT / "examples"
    folders = sorted({p.parent.relative_to(examples).as_posix() for p in examples.rglob("*.py")} - {"."})
    for folder in ["", *folders]:
        title, see = FOLDERS.get(folder, (f"`examples/{folder}/`", ""))
        lines += [f"## {title}", ""]
        if see:
            lines += [f"See {see}.", ""]
        lines += ["| program | what it shows |", "|---|---|"]
        for p in sorted((examples / folder).glob("*.py")):
            summary = _summary(p).replace("|", "\\|")
            lines.append(f"| `{p.relative_to(ROOT).as_posix()}` | {summary} |")
        lines.append("")
    return "\n".join(lines)


def pages() -> dict[Path, str]:
    """Each generated page and its text."""
    from aclsim.asc import coverage

    return {
        HERE / "coverage" / "pyasc.md": PYASC_HEADER + coverage.table(),
        HERE / "examples.md": examples_page(),
    }


if __name__ == "__main__":
    for path, text in pages().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
