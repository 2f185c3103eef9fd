"""Compile per-thread kernel source into a Python function that runs many lanes per numpy operation.

The kernel's `ast` is translated statement by statement. Every per-thread value becomes a
numpy array over the lanes of a chunk of blocks (or stays a uniform scalar). Control flow becomes
masks held in the generated variable `m`: both arms of an `if` run under their masks, loops run
while any lane is still iterating (a `for` over the same range in every lane, that no lane leaves
early, just counts its trips), and break/continue/return remove lanes from `m`. Assignments
under a partial mask merge with the old value. `@simt.device` functions compile to functions of
their own that take the caller's mask. Global names are resolved once, at compile time.

Anything outside the supported language is refused before the kernel runs, with the construct
and the source line.
"""

from __future__ import annotations

import ast
import math
from typing import Any

import numpy as np

from . import arrays, front, lang, nops, ops, warp, xoroshiro
from .ctype import element_dtype
from .lang import SimtError
from .mathfns import CMATH

_FUSABLE = (ast.Add, ast.Sub, ast.Mult)  # `p[i] = a op b` may compute straight into memory


HELPERS: dict[str, Any] = {
    "h_bin": ops.binop, "h_cmp": ops.compare, "h_un": ops.unary, "h_logical": ops.logical, "h_select": ops.select,
    "h_to": ops.to_dtype, "h_math": ops.math_call, "h_minmax": ops.minmax, "h_abs": ops.absolute,
    "h_rsqrt": ops.rsqrt, "h_fma": ops.fma, "h_mand": ops.mand, "h_mandnot": ops.mandnot, "h_mor": ops.mor,
    "h_tomask": ops.to_mask, "h_cmpm": ops.cmp_mask, "h_rmask": ops.range_mask, "h_trips": ops.uniform_trips, "h_asg": ops.assign,
    "h_truth": ops.truth, "h_ld": arrays.load, "h_st": arrays.store, "h_stb": arrays.store_binop,
    "h_atomic": arrays.atomic, "h_upd": arrays.update, "h_U": ops.UNDEF, "h_arr": arrays.make_array, "h_shape": arrays.shape_of,
    "h_size": arrays.size_of, "h_ndim": arrays.ndim_of, "h_vote": warp.vote, "h_shfl": warp.shuffle,
    "h_activemask": warp.activemask, "h_syncwarp": warp.syncwarp, "h_rng": xoroshiro.draw,
    "h_padd": arrays.ptr_add, "h_slice": arrays.slice_view, "h_recfield": arrays.record_field,
    "h_reccopy": arrays.record_copy, "h_viewcopy": arrays.view_copy, "h_rebind": arrays.rebind, "h_sub": arrays.subview, "h_part": ops.part, "h_complex": ops.make_complex,
    "h_len": arrays.length, "h_unpack": arrays.unpack,
    "h_bits": ops.bits, "h_selp": ops.selp, "h_round": ops.round_, "h_fp16": ops.fp16, "h_cmath": ops.cmath_call, "h_conj": ops.conjugate,
}
HELPERS["h_start"] = ops.counter
# Kernels of the numba.cuda face compute with numba's types (ntype): these helpers replace the C ones.
NUMBA_HELPERS: dict[str, Any] = {
    "h_bin": nops.binop, "h_cmp": nops.compare, "h_cmpm": nops.cmp_mask, "h_select": nops.select,
    "h_minmax": nops.minmax, "h_math": nops.math_call, "h_fma": nops.fma, "h_asg": nops.assign,
    "h_start": nops.counter, "h_stb": nops.store_binop,
}
# The generated namespace is hygienic by construction: every name comes from exactly one of these
# disjoint families, so no generated name can equal a helper or a user name.
#   v_<name>  a user variable or parameter       h_<name>  a helper above
#   t_<kind><n>  a temporary                     g_<n>     a constant object (dtype, device function, ...)
#   x_<name>_<k>  shape and strides of the array parameter <name> (hidden launch parameters)
#   C, m, r_ret, r_file, r_val, _kernel, _device  fixed: context, active mask, function state and name
assert all(k.startswith("h_") for k in HELPERS)



class Codegen:
    """Generates the vectorized Python source of one kernel or device function."""

    def __init__(self, src: front.Source, compiler: Compiler, kind: str, params: dict[str, Any]) -> None:
        self.src, self.compiler, self.kind = src, compiler, kind
        self.params = params  # name -> PtrType | np.dtype | None (device params may be untyped)
        self.ptrs = {n for n, t in params.items() if isinstance(t, (lang.PtrType, lang.ArrayType))}
        self.names = front.Names(src, kind, params, compiler.rules)
        self.locals = self.names.locals
        self.refuse = self.names.refuse
        self.array_names: set[str] = set()  # shared, local and constant arrays declared here
        self.const_arrays: set[str] = set()
        self.lines: list[str] = []
        self.ind = 1
        self.ntmp = 0
        self.loops: list[str] = []  # continue-mask variable of each enclosing loop
        self.ret = "C.ret" if kind == "kernel" else "r_ret"
        self.consts: dict[str, Any] = {}
        self.shared_bytes = 0  # per block, declared in this function
        self.local_bytes = 0  # per thread, declared here and in the device functions called
        self.grid_groups: set[str] = set()  # names bound to this_grid()
        self.tuple_names: dict[str, int] = {}  # names bound to tuples of a known length
        self.record_names: dict[str, Any] = {}  # names bound to one record (r = a[i]): its 0-d ArrayType
        self.ptr_locals = False  # whether a local name is bound to a pointer or array
        self.grid_sync = False  # whether this function (or one it calls) syncs the grid
        self.iterates = False  # whether this function (or one it calls) has a loop
        # The mask that assignments merge under: `m`, or in the body of a uniform loop the variable that
        # is True while the loop runs uniformly (the merge then happens once, after the loop); the names
        # so assigned are collected in `deferred`.
        self.amask = "m"
        self.deferred: set[str] = set()
        self.ret_arity: int | None = 0  # device functions: 0 nothing returned yet, None a value, n a tuple
        self.restype: Any = None  # device functions: a declared return type
        self.nvar = 0  # device functions with *args: the number of extra arguments of this specialization
        self.raises = False  # whether this function (or one it calls) has a raise statement
        if src.node.args.vararg is not None:
            self.locals.add(src.node.args.vararg.arg)

    # -- output ---------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self.lines.append("    " * self.ind + text)

    def tmp(self, kind: str = "t") -> str:
        self.ntmp += 1
        return f"t_{kind}{self.ntmp}"

    def const(self, value: Any) -> str:
        if type(value) in (int, float, bool):
            return repr(value) if not (type(value) is float and not math.isfinite(value)) else self._obj(value)
        return self._obj(value)

    def _obj(self, value: Any) -> str:
        name = f"g_{len(self.consts)}"
        self.consts[name] = value
        return name

    def function(self) -> str:
        node = self.src.node
        args = node.args
        if self.kind == "kernel" and (args.vararg or args.defaults):
            raise self.refuse(node, "*args or default parameters of a kernel")
        if args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise self.refuse(node, "**kwargs, keyword-only or positional-only parameters")
        params = [a for a in args.args if a.arg in self.params]  # (device functions: less the bound ones)
        names = [f"v_{a.arg}" for a in params]
        star = [f"v_{args.vararg.arg}_{k}" for k in range(self.nvar)] if args.vararg else []
        names += star  # *args: one value per extra argument of this specialization
        arrays_in = [(a.arg, self.params[a.arg]) for a in params if isinstance(self.params[a.arg], lang.ArrayType)]
        extents = {n: [f"x_{n}_{k}" for k in range(2 * t.ndim)] for n, t in arrays_in}  # shape..., strides...
        names += [x for n, _ in arrays_in for x in extents[n]]
        head = "C, " + ", ".join(names) if self.kind == "kernel" else "C, m, " + ", ".join(names)
        fname = "_kernel" if self.kind == "kernel" else "_device"
        out_head = [f"def {fname}({head.rstrip(', ')}):"]
        for name in sorted(self.locals - set(self.params)):
            self.emit(f"v_{name} = h_U")
        for a in params:
            t = self.params[a.arg]
            if self.kind == "device" and isinstance(t, np.dtype):
                self.emit(f"v_{a.arg} = h_to(v_{a.arg}, {self._obj(t)})")
        for n, _ in arrays_in:
            self.emit(f"v_{n} = h_arr(v_{n}, ({''.join(x + ', ' for x in extents[n])}))")
        if args.vararg:
            self.emit(f"v_{args.vararg.arg} = ({''.join(x + ', ' for x in star)})")
        if self.kind == "kernel":
            self.emit("m = True")
        else:  # report lines of a device function against its own file
            self.emit(f"r_file, C.file = C.file, {self.src.file!r}")
            self.emit("r_ret = False")
            self.emit("r_val = h_U")
            self._rv_at = len(self.lines)
        self.block(node.body)
        if self.kind == "device":
            self.ind = 1
            self.emit("C.file = r_file")
            if self.ret_arity:
                self.lines.insert(self._rv_at, "    " + "; ".join(f"r_val{k} = h_U" for k in range(self.ret_arity)))
                self.emit("return (" + "".join(f"r_val{k}, " for k in range(self.ret_arity)) + ")")
            elif self.restype is not None:  # a declared return type: the result converts to it
                self.emit(f"return h_to(r_val, {self._obj(self.restype)}) if r_val is not h_U else r_val")
            else:
                self.emit("return r_val")
        return "\n".join(out_head + self.lines) + "\n"

    # -- statements -----------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        saved, start = self.ind, len(self.lines)
        for i, s in enumerate(stmts):
            self.stmt(s)
            if isinstance(s, (ast.Break, ast.Continue, ast.Return, ast.Raise)):
                break  # the rest of this block is unreachable
            if i + 1 < len(stmts) and front.may_exit(s):
                self.emit("if m is not False:")
                self.ind += 1
        self.ind = saved
        if len(self.lines) == start:  # only docstrings / pass
            self.emit("pass")

    def stmt(self, s: ast.stmt) -> None:
        line = self.src.line(s)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # docstring
        if isinstance(s, ast.Pass) or id(s) in self.names.nested:  # (a nested def is a device function)
            return
        self.emit(f"C.line = {line}")
        if isinstance(s, ast.Assign):
            if len(s.targets) == 1:
                self.assign(s.targets[0], s.value, s)
            else:  # a = b = value: evaluate value once
                t = self.tmp()
                self.emit(f"{t} = {self.expr(s.value, 'm')}")
                for target in s.targets:
                    if isinstance(target, ast.Tuple):
                        raise self.refuse(s, "a chained assignment to a tuple")
                    self.assign_value(target, t, s)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                dt = self.names.annotation_dtype(s.annotation, s)
                v = self.expr(s.value, "m")
                self.assign_value(s.target, f"h_to({v}, {self._obj(dt)})", s)
        elif isinstance(s, ast.AugAssign):
            self.augassign(s)
        elif isinstance(s, ast.If):
            self.if_(s)
        elif isinstance(s, ast.For):
            self.for_(s)
        elif isinstance(s, ast.While):
            self.while_(s)
        elif isinstance(s, ast.Break):
            if not self.loops:
                raise self.refuse(s, "'break' outside a loop")
            self.emit("m = False")
        elif isinstance(s, ast.Continue):
            if not self.loops:
                raise self.refuse(s, "'continue' outside a loop")
            c = self.loops[-1]
            self.emit(f"{c} = h_mor(C.N, {c}, m)")
            self.emit("m = False")
        elif isinstance(s, ast.Return):
            self.return_(s)
        elif isinstance(s, ast.Raise):
            self.raise_(s)
        elif isinstance(s, ast.Expr) and self._is_grid_sync(s.value):
            self.grid_sync = True
            self.emit(f"C.grid_sync(m, {line})")
        elif isinstance(s, ast.Expr):
            kind = self.names.intrinsic(s.value.func)[0] if isinstance(s.value, ast.Call) else None
            if kind == "sync":
                if s.value.args or s.value.keywords:
                    raise self.refuse(s, "arguments to simt.syncthreads()")
                self.emit(f"C.sync(m, {line})")
            elif kind == "print":
                self.print_(s.value)
            elif kind == "warp" and self.names.intrinsic(s.value.func)[1] == "syncwarp":
                call = s.value
                if call.keywords or len(call.args) > 1:
                    raise self.refuse(s, "syncwarp with these arguments", "call it as syncwarp() or syncwarp(mask)")
                mask = self.expr(call.args[0], "m") if call.args else "0xFFFFFFFF"
                self.emit(f"h_syncwarp(C, m, {mask}, {line})")
            elif kind == "fence":
                if s.value.args or s.value.keywords:
                    raise self.refuse(s, f"arguments to {ast.unparse(s.value.func)}()")
                # nothing to do: lanes run over coherent memory one statement at a time (see lang)
            else:
                self.emit(self.expr(s.value, "m"))
        else:
            raise self.refuse(s, front.CONSTRUCTS.get(type(s), f"a '{type(s).__name__}' statement"))

    def _is_grid_sync(self, node: ast.expr) -> bool:
        """Whether node is `this_grid().sync()` or `g.sync()` with g = this_grid()."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sync"):
            return False
        group = node.func.value
        if isinstance(group, ast.Name) and group.id in self.grid_groups:
            pass
        elif not (isinstance(group, ast.Call) and self.names.intrinsic(group.func)[0] == "this_grid"):
            return False
        if node.args or node.keywords:
            raise self.refuse(node, "arguments to the grid group's sync()")
        return True

    def _is_row(self, node: ast.expr) -> bool:
        """Whether node is a[i] (fewer indices than the array parameter a has dimensions): a row view."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            return False
        t = self.params.get(node.value.id)
        nidx = self._tuple_arity(node.slice) or 1
        return isinstance(t, lang.ArrayType) and nidx < t.ndim

    def record_field(self, node: ast.expr, mv: str = "m") -> tuple[str, np.dtype] | None:
        """r.f / r['f'] / a[i].f / a[i]['f'] of a record parameter r or record-array parameter a: the code
        of the field's view at that record (h_recfield) and the field's dtype; None for anything else."""
        if isinstance(node, ast.Attribute):
            base, fname = node.value, node.attr
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            base, fname = node.value, node.slice.value
        else:
            return None
        arr = base if isinstance(base, ast.Name) else base.value if isinstance(base, ast.Subscript) else None
        t = self._array_type(arr)
        if not (isinstance(t, lang.ArrayType) and t.dtype.names is not None and arr.id in self.ptrs):
            return None
        if isinstance(base, ast.Subscript) and (self._tuple_arity(base.slice) or 1) != t.ndim:
            return None
        if fname not in t.dtype.names and isinstance(node, ast.Attribute) and fname in ("shape", "size", "ndim"):
            return None  # the array's own attributes
        if fname not in t.dtype.names:
            raise self.refuse(node, f"the field '{fname}' (the records of '{arr.id}' have {', '.join(t.dtype.names)})")
        fdt = t.dtype.fields[fname][0]
        if isinstance(base, ast.Name) and t.ndim != 0:  # a.f: the field of every record of a, an array view
            return f"h_recfield(C, v_{arr.id}, None, {fname!r}, {mv}, {self.src.line(node)})", \
                np.dtype((fdt.base, t.ndim * (1,) + fdt.shape))
        idx = self._index_arg(base.slice, mv) if isinstance(base, ast.Subscript) else "()"
        return f"h_recfield(C, v_{arr.id}, {idx}, {fname!r}, {mv}, {self.src.line(node)})", fdt

    def _array_type(self, node: Any) -> Any:
        """The ArrayType of an array parameter, or of a name bound to one record (r = a[i])."""
        if not isinstance(node, ast.Name):
            return None
        return self.params.get(node.id) or self.record_names.get(node.id)

    def _is_record(self, node: ast.expr) -> bool:
        """Whether node is a whole record: a record parameter, or a[i] of a record array with every index."""
        arr = node if isinstance(node, ast.Name) else node.value if isinstance(node, ast.Subscript) else None
        t = self._array_type(arr)
        if not (isinstance(t, lang.ArrayType) and t.dtype.names is not None):
            return False
        return t.ndim == 0 if node is arr else (self._tuple_arity(node.slice) or 1) == t.ndim

    @staticmethod
    def _is_slice(node: ast.expr) -> bool:
        """Whether node is a[i:j] (or a[i, :], ...): a view of an array."""
        if not isinstance(node, ast.Subscript):
            return False
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(isinstance(p, ast.Slice) for p in parts)

    def is_pointer(self, node: ast.expr) -> bool:
        """Whether node is a pointer or array: a name of one, a row a[i] of an array, a slice a[i:j] of an
        array, or pointer +/- integer."""
        if self._is_row(node) or self._is_slice(node) or (isinstance(node, ast.Subscript) and self._is_record(node)):
            return True
        field = self.record_field(node) if isinstance(node, (ast.Attribute, ast.Subscript)) else None
        if field is not None and field[1].shape:
            return True
        if isinstance(node, ast.Name):
            return node.id in self.ptrs or node.id in self.array_names
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self.is_pointer(node.left) or (isinstance(node.op, ast.Add) and self.is_pointer(node.right))
        return False

    def pointer(self, node: ast.expr, mv: str = "m") -> str:
        """Code for a pointer expression (p, p + k, k + p, p - k) evaluated in the lanes of mask mv."""
        if isinstance(node, ast.Name):
            return f"v_{node.id}"
        field = self.record_field(node, mv) if isinstance(node, (ast.Attribute, ast.Subscript)) else None
        if field is not None:
            return field[0]
        if isinstance(node, ast.Subscript) and self._is_slice(node):
            if not isinstance(node.value, ast.Name) or node.value.id not in self.locals:
                raise self.refuse(node, f"slicing '{ast.unparse(node.value)}'", "slice an array")
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            code = []
            for p in parts:
                if isinstance(p, ast.Slice):
                    ends = [self.expr(e, mv) if e is not None else "None" for e in (p.lower, p.upper, p.step)]
                    code.append(f"slice({', '.join(ends)})")
                else:
                    code.append(self.expr(p, mv))
            return f"h_slice(C, v_{node.value.id}, ({''.join(c + ', ' for c in code)}), {mv}, {self.src.line(node)})"
        if isinstance(node, ast.Subscript):
            base, idx = self.subscript_parts(node, mv=mv)
            return f"h_sub(C, {base}, {idx}, {mv}, {self.src.line(node)})"
        assert isinstance(node, ast.BinOp)
        p, k = (node.left, node.right) if self.is_pointer(node.left) else (node.right, node.left)
        if self.is_pointer(k):
            raise self.refuse(node, f"'{ast.unparse(node)}' (arithmetic between two pointers)")
        sign = -1 if isinstance(node.op, ast.Sub) else 1
        return f"h_padd({self.pointer(p, mv)}, {self.expr(k, mv)}, {sign})"

    def print_(self, call: ast.Call) -> None:
        """print(...) in a kernel: every active thread prints its line, in thread order (like printf)."""
        if call.keywords:
            raise self.refuse(call, "keyword arguments to print()")
        args = [repr(a.value) if isinstance(a, ast.Constant) and isinstance(a.value, str) else self.expr(a, "m")
                for a in call.args]
        self.emit(f"C.print(m, [{', '.join(args)}])")

    def assign(self, target: ast.expr, value: ast.expr, s: ast.stmt) -> None:
        if isinstance(value, ast.Call) and self.names.intrinsic(value.func)[0] == "this_grid":
            if not isinstance(target, ast.Name) or value.args or value.keywords:
                raise self.refuse(s, f"'{ast.unparse(s)}'", "write g = this_grid() and call g.sync()")
            self.grid_groups.add(target.id)
            return
        decl = self.names.array_decl(value.func) if isinstance(value, ast.Call) else None
        if decl is not None:
            if not isinstance(target, ast.Name):
                raise self.refuse(s, f"assigning a new array to {ast.unparse(target)!r}", "assign it to a name")
            self.array_decl(decl, target, value)
            return
        if isinstance(target, ast.Tuple):
            if isinstance(value, ast.Tuple):
                if len(value.elts) != len(target.elts):
                    raise self.refuse(s, f"unpacking {len(value.elts)} values into {len(target.elts)} names")
                tmps = []
                for v in value.elts:
                    t = self.tmp()
                    is_ptr = self.is_pointer(v)
                    self.emit(f"{t} = {self.pointer(v) if is_ptr else self.expr(v, 'm')}")
                    tmps.append((t, is_ptr))
            else:
                t = self.tmp()
                self.emit(f"{t} = {self.tuple_value(value, len(target.elts), s)}")
                tmps = [(f"{t}[{k}]", False) for k in range(len(target.elts))]
            for tgt, (t, is_ptr) in zip(target.elts, tmps, strict=False):
                self.assign_value(tgt, t, s, is_ptr)
            return
        if self._is_record(target) and self._is_record(value):  # a[i] = a[j], a[0] = r: every field
            parts = []
            for side in (target, value):
                arr = side if isinstance(side, ast.Name) else side.value
                parts += [f"v_{arr.id}", self._index_arg(side.slice, "m") if isinstance(side, ast.Subscript) else "()"]
            self.emit(f"h_reccopy(C, {', '.join(parts)}, m, {self.src.line(s)})")
            return
        target_field = self.record_field(target) if isinstance(target, (ast.Attribute, ast.Subscript)) else None
        if target_field is not None and target_field[1].shape:  # r.h = other array (or field): element by element
            if not self.is_pointer(value):
                raise self.refuse(s, f"assigning '{ast.unparse(value)}' to the array field '{ast.unparse(target)}'",
                                  "assign an array of the same shape, or its elements one by one")
            self.emit(f"h_viewcopy(C, {target_field[0]}, {self.pointer(value)}, m, {self.src.line(s)})")
            return
        if self.is_pointer(value):
            if isinstance(target, ast.Name) and self._is_record(value):
                self.record_names[target.id] = lang.ArrayType(self._array_type(
                    value if isinstance(value, ast.Name) else value.value).dtype, 0)
            self.assign_value(target, self.pointer(value), s, True)
            return
        if isinstance(target, ast.Subscript) and self._tuple_arity(value):
            raise self.refuse(s, f"storing the {self._tuple_arity(value)} values of '{ast.unparse(value)}' "
                              "into one array element", "unpack it (a, b = ...) and store each value into its own element")
        if isinstance(target, ast.Subscript) and isinstance(value, ast.BinOp) and type(value.op) in _FUSABLE \
                and self.record_field(target) is None and self.record_field(target.value) is None:
            base, idx = self.subscript_parts(target, write=True)
            a, pending = self.fusable_operand(value.left, True)
            b, _ = self.fusable_operand(value.right, not pending)  # at most one operand stays pending
            self.emit(f"h_stb(C, {base}, {idx}, {front.BINOPS[type(value.op)]!r}, {a}, {b}, m, {self.src.line(s)})")
            return
        self.assign_value(target, self.expr(value, "m"), s)

    def fusable_operand(self, node: ast.expr, may_pend: bool) -> tuple[str, bool]:
        """(code, pending) of an operand of a store's `a op b`: itself a +, - or * of two values, it may
        stay pending, as the tuple (op, x, y), for the store to compute into memory (memory.store_binop)."""
        if may_pend and isinstance(node, ast.BinOp) and type(node.op) in _FUSABLE and not self.is_pointer(node):
            return f"({front.BINOPS[type(node.op)]!r}, {self.expr(node.left, 'm')}, {self.expr(node.right, 'm')})", True
        return self.expr(node, "m"), False

    def assign_value(self, target: ast.expr, code: str, s: ast.stmt, is_ptr: bool = False) -> None:
        if is_ptr:  # (re)binding a name to a pointer or array
            if not isinstance(target, ast.Name):
                raise self.refuse(s, f"storing a pointer or array into {ast.unparse(target)!r}")
            if target.id in self.params and target.id not in self.ptrs:
                raise self.refuse(s, f"binding the scalar parameter '{target.id}' to a pointer or array")
            self.ptrs.add(target.id)
            self.ptr_locals = True
            self.emit(f"v_{target.id} = h_rebind(C, m, {code}, v_{target.id})")
            return
        if isinstance(target, ast.Name):
            if target.id in self.ptrs or target.id in self.array_names:
                raise self.refuse(s, f"assigning to the pointer/shared array '{target.id}'", "index it instead")
            whole = (isinstance(s, ast.Assign) and target in s.targets) or (isinstance(s, ast.AnnAssign) and s.target is target)
            arity = self._tuple_arity(s.value) if whole and s.value is not None else None
            if arity:  # a tuple of known length: a[t] with it is an element, not a row
                self.tuple_names[target.id] = arity
            self.emit(f"v_{target.id} = h_asg(C, {self.amask}, {code}, v_{target.id})")
            if self.amask != "m":
                self.deferred.add(target.id)
        elif self.record_field(target) is not None:  # r.f = v, a[i].f = v, r['f'] = v
            view, fdt = self.record_field(target)
            if fdt.shape:
                raise self.refuse(s, f"assigning to the array field '{ast.unparse(target)}'", "assign its elements")
            self.emit(f"h_st(C, {view}, (), {code}, m, {self.src.line(s)})")
        elif isinstance(target, ast.Subscript) and self.record_field(target.value) is not None:  # r.h[k] = v
            view = self.record_field(target.value)[0]
            self.emit(f"h_st(C, {view}, {self._index_arg(target.slice, 'm')}, {code}, m, {self.src.line(s)})")
        elif isinstance(target, ast.Subscript):
            base, idx = self.subscript_parts(target, write=True)
            self.emit(f"h_st(C, {base}, {idx}, {code}, m, {self.src.line(s)})")
        else:
            raise self.refuse(s, f"assigning to {ast.unparse(target)!r}")

    def augassign(self, s: ast.AugAssign) -> None:
        op = front.BINOPS.get(type(s.op))
        if op is None:
            raise self.refuse(s, f"the operator {type(s.op).__name__}")
        v = self.expr(s.value, "m")
        field = self.record_field(s.target) or (self.record_field(s.target.value) if isinstance(s.target, ast.Subscript)
                                                 else None)
        if field is not None:  # r.f += v, r.h[k] += v
            idx = "()" if self.record_field(s.target) else self._index_arg(s.target.slice, "m")
            t, line = self.tmp(), self.src.line(s)
            self.emit(f"{t} = {field[0]}")
            self.emit(f"h_st(C, {t}, {idx}, h_bin({op!r}, h_ld(C, {t}, {idx}, m, {line}), {v}), m, {line})")
            return
        if isinstance(s.target, ast.Name):
            name = s.target.id
            if name in self.ptrs or name in self.array_names:
                raise self.refuse(s, f"arithmetic on the pointer '{name}'", f"index it: {name}[i] {ast.unparse(s.op)}= ...")
            self.emit(f"v_{name} = h_asg(C, {self.amask}, h_bin({op!r}, v_{name}, {v}), v_{name})")
            if self.amask != "m":
                self.deferred.add(name)
        elif isinstance(s.target, ast.Subscript):
            base, idx = self.subscript_parts(s.target, write=True)
            t = self.tmp()
            line = self.src.line(s)
            self.emit(f"{t} = {idx}")
            if self.compiler.rules != "c":  # numba's types: the old value, then the operation, then the store
                self.emit(f"h_st(C, {base}, {t}, h_bin({op!r}, h_ld(C, {base}, {t}, m, {line}), {v}), m, {line})")
            elif self._impure(s.value):  # Python's order: the old value is read before the operand's loads
                self.emit(f"h_stb(C, {base}, {t}, {op!r}, h_ld(C, {base}, {t}, m, {line}), {v}, m, {line})")
            else:
                self.emit(f"h_upd(C, {base}, {t}, {op!r}, {v}, m, {line})")
        else:
            raise self.refuse(s, f"assigning to {ast.unparse(s.target)!r}")

    def array_decl(self, kind: str, target: ast.Name, call: ast.Call) -> None:
        """name = simt.shared.array(shape, dtype) / simt.local.array(shape, dtype) / simt.const.array_like(a)."""
        fname = ast.unparse(call.func)
        names = ("ary",) if kind == "const" else ("shape", "dtype")
        args = dict(zip(names, call.args, strict=False))
        for k in call.keywords:
            if k.arg not in names or k.arg in args:
                raise self.refuse(call, f"{fname} with the argument {k.arg!r}", f"call it as {fname}({', '.join(names)})")
            args[k.arg] = k.value
        if len(call.args) > len(names) or set(args) != set(names):
            raise self.refuse(call, f"{fname} without exactly ({', '.join(names)})")
        if target.id in self.params:
            raise self.refuse(call, f"rebinding the parameter '{target.id}' to a new array")
        self.array_names.add(target.id)
        key = f"{self.src.name}:{self.src.line(call)}"
        if kind == "const":
            host = self.names.constant(args["ary"])
            if not isinstance(host, np.ndarray) or host.dtype.kind not in "biufc":
                raise self.refuse(call, f"{fname} of a {type(host).__name__}",
                                  "pass a module-level numpy array of bool, integer or float elements")
            self.const_arrays.add(target.id)
            self.emit(f"v_{target.id} = {self._obj(arrays.ConstArr(target.id, host))}")
            return
        try:
            shape = self.names.constant(args["shape"])
            dtype = element_dtype(self.names.constant(args["dtype"]))
            if dtype is None:
                raise TypeError
        except (SimtError, TypeError):
            raise self.refuse(call, f"a {fname} whose shape or dtype is not a constant",
                              "use literals, module-level constants or arithmetic on them") from None
        if kind == "shared" and shape == 0:  # dynamic: sized by the launch's 4th value
            self.emit(f"v_{target.id} = C.dyn_shared({target.id!r}, {self._obj(dtype)})")
            return
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not shape or not all(isinstance(n, int) and n > 0 for n in shape):
            raise self.refuse(call, f"the array shape {shape!r}", "give positive integer dimensions")
        if dtype.kind not in "biufc":
            raise self.refuse(call, f"the element type {dtype}", "use a numpy bool, integer or float type")
        if kind == "shared":
            self.shared_bytes += int(np.prod(shape)) * dtype.itemsize
        else:
            self.local_bytes += int(np.prod(shape)) * dtype.itemsize
        self.emit(f"v_{target.id} = C.{kind}({key!r}, {target.id!r}, {shape!r}, {self._obj(dtype)})")

    def if_(self, s: ast.If) -> None:
        saved, self.amask = self.amask, "m"  # the arms merge under their own masks
        self._if(s)
        self.amask = saved

    def _if(self, s: ast.If) -> None:
        m0, mt, c = self.tmp("m"), self.tmp("m"), self.tmp("c")
        self.emit(f"{c} = {self.cond(s.test, 'm')}")
        self.emit(f"{m0} = m")
        self.emit(f"m = h_mand(C.N, {m0}, {c})")
        self.emit("if m is not False:")
        self.ind += 1
        self.block(s.body)
        self.ind -= 1
        self.emit(f"{mt} = m")
        self.emit(f"m = h_mandnot(C.N, {m0}, {c})")
        if s.orelse:
            self.emit("if m is not False:")
            self.ind += 1
            self.block(s.orelse)
            self.ind -= 1
        self.emit(f"m = h_mor(C.N, {mt}, m)")

    def _loop_body(self, body: list[ast.stmt], live: str) -> None:
        self.emit(f"m = {live}")
        if not front.has(body, (ast.Break, ast.Continue, ast.Return), into_loops=True):
            self.block(body)  # no lane leaves early: the mask after the body is `live` again
            return
        cnt = self.tmp("cnt")
        self.emit(f"{cnt} = False")
        self.loops.append(cnt)
        self.block(body)
        self.loops.pop()
        self.emit(f"{live} = h_mor(C.N, m, {cnt})")

    def _loop_exit(self, body: list[ast.stmt], enter: str) -> None:
        if front.has(body, (ast.Return,), into_loops=True):
            self.emit(f"m = h_mandnot(C.N, {enter}, {self.ret})")
        else:
            self.emit(f"m = {enter}")

    def for_(self, s: ast.For) -> None:
        if s.orelse:
            raise self.refuse(s, "'for ... else'")
        counter = f"_k{self.ntmp + 1}"
        loop = front.range_loop(self.names, s, counter)
        if loop is not None:  # for v in a / enumerate / zip: a range loop over an index
            self.ntmp += 1
            self.locals.add(counter)
            for n in ast.walk(ast.Module(loop.body[: len(loop.body) - len(s.body)], [])):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    self.locals.add(n.id)
            self.emit(f"v_{counter} = h_U")
            s = loop
        if not isinstance(s.target, ast.Name):
            raise self.refuse(s, "a loop target that is not a single name")
        if s.target.id in self.ptrs or s.target.id in self.array_names:
            raise self.refuse(s, f"using the pointer/shared array '{s.target.id}' as a loop variable")
        self.iterates = True
        it = s.iter
        if not (isinstance(it, ast.Call) and self.names.intrinsic(it.func)[0] == "range"):
            raise self.refuse(s, f"iterating over {ast.unparse(it)!r}", "only 'for i in range(...)' loops are supported")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.refuse(s, "range() with these arguments")
        vals = [self.expr(a, "m") for a in it.args]
        start, stop, step = (["0", vals[0], "1"] if len(vals) == 1 else [*vals, "1"] if len(vals) == 2 else vals)
        a, b, st, iv = self.tmp("a"), self.tmp("b"), self.tmp("s"), self.tmp("i")
        enter, live = self.tmp("me"), self.tmp("ml")
        self.emit(f"{a}, {b}, {st} = {start}, {stop}, {step}")
        self.emit(f"{iv} = h_start({a}, {b})")  # the counter's type: from start and stop
        self.emit(f"{enter} = m")
        self.emit(f"{live} = m")
        # A uniform loop (the same trip count in every lane, no lane leaving early) counts its trips
        # instead of recomputing the mask of lanes still iterating: the mask stays `m` throughout.
        exits = front.has(s.body, (ast.Break, ast.Continue), into_loops=False) or front.has(s.body, (ast.Return,), into_loops=True)
        trips = None if exits else self.tmp("n")
        # In a uniform loop the mask never changes: assignments at the top of its body skip the per-lane
        # merge (lanes outside the mask do not run the body, so what they hold meanwhile is never read)
        # and each such variable merges once after the loop. Not with warp functions, which read other
        # lanes' values.
        amask = self.tmp("am") if trips and not self._uses_warp(s.body) else None
        saves_at = len(self.lines)
        if trips:
            self.emit(f"{trips} = h_trips({iv}, {b}, {st})")
        if amask:
            self.emit(f"{amask} = True if {trips} is not None else m")
        self.emit("while True:")
        self.ind += 1
        if trips:
            self.emit(f"if {trips} is not None:")
            self.emit(f"    if {trips} == 0:")
            self.emit("        break")
            self.emit(f"    {trips} -= 1")
            self.emit("else:")
            self.ind += 1
        self.emit(f"{live} = h_mand(C.N, {live}, h_rmask(C, {iv}, {b}, {st}))")
        self.emit(f"if {live} is False:")
        self.emit("    break")
        if amask:
            self.emit(f"{amask} = {live}")
        if trips:
            self.ind -= 1
        self.emit(f"v_{s.target.id} = h_asg(C, {amask or live}, {iv}, v_{s.target.id})")
        saved = self.amask, self.deferred
        self.amask, self.deferred = amask or "m", {s.target.id}
        self._loop_body(s.body, live)
        deferred = sorted(self.deferred)
        self.amask, self.deferred = saved
        self.emit(f"{iv} = h_bin('add', {iv}, {st})")
        self.ind -= 1
        self._loop_exit(s.body, enter)
        if amask:  # the one merge of every variable the uniform loop assigned: lanes outside `m` keep theirs
            pad = "    " * self.ind
            self.lines[saves_at:saves_at] = [f"{pad}t_sv_{n}_{amask} = v_{n}" for n in deferred]
            self.emit(f"if {trips} is not None:")
            for n in deferred:
                self.emit(f"    v_{n} = h_asg(C, m, v_{n}, t_sv_{n}_{amask})")

    def _uses_warp(self, body: list[ast.stmt]) -> bool:
        return any(isinstance(n, ast.Call) and self.names.intrinsic(n.func)[0] == "warp"
                   for st in body for n in ast.walk(st))

    def while_(self, s: ast.While) -> None:
        if s.orelse:
            raise self.refuse(s, "'while ... else'")
        self.iterates = True
        enter, live = self.tmp("me"), self.tmp("ml")
        self.emit(f"{enter} = m")
        self.emit(f"{live} = m")
        self.emit("while True:")
        self.ind += 1
        self.emit(f"m = {live}")
        saved, self.amask = self.amask, "m"
        c = self.cond(s.test, "m")
        self.emit(f"{live} = h_mand(C.N, {live}, {c})")
        self.emit(f"if {live} is False:")
        self.emit("    break")
        self._loop_body(s.body, live)
        self.amask = saved
        self.ind -= 1
        self._loop_exit(s.body, enter)

    def return_(self, s: ast.Return) -> None:
        if self.kind == "kernel":
            if s.value is not None and not (isinstance(s.value, ast.Constant) and s.value.value is None):
                raise self.refuse(s, "returning a value from a kernel", "store results through a Ptr parameter")
        else:
            arity = len(s.value.elts) if isinstance(s.value, ast.Tuple) else None
            if s.value is not None and self.ret_arity not in (0, arity):
                raise self.refuse(s, "returning values of different arities from one device function")
            self.ret_arity = arity if s.value is not None else self.ret_arity
            if isinstance(s.value, ast.Tuple):  # a tuple: each element merges per lane
                for k, e in enumerate(s.value.elts):
                    self.emit(f"r_val{k} = h_asg(C, m, {self.expr(e, 'm')}, r_val{k})")
            elif s.value is not None:
                self.emit(f"r_val = h_asg(C, m, {self.expr(s.value, 'm')}, r_val)")
        self.emit(f"{self.ret} = h_mor(C.N, {self.ret}, m)")
        self.emit("m = False")

    def raise_(self, s: ast.Raise) -> None:
        """`raise Exc` / `raise Exc("message", ...)` with constant arguments: the launch fails with it."""
        if s.exc is None or s.cause is not None:
            raise self.refuse(s, "a bare 'raise' or 'raise ... from ...'")
        call = s.exc if isinstance(s.exc, ast.Call) else None
        cls = self.names.resolve(call.func if call else s.exc)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)) or (call and call.keywords):
            raise self.refuse(s, f"'raise {ast.unparse(s.exc)}'", "raise an exception class with constant arguments")
        try:
            args = tuple(self.names.constant(a) for a in call.args) if call else ()
        except SimtError:
            raise self.refuse(s, f"'raise {ast.unparse(s.exc)}' with arguments that are not constants") from None
        self.raises = True
        self.emit(f"C.raise_(m, {self._obj(cls)}, {self._obj(args)}, {self.src.line(s)})")
        self.emit("m = False")

    # -- conditions (masks) ---------------------------------------------------------------
    def cond(self, node: ast.expr, mv: str) -> str:
        """Code for the mask of lanes (among all) where `node` is true; may emit statements."""
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in front.CMPOPS:
            a = self.expr(node.left, mv)
            b = self.expr(node.comparators[0], mv)
            return f"h_cmpm(C, {front.CMPOPS[type(node.ops[0])]!r}, {a}, {b})"
        if isinstance(node, ast.BoolOp):
            acc = self.tmp("c")
            self.emit(f"{acc} = {self.cond(node.values[0], mv)}")
            for v in node.values[1:]:
                sub = self.tmp("m")
                if isinstance(node.op, ast.And):
                    self.emit(f"{sub} = h_mand(C.N, {mv}, {acc})")
                else:
                    self.emit(f"{sub} = h_mandnot(C.N, {mv}, {acc})")
                c2 = self.tmp("c")
                self.emit(f"{c2} = False")
                self.emit(f"if {sub} is not False:")
                self.ind += 1
                self.emit(f"{c2} = {self.cond(v, sub)}")
                self.ind -= 1
                op = "h_mand" if isinstance(node.op, ast.And) else "h_mor"
                self.emit(f"{acc} = {op}(C.N, {acc}, {c2})")
            return acc
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return f"h_mandnot(C.N, True, {self.cond(node.operand, mv)})"
        return f"h_tomask(C.N, {self.expr(node, mv)})"

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node: ast.expr, mv: str) -> str:
        if isinstance(node, ast.Constant):
            if type(node.value) in (int, float, bool, complex):
                return self.const(node.value)
            raise self.refuse(node, f"the constant {node.value!r}")
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, mv)
        if isinstance(node, ast.BinOp):
            op = front.BINOPS.get(type(node.op))
            if op is None:
                raise self.refuse(node, "the '@' operator")
            return f"h_bin({op!r}, {self.expr(node.left, mv)}, {self.expr(node.right, mv)})"
        if isinstance(node, ast.UnaryOp):
            return f"h_un({front.UNARY[type(node.op)]!r}, {self.expr(node.operand, mv)})"
        if isinstance(node, ast.Compare):
            return self.compare(node, mv)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node, mv)
        if isinstance(node, ast.IfExp):
            return self.ifexp(node, mv)
        if isinstance(node, ast.Subscript):
            value = self.field_value(node, mv)  # r['f']
            if value is not None:
                return value
            field = self.record_field(node.value, mv)  # r.h[k]: an element of an array field
            if field is not None:
                return f"h_ld(C, {field[0]}, {self._index_arg(node.slice, mv)}, {mv}, {self.src.line(node)})"
            if self._is_record(node):
                raise self.refuse(node, f"the record '{ast.unparse(node)}' as a value", "read its fields")
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":  # a.shape[k]
                k = self.names.constant(node.slice)
                if type(k) is not int:
                    raise self.refuse(node, f"'{ast.unparse(node)}' with a non-constant index")
                return f"{self.attribute(node.value)}[{k}]"
            if isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)) and not self._local_root(node.value):
                try:
                    k = self.names.constant(node.slice)
                except SimtError:  # a constant tuple indexed at run time (a loop over it): the same k in every thread
                    t = self.names.global_value(node.value) if not isinstance(node.value, ast.Subscript) \
                        else self._constant_item(node.value)
                    return f"h_ld(C, {self._obj(t)}, {self.expr(node.slice, mv)}, {mv}, {self.src.line(node)})"
                del k
                return self.const(self._constant_item(node))
            if self._is_slice(node):
                raise self.refuse(node, f"the slice '{ast.unparse(node)}' as a value",
                                  f"bind it to a name (v = {ast.unparse(node)}) and index that")
            if self._is_row(node):
                raise self.refuse(node, f"the row '{ast.unparse(node)}' as a value",
                                  f"bind it to a name (row = {ast.unparse(node)}) and index that")
            base, idx = self.subscript_parts(node, mv=mv)  # (index loads only in the lanes that load)
            return f"h_ld(C, {base}, {idx}, {mv}, {self.src.line(node)})"
        if isinstance(node, ast.Call):
            return self.call(node, mv)
        if isinstance(node, ast.Tuple):
            for e in node.elts:
                if self.is_pointer(e):
                    raise self.refuse(e, f"the pointer or array '{ast.unparse(e)}' in a tuple")
            return "(" + "".join(self.expr(e, mv) + ", " for e in node.elts) + ")"
        raise self.refuse(node, front.CONSTRUCTS.get(type(node), f"the expression {type(node).__name__}"))

    def _tuple_arity(self, node: ast.expr) -> int | None:
        """The number of values of a tuple expression known at compile time (a tuple display or a device
        function that returns one), else None."""
        if isinstance(node, ast.Tuple):
            return len(node.elts)
        if isinstance(node, ast.Name):
            return self.tuple_names.get(node.id)
        if isinstance(node, ast.Call):
            kind = self.names.intrinsic(node.func)[0]
            if kind == "device":
                return self.device_call(node)[0].ret_arity
            if kind in ("grid", "gridsize"):
                nd = self.names.ndim(node)
                return nd if nd > 1 else None
        return None

    def _local_root(self, node: ast.expr) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return not isinstance(node, ast.Name) or node.id in self.locals

    def _constant_item(self, node: ast.Subscript) -> Any:
        """t[k] of a global (or bound) tuple with a constant k (t itself may be such an item)."""
        t = self._constant_item(node.value) if isinstance(node.value, ast.Subscript) else self.names.global_value(node.value)
        try:
            k = self.names.constant(node.slice)
            return t[k]
        except (SimtError, TypeError, IndexError):
            raise self.refuse(node, f"'{ast.unparse(node)}'", "index a constant tuple with an integer constant") from None

    def _impure(self, node: ast.expr) -> bool:
        """Whether evaluating node in lanes that should not may fault or have effects (loads, calls)."""
        for n in ast.walk(node):
            if isinstance(n, ast.Subscript):
                return True
            if isinstance(n, ast.Call) and self.names.intrinsic(n.func)[0] in ("atomic", "device", "sync"):
                return True
        return False

    def compare(self, node: ast.Compare, mv: str) -> str:
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return self.identity(node, mv)
        for op in node.ops:
            if type(op) not in front.CMPOPS:
                raise self.refuse(node, f"the comparison '{type(op).__name__}'", "use <, <=, >, >=, == or !=")
        left = self.expr(node.left, mv)
        parts = []
        for op, right in zip(node.ops, node.comparators, strict=False):
            r = self.expr(right, mv)
            if len(node.ops) > 1:
                t = self.tmp()
                self.emit(f"{t} = {r}")
                r = t
            parts.append(f"h_cmp({front.CMPOPS[type(op)]!r}, {left}, {r})")
            left = r
        code = parts[0]
        for p in parts[1:]:
            code = f"h_logical('and', {code}, {p})"
        return code

    def identity(self, node: ast.Compare, mv: str) -> str:
        """`x is None` (false for every kernel value, as numba types it) and `x is True` / `x is False`
        (a comparison of booleans); `is not` the negation."""
        right = node.comparators[0]
        if not (isinstance(right, ast.Constant) and right.value in (None, True, False) and type(right.value) is not int):
            raise self.refuse(node, f"'{ast.unparse(node)}'", "'is' compares with None, True or False only")
        negate = isinstance(node.ops[0], ast.IsNot)
        left = node.left
        if right.value is None:
            result = isinstance(left, ast.Constant) and left.value is None
            return repr(result != negate)
        code = f"h_cmp('eq', h_truth({self.expr(left, mv)}), {right.value!r})"
        return f"h_un('not', {code})" if negate else code

    def boolop(self, node: ast.BoolOp, mv: str) -> str:
        name = "and" if isinstance(node.op, ast.And) else "or"
        if not any(self._impure(v) for v in node.values[1:]):
            code = f"h_truth({self.expr(node.values[0], mv)})"
            for v in node.values[1:]:
                code = f"h_logical({name!r}, {code}, {self.expr(v, mv)})"
            return code
        c = self.cond(node, mv)  # short-circuit per lane: later operands only where they run
        t = self.tmp()
        self.emit(f"{t} = C.mask_value({c})")
        return t

    def ifexp(self, node: ast.IfExp, mv: str) -> str:
        if not (self._impure(node.body) or self._impure(node.orelse)):
            return f"h_select({self.expr(node.test, mv)}, {self.expr(node.body, mv)}, {self.expr(node.orelse, mv)})"
        c = self.tmp("c")
        self.emit(f"{c} = {self.cond(node.test, mv)}")
        out = self.tmp()
        self.emit(f"{out} = h_U")
        for arm, maskop in ((node.body, "h_mand"), (node.orelse, "h_mandnot")):
            sub = self.tmp("m")
            self.emit(f"{sub} = {maskop}(C.N, {mv}, {c})")
            self.emit(f"if {sub} is not False:")
            self.ind += 1
            self.emit(f"{out} = h_asg(C, {sub}, {self.expr(arm, sub)}, {out})")
            self.ind -= 1
        return out

    def name(self, node: ast.Name) -> str:
        if node.id in self.locals:
            if node.id in self.ptrs or node.id in self.array_names:
                raise self.refuse(node, f"using the pointer/shared array '{node.id}' as a value",
                                  f"index it ({node.id}[i]) or pass it to a @simt.device function")
            return f"v_{node.id}"
        return self.global_expr(node)

    def global_expr(self, node: ast.expr) -> str:
        """A global name or attribute chain read as a value: a numeric constant or simt.laneid/warpsize."""
        obj = self.names.resolve(node)
        if isinstance(obj, lang._Special):
            return self.special(obj)
        return self.const(self.names.global_value(node))

    def field_value(self, node: ast.expr, mv: str) -> str | None:
        """The value of a scalar record field (None when node is not a record field)."""
        field = self.record_field(node, mv)
        if field is None:
            return None
        if field[1].shape:
            raise self.refuse(node, f"the array field '{ast.unparse(node)}' as a value", "index it, or bind it to a name")
        return f"h_ld(C, {field[0]}, (), {mv}, {self.src.line(node)})"

    def attribute(self, node: ast.Attribute, mv: str = "m") -> str:
        value = self.field_value(node, mv)
        if value is not None:
            return value
        if node.attr in ("real", "imag") and not isinstance(node.value, (ast.Name, ast.Attribute)):
            return f"h_part({self.expr(node.value, mv)}, {node.attr!r})"  # (x * y).real, z.conjugate().imag
        if isinstance(node.value, ast.Name) and node.value.id in self.locals:
            name = node.value.id
            if node.attr in ("shape", "size", "ndim") and (name in self.ptrs or name in self.array_names
                                                            or self.kind == "device"):
                return f"h_{node.attr}(v_{name})"
            if node.attr in ("real", "imag"):
                return f"h_part(v_{name}, {node.attr!r})"
            raise self.refuse(node, f"'{ast.unparse(node)}'", "arrays have .shape, .size and .ndim; numbers .real and .imag")
        if isinstance(node.value, (ast.Name, ast.Attribute)):
            try:
                base = self.names.resolve(node.value)
            except SimtError:
                base = None
            if isinstance(base, lang._Index):
                if node.attr not in ("x", "y", "z"):
                    raise self.refuse(node, f"'{ast.unparse(node)}'", "use .x, .y or .z")
                return f"C.{base._name}_{node.attr}"
        return self.global_expr(node)

    def subscript_parts(self, node: ast.Subscript, write: bool = False, mv: str = "m") -> tuple[str, str]:
        if type(node.value) in front.CONSTRUCTS:
            raise self.refuse(node, front.CONSTRUCTS[type(node.value)])
        if not isinstance(node.value, ast.Name) or node.value.id not in self.locals:
            raise self.refuse(node, f"indexing '{ast.unparse(node.value)}'",
                              "only simt.Ptr parameters and shared arrays can be indexed")
        name = node.value.id
        if write and name in self.const_arrays:
            raise self.refuse(node, f"writing the constant array '{name}'", "constant arrays are read-only")
        if self.kind == "kernel" and name in self.params and name not in self.ptrs:
            raise self.refuse(node, f"indexing the scalar '{name}'", "only simt.Ptr parameters and shared arrays")
        if write and name not in self.ptrs and name not in self.array_names and self.kind == "kernel":
            raise self.refuse(node, f"assigning to an element of '{name}'", "tuples are immutable")
        sl = node.slice
        return f"v_{name}", self._index_arg(sl, mv)

    def tuple_value(self, node: ast.expr, n: int, s: ast.stmt) -> str:
        """Code for a tuple-valued expression unpacked into n names (its arity is checked here)."""
        arity, code = None, None
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            t = self.params.get(node.value.id) if isinstance(node.value, ast.Name) else None
            arity, code = (t.ndim if isinstance(t, lang.ArrayType) else n), self.attribute(node)
        if isinstance(node, ast.Call):
            kind, data = self.names.intrinsic(node.func)
            if kind in ("grid", "gridsize"):
                arity = self.names.ndim(node)
                code = "(" + "".join(f"{c}, " for c in self.grid_code(kind, arity)) + ")"
            elif kind == "device":
                code = self.call(node, "m")
                arity = self.device_call(node)[0].ret_arity
                if arity is None:  # it returns a tuple held in a variable: checked when it runs
                    arity, code = n, f"h_unpack({code}, {n})"
            elif kind == "cmath" and CMATH[data][2] == "split":
                arity, code = 2, self.call(node, "m")
            elif kind == "math" and data.result == "split":
                if len(node.args) != 1 or node.keywords:
                    raise self.refuse(node, f"{ast.unparse(node.func)} with these arguments", "pass one value")
                arity, code = 2, f"h_math({self._obj(data)}, {self.expr(node.args[0], 'm')})"
        if code is None and isinstance(node, (ast.Name, ast.Subscript)) and not self.is_pointer(node):
            arity, code = n, f"h_unpack({self.expr(node, 'm')}, {n})"  # a tuple value: its arity is checked when it runs
        if code is None:
            raise self.refuse(s, f"unpacking '{ast.unparse(node)}'",
                              "unpack a tuple (a, b = x, y), simt.grid(n), simt.gridsize(n), math.frexp or math.modf")
        if arity != n:
            raise self.refuse(s, f"unpacking the {arity} values of '{ast.unparse(node)}' into {n} names")
        return code

    @staticmethod
    def grid_code(kind: str, ndim: int) -> list[str]:
        """Per dimension: blockIdx * blockDim + threadIdx (grid) or blockDim * gridDim (gridsize)."""
        if kind == "grid":
            return [f"h_bin('add', h_bin('mul', C.blockIdx_{d}, C.blockDim_{d}), C.threadIdx_{d})" for d in "xyz"[:ndim]]
        return [f"h_bin('mul', C.blockDim_{d}, C.gridDim_{d})" for d in "xyz"[:ndim]]

    def special(self, obj: lang._Special) -> str:
        if obj is lang.warpsize:
            return repr(lang.WARP_SIZE)
        # laneid: the thread's linear index in its block, modulo the warp size
        lin = "h_bin('add', C.threadIdx_x, h_bin('mul', h_bin('add', C.threadIdx_y, " \
              "h_bin('mul', C.threadIdx_z, C.blockDim_y)), C.blockDim_x))"
        return f"h_bin('and', {lin}, {lang.WARP_SIZE - 1})"

    # -- calls ----------------------------------------------------------------------------
    def device_call(self, node: ast.Call) -> tuple[Compiled, list[ast.expr]]:
        """The device function a call compiles to, specialized on its compile-time arguments (types,
        functions, constants, tuples of them: front.Names.static), and the arguments passed at run time."""
        dev = self.names.intrinsic(node.func)[1]
        params = front.device_params(dev)
        star = dev.source.node.args.vararg is not None
        defaults: dict[str, Any] = {}
        if node.keywords or len(node.args) < len(params):  # keywords and defaults: positional, as Python binds them
            node, defaults = self._bind_call(node, dev, [p for p, _ in params])
        given = len(node.args) + len(defaults)
        if given != len(params) and not (star and given >= len(params)):
            raise self.refuse(node, f"calling {ast.unparse(node.func)} with {given} arguments "
                              f"(it takes {len(params)}{' or more' if star else ''})")
        statics: dict[str, Any] = dict(defaults)  # a parameter left to its default: that compile-time value
        for (pname, may_bind), a in zip(params, node.args, strict=False):
            v = self.names.static(a) if may_bind else front.NOT_STATIC
            if v is not front.NOT_STATIC:
                statics[pname] = v
        extra = node.args[len(params):]
        fn, kept = self.compiler.device(dev, node, self.src, statics, len(extra))
        missing = [p for p in defaults if p not in kept]
        if missing:
            raise self.refuse(node, f"the default value of {', '.join(missing)} in a recursive call")
        return fn, [a for (pname, _), a in zip(params, node.args, strict=False) if pname not in kept] + extra

    def _bind_call(self, node: ast.Call, dev: Any, names: list[str]) -> tuple[ast.Call, dict[str, Any]]:
        """A device-function call with its keyword arguments moved to their positions, and the values of
        the parameters it leaves to their defaults (compile-time values)."""
        if len(node.args) > len(names) and any(k.arg for k in node.keywords):
            raise self.refuse(node, "keyword arguments after extra positional ones")
        given: dict[str, ast.expr] = dict(zip(names, node.args, strict=False))
        for k in node.keywords:
            if k.arg is None or k.arg not in names or k.arg in given:
                raise self.refuse(node, f"the keyword argument {k.arg!r} of {ast.unparse(node.func)}")
            given[k.arg] = k.value
        defaults = dict(zip(names[len(names) - len(dev.fn.__defaults__ or ()):], dev.fn.__defaults__ or (),
                            strict=True))
        if any(n not in given and n not in defaults for n in names):
            missing = [n for n in names if n not in given and n not in defaults]
            raise self.refuse(node, f"calling {ast.unparse(node.func)} without {', '.join(missing)}")
        # the given arguments stay positional up to the first parameter left to its default
        k = next((i for i, n in enumerate(names) if n not in given), len(names))
        if any(n in given for n in names[k:]):
            # a later parameter is given: pass the default in between as a value
            pos = [given.get(n) or ast.Constant(defaults[n]) for n in names]
            return ast.copy_location(ast.Call(node.func, pos + node.args[len(names):], []), node), {}
        return ast.copy_location(ast.Call(node.func, [given[n] for n in names[:k]] + node.args[len(names):], []),
                                 node), {n: defaults[n] for n in names[k:]}

    def _expand_starred(self, node: ast.Call) -> ast.Call:
        """f(*t) with t a tuple of known length: f(t[0], t[1], ...)."""
        if not any(isinstance(a, ast.Starred) for a in node.args):
            return node
        args: list[ast.expr] = []
        for a in node.args:
            if not isinstance(a, ast.Starred):
                args.append(a)
                continue
            n = self._tuple_arity(a.value) if isinstance(a.value, ast.Name) else None
            if n is None:
                raise self.refuse(a, f"'*{ast.unparse(a.value)}' of something not a tuple of known length")
            args += [ast.copy_location(ast.Subscript(a.value, ast.Constant(k), ast.Load()), a) for k in range(n)]
        return ast.copy_location(ast.Call(node.func, args, node.keywords), node)

    def call(self, node: ast.Call, mv: str) -> str:
        node = self._expand_starred(node)
        if node.keywords and self.names.intrinsic(node.func)[0] != "device":
            raise self.refuse(node, "keyword arguments in a call", "keywords are accepted by device functions")
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("conjugate", "conj") \
                and self._local_root(node.func.value) and not node.args:
            return f"h_conj({self.expr(node.func.value, mv)})"
        if isinstance(node.func, ast.Attribute) and node.func.attr == "bit_count" and self._local_root(node.func.value):
            if node.args:  # x.bit_count(): int.bit_count of a kernel value
                raise self.refuse(node, f"{ast.unparse(node.func)} with arguments")
            return f"h_bits('popc', {self.expr(node.func.value, mv)})"
        kind, data = self.names.intrinsic(node.func)
        fname = ast.unparse(node.func)
        args = node.args
        line = self.src.line(node)
        if kind == "len" and len(args) == 1 and isinstance(args[0], (ast.Name, ast.Attribute, ast.Subscript)) \
                and not self._local_root(args[0].value if isinstance(args[0], ast.Subscript) else args[0]):
            v = self._constant_item(args[0]) if isinstance(args[0], ast.Subscript) else self.names.global_value(args[0])
            if type(v) is not tuple:
                raise self.refuse(node, f"len({ast.unparse(args[0])}) of a {type(v).__name__}")
            return self.const(len(v))
        if kind == "len":
            if len(args) != 1 or not isinstance(args[0], ast.Name) or args[0].id not in self.locals:
                raise self.refuse(node, f"len({', '.join(ast.unparse(a) for a in args)})", "len() takes one array or tuple")
            return f"h_len(v_{args[0].id})"
        if kind == "device":
            fn, runtime = self.device_call(node)
            self.raises |= fn.raises
            self.grid_sync |= fn.grid_sync
            self.iterates |= fn.iterates
            self.local_bytes += fn.local_bytes
            return f"{self._obj(fn.pyfunc)}(C, {mv}, {''.join(self.arg(a, mv) + ', ' for a in runtime)})"
        if kind == "atomic":
            n = 4 if data == "cas" else 3
            if len(args) != n:
                sig = {"cas": "(array, index, compare, value)", "compare_and_swap": "(array, compare, value)"}.get(
                    data, "(array, index, value)")
                raise self.refuse(node, f"{fname} with {len(args)} arguments", f"call it as {fname}{sig}")
            base = self.pointer_arg(args[0], node)
            if ast.unparse(args[0]) in self.const_arrays:
                raise self.refuse(node, f"an atomic on the constant array '{ast.unparse(args[0])}'")
            if data == "compare_and_swap":  # numba's cas on element 0 of a 1-D array
                return (f"h_atomic(C, 'cas', {base}, 0, {self.expr(args[2], mv)}, {mv}, {line}, "
                        f"{self.expr(args[1], mv)})")
            idx = self._index_arg(args[1], mv)
            if data == "cas":
                return (f"h_atomic(C, 'cas', {base}, {idx}, {self.expr(args[3], mv)}, {mv}, {line}, "
                        f"{self.expr(args[2], mv)})")
            return f"h_atomic(C, {data!r}, {base}, {idx}, {self.expr(args[2], mv)}, {mv}, {line})"
        if kind == "rng":
            if len(args) != 2 or node.keywords:
                raise self.refuse(node, f"{fname} with these arguments", f"call it as {fname}(states, index)")
            states = self.pointer_arg(args[0], node)
            return f"h_rng(C, {mv}, {data!r}, {states}, {self.expr(args[1], mv)}, {line})"
        if kind == "this_grid":
            raise self.refuse(node, f"{fname}() here", "write g = this_grid() and call g.sync(), or this_grid().sync()")
        if kind == "syncred":
            if len(args) != 1:
                raise self.refuse(node, f"{fname} with {len(args)} arguments", f"call it as {fname}(predicate)")
            return f"C.sync_reduce({mv}, {data!r}, {self.expr(args[0], mv)}, {line})"
        if kind == "fence" or (kind == "warp" and data == "syncwarp"):
            raise self.refuse(node, f"{fname}() inside an expression", "call it as a statement")
        if kind == "warp":
            nargs = {"activemask": 0}.get(data, 2 if data.endswith(("all_sync", "any_sync", "ballot_sync")) else 3)
            if len(args) != nargs or node.keywords:
                raise self.refuse(node, f"{fname} with {len(args)} arguments", f"{fname} takes {nargs}")
            vals = [self.expr(a, mv) for a in args]
            if data == "activemask":
                return f"h_activemask(C, {mv})"
            op = data[: -len("_sync")]
            helper = "h_shfl" if op.startswith("shfl") else "h_vote"
            return f"{helper}(C, {mv}, {op!r}, {', '.join(vals)}, {line})"
        if kind in ("grid", "gridsize"):
            nd = self.names.ndim(node)
            if nd != 1:  # a tuple
                return "(" + "".join(f"{c}, " for c in self.grid_code(kind, nd)) + ")"
            return self.grid_code(kind, 1)[0]
        if kind == "math" and data.result == "split":
            raise self.refuse(node, f"{fname}() as a single value", f"unpack it: a, b = {fname}(x)")
        if kind == "unknown":
            self.names.resolve(node.func)  # says why the name does not resolve, if it does not
            raise self.refuse(node, f"calling {fname}",
                              "kernels can call @simt.device functions, simt math/atomic functions and numpy scalar types")
        vals = [self.expr(a, mv) for a in args]
        if kind == "math" and len(vals) == data.nargs:
            return f"h_math({self._obj(data)}, {', '.join(vals)})"
        if kind == "minmax" and len(vals) >= 2:
            return f"h_minmax({self._obj(data)}, {', '.join(vals)})"
        if kind == "abs" and len(vals) == 1:
            return f"h_abs({vals[0]})"
        if kind == "rsqrt" and len(vals) == 1:
            return f"h_rsqrt({vals[0]})"
        if kind == "cmath" and (len(vals) == CMATH[data][0] or (data == "log" and len(vals) == 2)):
            return f"h_cmath({data!r}, {', '.join(vals)})"
        if kind == "pyop" and len(vals) == (1 if data[0] == "un" else 2):
            helper = {"bin": "h_bin", "cmp": "h_cmp", "un": "h_un"}[data[0]]
            return f"{helper}({data[1]!r}, {', '.join(vals)})"
        if kind == "bits" and len(vals) == 1:
            return f"h_bits({data!r}, {vals[0]})"
        if kind == "fp16" and len(vals) == lang.FP16_FUNCTIONS[data]:
            return f"h_fp16({data!r}, {', '.join(vals)})"
        if kind == "selp" and len(vals) == 3:
            return f"h_selp({', '.join(vals)})"
        if kind == "round" and len(vals) in (1, 2):
            return f"h_round({', '.join(vals)})"
        if kind == "fma" and len(vals) == 3:
            return f"h_fma({', '.join(vals)})"
        if kind == "cast" and len(vals) == 2 and data.kind == "c":
            return f"h_complex({vals[0]}, {vals[1]})"
        if kind == "cast" and len(vals) == 1:
            return f"h_to({vals[0]}, {self._obj(data)})"
        if kind in ("sync", "print"):
            raise self.refuse(node, f"{fname}() inside an expression", "call it as a statement")
        if kind == "range":
            raise self.refuse(node, "range() outside a for loop")
        if kind in ("math", "minmax", "abs", "rsqrt", "fma", "cast", "bits", "selp", "round", "fp16", "pyop", "cmath"):
            raise self.refuse(node, f"{fname} with {len(vals)} argument(s)")
        if kind == "local":
            raise self.refuse(node, f"calling the local variable '{fname}'")
        raise self.refuse(node, f"calling {fname}",
                          "kernels can call @simt.device functions, simt math/atomic functions and numpy scalar types")

    def _index_arg(self, node: ast.expr, mv: str) -> str:
        if isinstance(node, ast.Tuple):
            return "(" + "".join(self.expr(e, mv) + ", " for e in node.elts) + ")"
        return self.expr(node, mv)

    def pointer_arg(self, node: ast.expr, call: ast.AST) -> str:
        if self._is_slice(node) or self._is_row(node):
            return self.pointer(node)
        if isinstance(node, ast.Name) and node.id in self.locals:
            if self.kind == "kernel" and node.id not in self.ptrs and node.id not in self.array_names:
                raise self.refuse(call, f"an atomic on the scalar '{node.id}'", "pass a simt.Ptr parameter or shared array")
            return f"v_{node.id}"
        raise self.refuse(call, f"an atomic on '{ast.unparse(node)}'", "pass a simt.Ptr parameter or shared array")

    def arg(self, node: ast.expr, mv: str) -> str:
        """An argument of a device-function call made in the lanes of mv: pointers and arrays pass through."""
        if self.is_pointer(node):
            return self.pointer(node, mv)
        return self.expr(node, mv)


class Compiled:
    """A generated function and what calling it needs."""

    def __init__(self, pyfunc: Any, source: str, nparams: int, written: set[str], shared_bytes: int,
                 ret_arity: int | None = None, grid_sync: bool = False, iterates: bool = False,
                 local_bytes: int = 0, raises: bool = False) -> None:
        self.pyfunc = pyfunc
        self.raises = raises  # has a raise statement (here or in a device function it calls)
        self.rules = "c"  # the typing rules it was compiled with ("c" or "numba")
        self.grid_sync = grid_sync  # needs a cooperative launch: every block runs at once
        self.iterates = iterates  # has a loop (here or in a device function it calls)
        self.local_bytes = local_bytes  # local arrays per thread (bounds the lanes of a chunk)
        self.ret_arity = ret_arity or None  # the number of values a device function returns as a tuple
        self.shared_bytes = shared_bytes
        self.source = source
        self.nparams = nparams
        self.written = written  # pointer parameters the function stores to (directly or via device calls)


class _Recursive:
    """A device function's call to itself (directly or through others): its compiled form, looked up when
    the call runs (the function is still being compiled where the call is generated)."""

    def __init__(self, dev: Any, key: tuple) -> None:
        self.dev, self.key = dev, key

    def __call__(self, *args: Any) -> Any:
        return self.dev.compiled[self.key].pyfunc(*args)


class Compiler:
    """Compiles kernels and the device functions they call (each once per set of compile-time arguments;
    a recursive call runs the function being compiled)."""

    def __init__(self, rules: str = "c") -> None:
        """rules: "c" (simt's C arithmetic, ctype/ops) or "numba" (the cuda face: ntype/nops)."""
        self.rules = rules
        self._active: list[Any] = []

    def build(self, src: front.Source, kind: str, params: dict[str, Any], restype: Any = None, nvar: int = 0) -> Compiled:
        gen = Codegen(src, self, kind, params)
        gen.restype = restype
        gen.nvar = nvar
        if src.node.args.vararg is not None:
            gen.tuple_names[src.node.args.vararg.arg] = nvar
        code = gen.function()
        env = dict(HELPERS)
        if self.rules == "numba":
            env.update(NUMBA_HELPERS)
        env.update(gen.consts)
        filename = f"<simt {kind} {src.name} from {src.file}>"
        exec(compile(code, filename, "exec"), env)
        written = front.written_pointers(src.node)
        if gen.ptr_locals:  # a store through an alias may write any pointer parameter
            written |= set(params)
        out = Compiled(env["_kernel" if kind == "kernel" else "_device"], code, len(params), written, gen.shared_bytes,
                       gen.ret_arity, gen.grid_sync, gen.iterates, gen.local_bytes, gen.raises)
        out.rules = self.rules
        return out

    def device(self, dev: Any, node: ast.AST, caller: front.Source, statics: dict[str, Any],
               nvar: int = 0) -> tuple[Compiled, set]:
        """dev compiled with the parameters in `statics` bound to those compile-time values (once per set;
        nvar: the number of its *args), and the names of the parameters so bound (a recursive call passes
        its numbers at run time)."""
        if any(d is dev for d, _ in self._active):  # recursion: numbers are not part of the specialization
            statics = {n: v for n, v in statics.items() if not front.is_number(v)}
        key = (*front.static_key(statics), ("*", nvar), ("rules", self.rules))
        hit = dev.compiled.get(key)
        if hit is not None:
            return hit, set(statics)
        if (dev, key) in self._active:  # recursion: calls go to the compiled form once it is built
            return Compiled(_Recursive(dev, key), "", len(dev.params()) - len(statics), set(), 0,
                            iterates=True), set(statics)
        if sum(d is dev for d, _ in self._active) > 8:  # compile-time arguments that change at every level
            chain = " -> ".join(d.fn.__name__ for d, _ in [*self._active, (dev, key)])
            raise SimtError(f"{caller.where(node)}: recursion ({chain}) with other compile-time arguments at each "
                            "level is not supported in simt device functions")
        self._active.append((dev, key))
        try:
            params = {n: t for n, t in dev.params().items() if n not in statics}
            built = self.build(front.Source(dev.fn, "device function", statics), "device", params, dev.restype, nvar)
        finally:
            self._active.pop()
        dev.compiled[key] = built
        return built, set(statics)
