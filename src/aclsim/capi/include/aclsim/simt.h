/* aclsim: the device API of Ascend SIMT kernels (CANN's simt_api/asc_simt.h names), on aclsim's runtime.
 *
 * Names and signatures follow CANN's SIMT API reference (hicann/asc-devkit docs/zh/api/SIMT-API): barriers
 * (asc_syncthreads), warp functions (asc_ballot, asc_shfl*, asc_reduce_*), atomics on GM and UB
 * (asc_atomic_*), lane ids, cache-hint loads and stores, the math and conversion functions, vector types.
 * Warp functions and barriers suspend the calling thread (a fiber) until the others of its warp or block
 * arrive (libascendcl's kernels.c); everything else is plain C++ on the thread's own values.
 */
#ifndef ACLSIM_SIMT_H
#define ACLSIM_SIMT_H

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "aclsim/kernel.h"

/* ------------------------------------------------------------------------------------------- barriers */
namespace aclsim {
/* One function per barrier in the source (asc_syncthreads() numbers them): the compiler cannot merge two
 * barriers of different branches into one call, so a divergent barrier stays visible. */
template <int N>
__attribute__((noinline)) void syncthreads_at() {
    aclsim_syncthreads(__builtin_return_address(0));
}

template <class T>
constexpr int warp_type() {
    if constexpr (std::is_same_v<T, float>) return ACLSIM_T_F32;
    else if constexpr (std::is_same_v<T, double>) return ACLSIM_T_F64;
    else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return std::is_signed_v<T> ? ACLSIM_T_I64 : ACLSIM_T_U64;
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return ACLSIM_T_I32;
    else return ACLSIM_T_U32;  /* unsigned, and any other 4-byte-or-less value (half, half2): its bits move */
}

/* Warp functions are inlined into the kernel at every optimisation level: the call inside them is then at the
 * kernel's own place, which names the call (lanes meet at the same call; reports name its line). */
#define ACLSIM_WARP_API inline __attribute__((always_inline))

/* One warp function by the calling lane: `op` over `v` with `arg` (source lane, delta, mask) and `width`. */
template <class T>
__attribute__((noinline)) T warp(int op, T v, int32_t arg = 0, int32_t width = 32) {
    static_assert(sizeof(T) <= 8, "warp functions move values of at most 8 bytes");
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    uint64_t r = aclsim_warp(op, warp_type<T>(), bits, arg, width, __builtin_return_address(0));
    T out;
    std::memcpy(&out, &r, sizeof(T));
    return out;
}
}  // namespace aclsim

#define asc_syncthreads() ::aclsim::syncthreads_at<__COUNTER__>()
#define __syncthreads() ::aclsim::syncthreads_at<__COUNTER__>()
inline void asc_threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void asc_threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void asc_nop() {}
inline void asc_dcci_entire(const volatile void *) {}
inline void asc_dcci_single(const volatile void *) {}

/* ------------------------------------------------------------------------------------- warp functions */
ACLSIM_WARP_API int32_t asc_all(int32_t predicate) { return (int32_t)aclsim::warp<uint32_t>(ACLSIM_W_ALL, predicate != 0); }
ACLSIM_WARP_API int32_t asc_any(int32_t predicate) { return (int32_t)aclsim::warp<uint32_t>(ACLSIM_W_ANY, predicate != 0); }
ACLSIM_WARP_API uint32_t asc_ballot(int32_t predicate) { return aclsim::warp<uint32_t>(ACLSIM_W_BALLOT, predicate != 0); }
ACLSIM_WARP_API uint32_t asc_activemask() { return aclsim::warp<uint32_t>(ACLSIM_W_ACTIVEMASK, 0); }

#define ACLSIM_SHFL(T)                                                                                              \
    ACLSIM_WARP_API T asc_shfl(T var, int32_t src_lane, int32_t width = warpSize) {                                            \
        return aclsim::warp<T>(ACLSIM_W_SHFL, var, src_lane, width);                                                 \
    }                                                                                                               \
    ACLSIM_WARP_API T asc_shfl_up(T var, uint32_t delta, int32_t width = warpSize) {                                           \
        return aclsim::warp<T>(ACLSIM_W_SHFL_UP, var, (int32_t)delta, width);                                         \
    }                                                                                                               \
    ACLSIM_WARP_API T asc_shfl_down(T var, uint32_t delta, int32_t width = warpSize) {                                         \
        return aclsim::warp<T>(ACLSIM_W_SHFL_DOWN, var, (int32_t)delta, width);                                       \
    }                                                                                                               \
    ACLSIM_WARP_API T asc_shfl_xor(T var, int32_t lane_mask, int32_t width = warpSize) {                                       \
        return aclsim::warp<T>(ACLSIM_W_SHFL_XOR, var, lane_mask, width);                                            \
    }
ACLSIM_SHFL(int32_t)
ACLSIM_SHFL(uint32_t)
ACLSIM_SHFL(float)
ACLSIM_SHFL(int64_t)
ACLSIM_SHFL(uint64_t)
ACLSIM_SHFL(long long)
ACLSIM_SHFL(unsigned long long)
/* ACLSIM_SHFL stays defined: half.h gives the 16-bit floats the same shuffles */

#define ACLSIM_REDUCE(T)                                                                                            \
    ACLSIM_WARP_API T asc_reduce_add(T val) { return aclsim::warp<T>(ACLSIM_W_REDUCE_ADD, val); }                             \
    ACLSIM_WARP_API T asc_reduce_max(T val) { return aclsim::warp<T>(ACLSIM_W_REDUCE_MAX, val); }                             \
    ACLSIM_WARP_API T asc_reduce_min(T val) { return aclsim::warp<T>(ACLSIM_W_REDUCE_MIN, val); }
ACLSIM_REDUCE(int32_t)
ACLSIM_REDUCE(uint32_t)
ACLSIM_REDUCE(float)
#undef ACLSIM_REDUCE

/* Lane ids: the lane in the warp, and masks of the lanes below / above it. */
inline int32_t laneid() { return (int32_t)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u); }
inline int32_t lanemask_eq() { return (int32_t)(1u << laneid()); }
inline int32_t lanemask_lt() { return (int32_t)((1u << laneid()) - 1u); }
inline int32_t lanemask_le() { return (int32_t)(((uint64_t)2 << laneid()) - 1u); }
inline int32_t lanemask_gt() { return (int32_t)~(uint32_t)lanemask_le(); }
inline int32_t lanemask_ge() { return (int32_t)~(uint32_t)lanemask_lt(); }

/* ------------------------------------------------------------------------------------------- atomics */
namespace aclsim {
/* Atomic operations are recorded once, as atomics (ACLSIM_ACCESS): the checked build's instrumentation
 * stays out of the operations themselves, which it would record as a plain load and store. */
#define ACLSIM_UNCHECKED __attribute__((no_sanitize_address))
template <class T, class F>
ACLSIM_UNCHECKED T atomic_update(T *p, F f) {  /* compare-and-swap loop over the value's bits */
    static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "atomics work on 2-, 4- and 8-byte values");
    using U = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
    U *q = reinterpret_cast<U *>(p);
    U old = __atomic_load_n(q, __ATOMIC_RELAXED), want;
    T o, n;
    do {
        std::memcpy(&o, &old, sizeof(T));
        n = f(o);
        std::memcpy(&want, &n, sizeof(T));
    } while (!__atomic_compare_exchange_n(q, &old, want, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return o;
}
template <class T>
ACLSIM_UNCHECKED T fetch_add(T *p, T v) {
    if constexpr (std::is_floating_point_v<T>) return atomic_update(p, [&](T o) { return o + v; });
    else return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
template <class T>
ACLSIM_UNCHECKED T fetch_sub(T *p, T v) {
    if constexpr (std::is_floating_point_v<T>) return atomic_update(p, [&](T o) { return o - v; });
    else return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
}
template <class T>
ACLSIM_UNCHECKED T fetch_and(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T>
ACLSIM_UNCHECKED T fetch_or(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T>
ACLSIM_UNCHECKED T fetch_xor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
}  // namespace aclsim

#define ACLSIM_ATOMIC_ARITH(T)                                                                                      \
    inline T asc_atomic_add(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::fetch_add(address, val);                                                                      \
    }                                                                                                               \
    inline T asc_atomic_sub(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::fetch_sub(address, val);                                                                      \
    }                                                                                                               \
    inline T asc_atomic_exch(T *address, T val) {                                                                    \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T) { return val; });                                              \
    }                                                                                                               \
    inline T asc_atomic_max(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return o < val ? val : o; });                              \
    }                                                                                                               \
    inline T asc_atomic_min(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return val < o ? val : o; });                              \
    }                                                                                                               \
    inline T asc_atomic_cas(T *address, T compare, T val) {                                                          \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return std::memcmp(&o, &compare, sizeof(T)) == 0 ? val : o; }); \
    }
#define ACLSIM_ATOMIC_BITS(T)                                                                                       \
    inline T asc_atomic_and(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::fetch_and(address, val);                                                  \
    }                                                                                                               \
    inline T asc_atomic_or(T *address, T val) {                                                                      \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::fetch_or(address, val);                                                   \
    }                                                                                                               \
    inline T asc_atomic_xor(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::fetch_xor(address, val);                                                  \
    }
ACLSIM_ATOMIC_ARITH(int)
ACLSIM_ATOMIC_ARITH(unsigned int)
ACLSIM_ATOMIC_ARITH(long)
ACLSIM_ATOMIC_ARITH(unsigned long)
ACLSIM_ATOMIC_ARITH(long long)
ACLSIM_ATOMIC_ARITH(unsigned long long)
ACLSIM_ATOMIC_ARITH(float)
ACLSIM_ATOMIC_BITS(int)
ACLSIM_ATOMIC_BITS(unsigned int)
ACLSIM_ATOMIC_BITS(long)
ACLSIM_ATOMIC_BITS(unsigned long)
ACLSIM_ATOMIC_BITS(long long)
ACLSIM_ATOMIC_BITS(unsigned long long)
#undef ACLSIM_ATOMIC_ARITH
#undef ACLSIM_ATOMIC_BITS

/* inc: old >= val ? 0 : old + 1; dec: old == 0 || old > val ? val : old - 1 (the CUDA-style wrapping counters) */
#define ACLSIM_ATOMIC_WRAP(T)                                                                                       \
    inline T asc_atomic_inc(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return o >= val ? (T)0 : (T)(o + 1); });                   \
    }                                                                                                               \
    inline T asc_atomic_dec(T *address, T val) {                                                                     \
        ACLSIM_ACCESS(address, sizeof(T), 2);                                                                        \
        return aclsim::atomic_update(address, [&](T o) { return (o == 0 || o > val) ? val : (T)(o - 1); });         \
    }
ACLSIM_ATOMIC_WRAP(unsigned int)
ACLSIM_ATOMIC_WRAP(unsigned long)
ACLSIM_ATOMIC_WRAP(unsigned long long)
#undef ACLSIM_ATOMIC_WRAP

/* ------------------------------------------------------------------------------------- vector types */
#define ACLSIM_VEC(name, T)                                                                                         \
    struct alignas(2 * sizeof(T)) name##2 { T x, y; };                                                              \
    struct name##3 { T x, y, z; };                                                                                  \
    struct alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)) name##4 { T x, y, z, w; };                              \
    inline name##2 make_##name##2(T x, T y) { return name##2{x, y}; }                                               \
    inline name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; }                                       \
    inline name##4 make_##name##4(T x, T y, T z, T w) { return name##4{x, y, z, w}; }
ACLSIM_VEC(char, signed char)
ACLSIM_VEC(uchar, unsigned char)
ACLSIM_VEC(short, short)
ACLSIM_VEC(ushort, unsigned short)
ACLSIM_VEC(int, int)
ACLSIM_VEC(uint, unsigned int)
ACLSIM_VEC(long, long)
ACLSIM_VEC(ulong, unsigned long)
ACLSIM_VEC(longlong, long long)
ACLSIM_VEC(ulonglong, unsigned long long)
ACLSIM_VEC(float, float)
ACLSIM_VEC(double, double)
#undef ACLSIM_VEC
typedef unsigned int uint;

/* Cache-hint loads and stores: plain loads and stores here (the data cache is not modelled). */
template <class T>
inline T asc_ldca(T *address) { return *address; }
template <class T>
inline T asc_ldcg(T *address) { return *address; }
template <class T>
inline void asc_stcg(T *address, T val) { *address = val; }
template <class T>
inline void asc_stwt(T *address, T val) { *address = val; }

/* ------------------------------------------------------------------------------------ integer intrinsics */
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popc(unsigned long x) { return __builtin_popcountl(x); }
inline int __popc(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clz(long x) { return x ? __builtin_clzl((unsigned long)x) : 64; }
inline int __clz(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffs(long x) { return __builtin_ffsl(x); }
inline int __ffs(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
    unsigned int r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brev(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
inline unsigned long __brev(unsigned long x) { return (unsigned long)__brev((unsigned long long)x); }
inline int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x * y) >> 32); }
inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
inline long long __mul_i32toi64(int x, int y) { return (long long)x * y; }
inline unsigned long long __mul_i32toi64(unsigned int x, unsigned int y) { return (unsigned long long)x * y; }
inline int __mul24(int x, int y) { return (int)((long long)((x << 8) >> 8) * ((y << 8) >> 8)); }
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xFFFFFFu) * (y & 0xFFFFFFu); }
inline unsigned int __sad(int x, int y, unsigned int z) { return z + (unsigned int)(x > y ? x - y : y - x); }
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned int)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xFF) << (8 * i);
    return r;
}
inline int umin(unsigned int a, unsigned int b) { return (int)(a < b ? a : b); }
inline int umax(unsigned int a, unsigned int b) { return (int)(a > b ? a : b); }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

/* ---------------------------------------------------------------------------- conversions with rounding */
namespace aclsim {
enum rounding { RN, RZ, RD, RU, RNA };
inline long double round_to_integral(long double v, rounding r) {
    switch (r) {
    case RN: return std::nearbyint(v);
    case RZ: return std::trunc(v);
    case RD: return std::floor(v);
    case RU: return std::ceil(v);
    default: return std::round(v);
    }
}
/* a float or double to an integer type: rounded as asked, NaN to 0, out of range to the nearest limit */
template <class I>
inline I to_int(long double v, rounding r) {
    if (std::isnan(v)) return 0;
    long double t = round_to_integral(v, r);
    if (t <= (long double)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (t >= (long double)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)t;
}
/* a value to float, rounded as asked (the exact value is `v`) */
inline float to_float(long double v, rounding r) {
    float f = (float)v;  /* nearest, ties to even */
    if (r == RN || std::isnan(v) || (long double)f == v) return f;
    float lo = (long double)f < v ? f : std::nextafterf(f, -INFINITY);
    float hi = (long double)f > v ? f : std::nextafterf(f, INFINITY);
    switch (r) {
    case RZ: return v > 0 ? lo : hi;
    case RD: return lo;
    case RU: return hi;
    default: {
        long double dl = v - lo, dh = hi - v;
        return dl < dh ? lo : dh < dl ? hi : (v > 0 ? hi : lo);
    }
    }
}
}  // namespace aclsim

#define ACLSIM_CONV(suffix, mode)                                                                                    \
    inline float __float2float_##suffix(const float x) { return (float)aclsim::round_to_integral(x, aclsim::mode); } \
    inline unsigned int __float2uint_##suffix(const float x) { return aclsim::to_int<unsigned int>(x, aclsim::mode); } \
    inline int __float2int_##suffix(const float x) { return aclsim::to_int<int>(x, aclsim::mode); }                 \
    inline unsigned long long __float2ull_##suffix(const float x) {                                                 \
        return aclsim::to_int<unsigned long long>(x, aclsim::mode);                                                 \
    }                                                                                                               \
    inline long long __float2ll_##suffix(const float x) { return aclsim::to_int<long long>(x, aclsim::mode); }      \
    inline float __uint2float_##suffix(const unsigned int x) { return aclsim::to_float(x, aclsim::mode); }           \
    inline float __int2float_##suffix(const int x) { return aclsim::to_float(x, aclsim::mode); }                    \
    inline float __ull2float_##suffix(const unsigned long long x) { return aclsim::to_float(x, aclsim::mode); }      \
    inline float __ll2float_##suffix(const long long x) { return aclsim::to_float(x, aclsim::mode); }
ACLSIM_CONV(rn, RN)
ACLSIM_CONV(rz, RZ)
ACLSIM_CONV(rd, RD)
ACLSIM_CONV(ru, RU)
ACLSIM_CONV(rna, RNA)
#undef ACLSIM_CONV
inline float __int_as_float(const int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline float __uint_as_float(const unsigned int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(const float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline unsigned int __float_as_uint(const float x) { unsigned int i; std::memcpy(&i, &x, 4); return i; }

/* ------------------------------------------------------------------------------------------------ math */
/* The C library's float functions (sinf, expf, powf, erff, j0f, sincosf, exp10f...) are the kernels' too;
 * these are the SIMT API's own. Results are IEEE float's, correctly rounded where the C library is. */
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
inline float fdividef(float x, float y) { return x / y; }
inline float sinpif(float x) { return (float)std::sin((double)x * M_PI); }
inline float cospif(float x) { return (float)std::cos((double)x * M_PI); }
inline float tanpif(float x) { return (float)std::tan((double)x * M_PI); }
inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
inline float rhypotf(float x, float y) { return 1.0f / std::hypot(x, y); }
inline float norm3df(float a, float b, float c) { return (float)std::sqrt((double)a * a + (double)b * b + (double)c * c); }
inline float norm4df(float a, float b, float c, float d) {
    return (float)std::sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d);
}
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
inline float normf(int dim, const float *p) {
    double s = 0;
    for (int i = 0; i < dim; i++) s += (double)p[i] * p[i];
    return (float)std::sqrt(s);
}
inline float rnormf(int dim, const float *p) { return 1.0f / normf(dim, p); }
inline float normcdff(float x) { return (float)(0.5 * std::erfc(-(double)x / M_SQRT2)); }
inline float erfinvf(float y) {
    if (y <= -1.0f) return y == -1.0f ? -INFINITY : NAN;
    if (y >= 1.0f) return y == 1.0f ? INFINITY : NAN;
    double x = 0;  /* Newton on erf(x) - y from a good start */
    double w = -std::log((1.0 - y) * (1.0 + y));
    x = (w < 5 ? 1.0 : 2.0) * y * std::sqrt(std::fabs(w) / 2.0 + 0.1);
    for (int i = 0; i < 60; i++) {
        double e = std::erf(x) - y;
        double step = e / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
        x -= step;
        if (std::fabs(step) < 1e-15 * (1 + std::fabs(x))) break;
    }
    return (float)x;
}
inline float erfcinvf(float y) { return erfinvf(1.0f - y); }
inline float normcdfinvf(float p) { return (float)(-M_SQRT2 * (double)erfcinvf(2.0f * p)); }
inline float erfcxf(float x) {
    double d = x;
    return d < 25 ? (float)(std::exp(d * d) * std::erfc(d)) : (float)(1.0 / (d * std::sqrt(M_PI)) * (1 - 1 / (2 * d * d)));
}
inline float cyl_bessel_i0f(float x) { return (float)std::cyl_bessel_i(0.0, std::fabs((double)x)); }
inline float cyl_bessel_i1f(float x) {
    double v = std::cyl_bessel_i(1.0, std::fabs((double)x));
    return (float)(x < 0 ? -v : v);
}
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* C library functions that store through pointers run unchecked (the library is not instrumented): these
 * compute into locals and store in the kernel's code, so the checked build sees the stores. */
namespace aclsim {
inline void sincosf_stores(float x, float *s, float *c) {
    float a, b;
    (::sincosf)(x, &a, &b);
    *s = a;
    *c = b;
}
inline float modff_stores(float x, float *i) {
    float w, f = (::modff)(x, &w);
    *i = w;
    return f;
}
inline float frexpf_stores(float x, int *e) {
    int k;
    float m = (::frexpf)(x, &k);
    *e = k;
    return m;
}
inline float remquof_stores(float x, float y, int *q) {
    int k;
    float r = (::remquof)(x, y, &k);
    *q = k;
    return r;
}
}  // namespace aclsim
#define sincosf(x, s, c) ::aclsim::sincosf_stores((x), (s), (c))
#define modff(x, i) ::aclsim::modff_stores((x), (i))
#define frexpf(x, e) ::aclsim::frexpf_stores((x), (e))
#define remquof(x, y, q) ::aclsim::remquof_stores((x), (y), (q))

/* simt_api/math_constants.h: float constants by name */
#define ASCRT_INF_F __builtin_inff()
#define ASCRT_NAN_F __builtin_nanf("")
#define ASCRT_MIN_DENORM_F 1.40129846e-45F
#define ASCRT_MAX_NORMAL_F FLT_MAX
#define ASCRT_NEG_ZERO_F (-0.0F)
#define ASCRT_ZERO_F 0.0F
#define ASCRT_ONE_F 1.0F
#define ASCRT_SQRT_HALF_F 0.70710678118654752F
#define ASCRT_SQRT_TWO_F 1.41421356237309505F
#define ASCRT_THIRD_F 0.33333333333333333F
#define ASCRT_PIO4_F 0.78539816339744831F
#define ASCRT_PIO2_F 1.57079632679489662F
#define ASCRT_3PIO4_F 2.35619449019234492F
#define ASCRT_2_OVER_PI_F 0.63661977236758134F
#define ASCRT_SQRT_2_OVER_PI_F 0.79788456080286536F
#define ASCRT_PI_F 3.14159265358979324F
#define ASCRT_L2E_F 1.44269504088896341F
#define ASCRT_L2T_F 3.32192809488736235F
#define ASCRT_LG2_F 0.30102999566398120F
#define ASCRT_LGE_F 0.43429448190325182F
#define ASCRT_LN2_F 0.69314718055994531F
#define ASCRT_LNT_F 2.30258509299404568F
#define ASCRT_LNPI_F 1.14472988584940017F
#define ASCRT_TWO_TO_M126_F 1.17549435e-38F
#define ASCRT_TWO_TO_126_F 8.50705917e37F
#define ASCRT_NORM_HUGE_F 3.40282347e38F
#define ASCRT_TWO_TO_23_F 8388608.0F
#define ASCRT_TWO_TO_24_F 16777216.0F
#define ASCRT_TWO_TO_31_F 2147483648.0F
#define ASCRT_TWO_TO_32_F 4294967296.0F

/* ------------------------------------------------------------------------------------- printf, assert */
namespace aclsim {
[[noreturn]] inline void device_assert_failed(const char *expr, const char *file, int line, const char *func,
                                              const char *msg = nullptr) {
    if (!aclsim_self) {
        std::fprintf(stderr, "%s:%d: %s: Assertion `%s' failed.\n", file, line, func, expr);
        std::abort();
    }
    std::printf("[ASSERT] %s:%d: %s: Assertion `%s' failed.%s%s\n", file, line, func, expr, msg ? " " : "",
                msg ? msg : "");
    std::fflush(stdout);
    char what[256];
    std::snprintf(what, sizeof what, "assertion `%s' failed", expr);
    aclsim_trap(what, file, line);
}
template <class... A>
[[noreturn]] inline void device_assert_msg(const char *expr, const char *file, int line, const char *func,
                                           const char *fmt, A... a) {
    char msg[512];
    std::snprintf(msg, sizeof msg, fmt, a...);
    device_assert_failed(expr, file, line, func, msg);
}
}  // namespace aclsim

inline void __trap() { aclsim_trap("__trap() in a kernel", "", 0); }

#endif
