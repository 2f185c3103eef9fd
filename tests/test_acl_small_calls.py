"""acl.app_log, the acl.rt status calls, last-error calls, and the not-emulated safety net."""

from __future__ import annotations

import warnings

import pytest

from aclsim import acl
from aclsim.acl._missing import NotEmulatedWarning


@pytest.fixture
def device():
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    yield
    acl.rt.reset_device(0)
    acl.finalize()


def test_app_log_prints_levels_at_or_above_threshold(capsys, monkeypatch):
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "1")
    assert acl.app_log(0, "debug line") is None
    acl.app_log(1, "info line")
    acl.app_log(3, "error line")
    err = capsys.readouterr().err
    assert "debug line" not in err
    assert "[INFO] APP(" in err and "info line" in err
    assert "[ERROR] APP(" in err and "test_acl_small_calls.py:" in err


def test_app_log_default_threshold_is_error(capsys, monkeypatch):
    monkeypatch.delenv("ASCEND_GLOBAL_LOG_LEVEL", raising=False)
    acl.app_log(2, "warn line")
    acl.app_log(3, "err line")
    err = capsys.readouterr().err
    assert "warn line" not in err and "err line" in err


def test_app_log_argument_rules():
    with pytest.raises(TypeError, match=r"acl\.app_log args parse failed"):
        acl.app_log("3", "x")
    with pytest.raises(TypeError):
        acl.app_log(3)


def test_device_status_and_utilization(device):
    assert acl.rt.query_device_status(0) == (0, 0)
    info, ret = acl.rt.get_device_utilization_rate(0)
    assert ret == 0 and set(info) >= {"cube_utilization", "vector_utilization", "aicpu_utilization",
                                      "memory_utilization"}
    assert acl.rt.query_device_status(5) == (0, 107001)
    assert acl.rt.get_device_utilization_rate(5)[1] == 107001


def test_last_error_peek_keeps_get_clears(device):
    acl.rt.get_last_error(0)  # earlier tests in this thread may have left one
    assert acl.rt.peek_at_last_error(0) == 0
    assert acl.rt.malloc(0, 0)[1] == 100000
    assert acl.rt.free(0x1234) != 0
    code = acl.rt.peek_at_last_error(0)
    assert code == acl.rt.free(0x1234)
    assert acl.rt.peek_at_last_error(0) == code  # peek keeps it
    assert acl.rt.get_last_error(0) == code
    assert acl.rt.get_last_error(0) == 0  # get cleared it
    assert acl.rt.peek_at_last_error(7) == 100000


def test_query_event_wait_status(device):
    stream, _ = acl.rt.create_stream()
    event, _ = acl.rt.create_event()
    assert acl.rt.record_event(event, stream) == 0
    assert acl.rt.stream_wait_event(0, event) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.query_event_wait_status(event) == (0, 0)  # ACL_EVENT_WAIT_STATUS_COMPLETE
    assert acl.rt.query_event_wait_status(0xDEAD)[1] != 0
    acl.rt.destroy_event(event)
    acl.rt.destroy_stream(stream)


def test_known_but_not_emulated_calls_return_codes_and_say_so(device):
    with pytest.warns(NotEmulatedWarning, match=r"acl\.media\.vdec_create_channel is not emulated"):
        assert acl.media.vdec_create_channel(123) == 200001
    assert "vdec_create_channel is not emulated" in acl.get_recent_err_msg()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert acl.media.vdec_create_channel_desc() == 0
        assert acl.rt.get_device_info(0, 0) == (0, 200001)
        assert acl.prof.init("/tmp") == 200001
        assert acl.prof.create_config([0], 0, 0, 0) == 0


def test_unknown_names_raise_attribute_error_naming_the_module():
    for mod, name in ((acl, "no_such_call"), (acl.rt, "frobnicate"), (acl.util, "nope")):
        with pytest.raises(AttributeError, match="aclsim does not emulate it"):
            getattr(mod, name)
    assert not hasattr(acl.rt, "frobnicate")
