"""The reference executor: a launch run one thread at a time, in plain Python, as the oracle.

Each thread interprets the kernel's source as the front end resolved it (`front.Names`), on scalars:
numpy scalars of the C types (`ctype`), Python numbers for literals, the scalar C arithmetic of
`csem` for division, remainder and shifts. Nothing is vectorized, nothing is compiled, no fast path
exists: it is slow (tests only) and as simple as the language. The differential tests compare the numpy
engine and the numba JIT against it.

Threads are Python generators: a thread runs until it reaches a barrier (`syncthreads`) or ends, then
the next thread of its block runs; when every live thread of the block waits at the same barrier they
all go on (one that ended or waits elsewhere is a barrier divergence, a fault). Blocks run in order,
x fastest, as their threads do.

The subset: what the JIT translates plus shared, local and constant arrays, barriers, atomics and
`@simt.device` functions. Warp functions, random numbers, grid sync, print, pointer arithmetic and row
views raise SimtError naming the construct (use the numpy engine for those). Run it with
ACLSIM_SIMT_ENGINE=reference.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Generator
from typing import Any

import numpy as np

from ..runtime.gm import GlobalMemory
from ..runtime.work import KernelFault
from . import atomics, csem, front, lang
from .arrays import ConstArr
from .ctype import (
    I32,
    WEAK_COMPLEX,
    WEAK_FLOAT,
    WEAK_INT,
    binop_type,
    cast,
    common_type,
    dtype_of,
    wrap_int32,
)
from .lang import SimtError
from .memory import PtrArg
from .ops import math_call

_PYOP = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
         "pow": operator.pow, "lshift": operator.lshift, "rshift": operator.rshift, "and": operator.and_,
         "or": operator.or_, "xor": operator.xor}
_NP = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "pow": np.power, "and": np.bitwise_and,
       "or": np.bitwise_or, "xor": np.bitwise_xor, "floordiv": np.floor_divide}
_CMP = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq,
        "ne": operator.ne}


# ---------------------------------------------------------------------------- scalar C arithmetic
def binop(op: str, a: Any, b: Any) -> Any:
    """a <op> b of one thread: the C type of ctype.binop_type, the arithmetic of csem."""
    rt = binop_type(op, dtype_of(a), dtype_of(b))
    if rt is WEAK_INT:  # C int literals: Python arithmetic wrapped to int, C division and remainder
        if op == "truediv":
            return int(csem.wdiv(int(a), int(b)))
        if op == "mod":
            return int(csem.wmod(int(a), int(b)))
        return wrap_int32(_PYOP[op](int(a), int(b)))
    if rt is WEAK_FLOAT or rt is WEAK_COMPLEX:  # Python numbers in double precision
        if op == "truediv":
            return csem.fdiv(a, b) if rt is WEAK_FLOAT else a / b
        if op == "mod":
            return math.fmod(a, b) if b != 0 else math.nan
        return _PYOP[op](a, b)
    a, b = cast(a, rt), cast(b, rt)
    if rt.kind in "fc":
        if op == "truediv":
            return np.true_divide(a, b)
        if op == "mod":
            return np.fmod(a, b)
        return rt.type(_NP[op](a, b))
    z = rt.type(0)
    signed = rt.kind == "i"
    if op == "truediv":
        return rt.type(csem.idiv(a, b, z) if signed else csem.udiv(a, b, z))
    if op == "floordiv":
        return rt.type(csem.ifloordiv(a, b, z) if signed else csem.udiv(a, b, z))
    if op == "mod":
        return rt.type(csem.imod(a, b, z) if signed else csem.umod(a, b, z))
    if op in ("lshift", "rshift"):
        bits = rt.itemsize * 8
        f = csem.shl if op == "lshift" else csem.shr if signed else csem.ushr
        return rt.type(f(a, b, bits))
    return rt.type(_NP[op](a, b))


def compare(op: str, a: Any, b: Any) -> Any:
    rt = common_type(dtype_of(a), dtype_of(b))
    if rt in (WEAK_INT, WEAK_FLOAT, WEAK_COMPLEX):
        return _CMP[op](a, b)
    return np.bool_(_CMP[op](cast(a, rt), cast(b, rt)))


def unary(op: str, a: Any) -> Any:
    if op == "not":
        return not truth(a)
    d = dtype_of(a)
    if d is WEAK_INT or d is WEAK_FLOAT or d is WEAK_COMPLEX:
        if op == "invert" and d is not WEAK_INT:
            raise TypeError("~ needs an integer operand")
        v = -a if op == "neg" else ~a if op == "invert" else +a
        return wrap_int32(v) if d is WEAK_INT else v
    if d.kind == "b":
        a = cast(a, I32)
    if op == "invert" and a.dtype.kind in "fc":
        raise TypeError("~ needs an integer operand")
    return np.negative(a) if op == "neg" else np.invert(a) if op == "invert" else a


def truth(v: Any) -> bool:
    return bool(v != 0) if not isinstance(v, (bool, np.bool_)) else bool(v)


def _minmax(fn: Any, a: Any, b: Any) -> Any:
    rt = common_type(dtype_of(a), dtype_of(b))
    if rt in (WEAK_INT, WEAK_FLOAT):
        return min(a, b) if fn is np.minimum else max(a, b)
    return fn(cast(a, rt), cast(b, rt))


def _float(v: Any) -> Any:
    d = dtype_of(v)
    return v if d in (WEAK_FLOAT, WEAK_COMPLEX) or (d is not WEAK_INT and d.kind in "fc") else cast(v, np.dtype(np.float32))


# ---------------------------------------------------------------------------- execution
class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_UNDEF = object()


class Block:
    """What the threads of one block share: its index, shared arrays and the launch."""

    def __init__(self, launch: Launch, bidx: tuple[int, int, int]) -> None:
        self.launch, self.bidx = launch, bidx
        self.shared: dict[str, np.ndarray] = {}


class Launch:
    """A launch as the reference executor runs it."""

    def __init__(self, gm: GlobalMemory, kernel: Any, C: Any, vals: list) -> None:
        self.gm, self.kernel, self.C = gm, kernel, C
        self.grid, self.block = C.grid, C.block
        self.frames: dict[Any, Function] = {}
        self.vals = vals

    def function(self, fn: Any, kind: str, params: dict[str, Any]) -> Function:
        f = self.frames.get(fn)
        if f is None:
            f = self.frames[fn] = Function(front.Source(fn, kind), kind, params)
        return f

    def run(self) -> None:
        k = self.kernel
        main = self.function(k.fn, "kernel", k.declared)
        args = dict(zip(k.param_types, self.vals, strict=True))
        gx, gy, gz = self.grid
        bx, by, bz = self.block
        for b in range(gx * gy * gz):
            blk = Block(self, (b % gx, (b // gx) % gy, b // (gx * gy)))
            threads = []
            for t in range(bx * by * bz):
                th = Thread(blk, (t % bx, (t // bx) % by, t // (bx * by)))
                threads.append((th, main.call(th, [args[n] for n in k.declared], args)))
            self._run_block(threads)

    def _run_block(self, threads: list) -> None:
        live = threads
        while live:
            waiting, at = [], None
            for th, gen in live:
                try:
                    line = next(gen)
                except StopIteration:
                    continue
                waiting.append((th, gen))
                at = line if at is None else at
            if waiting and len(waiting) != len(live):
                th = next(t for t, g in live if (t, g) not in waiting)
                raise KernelFault(f"kernel '{self.kernel.name}': barrier divergence at simt.syncthreads() "
                                  f"({self.C.kernel_file}:{at}): thread {th.tidx} of block {th.block.bidx} ended "
                                  "without reaching it")
            live = waiting


class Thread:
    """One thread: its indices and local arrays."""

    def __init__(self, block: Block, tidx: tuple[int, int, int]) -> None:
        self.block, self.tidx = block, tidx
        self.line = 0


class Function:
    """A kernel or device function, interpreted per thread (`call` is a generator: it yields at barriers)."""

    def __init__(self, src: front.Source, kind: str, params: dict[str, Any]) -> None:
        self.src, self.kind, self.params = src, kind, params
        self.names = front.Names(src, kind, params)
        self.arrays: set[str] = set()

    def refuse(self, node: ast.AST, what: str) -> SimtError:
        return SimtError(f"{self.src.where(node)}: {what} is not in the reference executor ({self.src.name}); "
                         "run this kernel on the numpy engine")

    def call(self, th: Thread, args: list, extra: dict | None = None) -> Generator[int, None, Any]:
        env: dict[str, Any] = dict(zip(self.params, args, strict=True))
        if extra:
            for name, t in self.params.items():
                if isinstance(t, lang.ArrayType):
                    shape = tuple(int(extra[f"{name}.shape[{k}]"]) for k in range(t.ndim))
                    strides = tuple(int(extra[f"{name}.strides[{k}]"]) for k in range(t.ndim))
                    env[name] = (env[name], shape, strides)
        for name, t in self.params.items():
            if isinstance(t, np.dtype) and self.kind == "device":
                env[name] = cast(env[name], t)
        try:
            yield from self.block(th, env, self.src.node.body)
        except _Return as r:
            return r.value
        return None

    # -- statements -----------------------------------------------------------------------
    def block(self, th: Thread, env: dict, body: list[ast.stmt]) -> Generator[int, None, None]:
        for s in body:
            th.line = self.src.line(s)
            yield from self.stmt(th, env, s)

    def stmt(self, th: Thread, env: dict, s: ast.stmt) -> Generator[int, None, None]:
        if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            return
        if isinstance(s, ast.Assign):
            value = s.value
            decl = self.names.array_decl(value.func) if isinstance(value, ast.Call) else None
            if decl is not None:
                env[s.targets[0].id] = self.declare(th, decl, s.targets[0].id, value)
                return
            if isinstance(value, ast.Tuple):
                v = tuple((yield from self.exprs(th, env, value.elts)))
            elif isinstance(value, ast.Call) and self.names.intrinsic(value.func)[0] in ("grid", "gridsize"):
                v = self.grid(th, value)
            elif isinstance(value, ast.Attribute) and value.attr == "shape":
                v = tuple(np.int64(n) for n in self.array(env, value.value)[1])
            else:
                v = yield from self.expr(th, env, value)
            for target in s.targets:
                yield from self.store(th, env, target, v)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                v = yield from self.expr(th, env, s.value)
                yield from self.store(th, env, s.target, cast(v, self.names.annotation_dtype(s.annotation, s)))
        elif isinstance(s, ast.AugAssign):
            op = front.BINOPS[type(s.op)]
            if isinstance(s.target, ast.Subscript):
                where = yield from self.place(th, env, s.target)
                old = self.load(th, where)
                v = yield from self.expr(th, env, s.value)
                self.put(th, where, binop(op, old, v))
            else:
                old = yield from self.expr(th, env, s.target)
                v = yield from self.expr(th, env, s.value)
                env[s.target.id] = binop(op, old, v)
        elif isinstance(s, ast.If):
            c = yield from self.expr(th, env, s.test)
            yield from self.block(th, env, s.body if truth(c) else s.orelse)
        elif isinstance(s, ast.For):
            yield from self.for_(th, env, s)
        elif isinstance(s, ast.While):
            while truth((yield from self.expr(th, env, s.test))):
                try:
                    yield from self.block(th, env, s.body)
                except _Continue:
                    continue
                except _Break:
                    break
        elif isinstance(s, ast.Break):
            raise _Break()
        elif isinstance(s, ast.Continue):
            raise _Continue()
        elif isinstance(s, ast.Return):
            v = None if s.value is None else (yield from self.expr(th, env, s.value))
            raise _Return(v)
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            kind, _ = self.names.intrinsic(s.value.func)
            if kind == "sync":
                yield th.line
            elif kind != "fence":
                yield from self.expr(th, env, s.value)
        else:
            raise self.refuse(s, f"a '{type(s).__name__}' statement")

    def for_(self, th: Thread, env: dict, s: ast.For) -> Generator[int, None, None]:
        args = yield from self.exprs(th, env, s.iter.args)
        start, stop, step = [0, args[0], 1] if len(args) == 1 else [*args, 1] if len(args) == 2 else args
        if step == 0:
            raise ValueError("range() step must not be zero")
        i = binop("add", start, binop("sub", stop, stop))  # start in the common type of start and stop
        while truth(compare("lt" if step > 0 else "gt", i, stop)):
            env[s.target.id] = i
            try:
                yield from self.block(th, env, s.body)
            except _Continue:
                pass
            except _Break:
                break
            i = binop("add", i, step)

    def store(self, th: Thread, env: dict, target: ast.expr, v: Any) -> Generator[int, None, None]:
        if isinstance(target, ast.Name):
            env[target.id] = v
        elif isinstance(target, ast.Tuple):
            if not isinstance(v, tuple) or len(v) != len(target.elts):
                raise self.refuse(target, "this unpacking")
            for t, x in zip(target.elts, v, strict=True):
                yield from self.store(th, env, t, x)
        elif isinstance(target, ast.Subscript):
            where = yield from self.place(th, env, target)
            self.put(th, where, v)
        else:
            raise self.refuse(target, "this assignment")

    def declare(self, th: Thread, kind: str, name: str, call: ast.Call) -> Any:
        if kind == "const":
            host = self.names.constant(call.args[0])
            return ConstArr(name, host).data.reshape(host.shape)
        shape = self.names.constant(call.args[0] if call.args else call.keywords[0].value)
        dtype = np.dtype(self.names.constant(call.args[1] if len(call.args) > 1 else
                                             next(k.value for k in call.keywords if k.arg == "dtype")))
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if kind == "local":
            return np.zeros(shape, dtype)
        key = f"{self.src.name}:{self.src.line(call)}"
        sh = th.block.shared
        if shape == (0,):  # dynamic: a typed view of the block's dynamic shared bytes
            raw = sh.get("<dynamic>")
            if raw is None:
                raw = sh["<dynamic>"] = np.zeros(th.block.launch.C.dyn_shared_bytes, np.uint8)
            return raw[: raw.size // dtype.itemsize * dtype.itemsize].view(dtype)
        if key not in sh:
            sh[key] = np.zeros(shape, dtype)
        return sh[key]

    # -- memory -----------------------------------------------------------------------------
    def array(self, env: dict, node: ast.expr) -> Any:
        if not isinstance(node, ast.Name) or node.id not in env:
            raise self.refuse(node, f"indexing '{ast.unparse(node)}'")
        return env[node.id]

    def place(self, th: Thread, env: dict, node: ast.Subscript) -> Generator[int, None, tuple]:
        arr = self.array(env, node.value)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        idx = tuple((yield from self.exprs(th, env, parts)))
        for i in idx:
            if dtype_of(i) is WEAK_FLOAT or (dtype_of(i) is not WEAK_INT and dtype_of(i).kind not in "iub"):
                raise TypeError(f"the index must be an integer, got {dtype_of(i)}")
        return arr, tuple(int(i) for i in idx), node.value.id

    def _global(self, th: Thread, arr: Any, idx: tuple, name: str) -> tuple[np.ndarray, int]:
        """(array, position) of an element of global memory, through the GM door's bounds rule."""
        if isinstance(arr, tuple):  # an array parameter: (pointer, shape, strides)
            P, shape, strides = arr
            if len(idx) != len(shape):
                raise TypeError(f"'{name}' has {len(shape)} dimension(s), indexed with {len(idx)}")
            if any(not 0 <= i < n for i, n in zip(idx, shape, strict=True)):
                at = idx[0] if len(idx) == 1 else idx
                raise KernelFault(f"kernel '{th.block.launch.kernel.name}': index {at} out of bounds of the device "
                                  f"array '{name}' (shape {shape}) by {self.who(th)} at {self.where(th)}")
            k = sum(i * s for i, s in zip(idx, strides, strict=True))
        else:
            P, (k,) = arr, idx
        gm = th.block.launch.gm
        addr = P.addr + k * P.isz
        if P.alloc is not None and -P.n_lo <= k < P.n_hi:
            return P.full, k + P.n_lo
        verdict = gm.check(addr, P.isz, P.addr, P.dtype)
        if verdict.faults:
            raise KernelFault(f"kernel '{th.block.launch.kernel.name}': illegal address {addr:#x} in {name}[{k}] by "
                              f"{self.who(th)} at {self.where(th)}: {verdict.text}")
        view, base = gm.device_view(addr, P.dtype)
        return view, (addr - base) // P.isz

    def load(self, th: Thread, where: tuple) -> Any:
        arr, idx, name = where
        if type(arr) is PtrArg or isinstance(arr, tuple):
            view, k = self._global(th, arr, idx, name)
            return view[k]
        return arr[self._local(th, arr, idx, name)]

    def put(self, th: Thread, where: tuple, v: Any) -> None:
        arr, idx, name = where
        if type(arr) is PtrArg or isinstance(arr, tuple):
            view, k = self._global(th, arr, idx, name)
            view[k] = cast(v, view.dtype)
        else:
            if not arr.flags.writeable:
                raise TypeError(f"the constant array '{name}' is read-only")
            arr[self._local(th, arr, idx, name)] = cast(v, arr.dtype)

    def _local(self, th: Thread, arr: np.ndarray, idx: tuple, name: str) -> tuple:
        if len(idx) != arr.ndim:
            raise TypeError(f"'{name}' has {arr.ndim} dimension(s), indexed with {len(idx)}")
        if any(not 0 <= i < n for i, n in zip(idx, arr.shape, strict=True)):
            raise KernelFault(f"kernel '{th.block.launch.kernel.name}': index {idx[0] if len(idx) == 1 else idx} "
                              f"out of range of the array '{name}' (shape {arr.shape}) by {self.who(th)} at "
                              f"{self.where(th)}")
        return idx

    def who(self, th: Thread) -> str:
        return f"block {th.block.bidx} thread {th.tidx}"

    def where(self, th: Thread) -> str:
        return f"{self.src.file}:{th.line}"

    # -- expressions ------------------------------------------------------------------------
    def exprs(self, th: Thread, env: dict, nodes: list[ast.expr]) -> Generator[int, None, list]:
        out = []
        for n in nodes:
            out.append((yield from self.expr(th, env, n)))
        return out

    def expr(self, th: Thread, env: dict, node: ast.expr) -> Generator[int, None, Any]:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.names.locals:
                v = env.get(node.id, _UNDEF)
                if v is _UNDEF:
                    raise TypeError(f"the variable '{node.id}' is read before it is assigned")
                return v
            obj = self.names.resolve(node)
            return self.special(th, obj) if isinstance(obj, lang._Special) else self.names.global_value(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(th, env, node)
        if isinstance(node, ast.BinOp):
            a = yield from self.expr(th, env, node.left)
            b = yield from self.expr(th, env, node.right)
            return binop(front.BINOPS[type(node.op)], a, b)
        if isinstance(node, ast.UnaryOp):
            v = yield from self.expr(th, env, node.operand)
            return unary(front.UNARY[type(node.op)], v)
        if isinstance(node, ast.Compare):
            left, r = (yield from self.expr(th, env, node.left)), True
            for op, right in zip(node.ops, node.comparators, strict=True):
                value = yield from self.expr(th, env, right)
                r = compare(front.CMPOPS[type(op)], left, value)
                if not truth(r):
                    return r
                left = value
            return r
        if isinstance(node, ast.BoolOp):
            v = None
            for e in node.values:
                v = truth((yield from self.expr(th, env, e)))
                if v != isinstance(node.op, ast.And):
                    return v
            return v
        if isinstance(node, ast.IfExp):  # (the arm taken, as a uniform condition gives on the numpy engine)
            c = yield from self.expr(th, env, node.test)
            return (yield from self.expr(th, env, node.body if truth(c) else node.orelse))
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                return np.int64(self.array(env, node.value.value)[1][self.names.constant(node.slice)])
            where = yield from self.place(th, env, node)
            return self.load(th, where)
        if isinstance(node, ast.Call):
            return (yield from self.call_expr(th, env, node))
        raise self.refuse(node, f"the expression {type(node).__name__}")

    def attribute(self, th: Thread, env: dict, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id in self.names.locals:
            v = env[node.value.id]
            if isinstance(v, tuple):  # an array parameter
                if node.attr == "size":
                    return np.int64(math.prod(v[1]))
                if node.attr == "ndim":
                    return len(v[1])
            if node.attr in ("real", "imag"):
                return getattr(v, node.attr)
            raise self.refuse(node, f"'{ast.unparse(node)}'")
        base = self.names.resolve(node.value)
        if isinstance(base, lang._Index):
            C = th.block.launch.C
            k = "xyz".index(node.attr)
            return np.uint32({"threadIdx": th.tidx, "blockIdx": th.block.bidx, "blockDim": C.block,
                              "gridDim": C.grid}[base._name][k])
        return self.names.global_value(node)

    def special(self, th: Thread, obj: Any) -> Any:
        if obj is lang.warpsize:
            return lang.WARP_SIZE
        bx, by, _ = th.block.launch.C.block
        x, y, z = th.tidx
        return np.uint32((x + (y + z * by) * bx) & (lang.WARP_SIZE - 1))

    def grid(self, th: Thread, call: ast.Call) -> tuple:
        kind = self.names.intrinsic(call.func)[0]
        C = th.block.launch.C
        nd = self.names.ndim(call)
        if kind == "grid":
            out = tuple(binop("add", binop("mul", np.uint32(th.block.bidx[d]), np.uint32(C.block[d])),
                              np.uint32(th.tidx[d])) for d in range(nd))
        else:
            out = tuple(binop("mul", np.uint32(C.block[d]), np.uint32(C.grid[d])) for d in range(nd))
        return out if nd > 1 else out[0]

    def call_expr(self, th: Thread, env: dict, node: ast.Call) -> Generator[int, None, Any]:
        kind, data = self.names.intrinsic(node.func)
        if kind in ("grid", "gridsize"):
            return self.grid(th, node)
        if kind == "len":
            return np.int64(self.array(env, node.args[0])[1][0])
        if kind == "atomic":
            if data == "compare_and_swap":
                raise self.refuse(node, f"{ast.unparse(node.func)}()")
            base = self.array(env, node.args[0])
            idx = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            k = tuple(int(x) for x in (yield from self.exprs(th, env, idx)))
            rest = yield from self.exprs(th, env, node.args[2:])
            where = (base, k, node.args[0].id)
            old = self.load(th, where)
            cmp, v = rest if data == "cas" else (None, rest[0])
            self.put(th, where, atomics.apply(data, old, cast(v, old.dtype),
                                              None if cmp is None else cast(cmp, old.dtype))[()])
            return old
        if kind == "device":
            callee = th.block.launch.function(data.fn, "device function", data.params())
            args = []
            for a in node.args:
                if isinstance(a, ast.Name) and isinstance(env.get(a.id), (PtrArg, tuple, np.ndarray)):
                    args.append(env[a.id])  # pointers and arrays pass through
                else:
                    args.append((yield from self.expr(th, env, a)))
            return (yield from callee.call(th, args))
        if kind in ("warp", "rng", "this_grid", "syncred", "print"):
            raise self.refuse(node, f"{ast.unparse(node.func)}()")
        args = yield from self.exprs(th, env, node.args)
        if kind == "cast":
            if len(args) == 2:
                return data.type(complex(float(args[0]), float(args[1])))
            return cast(args[0], data)
        if kind == "math":
            return math_call(data, *args)
        if kind == "minmax":
            r = args[0]
            for x in args[1:]:
                r = _minmax(data, r, x)
            return r
        if kind == "abs":
            return abs(args[0]) if isinstance(args[0], (int, float)) else np.absolute(args[0])
        if kind == "rsqrt":
            x = _float(args[0])
            return 1.0 / math.sqrt(x) if isinstance(x, float) else np.reciprocal(np.sqrt(x))
        if kind == "fma":
            return binop("add", binop("mul", args[0], args[1]), args[2])
        raise self.refuse(node, f"calling {ast.unparse(node.func)}")


def execute(gm: GlobalMemory, task: Any, C: Any, kernel: Any, vals: list) -> None:
    """Run one launch on the reference executor (every thread, one at a time)."""
    if getattr(kernel, "rules", "c") != "c":
        raise SimtError(f"kernel {kernel.name}: the reference executor computes with simt's C rules only; "
                        "numba.cuda-face kernels (numba's rules) run on the numpy engine")
    with np.errstate(all="ignore"):
        try:
            Launch(gm, kernel, C, vals).run()
        except (KernelFault, SimtError):
            raise
        except Exception as e:
            raise KernelFault(f"kernel '{kernel.name}' failed on the reference executor: {type(e).__name__}: {e}") from e

