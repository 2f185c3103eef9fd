/* aclsim: CANN's tiling/platform/platform_ascendc.h (host side): the chip's cores and memory sizes, from
 * aclsim's chip profiles (`aclsim info` lists them; `aclsim run --soc NAME` chooses the emulated one). */
#ifndef ACLSIM_PLATFORM_ASCENDC_H
#define ACLSIM_PLATFORM_ASCENDC_H

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "aclsim/kernel_abi.h"

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion {
    ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, ASCEND950, ASCEND910_55, ASCEND910_95 = ASCEND950,
    RESERVED_VERSION = 99999
};
enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

class PlatformAscendC {
public:
    explicit PlatformAscendC(const aclsim_soc_info &info) : info_(info) {}
    uint32_t GetCoreNum(void) const { return info_.separated ? info_.aic : info_.aic; }
    uint32_t GetCoreNumAic(void) const { return info_.aic; }
    uint32_t GetCoreNumAiv(void) const { return info_.aiv; }
    uint32_t GetCoreNumVector(void) const { return info_.separated ? 0 : info_.aiv; }
    uint32_t CalcTschBlockDim(uint32_t slices, uint32_t aic, uint32_t aiv) const { return CalcTschNumBlocks(slices, aic, aiv); }
    uint32_t CalcTschNumBlocks(uint32_t slices, uint32_t aic, uint32_t aiv) const {
        if (aic == 0 || aiv == 0 || !info_.separated) return slices;
        uint32_t ratio = aiv / aic ? aiv / aic : 1;  /* a mix kernel's block is one AIC and its AIVs */
        return (slices + ratio - 1) / ratio;
    }
    void GetCoreMemSize(const CoreMemType type, uint64_t &size) const {
        switch (type) {
        case CoreMemType::L0_A: size = info_.l0a; break;
        case CoreMemType::L0_B: size = info_.l0b; break;
        case CoreMemType::L0_C: size = info_.l0c; break;
        case CoreMemType::L1: size = info_.l1; break;
        case CoreMemType::L2: size = info_.l2; break;
        case CoreMemType::UB: size = info_.ub; break;
        case CoreMemType::HBM: size = info_.hbm; break;
        case CoreMemType::BT: size = info_.bt; break;
        default: size = 0;
        }
    }
    void GetCoreMemBw(const CoreMemType, uint64_t &bw) const { bw = 0; }
    SocVersion GetSocVersion(void) const {
        switch (info_.arch) {
        case 2201: return SocVersion::ASCEND910B;
        case 2002: return SocVersion::ASCEND310P;
        case 3002: return SocVersion::ASCEND310B;
        case 3510: return SocVersion::ASCEND950;
        default: return SocVersion::RESERVED_VERSION;
        }
    }
    uint32_t GetLibApiWorkSpaceSize(void) const { return 16 * 1024 * 1024; }
    uint64_t GetResCubeGroupWorkSpaceSize(void) const { return 0; }
    const char *GetSocName(void) const { return info_.name; }

private:
    aclsim_soc_info info_;
};

class PlatformAscendCManager {
public:
    /* The platform of the current device's chip (or the emulated default one), or of the named SoC. */
    static PlatformAscendC *GetInstance() { return GetInstance(nullptr); }
    static PlatformAscendC *GetInstance(const char *customSocVersion) {
        static std::mutex lock;
        static std::map<std::string, PlatformAscendC *> made;
        std::lock_guard<std::mutex> hold(lock);
        aclsim_soc_info info;
        if (aclsim_soc(customSocVersion, &info) != 0) return nullptr;
        PlatformAscendC *&p = made[info.name];
        if (!p) p = new PlatformAscendC(info);
        return p;
    }
};
}  // namespace platform_ascendc
#endif
