"""aclsim cc's rewriting of kernel syntax (aclsim.capi.rewrite), on preprocessed-looking text: what each
construct becomes, which kernels run their threads as fibers, and that every line stays on its line."""

from __future__ import annotations

import re

import pytest

from aclsim.capi.rewrite import RewriteError, Unit, needs_rewrite, rewrite

SIMT = """\
# 1 "k.asc"
__global__ void square(const float *in, float *out, unsigned n)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = in[t] * in[t];
}
void helper(float *p) { aclsim_syncthreads(0); }
__global__ __launch_bounds__(512) void tiled(float *p)
{
    __ubuf__ float tile[32][33];
    __ubuf__ unsigned count;
    __ubuf__ float *view = tile[0];
    extern __ubuf__ float dyn[];
    helper(p);
}
int main()
{
    square<<<dim3(4), dim3(256)>>>(a, b,
                                  n);
    tiled<<<8, 512, 64, stream>>>(p);
    return 0;
}
"""


def test_a_simt_launch_becomes_a_call_of_launch_simt_on_the_same_lines():
    out, kernels = rewrite(SIMT, "k.asc")
    assert out.count("\n") == SIMT.count("\n")
    assert set(kernels) == {"square", "tiled"} and kernels["tiled"].bounds == "512"
    call = next(ln for ln in out.splitlines() if "launch_simt" in ln and '"square"' in ln)
    assert "::dim3(dim3(4)), ::dim3(dim3(256)), (uint64_t)(0), (void *)(nullptr), a, b," in call
    assert "reinterpret_cast<const void *>(&square)" in call and "square(static_cast" in call
    lines = out.splitlines()
    assert lines[SIMT.splitlines().index("    return 0;")] == "    return 0;"  # later lines did not move
    assert "__global__" not in out and "__launch_bounds__" not in out and "__ubuf__" not in out


def test_fibers_for_kernels_that_reach_a_barrier_through_their_functions():
    out, _ = rewrite(SIMT, "k.asc")
    square = re.search(r'launch_simt\("square", [^,]+, .*?\}\), (\d), \((\w+)\)', out)
    tiled = re.search(r'launch_simt\("tiled", [^,]+, .*?\}\), (\d), \((\w+)\)', out)
    assert square.groups() == ("0", "0") and tiled.groups() == ("1", "512")


def test_block_shared_and_dynamic_ub_variables():
    out, _ = rewrite(SIMT, "k.asc")
    assert "auto &tile = *::aclsim::shared<float [32][33]>(" in out
    assert "auto &count = *::aclsim::shared<unsigned>(" in out
    assert "float *view = tile[0];" in out  # a pointer into UB is a plain pointer
    assert "const ::aclsim::dyn_ubuf<float> dyn{};" in out


def test_an_ascend_c_launch_runs_cores_with_its_kind():
    text = '# 1 "a.asc"\nextern "C" __global__ __aicore__ void add(GM_ADDR x) {}\n' \
           '__global__ __cube__ void mm(int *p) {}\nvoid f() { add<<<8, nullptr, s>>>(x); mm<<<2, 0>>>(p); }\n'
    out, kernels = rewrite(text)
    assert kernels["add"].kind == 1 and kernels["mm"].kind == 3
    assert 'launch_cores("add", reinterpret_cast<const void *>(&add), ' in out and ", 1, 8, nullptr, (void *)(s), x)" in out
    assert ", 3, 2, 0, (void *)(nullptr), p)" in out


def test_templated_kernels_with_and_without_their_arguments():
    text = "template <typename T>\n__global__ void k(T *p) {}\nvoid f() { k<half><<<1, 32>>>(p); k<<<1, 32>>>(q); }\n"
    out, kernels = rewrite(text)
    assert kernels["k"].template
    assert 'launch_simt("k<half>", reinterpret_cast<const void *>(&k<half>)' in out
    assert 'launch_simt("k", nullptr' in out  # deduced at the call: no address before it


def test_each_launch_site_has_its_own_number():
    out, _ = rewrite(SIMT, "k.asc")
    assert re.findall(r"::aclsim::tag<(\d+)>", out) == ["100001", "100002"]


def test_asc_vf_call_is_a_simt_call_on_the_core():
    text = "__simt_vf__ inline void f(float *u) { asc_syncthreads(); aclsim_syncthreads(0); }\n" \
           "__simd_vf__ inline void g(float *u) {}\n__global__ __vector__ void k(float *u) {\n" \
           "  asc_vf_call<f>(dim3(64), u);\n  asc_vf_call<g>(u);\n  asc_vf_call<g>( );\n}\n"
    out, _ = rewrite(text)
    assert 'vf_call("f", reinterpret_cast<const void *>(&f), ' in out and "}), 1, dim3(64), u);" in out
    assert "}), 0, u);" in out
    assert "}), 0 );" in out  # no arguments: no dangling comma


@pytest.mark.parametrize("bad", ["k<<<1>>>(p);", "k<<<1, 2, 3, 4, 5>>>(p);", "<<<1, 2>>>(p);", "k<<<1, 2>>>;"])
def test_malformed_launches_are_refused_with_their_line(bad):
    with pytest.raises(RewriteError, match=r"line 2|without"):
        Unit("__global__ void k(int *p) {}\nvoid f() { " + bad + " }\n").rewrite()


def test_literals_and_comments_that_look_like_kernels_are_left_alone():
    text = 'const char *s = "k<<<1, 2>>>(p) __ubuf__ { }";\nchar c = \'{\';\n'
    out, kernels = rewrite(text)
    assert out == text and kernels == {}


def test_which_sources_need_the_rewriter():
    assert needs_rewrite("k<<<1, 2>>>(p);") and needs_rewrite("__global__ void k();")
    assert not needs_rewrite('#include "acl/acl.h"\nint main() { return 0; }\n')
