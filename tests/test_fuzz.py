"""Random pyACL call sequences and generated cases of the newer surfaces, each batch in a child process: no
crash, no hang, only documented codes or clear errors (never an internal traceback), no silent success,
device bytes as written, exact memory accounting. See tests/fuzzer.py and tests/fuzz_surfaces.py for what is
generated and checked; `python benchmarks/fuzz.py --cases N` runs the same at scale, with figures per surface."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_surfaces
import fuzzer


def test_a_fixed_batch_of_random_sequences_holds_every_invariant():
    rng = random.Random(20261202)
    cases = [fuzzer.generate_case("runtime", lambda lo, hi: rng.randint(lo, hi), 80) for _ in range(300)]
    r = fuzzer.run_child(cases)
    assert r.failure is None, r.failure
    assert r.passed == 300


@pytest.mark.parametrize("surface", fuzz_surfaces.SURFACES)
def test_a_fixed_batch_of_generated_cases_keeps_the_outcome_rule(surface):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("PIL")
    rng = random.Random(20261203)
    cases = [fuzzer.generate_case(surface, lambda lo, hi: rng.randint(lo, hi)) for _ in range(150)]
    r = fuzzer.run_child(cases)
    assert r.failure is None, r.failure
    assert r.passed == 150
    assert r.outcomes[surface]["ok"] and (r.outcomes[surface]["code"] or r.outcomes[surface]["error"])


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_hypothesis_sequences_hold_every_invariant(data):
    cases = [fuzzer.generate_case("runtime", lambda lo, hi: data.draw(st.integers(lo, hi)),
                                  data.draw(st.integers(1, 40))) for _ in range(4)]
    r = fuzzer.run_child(cases)
    assert r.failure is None, r.failure
