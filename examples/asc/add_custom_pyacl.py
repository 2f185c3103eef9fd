"""AddCustom launched from pyACL-style host code: device buffers, a stream, synchronize_stream.

This is the Ascend C kernel-launch flow (aclInit -> aclrtSetDevice -> aclrtCreateStream ->
aclrtMalloc + H2D copies -> kernel<<<8, nullptr, stream>>> -> aclrtSynchronizeStream -> D2H copy)
with the kernel from add_custom.py. Run with `aclsim run examples/asc/add_custom_pyacl.py` or
standalone; exits 1 on any wrong return code or result.
"""

import sys

import numpy as np

try:
    import acl
    import asc
except ImportError:
    import aclsim.asc as asc
    from aclsim import acl

from add_custom import BUFFER_NUM, TILE_NUM, USE_CORE_NUM, add_custom

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2


def check(ret: int, what: str) -> None:
    if ret != 0:
        print(f"{what} failed: {ret} {acl.get_recent_err_msg()}")
        sys.exit(1)


def main() -> int:
    total = USE_CORE_NUM * 2048
    nbytes = total * 2
    rng = np.random.default_rng(11)
    x = rng.uniform(-4, 4, total).astype(np.float16)
    y = rng.uniform(-4, 4, total).astype(np.float16)

    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    ptrs = {}
    for name in ("x", "y", "z"):
        ptrs[name], ret = acl.rt.malloc(nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, f"acl.rt.malloc({name})")
    for name, host in (("x", x), ("y", y)):
        data = host.tobytes()
        check(acl.rt.memcpy(ptrs[name], nbytes, acl.util.bytes_to_ptr(data), nbytes, ACL_MEMCPY_HOST_TO_DEVICE),
              f"memcpy {name} H2D")

    block_length = total // USE_CORE_NUM
    tile_length = block_length // TILE_NUM // BUFFER_NUM
    x_gm, y_gm, z_gm = (asc.GlobalAddress(ptrs[n], asc.half) for n in ("x", "y", "z"))
    add_custom[USE_CORE_NUM, stream](x_gm, y_gm, z_gm, block_length, tile_length)  # asynchronous
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    out = bytes(nbytes)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(out), nbytes, ptrs["z"], nbytes, ACL_MEMCPY_DEVICE_TO_HOST), "memcpy D2H")
    z = np.frombuffer(out, dtype=np.float16)
    for p in ptrs.values():
        check(acl.rt.free(p), "acl.rt.free")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.reset_device(0), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")

    ok = np.array_equal(z, x + y)
    print(f"add_custom[{USE_CORE_NUM}, stream] from pyACL: {'matches numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
