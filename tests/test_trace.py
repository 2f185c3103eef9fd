"""The timeline: a Chrome trace-event file of host calls and device work, and the run summary."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from aclsim import constants as C
from aclsim.cli import main
from aclsim.runtime import KernelWork, Task, get_runtime
from aclsim.trace import CostModel, start_session
from aclsim.trace.units import fmt_bytes

REPO = Path(__file__).resolve().parent.parent
N = 1 << 16  # float32 elements per buffer


def square_task(src, dst, n: int = N, grid=(4, 1, 1), block=(256, 1, 1)) -> Task:
    """A kernel task (as aclsim.simt builds one): dst = src * src over device memory."""

    def run(task: Task) -> None:
        a = src.data[: n * 4].view(np.float32)
        b = dst.data[: n * 4].view(np.float32)
        np.multiply(a, a, out=b)
        task.work.bytes_read = n * 4
        task.work.bytes_written = n * 4

    return Task("kernel", "square", run, work=KernelWork("simt", grid=grid, block=block))


def load(path: Path) -> list[dict]:
    doc = json.loads(path.read_text())
    return doc["traceEvents"]


def tracks(evs: list[dict]) -> dict[tuple[int, int], str]:
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}


def spans_on(evs: list[dict], track_name: str) -> list[dict]:
    keys = {k for k, v in tracks(evs).items() if v == track_name}
    return sorted((e for e in evs if e["ph"] == "X" and (e["pid"], e["tid"]) in keys), key=lambda e: e["ts"])


def host_spans(evs: list[dict]) -> list[dict]:
    return spans_on(evs, "host thread MainThread")


def square_program(rt, host_in: np.ndarray, host_out: np.ndarray) -> tuple:
    """Pinned host buffers -> H2D async, kernel, D2H async, synchronize (the article's pattern)."""
    nbytes = host_in.nbytes
    a, b = rt.malloc(nbytes, 0), rt.malloc(nbytes, 0)
    h_in, h_out = rt.malloc_host(nbytes), rt.malloc_host(nbytes)
    h_in.buffer[:nbytes] = host_in.view(np.uint8)
    up = rt.memcpy_async(a.start, nbytes, h_in.start, nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE, 0)
    kernel = rt.launch(0, square_task(a, b, host_in.size))
    down = rt.memcpy_async(h_out.start, nbytes, b.start, nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST, 0)
    rt.synchronize_stream(0)
    host_out[:] = h_out.buffer[:nbytes].view(np.float32)
    for p in (a.start, b.start):
        rt.free(p)
    for h in (h_in, h_out):
        rt.free_host(h.start)
    return up, kernel, down


@pytest.fixture
def traced(tmp_path, capsys):
    """Run a body under a trace+summary session; returns (events, summary text, result of body)."""

    def go(body):
        path = tmp_path / "out.json"
        session = start_session(trace_path=str(path), summary=True)
        try:
            result = body(get_runtime())
        finally:
            assert session.finish() is None
        return load(path), capsys.readouterr().err, result

    return go


def test_trace_file_follows_the_trace_event_format(traced):
    x = np.arange(N, dtype=np.float32)
    evs, _, _ = traced(lambda rt: (rt.set_device(0), square_program(rt, x, np.empty_like(x))))
    names = tracks(evs)
    procs = {e["pid"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
    assert evs and all(e["ph"] in {"M", "X", "s", "f", "C"} for e in evs)
    for e in evs:
        assert isinstance(e["pid"], int)
        if e["ph"] in "Xsf" or e["name"] in ("thread_name", "thread_sort_index"):
            assert isinstance(e["tid"], int)
        else:  # process-wide: no tid (Perfetto then uses the pid)
            assert "tid" not in e
        if e["ph"] != "M":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
            assert e["pid"] in procs
        if e["ph"] == "X":
            assert isinstance(e["name"], str) and e["dur"] >= 0 and (e["pid"], e["tid"]) in names
        if e["ph"] == "C":
            assert all(isinstance(v, (int, float)) for v in e["args"].values())
    # Perfetto names threads by tid alone: no tid may appear under two processes.
    owners: dict = {}
    for e in evs:
        if "tid" in e:
            owners.setdefault(e["tid"], set()).add(e["pid"])
    assert all(len(p) == 1 for p in owners.values())
    # Flow arrows: one start and one end per id, each inside a slice of its own track.
    starts = {e["id"]: e for e in evs if e["ph"] == "s"}
    ends = {e["id"]: e for e in evs if e["ph"] == "f"}
    assert starts and starts.keys() == ends.keys()
    assert all(e["bp"] == "e" for e in ends.values())
    slices = [e for e in evs if e["ph"] == "X"]
    for e in (*starts.values(), *ends.values()):
        assert any(s["pid"] == e["pid"] and s["tid"] == e["tid"] and s["ts"] <= e["ts"] <= s["ts"] + s["dur"] + 1e-6
                   for s in slices), e
    # Spans on one track nest or follow each other, never partly overlap.
    by_track: dict = {}
    for s in slices:
        by_track.setdefault((s["pid"], s["tid"]), []).append((s["ts"], s["ts"] + s["dur"]))
    for intervals in by_track.values():
        intervals.sort()
        for (_, a1), (b0, b1) in itertools.pairwise(intervals):
            assert b0 >= a1 - 1e-6 or b1 <= a1 + 1e-6  # 1e-6 us: float rounding of ts + dur


def test_default_stream_shows_copy_kernel_copy_in_order_and_the_host_waiting(traced):
    x = np.arange(N, dtype=np.float32)
    y = np.empty_like(x)
    evs, _, _ = traced(lambda rt: (rt.set_device(0), square_program(rt, x, y)))
    np.testing.assert_array_equal(y, x * x)
    dev = spans_on(evs, "default stream")
    assert [s["cat"] for s in dev] == ["memcpy", "kernel", "memcpy"]
    assert [s["args"].get("direction") for s in dev] == ["H2D", None, "D2H"]
    assert dev[0]["args"]["bytes"] == x.nbytes and fmt_bytes(x.nbytes) in dev[0]["name"]
    assert dev[1]["name"] == "square" and dev[1]["args"]["grid"] == [4, 1, 1] and dev[1]["args"]["block"] == [256, 1, 1]
    sync = [s for s in host_spans(evs) if s["name"] == "acl.rt.synchronize_stream"]
    assert len(sync) == 1 and sync[0]["cat"] == "sync"
    assert sync[0]["ts"] + sync[0]["dur"] >= dev[1]["ts"] + dev[1]["dur"]
    # Lazy mode: nothing ran before the host waited, so every device span ends inside the synchronize call.
    assert all(s["ts"] + s["dur"] <= sync[0]["ts"] + sync[0]["dur"] for s in dev)


def test_flow_arrows_join_each_host_call_to_the_device_work_it_queued(traced):
    x = np.arange(N, dtype=np.float32)
    evs, _, _ = traced(lambda rt: (rt.set_device(0), square_program(rt, x, np.empty_like(x))))
    host, dev = host_spans(evs), spans_on(evs, "default stream")
    ends = {e["id"]: e for e in evs if e["ph"] == "f"}

    def enclosing(e, spans):
        return [s for s in spans if s["ts"] <= e["ts"] <= s["ts"] + s["dur"]][-1]

    flows = sorted((e for e in evs if e["ph"] == "s"), key=lambda e: e["ts"])
    pairs = [(enclosing(s, host)["name"], enclosing(ends[s["id"]], dev)["cat"]) for s in flows]
    assert pairs == [("acl.rt.memcpy_async", "memcpy"), ("launch square", "kernel"), ("acl.rt.memcpy_async", "memcpy")]
    launch = next(s for s in host if s["name"] == "launch square")
    assert launch["cat"] == "launch"  # the launch call itself, as long as queuing took


def test_device_spans_carry_measured_and_modeled_time(traced):
    x = np.arange(N, dtype=np.float32)
    evs, _, (up, kernel, down) = traced(lambda rt: (rt.set_device(0), square_program(rt, x, np.empty_like(x)))[1])
    dev = spans_on(evs, "default stream")
    chip = get_runtime().chip
    model = CostModel.for_chip(chip)
    for span, task in zip(dev, (up, kernel, down), strict=True):
        assert span["args"]["seq"] == task.seq
        assert span["args"]["emulator_us"] == pytest.approx(task.exec_time * 1e6, abs=1e-3)
        assert span["dur"] == pytest.approx((task.end - task.start) * 1e6, abs=2e-3)
    copy_s = model.copy_overhead + x.nbytes / chip.pcie_bandwidth
    assert dev[0]["args"]["modeled_npu_us"] == pytest.approx(copy_s * 1e6, abs=1e-3)
    assert dev[2]["args"]["modeled_npu_us"] == pytest.approx(copy_s * 1e6, abs=1e-3)
    share = 4 / chip.vector_cores  # 4 blocks on 48 vector cores
    memory_s = 2 * x.nbytes / (chip.hbm_bandwidth * share)
    compute_s = 4 * 256 / (chip.vector_cores * share * 64 * chip.cube_mhz * 1e6)
    kernel_s = model.kernel_launch_overhead + max(memory_s, compute_s)
    assert dev[1]["args"]["modeled_npu_us"] == pytest.approx(kernel_s * 1e6, abs=1e-3)


def test_device_memory_counter_follows_malloc_and_free(traced):
    def body(rt):
        rt.set_device(0)
        a = rt.malloc(3 << 20, 0)
        b = rt.malloc(1000, 0)
        rt.free(a.start)
        c = rt.malloc(5 << 20, 0)
        rt.free(b.start)
        rt.free(c.start)
        return a, b, c

    evs, summary, (a, b, c) = traced(body)
    counter = [e["args"]["bytes"] for e in sorted((e for e in evs if e["ph"] == "C"), key=lambda e: e["ts"])]
    steps = np.cumsum([0, a.reserved, b.reserved, -a.reserved, c.reserved, -b.reserved, -c.reserved]).tolist()
    assert counter == steps
    peak = max(steps)
    assert re.search(rf"NPU 0\s+{re.escape(fmt_bytes(peak))}\s", summary)
    assert any(e["ph"] == "C" and e["name"] == "HBM in use" for e in evs)


def test_device_reset_releases_what_was_never_freed(traced):
    def body(rt):
        rt.set_device(0)
        a = rt.malloc(1 << 20, 0)
        rt.reset_device(0)
        return a

    evs, _, a = traced(body)
    assert [e["args"]["bytes"] for e in evs if e["ph"] == "C"] == [0, a.reserved, 0]


def test_synchronous_copies_are_drawn_on_the_default_stream(traced):
    x = np.arange(1024, dtype=np.float32)
    y = np.empty_like(x)

    def body(rt):
        rt.set_device(0)
        a = rt.malloc(x.nbytes, 0)
        rt.memcpy(a.start, x.nbytes, x.ctypes.data, x.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)
        rt.memset(a.start, x.nbytes, 0, 64)
        rt.memcpy(y.ctypes.data, y.nbytes, a.start, x.nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST)
        rt.memcpy(y.ctypes.data, y.nbytes, x.ctypes.data, x.nbytes, C.ACL_MEMCPY_HOST_TO_HOST)  # no device work
        rt.free(a.start)

    evs, summary, _ = traced(body)
    dev = spans_on(evs, "default stream")
    assert [(s["cat"], s["args"].get("direction"), s["args"]["bytes"]) for s in dev] == [
        ("memcpy", "H2D", x.nbytes), ("memset", None, 64), ("memcpy", "D2H", x.nbytes)]
    copies = [s for s in host_spans(evs) if s["name"] in ("acl.rt.memcpy", "acl.rt.memset")]
    assert [(s["ts"], s["dur"]) for s in copies[:3]] == [(s["ts"], s["dur"]) for s in dev]  # the call is the copy
    assert "memset" in summary and "H2D" in summary


def test_event_record_and_wait_link_two_streams(traced):
    def body(rt):
        rt.set_device(0)
        a, b = rt.malloc(N * 4, 0), rt.malloc(N * 4, 0)
        s1, s2 = rt.create_stream(), rt.create_stream()
        ev = rt.create_event()
        rt.launch(s1.handle, square_task(a, b))
        rt.record_event(ev.handle, s1.handle)
        rt.stream_wait_event(s2.handle, ev.handle)
        rt.launch(s2.handle, square_task(b, a))
        rt.synchronize_stream(s2.handle)
        return s1, s2

    evs, _, (s1, s2) = traced(body)
    first, second = spans_on(evs, f"stream {s1.handle:#x}"), spans_on(evs, f"stream {s2.handle:#x}")
    assert [s["cat"] for s in first] == ["kernel", "record"]
    assert [s["cat"] for s in second] == ["wait", "kernel"]
    assert second[0]["ts"] >= first[1]["ts"]  # the wait ends no earlier than the record it waited for
    names = tracks(evs)
    starts = {e["id"]: e for e in evs if e["ph"] == "s"}
    cross = [(names[(starts[f["id"]]["pid"], starts[f["id"]]["tid"])], names[(f["pid"], f["tid"])])
             for f in evs if f["ph"] == "f" and starts[f["id"]]["pid"] != 1]
    assert cross == [(f"stream {s1.handle:#x}", f"stream {s2.handle:#x}")]


def test_a_copy_overlapping_queued_work_gets_its_own_lane(traced):
    x = np.ones(256, dtype=np.float32)

    def body(rt):
        rt.set_device(0)
        a = rt.malloc(x.nbytes, 0)
        rt.launch(0, Task("kernel", "slow", lambda t: time.sleep(0.05)))  # modeled to start now, lasts 50 ms
        rt.memcpy(a.start, x.nbytes, x.ctypes.data, x.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)
        rt.synchronize_stream(0)

    evs, _, _ = traced(body)
    assert [s["name"] for s in spans_on(evs, "default stream")] == ["slow"]
    assert [s["args"]["direction"] for s in spans_on(evs, "default stream (overlapping copies 1)")] == ["H2D"]


def test_summary_tables_kernels_copies_memory_and_waits(traced):
    x = np.arange(N, dtype=np.float32)

    def body(rt):
        rt.set_device(0)
        for _ in range(3):
            square_program(rt, x, np.empty_like(x))
        rt.synchronize_device()

    _, summary, _ = traced(body)
    lines = summary.splitlines()
    row = next(line.split() for line in lines if line.split()[:1] == ["square"])
    assert row[1] == "3"
    h2d = next(line.split() for line in lines if line.split()[:1] == ["H2D"])
    assert h2d[1] == "3" and " ".join(h2d[2:4]) == fmt_bytes(3 * x.nbytes)
    assert "Host waiting in synchronize:" in summary and "4 call(s) (device 1, stream 3)" in summary


def test_summary_reports_work_that_never_ran(traced):
    def body(rt):
        rt.set_device(0)
        rt.launch(0, Task("kernel", "forgotten", lambda t: None))

    _, summary, _ = traced(body)
    assert "1 queued task(s) (forgotten)" in summary


def test_model_constants_can_be_overridden(tmp_path, monkeypatch):
    chip = get_runtime().chip
    base = CostModel.for_chip(chip, env={})
    assert base.pcie_bandwidth == chip.pcie_bandwidth and base.clock_hz == chip.cube_mhz * 1e6
    f = tmp_path / "model.json"
    f.write_text(json.dumps({"pcie_bandwidth": 50e9, "copy_overhead": 0}))
    m = CostModel.for_chip(chip, env={"ACLSIM_MODEL": str(f), "ACLSIM_MODEL_PCIE_BANDWIDTH": "10e9"})
    assert m.pcie_bandwidth == 10e9 and m.copy_overhead == 0  # the variable wins over the file
    assert m.task_time("memcpy", {"direction": "H2D", "bytes": 10**9}) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="ACLSIM_MODEL_VECTOR_CORES: vector_cores must be a positive integer"):
        CostModel.for_chip(chip, env={"ACLSIM_MODEL_VECTOR_CORES": "2.5"})
    f.write_text(json.dumps({"pcie_bw": 1}))
    with pytest.raises(ValueError, match="unknown model constant 'pcie_bw'"):
        CostModel.for_chip(chip, env={"ACLSIM_MODEL": str(f)})
    monkeypatch.setenv("ACLSIM_MODEL_HBM_BANDWIDTH", "fast")
    with pytest.raises(SystemExit, match="hbm_bandwidth must be a number, got 'fast'"):
        start_session(summary=True)


def test_aclsim_run_writes_trace_and_summary(tmp_path, capsys):
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import numpy as np\nimport acl\n"
        "acl.init(); acl.rt.set_device(0)\n"
        "x = np.arange(1024, dtype=np.float32)\n"
        "dev, _ = acl.rt.malloc(x.nbytes, 0)\n"
        "data = x.tobytes()\n"
        "acl.rt.memcpy(dev, x.nbytes, acl.util.bytes_to_ptr(data), x.nbytes, 1)\n"
        "acl.rt.synchronize_device()\n"
        "acl.rt.free(dev); acl.rt.reset_device(0); acl.finalize()\n"
    )
    out = tmp_path / "t.json"
    assert main(["run", "--trace", str(out), "--summary", str(prog)]) == 0
    err = capsys.readouterr().err
    assert f"trace written to {out}" in err and "Copies" in err
    evs = load(out)
    assert [s["name"] for s in host_spans(evs)][:3] == ["acl.init", "acl.rt.set_device", "acl.rt.malloc"]
    assert [s["args"]["bytes"] for s in spans_on(evs, "default stream")] == [4096]


def test_unwritable_trace_path_fails_the_run(tmp_path, capsys):
    session = start_session(trace_path=str(tmp_path / "missing" / "t.json"))
    assert session.finish() == 1
    assert "cannot write the trace" in capsys.readouterr().err


@pytest.mark.skipif(not (REPO / "examples" / "seed_square.py").exists(), reason="examples/seed_square.py not written yet")
def test_seed_square_trace_shows_h2d_kernel_d2h_then_the_host_sync_ends(tmp_path, capsys):
    out = tmp_path / "seed.json"
    assert main(["run", "--trace", str(out), str(REPO / "examples" / "seed_square.py"), "4096"]) == 0
    evs = load(out)
    names = tracks(evs)
    device = sorted((e for e in evs if e["ph"] == "X" and e["pid"] == 100), key=lambda e: e["ts"])
    work = [(e["cat"], e["args"].get("direction"), names[(e["pid"], e["tid"])]) for e in device]
    # The example copies synchronously (drawn on the default stream) and launches on a stream it created.
    assert [w[:2] for w in work] == [("memcpy", "H2D"), ("kernel", None), ("memcpy", "D2H")]
    assert work[0][2] == work[2][2] == "default stream" and work[1][2].startswith("stream 0x")
    kernel = device[1]
    assert kernel["name"] == "square_kernel" and kernel["args"]["grid"] == [16, 1, 1]
    assert kernel["args"]["block"] == [256, 1, 1]
    sync = [s for s in host_spans(evs) if s["name"] == "acl.rt.synchronize_stream"]
    assert len(sync) == 1 and sync[0]["ts"] + sync[0]["dur"] >= kernel["ts"] + kernel["dur"]


def test_launch_shapes_given_as_lists_are_traced(traced):
    def body(rt):
        rt.set_device(0)
        for _ in range(2):
            rt.launch(0, Task("kernel", "listy", lambda t: None, work=KernelWork("simt", grid=[2, 1, 1], block=[32, 1, 1])))
        rt.synchronize_stream(0)

    evs, summary, _ = traced(body)
    assert [s["args"]["grid"] for s in spans_on(evs, "default stream")] == [[2, 1, 1], [2, 1, 1]]
    assert re.search(r"listy\s+2\s", summary)


def test_work_queued_from_a_callback_thread_links_to_the_innermost_call(traced):
    def body(rt):
        rt.set_device(0)
        ctx = rt.get_context()
        dev = rt.malloc(4096, 0)
        stream = rt.create_stream()
        subscribed = threading.Event()

        def reporter() -> None:
            rt.set_context(ctx.handle)
            subscribed.wait()
            rt.process_report(5000)  # runs the callback below on this thread

        def callback(_) -> None:
            rt.memset_async(dev.start, 4096, 7, 4096, 0)  # an API call nested in process_report

        t = threading.Thread(target=reporter, name="reporter")
        t.start()
        rt.subscribe_report(t.ident, stream.handle)
        subscribed.set()
        rt.launch_callback(callback, None, C.ACL_CALLBACK_NO_BLOCK, stream.handle)
        rt.synchronize_stream(stream.handle)
        t.join()
        rt.synchronize_stream(0)

    evs, _, _ = traced(body)
    report = spans_on(evs, "host thread reporter")
    assert [s["name"] for s in report] == ["acl.rt.set_context", "acl.rt.process_report", "acl.rt.memset_async"]
    outer, inner = report[1], report[2]
    assert outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]
    memset = spans_on(evs, "default stream")
    assert [s["cat"] for s in memset] == ["memset"]
    ends = {e["id"]: e for e in evs if e["ph"] == "f"}
    starts = [e for e in evs if e["ph"] == "s" and ends[e["id"]]["ts"] == memset[0]["ts"]]
    assert len(starts) == 1 and inner["ts"] <= starts[0]["ts"] <= inner["ts"] + inner["dur"]
    assert starts[0]["tid"] == inner["tid"]


def test_a_session_is_a_context_manager_for_python_programs(tmp_path, capsys):
    path = tmp_path / "ctx.json"
    with start_session(trace_path=str(path), summary=True) as session:
        rt = get_runtime()
        rt.set_device(0)
        rt.launch(0, Task("kernel", "inside", lambda t: None, work=KernelWork("asc", cores=8)))
        rt.synchronize_stream(0)
    assert session.finish() is None  # finishing twice does nothing more
    err = capsys.readouterr().err
    assert err.count("trace written to") == 1 and "inside" in err
    (kernel,) = spans_on(load(path), "default stream")
    assert kernel["name"] == "inside" and kernel["args"]["cores"] == 8


def test_host_waits_are_drawn_inside_the_call_that_waited(traced):
    x = np.arange(N, dtype=np.float32)

    def body(rt):
        rt.set_device(0)
        a = rt.malloc(x.nbytes, 0)
        s = rt.create_stream()
        # Pageable (numpy) host memory: memcpy_async returns only after the copy, an implicit wait.
        rt.memcpy_async(a.start, x.nbytes, x.ctypes.data, x.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE, s.handle)
        rt.launch(s.handle, square_task(a, a))
        rt.synchronize_stream(s.handle)
        rt.synchronize_device()
        return s

    evs, summary, s = traced(body)
    host = host_spans(evs)
    waits = [w for w in host if w["cat"] == "host-wait"]
    assert [w["name"] for w in waits] == [f"wait for stream {s.handle:#x}"] * 2 + ["wait for device 0"]
    for w, call in zip(waits, ("acl.rt.memcpy_async", "acl.rt.synchronize_stream", "acl.rt.synchronize_device"),
                       strict=True):
        parent = next(c for c in host if c["name"] == call)
        assert parent["ts"] <= w["ts"] and w["ts"] + w["dur"] <= parent["ts"] + parent["dur"] + 1e-6
    assert re.search(r"Host waiting in synchronize: .* in 3 call\(s\) \(device 1, stream 2\)", summary)
