// Every copy kind, streams and events, callbacks and per-thread contexts, from C++.
// Prints one "name value" line per check; tests/test_c_face.py reads them.
#include <pthread.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"

static int failures = 0;
#define EXPECT_OK(call)                                                                              \
    do {                                                                                             \
        aclError r_ = (call);                                                                        \
        if (r_ != ACL_SUCCESS) {                                                                     \
            std::printf("FAIL %s -> %d: %s\n", #call, r_, aclGetRecentErrMsg());                    \
            failures++;                                                                              \
        }                                                                                            \
    } while (0)

static void on_done(void *user) { ++*static_cast<int *>(user); }

struct ReportThread {
    volatile bool stop = false;
    static void *run(void *self) {
        auto *t = static_cast<ReportThread *>(self);
        while (!t->stop) aclrtProcessReport(10);
        return nullptr;
    }
};

struct Worker {
    aclrtContext ctx;
    int id, errors = 0;
    static void *run(void *self) {  // each thread: its own buffers, many calls, all checked
        auto *w = static_cast<Worker *>(self);
        aclrtSetCurrentContext(w->ctx);
        std::vector<int> in(1024), out(1024);
        for (int round = 0; round < 100; round++) {
            for (int i = 0; i < 1024; i++) in[i] = w->id * 100000 + round * 1000 + i;
            void *d = nullptr;
            if (aclrtMalloc(&d, sizeof(int) * 1024, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
                aclrtMemcpy(d, 4096, in.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS ||
                aclrtMemcpy(out.data(), 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS ||
                aclrtFree(d) != ACL_SUCCESS || in != out)
                w->errors++;
        }
        return nullptr;
    }
};

static void *thread_context(void *arg) {
    aclrtContext ctx = *static_cast<aclrtContext *>(arg), mine = nullptr;
    aclrtContext before = nullptr;
    aclError r0 = aclrtGetCurrentContext(&before);  // a new thread has no current context
    aclrtSetCurrentContext(ctx);
    aclrtGetCurrentContext(&mine);
    std::printf("thread_no_context %d\nthread_context_same %d\n", r0 != ACL_SUCCESS, mine == ctx);
    void *p = nullptr;
    std::printf("thread_malloc %d\n", aclrtMalloc(&p, 256, ACL_MEM_MALLOC_NORMAL_ONLY));
    aclrtFree(p);
    return nullptr;
}

int main() {
    const size_t n = 4096;
    EXPECT_OK(aclInit(nullptr));
    EXPECT_OK(aclrtSetDevice(0));
    aclrtContext ctx;
    EXPECT_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream s1, s2;
    EXPECT_OK(aclrtCreateStream(&s1));
    EXPECT_OK(aclrtCreateStream(&s2));
    std::vector<unsigned char> src(n), dst(n);
    for (size_t i = 0; i < n; i++) src[i] = static_cast<unsigned char>(i * 7);
    void *d1, *d2, *pinned;
    EXPECT_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtMalloc(&d2, n, ACL_MEM_MALLOC_NORMAL_ONLY));
    EXPECT_OK(aclrtMallocHost(&pinned, n));

    // every synchronous kind
    EXPECT_OK(aclrtMemcpy(pinned, n, src.data(), n, ACL_MEMCPY_HOST_TO_HOST));
    EXPECT_OK(aclrtMemcpy(d1, n, pinned, n, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtMemcpy(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
    EXPECT_OK(aclrtMemcpy(dst.data(), n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
    std::printf("sync_round_trip %d\n", dst == src);
    std::fill(dst.begin(), dst.end(), 0);
    EXPECT_OK(aclrtMemcpy(dst.data(), n, d2, n, ACL_MEMCPY_DEFAULT));
    std::printf("default_kind %d\n", dst == src);

    // memset and 2-D copies
    EXPECT_OK(aclrtMemset(d2, n, 0x5A, n / 2));
    EXPECT_OK(aclrtMemcpy(dst.data(), n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
    std::printf("memset %d\n", dst[0] == 0x5A && dst[n / 2 - 1] == 0x5A && dst[n / 2] == src[n / 2]);
    EXPECT_OK(aclrtMemcpy2d(d2, 64, src.data(), 32, 32, 16, ACL_MEMCPY_HOST_TO_DEVICE));  // 16 rows of 32 bytes
    EXPECT_OK(aclrtMemcpy(dst.data(), n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
    std::printf("memcpy2d %d\n", std::memcmp(dst.data() + 64, src.data() + 32, 32) == 0);

    // asynchronous copies ordered by events across two streams
    aclrtEvent start, copied, end;
    EXPECT_OK(aclrtCreateEvent(&start));
    EXPECT_OK(aclrtCreateEventWithFlag(&copied, ACL_EVENT_SYNC));
    EXPECT_OK(aclrtCreateEvent(&end));
    EXPECT_OK(aclrtRecordEvent(start, s1));
    EXPECT_OK(aclrtMemcpyAsync(d1, n, pinned, n, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    EXPECT_OK(aclrtMemsetAsync(d2, n, 0, n, s1));
    EXPECT_OK(aclrtRecordEvent(copied, s1));
    EXPECT_OK(aclrtStreamWaitEvent(s2, copied));
    EXPECT_OK(aclrtMemcpyAsync(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
    EXPECT_OK(aclrtMemcpyAsync(pinned, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    EXPECT_OK(aclrtRecordEvent(end, s1));
    aclrtStreamStatus before;
    EXPECT_OK(aclrtStreamQuery(s2, &before));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    EXPECT_OK(aclrtSynchronizeEvent(end));
    aclrtEventRecordedStatus status;
    EXPECT_OK(aclrtQueryEventStatus(end, &status));
    float ms = -1;
    EXPECT_OK(aclrtEventElapsedTime(&ms, start, end));
    std::printf("async_round_trip %d\nevent_complete %d\nelapsed_nonnegative %d\n",
                std::memcmp(pinned, src.data(), n) == 0, status == ACL_EVENT_RECORDED_STATUS_COMPLETE, ms >= 0);

    // callbacks: one processed by a report thread, one blocking
    int calls = 0;
    ReportThread rt;
    pthread_t tid;
    pthread_create(&tid, nullptr, ReportThread::run, &rt);
    EXPECT_OK(aclrtSubscribeReport(static_cast<uint64_t>(tid), s1));
    EXPECT_OK(aclrtLaunchCallback(on_done, &calls, ACL_CALLBACK_BLOCK, s1));
    EXPECT_OK(aclrtLaunchCallback(on_done, &calls, ACL_CALLBACK_NO_BLOCK, s1));
    EXPECT_OK(aclrtSynchronizeStream(s1));  // waits for the blocking one; the other runs when the thread gets to it
    for (int i = 0; i < 2000 && calls < 2; i++) usleep(1000);
    EXPECT_OK(aclrtUnSubscribeReport(static_cast<uint64_t>(tid), s1));
    rt.stop = true;
    pthread_join(tid, nullptr);
    std::printf("callbacks %d\n", calls);

    // per-thread current context
    pthread_t other;
    pthread_create(&other, nullptr, thread_context, &ctx);
    pthread_join(other, nullptr);

    // four threads calling at once
    Worker workers[4];
    pthread_t wt[4];
    for (int i = 0; i < 4; i++) {
        workers[i].ctx = ctx;
        workers[i].id = i;
        pthread_create(&wt[i], nullptr, Worker::run, &workers[i]);
    }
    int worker_errors = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(wt[i], nullptr);
        worker_errors += workers[i].errors;
    }
    std::printf("worker_errors %d\n", worker_errors);

    // device queries
    uint32_t count = 0;
    int32_t dev = -1;
    aclrtRunMode mode;
    EXPECT_OK(aclrtGetDeviceCount(&count));
    EXPECT_OK(aclrtGetDevice(&dev));
    EXPECT_OK(aclrtGetRunMode(&mode));
    size_t free_b = 0, total_b = 0;
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total_b));
    int32_t major = 0, minor = 0, patch = 0;
    EXPECT_OK(aclrtGetVersion(&major, &minor, &patch));
    aclrtPtrAttributes attrs;
    std::memset(&attrs, 0xff, sizeof attrs);
    EXPECT_OK(aclrtPointerGetAttributes(static_cast<char *>(d1) + 8, &attrs));
    std::printf("device_count %u\ndevice %d\nrun_mode %d\nmem_total %zu\nmem_free_le_total %d\nsoc %s\n"
                "ptr_location %d\n", count, dev, mode, total_b, free_b <= total_b, aclrtGetSocName(),
                attrs.location.type);

    EXPECT_OK(aclrtFree(d1));
    EXPECT_OK(aclrtFree(d2));
    EXPECT_OK(aclrtFreeHost(pinned));
    EXPECT_OK(aclrtDestroyEvent(start));
    EXPECT_OK(aclrtDestroyEvent(copied));
    EXPECT_OK(aclrtDestroyEvent(end));
    EXPECT_OK(aclrtDestroyStream(s1));
    EXPECT_OK(aclrtDestroyStream(s2));
    EXPECT_OK(aclrtDestroyContext(ctx));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    std::printf("failures %d\n", failures);
    return failures != 0;
}
