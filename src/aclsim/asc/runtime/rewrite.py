"""Source rewrite of `@asc.jit` functions: `with mm.iterate() as count:` becomes a loop.

pyasc compiles that `with` into an `scf.while` over the Matmul's base blocks (`adv/matmul.py`,
`MatmulIterator.__enter__`); a Python `with` body runs once, so aclsim recompiles the function
with `for count in mm.iterate():` in its place, keeping the file name and line numbers.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable


class _IterateLoops(ast.NodeTransformer):
    def __init__(self) -> None:
        self.changed = False

    def visit_With(self, node: ast.With) -> ast.AST:
        self.generic_visit(node)
        if len(node.items) != 1:
            return node
        item = node.items[0]
        call = item.context_expr
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "iterate"):
            return node
        self.changed = True
        target = item.optional_vars or ast.Name("_", ast.Store())
        return ast.copy_location(ast.For(target=target, iter=call, body=node.body, orelse=[]), node)


def iterate_loops(fn: Callable) -> Callable:
    """`fn` with its `with x.iterate(...)` blocks turned into loops (`fn` itself when it has none)."""
    code = fn.__code__
    if "iterate" not in code.co_names or fn.__closure__:
        return fn
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return fn
    tree = ast.parse(source)
    ast.increment_lineno(tree, code.co_firstlineno - 1)
    rewriter = _IterateLoops()
    tree = rewriter.visit(tree)
    if not rewriter.changed:
        return fn
    tree.body[0].decorator_list = []
    namespace: dict = {}
    exec(compile(ast.fix_missing_locations(tree), code.co_filename, "exec"), fn.__globals__, namespace)
    new = namespace[fn.__name__]
    new.__defaults__, new.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    return new
