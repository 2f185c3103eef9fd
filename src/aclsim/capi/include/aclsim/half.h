/* aclsim: half and bfloat16 in SIMT kernels (CANN's simt_api/asc_fp16.h and asc_bf16.h names).
 *
 * `half` is IEEE binary16 (the compiler's _Float16), `bfloat16_t` the upper half of a float's bits; both
 * compute through float and round to nearest-even after each operation. Conversions take the rounding mode
 * in their name: _rn (nearest, ties to even), _rz (toward zero), _rd (down), _ru (up), _rna (nearest, ties
 * away), _ro (to odd); _sat variants clamp to the largest finite value instead of overflowing to infinity.
 */
#ifndef ACLSIM_HALF_H
#define ACLSIM_HALF_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "aclsim/simt.h"

using half = _Float16;

struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    constexpr explicit bfloat16_t(uint16_t b, bool) : bits(b) {}
    bfloat16_t(float f) : bits(from(f)) {}
    bfloat16_t(double d) : bfloat16_t((float)d) {}
    bfloat16_t(int i) : bfloat16_t((float)i) {}
    bfloat16_t(half h) : bfloat16_t((float)h) {}
    operator float() const {
        uint32_t u = (uint32_t)bits << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    static uint16_t from(float f) {  /* round to nearest, ties to even */
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40);
        return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    }
    bfloat16_t &operator+=(bfloat16_t o) { return *this = bfloat16_t((float)*this + (float)o); }
    bfloat16_t &operator-=(bfloat16_t o) { return *this = bfloat16_t((float)*this - (float)o); }
    bfloat16_t &operator*=(bfloat16_t o) { return *this = bfloat16_t((float)*this * (float)o); }
    bfloat16_t &operator/=(bfloat16_t o) { return *this = bfloat16_t((float)*this / (float)o); }
};
inline bfloat16_t operator+(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a + (float)b); }
inline bfloat16_t operator-(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a - (float)b); }
inline bfloat16_t operator*(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a * (float)b); }
inline bfloat16_t operator/(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a / (float)b); }
inline bfloat16_t operator-(bfloat16_t a) { return bfloat16_t((uint16_t)(a.bits ^ 0x8000u), true); }
inline bool operator==(bfloat16_t a, bfloat16_t b) { return (float)a == (float)b; }
inline bool operator!=(bfloat16_t a, bfloat16_t b) { return (float)a != (float)b; }
inline bool operator<(bfloat16_t a, bfloat16_t b) { return (float)a < (float)b; }
inline bool operator>(bfloat16_t a, bfloat16_t b) { return (float)a > (float)b; }
inline bool operator<=(bfloat16_t a, bfloat16_t b) { return (float)a <= (float)b; }
inline bool operator>=(bfloat16_t a, bfloat16_t b) { return (float)a >= (float)b; }

/* Pairs: element-wise arithmetic, .x low and .y high. */
#define ACLSIM_PAIR(P, T)                                                                                          \
    struct alignas(2 * sizeof(T)) P {                                                                              \
        T x, y;                                                                                                    \
        P() = default;                                                                                             \
        constexpr P(T a, T b) : x(a), y(b) {}                                                                      \
        P &operator+=(P o) { x = x + o.x; y = y + o.y; return *this; }                                             \
        P &operator-=(P o) { x = x - o.x; y = y - o.y; return *this; }                                             \
        P &operator*=(P o) { x = x * o.x; y = y * o.y; return *this; }                                             \
        P &operator/=(P o) { x = x / o.x; y = y / o.y; return *this; }                                             \
    };                                                                                                             \
    inline P operator+(P a, P b) { return P(a.x + b.x, a.y + b.y); }                                              \
    inline P operator-(P a, P b) { return P(a.x - b.x, a.y - b.y); }                                              \
    inline P operator*(P a, P b) { return P(a.x * b.x, a.y * b.y); }                                              \
    inline P operator/(P a, P b) { return P(a.x / b.x, a.y / b.y); }                                              \
    inline P operator-(P a) { return P(-a.x, -a.y); }                                                              \
    inline bool operator==(P a, P b) { return a.x == b.x && a.y == b.y; }                                          \
    inline bool operator!=(P a, P b) { return !(a == b); }
ACLSIM_PAIR(half2, half)
ACLSIM_PAIR(bfloat162, bfloat16_t)
#undef ACLSIM_PAIR

namespace aclsim {
/* Rounding to a 16-bit float format (half: 5 exponent bits, bfloat16: 8) in any mode, on bit patterns. */
struct fmt16 {
    int man;        /* fraction bits */
    uint16_t nan, maxf;
};
constexpr fmt16 F16{10, 0x7E00, 0x7BFF}, BF16{7, 0x7FC0, 0x7F7F};

inline double value16(uint16_t b, fmt16 f) {
    int ebits = 15 - f.man;
    int bias = (1 << (ebits - 1)) - 1;
    int e = (b >> f.man) & ((1 << ebits) - 1);
    double m = b & ((1 << f.man) - 1);
    double v = e == 0 ? std::ldexp(m, 1 - bias - f.man)
             : e == (1 << ebits) - 1 ? (m ? NAN : INFINITY)
                                     : std::ldexp(m + (1 << f.man), e - bias - f.man);
    return (b & 0x8000) ? -v : v;
}
inline uint16_t nearest16(double v, fmt16 f) {
    if (f.man == 10) {
        half h = (half)(float)v;  /* float is exact for every int and half-way value used here */
        uint16_t b;
        std::memcpy(&b, &h, 2);
        return b;
    }
    return bfloat16_t::from((float)v);
}
inline uint16_t step16(uint16_t b, bool up) {  /* the next representable value up (toward +inf) or down */
    bool neg = b & 0x8000;
    if ((b & 0x7FFF) == 0) return up ? 0x0001 : 0x8001;
    return (up != neg) ? (uint16_t)(b + 1) : (uint16_t)(b - 1);
}
inline uint16_t round16(double v, rounding r, fmt16 f, bool sat = false, bool odd = false) {
    if (std::isnan(v)) return f.nan;
    uint16_t n = nearest16(v, f);
    uint16_t out = n;
    double nv = value16(n, f);
    if (nv != v && (r != RN || odd)) {
        uint16_t lo = nv < v ? n : step16(n, false), hi = nv > v ? n : step16(n, true);
        if (odd) out = (lo & 1) ? lo : hi;
        else if (r == RZ) out = v > 0 ? lo : hi;
        else if (r == RD) out = lo;
        else if (r == RU) out = hi;
        else if (r == RNA) {
            double dl = v - value16(lo, f), dh = value16(hi, f) - v;
            out = dl < dh ? lo : dh < dl ? hi : (v > 0 ? hi : lo);
        }
    }
    if (sat && std::isinf(value16(out, f)) && !std::isinf(v)) out = (uint16_t)(f.maxf | (out & 0x8000));
    return out;
}
inline half to_half(double v, rounding r, bool sat = false, bool odd = false) {
    uint16_t b = round16(v, r, F16, sat, odd);
    half h;
    std::memcpy(&h, &b, 2);
    return h;
}
inline bfloat16_t to_bf16(double v, rounding r, bool sat = false, bool odd = false) {
    return bfloat16_t(round16(v, r, BF16, sat, odd), true);
}
}  // namespace aclsim

/* ------------------------------------------------------------------------------------------ conversions */
#define ACLSIM_CONV16(s, mode)                                                                                      \
    inline half __float2half_##s(const float x) { return aclsim::to_half(x, aclsim::mode); }                         \
    inline half __float2half_##s##_sat(const float x) { return aclsim::to_half(x, aclsim::mode, true); }             \
    inline bfloat16_t __float2bfloat16_##s(const float x) { return aclsim::to_bf16(x, aclsim::mode); }               \
    inline bfloat16_t __float2bfloat16_##s##_sat(const float x) { return aclsim::to_bf16(x, aclsim::mode, true); }   \
    inline half __int2half_##s(const int x) { return aclsim::to_half(x, aclsim::mode); }                             \
    inline half __int2half_##s##_sat(const int x) { return aclsim::to_half(x, aclsim::mode, true); }                 \
    inline half __uint2half_##s(const unsigned int x) { return aclsim::to_half(x, aclsim::mode); }                   \
    inline half __uint2half_##s##_sat(const unsigned int x) { return aclsim::to_half(x, aclsim::mode, true); }       \
    inline half __ll2half_##s(const long long x) { return aclsim::to_half((double)x, aclsim::mode); }                \
    inline half __ull2half_##s(const unsigned long long x) { return aclsim::to_half((double)x, aclsim::mode); }      \
    inline bfloat16_t __int2bfloat16_##s(const int x) { return aclsim::to_bf16(x, aclsim::mode); }                   \
    inline bfloat16_t __uint2bfloat16_##s(const unsigned int x) { return aclsim::to_bf16(x, aclsim::mode); }         \
    inline bfloat16_t __ll2bfloat16_##s(const long long x) { return aclsim::to_bf16((double)x, aclsim::mode); }      \
    inline bfloat16_t __ull2bfloat16_##s(const unsigned long long x) { return aclsim::to_bf16((double)x, aclsim::mode); } \
    inline bfloat16_t __half2bfloat16_##s(const half x) { return aclsim::to_bf16((float)x, aclsim::mode); }          \
    inline half __bfloat162half_##s(const bfloat16_t x) { return aclsim::to_half((float)x, aclsim::mode); }          \
    inline half __bfloat162half_##s##_sat(const bfloat16_t x) { return aclsim::to_half((float)x, aclsim::mode, true); } \
    inline half __half2half_##s(const half x) { return (half)(float)aclsim::round_to_integral((float)x, aclsim::mode); } \
    inline bfloat16_t __bfloat162bfloat16_##s(const bfloat16_t x) {                                                 \
        return bfloat16_t((float)aclsim::round_to_integral((float)x, aclsim::mode));                                 \
    }                                                                                                               \
    inline int __half2int_##s(const half x) { return aclsim::to_int<int>((float)x, aclsim::mode); }                  \
    inline unsigned int __half2uint_##s(const half x) { return aclsim::to_int<unsigned int>((float)x, aclsim::mode); } \
    inline long long __half2ll_##s(const half x) { return aclsim::to_int<long long>((float)x, aclsim::mode); }       \
    inline unsigned long long __half2ull_##s(const half x) {                                                        \
        return aclsim::to_int<unsigned long long>((float)x, aclsim::mode);                                          \
    }                                                                                                               \
    inline int __bfloat162int_##s(const bfloat16_t x) { return aclsim::to_int<int>((float)x, aclsim::mode); }        \
    inline unsigned int __bfloat162uint_##s(const bfloat16_t x) {                                                   \
        return aclsim::to_int<unsigned int>((float)x, aclsim::mode);                                                \
    }                                                                                                               \
    inline long long __bfloat162ll_##s(const bfloat16_t x) { return aclsim::to_int<long long>((float)x, aclsim::mode); } \
    inline unsigned long long __bfloat162ull_##s(const bfloat16_t x) {                                              \
        return aclsim::to_int<unsigned long long>((float)x, aclsim::mode);                                          \
    }                                                                                                               \
    inline half2 __float22half2_##s(const float2 v) {                                                               \
        return half2(aclsim::to_half(v.x, aclsim::mode), aclsim::to_half(v.y, aclsim::mode));                        \
    }                                                                                                               \
    inline half2 __float22half2_##s##_sat(const float2 v) {                                                         \
        return half2(aclsim::to_half(v.x, aclsim::mode, true), aclsim::to_half(v.y, aclsim::mode, true));            \
    }                                                                                                               \
    inline bfloat162 __float22bfloat162_##s(const float2 v) {                                                       \
        return bfloat162(aclsim::to_bf16(v.x, aclsim::mode), aclsim::to_bf16(v.y, aclsim::mode));                    \
    }                                                                                                               \
    inline bfloat162 __float22bfloat162_##s##_sat(const float2 v) {                                                 \
        return bfloat162(aclsim::to_bf16(v.x, aclsim::mode, true), aclsim::to_bf16(v.y, aclsim::mode, true));        \
    }
ACLSIM_CONV16(rn, RN)
ACLSIM_CONV16(rz, RZ)
ACLSIM_CONV16(rd, RD)
ACLSIM_CONV16(ru, RU)
ACLSIM_CONV16(rna, RNA)
#undef ACLSIM_CONV16
inline half __float2half_ro(const float x) { return aclsim::to_half(x, aclsim::RN, false, true); }
inline half __float2half_ro_sat(const float x) { return aclsim::to_half(x, aclsim::RN, true, true); }
inline half2 __float22half2_ro(const float2 v) {
    return half2(aclsim::to_half(v.x, aclsim::RN, false, true), aclsim::to_half(v.y, aclsim::RN, false, true));
}
inline half2 __float22half2_ro_sat(const float2 v) {
    return half2(aclsim::to_half(v.x, aclsim::RN, true, true), aclsim::to_half(v.y, aclsim::RN, true, true));
}
inline half __float2half(const float x) { return __float2half_rn(x); }
inline bfloat16_t __float2bfloat16(const float x) { return __float2bfloat16_rn(x); }
inline float __half2float(const half x) { return (float)x; }
inline float __bfloat162float(const bfloat16_t x) { return (float)x; }
inline half __ushort_as_half(const unsigned short x) { half h; std::memcpy(&h, &x, 2); return h; }
inline bfloat16_t __ushort_as_bfloat16(const unsigned short x) { return bfloat16_t(x, true); }
inline unsigned short __half_as_ushort(const half x) { unsigned short u; std::memcpy(&u, &x, 2); return u; }
inline unsigned short __bfloat16_as_ushort(const bfloat16_t x) { return x.bits; }

/* ------------------------------------------------------------------------------------------------- pairs */
#define ACLSIM_PAIR_FUNCS(P, T, tname)                                                                              \
    inline P make_##P(T x, T y) { return P(x, y); }                                                                 \
    inline P __halves2##P(T lo, T hi) { return P(lo, hi); }                                                         \
    inline P __##tname##2##P(T a) { return P(a, a); }                                                               \
    inline T __low2##tname(P a) { return a.x; }                                                                     \
    inline T __high2##tname(P a) { return a.y; }                                                                    \
    inline P __low2##P(P a) { return P(a.x, a.x); }                                                                 \
    inline P __high2##P(P a) { return P(a.y, a.y); }                                                                \
    inline P __lows2##P(P a, P b) { return P(a.x, b.x); }                                                           \
    inline P __highs2##P(P a, P b) { return P(a.y, b.y); }                                                          \
    inline P __lowhigh2highlow(P a) { return P(a.y, a.x); }                                                         \
    inline float2 __##P##2float2(P a) { return float2{(float)a.x, (float)a.y}; }                                    \
    inline float __low2float(P a) { return (float)a.x; }                                                            \
    inline float __high2float(P a) { return (float)a.y; }
ACLSIM_PAIR_FUNCS(half2, half, half)
ACLSIM_PAIR_FUNCS(bfloat162, bfloat16_t, bfloat16)
#undef ACLSIM_PAIR_FUNCS
inline half2 __floats2half2_rn(float a, float b) { return half2(__float2half_rn(a), __float2half_rn(b)); }
inline bfloat162 __floats2bfloat162_rn(float a, float b) { return bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b)); }
inline bfloat162 __float2bfloat162_rn(float a) { return bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(a)); }
inline half2 __float2half2_rn(float a) { return half2(__float2half_rn(a), __float2half_rn(a)); }

/* ---------------------------------------------------------------------------------------------- math */
#define ACLSIM_MATH16(T, h)                                                                                         \
    inline bool __hisnan(T x) { return std::isnan((float)x); }                                                      \
    inline bool __hisinf(T x) { return std::isinf((float)x); }                                                      \
    inline T __habs(T x) { return T(std::fabs((float)x)); }                                                         \
    inline T __hfma(T x, T y, T z) { return T((float)std::fma((double)(float)x, (double)(float)y, (double)(float)z)); } \
    inline T __hmax(T x, T y) { return (float)x < (float)y ? y : x; }                                                \
    inline T __hmin(T x, T y) { return (float)y < (float)x ? y : x; }                                                \
    inline T h##ceil(T x) { return T(std::ceil((float)x)); }                                                        \
    inline T h##floor(T x) { return T(std::floor((float)x)); }                                                      \
    inline T h##trunc(T x) { return T(std::trunc((float)x)); }                                                      \
    inline T h##rint(T x) { return T(std::nearbyint((float)x)); }                                                   \
    inline T h##cos(T x) { return T(std::cos((float)x)); }                                                          \
    inline T h##sin(T x) { return T(std::sin((float)x)); }                                                          \
    inline T h##tanh(T x) { return T(std::tanh((float)x)); }                                                        \
    inline T h##exp(T x) { return T(std::exp((float)x)); }                                                          \
    inline T h##exp2(T x) { return T(std::exp2((float)x)); }                                                        \
    inline T h##exp10(T x) { return T(std::pow(10.0f, (float)x)); }                                                 \
    inline T h##log(T x) { return T(std::log((float)x)); }                                                          \
    inline T h##log2(T x) { return T(std::log2((float)x)); }                                                        \
    inline T h##log10(T x) { return T(std::log10((float)x)); }                                                      \
    inline T h##rcp(T x) { return T(1.0f / (float)x); }                                                             \
    inline T h##rsqrt(T x) { return T(1.0f / std::sqrt((float)x)); }                                                \
    inline T h##sqrt(T x) { return T(std::sqrt((float)x)); }
ACLSIM_MATH16(half, h)
ACLSIM_MATH16(bfloat16_t, h)
#undef ACLSIM_MATH16
#define ACLSIM_MATH2(P, T, f)                                                                                       \
    inline P h2##f(P a) { return P(h##f(a.x), h##f(a.y)); }
#define ACLSIM_MATH2_ALL(P, T)                                                                                      \
    ACLSIM_MATH2(P, T, ceil) ACLSIM_MATH2(P, T, floor) ACLSIM_MATH2(P, T, trunc) ACLSIM_MATH2(P, T, rint)             \
    ACLSIM_MATH2(P, T, cos) ACLSIM_MATH2(P, T, sin) ACLSIM_MATH2(P, T, tanh) ACLSIM_MATH2(P, T, exp)                 \
    ACLSIM_MATH2(P, T, exp2) ACLSIM_MATH2(P, T, exp10) ACLSIM_MATH2(P, T, log) ACLSIM_MATH2(P, T, log2)              \
    ACLSIM_MATH2(P, T, log10) ACLSIM_MATH2(P, T, rcp) ACLSIM_MATH2(P, T, rsqrt) ACLSIM_MATH2(P, T, sqrt)             \
    inline P __habs(P a) { return P(__habs(a.x), __habs(a.y)); }                                                    \
    inline P __hfma(P a, P b, P c) { return P(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }                        \
    inline P __hmax(P a, P b) { return P(__hmax(a.x, b.x), __hmax(a.y, b.y)); }                                      \
    inline P __hmin(P a, P b) { return P(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
ACLSIM_MATH2_ALL(half2, half)
ACLSIM_MATH2_ALL(bfloat162, bfloat16_t)
#undef ACLSIM_MATH2_ALL
#undef ACLSIM_MATH2

/* ------------------------------------------------------------------------------- warps and atomics */
#define ACLSIM_SHFL16(T)  /* simt.h's shuffles, then the reductions and atomics of a 16-bit float */                \
    ACLSIM_SHFL(T)                                                                                                 \
    ACLSIM_WARP_API T asc_reduce_add(T v) {  /* a butterfly over the warp, rounding each step as the type does */         \
        for (int32_t off = 16; off; off >>= 1) v = v + asc_shfl_xor(v, off);                                         \
        return v;                                                                                                   \
    }                                                                                                               \
    ACLSIM_WARP_API T asc_reduce_max(T v) {                                                                                   \
        for (int32_t off = 16; off; off >>= 1) v = __hmax(v, asc_shfl_xor(v, off));                                  \
        return v;                                                                                                   \
    }                                                                                                               \
    ACLSIM_WARP_API T asc_reduce_min(T v) {                                                                                   \
        for (int32_t off = 16; off; off >>= 1) v = __hmin(v, asc_shfl_xor(v, off));                                  \
        return v;                                                                                                   \
    }                                                                                                               \
    inline T asc_atomic_add(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return o + val; });                                        \
    }                                                                                                               \
    inline T asc_atomic_sub(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return o - val; });                                        \
    }                                                                                                               \
    inline T asc_atomic_exch(T *address, T val) {                                                                    \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T) { return val; });                                              \
    }                                                                                                               \
    inline T asc_atomic_max(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return __hmax(o, val); });                                 \
    }                                                                                                               \
    inline T asc_atomic_min(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return __hmin(o, val); });                                 \
    }                                                                                                               \
    inline T asc_atomic_cas(T *address, T compare, T val) {                                                          \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return std::memcmp(&o, &compare, sizeof(T)) == 0 ? val : o; }); \
    }
ACLSIM_SHFL16(half)
ACLSIM_SHFL16(half2)
ACLSIM_SHFL16(bfloat16_t)
ACLSIM_SHFL16(bfloat162)
#undef ACLSIM_SHFL16
#undef ACLSIM_SHFL

#endif
