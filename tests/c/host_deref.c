/* Host code that reads device memory through a device pointer: on an NPU in EP mode this faults. */
#include <stdio.h>

#include "acl/acl.h"

int main(void) {
    aclInit(NULL);
    aclrtSetDevice(0);
    float *dev = NULL;
    aclrtMalloc((void **)&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST); /* ALLOC */
    printf("about to read\n");
    fflush(stdout);
    float x = dev[3]; /* BUG: a device pointer dereferenced on the host */
    printf("read %f\n", x);
    return 0;
}
