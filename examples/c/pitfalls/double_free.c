/* A buffer reused under another name and freed twice (the C twin of examples/pitfalls/double_free.py).
 *     aclsim cc examples/c/pitfalls/double_free.c -o double_free && aclsim run --check all ./double_free */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

int main(int argc, char **argv) {
    int fixed = argc > 1 && strcmp(argv[1], "--fixed") == 0;
    aclInit(NULL);
    aclrtSetDevice(0);
    void *dev_input = NULL, *dev_output = NULL;
    aclrtMalloc(&dev_input, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dev_output, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
    void *scratch = dev_input; /* the input is not needed any more: reuse it as scratch space */
    aclrtMemset(scratch, 4096, 0, 4096);
    void *buffers[3] = {dev_input, dev_output, scratch};
    for (int i = 0; i < (fixed ? 2 : 3); i++) {
        aclError ret = aclrtFree(buffers[i]); /* BUG: scratch is dev_input, freed a second time */
        printf("aclrtFree(%p) returned %d\n", buffers[i], ret);
    }
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
