"""Random pyACL call sequences (valid and invalid) in a child process: no crash, no hang, only
documented codes, device bytes as written, exact memory accounting. See tests/fuzzer.py for what is
generated and checked; `python benchmarks/fuzz.py --minutes N` runs the same for longer."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzer


def test_a_fixed_batch_of_random_sequences_holds_every_invariant():
    rng = random.Random(20261202)
    seqs = [fuzzer.generate(lambda lo, hi: rng.randint(lo, hi), 80) for _ in range(300)]
    passed, failure = fuzzer.run_child(seqs)
    assert failure is None, failure
    assert passed == 300


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_hypothesis_sequences_hold_every_invariant(data):
    seqs = [fuzzer.generate(lambda lo, hi: data.draw(st.integers(lo, hi)), data.draw(st.integers(1, 40)))
            for _ in range(4)]
    _, failure = fuzzer.run_child(seqs)
    assert failure is None, failure
