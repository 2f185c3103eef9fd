"""Property test: random sequences of queued work on several streams, ordered by events.

Reference model: each stream's operations apply in submission order; a `wait` on an event makes the
stream's later work come after everything its recorded stream had submitted before the record. Every
stream writes only its own region and reads another's only between two events (race-free), so the final
bytes are determined by the model however the scheduler interleaves streams, in both scheduling modes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import aclsim.acl as acl
from aclsim.runtime import reset_runtime

N_STREAMS, REGION = 3, 16

ops = st.lists(
    st.one_of(
        st.tuples(st.just("memset"), st.integers(0, N_STREAMS - 1), st.integers(0, 255)),
        st.tuples(st.just("copy_from"), st.integers(0, N_STREAMS - 1), st.integers(0, N_STREAMS - 1)),
        st.tuples(st.just("query"), st.integers(0, N_STREAMS - 1), st.just(0)),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=80, deadline=None)
@given(ops=ops, lazy=st.booleans())
def test_queued_work_matches_the_stream_order_model(ops, lazy):
    import os

    os.environ["ACLSIM_SCHEDULE"] = "lazy" if lazy else "eager"
    try:
        reset_runtime()
        assert acl.rt.set_device(0) == 0
        buf, _ = acl.rt.malloc(N_STREAMS * REGION, 0)
        assert acl.rt.memset(buf, N_STREAMS * REGION, 0, N_STREAMS * REGION) == 0
        streams = [acl.rt.create_stream()[0] for _ in range(N_STREAMS)]
        model = np.zeros((N_STREAMS, REGION), np.uint8)
        for op, s, arg in ops:
            if op == "memset":
                assert acl.rt.memset_async(buf + s * REGION, REGION, arg, REGION, streams[s]) == 0
                model[s] = arg
            elif op == "copy_from":
                # Stream s copies stream `arg`'s region into its own, after an event on `arg`.
                ev, _ = acl.rt.create_event()
                assert acl.rt.record_event(ev, streams[arg]) == 0
                assert acl.rt.stream_wait_event(streams[s], ev) == 0
                assert acl.rt.memcpy_async(buf + s * REGION, REGION, buf + arg * REGION, REGION, 3, streams[s]) == 0
                back, _ = acl.rt.create_event()  # and `arg`'s later writes wait for the copy: race-free
                assert acl.rt.record_event(back, streams[s]) == 0
                assert acl.rt.stream_wait_event(streams[arg], back) == 0
                model[s] = model[arg]
            else:
                status, ret = acl.rt.stream_query(streams[s])
                assert ret == 0 and status in (0, 1)
        assert acl.rt.synchronize_device() == 0
        out = bytes(N_STREAMS * REGION)
        assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), len(out), buf, len(out), 2) == 0
        assert np.array_equal(np.frombuffer(out, np.uint8).reshape(N_STREAMS, REGION), model)
    finally:
        os.environ.pop("ACLSIM_SCHEDULE", None)
        reset_runtime()
