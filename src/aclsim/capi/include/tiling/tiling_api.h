/* aclsim: CANN's tiling/tiling_api.h (host side): the Matmul tiling API, matmul_tiling::MatmulApiTiling,
 * MultiCoreMatmulTiling and BatchMatmulTiling, filling AscendC::tiling::TCubeTiling.
 *
 * Each object stands for aclsim's tiling of the same name (aclsim.asc.lib.host, the one pyasc's face uses): it
 * chooses the split and the base blocks from the chip profile of `platform`. The calls return 0 (GetTiling -1
 * when no tiling fits, with a warning saying why), as CANN's do. */
#ifndef ACLSIM_TILING_API_H
#define ACLSIM_TILING_API_H

#include <cstdint>
#include <initializer_list>
#include <iostream>

#include "ascendc/abi.h"
#include "kernel_tiling/kernel_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace matmul_tiling {

enum class DataType : int32_t {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_BF16 = 27,
    DT_INT4 = 29,
    DT_BFLOAT16 = 33,
    DT_HIFLOAT8 = 34,
    DT_FLOAT8_E4M3FN = 35,
    DT_FLOAT8_E5M2 = 36,
    DT_MAX = 40,
};

enum class TPosition : int32_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    MAX,
};

enum class CubeFormat : int32_t {
    ND = 0,
    NZ,
    ZN,
    ZZ,
    NN,
    ND_ALIGN,
    SCALAR,
    VECTOR,
    ROW_MAJOR = ND,
    COLUMN_MAJOR = 8,
};

enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };
enum class DequantType : int32_t { SCALAR = 0, TENSOR = 1 };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };

class MatmulApiTilingBase {
public:
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        return (int32_t)call("SetAType", {(int64_t)pos, (int64_t)type, (int64_t)dataType, isTrans});
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        return (int32_t)call("SetBType", {(int64_t)pos, (int64_t)type, (int64_t)dataType, isTrans});
    }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) {
        return (int32_t)call("SetCType", {(int64_t)pos, (int64_t)type, (int64_t)dataType});
    }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
        return (int32_t)call("SetBiasType", {(int64_t)pos, (int64_t)type, (int64_t)dataType});
    }
    int32_t EnableBias(bool isBiasIn = false) { return (int32_t)call("EnableBias", {isBiasIn}); }
    int32_t SetBias(bool isBiasIn = false) { return EnableBias(isBiasIn); }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) { return (int32_t)call("SetShape", {m, n, k}); }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) {
        return (int32_t)call("SetOrgShape", {orgMIn, orgNIn, orgKIn});
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
        return (int32_t)call("SetOrgShape", {orgMIn, orgNIn, orgKaIn, orgKbIn});
    }
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
        return (int32_t)call("SetFixSplit", {baseMIn, baseNIn, baseKIn});
    }
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1) {
        return (int32_t)call("SetBufferSpace", {l1Size, l0CSize, ubSize, btSize});
    }
    int32_t SetTraverse(MatrixTraverse traverse) { return (int32_t)call("SetTraverse", {(int64_t)traverse}); }
    int32_t SetMadType(MatrixMadType madType) { return (int32_t)call("SetMadType", {(int64_t)madType}); }
    int32_t SetDequantType(DequantType dequantType) {
        return (int32_t)call("SetDequantType", {(int64_t)dequantType});
    }
    int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        return (int32_t)call("SetALayout", {b, s, n, g, d});
    }
    int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        return (int32_t)call("SetBLayout", {b, s, n, g, d});
    }
    int32_t SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        return (int32_t)call("SetCLayout", {b, s, n, g, d});
    }
    int32_t SetBatchNum(int32_t batch) { return (int32_t)call("SetBatchNum", {batch}); }
    int32_t SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k) {
        return (int32_t)call("SetBatchInfoForNormal", {batchA, batchB, m, n, k});
    }
    int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool transND2NZ = true, bool transNZ2ND = true) {
        return (int32_t)call("SetDoubleBuffer", {a, b, c, bias, transND2NZ, transNZ2ND});
    }
    int32_t SetSplitRange(int32_t maxBaseM = -1, int32_t maxBaseN = -1, int32_t maxBaseK = -1,
                          int32_t minBaseM = -1, int32_t minBaseN = -1, int32_t minBaseK = -1) {
        return (int32_t)call("SetSplitRange", {maxBaseM, maxBaseN, maxBaseK, minBaseM, minBaseN, minBaseK});
    }
    int32_t SetSparse(bool isSparseIn = false) { return (int32_t)call("SetSparse", {isSparseIn}); }
    int32_t GetBaseM() const { return (int32_t)call("GetBaseM", {}); }
    int32_t GetBaseN() const { return (int32_t)call("GetBaseN", {}); }
    int32_t GetBaseK() const { return (int32_t)call("GetBaseK", {}); }
    /* Fill `tiling`: 0, or -1 when no tiling fits (a warning says why). */
    int64_t GetTiling(AscendC::tiling::TCubeTiling &tiling) {
        return aclsim_asc(ASC_TilingGet, handle_, (uint64_t)(uintptr_t)&tiling, sizeof(tiling) / 4, 0, 0, 0,
                          __builtin_return_address(0));
    }

protected:
    MatmulApiTilingBase(int64_t kind, const platform_ascendc::PlatformAscendC *platform) {
        handle_ = (uint64_t)aclsim_asc(ASC_TilingNew, (uint64_t)kind,
                                       platform ? (uint64_t)(uintptr_t)platform->GetSocName() : 0, 0, 0, 0, 0,
                                       __builtin_return_address(0));
    }
    int64_t call(const char *method, std::initializer_list<int64_t> args) const {
        int64_t a[8] = {0};
        size_t n = 0;
        for (int64_t v : args) a[n++] = v;
        return aclsim_asc(ASC_TilingCall, handle_, (uint64_t)(uintptr_t)method, n, (uint64_t)(uintptr_t)a, 0, 0,
                          __builtin_return_address(0));
    }
    uint64_t handle_ = 0;
};

/* One core's Matmul. */
class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() : MatmulApiTilingBase(0, nullptr) {}
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC &ascendcPlatform)
        : MatmulApiTilingBase(0, &ascendcPlatform) {}
};

/* A Matmul split over several cores. */
class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() : MatmulApiTilingBase(1, nullptr) {}
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC &ascendcPlatform)
        : MatmulApiTilingBase(1, &ascendcPlatform) {}
    int32_t SetDim(int32_t dim) { return (int32_t)call("SetDim", {dim}); }
    int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1) {
        return (int32_t)call("SetSingleShape", {singleMIn, singleNIn, singleKIn});
    }
    int32_t SetSingleRange(int32_t maxM = -1, int32_t maxN = -1, int32_t maxK = -1, int32_t minM = -1,
                           int32_t minN = -1, int32_t minK = -1) {
        return (int32_t)call("SetSingleRange", {maxM, maxN, maxK, minM, minN, minK});
    }
    int32_t SetAlignSplit(int32_t alignM, int32_t alignN, int32_t alignK) {
        return (int32_t)call("SetAlignSplit", {alignM, alignN, alignK});
    }
    void EnableMultiCoreSplitK(bool flag) { call("EnableMultiCoreSplitK", {flag}); }
    int32_t GetSingleShape(int32_t &shapeM, int32_t &shapeN, int32_t &shapeK) {
        int64_t packed = call("GetSingleShape", {});
        shapeM = (int32_t)(packed & 0xFFFFF), shapeN = (int32_t)((packed >> 20) & 0xFFFFF);
        shapeK = (int32_t)((packed >> 40) & 0xFFFFF);
        return 0;
    }
    int32_t GetCoreNum(int32_t &dim, int32_t &mDim, int32_t &nDim) {
        int64_t packed = call("GetCoreNum", {});
        dim = (int32_t)(packed & 0xFFFFF), mDim = (int32_t)((packed >> 20) & 0xFFFFF);
        nDim = (int32_t)((packed >> 40) & 0xFFFFF);
        return 0;
    }

protected:
    MultiCoreMatmulTiling(int64_t kind, const platform_ascendc::PlatformAscendC *platform)
        : MatmulApiTilingBase(kind, platform) {}
};

/* Batched Matmuls. */
class BatchMatmulTiling : public MultiCoreMatmulTiling {
public:
    BatchMatmulTiling() : MultiCoreMatmulTiling(2, nullptr) {}
    explicit BatchMatmulTiling(const platform_ascendc::PlatformAscendC &ascendcPlatform)
        : MultiCoreMatmulTiling(2, &ascendcPlatform) {}
};

}  // namespace matmul_tiling

#endif
