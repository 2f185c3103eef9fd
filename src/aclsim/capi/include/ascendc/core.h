/* aclsim: Ascend C in C++ (kernel_operator.h), part 1: calls into the engine, element types, enumerations.
 *
 * Every Ascend C API function here is a thin wrapper: it names its operands as words (ascendc/abi.h) and calls
 * the engine of aclsim's Python package, where the instruction's checks, semantics, findings and cost live (the
 * same instruction table pyasc kernels use). API functions are not inlined and pass their return address, so
 * the engine's messages and the sanitizer's reports name the line of the program that called them.
 * This header holds no rules of Ascend C: what an instruction accepts is decided by the engine.
 */
#ifndef ACLSIM_ASCENDC_CORE_H
#define ACLSIM_ASCENDC_CORE_H

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "aclsim/half.h"
#include "aclsim/kernel.h"
#include "ascendc/abi.h"

/* An API function of the face: a real call (its return address is the program's line). */
#define ACLSIM_API __attribute__((noinline))
#define ACLSIM_RA __builtin_return_address(0)

namespace aclsim {
namespace asc {

/* One call of the engine (aclsim_asc): `op` and up to six words. */
inline int64_t call(const void *ra, uint32_t op, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0,
                    uint64_t e = 0, uint64_t f = 0) {
    return aclsim_asc(op, a, b, c, d, e, f, ra);
}
/* The same with a floating-point scalar. */
inline int64_t call_s(const void *ra, uint32_t op, double s, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0,
                      uint64_t d = 0, uint64_t e = 0) {
    return aclsim_asc_scalar(op, a, b, c, d, e, s, ra);
}
inline double call_real(const void *ra, uint32_t op, uint64_t a = 0, uint64_t b = 0) {
    return aclsim_asc_real(op, a, b, ra);
}

/* The element types the engine knows, by aclDataType code. */
template <class T>
struct dtype {
    static_assert(sizeof(T) == 0, "aclsim: this element type is not emulated by aclsim's Ascend C engine (it knows "
                                  "half, float, bfloat16_t, int8/16/32/64_t and uint8/16/32/64_t)");
};
template <> struct dtype<float> { static constexpr uint64_t code = 0; };
template <> struct dtype<half> { static constexpr uint64_t code = 1; };
template <> struct dtype<int8_t> { static constexpr uint64_t code = 2; };
template <> struct dtype<int32_t> { static constexpr uint64_t code = 3; };
template <> struct dtype<uint8_t> { static constexpr uint64_t code = 4; };
template <> struct dtype<int16_t> { static constexpr uint64_t code = 6; };
template <> struct dtype<uint16_t> { static constexpr uint64_t code = 7; };
template <> struct dtype<uint32_t> { static constexpr uint64_t code = 8; };
template <> struct dtype<int64_t> { static constexpr uint64_t code = 9; };
template <> struct dtype<uint64_t> { static constexpr uint64_t code = 10; };
template <> struct dtype<bfloat16_t> { static constexpr uint64_t code = 27; };

template <class T>
constexpr bool is_real = std::is_floating_point<T>::value || std::is_same<T, half>::value ||
                         std::is_same<T, bfloat16_t>::value;

/* A scalar as the engine takes it: floating-point values through the scalar entry, integers as words. */
template <class T>
inline double real_of(T v) { return (double)(float)v; }
inline double real_of(double v) { return v; }
inline double real_of(float v) { return (double)v; }

/* A value's bits in a word (padding values, masks of any type). */
template <class T>
inline uint64_t bits_of(T v) {
    uint64_t w = 0;
    std::memcpy(&w, &v, sizeof(T) < 8 ? sizeof(T) : 8);
    return w;
}

/* For static_asserts that fire only when a template naming an API aclsim does not emulate is used. */
template <class...>
constexpr bool never = false;
template <auto...>
constexpr bool never_value = false;

/* Operations the engine does not emulate: the call faults and names the API (never a silent no-op). */
inline void not_emulated(const void *ra, const char *api, const char *why = "") {
    call(ra, ASC_NotEmulated, (uint64_t)(uintptr_t)api, (uint64_t)(uintptr_t)why);
}

}  // namespace asc
}  // namespace aclsim

/* ------------------------------------------------------------------------- the compiler's built-in types */
enum pipe_t : uint8_t {
    PIPE_S = 0,
    PIPE_V = 1,
    PIPE_M = 2,
    PIPE_MTE1 = 3,
    PIPE_MTE2 = 4,
    PIPE_MTE3 = 5,
    PIPE_ALL = 6,
    PIPE_MTE4 = 7,
    PIPE_MTE5 = 8,
    PIPE_V2 = 9,
    PIPE_FIX = 10,
};
enum event_t : uint8_t {
    EVENT_ID0 = 0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
};

/* Matmul's operand format (used unqualified with matmul::MatmulType). */
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

namespace AscendC {

using TEventID = int8_t;
using TTagType = int32_t;

enum class TPosition : uint8_t {
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
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition;

enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};

enum class RoundMode : uint8_t {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class ReduceType { NONE = -1, SUM = 0, MAX, MIN };
enum class GatherMaskMode : uint8_t { DEFAULT = 0, V1, V2 };
enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE = 0,
    TRANSPOSE_NZ2ND_0213,
    TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TRANSPOSE_ND2ND_ONLY,
    TRANSPOSE_ND_UB_GM,
    TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW,
};

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr int32_t BLOCK_CUBE = 16;
constexpr int32_t CUBE_MAX_SIZE = 256;
constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

template <typename T>
using PrimT = T;

template <bool b, typename T, typename U>
struct Conditional {
    using type = T;
};
template <typename T, typename U>
struct Conditional<false, T, U> {
    using type = U;
};

template <typename T, typename U>
struct IsSameType {
    static constexpr bool value = std::is_same<T, U>::value;
};

template <typename T>
__aicore__ inline constexpr T DivCeil(T a, T b) { return (a + b - 1) / b; }
template <typename T>
__aicore__ inline constexpr T AlignUp(T a, T b) { return (a + b - 1) / b * b; }

}  // namespace AscendC

#endif
