"""Damaged models are refused at load with the documented model codes, never with an exception, and
`execute` never raises from inside aclsim (issue 23, defect 1).

A cut or bit-flipped `.om`, and `.om` files whose JSON header was edited (a data type of 999, no inputs, a
bogus AIPP block, non-numeric dims), used to load with 0 and fail in `execute` with KeyError/IndexError/
TypeError, or to make `load_from_file` raise onnxruntime's InvalidProtobuf/InvalidGraph or UnicodeDecodeError.
"""

from __future__ import annotations

import copy
import json
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from aclsim import acl
from aclsim.cli import main as cli
from aclsim.models import om
from onnx_models import mlp, save

PREFIX = len(om.MAGIC) + 8


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> bytes:
    d = tmp_path_factory.mktemp("om")
    src = save(mlp()[0], d / "m.onnx")
    assert cli(["atc", f"--model={src}", "--framework=5", f"--output={d / 'm'}", "--soc_version=Ascend310P3"]) == 0
    return (d / "m.om").read_bytes()


@pytest.fixture
def ctx():
    acl.init()
    acl.rt.set_device(0)
    yield
    acl.rt.reset_device(0)
    acl.finalize()


def header(data: bytes) -> dict:
    (n,) = struct.unpack_from("<I", data, len(om.MAGIC) + 4)
    return json.loads(data[PREFIX:PREFIX + n])


def with_header(data: bytes, meta: dict, version: int = om.VERSION) -> bytes:
    (n,) = struct.unpack_from("<I", data, len(om.MAGIC) + 4)
    head = json.dumps(meta).encode()
    return om.MAGIC + struct.pack("<II", version, len(head)) + head + data[PREFIX + n:]


def edited(data: bytes, edit) -> bytes:
    meta = copy.deepcopy(header(data))
    edit(meta)
    return with_header(data, meta)


def load(data: bytes) -> tuple[int, int]:
    """(model id, ret) of acl.mdl.load_from_mem on these bytes (never an exception)."""
    return acl.mdl.load_from_mem(acl.util.bytes_to_ptr(data), len(data))


def execute(model_id: int) -> int:
    """acl.mdl.execute with one zero-filled buffer per input and output, as the descriptions give them."""
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == 0
    sets, ptrs = [], []
    for n, size_of in ((acl.mdl.get_num_inputs(desc), acl.mdl.get_input_size_by_index),
                       (acl.mdl.get_num_outputs(desc), acl.mdl.get_output_size_by_index)):
        ds = acl.mdl.create_dataset()
        for i in range(n):
            size = size_of(desc, i)
            p, _ = acl.rt.malloc(max(size, 1), 0)
            acl.rt.memset(p, max(size, 1), 0, max(size, 1))
            ptrs.append(p)
            acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(p, size))
        sets.append(ds)
    ret = acl.mdl.execute(model_id, *sets)
    for p in ptrs:
        acl.rt.free(p)
    return ret


HEADER_EDITS = {  # (edit, code, words the message must contain)
    "dtype 999": (lambda h: h["inputs"][0].update(dtype=999), 100013, "data type 999"),
    "graph dtype 999": (lambda h: h["outputs"][0].update(graph_dtype=999), 100013, "graph data type 999"),
    "no inputs": (lambda h: h.update(inputs=[]), 100013, "are not the graph's ['x']"),
    "no outputs": (lambda h: h.update(outputs=[]), 100013, "are not the graph's ['y']"),
    "bogus AIPP": (lambda h: h["inputs"][0].update(aipp={"input_format": "bogus"}), 100013, "AIPP"),
    "non-numeric dims": (lambda h: h["inputs"][0].update(dims=["a", 8]), 100012, "dims"),
    "dims off the graph": (lambda h: h["inputs"][0].update(dims=[2, 8]), 100013, "do not fit the graph"),
    "-1 without gears": (lambda h: h["inputs"][0].update(dims=[-1, 8]), 100013, "-1 needs dynamic gears"),
    "wrong size": (lambda h: h["outputs"][0].update(size=4), 100013, "size 4"),
    "renamed input": (lambda h: h["inputs"][0].update(name="zz"), 100013, "['zz']"),
    "gears and no -1": (lambda h: h.update(dynamic_batch=[1, 2]), 100013, "dynamic gears"),
    "missing field": (lambda h: h.pop("outputs"), 100016, "'outputs'"),
    "unknown field": (lambda h: h.update(extra=1), 100012, "unknown fields ['extra']"),
}


@pytest.mark.parametrize("name", sorted(HEADER_EDITS))
def test_an_edited_header_is_refused_at_load_naming_the_field(good, ctx, name):
    edit, code, words = HEADER_EDITS[name]
    assert load(edited(good, edit)) == (0, code)
    msg = acl.get_recent_err_msg()
    assert "damaged" in msg or "aclsim atc" in msg
    assert words in msg


def test_a_cut_model_is_refused_with_the_size_code(good, ctx):
    for cut in (len(good) - 1, len(good) - 200, PREFIX + 30):
        mid, ret = load(good[:cut])
        assert (mid, ret) in ((0, 100015), (0, 100012))
    assert load(good[:len(good) - 1]) == (0, 100015)
    assert "cut short" in acl.get_recent_err_msg()


def test_a_flipped_payload_byte_fails_the_checksum(good, ctx):
    b = bytearray(good)
    b[-40] ^= 0x10  # inside the weights: still a valid ONNX graph, only the checksum tells
    assert load(bytes(b)) == (0, 100012)
    assert "checksum" in acl.get_recent_err_msg()


def test_a_version_1_container_with_a_damaged_graph_is_a_parse_error(good, ctx):
    meta = header(good)
    del meta["payload_size"], meta["payload_crc32"]
    v1 = with_header(good, meta, version=1)
    assert load(v1)[1] == 0  # version 1 files still load
    broken = bytearray(v1)
    broken[len(v1) - len(header(good)) // 2:] = b"\xff" * (len(header(good)) // 2)
    assert load(bytes(broken)) == (0, 100013)
    assert "ONNX graph is invalid" in acl.get_recent_err_msg()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_any_damage_is_a_code_at_load_or_a_model_that_executes(good, data):
    acl.init()
    acl.rt.set_device(0)
    try:
        b = bytearray(good)
        for _ in range(data.draw(st.integers(1, 4))):
            b[data.draw(st.integers(0, len(b) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        b = b[: data.draw(st.integers(len(om.MAGIC), len(b)))]
        mid, ret = load(bytes(b))
        assert isinstance(ret, int)
        if ret == 0:
            assert execute(mid) in (0, 507000)
            assert acl.mdl.unload(mid) == 0
        else:
            assert acl.get_recent_err_msg()
    finally:
        acl.rt.reset_device(0)
        acl.finalize()
