"""The compiled CPU path of simple SIMT kernels: numba's JIT runs the kernel one thread after another.

Used only when numba imports (the `jit` extra), `ACLSIM_SIMT_JIT` is not "0", nobody observes kernel
accesses (no `--check`) and the kernel is in the subset translated here: `Ptr` parameters and scalars
of int32/uint32/int64/uint64/float32/float64, thread/block indices, grid()/gridsize(), arithmetic,
if/for/while/break/continue/return, exact math functions. Anything else runs on the numpy engine.
By default only kernels with a loop take this path (straight-line kernels are already at numpy's
speed there); `ACLSIM_SIMT_JIT=1` takes it for every kernel in the subset.

A back end of the front end (`front`: names resolved, constructs refused, the same C rules of
`ctype.common_type` and the scalar C arithmetic of `csem`), it types the kernel statically: every
operation casts its operands to the C result type and its result back to it, since numba's own
promotion differs (int32 + int32 is int64 there). A construct whose
type the numpy engine decides per launch (a variable bound to values of different types, a Python
float variable, a weak int mixed with a float literal) is not translated.

Faults: every global access is checked against its pointer's own allocation (the numpy engine's
fast path). Outside it, or where the numpy engine would fail (a zero range step), the compiled code
raises `JitFault`; the written allocations are then restored and the launch runs again on the
numpy engine, which reports the same KernelFault it always does (or, for an access landing in
another live allocation, completes it as before). Threads run in order, one at a time, except in a
loop of register updates with block-uniform bounds (a matmul's `for k`), which runs trip by trip over
all threads of a block (_Gen.lane_plan); either way a kernel whose threads race on memory (undefined
in CUDA) may see another legal interleaving than the numpy engine's statement-at-a-time order.
"""

from __future__ import annotations

import ast
import math
import os
import re
from typing import Any

import numpy as np

from . import front, lang, ntype
from .ctype import F32, I64, WEAK_FLOAT, WEAK_INT, binop_type, common_type
from .lang import SimtError

_TYPES = {np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64)}
U32 = np.dtype(np.uint32)
I32, F64 = np.dtype(np.int32), np.dtype(np.float64)
_EXACT_MATH = {  # correctly rounded (or exact) in every library: bit-identical to numpy's ufuncs
    "sqrt": "np.sqrt", "floor": "np.floor", "ceil": "np.ceil", "trunc": "np.trunc", "fabs": "np.fabs",
    "round": "np.rint", "copysign": "np.copysign", "fmod": "np.fmod", "isnan": "np.isnan", "isinf": "np.isinf",
    "isfinite": "np.isfinite",
}
_ARITH = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
CHUNK_THREADS = 1 << 16  # threads per call of the compiled code
_INDICES = [f"{n}_{d}" for n in ("threadIdx", "blockIdx", "blockDim", "gridDim") for d in "xyz"]
_Levels = list[tuple[list[ast.stmt], ast.expr | None]]  # statements, then the guard `if` around the rest
_Form = tuple[Any, dict[str, Any]]  # an affine value: (constant, {axis: coefficient}) (see _Gen.aff)


class _NotAffine(Exception):
    """A load position that is not affine in the thread's indices and the loop counter."""


class _Unsupported(Exception):
    """The kernel is outside the translated subset (it runs on the numpy engine)."""


class _Promoted:
    """The type of a variable the numpy engine holds as a Python number until its first typed value
    (`acc = 0.0`, then `acc += x[k]` in float32). Compiled as `to` from the start, which is exact where
    each read meets an operand whose type converts the Python number to `to` anyway; any other use
    (reaching an attribute of this type) leaves the kernel to the numpy engine."""

    def __init__(self, weak: Any, to: np.dtype) -> None:
        self.weak, self.to = weak, to

    def __getattr__(self, name: str) -> Any:
        raise _Unsupported("a variable holding a Python number or a typed value, here")


class _Promote(Exception):
    """Generate again with this variable promoted (a _Promoted type)."""

    def __init__(self, name: str, weak: Any, to: np.dtype) -> None:
        self.name, self.weak, self.to = name, weak, to


def _use(t: Any, other: Any) -> Any:
    """The type a promoted variable's read has against an operand of type `other` (see _Promoted)."""
    if type(t) is not _Promoted:
        return t
    if isinstance(other, np.dtype) and _same(common_type(t.to, other), t.to) and _same(common_type(t.weak, other), t.to):
        return t.to
    raise _Unsupported("a promoted variable against this operand")


def _same(a: Any, b: Any) -> bool:
    """Whether two kernel types are equal (weak markers never equal a dtype)."""
    return a is b or (isinstance(a, np.dtype) and isinstance(b, np.dtype) and a == b)


def _nb(t: Any) -> str:
    """numba spelling of a kernel type (a weak int is C int, a weak float a double)."""
    if t is WEAK_INT:
        return "np.int32"
    if t is WEAK_FLOAT:
        return "np.float64"
    return f"np.{t.name}"


_numba: Any = None  # the module once imported; False when it is not installed
_lib: Any = None  # jitlib (needs numba)


def _load_numba() -> bool:
    global _numba, _lib
    if _numba is None:
        try:
            import numba

            from . import jitlib
        except ImportError:
            _numba = False
        else:
            _numba, _lib = numba, jitlib
    return _numba is not False


def _is_literal(node: ast.expr) -> bool:
    """An int literal such as 2 or -1 (a range step whose sign is known when translating)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


# ---------------------------------------------------------------------------- translation
class _Gen:
    """Translates one kernel into numba-compilable Python with explicit C types."""

    def __init__(self, kernel: Any, promote: dict[str, _Promoted]) -> None:
        self.promote = promote
        self.src = front.Source(kernel.fn, "kernel")
        self.params = kernel.declared
        for name, t in self.params.items():
            dt = t.dtype if isinstance(t, (lang.PtrType, lang.ArrayType)) else t
            if not isinstance(dt, np.dtype) or dt not in _TYPES:
                raise _Unsupported(f"parameter {name}: {t}")
        self.ptrs = {n for n, t in self.params.items() if isinstance(t, (lang.PtrType, lang.ArrayType))}
        # array parameters: their number of dimensions; shape and element strides arrive as the hidden
        # launch values x_<name>_<k> (arrays.launch_types: shape..., strides...)
        self.arrays = {n: t.ndim for n, t in self.params.items() if isinstance(t, lang.ArrayType)}
        # numba's rules (the cuda face): literals int64/float64, thread indices int32 and grid() int64, the
        # result types of ntype; the interleaved schedule (C's uint32 index arithmetic) is not used
        self.numba = getattr(kernel, "rules", "c") == "numba"
        self.common, self.btype = (ntype.common_type, ntype.binop_type) if self.numba else (common_type, binop_type)
        self.names = front.Names(self.src, "kernel", self.params, "numba" if self.numba else "c")
        self.vtypes: dict[str, Any] = {n: t for n, t in self.params.items() if n not in self.ptrs}
        self.vtypes.update({n: p.to for n, p in promote.items()})
        self.lines: list[str] = []
        self.ind = 5  # inside _launch's loops over blocks and threads
        # Variables assigned on every path to this point (None: unreachable). A read of any other would
        # be of an undefined value, which faults on the numpy engine: such kernels stay there.
        self.defined: set[str] | None = {n for n in self.params if n not in self.ptrs}
        self.ntmp = 0
        self.loops = 0
        self.rbytes = 0  # bytes loaded by the expressions generated since the last count()
        self.lanes = False  # variables live in per-thread arrays (the interleaved schedule, see lane_source)
        self.lane_rbytes: int | None = None  # in the interleaved loop body: its loads per thread and trip
        self.lane_mode = False  # generating the interleaved loop's body (see lane_load)
        self.remat: dict[str, Any] = {}  # in it: variables computed again instead of read (see lane_plan)
        self.remat_ast: dict[str, Any] = {}  # their values (an expression, or (grid call, axis))
        self.fast: dict[int, Any] | None = None  # the affine plan of the loads being generated
        self.aff_k: str | None = None
        self.stores: dict[str, int] = {}  # assignments of each variable in the kernel

    # -- output ---------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self.lines.append("    " * self.ind + text)

    def tmp(self) -> str:
        self.ntmp += 1
        return f"t_{self.ntmp}"

    def var(self, name: str) -> str:
        """The numba name of a kernel variable (a thread's element of its array in the lane schedule)."""
        return f"v_{name}[tl]" if self.lanes and name not in self.params else f"v_{name}"

    def source(self) -> str:
        """`_launch`: every thread of the grid in the numpy engine's lane order (blocks, then threads,
        x fastest), the kernel body inline (a function per thread would cost numba a reference count
        on every array argument per call: 20 ns a thread); interleaved where lane_plan allows."""
        node = self.src.node
        plan = self.lane_plan(node.body)
        if plan is not None:
            self.lane_source(*plan)
        else:
            self.block(node.body)
        if WEAK_FLOAT in self.vtypes.values():  # a Python float variable turns float32 under a partial mask
            raise _Unsupported("a variable holding a Python float")
        params = ", ".join([x for a in node.args.args
                            for x in ((f"v_{a.arg}", f"o_{a.arg}") if a.arg in self.ptrs else (f"v_{a.arg}",))]
                           + [f"x_{n}_{k}" for n, nd in self.arrays.items() for k in range(2 * nd)])
        sizes = ["t_bdx", "t_bdy", "t_bdz"] if self.lanes else _INDICES[6:9]  # (else constants: JitKernel.run)
        head = [f"def _launch(t_stop, b0, b1, {', '.join(sizes + _INDICES[9:])}, {params}):", "    t_nr = 0",
                "    t_nw = 0"]
        local = [(n, t) for n, t in self.vtypes.items() if n not in self.params]
        if self.lanes:
            head += ["    t_tpb = np.int64(blockDim_x) * blockDim_y * blockDim_z", "    t_bad = False",
                     "    v_active = np.zeros(t_tpb, np.bool_)"]
            head += [f"    v_{n} = np.zeros(t_tpb, {_nb(t)})" for n, t in local]
        else:
            head += [f"    v_{n} = {_nb(t)}(0)" for n, t in local]  # (never read)
        head += ["    for b in range(b0, b1):",  # blocks b0..b1-1 (x fastest), then their threads
                 "        blockIdx_x = np.uint32(b % gridDim_x)",
                 "        blockIdx_y = np.uint32((b // gridDim_x) % gridDim_y)",
                 "        blockIdx_z = np.uint32(b // (np.int64(gridDim_x) * gridDim_y))"]
        if not self.lanes:
            head += ["    " * (k + 2) + f"for t{d} in range(blockDim_{d}):" for k, d in enumerate("zyx")]
            head += ["    " * 5 + f"threadIdx_{d} = np.uint32(t{d})" for d in "xyz"]
            head.append("    " * 5 + "t_ret = False")
        return "\n".join(head + self.lines + ["    return t_nr, t_nw"]) + "\n"

    # -- the interleaved schedule -----------------------------------------------------------
    # A thread's float sum over k is a chain of dependent adds: run one thread after another, the CPU
    # waits on each add. A kernel shaped [statements] + [guard `if`]* + for k in range(<the same for every
    # thread of a block>) of register updates + [statements] instead runs per block: the statements and
    # guards of every thread, then `for k: for each active thread: body`, then the statements after the
    # loop of every active thread. Each thread still runs its own statements in its program order, so
    # its results are bit-identical; only the order between threads changes, which only kernels whose
    # threads race on memory (undefined in CUDA) can observe. Variables live in per-thread arrays; the
    # ones assigned once before the loop from thread indices and parameters are computed again in it
    # (b[k * n + col] then reads consecutive elements over threadIdx.x: numba's LLVM vectorizes it).
    def lane_plan(self, body: list[ast.stmt]) -> tuple[_Levels, ast.For, list[ast.stmt]] | None:
        """(levels of (statements, guard), the loop, the statements after it), or None: this kernel runs
        one thread after another. No `return` anywhere and no assigned parameter (it would not be uniform)."""
        if self.numba or front.has(body, (ast.Return,), into_loops=True) \
                or front.assigned_names(self.src.node) & set(self.params):
            return None
        levels: _Levels = []
        while True:
            for i, s in enumerate(body):
                if isinstance(s, ast.For) and self.lane_loop(s):
                    levels.append((body[:i], None))
                    self.rematerialize(levels)
                    return levels, s, body[i + 1:]
            if not (body and isinstance(body[-1], ast.If) and not body[-1].orelse):
                return None
            levels.append((body[:-1], body[-1].test))
            body = body[-1].body

    def lane_loop(self, s: ast.For) -> bool:
        """Whether s is `for v in range(...)` with bounds uniform in a block and a body of assignments to
        variables only (no stores, no control flow: every active thread runs each statement every trip),
        whose loads' positions do not depend on values the body computes (they are tested first)."""
        it = s.iter
        if s.orelse or not (isinstance(s.target, ast.Name) and isinstance(it, ast.Call) and not it.keywords):
            return False
        for b in s.body:
            target = b.targets[0] if isinstance(b, ast.Assign) and len(b.targets) == 1 else getattr(b, "target", None)
            if not (isinstance(b, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and isinstance(target, ast.Name)):
                return False
        inner = {b.targets[0].id if isinstance(b, ast.Assign) else b.target.id for b in s.body}
        return self.depends_only(it, set(), thread=False) and all(
            self.depends_only(r.slice, set(self.names.locals) - inner, thread=True) for r in self.loads(s.body))

    def loads(self, body: list[ast.stmt]) -> list[ast.Subscript]:
        """The memory loads of statements (a.shape[k] is none)."""
        return [n for st in body for n in ast.walk(st)
                if isinstance(n, ast.Subscript) and not self.array_attr(n.value, "shape")]

    def depends_only(self, node: ast.expr, names: set[str], thread: bool) -> bool:
        """Whether node reads no memory and, beyond parameters, constants, block indices and array shapes,
        only the variables `names` and (if `thread`) the thread's indices."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in self.names.locals and n.id not in names and (
                    n.id not in self.params or n.id in self.ptrs):
                if not any(self.array_attr(p, a) for p in ast.walk(node) for a in ("shape", "size", "ndim")
                           if isinstance(p, ast.Attribute) and p.value is n):
                    return False
            elif isinstance(n, ast.Subscript) and not self.array_attr(n.value, "shape"):
                return False
            elif isinstance(n, ast.Call) and not thread:
                try:
                    if self.names.intrinsic(n.func)[0] in ("grid", "gridsize"):
                        return False
                except Exception:
                    return False
            elif isinstance(n, ast.Attribute) and not thread and isinstance(n.value, ast.Name) and (
                    n.value.id not in self.names.locals):
                try:
                    base = self.names.resolve(n.value)
                except Exception:
                    continue
                if isinstance(base, lang._Index) and base._name == "threadIdx":
                    return False
        return True

    def rematerialize(self, levels: _Levels) -> None:
        """self.remat: the variables assigned once in the whole kernel, before the loop, at the top of a
        level, from thread indices and parameters (and other such variables): how to compute them again."""
        self.stores = stores = {}
        for n in ast.walk(self.src.node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        for stmts, _ in levels:
            for st in stmts:
                if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
                    continue
                tgt, value = st.targets[0], st.value
                if isinstance(tgt, ast.Name) and stores[tgt.id] == 1 and self.depends_only(value, set(self.remat), True):
                    self.remat[tgt.id] = lambda v=value: self.ex(v)
                    self.remat_ast[tgt.id] = value
                elif (isinstance(tgt, ast.Tuple) and isinstance(value, ast.Call)
                      and all(isinstance(e, ast.Name) and stores[e.id] == 1 for e in tgt.elts)
                      and self.names.intrinsic(value.func)[0] in ("grid", "gridsize")):
                    for k, e in enumerate(tgt.elts):
                        self.remat[e.id] = lambda v=value, k=k: self.grid(v)[k]
                        if self.names.intrinsic(value.func)[0] == "grid":
                            self.remat_ast[e.id] = (value, k)

    def threads(self, fast: dict[int, Any] | None = None) -> None:
        """Open the loops over a block's threads (x fastest; tl: the thread's place in the block). With an
        affine plan, the loads whose position does not depend on threadIdx.x are made once per row of x
        (the loop over threads stores only registers, so the value is the same for all of them)."""
        self.hoisted: dict[int, str] = {}
        for d in "zyx":
            if d == "x" and fast:
                for key, plan in fast.items():
                    if plan[3].get("x", 0) == 0:
                        self.hoisted[key] = h = self.tmp()
                        self.emit(f"{h} = {self.fast_load(plan)}")
            self.emit(f"for t{d} in range(blockDim_{d}):")
            self.ind += 1
        self.emit("tl = (tz * blockDim_y + ty) * blockDim_x + tx")
        for d in "xyz":
            self.emit(f"threadIdx_{d} = np.uint32(t{d})")

    def lane_source(self, levels: _Levels, loop: ast.For, after: list[ast.stmt]) -> None:
        """The body of the loop over blocks in the interleaved schedule (see lane_plan)."""
        self.lanes = True
        self.ind = 2  # 1. each thread's statements up to the loop: which threads reach it
        self.emit("t_nact = 0")
        self.threads()
        self.emit("t_on = False")
        for stmts, guard in levels:
            self.block(stmts)
            if guard is not None:
                c = self.cond(guard)
                self.count()
                self.emit(f"if {c}:")
                self.ind += 1
        self.emit("t_on = True")
        self.ind = 5
        self.emit("v_active[tl] = t_on")
        self.emit("t_nact += t_on")
        self.ind = 2  # 2. the loop, outside the threads, and each trip over them all (an idle thread's
        # results are never used: it only runs so that the loop over threads has no branch and vectorizes)
        self.emit("if t_nact:")
        self.ind = 3
        test, iv, st, t = self.range_header(loop)
        self.aff_kt = t
        fast = self.affine_loads(loop, iv)
        if fast is None:
            self.interleaved_loop(loop, test, iv, st, t, None)
        else:  # every load of every thread in bounds on every trip (t_fast): no per-load check
            self.emit("if t_fast:")
            self.ind = 4
            self.interleaved_loop(loop, test, iv, st, t, fast)
            self.ind = 3
            self.emit("else:")
            self.ind = 4
            self.interleaved_loop(loop, test, iv, st, t, None)
        self.ind = 2  # 3. each active thread's statements after the loop
        self.threads()
        self.emit("if v_active[tl]:")
        self.ind += 1
        self.block(after)

    def interleaved_loop(self, loop: ast.For, test: str, iv: str, st: str, t: Any, fast: dict[int, Any] | None) -> str:
        """The interleaved loop: each trip over every thread of the block (loads checked per thread, or by
        their affine plan `fast` once per block: see affine_loads). Returns the name of the trip's counter."""
        top = self.ind
        self.emit(f"while {test}:")
        self.ind = top + 1
        self.back_edge()
        k = self.tmp()
        self.emit(f"{k} = {iv}")
        self.emit(f"{iv} = {_nb(t)}({iv} + {st})")
        at = len(self.lines)
        self.fast = fast
        if fast is not None:  # the trip's part of each load position (see affine_loads)
            self.emit(f"t_k = np.int64({k})")
            for base, c0, ck, _, _ in fast.values():
                self.emit(f"{base} = {c0} + t_k * {ck}" if ck != 0 else f"{base} = {c0}")
        self.threads(fast)
        self.emit("t_on = v_active[tl]")
        self.remat[loop.target.id] = lambda: (k, t)
        self.lane_mode, self.lane_rbytes = True, 0

        def body() -> None:
            n = len(self.lines)
            self.assign(loop.target, k, t)
            if self.stores[loop.target.id] == 1:  # read nowhere but in the body (remat): typed, not stored
                del self.lines[n:]
            self.loops += 1
            self.block(loop.body)
            self.loops -= 1

        self.loop_body(body)
        if self.lane_rbytes:
            self.lines.insert(at, "    " * (top + 1) + f"t_nr += {self.lane_rbytes} * t_nact")
        self.lane_mode, self.lane_rbytes, self.fast = False, None, None
        self.ind = top + 1
        if fast is None:
            self.emit("if t_bad:")
            self.emit("    raise JitFault()")
        self.ind = top
        return k

    # -- affine loads: what a position means, not how it is spelled ---------------------------
    # In the interleaved loop every load position is, in most kernels, an affine function of the thread's
    # indices and the loop counter with coefficients the same for the whole block: row * n + k,
    # k * n + col, a[i, k] with i = blockIdx.y * blockDim.y + threadIdx.y, however it is written. Its
    # exact integer value c + cx * tx + cy * ty + cz * tz + ck * k then has its extremes at the corners
    # of the block and the loop, checked once per block; when they lie in [0, 2^31) (and every widening
    # conversion inside kept its operand in its type's range) C's wrapping arithmetic gives exactly that
    # value, so each load is v[base + cx * tx + ...] with no check (the same element as the checked code).
    def affine_loads(self, loop: ast.For, iv: str) -> dict[int, Any] | None:
        """Emit the block's affine plan of every load of the loop (t_fast: all in bounds); {id(load):
        (trip base, c0, ck, {axis: coefficient})}, or None when some position is not affine. Coefficients
        known when translating are Python ints (a stride of 1 over threadIdx.x stays visible to LLVM)."""
        sign = 1 if len(loop.iter.args) < 3 else self.names.constant(loop.iter.args[2]) \
            if _is_literal(loop.iter.args[2]) else 0
        if sign == 0 or self.promote:
            return None
        self.aff_k = loop.target.id
        start = len(self.lines)
        self.aff_checks: list[str] = []
        plans: dict[int, Any] = {}
        try:
            for node in self.loads(loop.body):
                name = self.pointer_name(node)
                parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                nd = self.arrays.get(name)
                if len(parts) != (nd or 1):
                    raise _NotAffine()
                pos: _Form = (0, {})
                for j, part in enumerate(parts):
                    c, co, _ = self.aff(part)
                    self.aff_final(c, co, 0, (1 << 31) - 1)
                    if nd:
                        self.aff_final(c, co, 0, f"x_{name}_{j} - 1")
                        stride = self.aff_tmp(f"np.float64(x_{name}_{nd + j})")
                        c, co = self.aff_mul(c, stride), {v: self.aff_mul(x, stride) for v, x in co.items()}
                    pos = self.aff_add(pos, (c, co), 1)
                c, co = self.aff_add(pos, (self.aff_tmp(f"np.float64(o_{name})"), {}), 1)  # in the allocation
                self.aff_final(c, co, 0, f"v_{name}.shape[0] - 1")
                plans[id(node)] = (c, co, name)
        except _NotAffine:
            del self.lines[start:]
            return None
        finally:
            self.aff_k = None
        lo, hi = self.tmp(), self.tmp()
        # k's range: [start, stop - 1] for a positive step (a negative one: [stop + 1, start])
        b = self.range_stop
        k_lo, k_hi = (f"np.float64({iv})", f"np.float64({b}) - 1.0") if sign > 0 else \
            (f"np.float64({b}) + 1.0", f"np.float64({iv})")
        self.emit(f"{lo}, {hi} = {k_lo}, {k_hi}")
        self.emit("t_fast = " + " and ".join(self.aff_checks or ["True"]).replace("K_LO", lo).replace("K_HI", hi))
        out: dict[int, Any] = {}
        ints: dict[Any, Any] = {}

        def as_int(x: Any) -> Any:
            if type(x) is int:
                return x
            if x not in ints:
                ints[x] = self.tmp()
                self.emit(f"{ints[x]} = np.int64({x}) if t_fast else np.int64(0)")
            return ints[x]

        for key, (c, co, name) in plans.items():
            out[key] = (self.tmp(), as_int(c), as_int(co.get("k", 0)), {v: as_int(x) for v, x in co.items() if v != "k"},
                        name)
        return out

    @staticmethod
    def fast_load(plan: Any) -> str:
        """The load of an affine plan: base + sum(coefficient * thread index), unchecked."""
        base, _, _, co, name = plan
        terms = [base, *(f"t{v}" if x == 1 else f"t{v} * {x}" for v, x in co.items() if x != 0)]
        return f"v_{name}[np.uint64({' + '.join(terms)})]"  # (unsigned: numba adds no negative-index fix-up)

    def aff_tmp(self, code: str) -> str:
        """A float64 temporary holding an exact integer (checked: |value| < 2^52, so sums and products of
        such values are exact or caught)."""
        t = self.tmp()
        self.emit(f"{t} = {code}")
        self.aff_checks.append(f"abs({t}) < 4503599627370496.0")
        return t

    def aff_mul(self, a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int:
            return a * b
        if 0 in (a, b):
            return 0
        if a == 1 or b == 1:
            return b if a == 1 else a
        return self.aff_tmp(f"{a} * {b}")

    def aff_add(self, a: _Form, b: _Form, sign: int) -> _Form:
        def add(x: Any, y: Any) -> Any:
            if type(x) is int and type(y) is int:
                return x + sign * y
            if y == 0:
                return x
            if x == 0 and sign > 0:
                return y
            return self.aff_tmp(f"{x} {'+' if sign > 0 else '-'} {y}")

        return add(a[0], b[0]), {v: add(a[1].get(v, 0), b[1].get(v, 0)) for v in sorted({*a[1], *b[1]})}

    def aff_final(self, c: Any, co: dict[str, Any], lo: Any, hi: Any) -> None:
        """Check that c + sum(co[v] * v) lies in [lo, hi] for every thread of the block and trip of the loop."""
        mn, mx = [f"{c}"], [f"{c}"]
        for v, x in co.items():
            if v == "k":
                mn.append(f"min({x} * K_LO, {x} * K_HI)")
                mx.append(f"max({x} * K_LO, {x} * K_HI)")
            elif x != 0:
                mn.append(f"min({x}, 0) * (blockDim_{v} - 1)")
                mx.append(f"max({x}, 0) * (blockDim_{v} - 1)")
        self.aff_checks.append(f"({' + '.join(mn)}) >= {lo}")
        self.aff_checks.append(f"({' + '.join(mx)}) <= {hi}")

    def aff(self, node: ast.expr) -> tuple[Any, dict[str, Any], Any]:
        """(c, {axis: coefficient}, C type) of an integer expression affine in the thread's indices and the
        loop counter (Python ints, or float64 temporaries of exact integers), or _NotAffine."""
        if isinstance(node, ast.Constant) or (_is_literal(node) and isinstance(node, ast.UnaryOp)):
            v = node.value if isinstance(node, ast.Constant) else -node.operand.value
            if type(v) is not int or not -(1 << 31) <= v < 1 << 31:
                raise _NotAffine()
            return v, {}, WEAK_INT
        if isinstance(node, ast.Name):
            if node.id == self.aff_k:
                return 0, {"k": 1}, self.aff_kt
            value = self.remat_ast.get(node.id)
            if value is not None:
                return self.aff(value) if not isinstance(value, tuple) else self.aff_grid(value[1])
            if node.id in self.params and node.id not in self.ptrs:
                return self.aff_uniform(f"v_{node.id}", self.params[node.id])
            raise _NotAffine()
        if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
            try:
                base = self.names.resolve(node.value)
            except Exception:
                raise _NotAffine() from None
            if isinstance(base, lang._Index) and node.attr in ("x", "y", "z"):
                if base._name == "threadIdx":
                    return 0, {node.attr: 1}, U32
                return self.aff_uniform(f"{base._name}_{node.attr}", U32)
            raise _NotAffine()
        if isinstance(node, ast.Call) and not node.keywords:
            kind, data = self.names.intrinsic(node.func)
            if kind == "grid" and self.names.ndim(node) == 1:
                return self.aff_grid(0)
            if kind == "cast" and len(node.args) == 1 and isinstance(data, np.dtype) and data.kind in "iu":
                c, co, t = self.aff(node.args[0])
                self.aff_widen(c, co, t, data)
                return c, co, data
            raise _NotAffine()
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            (ca, coa, ta), (cb, cob, tb) = self.aff(node.left), self.aff(node.right)
            if ta is WEAK_INT and tb is WEAK_INT:
                raise _NotAffine()  # (int literal arithmetic wraps at 32 bits)
            rt = self.common(ta, tb)
            if not isinstance(rt, np.dtype) or rt.kind not in "iu":
                raise _NotAffine()
            self.aff_widen(ca, coa, ta, rt)
            self.aff_widen(cb, cob, tb, rt)
            if isinstance(node.op, ast.Mult):
                if coa and cob:
                    raise _NotAffine()  # a product of two thread-dependent values
                (c, co), k = ((ca, coa), cb) if coa else ((cb, cob), ca)
                return self.aff_mul(c, k), {v: self.aff_mul(x, k) for v, x in co.items()}, rt
            c, co = self.aff_add((ca, coa), (cb, cob), -1 if isinstance(node.op, ast.Sub) else 1)
            return c, co, rt
        raise _NotAffine()

    def aff_uniform(self, code: str, t: Any) -> tuple[Any, dict[str, Any], Any]:
        if not isinstance(t, np.dtype) or t.kind not in "iu":
            raise _NotAffine()
        return self.aff_tmp(f"np.float64({code})"), {}, t

    def aff_grid(self, d: int) -> tuple[Any, dict[str, Any], Any]:
        """grid(n)[d] = blockIdx * blockDim + threadIdx (uint32)."""
        ax = "xyz"[d]
        return self.aff_tmp(f"np.float64(blockIdx_{ax}) * np.float64(blockDim_{ax})"), {ax: 1}, U32

    def aff_widen(self, c: Any, co: dict[str, Any], t: Any, to: Any) -> None:
        """Converting a value of type t to a wider type keeps its wrapped value: exact only when the affine
        value lies in t's range (a conversion to the same or a narrower width wraps like the arithmetic)."""
        bits = 32 if t is WEAK_INT else t.itemsize * 8
        if to.itemsize * 8 <= bits:
            return
        if t is WEAK_INT or t.kind == "i":
            self.aff_final(c, co, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        else:
            self.aff_final(c, co, 0, (1 << bits) - 1)

    # -- statements -----------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        start = len(self.lines)
        for s in stmts:
            self.stmt(s)
        if len(self.lines) == start:
            self.emit("pass")

    def stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            return
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            tgt, value = s.targets[0], s.value
            if isinstance(tgt, ast.Tuple):
                self.unpack(tgt, value)
            else:
                self.assign(tgt, *self.ex(value))
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            dt = self.names.annotation_dtype(s.annotation, s)
            if dt not in _TYPES:
                raise _Unsupported("annotation")
            self.assign(s.target, self.cast(*self.ex(s.value), dt), dt)
        elif isinstance(s, ast.AugAssign):
            op = front.BINOPS.get(type(s.op))
            if isinstance(s.target, ast.Name):
                self.assign(s.target, *self.binop(op, *self.ex(s.target), *self.ex(s.value)))
            elif isinstance(s.target, ast.Subscript):
                j = self.tmp()
                name = self.pointer_name(s.target)
                self.emit(f"{j} = {self.position(s.target)}")
                old = f"v_{name}[{j}]"
                self.rbytes += self.params[name].dtype.itemsize
                val, t = self.binop(op, old, self.params[name].dtype, *self.ex(s.value))
                self.store(name, j, val, t)
            else:
                raise _Unsupported("augmented target")
        elif isinstance(s, ast.If):
            c = self.cond(s.test)
            self.count()
            before = self.defined
            self.emit(f"if {c}:")
            self.nested(s.body)
            after_then, self.defined = self.defined, None if before is None else set(before)
            if s.orelse:
                self.emit("else:")
                self.nested(s.orelse)
            if after_then is None or self.defined is None:
                self.defined = self.defined if after_then is None else after_then
            else:
                self.defined = after_then & self.defined
        elif isinstance(s, ast.While) and not s.orelse:
            self.emit("while True:")
            self.ind += 1
            self.back_edge()
            c = self.cond(s.test)
            self.count()
            self.emit(f"if not {c}:")
            self.emit("    break")
            self.ind -= 1
            self.loop_body(lambda: self.loop(s.body))
        elif isinstance(s, ast.For) and not s.orelse:
            self.for_(s)
        elif isinstance(s, ast.Break) and self.loops:
            self.emit("break")
            self.defined = None
        elif isinstance(s, ast.Continue) and self.loops:
            self.emit("continue")
            self.defined = None
        elif isinstance(s, ast.Return) and (s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None)):
            if self.loops:  # leave every enclosing loop of the thread (see loop())
                self.emit("t_ret = True")
                self.emit("break")
            else:
                self.emit("continue")  # the next thread
            self.defined = None
        else:
            raise _Unsupported(type(s).__name__)
        self.count()

    def back_edge(self) -> None:
        """At the top of every trip of a kernel loop: stop when the host was interrupted (jitlib.stopped)."""
        self.emit("if stopped(t_stop):")
        self.emit("    raise Interrupted()")

    def count(self) -> None:
        """Account the loads of the code generated since the last count (the launch's bytes_read)."""
        if self.lane_rbytes is not None:
            self.lane_rbytes += self.rbytes
        elif self.rbytes:
            self.emit(f"t_nr += {self.rbytes}")
        self.rbytes = 0

    def nested(self, body: list[ast.stmt]) -> None:
        self.ind += 1
        self.block(body)
        self.ind -= 1

    def loop(self, body: list[ast.stmt]) -> None:
        self.loops += 1
        self.nested(body)
        self.loops -= 1
        self.after_loop(body)

    def loop_body(self, gen: Any) -> None:
        """Generate a loop's body (gen()); after the loop, only what was defined before it is (no trip)."""
        before = self.defined
        self.defined = None if before is None else set(before)
        gen()
        self.defined = before

    def after_loop(self, body: list[ast.stmt]) -> None:
        """After a loop that a `return` may leave: leave the enclosing loop too, or go to the next thread."""
        if front.has(body, (ast.Return,), into_loops=True):
            self.emit("if t_ret:")
            self.emit("    break" if self.loops else "    continue")

    def range_header(self, s: ast.For) -> tuple[str, str, str, Any]:
        """Emit the start, stop and step of `for v in range(...)`: (loop test, counter, step, counter type).
        C's loop with the counter in the common type of start and stop (ops)."""
        it = s.iter
        if not (isinstance(s.target, ast.Name) and isinstance(it, ast.Call) and self.names.intrinsic(it.func)[0] == "range"
                and not it.keywords and 1 <= len(it.args) <= 3):
            raise _Unsupported("for")
        vals = [self.ex(a) for a in it.args]
        zero, one = self.literal(0), self.literal(1)
        start, stop, step = ([zero, vals[0], one] if len(vals) == 1 else [*vals, one] if len(vals) == 2 else vals)
        t = self.common(start[1], stop[1])
        if t is WEAK_FLOAT or (t is not WEAK_INT and t.kind == "f") or self.common(t, step[1]) is not t:
            raise _Unsupported("range types")  # the counter would change type (or is not an integer)
        iv, b, st, sv = self.tmp(), self.tmp(), self.tmp(), self.tmp()
        self.range_stop = b
        self.emit(f"{iv} = {self.cast(*start, t)}")
        self.emit(f"{b} = {stop[0]}")
        self.emit(f"{sv} = _nonzero_step({step[0]})")  # its sign picks the comparison (ops.range_mask)
        self.emit(f"{st} = {self.cast(sv, step[1], t)}")
        self.count()
        lt = self.compare("<", iv, t, b, stop[1])
        gt = self.compare(">", iv, t, b, stop[1])
        sign = 1 if len(it.args) < 3 else self.names.constant(it.args[2]) if _is_literal(it.args[2]) else 0
        return (lt if sign > 0 else gt if sign < 0 else f"(({lt}) if {sv} > 0 else ({gt}))"), iv, st, t

    def for_(self, s: ast.For) -> None:
        """for v in range(...), one thread's."""
        test, iv, st, t = self.range_header(s)
        self.emit(f"while {test}:")
        self.ind += 1
        self.back_edge()

        def body() -> None:
            self.assign(s.target, iv, t)
            self.emit(f"{iv} = {_nb(t)}({iv} + {st})")
            self.loops += 1
            self.block(s.body)
            self.loops -= 1

        self.loop_body(body)
        self.ind -= 1
        self.after_loop(s.body)

    def unpack(self, tgt: ast.Tuple, value: ast.expr) -> None:
        if isinstance(value, ast.Tuple) and len(value.elts) == len(tgt.elts):
            vals = [self.ex(v) for v in value.elts]
        elif self.array_attr(value, "shape") and len(tgt.elts) == self.arrays[value.value.id]:
            vals = [(f"x_{value.value.id}_{k}", I64) for k in range(len(tgt.elts))]
        elif isinstance(value, ast.Call) and self.names.intrinsic(value.func)[0] in ("grid", "gridsize"):
            vals = self.grid(value)
            if len(vals) != len(tgt.elts):
                raise _Unsupported("grid arity")
        else:
            raise _Unsupported("unpacking")
        tmps = []
        for code, t in vals:
            tmp = self.tmp()
            self.emit(f"{tmp} = {code}")
            tmps.append((tmp, t))
        for target, (tmp, t) in zip(tgt.elts, tmps, strict=True):
            self.assign(target, tmp, t)

    def assign(self, target: ast.expr, code: str, t: Any) -> None:
        if isinstance(target, ast.Name):
            name = target.id
            p = self.promote.get(name)
            if name in self.ptrs or type(t) is _Promoted:
                raise _Unsupported("variable type")
            if self.defined is not None:
                self.defined.add(name)
            if p is not None:
                if not (_same(t, p.to) or t is p.weak):
                    raise _Unsupported(f"{name} takes values of three types")
                self.emit(f"{self.var(name)} = {self.cast(code, t, p.to)}")
                return
            old = self.vtypes.setdefault(name, t)
            if not _same(old, t):  # the numpy engine's type follows the run: unless a promotion is exact
                weak, to = (old, t) if old in (WEAK_INT, WEAK_FLOAT) else (t, old)
                if weak in (WEAK_INT, WEAK_FLOAT) and isinstance(to, np.dtype) and _same(self.common(weak, to), to):
                    raise _Promote(name, weak, to)
                raise _Unsupported(f"{name} takes values of two types")
            self.emit(f"{self.var(name)} = {code}")
        elif isinstance(target, ast.Subscript):
            name = self.pointer_name(target)
            j = self.tmp()
            self.emit(f"{j} = {self.position(target)}")
            self.store(name, j, code, t)
        else:
            raise _Unsupported("target")

    def store(self, name: str, j: str, code: str, t: Any) -> None:
        dt = self.params[name].dtype
        self.emit(f"v_{name}[{j}] = {self.cast(code, t, dt)}")
        self.emit(f"t_nw += {dt.itemsize}")

    def array_attr(self, node: ast.expr, attr: str) -> bool:
        """Whether node is `a.<attr>` of an array parameter a."""
        return (isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name)
                and node.value.id in self.arrays)

    def pointer_name(self, node: ast.Subscript) -> str:
        if not (isinstance(node.value, ast.Name) and node.value.id in self.ptrs):
            raise _Unsupported("indexing")
        return node.value.id

    def position(self, node: ast.Subscript) -> str:
        """The checked element position of p[i] (or a[i, j]) in its allocation (p's offset in it is o_p)."""
        name = self.pointer_name(node)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        nd = self.arrays.get(name)
        if len(parts) != (nd or 1):
            raise _Unsupported("a row view or a wrong number of indices")
        idx = [self.index(p) for p in parts]
        if nd:  # each index inside its dimension (arrays._flat), then C order with the array's strides
            code = " + ".join(f"_chk({i}, x_{name}_{k}) * x_{name}_{nd + k}" for k, i in enumerate(idx))
        else:
            code = idx[0]
        return f"_chk({code} + o_{name}, v_{name}.shape[0])"

    def lane_load(self, node: ast.Subscript) -> str:
        """A load in the interleaved loop: an active thread's position outside its allocation (or an
        array's dimension) marks t_bad (the launch then reruns on the numpy engine); no thread reads
        there (a conditional load: numba's LLVM vectorizes it as a masked one, where a check that
        raises or a clamped position would keep the loop over threads scalar)."""
        name = self.pointer_name(node)
        plan = self.fast.get(id(node)) if self.fast is not None else None
        if plan is not None:  # affine, in bounds for the block (affine_loads)
            return self.hoisted.get(id(node)) or self.fast_load(plan)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        nd = self.arrays.get(name)
        if len(parts) != (nd or 1):
            raise _Unsupported("a row view or a wrong number of indices")
        idx, oks = [], []
        for k, part in enumerate(parts):
            i = self.tmp()
            self.emit(f"{i} = {self.index(part)}")
            idx.append(f"{i} * x_{name}_{nd + k}" if nd else i)
            if nd:  # (negative: a huge unsigned value)
                oks.append(f"(np.uint64({i}) < np.uint64(x_{name}_{k}))")
        j, ok = self.tmp(), self.tmp()
        self.emit(f"{j} = np.uint64({' + '.join(idx)} + o_{name})")
        self.emit(f"{ok} = {' & '.join([f'({j} < np.uint64(v_{name}.shape[0]))', *oks])}")
        self.emit(f"t_bad |= t_on & ({ok} ^ True)")
        return f"(v_{name}[{j}] if {ok} else {_nb(self.params[name].dtype)}(0))"

    def index(self, node: ast.expr) -> str:
        code, t = self.ex(node)
        if t is not WEAK_INT and (t is WEAK_FLOAT or t.kind not in "iu"):
            raise _Unsupported("index type")
        if t == np.uint64:  # (memory._CLIP: far outside every allocation either way)
            code = f"min({code}, np.uint64(1 << 50))"
        return f"np.int64({code})"

    # -- conditions -----------------------------------------------------------------------
    def cond(self, node: ast.expr) -> str:
        if isinstance(node, ast.BoolOp):
            op = " and " if isinstance(node.op, ast.And) else " or "
            return "(" + op.join(self.cond(v) for v in node.values) + ")"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return f"(not {self.cond(node.operand)})"
        if isinstance(node, ast.Compare):
            if any(type(op) not in _CMP for op in node.ops):
                raise _Unsupported("comparison")
            if len(node.ops) > 1 and not all(isinstance(c, (ast.Name, ast.Constant)) for c in node.comparators):
                raise _Unsupported("chained comparison")
            parts, left = [], self.ex(node.left)
            for op, right in zip(node.ops, node.comparators, strict=True):
                r = self.ex(right)
                parts.append(self.compare(_CMP[type(op)], *left, *r))
                left = r
            return "(" + " and ".join(parts) + ")"
        if isinstance(node, ast.Call):
            kind, fn = self.names.intrinsic(node.func)
            if kind == "math" and fn.result == "bool":
                return f"{_EXACT_MATH[fn.name]}({self.float_arg(node.args[0])[0]})"
        code, t = self.ex(node)
        if type(t) is _Promoted:
            raise _Unsupported("the truth of a promoted variable")  # 1e-50 is true, float32(1e-50) is not
        return f"({code} != 0)"

    def compare(self, op: str, a: str, ta: Any, b: str, tb: Any) -> str:
        ta, tb = _use(ta, tb), _use(tb, ta)
        if {ta, tb} == {WEAK_INT, WEAK_FLOAT}:  # (an int variable may be int32 per lane: float32 then)
            raise _Unsupported("a Python int compared with a Python float")
        rt = self.common(ta, tb)
        if rt is WEAK_INT or rt is WEAK_FLOAT:
            return f"{a} {op} {b}"
        return f"{self.cast(a, ta, rt)} {op} {self.cast(b, tb, rt)}"

    # -- expressions ----------------------------------------------------------------------
    def ex(self, node: ast.expr) -> tuple[str, Any]:
        """(numba code, kernel type) of a value."""
        if isinstance(node, ast.Constant):
            return self.literal(node.value)
        if isinstance(node, ast.Name):
            if node.id in self.remat and self.lane_mode:
                return self.remat[node.id]()
            if node.id in self.names.locals:
                if node.id not in self.vtypes or (self.defined is not None and node.id not in self.defined):
                    raise _Unsupported(f"{node.id} may be read before it is assigned")
                return self.var(node.id), self.promote.get(node.id, self.vtypes[node.id])
            return self.literal(self.names.global_value(node))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.arrays:
            name, nd = node.value.id, self.arrays[node.value.id]
            if node.attr == "size":  # (arrays.size_of: int64)
                return "np.int64(" + " * ".join(f"x_{name}_{k}" for k in range(nd)) + ")", I64
            if node.attr == "ndim":
                return self.literal(nd)
            raise _Unsupported(f"array attribute {node.attr}")
        if isinstance(node, ast.Attribute):
            try:
                base = self.names.resolve(node.value)
            except Exception:
                raise _Unsupported("attribute") from None
            if isinstance(base, lang._Index) and node.attr in ("x", "y", "z"):
                if self.numba:  # numba types the thread and block indices int32
                    return f"np.int32({base._name}_{node.attr})", I32
                return f"{base._name}_{node.attr}", U32
            return self.literal(self.names.global_value(node))
        if isinstance(node, ast.BinOp):
            op = front.BINOPS.get(type(node.op))
            return self.binop(op, *self.ex(node.left), *self.ex(node.right))
        if _is_literal(node) and isinstance(node, ast.UnaryOp):  # -7: a literal, as the numpy engine folds it
            return self.literal(-node.operand.value)
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            return self.unary(node.op, *self.ex(node.operand))
        if isinstance(node, ast.Subscript) and self.array_attr(node.value, "shape"):  # a.shape[k]: int64
            k = self.names.constant(node.slice)
            if type(k) is not int or not 0 <= k < self.arrays[node.value.value.id]:
                raise _Unsupported("shape index")
            return f"x_{node.value.value.id}_{k}", I64
        if isinstance(node, ast.Subscript):
            name = self.pointer_name(node)
            dt = self.params[name].dtype
            self.rbytes += dt.itemsize
            if self.lane_mode:
                return self.lane_load(node), dt
            return f"v_{name}[{self.position(node)}]", dt
        if isinstance(node, ast.IfExp):
            (a, ta), (b, tb) = self.ex(node.body), self.ex(node.orelse)
            if not _same(ta, tb) or not isinstance(ta, np.dtype):  # ops.select retypes weak arms per lane
                raise _Unsupported("conditional expression types")
            return f"({a} if {self.cond(node.test)} else {b})", ta
        if isinstance(node, ast.Call) and not node.keywords:
            return self.call(node)
        raise _Unsupported(type(node).__name__)

    def literal(self, v: Any) -> tuple[str, Any]:
        if self.numba and (type(v) is int or type(v) is bool) and -(1 << 63) <= v < 1 << 63:
            return f"np.int64({int(v)})", I64  # numba types a Python int int64, a float float64
        if self.numba and type(v) is float:
            return f"np.float64({v!r})" if math.isfinite(v) else f"np.float64({str(v)!r})", F64
        if type(v) is bool or (type(v) is int and -(1 << 31) <= v < 1 << 31):
            return f"np.int32({int(v)})", WEAK_INT
        if type(v) is float:
            return (repr(v) if math.isfinite(v) else f"np.float64({str(v)!r})"), WEAK_FLOAT
        if isinstance(v, (np.integer, np.floating)) and v.dtype in _TYPES:
            text = repr(int(v)) if v.dtype.kind in "iu" else f"{float(v)!r}" if math.isfinite(v) else f"{str(float(v))!r}"
            return f"{_nb(v.dtype)}({text})", v.dtype
        raise _Unsupported(f"constant {v!r}")

    def cast(self, code: str, t: Any, to: Any) -> str:
        if type(t) is _Promoted:  # (a store or an explicit cast: exact only to its own type)
            t = _use(t, to)
        return code if _same(t, to) else f"{_nb(to)}({code})"

    def binop(self, op: str | None, a: str, ta: Any, b: str, tb: Any) -> tuple[str, Any]:
        ta, tb = _use(ta, tb), _use(tb, ta)
        if op is None or {ta, tb} == {WEAK_INT, WEAK_FLOAT}:
            raise _Unsupported("operator")  # a weak int variable may be int32 per lane: float32 then, not double
        try:
            rt = self.btype(op, ta, tb)  # (the one typing rule of the kernel: ctype, or ntype for numba's)
        except TypeError:
            raise _Unsupported(op) from None
        if self.numba and op in ("floordiv", "mod", "pow") and isinstance(rt, np.dtype):
            if (rt.kind != "i" and rt.kind != "u") or op == "pow":
                raise _Unsupported(op)  # (Python's float // and %, and **: the numpy engine)
            x, y, T = self.cast(a, ta, rt), self.cast(b, tb, rt), _nb(rt)
            fn = "_ifloordiv" if op == "floordiv" and rt.kind == "i" else "_pymod" if rt.kind == "i" else "_udiv" \
                if op == "floordiv" else "_umod"
            return f"{T}({fn}({x}, {y}, {T}(0)))", rt
        if op in ("lshift", "rshift"):
            if rt is WEAK_INT:
                raise _Unsupported("shift")
            fn = "_shl" if op == "lshift" else "_shr" if rt.kind == "i" else "_ushr"
            return f"{_nb(rt)}({fn}({self.cast(a, ta, rt)}, {self.cast(b, tb, rt)}, {rt.itemsize * 8}))", rt
        if rt is WEAK_INT:
            if op in _ARITH:
                return f"np.int32(np.int64({a}) {_ARITH[op]} np.int64({b}))", rt
            if op == "mod" or (op == "truediv" and re.fullmatch(r"np\.int32\(-?[1-9]\d*\)", b)):
                # (by a variable, which is an int32 array after a partial-mask merge in the numpy engine:
                # there x / 0 gives 1 for x < 0, as a Python int 0, so that case is left to it)
                return f"np.int32({'_wdiv' if op == 'truediv' else '_wmod'}({a}, {b}))", rt
            raise _Unsupported(op)
        if rt is WEAK_FLOAT:
            if op in ("add", "sub", "mul"):
                return f"({a} {_ARITH[op]} {b})", rt
            if op == "truediv":
                return f"_fdiv({a}, {b})", rt
            raise _Unsupported(op)
        x, y, T = self.cast(a, ta, rt), self.cast(b, tb, rt), _nb(rt)
        if rt.kind == "f":
            if op in ("add", "sub", "mul"):
                return f"{T}({x} {_ARITH[op]} {y})", rt
            if op == "truediv":
                return f"{T}({x} / {y})", rt
            if op == "mod":
                return f"{T}(np.fmod({x}, {y}))", rt
            raise _Unsupported(op)
        if op in _ARITH:
            return f"{T}({x} {_ARITH[op]} {y})", rt
        signed = rt.kind == "i"
        fn = {"truediv": ("_idiv", "_udiv"), "mod": ("_imod", "_umod"), "floordiv": ("_ifloordiv", "_udiv")}.get(op)
        if fn is None:
            raise _Unsupported(op)
        return f"{T}({fn[0] if signed else fn[1]}({x}, {y}, {T}(0)))", rt

    def unary(self, op: ast.unaryop, a: str, t: Any) -> tuple[str, Any]:
        if isinstance(op, ast.UAdd):
            return a, t
        if t is WEAK_FLOAT:
            if isinstance(op, ast.USub):
                return f"(-{a})", t
            raise _Unsupported("~ float")
        if isinstance(op, ast.USub):
            return f"{_nb(t)}(-np.int64({a}))" if t is WEAK_INT else f"{_nb(t)}(-{a})", t
        if t is not WEAK_INT and t.kind == "f":
            raise _Unsupported("~ float")
        return f"{_nb(t)}(~{a})", t

    def float_arg(self, node: ast.expr) -> tuple[str, Any]:
        """A math function's argument: floats as they are, integers as float32 (ops._float_arg)."""
        code, t = self.ex(node)
        if t is WEAK_FLOAT or (t is not WEAK_INT and t.kind == "f"):
            return code, t
        to = F64 if self.numba else F32  # (numba computes math of integers in float64)
        return self.cast(code, t, to), to

    def call(self, node: ast.Call) -> tuple[str, Any]:
        kind, data = self.names.intrinsic(node.func)
        args = node.args
        if kind == "len" and len(args) == 1 and isinstance(args[0], ast.Name) and args[0].id in self.arrays:
            return f"x_{args[0].id}_0", I64
        if kind in ("grid", "gridsize"):
            vals = self.grid(node)
            if len(vals) != 1:
                raise _Unsupported("grid")
            return vals[0]
        if kind == "cast" and len(args) == 1 and data in _TYPES:
            return self.cast(*self.ex(args[0]), data), data
        if kind == "math" and data.name in _EXACT_MATH and data.result == "float" and len(args) == data.nargs:
            fn = _EXACT_MATH[data.name]
            if data.nargs == 1:
                x, t = self.float_arg(args[0])
                if self.numba and data.name in ("floor", "ceil", "trunc"):
                    return f"np.int64({fn}({x}))", I64  # numba: an integer
                return f"{_nb(t)}({fn}({x}))", t
            (a, ta), (b, tb) = self.ex(args[0]), self.ex(args[1])
            rt = self.common(ta, tb)
            if rt is WEAK_INT or rt is WEAK_FLOAT:
                rt = WEAK_FLOAT  # (ops.math_call: two Python numbers compute in double)
                if {ta, tb} != {WEAK_FLOAT}:
                    raise _Unsupported("math on weak ints")
            elif rt.kind != "f":
                rt = F64 if self.numba else F32
            return f"{_nb(rt)}({fn}({self.cast(a, ta, rt)}, {self.cast(b, tb, rt)}))", rt
        if kind == "rsqrt" and len(args) == 1:
            x, t = self.float_arg(args[0])
            return f"{_nb(t)}(1.0 / {_nb(t)}(np.sqrt({x})))", t
        if kind == "fma" and len(args) == 3:
            return self.binop("add", *self.binop("mul", *self.ex(args[0]), *self.ex(args[1])), *self.ex(args[2]))
        if kind == "minmax" and len(args) >= 2:
            fn = "np.minimum" if data is np.minimum else "np.maximum"
            code, t = self.ex(args[0])
            for a in args[1:]:
                b, tb = self.ex(a)
                rt = self.common(t, tb)
                if not isinstance(rt, np.dtype):
                    raise _Unsupported("min/max of Python numbers")  # Python's min keeps the first of equals
                code, t = f"{_nb(rt)}({fn}({self.cast(code, t, rt)}, {self.cast(b, tb, rt)}))", rt
            return code, t
        if kind == "abs" and len(args) == 1:
            code, t = self.ex(args[0])
            if not isinstance(t, np.dtype):
                raise _Unsupported("abs of a Python number")  # abs() of a Python int does not wrap
            return f"{_nb(t)}(np.abs({code}))", t
        raise _Unsupported(f"call {kind}")

    def grid(self, node: ast.Call) -> list[tuple[str, Any]]:
        kind = self.names.intrinsic(node.func)[0]
        nd = self.names.ndim(node)
        if self.numba:  # numba computes grid() and gridsize() in int64
            if kind == "grid":
                return [(f"(np.int64(blockIdx_{d}) * blockDim_{d} + threadIdx_{d})", I64) for d in "xyz"[:nd]]
            return [(f"(np.int64(blockDim_{d}) * gridDim_{d})", I64) for d in "xyz"[:nd]]
        if kind == "grid":
            return [(f"np.uint32(blockIdx_{d} * blockDim_{d} + threadIdx_{d})", U32) for d in "xyz"[:nd]]
        return [(f"np.uint32(blockDim_{d} * gridDim_{d})", U32) for d in "xyz"[:nd]]


# ---------------------------------------------------------------------------- use
class JitKernel:
    """A kernel's compiled form: `run` executes a launch, or returns False when the numpy engine must."""

    def __init__(self, kernel: Any) -> None:
        promote: dict[str, _Promoted] = {}
        while True:
            try:
                gen = _Gen(kernel, promote)
                self.text = gen.source()
                self.interleaved = gen.lanes  # the interleaved schedule (see _Gen.lane_plan)
                break
            except _Promote as e:
                if e.name in promote:
                    raise _Unsupported(e.name) from None
                promote[e.name] = _Promoted(e.weak, e.to)
        self.name = kernel.name
        # Only code with a loop can run for long: the rest is called on this thread directly (handing a
        # call to the interruptible worker costs about 25 us a launch, for nothing a Ctrl-C would stop)
        self.may_run_long = front.has(gen.src.node.body, (ast.For, ast.While), into_loops=True)
        self.launch = self.build({}) if not self.interleaved else None
        # The interleaved schedule's code per block shape, the block sizes constants in it: numba's LLVM
        # then vectorizes the loops over a block's threads without remainder loops (naive matmul
        # 256x256 on 16x16 blocks: 6.5 ms with the sizes as arguments, 3.9 ms as constants).
        self.per_block: dict[tuple[int, int, int], Any] = {}
        self.names = list(kernel.param_types)  # as launched: arrays' shapes and strides follow

    def build(self, consts: dict[str, int]) -> Any:
        """`_launch` compiled (lazily, by numba on its first call) with these global constants."""
        return _lib.build(self.text, self.name, consts)

    def run(self, task: Any, C: Any, vals: list, written: set[str]) -> bool:
        from .memory import PtrArg

        args: list[Any] = []
        saved: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for name, v in zip(self.names, vals, strict=True):
            if type(v) is PtrArg:
                args += [v.full, np.int64(v.n_lo)]
                if name in written and id(v.full) not in saved and v.full.size:
                    saved[id(v.full)] = (v.full, v.full.copy())
            else:
                args.append(v)
        nr = nw = 0
        # Chunks of blocks, back in Python between them: the progress display moves. A Ctrl-C stops the
        # compiled code at its next loop back edge (jitlib.run_interruptible) and propagates.
        per = max(1, CHUNK_THREADS // C.tpb)
        launch = self.launch
        if launch is None:
            shape = (C.blockDim_x, C.blockDim_y, C.blockDim_z)
            if shape not in self.per_block:
                self.per_block[shape] = self.build(dict(zip(_INDICES[6:9], shape, strict=True)))
            launch = self.per_block[shape]
        call = _lib.run_interruptible if self.may_run_long else _call
        try:  # (numba compiles on the first launch: a construct it cannot type leaves the kernel to numpy)
            for b0 in range(0, C.nblocks, per):
                task.work.progress = (b0, C.nblocks)
                r, w = call(launch, (_lib.STOP, b0, min(b0 + per, C.nblocks), C.blockDim_x, C.blockDim_y,
                                     C.blockDim_z, C.gridDim_x, C.gridDim_y, C.gridDim_z, *args))
                nr, nw = nr + r, nw + w
        except _lib.JitFault:
            for full, copy in saved.values():
                full[...] = copy
            return False
        except _numba.core.errors.NumbaError:
            self.run = lambda *a: False  # type: ignore[method-assign]
            return False
        task.work.bytes_read, task.work.bytes_written = int(nr), int(nw)
        return True


def _call(fn: Any, args: tuple) -> Any:
    return fn(*args)


# By default the JIT takes interleaved loop kernels (see lane_plan) at any size (naive matmul 256: 20 ms numpy
# engine, 4 ms here) and other loop kernels up to this many threads: past it the numpy engine's vector passes win
# (a grid-stride saxpy over 2^22 floats on 16,384 threads: 3.5 ms there, 26 ms here; a 1-thread 1,000-iteration
# loop: 1.5 ms there, 0.02 ms here).
AUTO_MAX_THREADS = 4096


def select(kernel: Any, compiled: Any, threads: int) -> JitKernel | None:
    """The compiled form to run a launch of `threads` threads with, or None (the numpy engine runs it)."""
    mode = os.environ.get("ACLSIM_SIMT_JIT", "")
    if mode == "0" or (mode != "1" and not compiled.iterates):
        return None
    jk = kernel.__dict__.get("_jit", 0)
    if jk == 0:
        jk = None
        if _load_numba():
            try:
                jk = JitKernel(kernel)
            except (_Unsupported, SimtError):
                jk = None
        kernel._jit = jk
    if jk is not None and mode != "1" and threads > AUTO_MAX_THREADS and not jk.interleaved:
        return None  # a per-thread loop over that many threads: the numpy engine's vector passes are faster
    return jk
