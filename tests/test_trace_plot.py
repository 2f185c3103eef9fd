"""`aclsim trace-plot`: a PNG timeline from a trace file."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from aclsim import constants as C
from aclsim.cli import main
from aclsim.runtime import get_runtime
from aclsim.trace import start_session


def make_trace(path) -> None:
    session = start_session(trace_path=str(path))
    rt = get_runtime()
    rt.set_device(0)
    x = np.arange(4096, dtype=np.float32)
    a = rt.malloc(x.nbytes, 0)
    rt.memcpy(a.start, x.nbytes, x.ctypes.data, x.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)
    rt.memcpy_async(x.ctypes.data, x.nbytes, a.start, x.nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST, 0)
    rt.synchronize_stream(0)
    rt.free(a.start)
    session.finish()


def test_trace_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    trace = tmp_path / "run.json"
    make_trace(trace)
    assert main(["trace-plot", str(trace)]) == 0
    png = tmp_path / "run.png"
    assert f"wrote {png}" in capsys.readouterr().out
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_trace_plot_without_matplotlib_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    trace = tmp_path / "run.json"
    make_trace(trace)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    assert main(["trace-plot", str(trace), "-o", str(tmp_path / "x.png")]) == 2
    # aclsim may not be on the package index: the hint works for a checkout too
    assert "needs matplotlib: pip install matplotlib (or pip install -e '.[plot]' in a checkout" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_trace_plot_rejects_files_that_are_not_traces(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hello": 1}))
    assert main(["trace-plot", str(bad)]) == 2
    assert "has no traceEvents list" in capsys.readouterr().err
    assert main(["trace-plot", str(tmp_path / "missing.json")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_trace_plot_draws_a_time_window(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    trace = tmp_path / "run.json"
    make_trace(trace)
    end_ms = max(e["ts"] + e.get("dur", 0) for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X") / 1e3
    assert main(["trace-plot", str(trace), "--start", "0", "--end", str(end_ms), "-o", str(tmp_path / "w.png")]) == 0
    assert (tmp_path / "w.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["trace-plot", str(trace), "--start", str(end_ms + 1000), "-o", str(tmp_path / "none.png")]) == 2
    spans = [e for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"]
    first = min(e["ts"] for e in spans) / 1e3
    err = capsys.readouterr().err
    assert f"has nothing to draw after --start {end_ms + 1000:g} ms: its events span {first:.3f} ms to " \
        f"{end_ms:.3f} ms since the trace started" in err
    assert not (tmp_path / "none.png").exists()


def test_trace_plot_format_follows_the_output_extension(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    trace = tmp_path / "run.json"
    make_trace(trace)
    assert main(["trace-plot", str(trace), "-o", str(tmp_path / "t.svg")]) == 0
    assert b"<svg" in (tmp_path / "t.svg").read_bytes()[:1000]
    assert main(["trace-plot", str(trace), "-o", str(tmp_path / "t.pdf")]) == 0
    assert (tmp_path / "t.pdf").read_bytes()[:5] == b"%PDF-"
    assert main(["trace-plot", str(trace), "-o", str(tmp_path / "plain")]) == 0  # no extension: PNG, named so
    assert f"wrote {tmp_path / 'plain.png'}" in capsys.readouterr().out
    assert (tmp_path / "plain.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["trace-plot", str(trace), "-o", str(tmp_path / "t.txt")]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "png" in err and "not 'txt'" in err
    assert not (tmp_path / "t.txt").exists()


def test_trace_plot_help_shows_an_example_and_the_time_unit(capsys):
    with pytest.raises(SystemExit):
        main(["trace-plot", "--help"])
    text = capsys.readouterr().out
    assert "aclsim trace-plot out.json -o timeline.png" in text
    assert "--start/--end are milliseconds since the trace started; omit them to draw everything" in text
    assert "format follows the -o file's extension (png, svg, pdf" in text


def test_nested_slices_are_found_per_track():
    from aclsim.trace.plot import _depths

    call = {"ts": 0, "dur": 10, "pid": 1, "tid": 1}
    wait = {"ts": 2, "dur": 5, "pid": 1, "tid": 1}
    after = {"ts": 10, "dur": 3, "pid": 1, "tid": 1}
    launch = {"ts": 14, "dur": 0, "pid": 1, "tid": 1}
    other = {"ts": 3, "dur": 1, "pid": 100, "tid": 100000}
    depth, parents = _depths([after, wait, call, launch, other])
    assert [depth[id(e)] for e in (call, wait, after, launch, other)] == [0, 1, 0, 0, 0]
    assert parents == {id(call)}
