// DVPP from C++: a JPEG decoded to NV12 (acldvppJpegDecodeAsync), then resized (acldvppVpcResizeAsync).
// Usage: dvpp IMAGE.jpg OUT_W OUT_H OUT.yuv -> prints the facts the decoder reports; writes the resized NV12.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

#define CHECK(call)                                                                  \
    do {                                                                             \
        aclError r_ = (call);                                                        \
        if (r_ != ACL_SUCCESS) {                                                     \
            std::printf("FAIL %s -> %d: %s\n", #call, r_, aclGetRecentErrMsg());     \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main(int argc, char **argv) {
    if (argc < 5) return 2;
    std::ifstream f(argv[1], std::ios::binary);
    std::vector<char> jpeg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    uint32_t ow = std::atoi(argv[2]), oh = std::atoi(argv[3]);
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    uint32_t w = 0, h = 0, dec_size = 0;
    int32_t comps = 0;
    CHECK(acldvppJpegGetImageInfo(jpeg.data(), jpeg.size(), &w, &h, &comps));
    CHECK(acldvppJpegPredictDecSize(jpeg.data(), jpeg.size(), PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dec_size));
    std::printf("info %u %u %d\npredicted %u\n", w, h, comps, dec_size);
    acldvppChannelDesc *chan = acldvppCreateChannelDesc();
    CHECK(acldvppCreateChannel(chan));
    void *src = nullptr, *dec = nullptr, *out = nullptr;
    CHECK(acldvppMalloc(&src, jpeg.size()));
    CHECK(aclrtMemcpy(src, jpeg.size(), jpeg.data(), jpeg.size(), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(acldvppMalloc(&dec, dec_size));
    acldvppPicDesc *dec_desc = acldvppCreatePicDesc();
    CHECK(acldvppSetPicDescData(dec_desc, dec));
    CHECK(acldvppSetPicDescSize(dec_desc, dec_size));
    CHECK(acldvppSetPicDescFormat(dec_desc, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    CHECK(acldvppJpegDecodeAsync(chan, src, jpeg.size(), dec_desc, stream));
    CHECK(aclrtSynchronizeStream(stream));
    uint32_t ws = acldvppGetPicDescWidthStride(dec_desc), hs = acldvppGetPicDescHeightStride(dec_desc);
    std::printf("decoded %u %u %u %u\n", acldvppGetPicDescWidth(dec_desc), acldvppGetPicDescHeight(dec_desc), ws, hs);

    uint32_t ows = (ow + 15) / 16 * 16, ohs = (oh + 1) / 2 * 2, out_size = ows * ohs * 3 / 2;
    CHECK(acldvppMalloc(&out, out_size));
    acldvppPicDesc *out_desc = acldvppCreatePicDesc();
    CHECK(acldvppSetPicDescData(out_desc, out));
    CHECK(acldvppSetPicDescFormat(out_desc, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
    CHECK(acldvppSetPicDescWidth(out_desc, ow));
    CHECK(acldvppSetPicDescHeight(out_desc, oh));
    CHECK(acldvppSetPicDescWidthStride(out_desc, ows));
    CHECK(acldvppSetPicDescHeightStride(out_desc, ohs));
    CHECK(acldvppSetPicDescSize(out_desc, out_size));
    acldvppPicDesc *in_desc = dec_desc;  // the decoder filled in width, height and strides
    acldvppResizeConfig *resize = acldvppCreateResizeConfig();
    CHECK(acldvppVpcResizeAsync(chan, in_desc, out_desc, resize, stream));
    CHECK(aclrtSynchronizeStream(stream));
    std::vector<char> host(out_size);
    CHECK(aclrtMemcpy(host.data(), out_size, out, out_size, ACL_MEMCPY_DEVICE_TO_HOST));
    std::ofstream(argv[4], std::ios::binary).write(host.data(), out_size);
    std::printf("resized %u %u %u %u\n", ow, oh, ows, ohs);
    CHECK(acldvppDestroyResizeConfig(resize));
    CHECK(acldvppDestroyPicDesc(out_desc));
    CHECK(acldvppDestroyPicDesc(dec_desc));
    CHECK(acldvppFree(out));
    CHECK(acldvppFree(dec));
    CHECK(acldvppFree(src));
    CHECK(acldvppDestroyChannel(chan));
    CHECK(acldvppDestroyChannelDesc(chan));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
