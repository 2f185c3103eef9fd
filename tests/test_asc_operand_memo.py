"""Vector operands remember their checks per (buffer, tensor view, geometry) and whether their bytes were all
written per UB epoch (tensors.Checked): a call that repeats an earlier one's shape must still fault where the
first would have — a freed tensor, a buffer re-allocated (its bytes unwritten again), a tensor resized, bytes
past what an earlier call covered — and must still give the sanitizer its pipe records."""

from __future__ import annotations

import io
import pathlib
import re

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim.check import Session
from aclsim.runtime import reset_runtime

N = 256  # float32 elements per tile: 4 repeats of 64 lanes
E = asc.HardEvent
HERE = pathlib.Path(__file__).read_text().splitlines()


def line_of(marker: str) -> int:
    (n,) = [i for i, text in enumerate(HERE, 1) if text.rstrip().endswith(f"# {marker}")]
    return n


@pytest.fixture(autouse=True)
def fresh():
    reset_runtime()


def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    return rng.uniform(-4, 4, 2 * N).astype(np.float32), np.zeros(2 * N, np.float32)


def fault(kernel: asc.JITFunction, *args: object) -> str:
    x, z = inputs()
    with pytest.raises(asc.AscError) as info:
        kernel[1](x, z, *args)
    return str(info.value)


def _queue(x, z, depth=1, length=N * 4):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, depth)
    pipe.init_buffer(q, 1, length)
    o = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(o, 2 * N * 4)
    return xg, zg, q, o.get(asc.float32)


EVERY_OTHER = [0x5555_5555_5555_5555] * 2  # the even lanes of a float32 repeat


def _n(form: str, n: int) -> tuple:
    """The arguments over the first n float32 elements: count form, mask/repeat with a full mask (the count
    form's path), or every other lane (the strided views' path)."""
    if form == "count":
        return (n,)
    return (64 if form == "repeat" else EVERY_OTHER, n // 64, asc.BinaryRepeatParams())


FORMS = ["count", "repeat", "every other lane"]


@asc.jit
def realloc_reads_unwritten(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    xg, _, q, d = _queue(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, N)
    for _ in range(3):
        asc.add(d, t, t, *_n(form, N))  # the checks are remembered here
    q.free_tensor(t)
    t = q.alloc_tensor(asc.float32)  # the same buffer, its bytes unwritten again
    asc.add(d, t, t, *_n(form, N))  # READ AGAIN


@pytest.mark.parametrize("form", FORMS)
def test_a_reallocated_buffer_is_unwritten_again(form):
    msg = fault(realloc_reads_unwritten, form)
    assert "asc.add: reads " in msg and " but element 0 " in msg and "ErrorRead2" in msg
    assert f":{line_of('READ AGAIN')} in" in msg


@asc.jit
def kept_past_free(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    xg, _, q, d = _queue(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, N)
    asc.add(d, t, t, *_n(form, N))
    q.free_tensor(t)
    u = q.alloc_tensor(asc.float32)
    asc.data_copy(u, xg, N)  # the buffer is written again, under a new generation
    asc.add(d, t, t, *_n(form, N))  # STALE


@pytest.mark.parametrize("form", FORMS)
def test_a_tensor_kept_past_free_tensor_faults_after_a_remembered_call(form):
    msg = fault(kept_past_free, form)
    assert "t is used after free_tensor" in msg and f":{line_of('STALE')} in" in msg


@asc.jit
def longer_than_written(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    xg, _, q, d = _queue(x, z, length=2 * N * 4)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, N)
    asc.add(d, t, t, *_n(form, N))
    asc.add(d, t, t, *_n(form, 2 * N))  # PAST WRITTEN


@pytest.mark.parametrize("form", FORMS)
def test_bytes_past_a_remembered_call_are_still_checked(form):
    msg = fault(longer_than_written, form)
    assert f"element {N} " in msg and "ErrorRead2" in msg and f":{line_of('PAST WRITTEN')} in" in msg


@asc.jit
def shrunk(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    xg, _, q, d = _queue(x, z)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, N)
    asc.add(d, t, t, *_n(form, N))
    t.set_size(N // 2)
    asc.add(d, t, t, *_n(form, N))  # SHRUNK


@pytest.mark.parametrize("form", FORMS)
def test_a_resized_tensor_is_checked_against_its_new_size(form):
    msg = fault(shrunk, form)
    assert "tensor size overflow" in msg and f":{line_of('SHRUNK')} in" in msg


@asc.jit
def raw_alias(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    xg, _, q, d = _queue(x, z)
    raw = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, N)  # the bytes of q's buffer
    asc.data_copy(raw, xg, N)
    asc.add(d, raw, raw, *_n(form, N))
    t = q.alloc_tensor(asc.float32)  # unwrites the bytes raw also covers
    asc.add(d, raw, raw, *_n(form, N))  # ALIAS
    q.free_tensor(t)


@pytest.mark.parametrize("form", FORMS)
def test_an_allocation_unwrites_what_another_buffer_remembered(form):
    msg = fault(raw_alias, form)
    assert "ErrorRead2" in msg and f":{line_of('ALIAS')} in" in msg


@asc.jit
def dst_reallocated(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qi, qo = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qi, 1, N * 4)
    pipe.init_buffer(qo, 1, N * 4)
    a = qi.alloc_tensor(asc.float32)
    asc.data_copy(a, xg, N)
    for i in range(3):  # each tile's destination is the same buffer, unwritten by its allocation
        o = qo.alloc_tensor(asc.float32)
        asc.add(o, a, a, *_n(form, N))
        asc.adds(o, o, float(i), N)  # reads what add wrote
        asc.data_copy(zg[i * N:], o, N)
        qo.free_tensor(o)
    qi.free_tensor(a)


@pytest.mark.parametrize("form", ["count", "repeat"])
def test_a_destination_is_marked_again_after_its_buffer_is_reallocated(form):
    x, z = inputs()[0], np.zeros(3 * N, np.float32)
    dst_reallocated[1](x, z, form)
    np.testing.assert_array_equal(z, np.concatenate([x[:N] + x[:N] + np.float32(i) for i in range(3)]))


@asc.jit
def racy_second_time(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    bufs = [asc.TBuf(asc.TPosition.VECCALC) for _ in range(2)]
    for b in bufs:
        pipe.init_buffer(b, N * 4)
    a, d = (b.get(asc.float32) for b in bufs)
    asc.duplicate(d, 0.0, N)  # (every other lane adds only the even lanes)
    for i in range(2):
        asc.data_copy(a, xg[i * N:], N)  # COPY IN
        if i == 0:  # the first tile waits for MTE2; the second forgets to
            asc.set_flag(E.MTE2_V, 0)
            asc.wait_flag(E.MTE2_V, 0)
        asc.add(d, a, a, *_n(form, N))  # USE
        asc.set_flag(E.V_MTE3, 0)
        asc.wait_flag(E.V_MTE3, 0)
        asc.data_copy(zg[i * N:], d, N)
        asc.set_flag(E.MTE3_MTE2, 0)
        asc.wait_flag(E.MTE3_MTE2, 0)
        asc.set_flag(E.MTE3_V, 0)
        asc.wait_flag(E.MTE3_V, 0)


@pytest.mark.parametrize("form", FORMS)
def test_the_sanitizer_still_sees_a_remembered_call(form):
    x, z = inputs()
    s = Session(["racecheck"], out=io.StringIO())
    racy_second_time[1](x, z, form)
    s.stop()
    expect = x + x
    if form == "every other lane":
        expect[1::2] = 0
    np.testing.assert_array_equal(z, expect)
    (f,) = s.findings
    assert f.kind == "pipe-raw-hazard" and f.order[1:] == (line_of("COPY IN"), line_of("USE"))


STRIDED = {  # name: (mask, params writing o from a, params reading o into d at the same places)
    "every other lane": (EVERY_OTHER, (1, 1, 1, 8, 8, 8), (1, 1, 1, 8, 8, 8)),
    "dst block stride 2": (64, (2, 1, 1, 16, 8, 8), (2, 2, 2, 16, 16, 16)),
}


@asc.jit
def strided_dst_reallocated(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str):
    mask, write, read = STRIDED[form]
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qi, qo = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qi, 1, N * 4)
    pipe.init_buffer(qo, 1, 2 * N * 4)
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 2 * N * 4)
    d = buf.get(asc.float32)
    a = qi.alloc_tensor(asc.float32)
    asc.data_copy(a, xg, N)
    for i in range(3):  # each tile's o is the same buffer, unwritten again by its allocation
        asc.duplicate(d, 0.0, 2 * N)
        o = qo.alloc_tensor(asc.float32)
        asc.add(o, a, a, mask, N // 64, asc.BinaryRepeatParams(*write))  # marks o's lanes
        asc.add(d, o, o, mask, N // 64, asc.BinaryRepeatParams(*read))  # reads them
        asc.data_copy(zg[i * 2 * N:], d, 2 * N)
        qo.free_tensor(o)
    qi.free_tensor(a)


@pytest.mark.parametrize("form", STRIDED)
def test_a_strided_destination_is_marked_again_after_its_buffer_is_reallocated(form):
    x = np.random.default_rng(3).uniform(-4, 4, N).astype(np.float32)
    z = np.zeros(6 * N, np.float32)
    strided_dst_reallocated[1](x, z, form)
    _, (blk, *_, rep, _, _), _ = STRIDED[form]
    r, lane = np.divmod(np.arange(N), 64)  # (repeat, lane) of a's elements, a read contiguously
    on = lane % 2 == 0 if form == "every other lane" else np.ones(N, bool)
    where = (r * rep + lane // 8 * blk) * 8 + lane % 8  # the element of o (and d) lane (r, lane) lands on
    tile = np.zeros(2 * N, np.float32)
    tile[where[on]] = (x + x)[on] + (x + x)[on]  # o = a + a there, d = o + o
    np.testing.assert_array_equal(z, np.concatenate([tile] * 3))


def test_only_the_pool_touches_its_written_flags():
    """The memo trusts `Pool.epoch`: a module clearing written-flags itself would leave stale 'all written', so the
    flags are the pool's own, reached through its methods, and only the pool moves its epoch on."""
    private = re.compile(r"\.(_written|_flags)\b|\.epoch\s*(\+|-)?=[^=]")
    root = pathlib.Path(asc.__file__).parent
    offenders = [f"{p.relative_to(root)}:{i}" for p in root.rglob("*.py") if p.name != "pool.py"
                 for i, line in enumerate(p.read_text().splitlines(), 1) if private.search(line)]
    assert offenders == []


@asc.jit
def many_windows(x: asc.GlobalAddress, z: asc.GlobalAddress, form: str, past: bool):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    bufs = [asc.TBuf(asc.TPosition.VECCALC) for _ in range(2)]
    for b in bufs:
        pipe.init_buffer(b, 2 * N * 4)
    a, d = (b.get(asc.float32) for b in bufs)
    asc.data_copy(a, xg, 2 * N - 64)  # the last 64 elements of a stay unwritten
    asc.duplicate(d, 0.0, 2 * N)
    for _ in range(2):
        for k in range(4):  # more windows than the memo keeps
            asc.add(d[k * 64:], a[k * 64:], a[k * 64:], *_n(form, 64))
    asc.data_copy(zg, d, 2 * N)
    if past:
        asc.add(d[N:], a[N:], a[N:], *_n(form, N))  # PAST THE MEMO


@pytest.mark.parametrize("form", FORMS)
def test_windows_past_a_full_memo_are_checked_and_computed_in_full(form, monkeypatch):
    from aclsim.asc.memory import local as tensors

    monkeypatch.setattr(tensors, "MEMO_SIZE", 2)
    msg = fault(many_windows, form, True)
    assert "ErrorRead2" in msg and f":{line_of('PAST THE MEMO')} in" in msg
    x, z = inputs()
    many_windows[1](x, z, form, False)
    want = np.zeros(2 * N, np.float32)
    lanes = np.arange(N) if form != "every other lane" else np.arange(0, N, 2)
    want[lanes] = x[lanes] + x[lanes]
    np.testing.assert_array_equal(z, want)
