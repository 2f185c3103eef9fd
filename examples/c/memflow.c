/* The article's host flow in C: init, a device and a context, pinned host memory and device memory,
 * copies both ways (synchronous, then asynchronous on a stream), memory accounting, release.
 *
 *     aclsim cc examples/c/memflow.c -o memflow && aclsim run ./memflow
 *     aclsim run --check all --summary ./memflow
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                                          \
    do {                                                                                     \
        aclError ret_ = (call);                                                              \
        if (ret_ != ACL_SUCCESS) {                                                           \
            fprintf(stderr, "%s:%d: %s failed: %d\n%s\n", __FILE__, __LINE__, #call, ret_,   \
                    aclGetRecentErrMsg());                                                   \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

int main(void) {
    const size_t count = 1 << 20, bytes = count * sizeof(float);
    /* 1. initialize, 2. a device and a context (with its default stream) plus a stream of our own */
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtContext context;
    CHECK(aclrtCreateContext(&context, 0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));

    /* 3. pinned host memory and device memory */
    float *host = NULL, *result = NULL;
    void *dev = NULL;
    CHECK(aclrtMallocHost((void **)&host, bytes));
    CHECK(aclrtMallocHost((void **)&result, bytes));
    CHECK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    for (size_t i = 0; i < count; i++) host[i] = (float)i;
    size_t free_bytes, total_bytes;
    CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
    printf("device memory: %zu MiB free of %zu MiB\n", free_bytes >> 20, total_bytes >> 20);

    /* 4. host -> device, synchronously */
    CHECK(aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    /* 5. device -> host on the stream; the result is valid only after the stream is synchronized */
    CHECK(aclrtMemcpyAsync(result, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK(aclrtSynchronizeStream(stream));
    printf("round trip %s\n", memcmp(host, result, bytes) == 0 ? "equal" : "DIFFERENT");

    /* 6. release in reverse order */
    CHECK(aclrtFree(dev));
    CHECK(aclrtFreeHost(result));
    CHECK(aclrtFreeHost(host));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtDestroyContext(context));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
