"""Handlers of tensors and of the local-memory framework: LocalTensor/GlobalTensor, TPipe, TQue/TQueBind, TBuf and
raw local tensors (LocalMemAllocator, `LocalTensor(pos, addr, size)`). The rules are the engine's
(aclsim.asc.memory): these only name its objects by handle and its tensors by word."""

from __future__ import annotations

from typing import Any

from ...asc.faults import fail
from ...asc.memory.local import LocalTensor, position_pool
from ...asc.memory.tpipe import TBuf, TPipe, TQue, TQueBind, get_tpipe_ptr
from .operands import DTYPES, NativeCore, bind_gm, gm, local, state, word
from .ops import handles
from .system import signed


def obj(core: Any, h: int, kind: Any, what: str) -> Any:
    """The framework object a handle names (a C++ object used before it was set up has none)."""
    st = core.units.get(NativeCore) if core is not None else None
    o = st.objects[h] if st is not None and 0 < h < len(st.objects) else None
    if o.__class__ is not kind and not isinstance(o, kind):
        fail(what, f"the {what} was never set up: call pipe.InitBuffer for it first")
    return o


# ------------------------------------------------------------------------------------------ local tensors
@handles("LocalAt")
def _local_at(core: Any, pos: int, addr: int, count: int, code: int, *words: Any) -> int:
    """`LocalTensor<T>(pos, addr, tileSize)` and LocalMemAllocator's tensors: elements at a byte address."""
    memory = position_pool(core, pos, "LocalTensor")
    return word(core, LocalTensor.at(core, memory, addr, DTYPES[code], count))


@handles("LocalSize")
def _size(core: Any, w: int, *words: Any) -> int:
    return local(core, w).get_size()


@handles("LocalLength")
def _length(core: Any, w: int, *words: Any) -> int:
    return local(core, w).get_length()


@handles("LocalPosition")
def _position(core: Any, w: int, *words: Any) -> int:
    return local(core, w).get_position()


@handles("LocalResize")
def _resize(core: Any, w: int, nbytes: int, *words: Any) -> int:
    """SetSize / SetBufferLen: a new view of the same buffer (the engine's rules on its length)."""
    t = local(core, w)
    u = LocalTensor.__new__(LocalTensor)
    u.dtype, u.buf, u.gen, u.lo, u.end, u.arr = t.dtype, t.buf, t.gen, t.lo, t.end, t.arr
    u.set_buffer_len(nbytes)
    return word(core, u)


@handles("LocalPhyAddr")
def _phy_addr(core: Any, w: int, *words: Any) -> int:
    """GetPhyAddr: the address of the tensor's first element in the core's memory (real memory: SIMT code and
    pointers read and write it)."""
    t = local(core, w)
    t.get_phy_addr()  # the engine remembers the address's element type
    return t.buf.pool.bytes.ctypes.data + t.lo


@handles("LocalGetValue")
def _get_value(core: Any, w: int, index: int, *words: Any) -> Any:
    """GetValue (real entry for floating-point tensors, else an integer)."""
    t = local(core, w)
    v = t.get_value(index)
    return float(v) if t.dtype.is_float else int(v)


@handles("LocalSetValue")
def _set_value(core: Any, w: int, index: int, ivalue: int, _d: int, _e: int, fvalue: Any) -> None:
    """SetValue: an integer in word c (aclsim_asc), a floating-point value as the scalar (aclsim_asc_scalar)."""
    t = local(core, w)
    t.set_value(index, fvalue if t.dtype.is_float else signed(ivalue))


@handles("LocalSetUserTag")
def _set_tag(core: Any, w: int, tag: int, *words: Any) -> None:
    local(core, w).set_user_tag(signed(tag, 32))


@handles("LocalGetUserTag")
def _get_tag(core: Any, w: int, *words: Any) -> int:
    return local(core, w).get_user_tag()


@handles("GlobalBind")
def _bind(core: Any, addr: int, code: int, size: int, *words: Any) -> int:
    """SetGlobalBuffer(buffer[, bufferSize]): the handle of the GM tensor (size 0: not given)."""
    return bind_gm(core, addr, code, size)


@handles("GlobalGetValue")
def _gm_get(core: Any, w: int, index: int, *words: Any) -> Any:
    g = gm(core, w)
    v = g.get_value(index)
    return float(v) if g.dtype.is_float else int(v)


@handles("GlobalSetValue")
def _gm_set(core: Any, w: int, index: int, ivalue: int, _d: int, _e: int, fvalue: Any) -> None:
    g = gm(core, w)
    g.set_value(index, fvalue if g.dtype.is_float else signed(ivalue))


# ------------------------------------------------------------------------------------------ TPipe
@handles("PipeNew")
def _pipe_new(core: Any, *words: Any) -> int:
    return state(core).keep(TPipe(core=core))


def _pipe(core: Any, h: int) -> TPipe:
    return obj(core, h, TPipe, "TPipe")


@handles("PipeInit")
def _pipe_init(core: Any, h: int, *words: Any) -> None:
    _pipe(core, h).init()


@handles("PipeReset")
def _pipe_reset(core: Any, h: int, *words: Any) -> None:
    _pipe(core, h).reset()


@handles("PipeDestroy")
def _pipe_destroy(core: Any, h: int, scope_end: int, *words: Any) -> None:
    """Destroy(), or (scope_end) ~TPipe at the end of its scope: tensors still allocated then are leaks."""
    pipe = _pipe(core, h)
    if scope_end and not pipe.destroyed:
        pipe.check_leaks(core.launch)
    pipe.destroy()


@handles("PipeInitQueue")
def _init_queue(core: Any, h: int, src: int, dst: int, depth: int, num: int, length: int) -> int:
    """InitBuffer(que, num, len) of a TQue<pos, depth> / TQueBind<src, dst, depth>: the queue's handle."""
    queue = TQue(src, depth) if src == dst else TQueBind(src, dst, depth)
    _pipe(core, h).init_buffer(queue, num, length)
    queue.name = None  # (the engine looked for the kernel's variable among this function's)
    return state(core).keep(queue)


@handles("PipeInitBuf")
def _init_buf(core: Any, h: int, pos: int, length: int, *words: Any) -> int:
    """InitBuffer(buf, len) of a TBuf<pos>: the buffer's handle."""
    buf = TBuf(pos)
    _pipe(core, h).init_buffer(buf, length)
    return state(core).keep(buf)


@handles("PipeAllocEventId")
def _alloc_event(core: Any, h: int, event: int, *words: Any) -> int:
    return _pipe(core, h).alloc_event_id(event)


@handles("PipeFetchEventId")
def _fetch_event(core: Any, h: int, event: int, *words: Any) -> int:
    return _pipe(core, h).fetch_event_id(event)


@handles("PipeReleaseEventId")
def _release_event(core: Any, h: int, event: int, event_id: int, *words: Any) -> None:
    _pipe(core, h).release_event_id(event_id, event)


@handles("GetTPipePtr")
def _tpipe_ptr(core: Any, *words: Any) -> int:
    pipe = get_tpipe_ptr(core)
    st = state(core)
    return next((i for i, o in enumerate(st.objects) if o is pipe), 0) or st.keep(pipe)


# ------------------------------------------------------------------------------------------ TQue, TBuf
def _que(core: Any, h: int) -> Any:
    """A queue, or a TBuf used as one (CANN's TBuf is a TQueBind<pos, pos, 0, 0>)."""
    return obj(core, h, (TQueBind, TBuf), "TQue")


@handles("QueAlloc")
def _alloc(core: Any, h: int, code: int, *words: Any) -> int:
    return word(core, _que(core, h).alloc_tensor(DTYPES[code]))


@handles("QueEnQue")
def _enque(core: Any, h: int, w: int, *words: Any) -> int:
    _que(core, h).enque(local(core, w))
    return 1


@handles("QueDeQue")
def _deque(core: Any, h: int, code: int, *words: Any) -> int:
    return word(core, _que(core, h).deque(DTYPES[code]))


@handles("QueFree")
def _free(core: Any, h: int, w: int, *words: Any) -> None:
    _que(core, h).free_tensor(local(core, w))


@handles("QueHasTensor")
def _has(core: Any, h: int, *words: Any) -> int:
    return int(_que(core, h).has_tensor_in_que())


@handles("QueTensorCount")
def _count(core: Any, h: int, *words: Any) -> int:
    return _que(core, h).get_tensor_count_in_que()


@handles("QueVacant")
def _vacant(core: Any, h: int, *words: Any) -> int:
    return int(_que(core, h).vacant_in_que())


@handles("QueHasIdleBuffer")
def _idle(core: Any, h: int, *words: Any) -> int:
    return int(_que(core, h).has_idle_buffer())


@handles("QueFreeAllEvent")
def _free_events(core: Any, h: int, *words: Any) -> None:
    _que(core, h).free_all_event()


def _buf(core: Any, h: int) -> TBuf:
    return obj(core, h, TBuf, "TBuf")


@handles("BufGet")
def _get(core: Any, h: int, code: int, count: int, *words: Any) -> int:
    """TBuf::Get<T>() (count 0) or Get<T>(len)."""
    return word(core, _buf(core, h).get(DTYPES[code], count or None))


@handles("BufGetWithOffset")
def _get_with_offset(core: Any, h: int, code: int, count: int, offset: int, *words: Any) -> int:
    return word(core, _buf(core, h).get_with_offset(count, offset, DTYPES[code]))



