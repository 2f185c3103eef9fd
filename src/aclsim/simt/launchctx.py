"""The state of one running launch that compiled kernels see as `C`: geometry, the current chunk of
blocks, thread-index arrays (built lazily and cached), shared memory, barriers and fault reports."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.gm import GlobalMemory
from ..runtime.work import KernelFault
from .arrays import LocalArr
from .memory import SharedArr
from .ops import Idx, mask_array, truth, val

_M32 = (1 << 32) - 1
# Component order of Idx coefficients.
TX, TY, TZ, BX, BY, BZ = range(6)


_UNIT = tuple(tuple(1 if i == k else 0 for i in range(6)) for k in range(6))


def _injective(shape: tuple[int, ...], strides: list[int]) -> bool:
    """Whether a strided box names a different element at every position (sufficient test: each
    stride, by size, exceeds the span of the smaller ones)."""
    span = 0
    for st, n in sorted((abs(st), n) for st, n in zip(strides, shape, strict=True) if n > 1):
        if st <= span:
            return False
        span += st * (n - 1)
    return True


class UserRaise(KernelFault):
    """A kernel's own `raise`: the launch fails (507015); the exception the program raised is `exc`
    (its class) with `message` (the numba face raises it on the host, as numba does)."""

    def __init__(self, exc: type, message: str, where: str) -> None:
        super().__init__(f"{exc.__name__}: {message} (raised at {where})")
        self.exc, self.message = exc, message


class LaunchContext:
    """Geometry and per-chunk state of a launch; reused by later launches of the same configuration."""

    def __init__(self, name: str, file: str, grid: tuple, block: tuple, dyn_shared_bytes: int = 0,
                 signed: bool = False) -> None:
        self.name, self.file, self.kernel_file = name, file, file
        # numba's rules (nops): thread-index values read back as signed 64-bit integers (not C's uint32)
        self.signed = signed
        self.dyn_shared_bytes = dyn_shared_bytes
        self.grid, self.block = grid, block
        self.gx, self.gy, self.gz = grid
        self.bdx, self.bdy, self.bdz = block
        self.tpb = self.bdx * self.bdy * self.bdz
        self.nblocks = self.gx * self.gy * self.gz
        self.oned = self.gy == self.gz == self.bdy == self.bdz == 1
        u32 = np.uint32
        self.gridDim_x, self.gridDim_y, self.gridDim_z = u32(self.gx), u32(self.gy), u32(self.gz)
        self.blockDim_x, self.blockDim_y, self.blockDim_z = u32(self.bdx), u32(self.bdy), u32(self.bdz)
        self.threadIdx_x, self.threadIdx_y, self.threadIdx_z = (Idx(self, _UNIT[k]) for k in (TX, TY, TZ))
        self.blockIdx_x, self.blockIdx_y, self.blockIdx_z = (Idx(self, _UNIT[k]) for k in (BX, BY, BZ))
        # A component that is 0 for every thread of the launch contributes nothing.
        self._live = tuple(n > 1 for n in (self.bdx, self.bdy, self.bdz, self.gx, self.gy, self.gz))
        self._all_live = all(self._live)
        self._thread_comps: dict[tuple[int, int], np.ndarray] = {}
        self.N = 0

    def begin(self, gm: GlobalMemory, task: Any) -> None:
        """Start a launch (launches run one at a time, under the scheduler's lock)."""
        self.gm, self.task, self.observe = gm, task, gm.observed()
        self.file = self.kernel_file  # device functions switch it while they run
        self.bytes_read = self.bytes_written = 0
        self.line = 0

    # -- chunks ---------------------------------------------------------------------------
    def set_chunk(self, b0: int, nb: int) -> None:
        """Run blocks [b0, b0 + nb) next."""
        self.b0, self.nb = b0, nb
        self.N = nb * self.tpb
        self.lane0 = b0 * self.tpb
        self.ret: Any = False  # lanes that returned from the kernel
        self._comps: dict[int, np.ndarray] = {}
        self._terms: dict[tuple[int, ...], Any] = {}
        self._shared: dict[str, SharedArr] = {}
        self._local: dict[str, LocalArr] = {}
        self._lane_block: np.ndarray | None = None
        self._lattice: Any = None  # (shape, origin) of the chunk's box of lanes, computed on first use
        self._affine: dict[tuple, Any] = {}

    def comp(self, k: int) -> np.ndarray:
        """uint32 array over the chunk's lanes of one index component."""
        a = self._comps.get(k)
        if a is None:
            if k <= TZ:
                a = self._thread_comps.get((k, self.nb))
                if a is None:
                    t = np.arange(self.tpb, dtype=np.uint32)
                    per = (t % self.bdx, (t // self.bdx) % self.bdy, t // (self.bdx * self.bdy))[k]
                    a = self._thread_comps[(k, self.nb)] = np.tile(per.astype(np.uint32), self.nb)
            else:
                b = np.arange(self.b0, self.b0 + self.nb, dtype=np.int64)
                per = (b % self.gx, (b // self.gx) % self.gy, b // (self.gx * self.gy))[k - BX]
                a = np.repeat(per.astype(np.uint32), self.tpb)
            self._comps[k] = a
        return a

    def materialize(self, idx: Idx) -> Any:
        """The values of a lazy index in this chunk (a uint32 scalar if it is uniform)."""
        key = idx.k if self._all_live else tuple(c if live else 0 for c, live in zip(idx.k, self._live, strict=True))
        base = self._terms.get(key)
        if base is None:
            terms = [(k, coef) for k, coef in enumerate(key) if coef]
            if not terms:
                base = np.uint32(0)
            elif len(terms) == 1 and terms[0][1] == 1:
                base = self.comp(terms[0][0])
            else:
                base = np.zeros(self.N, np.uint32)
                for k, coef in terms:
                    base += np.uint32(coef) * self.comp(k) if coef != 1 else self.comp(k)
            self._terms[key] = base  # loop-invariant parts (row * n) are built once per chunk
        v = base + np.uint32(idx.c) if idx.c else base
        if not self.signed:
            return v
        if type(v) is np.ndarray:
            return v.view(np.int32).astype(np.int64)
        return np.int64(int(v) - (1 << 32) if int(v) >= 1 << 31 else int(v))

    def ramp(self, idx: Idx) -> tuple[int, int] | None:
        """(stride, first value) when idx is stride * global_thread_id + c over this chunk without wrapping."""
        hit = idx.ramp
        if hit is not None and hit[0] == self.lane0:
            return hit[1]  # the same index used again in this chunk (bounds check, loads, stores)
        r = None
        if self.oned:  # y/z indices are 0 for every thread: only x terms matter
            ktx, kbx = idx.k[TX], idx.k[BX]
            if 0 < ktx < 1 << 31 and (self.gx == 1 or kbx == (ktx * self.bdx) & _M32) and self.N > 1:
                lo = (ktx * self.lane0 + idx.c) & _M32
                if lo + ktx * (self.N - 1) <= _M32:
                    r = (ktx, lo)
        idx.ramp = (self.lane0, r)
        return r

    def block_ramp(self, idx: Idx) -> tuple[int, int] | None:
        """(stride, first value) when idx is stride * blockIdx.x + c (the same in every thread of a block)
        over this chunk of a 1-D launch without wrapping: block j of the chunk has first + stride * j."""
        kbx = idx.k[BX]
        if not self.oned or (idx.k[TX] and self.bdx > 1) or not 0 < kbx < 1 << 31 or self.nb < 2:
            return None
        lo = (kbx * self.b0 + idx.c) & _M32
        return (kbx, lo) if lo + kbx * (self.nb - 1) <= _M32 else None

    def thread_offset(self, idx: Idx) -> int | None:
        """c (signed) when idx == threadIdx.x + c in a 1-D block (shared-memory fast path).

        The uint32 index threadIdx.x + c wraps to a huge value exactly where the signed sum is negative,
        so both are out of range for the same threads."""
        if self.bdy != 1 or self.bdz != 1 or idx.k[TX] != 1:
            return None
        if any(idx.k[i] and self._live[i] for i in (TY, TZ, BX, BY, BZ)):
            return None
        return idx.c if idx.c < 1 << 31 else idx.c - (1 << 32)

    def _chunk_lattice(self, b0: int, nb: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(shape, origin) of the lanes of blocks [b0, b0 + nb) as a box of (bz, by, bx, tz, ty, tx)
        coordinates in lane order, when those blocks form a box of the grid (part of a row, whole rows,
        whole slabs)."""
        gx, gxy = self.gx, self.gx * self.gy
        bx0, by0, bz0 = b0 % gx, (b0 // gx) % self.gy, b0 // gxy
        if bx0 + nb <= gx:
            box = (1, 1, nb)
        elif bx0 == 0 and nb % gx == 0 and by0 + nb // gx <= self.gy:
            box = (1, nb // gx, gx)
        elif b0 % gxy == 0 and nb % gxy == 0:
            box = (nb // gxy, self.gy, gx)
        else:
            return None
        return (*box, self.bdz, self.bdy, self.bdx), (bz0, by0, bx0, 0, 0, 0)

    def affine(self, idx: Idx, blocks: tuple[int, int] | None = None) -> tuple[int, list[int], tuple[int, ...],
                                                                              int, int] | None:
        """(first, coefficients, shape, lo, hi) of idx over the chunk's box of lanes (see _chunk_lattice),
        or over its blocks [j, k) only: the value at box position p is first + sum(coefficients * p), lo
        and hi its extremes. idx is c + sum(coef * component) in uint32; with c and the coefficients
        read as signed, this sum is the index wherever it lies in [0, 2^31). None when not a box."""
        if blocks is not None:
            box = self._chunk_lattice(self.b0 + blocks[0], blocks[1] - blocks[0])
        else:
            key = (idx.k, idx.c)
            hit = self._affine.get(key)
            if hit is not None:
                return hit
            box = self._lattice
            if box is None:
                box = self._lattice = self._chunk_lattice(self.b0, self.nb) or ()
        if not box:
            return None
        shape, origin = box
        signed = [k - (1 << 32) if k >= 1 << 31 else k for k in idx.k]
        coefs = [signed[i] for i in (BZ, BY, BX, TZ, TY, TX)]  # lane order
        first = (idx.c - (1 << 32) if idx.c >= 1 << 31 else idx.c) + sum(
            k * o for k, o in zip(coefs, origin, strict=True))
        lo = first + sum(min(0, k * (n - 1)) for k, n in zip(coefs, shape, strict=True))
        hi = first + sum(max(0, k * (n - 1)) for k, n in zip(coefs, shape, strict=True))
        r = (first, coefs, shape, lo, hi)
        if blocks is None:
            self._affine[key] = r  # the same index again in this chunk
        return r

    def index_range(self, v: Any) -> tuple[int, int] | None:
        """(smallest, largest) value of an index over the chunk (a uniform integer or an affine Idx)."""
        if type(v) is Idx:
            a = self.affine(v)
            return None if a is None or a[4] >= 1 << 31 else (a[3], a[4])
        if type(v) is int or (isinstance(v, np.integer) and not isinstance(v, np.bool_)):
            return int(v), int(v)
        return None

    def lattice_view(self, idx: Idx, view: np.ndarray, blocks: tuple[int, int] | None = None) -> np.ndarray | None:
        """view[idx] in every lane (of the chunk, or of its blocks [j, k)) as a strided view of `view`
        (no index array), when idx is inside it in every such lane; None otherwise (and for a uniform
        index: a scalar does)."""
        a = self.affine(idx, blocks)
        if a is None:
            return None
        first, coefs, shape, lo, hi = a
        if lo < 0 or hi >= view.shape[0] or lo == hi:
            return None  # out of bounds somewhere (the checked path reports it), or uniform
        isz = view.itemsize
        return np.lib.stride_tricks.as_strided(view[first:], shape, [k * isz for k in coefs], writeable=False)

    def shared_view(self, idx: Idx, data: np.ndarray, write: bool) -> np.ndarray | None:
        """The elements of a shared array (data: one row per block of the chunk) that idx names in every
        lane, as a strided view in lane order: idx must depend on thread indices only, be inside the
        row for every thread, and, to be written, name a different element in each thread."""
        a = self.affine(idx)
        if a is None or any(a[1][:3]):
            return None
        first, coefs, shape, lo, hi = a
        if lo < 0 or hi >= data.shape[1]:
            return None
        row, isz = data.strides  # bytes (dynamic shared arrays are views of wider rows)
        strides = [shape[1] * shape[2] * row, shape[2] * row, row, *(k * isz for k in coefs[3:])]
        if write and not _injective(shape, strides):
            return None
        return np.lib.stride_tricks.as_strided(data[0, first:], shape, strides, writeable=write)

    def lane_block(self) -> np.ndarray:
        """Block index within the chunk of every lane."""
        if self._lane_block is None:
            self._lane_block = np.repeat(np.arange(self.nb, dtype=np.int64), self.tpb)
        return self._lane_block

    # -- language support -----------------------------------------------------------------
    def shared(self, key: str, name: str, shape: tuple[int, ...], dtype: np.dtype) -> SharedArr:
        """The chunk's copy of a shared array (one per block; the same object on every execution)."""
        s = self._shared.get(key)
        if s is None:
            s = self._shared[key] = SharedArr(name, shape, dtype, self.nb)
        return s

    def dyn_shared(self, name: str, dtype: np.dtype) -> SharedArr:
        """A `shared.array(0, dtype)`: a typed view of the block's dynamic shared memory (every declaration
        aliases the same bytes, as `extern __shared__` arrays do)."""
        raw = self._shared.get("<dynamic>")
        if raw is None:
            raw = self._shared["<dynamic>"] = SharedArr("<dynamic>", (self.dyn_shared_bytes,), np.dtype(np.uint8), self.nb)
        n = self.dyn_shared_bytes // dtype.itemsize
        a = SharedArr(name, (0,), dtype, self.nb)
        a.shape, a.size, a.data = (n,), n, raw.data[:, : n * dtype.itemsize].view(dtype)
        return a

    def local(self, key: str, name: str, shape: tuple[int, ...], dtype: np.dtype) -> LocalArr:
        """The chunk's copy of a local array (a row per lane; the same object on every execution)."""
        a = self._local.get(key)
        if a is None:
            a = self._local[key] = LocalArr(name, shape, dtype, self.N)
        return a

    def mask_value(self, m: Any) -> Any:
        """A mask as a condition value (bool or bool array)."""
        if m is True or m is False:
            return m
        return mask_array(self.N, m).copy() if type(m) is slice else m

    def sync(self, m: Any, line: int) -> None:
        """simt.syncthreads(): every live thread of a block must arrive, or none of them."""
        if m is True or m is False:
            return
        arrived = mask_array(self.N, m).reshape(self.nb, self.tpb)
        live = ~mask_array(self.N, self.ret).reshape(self.nb, self.tpb)
        n_arrived = arrived.sum(axis=1)
        n_live = live.sum(axis=1)
        bad = (n_arrived != 0) & (n_arrived != n_live)
        if bad.any():
            b = int(np.argmax(bad))
            missing = int(np.argmax(live[b] & ~arrived[b]))
            lane = self.lane0 + b * self.tpb + missing
            raise KernelFault(
                f"kernel '{self.name}': barrier divergence at simt.syncthreads() ({self.where(line)}): only "
                f"{int(n_arrived[b])} of the {int(n_live[b])} live threads of block {self._block_coords(lane)} "
                f"reached it (thread {self._thread_coords(lane)} did not); every thread of a block must reach "
                "the same syncthreads"
            )

    def grid_sync(self, m: Any, line: int) -> None:
        """this_grid().sync(): every live thread of the grid (the launch runs as one chunk) must arrive."""
        if m is True or m is False:
            return
        arrived = mask_array(self.N, m)
        live = ~mask_array(self.N, self.ret)
        missing = live & ~arrived
        if missing.any():
            lane = self.lane0 + int(np.argmax(missing))
            raise KernelFault(
                f"kernel '{self.name}': grid sync divergence at this_grid().sync() ({self.where(line)}): only "
                f"{int(arrived.sum())} of the {int(live.sum())} live threads of the grid reached it "
                f"({self.describe(lane)} did not)")

    def sync_reduce(self, m: Any, op: str, pred: Any, line: int) -> Any:
        """syncthreads_count/and/or: a barrier, then the predicate reduced over each block's arriving threads
        (int32 per lane: the count, or 1/0 for and/or)."""
        self.sync(m, line)
        p = truth(pred)
        arrived = mask_array(self.N, m).reshape(self.nb, self.tpb)
        true = np.logical_and(np.broadcast_to(p, (self.N,)).reshape(self.nb, self.tpb), arrived).sum(axis=1)
        if op == "count":
            per_block = true
        elif op == "and":
            per_block = true == arrived.sum(axis=1)
        else:
            per_block = true > 0
        return np.repeat(per_block.astype(np.int32), self.tpb)

    def print(self, m: Any, args: list[Any]) -> None:
        """print() by every active thread of the chunk, in thread order."""
        vals = [val(a) for a in args]
        lanes = range(self.N) if m is True else np.flatnonzero(mask_array(self.N, m))
        for lane in lanes:
            print(*(v[lane] if type(v) is np.ndarray else v for v in vals))

    # -- reports --------------------------------------------------------------------------
    def _block_coords(self, lane: int) -> tuple[int, int, int]:
        b = lane // self.tpb
        return (b % self.gx, (b // self.gx) % self.gy, b // (self.gx * self.gy))

    def _thread_coords(self, lane: int) -> tuple[int, int, int]:
        t = lane % self.tpb
        return (t % self.bdx, (t // self.bdx) % self.bdy, t // (self.bdx * self.bdy))

    def raise_(self, m: Any, exc: type, args: tuple, line: int) -> None:
        """`raise exc(*args)` in the threads of m: the launch fails with it, naming the first such thread
        as numba does ("tid=[x, y, z] ctaid=[x, y, z]: message")."""
        if m is False:
            return
        lane = self.lane0 + (0 if m is True else int(np.argmax(mask_array(self.N, m))))
        where = f"tid={list(self._thread_coords(lane))} ctaid={list(self._block_coords(lane))}"
        raise UserRaise(exc, f"{where}: {args[0]}" if args else where, self.where(line))

    def describe(self, lane: int) -> str:
        """'block (x, y, z) thread (x, y, z)' of a global lane id."""
        lane = int(lane)
        return f"block {self._block_coords(lane)} thread {self._thread_coords(lane)}"

    def where(self, line: int) -> str:
        return f"{self.file}:{line}"
