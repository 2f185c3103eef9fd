/* A fuzz test over the C API: random calls with NULL out-parameters, wrong sizes, freed and forged
 * handles, wrong kinds and bad pointers. Every call must return (never crash or hang) with a code;
 * the program prints how many calls returned each code. Usage: fuzz SEED CALLS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

static uint64_t state;
static uint64_t next(void) {  /* xorshift64* */
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
}
static uint64_t pick(uint64_t n) { return next() % n; }

#define HOST_BYTES (1 << 20)
#define SLOTS 16
static char host[HOST_BYTES];
static void *dev[SLOTS], *pinned[SLOTS];
static aclrtStream streams[SLOTS];
static aclrtEvent events[SLOTS];
static int codes[64], counts[64], ncodes, calls;

static void tally(aclError code) {
    calls++;
    for (int i = 0; i < ncodes; i++)
        if (codes[i] == code) { counts[i]++; return; }
    if (ncodes < 64) { codes[ncodes] = code; counts[ncodes++] = 1; }
}

static size_t size(void) {  /* sizes around the interesting edges */
    static const size_t sizes[] = {0, 1, 31, 32, 33, 64, 4096, 65536, HOST_BYTES, (size_t)1 << 40, SIZE_MAX};
    return sizes[pick(sizeof sizes / sizeof *sizes)];
}

static void *pointer(void) {  /* live, freed or forged device and host pointers */
    switch (pick(8)) {
    case 0: return NULL;
    case 1: return dev[pick(SLOTS)];                       /* may be NULL or freed */
    case 2: return (char *)dev[pick(SLOTS)] + pick(128);   /* inside or past it, maybe misaligned */
    case 3: return host + pick(64);
    case 4: return pinned[pick(SLOTS)];
    case 5: return (void *)(uintptr_t)(0x200000000000ULL + pick(1u << 30));  /* device range, no allocation */
    case 6: return (void *)(uintptr_t)pick(4096);          /* the NULL page */
    default: return (void *)(uintptr_t)0xdead0000ULL;       /* unmapped host memory */
    }
}

static size_t host_safe(void *p, size_t n) {  /* never let the runtime write past our own host buffer */
    if ((char *)p >= host && (char *)p < host + HOST_BYTES) {
        size_t room = (size_t)(host + HOST_BYTES - (char *)p);
        return n < room ? n : room;
    }
    return n;
}

int main(int argc, char **argv) {
    state = argc > 1 ? strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1 : 1;
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    tally(aclInit(NULL));
    tally(aclrtSetDevice(0));
    for (int i = 0; i < n; i++) {
        int s = (int)pick(SLOTS);
        void *p = pointer(), *q = pointer();
        size_t count = size(), dest_max = pick(2) ? count : size();
        aclrtMemcpyKind kind = (aclrtMemcpyKind)pick(10);
        switch (pick(16)) {
        case 0: tally(aclrtMalloc(pick(8) ? &dev[s] : NULL, size(), (aclrtMemMallocPolicy)pick(9))); break;
        case 1: tally(aclrtFree(pick(4) ? dev[s] : p)); break;  /* double frees included */
        case 2: tally(aclrtMallocHost(pick(8) ? &pinned[s] : NULL, size() % (1 << 22))); break;
        case 3: tally(aclrtFreeHost(pick(4) ? pinned[s] : p)); break;
        case 4:
            dest_max = host_safe(p, dest_max);
            count = dest_max < count ? host_safe(p, count) : count;
            tally(aclrtMemcpy(p, dest_max, q, count, kind));
            break;
        case 5:
            dest_max = host_safe(p, dest_max);
            tally(aclrtMemcpyAsync(p, dest_max, q, host_safe(p, count), kind, streams[pick(SLOTS)]));
            break;
        case 6: tally(aclrtMemset(p, host_safe(p, dest_max), (int32_t)pick(256), host_safe(p, count))); break;
        case 7: tally(aclrtCreateStream(pick(8) ? &streams[s] : NULL)); break;
        case 8: tally(aclrtDestroyStream(streams[s])); break;    /* destroyed twice, default stream */
        case 9: tally(aclrtSynchronizeStream(pick(4) ? streams[s] : (aclrtStream)p)); break;
        case 10: tally(aclrtCreateEvent(pick(8) ? &events[s] : NULL)); break;
        case 11: tally(aclrtRecordEvent(events[s], streams[pick(SLOTS)])); break;
        case 12: tally(aclrtDestroyEvent(events[s])); break;
        case 13: {
            float ms;
            tally(aclrtEventElapsedTime(pick(8) ? &ms : NULL, events[s], events[pick(SLOTS)]));
            break;
        }
        case 14: {
            size_t fr, tot;
            tally(aclrtGetMemInfo((aclrtMemAttr)pick(20), pick(8) ? &fr : NULL, pick(8) ? &tot : NULL));
            break;
        }
        default: {
            aclrtPtrAttributes attrs;
            tally(aclrtPointerGetAttributes(p, pick(8) ? &attrs : NULL));
            break;
        }
        }
        if (pick(64) == 0) tally(aclrtSynchronizeDevice());
        (void)aclGetRecentErrMsg();
    }
    tally(aclrtResetDevice(0));
    tally(aclFinalize());
    printf("calls %d\n", calls);
    for (int i = 0; i < ncodes; i++) printf("code %d %d\n", codes[i], counts[i]);
    return 0;
}
