// aclblas from C++ (acl/ops/acl_cblas.h): GemmEx on float16 in, float32 out, and Hgemv, against a loop on the
// host; and the float16 conversions of acl_base.h. Prints one "name value" line per result.
#include <cmath>
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "acl/ops/acl_cblas.h"

static void *to_device(const void *host, size_t size)
{
    void *dev = nullptr;
    aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE);
    return dev;
}

int main()
{
    printf("half_of_2_5 %#x\n", aclFloatToFloat16(2.5f));
    printf("float_of_0x3c00 %g\n", aclFloat16ToFloat(0x3c00));
    printf("round_trip_0_1 %.6f\n", aclFloat16ToFloat(aclFloatToFloat16(0.1f)));
    printf("overflow_is_inf %d\n", (int)std::isinf(aclFloat16ToFloat(aclFloatToFloat16(1e6f))));

    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    const int m = 4, n = 3, k = 5;
    std::vector<aclFloat16> a(m * k), b(k * n);
    std::vector<float> c(m * n, 1.0f), expect(m * n);
    for (int i = 0; i < m * k; i++) a[i] = aclFloatToFloat16(0.25f * (i % 7) - 0.5f);
    for (int i = 0; i < k * n; i++) b[i] = aclFloatToFloat16(0.5f * (i % 5) - 1.0f);
    const float alpha = 2.0f, beta = 0.5f;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int p = 0; p < k; p++) s += aclFloat16ToFloat(a[i * k + p]) * aclFloat16ToFloat(b[p * n + j]);
            expect[i * n + j] = alpha * s + beta * c[i * n + j];
        }
    void *da = to_device(a.data(), a.size() * 2), *db = to_device(b.data(), b.size() * 2);
    void *dc = to_device(c.data(), c.size() * 4);
    void *dalpha = to_device(&alpha, 4), *dbeta = to_device(&beta, 4);
    aclError ret = aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, m, n, k, dalpha, da, -1, ACL_FLOAT16, db, -1,
                                 ACL_FLOAT16, dbeta, dc, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, stream);
    printf("gemm_ex %d\n", ret);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(c.data(), c.size() * 4, dc, c.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    float worst = 0;
    for (int i = 0; i < m * n; i++) worst = std::fmax(worst, std::fabs(c[i] - expect[i]));
    printf("gemm_ex_max_error %g\n", worst);
    printf("nz_refused %d\n", aclblasGemmEx(ACL_TRANS_NZ, ACL_TRANS_N, ACL_TRANS_N, m, n, k, dalpha, da, -1,
                                            ACL_FLOAT16, db, -1, ACL_FLOAT16, dbeta, dc, -1, ACL_FLOAT,
                                            ACL_COMPUTE_HIGH_PRECISION, stream));
    aclopHandle *handle = nullptr;
    printf("handle_not_emulated %d\n", aclblasCreateHandleForHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, m, n, k,
                                                                   ACL_COMPUTE_HIGH_PRECISION, &handle));
    for (void *p : {da, db, dc, dalpha, dbeta}) aclrtFree(p);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
