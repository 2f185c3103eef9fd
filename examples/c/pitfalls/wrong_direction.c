/* A device -> host copy made with ACL_MEMCPY_HOST_TO_DEVICE (the C twin of
 * examples/pitfalls/wrong_direction.py): the runtime corrects the kind, the sanitizer names it. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

int main(int argc, char **argv) {
    int fixed = argc > 1 && strcmp(argv[1], "--fixed") == 0;
    float host[256], back[256] = {0};
    for (int i = 0; i < 256; i++) host[i] = (float)i;
    aclInit(NULL);
    aclrtSetDevice(0);
    void *dev = NULL;
    aclrtMalloc(&dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(dev, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpyKind kind = fixed ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_DEVICE;
    aclError ret = aclrtMemcpy(back, sizeof back, dev, sizeof host, kind); /* BUG: this copy is device -> host */
    printf("memcpy returned %d | round trip equal: %s\n", ret, memcmp(back, host, sizeof host) ? "False" : "True");
    aclrtFree(dev);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
