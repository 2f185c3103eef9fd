// Single operators from C++: aclopSetModelDir + aclopExecuteV2 and an operator handle (aclopCreateHandle,
// aclopExecWithHandle), on models made by `aclsim atc --singleop`. Usage: op MODEL_DIR
#include <cstdio>
#include <vector>

#include "acl/acl.h"

#define CHECK(call)                                                                  \
    do {                                                                             \
        aclError r_ = (call);                                                        \
        if (r_ != ACL_SUCCESS) {                                                     \
            std::printf("FAIL %s -> %d: %s\n", #call, r_, aclGetRecentErrMsg());     \
            return 1;                                                                \
        }                                                                            \
    } while (0)

struct Tensor {
    aclTensorDesc *desc;
    aclDataBuffer *buf;
    void *dev;
    explicit Tensor(const std::vector<int32_t> *data) {
        int64_t dims[2] = {8, 16};
        desc = aclCreateTensorDesc(ACL_INT32, 2, dims, ACL_FORMAT_ND);
        aclrtMalloc(&dev, aclGetTensorDescSize(desc), ACL_MEM_MALLOC_HUGE_FIRST);
        if (data) aclrtMemcpy(dev, 512, data->data(), 512, ACL_MEMCPY_HOST_TO_DEVICE);
        buf = aclCreateDataBuffer(dev, aclGetTensorDescSize(desc));
    }
};

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    std::vector<int32_t> a(128), b(128), y(128);
    for (int i = 0; i < 128; i++) { a[i] = i - 50; b[i] = 3 * i; }
    Tensor x1(&a), x2(&b), out(nullptr);
    aclTensorDesc *in_desc[] = {x1.desc, x2.desc}, *out_desc[] = {out.desc};
    aclDataBuffer *inputs[] = {x1.buf, x2.buf}, *outputs[] = {out.buf};
    aclopAttr *attr = aclopCreateAttr();
    std::printf("before_model_dir %d\n", aclopExecuteV2("Add", 2, in_desc, inputs, 1, out_desc, outputs, attr, stream));
    CHECK(aclopSetModelDir(argv[1]));
    CHECK(aclopExecuteV2("Add", 2, in_desc, inputs, 1, out_desc, outputs, attr, stream));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(y.data(), 512, out.dev, 512, ACL_MEMCPY_DEVICE_TO_HOST));
    int wrong = 0;
    for (int i = 0; i < 128; i++) wrong += y[i] != a[i] + b[i];
    std::printf("execute_v2_wrong %d\nshape %zu %lld\n", wrong, aclGetTensorDescNumDims(out.desc),
                (long long)aclGetTensorDescDim(out.desc, 1));
    aclopHandle *handle = nullptr;
    CHECK(aclopCreateHandle("Add", 2, in_desc, 1, out_desc, attr, &handle));
    CHECK(aclrtMemset(out.dev, 512, 0, 512));
    CHECK(aclopExecWithHandle(handle, 2, inputs, 1, outputs, stream));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(y.data(), 512, out.dev, 512, ACL_MEMCPY_DEVICE_TO_HOST));
    wrong = 0;
    for (int i = 0; i < 128; i++) wrong += y[i] != a[i] + b[i];
    std::printf("handle_wrong %d\n", wrong);
    aclopDestroyHandle(handle);
    aclopDestroyAttr(attr);
    for (Tensor *t : {&x1, &x2, &out}) {
        aclDestroyDataBuffer(t->buf);
        aclDestroyTensorDesc(t->desc);
        aclrtFree(t->dev);
    }
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
