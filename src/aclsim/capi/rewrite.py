"""aclsim cc's rewriting of kernel syntax, in a preprocessed C++ translation unit (a `.ii` text).

`aclsim cc` preprocesses a source with aclsim's headers in rewrite mode (the qualifiers stay in the text as
words) and rewrites what plain C++ cannot say:
- `k<<<grid, block[, dyn[, stream]]>>>(args)` (SIMT) and `k<<<blocks, dyn_or_l2ctrl[, stream]>>>(args)`
  (Ascend C: `__global__` with `__aicore__`/`__vector__`/`__cube__`/`__mix__`) become calls of
  `aclsim::launch_simt` / `aclsim::launch_cores` with the kernel as a template argument;
- each SIMT kernel (and `asc_vf_call<f>` function) is marked to run its threads as fibers when its body
  can reach a barrier or a warp function (`aclsim_syncthreads` / `aclsim_warp`, through the functions the
  translation unit defines, by name), else as a plain loop over the threads;
- `__ubuf__ T x[N];` in a function becomes a block-shared variable, `extern __ubuf__ T x[];` the dynamic
  UB; the qualifiers themselves are removed.
Every replacement keeps the line count of what it replaces, so compiler messages and debug lines stay on
the source's lines.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

SYNC = re.compile(r"\b(aclsim_syncthreads|aclsim_warp|this_thread_block|tiled_partition|coalesced_threads)\b")
KINDS = {"__aicore__": 1, "__vector__": 2, "__cube__": 3, "__mix__": 4}  # aclsim_kind of Ascend C kernels
SPECIFIC_FIRST = ("__mix__", "__cube__", "__vector__", "__aicore__")
MARKERS = re.compile(r"\b(__global__|__aicore__|__vector__|__cube__|__simt_vf__|__simd_vf__)\b")
WITH_ARGS = re.compile(r"\b(__mix__|__launch_bounds__)\s*\(")
NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "alignas",
                 "__attribute__", "noexcept", "static_assert", "operator", "throw", "new", "delete"}
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*?>\s*)?\(")
IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Kernel:
    """A function declared with a kernel qualifier."""

    name: str
    kind: int  # aclsim_kind: 0 SIMT, else an Ascend C kind
    bounds: str  # the __launch_bounds__ expression, or "0"
    template: bool = False  # a function template (launched without template arguments, it deduces them)


class RewriteError(Exception):
    """A kernel construct aclsim cannot rewrite (the message names it and the line)."""


def _blank(text: str) -> str:
    """`text` with the insides of string and character literals and preprocessor lines as spaces (same
    length): what the scanners below read, so no brace or `<<<` inside a literal misleads them."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
            continue
        line_start = c == "\n" or (line_start and c in " \t")
        if c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):  # 1'000 digit separator
                i += 1
                continue
            raw = c == '"' and i > 0 and text[i - 1] == "R"
            if raw:
                close = ")" + text[i + 1 : text.index("(", i)] + '"'
                j = text.index(close, i) + len(close) - 1
            else:
                j = i + 1
                while j < n and text[j] != c:
                    j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
            continue
        i += 1
    return "".join(out)


def _match(code: str, i: int, open_: str, close: str) -> int:
    """Index of the bracket closing the one at `i` (forward)."""
    depth = 0
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    for j in range(i, len(code)):
        c = code[j]
        if c == open_ and not stack:
            depth += 1
        elif c == close and not stack:
            depth -= 1
            if depth == 0:
                return j
        elif c in pairs and c != open_:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
    raise RewriteError(f"unbalanced {open_!r}")


def _match_back(code: str, j: int, open_: str, close: str) -> int:
    """Index of the bracket opening the one at `j` (backward)."""
    depth = 0
    for i in range(j, -1, -1):
        c = code[i]
        if c == close:
            depth += 1
        elif c == open_:
            depth -= 1
            if depth == 0:
                return i
    raise RewriteError(f"unbalanced {close!r}")


def _split_top(s: str) -> list[str]:
    """`s` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    parts.append(s[start:])
    return [p for p in parts if p.strip()] if any(p.strip() for p in parts) else []


class Unit:
    """One preprocessed translation unit and the edits that make it plain C++."""

    def __init__(self, text: str, source: str = "") -> None:
        self.text = text
        self.code = _blank(text)
        self.source = source
        self.edits: list[tuple[int, int, str]] = []
        self.kernels: dict[str, Kernel] = {}
        self.vf: dict[str, str] = {}  # name -> "simt" / "simd"
        self.bodies: dict[str, list[tuple[int, int]]] = {}
        self._sync: dict[str, bool] = {}
        self._depth_at: list[int] = []
        self.sites = 0
        self._depth: list[int] = []

    # ------------------------------------------------------------------ what the unit declares
    def scan(self) -> None:
        code = self.code
        for m in re.finditer(r"\b(__global__|__simt_vf__|__simd_vf__)\b", code):
            name, quals, bounds = self._declared(m.start())
            if name is None:
                continue
            if m.group(1) == "__global__":
                kind = next((KINDS[q] for q in SPECIFIC_FIRST if q in quals), 0)  # __mix__ __aicore__: mix
                self.kernels[name] = Kernel(name, kind, bounds, "template" in quals)
            else:
                self.vf[name] = "simt" if m.group(1) == "__simt_vf__" else "simd"
        self._index_bodies()

    def _declared(self, at: int) -> tuple[str | None, set[str], str]:
        """(function name, qualifier words, launch bounds) of the declaration holding the qualifier at `at`."""
        code = self.code
        start = max(code.rfind(";", 0, at), code.rfind("}", 0, at), code.rfind("{", 0, at)) + 1
        i, bounds = start, "0"
        words: set[str] = set()
        while i < len(code):
            m = IDENT.search(code, i)
            if m is None:
                return None, words, bounds
            j = m.end()
            while j < len(code) and code[j] in " \t\n":
                j += 1
            word = m.group()
            if j < len(code) and code[j] == "(":
                if word in ("__launch_bounds__", "__mix__", "__attribute__", "alignas", "__declspec"):
                    close = _match(code, j, "(", ")")
                    if word == "__launch_bounds__":
                        bounds = code[j + 1 : close].split(",")[0].strip() or "0"
                    words.add(word)
                    i = close + 1
                    continue
                return word, words, bounds
            words.add(word)
            i = j if j > m.end() else m.end()
            if i < len(code) and code[i] == "<":  # template<...> or a templated return type
                i = _match_angle(code, i) + 1
        return None, words, bounds

    def _index_bodies(self) -> None:
        """Every function body of the unit, by the function's name (member functions included)."""
        code = self.code
        for m in re.finditer(r"\{", code):
            p = m.start()
            j = p - 1
            while j >= 0 and code[j] in " \t\n":
                j -= 1
            # trailing qualifiers: ) const noexcept override final -> type
            while j >= 0 and (code[j].isalnum() or code[j] in "_&"):
                k = j
                while k >= 0 and (code[k].isalnum() or code[k] in "_&"):
                    k -= 1
                if code[k + 1 : j + 1] not in ("const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&"):
                    break
                j = k
                while j >= 0 and code[j] in " \t\n":
                    j -= 1
            if j < 0 or code[j] != ")":
                continue
            try:
                o = _match_back(code, j, "(", ")")
            except RewriteError:
                continue
            k = o - 1
            while k >= 0 and code[k] in " \t\n":
                k -= 1
            if k < 0 or code[k] == "]":  # a lambda: part of its enclosing body
                continue
            if code[k] == ">":  # f<T>(...) { : an explicit specialisation's name
                try:
                    k = _match_angle_back(code, k) - 1
                except RewriteError:
                    continue
                while k >= 0 and code[k] in " \t\n":
                    k -= 1
            e = k
            while k >= 0 and (code[k].isalnum() or code[k] == "_"):
                k -= 1
            name = code[k + 1 : e + 1]
            if not name or name in NOT_FUNCTIONS or name[0].isdigit():
                continue
            try:
                end = _match(code, p, "{", "}")
            except RewriteError:
                continue
            self.bodies.setdefault(name, []).append((p, end))

    def synchronises(self, name: str) -> bool:
        """Whether the function `name` can reach a barrier or a warp function (unknown bodies: it may)."""
        if name not in self.bodies:
            return True
        seen: set[str] = set()
        todo = [name]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if self._sync.get(n):
                return self._remember(name, True)
            for a, b in self.bodies.get(n, ()):
                body = self.code[a:b]
                if SYNC.search(body):
                    self._sync[n] = True
                    return self._remember(name, True)
                todo += [c for c in CALL.findall(body) if c in self.bodies and c not in seen]
        return self._remember(name, False)

    def _remember(self, name: str, v: bool) -> bool:
        self._sync[name] = v
        return v

    # ------------------------------------------------------------------ rewriting
    def rewrite(self) -> str:
        self.scan()
        self._launches()
        self._vf_calls()
        self._aclrt_launches()
        self._ubuf()
        self._markers()
        return self._apply()

    def _edit(self, a: int, b: int, new: str) -> None:
        old = self.text[a:b]
        missing = old.count("\n") - new.count("\n")
        self.edits.append((a, b, new + "\n" * missing if missing > 0 else new.replace("\n", " ")
                           if missing < 0 else new))

    def _line(self, at: int) -> int:
        return self.code.count("\n", 0, at) + 1

    def _launches(self) -> None:
        code = self.code
        for m in re.finditer(r"<<<", code):
            at = m.start()
            callee_start, name = self._callee(at)
            close = code.find(">>>", at + 3)
            if close < 0:
                raise RewriteError(f"a kernel launch without '>>>' (line {self._line(at)})")
            config = [c.strip() for c in _split_top(self.text[at + 3 : close])]
            j = close + 3
            while j < len(code) and code[j] in " \t\n":
                j += 1
            if j >= len(code) or code[j] != "(":
                raise RewriteError(f"a kernel launch of {name} without its argument list (line {self._line(at)})")
            end = _match(code, j, "(", ")")
            args = self.text[j + 1 : end]
            callee = self.text[callee_start:at].strip()
            base = callee.split("<")[0].split("::")[-1].strip()
            k = self.kernels.get(base)
            sep = ", " if args.strip() else ""
            head = f"{_c_string(callee)}, {_entry(callee, k)}, {self._caller(callee)}"
            if k is not None and k.kind:
                if not 2 <= len(config) <= 3:
                    raise RewriteError(f"{callee}<<<...>>> (line {self._line(at)}): an Ascend C kernel takes "
                                       "<<<numBlocks, dynUBufSize or l2ctrl[, stream]>>>")
                blocks, dyn = config[0], config[1]
                stream = config[2] if len(config) == 3 else "nullptr"
                new = f"::aclsim::launch_cores({head}, {k.kind}, {blocks}, {dyn}, (void *)({stream}){sep}{args})"
            else:
                if not 2 <= len(config) <= 4:
                    raise RewriteError(f"{callee}<<<...>>> (line {self._line(at)}): a SIMT kernel takes "
                                       "<<<grid, block[, dynUBufSize[, stream]]>>>")
                grid, block = config[0], config[1]
                dyn = config[2] if len(config) > 2 else "0"
                stream = config[3] if len(config) > 3 else "nullptr"
                fibers = int(self.synchronises(base))
                bounds = k.bounds if k is not None else "0"
                new = (f"::aclsim::launch_simt({head}, {fibers}, ({bounds}), ::dim3({grid}), ::dim3({block}), "
                       f"(uint64_t)({dyn}), (void *)({stream}){sep}{args})")
            self._edit(callee_start, end + 1, new)

    def _callee(self, at: int) -> tuple[int, str]:
        """(start, text) of the kernel expression before `<<<` at `at`: a (qualified) name, with template arguments."""
        code = self.code
        j = at - 1
        while j >= 0 and code[j] in " \t\n":
            j -= 1
        if j >= 0 and code[j] == ">":
            j = _match_angle_back(code, j) - 1
            while j >= 0 and code[j] in " \t\n":
                j -= 1
        end = j + 1
        while j >= 0 and (code[j].isalnum() or code[j] in "_:"):
            j -= 1
        if j + 1 == end:
            raise RewriteError(f"a kernel launch '<<<' without a kernel name before it (line {self._line(at)})")
        return j + 1, self.text[j + 1 : end]

    def _caller(self, callee: str) -> str:
        """A lambda calling the kernel with a launch's arguments (aclsim/kernel.h's ACLSIM_CALLER, expanded),
        numbered by its launch site: the number keeps each launch's key unique in the unit's checked build."""
        self.sites += 1
        return (f"::aclsim::tag<{100000 + self.sites}>([](auto &&...aclsim_a) "
                f"{{ {callee}(static_cast<decltype(aclsim_a) &&>(aclsim_a)...); }})")

    def _vf_calls(self) -> None:
        for m in re.finditer(r"\basc_vf_call\s*<", self.code):
            lt = self.code.index("<", m.start())
            gt = _match_angle(self.code, lt)
            fn = self.text[lt + 1 : gt].strip()
            base = fn.split("<")[0].split("::")[-1].strip()
            j = gt + 1
            while j < len(self.code) and self.code[j] in " \t\n":
                j += 1
            if j >= len(self.code) or self.code[j] != "(":
                continue
            fibers = int(self.synchronises(base)) if self.vf.get(base) != "simd" else 0
            k = j + 1
            while k < len(self.code) and self.code[k] in " \t\n":
                k += 1
            more = "" if k < len(self.code) and self.code[k] == ")" else ", "  # asc_vf_call<f>(): a SIMD VF, no dim3
            self._edit(m.start(), j + 1, f"::aclsim::vf_call({_c_string(fn)}, {_entry(fn, None)}, "
                                         f"{self._caller(fn)}, {fibers}{more}")

    def _aclrt_launches(self) -> None:
        """ACLRT_LAUNCH_KERNEL(k)'s expansion gets the kernel's kind (the macro alone assumes vector cores)."""
        for m in re.finditer(r"::aclsim::aclrt_launch\(", self.code):
            close = _match(self.code, m.end() - 1, "(", ")")
            parts = _split_top(self.text[m.end() : close])
            k = self.kernels.get(parts[0].strip().strip('"').split("::")[-1]) if parts else None
            if k is not None and k.kind and len(parts) == 3:
                self._edit(close, close, f", {k.kind}")

    def _brace_depth(self, at: int) -> int:
        if not self._depth_at:
            d = 0
            for i, c in enumerate(self.code):
                if c in "{}":
                    d += 1 if c == "{" else -1
                    self._depth_at.append(i)
                    self._depth.append(d)
        k = bisect.bisect_left(self._depth_at, at) - 1
        return self._depth[k] if k >= 0 else 0

    def _ubuf(self) -> None:
        code = self.code
        for m in re.finditer(r"\b__ubuf__\b", code):
            a = m.start()
            k = a - 1
            while k >= 0 and code[k] in " \t\n":
                k -= 1
            extern = False
            if code[max(k - 5, 0) : k + 1] == "extern":
                extern, stmt = True, k - 5
                k = stmt - 1
                while k >= 0 and code[k] in " \t\n":
                    k -= 1
            else:
                stmt = a
            if k >= 0 and code[k] not in ";{}":  # a parameter, a cast, a pointer's type: only the word goes
                self._edit(a, m.end(), " " * 8)
                continue
            semi = code.find(";", m.end())
            decl = self.text[m.end() : semi].strip()
            d = re.fullmatch(r"(?P<type>[\w:\s<>,]+?)\s*\b(?P<name>[A-Za-z_]\w*)\s*(?P<dims>(?:\[[^\]]*\]\s*)*)", decl)
            if extern and d is not None:
                const = "static const" if self._brace_depth(a) == 0 else "const"
                self._edit(stmt, semi + 1, f"{const} ::aclsim::dyn_ubuf<{d['type'].strip()}> {d['name']}{{}};")
            elif d is not None and d["type"].strip() and self._brace_depth(a) > 0 and "," not in d["type"]:
                t = f"{d['type'].strip()} {''.join(d['dims'].split())}".strip()
                self._edit(stmt, semi + 1, f"auto &{d['name']} = *::aclsim::shared<{t}>("
                           "[]() -> const void * { static const char aclsim_key = 0; return &aclsim_key; }());")
            else:
                self._edit(a, m.end(), " " * 8)

    def _markers(self) -> None:
        taken = sorted((a, b) for a, b, _ in self.edits)
        starts = [a for a, _ in taken]

        def free(a: int, b: int) -> bool:
            i = bisect.bisect_right(starts, a) - 1
            return not (i >= 0 and taken[i][1] > a) and not (i + 1 < len(taken) and taken[i + 1][0] < b)

        for m in MARKERS.finditer(self.code):
            if free(m.start(), m.end()):
                self._edit(m.start(), m.end(), "")
        for m in WITH_ARGS.finditer(self.code):
            close = _match(self.code, self.code.index("(", m.start()), "(", ")")
            if free(m.start(), close + 1):
                self._edit(m.start(), close + 1, "")

    def _apply(self) -> str:
        out, pos = [], 0
        for a, b, new in sorted(self.edits):
            if a < pos:
                raise RewriteError(f"overlapping kernel rewrites near line {self._line(a)}")
            out += [self.text[pos:a], new]
            pos = b
        out.append(self.text[pos:])
        return "".join(out)


def _match_angle(code: str, i: int) -> int:
    """The `>` closing the template argument list opened at `i` (parentheses inside are skipped)."""
    depth = 0
    j = i
    while j < len(code):
        c = code[j]
        if c == "(":
            j = _match(code, j, "(", ")")
        elif c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return j
        elif c in ";{}":
            break
        j += 1
    raise RewriteError("unbalanced '<'")


def _match_angle_back(code: str, j: int) -> int:
    depth = 0
    i = j
    while i >= 0:
        c = code[i]
        if c == ")":
            i = _match_back(code, i, "(", ")")
        elif c == ">":
            depth += 1
        elif c == "<":
            depth -= 1
            if depth == 0:
                return i
        elif c in ";{}":
            break
        i -= 1
    raise RewriteError("unbalanced '>'")


def _entry(callee: str, k: Kernel | None) -> str:
    """The kernel function's address (its debug information names the kernel's file), when it has one: a
    function template launched without template arguments has none until the call deduces them."""
    if k is not None and k.template and "<" not in callee:
        return "nullptr"
    return f"reinterpret_cast<const void *>(&{callee})"


def _c_string(s: str) -> str:
    return '"' + " ".join(s.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


def needs_rewrite(source_text: str) -> bool:
    """Whether a C++ source uses kernel syntax (cheap test on the file as written)."""
    return any(w in source_text for w in ("<<<", "__global__", "__ubuf__", "asc_vf_call", "__simt_vf__"))


def rewrite(text: str, source: str = "") -> tuple[str, dict[str, Kernel]]:
    """The preprocessed unit `text` as plain C++, and the kernels it declares."""
    u = Unit(text, source)
    return u.rewrite(), u.kernels
