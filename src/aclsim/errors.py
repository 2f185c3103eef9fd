"""ACL return codes with their names, meanings and a fix hint, and the `AclError` exception.

Values and meanings follow CANN's `acl_base_rt.h` / `rt_error_codes.h` (hicann/runtime include/external/acl/error_codes/rt_error_codes.h, docs/zh/api_ref/25-01_aclError.md).
"""

from __future__ import annotations

import threading
from enum import IntEnum


class Code(IntEnum):
    """ACL error codes (`aclError`)."""

    SUCCESS = 0
    ERROR_INVALID_PARAM = 100000
    ERROR_UNINITIALIZE = 100001
    ERROR_REPEAT_INITIALIZE = 100002
    ERROR_INVALID_FILE = 100003
    ERROR_PARSE_FILE = 100006
    ERROR_REPEAT_SUBSCRIBE = 100033
    ERROR_STREAM_NOT_SUBSCRIBE = 100034
    ERROR_THREAD_NOT_SUBSCRIBE = 100035
    ERROR_WAIT_CALLBACK_TIMEOUT = 100036
    ERROR_REPEAT_FINALIZE = 100037
    ERROR_BAD_ALLOC = 200000
    ERROR_API_NOT_SUPPORT = 200001
    ERROR_MEMORY_ADDRESS_UNALIGNED = 200003
    ERROR_RESOURCE_NOT_MATCH = 200004
    ERROR_INVALID_RESOURCE_HANDLE = 200005
    ERROR_FEATURE_UNSUPPORTED = 200006
    ERROR_INTERNAL_ERROR = 500000
    ERROR_RT_PARAM_INVALID = 107000
    ERROR_RT_INVALID_DEVICEID = 107001
    ERROR_RT_CONTEXT_NULL = 107002
    ERROR_RT_STREAM_CONTEXT = 107003
    ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006
    ERROR_RT_ADDR_UNALIGNED = 107008
    ERROR_RT_THREAD_SUBSCRIBE = 107012
    ERROR_RT_STREAM_NO_CB_REG = 107015
    ERROR_RT_INVALID_MEMORY_TYPE = 107016
    ERROR_RT_INVALID_HANDLE = 107017
    ERROR_RT_FEATURE_NOT_SUPPORT = 207000
    ERROR_RT_MEMORY_ALLOCATION = 207001
    ERROR_RT_MEMORY_FREE = 207002
    ERROR_RT_NO_EVENT_RESOURCE = 207007
    ERROR_RT_NO_STREAM_RESOURCE = 207008
    ERROR_RT_INTERNAL_ERROR = 507000
    ERROR_RT_STREAM_NOT_COMPLETE = 507004
    ERROR_RT_EVENT_NOT_COMPLETE = 507006
    ERROR_RT_CONTEXT_RELEASE_ERROR = 507007
    ERROR_RT_REPORT_TIMEOUT = 507012
    ERROR_RT_AICORE_TIMEOUT = 507014
    ERROR_RT_AICORE_EXCEPTION = 507015
    ERROR_RT_AICPU_EXCEPTION = 507018
    ERROR_RT_STREAM_SYNC_TIMEOUT = 507046
    ERROR_RT_EVENT_SYNC_TIMEOUT = 507047
    # models and operators (acl_base.h; GE codes from ge_error_codes.h)
    ERROR_INVALID_MODEL_ID = 100011
    ERROR_DESERIALIZE_MODEL = 100012
    ERROR_PARSE_MODEL = 100013
    ERROR_READ_MODEL_FAILURE = 100014
    ERROR_MODEL_SIZE_INVALID = 100015
    ERROR_MODEL_MISSING_ATTR = 100016
    ERROR_MODEL_INPUT_NOT_MATCH = 100017
    ERROR_MODEL_OUTPUT_NOT_MATCH = 100018
    ERROR_MODEL_NOT_DYNAMIC = 100019
    ERROR_OP_TYPE_NOT_MATCH = 100020
    ERROR_OP_INPUT_NOT_MATCH = 100021
    ERROR_OP_OUTPUT_NOT_MATCH = 100022
    ERROR_OP_ATTR_NOT_MATCH = 100023
    ERROR_OP_NOT_FOUND = 100024
    ERROR_OP_LOAD_FAILED = 100025
    ERROR_UNSUPPORTED_DATA_TYPE = 100026
    ERROR_FORMAT_NOT_MATCH = 100027
    ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID = 145013
    ERROR_GE_AIPP_NOT_EXIST = 145015

    @property
    def acl_name(self) -> str:
        """The C macro name, e.g. ``ACL_ERROR_RT_CONTEXT_NULL``."""
        return "ACL_SUCCESS" if self is Code.SUCCESS else "ACL_" + self.name

    @property
    def meaning(self) -> str:
        return _INFO.get(self, ("", ""))[0]

    @property
    def hint(self) -> str:
        return _INFO.get(self, ("", ""))[1]


_INFO: dict[Code, tuple[str, str]] = {
    Code.SUCCESS: ("success", "nothing to fix"),
    Code.ERROR_INVALID_PARAM: (
        "parameter check failed (null pointer, size 0, value out of range, bad enum)",
        "check each argument against the API reference; acl.get_recent_err_msg() names the bad one",
    ),
    Code.ERROR_UNINITIALIZE: ("AscendCL is not initialised", "call acl.init() first"),
    Code.ERROR_REPEAT_INITIALIZE: (
        "acl.init() was already called",
        "harmless: call acl.init() once per process (or ignore this code)",
    ),
    Code.ERROR_INVALID_FILE: ("the configuration file does not exist or cannot be read", "pass an existing JSON file or no path"),
    Code.ERROR_PARSE_FILE: ("the configuration file is not valid JSON", "fix the JSON syntax of the file"),
    Code.ERROR_REPEAT_SUBSCRIBE: ("the stream is already subscribed", "subscribe a stream once"),
    Code.ERROR_STREAM_NOT_SUBSCRIBE: (
        "the stream is not subscribed to a report thread",
        "call acl.rt.subscribe_report(thread_id, stream) first",
    ),
    Code.ERROR_THREAD_NOT_SUBSCRIBE: (
        "the calling thread is not subscribed to any stream",
        "call acl.rt.subscribe_report with this thread's id before process_report",
    ),
    Code.ERROR_WAIT_CALLBACK_TIMEOUT: (
        "no callback arrived before the timeout",
        "raise the timeout or make sure the stream reaches its launch_callback task",
    ),
    Code.ERROR_REPEAT_FINALIZE: ("acl.finalize() was already called", "call acl.finalize() once"),
    Code.ERROR_BAD_ALLOC: ("memory allocation failed", "free memory or ask for less"),
    Code.ERROR_API_NOT_SUPPORT: ("API not supported", "use a supported API"),
    Code.ERROR_MEMORY_ADDRESS_UNALIGNED: ("address not aligned", "align the address as documented"),
    Code.ERROR_RESOURCE_NOT_MATCH: (
        "the resource does not belong to the current context",
        "use streams/events of the current context",
    ),
    Code.ERROR_INVALID_RESOURCE_HANDLE: (
        "invalid or destroyed handle",
        "pass a handle returned by a create_* call that was not destroyed",
    ),
    Code.ERROR_FEATURE_UNSUPPORTED: ("feature not supported", "use a supported feature"),
    Code.ERROR_INTERNAL_ERROR: (
        "internal error; from acl.rt.process_report: the callback it ran raised an exception",
        "for a callback, read its traceback on stderr and fix it; otherwise report a bug against aclsim",
    ),
    Code.ERROR_RT_PARAM_INVALID: (
        "runtime parameter invalid (e.g. memcpy count > dest_max, range outside an allocation)",
        "make count <= dest_max and keep the range inside one allocation",
    ),
    Code.ERROR_RT_INVALID_DEVICEID: (
        "invalid device id",
        "use an id in range(acl.rt.get_device_count()[0]) (set ACLSIM_DEVICES for more)",
    ),
    Code.ERROR_RT_CONTEXT_NULL: (
        "no current context in this thread",
        "call acl.rt.set_device(id) or acl.rt.set_context(ctx) in this thread first",
    ),
    Code.ERROR_RT_STREAM_CONTEXT: (
        "the stream does not belong to the current context",
        "switch to the stream's context with acl.rt.set_context, or use a stream of this context",
    ),
    Code.ERROR_RT_EVENT_TIMESTAMP_INVALID: (
        "the event has no timestamp yet (recorded, but the device has not reached the record)",
        "call acl.rt.synchronize_event on both events before acl.rt.event_elapsed_time",
    ),
    Code.ERROR_RT_ADDR_UNALIGNED: ("memory address unaligned", "align the address as documented"),
    Code.ERROR_RT_THREAD_SUBSCRIBE: (
        "the calling thread is not subscribed to any stream",
        "call acl.rt.subscribe_report(this thread's id, stream) before acl.rt.process_report",
    ),
    Code.ERROR_RT_STREAM_NO_CB_REG: (
        "no report thread is registered for callbacks on this stream",
        "call acl.rt.subscribe_report(thread_id, stream) before acl.rt.launch_callback",
    ),
    Code.ERROR_RT_INVALID_MEMORY_TYPE: ("invalid memory type", "pass memory of the documented kind"),
    Code.ERROR_RT_INVALID_HANDLE: ("invalid handle", "pass a live handle"),
    Code.ERROR_RT_FEATURE_NOT_SUPPORT: (
        "feature not supported (e.g. an asynchronous host-to-host copy)",
        "use a synchronous acl.rt.memcpy or a supported direction",
    ),
    Code.ERROR_RT_MEMORY_ALLOCATION: (
        "device out of memory",
        "free allocations or ask for less; acl.rt.get_mem_info shows what is left",
    ),
    Code.ERROR_RT_MEMORY_FREE: ("memory free error", "free only live pointers returned by malloc"),
    Code.ERROR_RT_NO_EVENT_RESOURCE: ("no event resource left on the device", "destroy events you no longer use"),
    Code.ERROR_RT_NO_STREAM_RESOURCE: ("no stream resource left on the device", "destroy streams you no longer use"),
    Code.ERROR_RT_INTERNAL_ERROR: ("runtime internal error", "report a bug against aclsim"),
    Code.ERROR_RT_STREAM_NOT_COMPLETE: ("stream not complete", "synchronize the stream"),
    Code.ERROR_RT_EVENT_NOT_COMPLETE: (
        "the event has not completed",
        "call acl.rt.synchronize_event (or synchronize the stream) before reading its time",
    ),
    Code.ERROR_RT_CONTEXT_RELEASE_ERROR: (
        "the device's default context could not be released (e.g. reset_device without a matching set_device)",
        "call acl.rt.reset_device once per acl.rt.set_device on that device",
    ),
    Code.ERROR_RT_REPORT_TIMEOUT: (
        "acl.rt.process_report timed out: no callback task reached this report thread",
        "raise the timeout, or check that the stream reaches its launch_callback task (call it in a loop)",
    ),
    Code.ERROR_RT_AICORE_TIMEOUT: ("an AI Core task timed out", "look for a kernel that never ends"),
    Code.ERROR_RT_AICORE_EXCEPTION: (
        "an AI Core task faulted (e.g. an illegal address)",
        "acl.get_recent_err_msg() names the kernel, thread, index and line; fix the index or bounds check",
    ),
    Code.ERROR_RT_AICPU_EXCEPTION: ("an AI CPU task faulted", "inspect the failing task"),
    Code.ERROR_RT_STREAM_SYNC_TIMEOUT: (
        "timed out waiting for the stream or the device (the work goes on running); also returned at once when "
        "the stream waits for a blocking callback whose subscribed report thread has exited (nothing will ever "
        "call process_report for it)",
        "raise the timeout; for a callback, keep the report thread calling acl.rt.process_report until the "
        "stream is synchronized (or use acl.rt.destroy_stream_force to drop the stuck work)",
    ),
    Code.ERROR_RT_EVENT_SYNC_TIMEOUT: (
        "acl.rt.synchronize_event_with_timeout timed out: the event's record was not reached in time",
        "raise the timeout; the work goes on running, and a later synchronize waits for it again",
    ),
    Code.ERROR_INVALID_MODEL_ID: ("invalid model id (never loaded, or unloaded)", "pass an id from acl.mdl.load_*"),
    Code.ERROR_DESERIALIZE_MODEL: ("the model file cannot be deserialized (damaged container: header, checksum)",
                                   "build it with `aclsim atc --model=x.onnx --framework=5 --output=x`"),
    Code.ERROR_PARSE_MODEL: ("the model cannot be parsed (e.g. an OM built by the real ATC for an NPU, an invalid "
                             "ONNX graph, or an .om header that does not describe its graph)",
                             "rebuild it from the ONNX model with `aclsim atc`, or load the .onnx directly"),
    Code.ERROR_READ_MODEL_FAILURE: ("the model file cannot be read", "check the path"),
    Code.ERROR_MODEL_SIZE_INVALID: ("invalid model size (for an aclsim .om: the ONNX payload is shorter or longer "
                                    "than its header says, e.g. a cut file)",
                                    "pass the whole file's bytes and length; rebuild a cut file with `aclsim atc`"),
    Code.ERROR_MODEL_MISSING_ATTR: ("the model lacks an attribute it needs (an aclsim .om header without one of "
                                    "its fields)", "rebuild the model with `aclsim atc`"),
    Code.ERROR_MODEL_INPUT_NOT_MATCH: ("the input dataset does not match the model's inputs",
                                       "one buffer per input, each of acl.mdl.get_input_size_by_index bytes"),
    Code.ERROR_MODEL_OUTPUT_NOT_MATCH: ("the output dataset does not match the model's outputs",
                                        "one buffer per output, each of acl.mdl.get_output_size_by_index bytes"),
    Code.ERROR_MODEL_NOT_DYNAMIC: ("the model has no dynamic batch/image size",
                                   "build it with --dynamic_batch_size or --dynamic_image_size"),
    Code.ERROR_OP_TYPE_NOT_MATCH: ("operator type not supported", "use an operator type docs/models.md lists"),
    Code.ERROR_OP_INPUT_NOT_MATCH: ("operator inputs do not match", "check the input descriptions and buffers"),
    Code.ERROR_OP_OUTPUT_NOT_MATCH: ("operator outputs do not match", "check the output descriptions and buffers"),
    Code.ERROR_OP_ATTR_NOT_MATCH: ("operator attribute does not match", "check the attribute names and values"),
    Code.ERROR_OP_NOT_FOUND: ("no single-operator model for this operator",
                              "build it with `aclsim atc --singleop=ops.json --output=DIR` and set_model_dir(DIR)"),
    Code.ERROR_OP_LOAD_FAILED: ("loading the single-operator model failed", "rebuild it with `aclsim atc --singleop`"),
    Code.ERROR_UNSUPPORTED_DATA_TYPE: ("unsupported data type", "use a data type the operator supports"),
    Code.ERROR_FORMAT_NOT_MATCH: ("format does not match", "check the tensor formats"),
    Code.ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID: ("the batch size is not one of the model's gears",
                                               "use a value from acl.mdl.get_dynamic_batch"),
    Code.ERROR_GE_AIPP_NOT_EXIST: ("the model has no AIPP configuration", "build it with --insert_op_conf"),
}


class AclError(RuntimeError):
    """An ACL call failed; ``code`` holds the ACL return code.

    Raised by the runtime, the engines and the Pythonic face. The pyACL face (`aclsim.acl`) returns the
    code instead and, at that boundary, records the message for `acl.get_recent_err_msg()` (`record_error`):
    making an AclError records nothing, so a caught probe leaves no message behind.
    """

    def __init__(self, code: int, message: str = "") -> None:
        self.code = int(code)
        self.name = code_name(self.code)
        super().__init__(error_text(self.code, message))
        self.message = message


def code_name(code: int) -> str:
    """The C macro name of a code, e.g. ``ACL_ERROR_RT_CONTEXT_NULL`` (``ACL_ERROR_<n>`` when unknown)."""
    try:
        return Code(code).acl_name
    except ValueError:
        return f"ACL_ERROR_{code}"


def error_text(code: int, message: str = "") -> str:
    """How a failure reads in messages: ``NAME (code): message``."""
    return f"{code_name(code)} ({code}): {message}" if message else f"{code_name(code)} ({code})"


_tls = threading.local()


def record_error(text: str) -> None:
    """Remember an error message for acl.get_recent_err_msg() in this thread (the pyACL face calls it when a
    call fails: `str(AclError)`, or the text of a failure that is not an exception)."""
    msgs = getattr(_tls, "msgs", None)
    if msgs is None:
        msgs = _tls.msgs = []
    msgs.append(text)
    del msgs[:-32]


def take_recent_errors() -> str | None:
    """This thread's pending error messages, newest first, and clear them (None if none)."""
    msgs = getattr(_tls, "msgs", None)
    if not msgs:
        return None
    _tls.msgs = []
    return "\n".join(reversed(msgs))


def describe(code: int) -> str:
    """Multi-line text for `aclsim explain CODE`."""
    try:
        c = Code(int(code))
    except ValueError:
        return f"{code}: not an ACL code known to aclsim"
    return f"{int(c)} {c.acl_name}\n  meaning: {c.meaning}\n  fix:     {c.hint}"
