"""The article's first kernel, in pyACL style: square every element of a vector on the device.

The C original launches `SquareKernel<<<gridDim, blockDim>>>` where each thread does
    tid = blockIdx.x * blockDim.x + threadIdx.x;  if (tid < size) output[tid] = input[tid] * input[tid];
Six steps: (1) init, (2) set device 0 and create a context, (3) host and device allocation with
random host data, (4) H2D copy, (5) launch with 256 threads per block and synchronize, (6) D2H copy,
check against numpy, release everything.

Run it with `aclsim run examples/seed_square.py [size]`; exits 1 if any call fails or a value is wrong.
"""

import sys

import acl
import numpy as np

from aclsim import simt

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
DEVICE_ID = 0
THREADS_PER_BLOCK = 256


@simt.kernel
def square_kernel(input: simt.Ptr[np.float32], output: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if tid < size:
        output[tid] = input[tid] * input[tid]


def check(ret, what):
    if ret != ACL_SUCCESS:
        sys.exit(f"{what} failed with {ret}: {acl.get_recent_err_msg()}")


def main(size: int) -> int:
    # 1. Initialize.
    check(acl.init(), "acl.init")
    # 2. Device 0 and a context on it, plus a stream for the kernel.
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")

    # 3. Host data (random) and device buffers.
    nbytes = size * 4
    host_input = np.random.default_rng(2024).random(size, dtype=np.float32)
    input_bytes, output_bytes = host_input.tobytes(), bytes(nbytes)
    dev_input, ret = acl.rt.malloc(nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc(input)")
    dev_output, ret = acl.rt.malloc(nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc(output)")

    # 4. Host -> device.
    check(acl.rt.memcpy(dev_input, nbytes, acl.util.bytes_to_ptr(input_bytes), nbytes, ACL_MEMCPY_HOST_TO_DEVICE),
          "acl.rt.memcpy H2D")

    # 5. SquareKernel<<<gridDim, blockDim, stream>>>(input, output, size), then wait for it.
    grid_dim = (size + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    square_kernel[grid_dim, THREADS_PER_BLOCK, stream](dev_input, dev_output, size)
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    # 6. Device -> host, verify, release.
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(output_bytes), nbytes, dev_output, nbytes, ACL_MEMCPY_DEVICE_TO_HOST),
          "acl.rt.memcpy D2H")
    host_output = np.frombuffer(output_bytes, dtype=np.float32)
    expected = host_input * host_input
    ok = np.array_equal(host_output, expected)
    print(f"squared {size} floats with {grid_dim} blocks of {THREADS_PER_BLOCK} threads: "
          f"{'match numpy' if ok else 'MISMATCH'}")
    check(acl.rt.free(dev_input), "acl.rt.free(input)")
    check(acl.rt.free(dev_output), "acl.rt.free(output)")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20))
