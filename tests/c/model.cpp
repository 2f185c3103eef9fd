// An .om model (made by `aclsim atc`) loaded and run from C++: descriptions, datasets, execute.
// Usage: model MODEL.om INPUT.bin -> prints the model's shape facts and its first output's values.
#include <cstdio>
#include <fstream>
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

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    uint32_t id = 0;
    size_t work = 0, weight = 0;
    CHECK(aclmdlQuerySize(argv[1], &work, &weight));
    CHECK(aclmdlLoadFromFile(argv[1], &id));
    aclmdlDesc *desc = aclmdlCreateDesc();
    CHECK(aclmdlGetDesc(desc, id));
    size_t inputs = aclmdlGetNumInputs(desc), outputs = aclmdlGetNumOutputs(desc);
    aclmdlIODims dims;
    CHECK(aclmdlGetInputDims(desc, 0, &dims));
    std::printf("inputs %zu\noutputs %zu\ninput_name %s\ninput_dims", inputs, outputs, dims.name);
    for (size_t i = 0; i < dims.dimCount; i++) std::printf(" %lld", (long long)dims.dims[i]);
    std::printf("\ninput_type %d\noutput_name %s\n", aclmdlGetInputDataType(desc, 0), aclmdlGetOutputNameByIndex(desc, 0));

    size_t in_size = aclmdlGetInputSizeByIndex(desc, 0), out_size = aclmdlGetOutputSizeByIndex(desc, 0);
    std::vector<char> host(in_size);
    std::ifstream(argv[2], std::ios::binary).read(host.data(), in_size);
    void *din = nullptr, *dout = nullptr;
    CHECK(aclrtMalloc(&din, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dout, out_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(din, in_size, host.data(), in_size, ACL_MEMCPY_HOST_TO_DEVICE));
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    aclDataBuffer *bin = aclCreateDataBuffer(din, in_size), *bout = aclCreateDataBuffer(dout, out_size);
    CHECK(aclmdlAddDatasetBuffer(in, bin));
    CHECK(aclmdlAddDatasetBuffer(out, bout));
    CHECK(aclmdlExecute(id, in, out));
    aclDataBuffer *got = aclmdlGetDatasetBuffer(out, 0);
    std::printf("buffers %zu\nsame_buffer %d\nbuffer_size %zu\n", aclmdlGetDatasetNumBuffers(out), got == bout,
                aclGetDataBufferSizeV2(got));
    std::vector<float> result(out_size / sizeof(float));
    CHECK(aclrtMemcpy(result.data(), out_size, aclGetDataBufferAddr(got), out_size, ACL_MEMCPY_DEVICE_TO_HOST));
    std::printf("output");
    for (float v : result) std::printf(" %.6g", v);
    std::printf("\n");
    CHECK(aclDestroyDataBuffer(bin));
    CHECK(aclDestroyDataBuffer(bout));
    CHECK(aclmdlDestroyDataset(in));
    CHECK(aclmdlDestroyDataset(out));
    CHECK(aclmdlDestroyDesc(desc));
    CHECK(aclmdlUnload(id));
    CHECK(aclrtFree(din));
    CHECK(aclrtFree(dout));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
