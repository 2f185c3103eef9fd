"""A wait with a timeout returns on time, whatever the queued work does, and the work goes on.

A blocking callback holds its stream until the program lets it finish (here: after the timeout);
acl.rt.synchronize_stream_with_timeout gives up after 300 ms with ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
(507046), and a later synchronize waits for the work again. A kernel that never ends times out the
same way (run with `aclsim run examples/stream_timeout.py`).
"""

import threading
import time

import acl

ACL_CALLBACK_BLOCK = 1

acl.init()
acl.rt.set_device(0)
context, _ = acl.rt.get_context()
stream, _ = acl.rt.create_stream()
release, stop = threading.Event(), False


def report_loop():
    acl.rt.set_context(context)
    while not stop:
        acl.rt.process_report(100)


tid, _ = acl.util.start_thread(report_loop, None)
acl.rt.subscribe_report(tid, stream)
acl.rt.launch_callback(lambda _: release.wait(20), None, ACL_CALLBACK_BLOCK, stream)  # holds the stream
t0 = time.monotonic()
ret = acl.rt.synchronize_stream_with_timeout(stream, 300)
print("with a 300 ms timeout:", ret, "after", "< 1 s" if time.monotonic() - t0 < 1 else "too long")
print("stream status:", acl.rt.stream_query(stream)[0])  # 1: ACL_STREAM_STATUS_NOT_READY, it still runs
release.set()
print("synchronize:", acl.rt.synchronize_stream(stream))
stop = True
acl.util.stop_thread(tid)
acl.rt.unsubscribe_report(tid, stream)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
