/* An asynchronous copy from a device address 16 bytes past an allocation's start: aclrtMemcpyAsync
 * needs 64-byte aligned addresses (the C twin of examples/pitfalls/misaligned_async.py). */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

int main(int argc, char **argv) {
    int fixed = argc > 1 && strcmp(argv[1], "--fixed") == 0;
    size_t header = fixed ? 64 : 16, payload = 1024 * sizeof(float);
    static unsigned char packet[64 + 1024 * sizeof(float)];
    for (size_t i = 0; i < 1024; i++) ((float *)(packet + header))[i] = (float)i;
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    char *dev = NULL;
    aclrtMalloc((void **)&dev, header + payload, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(dev, header + payload, packet, header + payload, ACL_MEMCPY_HOST_TO_DEVICE);
    void *host = NULL;
    aclrtMallocHost(&host, payload);
    aclrtMemcpyAsync(host, payload, dev + header, payload, ACL_MEMCPY_DEVICE_TO_HOST, stream); /* BUG */
    aclrtSynchronizeStream(stream);
    printf("payload equal: %s\n", memcmp(host, packet + header, payload) == 0 ? "True" : "False");
    aclrtFreeHost(host);
    aclrtFree(dev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
