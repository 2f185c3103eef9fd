/* Device memory allocated in a loop and never freed (the C twin of examples/pitfalls/leak.py).
 *     aclsim cc examples/c/pitfalls/leak.c -o leak && aclsim run --check all ./leak [--fixed] */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

int main(int argc, char **argv) {
    int fixed = argc > 1 && strcmp(argv[1], "--fixed") == 0;
    aclInit(NULL);
    aclrtSetDevice(0);
    for (int batch = 0; batch < 3; batch++) {
        float data[1024], out[1024];
        for (int i = 0; i < 1024; i++) data[i] = (float)batch;
        void *dev = NULL;
        aclrtMalloc(&dev, sizeof data, ACL_MEM_MALLOC_HUGE_FIRST); /* BUG: never freed */
        aclrtMemcpy(dev, sizeof data, data, sizeof data, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpy(out, sizeof out, dev, sizeof data, ACL_MEMCPY_DEVICE_TO_HOST);
        float sum = 0;
        for (int i = 0; i < 1024; i++) sum += out[i];
        printf("batch %d: sum %.0f\n", batch, sum);
        if (fixed) aclrtFree(dev);
    }
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
