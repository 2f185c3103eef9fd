"""leakcheck folds the leaks of one source line into one report that still gives the total and every
allocation's size, as compute-sanitizer's leak report (one record per allocation) does."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest

import aclsim
from aclsim import acl, simt
from aclsim.check import Session


@pytest.fixture
def leaks():
    acl.init()
    acl.rt.set_device(0)
    s = Session(["leakcheck"])
    yield s
    s.stop()


def test_leaks_from_one_line_give_the_total_and_each_size(leaks, tmp_path):
    sizes = [8192, 12288]
    ptrs = [acl.rt.malloc(n, 0)[0] for n in sizes]
    hosts = [acl.rt.malloc_host(n)[0] for n in (100, 300)]
    acl.rt.reset_device(0)
    leaks.stop()
    dev, host = (f for f in leaks.findings if f.kind == "leak")
    assert dev.headline == (f"Leaked {sum(sizes)} bytes in 2 allocations of device memory (malloc) on device 0, "
                            "still allocated at acl.rt.reset_device(0)")
    assert [d for d in dev.details if "requested" in d] == [
        f"address {p:#x}, {n} bytes requested" for p, n in zip(ptrs, sizes, strict=True)]
    assert host.headline.startswith("Leaked 400 bytes in 2 allocations of pinned host memory")
    assert [d for d in host.details if "requested" in d] == ["100 bytes requested", "300 bytes requested"]
    text = leaks.report.text()
    assert "LEAK SUMMARY: 20880 bytes leaked in 4 allocations" in text
    leaks.report.write_json(str(tmp_path / "f.json"))
    doc = json.loads((tmp_path / "f.json").read_text())
    assert doc["leaked_bytes"] == 20880 and [e["count"] for e in doc["errors"]] == [2, 2]
    assert "12288 bytes requested" in doc["errors"][0]["details"][1]
    for h in hosts:
        acl.rt.free_host(h)


def test_many_leaks_from_one_line_list_ten_and_sum_the_rest(leaks):
    sizes = [64 * (i + 1) for i in range(13)]
    for n in sizes:
        acl.rt.malloc(n, 0)
    acl.rt.reset_device(0)
    leaks.stop()
    (f,) = leaks.findings
    assert f.headline.startswith(f"Leaked {sum(sizes)} bytes in 13 allocations")
    listed = [int(d.split(", ")[1].split()[0]) for d in f.details if d.endswith("bytes requested")]
    assert listed == sizes[:10]
    assert f"... and 3 more allocations, {sum(sizes[10:])} bytes in all" in f.details


def test_a_single_leak_reads_as_before(leaks):
    ptr, _ = acl.rt.malloc(100, 0)
    acl.rt.reset_device(0)
    leaks.stop()
    (f,) = leaks.findings
    assert f.headline == "Leaked 100 bytes of device memory (malloc) on device 0, still allocated at " \
                         "acl.rt.reset_device(0)"
    assert f.details[0] == f"address {ptr:#x}, 100 bytes requested" and f.count == 1


def test_device_arrays_give_their_memory_back_when_collected_as_numbas_do(leaks):
    free_before = acl.rt.get_mem_info(1)[0]
    x = np.arange(1 << 20, dtype=np.float32)
    for _ in range(8):  # 32 MiB that would pile up if nothing gave it back
        d = aclsim.to_device(x)
        del d
        gc.collect()
    kept = aclsim.to_device(x)  # making an array gives back what was collected
    assert acl.rt.get_mem_info(1)[0] == free_before - kept._alloc.reserved
    raw, _ = acl.rt.malloc(100, 0)  # pyACL memory is the program's to free
    del kept
    gc.collect()
    acl.rt.reset_device(0)  # gives back what was collected before judging what is left
    leaks.stop()
    (f,) = leaks.findings  # only the raw malloc is a leak
    assert f.details[0] == f"address {raw:#x}, 100 bytes requested"


def test_a_collected_array_is_freed_after_the_work_that_uses_it():
    @simt.kernel
    def fill(out: simt.Ptr[np.float32], n: int):
        i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
        if i < n:
            out[i] = 2.0

    acl.init()
    acl.rt.set_device(0)
    s = Session(["memcheck", "racecheck"])
    d = aclsim.empty(1024)
    fill[4, 256](d.ptr, 1024)  # queued with a bare pointer: nothing keeps d alive
    del d
    gc.collect()
    aclsim.empty(16)  # gives back the collected array: it waits for the kernel first, as cudaFree does
    s.stop()
    assert [f.kind for f in s.findings] == []
