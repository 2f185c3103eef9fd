"""pyACL's callback pattern, and the calls that would deadlock a real device returning a code instead.

A report thread loops on acl.rt.process_report; a blocking callback holds its stream until it returns.
The callback synchronizes its own stream (on hardware: a deadlock; here 107000), and the program resets
the device once more than it set it (507007).

    aclsim run examples/callbacks.py
"""

import acl

from aclsim.constants import ACL_CALLBACK_BLOCK

acl.init()
acl.rt.set_device(0)
context, _ = acl.rt.get_context()
stream, _ = acl.rt.create_stream()
stop = False


def report_loop():  # the pyACL callback pattern; start_thread(fn, None) calls fn()
    acl.rt.set_context(context)
    while not stop:
        acl.rt.process_report(100)  # 507012 (ACL_ERROR_RT_REPORT_TIMEOUT) when idle


def on_done(tag):
    print("callback", tag, "-> synchronize own stream:", acl.rt.synchronize_stream(stream))


tid, _ = acl.util.start_thread(report_loop, None)
acl.rt.subscribe_report(tid, stream)
acl.rt.launch_callback(on_done, "batch 0", ACL_CALLBACK_BLOCK, stream)
print("synchronize:", acl.rt.synchronize_stream(stream))
stop = True
acl.util.stop_thread(tid)
print("extra reset:", acl.rt.reset_device(0), acl.rt.reset_device(0))
acl.finalize()
