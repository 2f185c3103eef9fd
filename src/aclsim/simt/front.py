"""The SIMT front end: what a kernel's source means, decided once for every back end.

A kernel (or device function) is parsed once (`Source`); `Names` resolves every name it uses, at
compile time, to a local variable or parameter, a compile-time constant, a simt/numba intrinsic
(`INTRINSICS`: thread indices, barriers, atomics, math, casts, ...), a `@simt.device` function or a
declaration of shared/local/constant memory, and refuses anything outside the language with the
construct and the source line (`refuse`). The operator tables (`BINOPS`, ...) and the questions back
ends ask of a function body (`has`, `assigned_names`, `may_exit`, `written_pointers`) live here too.

Back ends built on it: the numpy engine (`compiler`: vectorized Python over the lanes of a chunk),
the numba JIT (`jit`: compiled Python, one thread after another or interleaved) and the per-thread
reference executor (`reference`: the oracle the differential tests compare both against). The C
arithmetic they share is `ctype` (types: C's usual conversions, weak Python literals) and `csem`
(the scalar semantics of division, remainder and shifts; `ops` is its vector form). A new back end
(native C++) starts from `Names` and those two.
"""

from __future__ import annotations

import ast
import builtins
import cmath
import enum
import inspect
import math
import operator
import textwrap
from typing import Any

import numpy as np

from . import lang, mathfns
from .ctype import scalar_dtype
from .lang import DeviceFunction, SimtError
from .mathfns import MATH, UFUNC_NAMES
from .ntype import CAST as NUMBA_CASTS

BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift", ast.BitAnd: "and",
    ast.BitOr: "or", ast.BitXor: "xor",
}
CONST_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "not"}
CONSTRUCTS = {
    ast.With: "a 'with' statement", ast.AsyncWith: "an 'async with' statement", ast.Try: "a 'try' statement",
    ast.Raise: "a 'raise' statement", ast.Assert: "an 'assert' statement", ast.Import: "an 'import' statement",
    ast.ImportFrom: "an 'import' statement", ast.Global: "a 'global' statement", ast.Nonlocal: "a 'nonlocal' statement",
    ast.FunctionDef: "a nested function", ast.AsyncFunctionDef: "a nested function", ast.ClassDef: "a class definition",
    ast.Delete: "a 'del' statement", ast.Lambda: "a lambda", ast.Yield: "a generator ('yield')",
    ast.YieldFrom: "a generator ('yield from')", ast.Await: "'await'", ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension", ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression",
    ast.List: "a list", ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "an f-string", ast.Starred: "'*' unpacking",
    ast.NamedExpr: "the ':=' operator", ast.Slice: "a slice (index one element at a time)",
}
if hasattr(ast, "Match"):
    CONSTRUCTS[ast.Match] = "a 'match' statement"

ARRAY_DECLS = {lang._Shared.array: "shared", lang._Local.array: "local", lang._Const.array_like: "const"}
# Objects a kernel may call, by identity -> (kind, data).
INTRINSICS: dict[int, tuple[str, Any]] = {}


def _register() -> None:
    def add(obj: Any, kind: str, data: Any = None) -> None:
        INTRINSICS[id(obj)] = (kind, data)

    add(lang.syncthreads, "sync")
    for op in ("count", "and", "or"):
        add(getattr(lang, f"syncthreads_{op}"), "syncred", op)
    for f in (lang.threadfence, lang.threadfence_block, lang.threadfence_system):
        add(f, "fence")
    for name in lang.WARP_FUNCTIONS:
        add(getattr(lang, name), "warp", name)
    add(lang.this_grid, "this_grid")
    for name, k in lang.RNG_FUNCTIONS.items():
        add(getattr(lang, name), "rng", k)
    add(lang.grid, "grid")
    add(lang.gridsize, "gridsize")
    for op in lang.ATOMIC_OPS:
        add(getattr(lang, f"atomic_{op}"), "atomic", op)
    add(lang.atomic_cas, "atomic", "cas")
    add(lang.atomic_compare_and_swap, "atomic", "compare_and_swap")
    for name, fn in MATH.items():
        add(getattr(lang, name), "math", fn)
        if hasattr(math, name):
            add(getattr(math, name), "math", fn)
    for uf, name in UFUNC_NAMES.items():
        add(uf, "math", MATH[name])
    add(lang.rsqrt, "rsqrt")
    add(lang.fma, "fma")
    for name in lang.BIT_FUNCTIONS:
        add(getattr(lang, name), "bits", name)
    add(int.bit_count, "bits", "popc")  # x.bit_count() is resolved by the back ends (a method of a value)
    add(lang.selp, "selp")
    for name in lang.FP16_FUNCTIONS:
        add(getattr(lang.fp16, name), "fp16", name)
    add(builtins.round, "round")
    for name in mathfns.CMATH:
        add(getattr(cmath, name), "cmath", name)
    for op in BINOPS.values():  # the operator module: operator.add(a, b) is a + b
        add(getattr(operator, {"and": "and_", "or": "or_"}.get(op, op)), "pyop", ("bin", op))
    for op in CMPOPS.values():
        add(getattr(operator, op), "pyop", ("cmp", op))
    for name, op in (("neg", "neg"), ("pos", "pos"), ("invert", "invert"), ("not_", "not")):
        add(getattr(operator, name), "pyop", ("un", op))
    add(builtins.pow, "math", MATH["pow"])
    for obj in (lang.min, builtins.min, np.minimum):
        add(obj, "minmax", np.minimum)
    for obj in (lang.max, builtins.max, np.maximum):
        add(obj, "minmax", np.maximum)
    for obj in (lang.abs, builtins.abs, np.abs):
        add(obj, "abs")
    add(builtins.range, "range")
    add(builtins.enumerate, "iter", "enumerate")
    add(builtins.zip, "iter", "zip")
    add(builtins.len, "len")
    add(builtins.print, "print")


_register()


class Source:
    """A function's parsed source with the offsets that map ast lines back to the file.

    `bound`: parameters of a device function bound to compile-time values by its caller (see
    Names.static); they resolve like globals, ahead of every other scope."""

    def __init__(self, fn: Any, what: str, bound: dict[str, Any] | None = None) -> None:
        self.fn = fn
        self.name = fn.__name__
        try:
            lines, first = inspect.getsourcelines(fn)
            self.file = inspect.getsourcefile(fn) or "<unknown>"
        except (OSError, TypeError) as e:
            raise SimtError(f"{what} {fn.__name__}: its source code is not available ({e})") from None
        text = textwrap.dedent("".join(lines))
        node = _lambda_def(fn, text) if fn.__name__ == "<lambda>" else ast.parse(text).body[0]
        if not isinstance(node, ast.FunctionDef):
            raise SimtError(f"{what} {fn.__name__} must be a plain 'def' function")
        self.node = node
        self.offset = first - 1
        closure = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ()), strict=False))
        self.scope = [dict(bound or {}), closure, fn.__globals__, vars(builtins)]

    def line(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 1) + self.offset

    def where(self, node: ast.AST) -> str:
        return f"{self.file}:{self.line(node)}"

    def lookup(self, name: str) -> Any:
        for d in self.scope:
            if name in d:
                return d[name]
        raise KeyError(name)


def _lambda_def(fn: Any, text: str) -> ast.FunctionDef | None:
    """A lambda (`cuda.Reduce(lambda a, b: a + b)`) as the def it stands for: found in the statement
    inspect gives for it by its parameter names (None when that is not exactly one lambda)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    names = list(fn.__code__.co_varnames[: fn.__code__.co_argcount])
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and [a.arg for a in n.args.args] == names]
    if len(found) != 1:
        return None
    lam = found[0]
    node = ast.FunctionDef(name="lambda_", args=lam.args, body=[ast.copy_location(ast.Return(lam.body), lam)],
                           decorator_list=[], returns=None)
    return ast.fix_missing_locations(ast.copy_location(node, lam))


def assigned_names(node: ast.FunctionDef) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
    return out


def has(stmts: list[ast.stmt], kinds: tuple[type, ...], into_loops: bool) -> bool:
    """Whether the statements contain a node of `kinds` (optionally not looking inside nested loops)."""
    stack: list[ast.AST] = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if not into_loops and isinstance(n, (ast.For, ast.While)):
            continue
        stack.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt))
    return False


def may_exit(s: ast.stmt) -> bool:
    """Whether executing s can leave some lanes stopped (break/continue of this loop, or return)."""
    return has([s], (ast.Break, ast.Continue), into_loops=False) or has([s], (ast.Return,), into_loops=True)



def written_pointers(node: ast.FunctionDef) -> set[str]:
    """Names stored to through subscripts or atomics (conservative: any atomic or device call counts)."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                for s in ast.walk(t):
                    if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name):
                        out.add(s.value.id)
        if isinstance(n, ast.Call):
            for a in n.args:
                if isinstance(a, ast.Name):
                    out.add(a.id)  # passed to an atomic or a device function: may be written
    return out


def _numeric(obj: Any) -> bool:
    """A number, or a tuple of numbers (nested): a constant a kernel may read."""
    if isinstance(obj, tuple):  # named tuples too
        return all(map(_numeric, obj))
    return type(obj) in (int, float, bool, complex) or isinstance(obj, (np.integer, np.floating, np.bool_))


_AS_DEVICE: dict[int, tuple[Any, DeviceFunction]] = {}


def device_of(obj: Any) -> DeviceFunction | None:
    """A jitted function called from a kernel runs as a device function, as numba's dispatchers do: a
    face's kernel object (its `__simt_device__`) or a numba dispatcher (@numba.njit: its `py_func`)."""
    dev = getattr(obj, "__simt_device__", None)
    if dev is not None:
        return dev
    if type(obj).__module__.startswith("numba.") and callable(getattr(obj, "py_func", None)):
        hit = _AS_DEVICE.get(id(obj))
        if hit is None or hit[0] is not obj:
            hit = _AS_DEVICE[id(obj)] = (obj, DeviceFunction(obj.py_func))
        return hit[1]
    return None


def is_number(v: Any) -> bool:
    return type(v) in (int, float, bool, complex) or isinstance(v, (np.number, np.bool_))


NOT_STATIC = object()  # Names.static: the argument is a run-time value


def device_params(dev: DeviceFunction) -> list[tuple[str, bool]]:
    """(name, may be bound to a compile-time value) of each parameter of a device function: those that
    carry no annotation and are never assigned in its body may."""
    if dev.source is None:
        dev.source = Source(dev.fn, "device function")
    assigned = assigned_names(dev.source.node)
    typed = dev.params()
    return [(a.arg, typed.get(a.arg) is None and a.arg not in assigned) for a in dev.source.node.args.args]


def static_key(bound: dict[str, Any]) -> tuple:
    """A hashable key of a device function's bound parameters (1, 1.0 and True stay apart)."""
    def key(v: Any) -> Any:
        if type(v) is tuple:
            return ("tuple", *map(key, v))
        try:
            hash(v)
        except TypeError:
            return ("id", id(v))
        return (type(v), v)

    return tuple(sorted((n, key(v)) for n, v in bound.items()))


def _lookup(names: Names, name: str) -> Any:
    try:
        return names.src.lookup(name)
    except KeyError:
        return None


def range_loop(names: Names, s: ast.For, counter: str) -> ast.For | None:
    """`for v in a`, `for i, v in enumerate(a[, start])`, `for x, y in zip(a, b)` (nested as numba allows)
    as the range loop they mean: `for counter in range(len(a)): v = a[counter]; ...`. None when s
    already iterates over range() or over something else (the caller refuses it)."""
    it = s.iter
    if isinstance(it, ast.Call) and names.intrinsic(it.func)[0] == "range":
        return None
    k = ast.Name(counter, ast.Load())

    def items(target: ast.expr, src: ast.expr) -> tuple[list[ast.stmt], list[ast.expr]] | None:
        """The assignments binding target for element k of src, and the lengths that bound the loop."""
        if isinstance(src, ast.Call) and not src.keywords:
            kind, data = names.intrinsic(src.func)
            if kind == "iter" and data == "enumerate" and 1 <= len(src.args) <= 2:
                if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                    return None
                inner = items(target.elts[1], src.args[0])
                if inner is None:
                    return None
                index = ast.BinOp(k, ast.Add(), src.args[1]) if len(src.args) == 2 else k
                return [ast.Assign([target.elts[0]], index), *inner[0]], inner[1]
            if kind == "iter" and data == "zip" and src.args:
                if not (isinstance(target, ast.Tuple) and len(target.elts) == len(src.args)):
                    return None
                stmts, lengths = [], []
                for t, a in zip(target.elts, src.args, strict=True):
                    one = items(t, a)
                    if one is None:
                        return None
                    stmts += one[0]
                    lengths += one[1]
                return stmts, lengths
            return None
        if isinstance(src, ast.Name) and (src.id in names.locals or isinstance(_lookup(names, src.id), tuple)):
            # an array, or a constant tuple
            return [ast.Assign([target], ast.Subscript(src, k, ast.Load()))], \
                [ast.Call(ast.Name("len", ast.Load()), [src], [])]
        return None

    found = items(s.target, it)
    if found is None:
        return None
    stmts, lengths = found
    stop = lengths[0] if len(lengths) == 1 else ast.Call(ast.Name("min", ast.Load()), lengths, [])
    loop = ast.For(ast.Name(counter, ast.Store()), ast.Call(ast.Name("range", ast.Load()), [stop], []),
                   stmts + s.body, [])
    ast.copy_location(loop, s)
    return ast.fix_missing_locations(loop)  # the generated nodes report the loop's line


class Names:
    """Name resolution and refusals of one kernel or device function (`kind`), with its parameters."""

    def __init__(self, src: Source, kind: str, params: dict[str, Any], rules: str = "c") -> None:
        self.src, self.kind, self.rules = src, kind, rules
        self.locals = assigned_names(src.node) | set(params)  # every other name is resolved at compile time
        self.nested = self._nested_functions()

    def _nested_functions(self) -> set[int]:
        """`def inner(...)` at the top of the body: a device function (numba compiles closures too), made
        from the same file so its source stays readable; it may use globals, the enclosing function's
        compile-time values and its locals assigned once from a literal (`y = 10`). The ids of those
        statements (the back ends skip them)."""
        defs = [st for st in self.src.node.body if isinstance(st, ast.FunctionDef)]
        if not defs:
            return set()
        once: dict[str, Any] = {}
        counts: dict[str, int] = {}
        for n in ast.walk(self.src.node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                counts[n.id] = counts.get(n.id, 0) + 1
        for st in self.src.node.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                    and isinstance(st.value, ast.Constant) and counts.get(st.targets[0].id) == 1:
                once[st.targets[0].id] = st.value.value
        ns: dict[str, Any] = {}
        for d in reversed(self.src.scope[:-1]):
            ns.update(d)
        ns.update(once)
        for d in defs:
            tree = ast.increment_lineno(ast.Module([d], []), self.src.offset)
            try:
                exec(compile(tree, self.src.file, "exec"), ns)
            except Exception as e:
                raise self.refuse(d, f"the nested function '{d.name}' ({type(e).__name__}: {e})") from None
            obj = ns[d.name]
            if not isinstance(obj, DeviceFunction) and device_of(obj) is None:
                obj = ns[d.name] = DeviceFunction(obj)
            self.src.scope[0][d.name] = obj
        return {id(d) for d in defs}

    def refuse(self, node: ast.AST, what: str, hint: str = "") -> SimtError:
        return SimtError(
            f"{self.src.where(node)}: {what} is not supported in a simt {self.kind} ({self.src.name})"
            + (f"; {hint}" if hint else "")
        )

    # -- functions ------------------------------------------------------------------------

    def annotation_dtype(self, ann: ast.expr, node: ast.AST) -> np.dtype:
        obj = self.resolve(ann)
        dt = scalar_dtype(obj)
        if dt is None:
            raise self.refuse(node, f"the annotation '{ast.unparse(ann)}'", "use a numpy scalar type, int or float")
        return dt

    def global_value(self, node: ast.expr) -> Any:
        obj = self.resolve(node)
        if isinstance(obj, enum.Enum) and _numeric(obj.value):  # numba compares enum members by value
            return obj.value
        if _numeric(obj):
            return obj
        raise self.refuse(node, f"the global '{ast.unparse(node)}' (a {type(obj).__name__})",
                          "kernels may read numeric constants, call @simt.device functions and simt/math functions")

    def resolve(self, node: ast.expr) -> Any:
        """The Python object a global name or attribute chain refers to (resolved at compile time)."""
        if isinstance(node, ast.Name):
            if node.id in self.locals:
                raise self.refuse(node, f"using the local variable '{node.id}' here")
            try:
                return self.src.lookup(node.id)
            except KeyError:
                raise self.refuse(node, f"the undefined name '{node.id}'") from None
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            try:
                return getattr(base, node.attr)
            except AttributeError:
                raise self.refuse(node, f"'{ast.unparse(node)}' (no such attribute)") from None
            except SimtError:
                raise self.refuse(node, f"'{ast.unparse(node)}'") from None
        raise self.refuse(node, f"the expression '{ast.unparse(node)}' in this position")

    def constant(self, node: ast.expr) -> Any:
        """A compile-time constant: literal, tuple of constants or global constant."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Tuple):
            return tuple(self.constant(e) for e in node.elts)
        if isinstance(node, ast.BinOp) and type(node.op) in CONST_OPS:
            a, b = self.constant(node.left), self.constant(node.right)
            if type(a) is int and type(b) is int:
                return CONST_OPS[type(node.op)](a, b)
            raise self.refuse(node, f"the constant expression '{ast.unparse(node)}'", "use integer constants")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.constant(node.operand)
        obj = self.resolve(node)
        return int(obj) if isinstance(obj, np.integer) else obj

    def static(self, node: ast.expr) -> Any:
        """The compile-time value of a device-function argument, or NOT_STATIC: literals, global names
        (types, functions, intrinsics, device functions, numeric constants) and tuples of them, as numba
        specializes a device function on such arguments (a dtype or shape passed down to shared.array,
        cuda.atomic.add passed as a function)."""
        if isinstance(node, ast.Tuple):
            vals = [self.static(e) for e in node.elts]
            return NOT_STATIC if any(v is NOT_STATIC for v in vals) else tuple(vals)
        if isinstance(node, ast.Constant):
            return node.value if type(node.value) in (int, float, bool, complex, str) or node.value is None \
                else NOT_STATIC
        if isinstance(node, (ast.Name, ast.Attribute)):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or root.id in self.locals:
                return NOT_STATIC
            try:
                obj = self.resolve(node)
            except SimtError:
                return NOT_STATIC
            return NOT_STATIC if isinstance(obj, (np.ndarray, lang._Index)) else obj
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            try:
                v = self.constant(node)
            except (SimtError, TypeError):
                return NOT_STATIC
            return v if type(v) in (int, float) else NOT_STATIC
        return NOT_STATIC

    def ndim(self, call: ast.Call) -> int:
        name = ast.unparse(call.func)
        try:
            nd = self.constant(call.args[0]) if len(call.args) == 1 and not call.keywords else None
        except SimtError:
            nd = None
        if type(nd) is not int or not 1 <= nd <= 3:
            raise self.refuse(call, f"{name} without a constant number of dimensions", f"call it as {name}(1), (2) or (3)")
        return nd

    def intrinsic(self, func: ast.expr) -> tuple[str, Any]:
        if isinstance(func, ast.Name) and func.id in self.locals:
            return ("local", None)
        try:
            obj = self.resolve(func)
        except SimtError:
            return ("unknown", None)
        hit = INTRINSICS.get(id(obj))
        if hit is not None:
            return hit
        if isinstance(obj, DeviceFunction):
            return ("device", obj)
        dev = device_of(obj)
        if dev is not None:
            return ("device", dev)
        if self.rules == "numba" and obj in NUMBA_CASTS:
            return ("cast", NUMBA_CASTS[obj])  # int(x) is an int64 under numba's rules
        dt = scalar_dtype(obj)
        if dt is not None:
            return ("cast", dt)
        return ("unknown", obj)

    def array_decl(self, func: ast.expr) -> str | None:
        """'shared', 'local' or 'const' when func is simt.shared.array / local.array / const.array_like."""
        try:
            obj = self.resolve(func)
        except SimtError:
            return None
        return ARRAY_DECLS.get(getattr(obj, "__func__", None))
