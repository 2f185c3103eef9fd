/* A leak through a helper: the report lists the helper's line and its caller's. */
#include "acl/acl.h"

static void *make_buffer(size_t n) {
    void *p = NULL;
    aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST); /* ALLOC */
    return p;
}

int main(void) {
    aclInit(NULL);
    aclrtSetDevice(0);
    void *kept = make_buffer(1024); /* CALLER */
    (void)kept;
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
