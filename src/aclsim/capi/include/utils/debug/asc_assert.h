/* aclsim: CANN's utils/debug/asc_assert.h: assert(expr) and assert(expr, fmt, args...). In a kernel a failed
 * assertion prints "[ASSERT] file:line: function: Assertion `expr' failed." and stops the launch (the stream
 * reports 507015 at its next synchronize); in host code it is the C library's assert. NDEBUG removes them. */
#ifndef ACLSIM_UTILS_DEBUG_ASC_ASSERT_H
#define ACLSIM_UTILS_DEBUG_ASC_ASSERT_H
#include <cassert>
#include "aclsim/simt.h"
#undef assert
#undef ascendc_assert
#define ACLSIM_ASSERT_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define ACLSIM_ASSERT_COUNT(...) ACLSIM_ASSERT_PICK(__VA_ARGS__, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1)
#define ACLSIM_ASSERT_CAT(a, b) a##b
#define ACLSIM_ASSERT_SELECT(n) ACLSIM_ASSERT_CAT(ACLSIM_ASSERT_, n)
#define ACLSIM_ASSERT_1(expr) \
    (static_cast<bool>(expr) ? void(0) : ::aclsim::device_assert_failed(#expr, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#define ACLSIM_ASSERT_2(expr, ...)                                                                               \
    (static_cast<bool>(expr) ? void(0)                                                                          \
                             : ::aclsim::device_assert_msg(#expr, __FILE__, __LINE__, __PRETTY_FUNCTION__, __VA_ARGS__))
#ifndef NDEBUG
#define assert(...) ACLSIM_ASSERT_SELECT(ACLSIM_ASSERT_COUNT(__VA_ARGS__))(__VA_ARGS__)
#else
#define assert(...) ((void)0)
#endif
#define ascendc_assert assert
#endif
