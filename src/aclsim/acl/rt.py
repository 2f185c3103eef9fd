"""`acl.rt`: pyACL's runtime functions (devices, contexts, memory, streams, events, callbacks).

Signatures, argument formats and return order follow pyACL (hicann/runtime python/pyACL/rt/pyrt_methods.cpp).
"""

from __future__ import annotations

from typing import Any

from .. import constants as C
from ..errors import AclError, Code
from ..runtime import get_runtime
from . import _device
from ._args import last_error, parser, pyacl
from ._missing import R, not_emulated

# ---------------------------------------------------------------- devices


@pyacl("acl.rt.set_device", "i")
def set_device(device_id: int) -> None:
    get_runtime().set_device(device_id)


@pyacl("acl.rt.reset_device", "i")
def reset_device(device_id: int) -> None:
    get_runtime().reset_device(device_id)


@pyacl("acl.rt.reset_device_force", "i")
def reset_device_force(device_id: int) -> None:
    get_runtime().reset_device(device_id, True)


@pyacl("acl.rt.get_device", "", fail=(0,))
def get_device() -> int:
    return get_runtime().get_device()


@pyacl("acl.rt.get_device_count", "", fail=(0,))
def get_device_count() -> int:
    return get_runtime().device_count


@pyacl("acl.rt.get_run_mode", "", fail=(0,))
def get_run_mode() -> int:
    # ACL_HOST: a program on the host talking to an NPU over PCIe (EP); ACL_DEVICE: the program runs on the
    # device itself (RC, e.g. an Atlas 200 DK), chosen with `aclsim run --run-mode rc` (ACLSIM_RUN_MODE).
    return C.ACL_DEVICE if _device.run_mode() == "rc" else C.ACL_HOST


@pyacl("acl.rt.set_ts_device", "i")
def set_ts_device(ts_id: int) -> None:
    if ts_id not in (0, 1):
        raise AclError(Code.ERROR_INVALID_PARAM, f"acl.rt.set_ts_device: ts_id must be 0 or 1, got {ts_id}")


@pyacl("acl.rt.synchronize_device", "")
def synchronize_device() -> None:
    get_runtime().synchronize_device()


@pyacl("acl.rt.synchronize_device_with_timeout", "i")
def synchronize_device_with_timeout(timeout_ms: int) -> None:
    get_runtime().synchronize_device_with_timeout(timeout_ms)


@pyacl("acl.rt.device_can_access_peer", "ii", fail=(0,))
def device_can_access_peer(device_id: int, peer_device_id: int) -> int:
    return get_runtime().can_access_peer(device_id, peer_device_id)


@pyacl("acl.rt.device_enable_peer_access", "iI")
def device_enable_peer_access(peer_device_id: int, flags: int) -> None:
    get_runtime().enable_peer_access(peer_device_id, flags)


@pyacl("acl.rt.device_disable_peer_access", "i")
def device_disable_peer_access(peer_device_id: int) -> None:
    get_runtime().disable_peer_access(peer_device_id)


# ---------------------------------------------------------------- contexts


@pyacl("acl.rt.create_context", "i", fail=(0,))
def create_context(device_id: int) -> int:
    return get_runtime().create_context(device_id).handle


@pyacl("acl.rt.destroy_context", "k")
def destroy_context(context: int) -> None:
    get_runtime().destroy_context(context)


@pyacl("acl.rt.set_context", "k")
def set_context(context: int) -> None:
    get_runtime().set_context(context)


@pyacl("acl.rt.get_context", "", fail=(0,))
def get_context() -> int:
    return get_runtime().get_context().handle


@pyacl("acl.rt.ctx_get_current_default_stream", "", fail=(0,))
def ctx_get_current_default_stream() -> int:
    get_runtime().current_context("acl.rt.ctx_get_current_default_stream")
    return 0


# ---------------------------------------------------------------- memory


@pyacl("acl.rt.malloc", "ki", fail=(0,))
def malloc(size: int, policy: int) -> int:
    return get_runtime().malloc(size, policy).start


@pyacl("acl.rt.malloc_align32", "ki", fail=(0,))
def malloc_align32(size: int, policy: int) -> int:
    return get_runtime().malloc(size, policy, "malloc_align32").start


@pyacl("acl.rt.malloc_cached", "ki", fail=(0,))
def malloc_cached(size: int, policy: int) -> int:
    return get_runtime().malloc(size, policy, "malloc_cached").start


@pyacl("acl.rt.free", "k")
def free(dev_ptr: int) -> None:
    get_runtime().free(dev_ptr)


@pyacl("acl.rt.malloc_host", "k", fail=(0,))
def malloc_host(size: int) -> int:
    return get_runtime().malloc_host(size).start


@pyacl("acl.rt.free_host", "k")
def free_host(host_ptr: int) -> None:
    get_runtime().free_host(host_ptr)


@pyacl("acl.rt.memcpy", "kkkki")
def memcpy(dst: int, dest_max: int, src: int, count: int, kind: int) -> None:
    get_runtime().memcpy(dst, dest_max, src, count, kind)


@pyacl("acl.rt.memcpy_async", "kkkkik")
def memcpy_async(dst: int, dest_max: int, src: int, count: int, kind: int, stream: int) -> None:
    get_runtime().memcpy_async(dst, dest_max, src, count, kind, stream)


@pyacl("acl.rt.memset", "kkik")
def memset(dev_ptr: int, max_count: int, value: int, count: int) -> None:
    get_runtime().memset(dev_ptr, max_count, value, count)


@pyacl("acl.rt.memset_async", "kkikk")
def memset_async(dev_ptr: int, max_count: int, value: int, count: int, stream: int) -> None:
    get_runtime().memset_async(dev_ptr, max_count, value, count, stream)


@pyacl("acl.rt.memcpy2d", "kkkkkki")
def memcpy2d(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int) -> None:
    get_runtime().memcpy2d(dst, dpitch, src, spitch, width, height, kind)


@pyacl("acl.rt.memcpy2d_async", "kkkkkkik")
def memcpy2d_async(
    dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, stream: int
) -> None:
    get_runtime().memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream)


@pyacl("acl.rt.get_mem_info", "i", fail=(0, 0))
def get_mem_info(attr: int) -> tuple[int, int]:
    return get_runtime().get_mem_info(attr)


@pyacl("acl.rt.pointer_get_attributes", "k", fail=({},))
def pointer_get_attributes(ptr: int) -> dict:
    return get_runtime().pointer_attributes(ptr)


def _cache_op(fn: str, dev_ptr: int, size: int) -> None:
    # aclrtMemFlushImpl / aclrtMemInvalidateImpl: NULL pointer or size 0 -> 100000 (hicann/runtime memory.cpp).
    if dev_ptr == 0 or size == 0:
        raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: dev_ptr must not be NULL and size must be > 0 "
                       f"(got {dev_ptr:#x}, {size})")
    get_runtime().region(dev_ptr, size, False, fn, "dev_ptr")


@pyacl("acl.rt.mem_flush", "kk")
def mem_flush(dev_ptr: int, size: int) -> None:
    _cache_op("acl.rt.mem_flush", dev_ptr, size)


@pyacl("acl.rt.mem_invalidate", "kk")
def mem_invalidate(dev_ptr: int, size: int) -> None:
    _cache_op("acl.rt.mem_invalidate", dev_ptr, size)


# ---------------------------------------------------------------- streams


@pyacl("acl.rt.create_stream", "", fail=(0,))
def create_stream() -> int:
    return get_runtime().create_stream().handle


@pyacl("acl.rt.create_stream_with_config", "ii", fail=(0,))
def create_stream_with_config(priority: int, flag: int) -> int:
    return get_runtime().create_stream(priority, flag).handle


@pyacl("acl.rt.destroy_stream", "k")
def destroy_stream(stream: int) -> None:
    get_runtime().destroy_stream(stream)


@pyacl("acl.rt.destroy_stream_force", "k")
def destroy_stream_force(stream: int) -> None:
    get_runtime().destroy_stream(stream, True)


@pyacl("acl.rt.synchronize_stream", "k")
def synchronize_stream(stream: int) -> None:
    get_runtime().synchronize_stream(stream)


@pyacl("acl.rt.synchronize_stream_with_timeout", "ki")
def synchronize_stream_with_timeout(stream: int, timeout_ms: int) -> None:
    get_runtime().synchronize_stream_with_timeout(stream, timeout_ms)


@pyacl("acl.rt.stream_query", "k", fail=(0,))
def stream_query(stream: int) -> int:
    return get_runtime().stream_query(stream)


@pyacl("acl.rt.stream_wait_event", "kk")
def stream_wait_event(stream: int, event: int) -> None:
    get_runtime().stream_wait_event(stream, event)


def launch_callback(*args: Any) -> int:
    """acl.rt.launch_callback(fn, user_data, block_type, stream) -> ret; fn must be callable."""
    if args and not callable(args[0]):  # refused at the call, not when the report thread runs it (inference)
        raise TypeError("acl.rt.launch_callback args parse failed")
    return _launch_callback(*args)


@pyacl("acl.rt.launch_callback", "OOik")
def _launch_callback(fn: Any, args: Any, block_type: int, stream: int) -> None:
    get_runtime().launch_callback(fn, args, block_type, stream)


@pyacl("acl.rt.subscribe_report", "Kk")
def subscribe_report(thread_id: int, stream: int) -> None:
    get_runtime().subscribe_report(thread_id, stream)


@pyacl("acl.rt.unsubscribe_report", "Kk")
def unsubscribe_report(thread_id: int, stream: int) -> None:
    get_runtime().unsubscribe_report(thread_id, stream)


@pyacl("acl.rt.process_report", "i")
def process_report(timeout_ms: int) -> None:
    get_runtime().process_report(timeout_ms)


# ---------------------------------------------------------------- events


@pyacl("acl.rt.create_event", "", fail=(0,))
def create_event() -> int:
    return get_runtime().create_event().handle


@pyacl("acl.rt.create_event_with_flag", "I", fail=(0,))
def create_event_with_flag(flag: int) -> int:
    return get_runtime().create_event(flag).handle


@pyacl("acl.rt.create_event_ex_with_flag", "I", fail=(0,))
def create_event_ex_with_flag(flag: int) -> int:
    return get_runtime().create_event(flag, True).handle


@pyacl("acl.rt.destroy_event", "k")
def destroy_event(event: int) -> None:
    get_runtime().destroy_event(event)


@pyacl("acl.rt.record_event", "kk")
def record_event(event: int, stream: int) -> None:
    get_runtime().record_event(event, stream)


@pyacl("acl.rt.reset_event", "kk")
def reset_event(event: int, stream: int) -> None:
    get_runtime().reset_event(event, stream)


@pyacl("acl.rt.query_event_status", "k", fail=(0,))
def query_event_status(event: int) -> int:
    return get_runtime().query_event_status(event)


@pyacl("acl.rt.query_event", "k", fail=(0,))
def query_event(event: int) -> int:
    done = get_runtime().query_event_status(event) == C.ACL_EVENT_RECORDED_STATUS_COMPLETE
    return C.ACL_EVENT_STATUS_COMPLETE if done else C.ACL_EVENT_STATUS_NOT_READY


@pyacl("acl.rt.synchronize_event", "k")
def synchronize_event(event: int) -> None:
    get_runtime().synchronize_event(event)


@pyacl("acl.rt.synchronize_event_with_timeout", "ki")
def synchronize_event_with_timeout(event: int, timeout_ms: int) -> None:
    get_runtime().synchronize_event_with_timeout(event, timeout_ms)


@pyacl("acl.rt.event_elapsed_time", "kk", fail=(0.0,))
def event_elapsed_time(start: int, end: int) -> float:
    return get_runtime().event_elapsed_time(start, end)


@pyacl("acl.rt.query_event_wait_status", "k", fail=(0,))
def query_event_wait_status(event: int) -> int:
    # aclrtQueryEventWaitStatus: a wait on the event is over once its record has been reached.
    return C.ACL_EVENT_WAIT_STATUS_COMPLETE if _device.event_done(event) else C.ACL_EVENT_WAIT_STATUS_NOT_READY


# ---------------------------------------------------------------- device status and errors


@pyacl("acl.rt.get_device_utilization_rate", "i", fail=({},))
def get_device_utilization_rate(device_id: int) -> dict:
    # aclrtUtilizationInfo as pyACL's dict. The emulator has no busy cores to sample: 0 %, and -1 for memory
    # utilization, which the API reference documents as reserved (always -1).
    _device.check_device(device_id, "acl.rt.get_device_utilization_rate")
    return {"cube_utilization": 0, "vector_utilization": 0, "aicpu_utilization": 0, "memory_utilization": -1,
            "utilization_extend": 0}


ACL_RT_DEVICE_STATUS_NORMAL = 0


@pyacl("acl.rt.query_device_status", "i", fail=(0,))
def query_device_status(device_id: int) -> int:
    _device.check_device(device_id, "acl.rt.query_device_status")
    return ACL_RT_DEVICE_STATUS_NORMAL  # an emulated device never goes abnormal


def _last_error(fn: str, level: int, clear: bool) -> int:
    if level != 0:  # aclrtLastErrLevel has only ACL_RT_THREAD_LEVEL = 0
        last_error(False)
        return int(Code.ERROR_INVALID_PARAM)
    return last_error(clear)


def peek_at_last_error(*args: Any) -> int:
    """acl.rt.peek_at_last_error(level) -> the code of this thread's last failed call, kept."""
    (level,) = parser("acl.rt.peek_at_last_error", "i")(args)
    return _last_error("acl.rt.peek_at_last_error", level, False)


def get_last_error(*args: Any) -> int:
    """acl.rt.get_last_error(level) -> the code of this thread's last failed call, then cleared."""
    (level,) = parser("acl.rt.get_last_error", "i")(args)
    return _last_error("acl.rt.get_last_error", level, True)


_WHY = "aclsim emulates the acl.rt calls docs/pyacl.md lists"
# pyACL rt calls aclsim does not emulate, with their result shapes (pyACL's python/pyACL/rt/pyrt_methods.cpp)
__getattr__ = not_emulated("acl.rt", [
    (r"get_device_info|device_peer_access_status|event_get_timestamp|get_stream_available_num|host_register|"
     r"malloc_host_with_cfg|malloc_with_cfg|reserve_mem_address|stream_get_id|get_event_id|get_event_avail_num|"
     r"get_device_sat_mode|malloc_physical", (0, R), _WHY),
    (r"get_primary_ctx_state", (0, 0, R), _WHY),
    (r"host_unregister|memcpy_async_with_condition|set_op_wait_timeout|set_device_sat_mode|release_mem_address|"
     r"free_physical|map_mem|unmap_mem", (R,), _WHY),
])
