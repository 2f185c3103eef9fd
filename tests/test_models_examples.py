"""The model example runs as a user runs it: make an ONNX model, `aclsim atc`, `aclsim run` the program."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("PIL.Image")  # the example writes its picture with Pillow

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"


def aclsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    subprocess.run([sys.executable, str(EXAMPLES / "make_model.py"), str(d / "tiny.onnx"), "--picture",
                    str(d / "pic.jpg")], check=True)
    r = aclsim("atc", f"--model={d / 'tiny.onnx'}", "--framework=5", f"--output={d / 'tiny'}",
               "--soc_version=Ascend310P3")
    assert r.returncode == 0 and "ATC run success" in r.stdout, r.stderr
    return d


@pytest.mark.parametrize("mode", [[], ["--async"]])
def test_classify_sample_matches_onnxruntime_with_clean_check(converted, mode):
    d = converted
    r = aclsim("run", "--check", "all", "--error-exitcode", "3", str(EXAMPLES / "classify.py"), str(d / "tiny.om"),
               str(d / "pic.jpg"), *mode, "--check-onnx", str(d / "tiny.onnx"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "top5 inference results" in r.stdout and "match onnxruntime" in r.stdout
    assert "ERROR SUMMARY: 0 errors" in r.stderr


def test_classify_sample_takes_the_onnx_file_directly(converted):
    d = converted
    r = aclsim("run", str(EXAMPLES / "classify.py"), str(d / "tiny.onnx"), str(d / "pic.jpg"),
               "--check-onnx", str(d / "tiny.onnx"))
    assert r.returncode == 0 and "match onnxruntime" in r.stdout, r.stdout + r.stderr


def test_real_om_stops_the_sample_with_the_way_out(converted, tmp_path):
    om = tmp_path / "resnet50.om"
    om.write_bytes(b"IMOD" + bytes(300))
    r = aclsim("run", str(EXAMPLES / "classify.py"), str(om), str(converted / "pic.jpg"))
    assert r.returncode != 0
    assert "acl.mdl.load_from_file failed ret=100013" in r.stderr and "aclsim atc" in r.stderr
