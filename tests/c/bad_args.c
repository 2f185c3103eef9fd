/* Bad arguments from C: each line is "call code". tests/test_c_face.py compares the codes with the
 * documented ones (and with the pyACL face's). */
#include <stdio.h>

#include "acl/acl.h"

#define SHOW(name, call) printf("%s %d\n", name, (int)(call))

int main(void) {
    void *p = NULL, *dev = NULL;
    size_t a, b;
    char host[256];
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    SHOW("malloc_before_set_device", aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    SHOW("get_mem_info_before_set_device", aclrtGetMemInfo(ACL_HBM_MEM, &a, &b));
    SHOW("init", aclInit(NULL));
    SHOW("init_again", aclInit(NULL));
    SHOW("set_device_out_of_range", aclrtSetDevice(64));
    SHOW("set_device", aclrtSetDevice(0));
    SHOW("malloc_null_out", aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    SHOW("malloc_size_0", aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    SHOW("malloc_too_big", aclrtMalloc(&p, (size_t)1 << 40, ACL_MEM_MALLOC_HUGE_FIRST));
    SHOW("malloc_host_size_0", aclrtMallocHost(&p, 0));
    SHOW("malloc", aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    SHOW("free_null", aclrtFree(NULL));
    SHOW("free_host_null", aclrtFreeHost(NULL));
    SHOW("memcpy_count_over_dest_max", aclrtMemcpy(dev, 10, host, 11, ACL_MEMCPY_HOST_TO_DEVICE));
    SHOW("memcpy_count_0", aclrtMemcpy(dev, 256, host, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    SHOW("memcpy_null_dst", aclrtMemcpy(NULL, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    SHOW("memcpy_kind_9", aclrtMemcpy(dev, 256, host, 256, (aclrtMemcpyKind)9));
    SHOW("memcpy_past_allocation", aclrtMemcpy(dev, 4096, host, 256 + 128, ACL_MEMCPY_HOST_TO_DEVICE));
    SHOW("memcpy_async_h2h", aclrtMemcpyAsync(host, 128, host + 128, 64, ACL_MEMCPY_HOST_TO_HOST, NULL));
    SHOW("memset_async_count_over_max", aclrtMemsetAsync(dev, 10, 0, 11, NULL));
    SHOW("get_mem_info_null_free", aclrtGetMemInfo(ACL_HBM_MEM, NULL, &b));
    SHOW("get_device_null", aclrtGetDevice(NULL));
    SHOW("create_stream_null", aclrtCreateStream(NULL));
    SHOW("create_stream", aclrtCreateStream(&stream));
    SHOW("destroy_stream", aclrtDestroyStream(stream));
    SHOW("destroy_stream_again", aclrtDestroyStream(stream));
    SHOW("synchronize_destroyed_stream", aclrtSynchronizeStream(stream));
    SHOW("create_event", aclrtCreateEvent(&event));
    SHOW("destroy_event", aclrtDestroyEvent(event));
    SHOW("record_destroyed_event", aclrtRecordEvent(event, NULL));
    SHOW("elapsed_null_ms", aclrtEventElapsedTime(NULL, event, event));
    SHOW("free", aclrtFree(dev));
    SHOW("double_free", aclrtFree(dev));
    SHOW("set_current_context_garbage", aclrtSetCurrentContext((aclrtContext)0x1234));
    SHOW("not_emulated", aclrtSetGroup(0));
    printf("not_emulated_message %s\n", aclGetRecentErrMsg());
    ACL_APP_LOG(ACL_ERROR, "logged %d", 7); /* APP_LOG */
    SHOW("reset_device", aclrtResetDevice(0));
    SHOW("finalize", aclFinalize());
    SHOW("finalize_again", aclFinalize());
    return 0;
}
