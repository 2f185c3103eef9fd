#include <cstdio>
#include "acl/acl.h"

void launch_square(const float *in, float *out, uint32_t n, aclrtStream stream);

int main()
{
    const uint32_t n = 1000;
    float x[n], y[n];
    for (uint32_t i = 0; i < n; i++) x[i] = (float)i;
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream s;
    aclrtCreateStream(&s);
    void *din, *dout;
    aclrtMalloc(&din, sizeof x, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dout, sizeof y, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(din, sizeof x, x, sizeof x, ACL_MEMCPY_HOST_TO_DEVICE);
    launch_square((const float *)din, (float *)dout, n, s);
    aclrtSynchronizeStream(s);
    aclrtMemcpy(y, sizeof y, dout, sizeof y, ACL_MEMCPY_DEVICE_TO_HOST);
    printf("y[999] %g\n", y[999]);
    aclrtFree(din);
    aclrtFree(dout);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
