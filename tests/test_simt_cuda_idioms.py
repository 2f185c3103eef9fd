"""numba.cuda idioms on the cuda face (`from aclsim.simt import cuda`): what numba's own kernel tests and
numba programs write beyond the basics of test_simt_cuda.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aclsim
from aclsim.simt import cuda
from aclsim.simt.lang import SimtError


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


# ------------------------------------------------------------------------------------ refusals
@cuda.jit
def refused(x):
    with open("f"):  # not in the kernel language
        x[0] = 1


def test_a_refused_kernel_is_refused_again_without_compiling_again():
    x = cuda.to_device(np.zeros(4))
    errors = []
    for _ in range(3):
        with pytest.raises(SimtError, match="'with' statement") as e:
            refused[1, 1](x)
        errors.append(e.value)
    assert errors[0] is errors[1] is errors[2]  # the first refusal, kept


# ------------------------------------------------------------------------------------ numba's own types
numba = pytest.importorskip("numba")


@cuda.jit
def numba_typed(x, out, out_int):
    tmp = cuda.local.array(4, numba.float32)  # numba's scalar type as the element type
    acc = cuda.shared.array((2, 4), dtype=numba.types.int64)
    i = cuda.threadIdx.x
    tmp[i] = numba.float32(x[i]) * numba.float32(0.1)  # and as a cast
    acc[0, i] = numba.types.int64(x[i]) + 1
    out[i] = tmp[i]
    out_int[i] = acc[0, i]


def test_numba_scalar_types_name_element_types_and_casts():
    x = np.arange(4.0) + 0.5
    out, out_int = np.zeros(4), np.zeros(4, np.int64)
    numba_typed[1, 4](x, out, out_int)
    np.testing.assert_array_equal(out, x.astype(np.float32) * np.float32(0.1))
    np.testing.assert_array_equal(out_int, x.astype(np.int64) + 1)


# ------------------------------------------------------------------------------------ device functions
@cuda.jit(device=True)
def histogram_into(out, keys, shape, dtype, update, cast_key):
    """Shape, element type, an atomic and a device function passed down as values, as numba allows."""
    counts = cuda.shared.array(shape, dtype)
    i = cuda.threadIdx.x
    if i < shape:
        counts[i] = 0
    cuda.syncthreads()
    update(counts, cast_key(keys[i]) % shape, 1)
    cuda.syncthreads()
    if i < shape:
        out[i] = counts[i]


@cuda.jit(device=True)
def as_int(v):
    return int(v)


@cuda.jit
def histogram(out, keys):
    histogram_into(out, keys, 8, np.uint32, cuda.atomic.add, as_int)


@cuda.jit
def histogram_small(out, keys):
    histogram_into(out, keys, 4, numba.uint16, cuda.atomic.add, as_int)


def test_device_functions_take_shapes_types_and_functions_as_arguments():
    keys = np.random.default_rng(1).integers(0, 100, 64).astype(np.float64)
    out8, out4 = np.zeros(8, np.int64), np.zeros(4, np.int64)
    histogram[1, 64](out8, keys)
    histogram_small[1, 64](out4, keys)
    np.testing.assert_array_equal(out8, np.bincount(keys.astype(int) % 8, minlength=8))
    np.testing.assert_array_equal(out4, np.bincount(keys.astype(int) % 4, minlength=4))


# ------------------------------------------------------------------------------------ tuples
@cuda.jit(device=True)
def bounds(a, b):
    return (min(a, b), max(a, b))


@cuda.jit
def tuples(x, out):
    pos = cuda.grid(2)  # a tuple, used as an index
    pair = bounds(x[pos], x[pos[1], pos[0]])
    lo, hi = pair
    swapped = (pair[1], pair[0])
    out[pos] = hi - lo + swapped[0] * len(swapped)


def test_tuples_are_values_indexed_unpacked_and_used_as_indices():
    x = np.random.default_rng(2).random((4, 4))
    out = np.zeros((4, 4))
    tuples[1, (4, 4)](x, out)
    hi, lo = np.maximum(x, x.T), np.minimum(x, x.T)
    np.testing.assert_array_equal(out, hi - lo + hi * 2)


# ------------------------------------------------------------------------------------ atomics
@cuda.jit
def more_atomics(counters, f, old):
    i = cuda.threadIdx.x
    old[0, i] = cuda.atomic.inc(counters, 0, np.uint32(5))  # wraps to 0 past 5
    old[1, i] = cuda.atomic.dec(counters, 1, np.uint32(5))  # 0 or above 5: back to 5
    cuda.atomic.nanmax(f, 0, f[1 + i])
    cuda.atomic.nanmin(f, 1 + 16, f[1 + i])


def test_atomic_inc_dec_and_the_nan_ignoring_max_min():
    counters = np.array([0, 0], np.uint32)
    f = np.random.default_rng(3).random(18)
    f[0], f[17] = np.nan, np.nan  # the targets start as NaN: nanmax/nanmin take the other operand
    f[3] = np.nan  # and a NaN value is ignored
    values = f[1:17].copy()
    old = np.zeros((2, 16), np.uint32)
    more_atomics[1, 16](counters, f, old)
    inc_seen, dec_seen = [], []
    c_inc, c_dec = 0, 0
    for _ in range(16):
        inc_seen.append(c_inc)
        c_inc = 0 if c_inc >= 5 else c_inc + 1
        dec_seen.append(c_dec)
        c_dec = 5 if c_dec == 0 or c_dec > 5 else c_dec - 1
    np.testing.assert_array_equal(old[0], inc_seen)
    np.testing.assert_array_equal(old[1], dec_seen)
    assert counters.tolist() == [c_inc, c_dec]
    assert f[0] == np.nanmax(values) and f[17] == np.nanmin(values)


@cuda.jit
def swap_first(x, old):
    old[0] = cuda.atomic.compare_and_swap(x, 7, 9)


def test_compare_and_swap_works_on_the_first_element():
    x, old = np.array([7, 1], np.int32), np.zeros(1, np.int32)
    swap_first[1, 1](x, old)
    assert x.tolist() == [9, 1] and old[0] == 7


def test_a_missing_atomic_is_named_not_its_array_argument():
    @cuda.jit
    def k(x):
        cuda.atomic.mul(x, 0, 2)

    with pytest.raises(SimtError, match=r"'cuda.atomic.mul' \(no such attribute\)"):
        k[1, 1](np.zeros(2))
    with pytest.raises(AttributeError, match=r"cuda.atomic.mul is not emulated by aclsim; available: .*nanmax"):
        cuda.atomic.mul  # noqa: B018


# ------------------------------------------------------------------------------------ intrinsics
@cuda.jit("void(int64[:], uint32[:], int32, uint64)")
def bit_tricks(out, out_u, x, y):
    out[0] = cuda.popc(x)
    out[1] = cuda.clz(x)  # on int32: 32-bit width, as the signature fixes x's type
    out[2] = cuda.ffs(x)
    out[3] = cuda.popc(y)
    out[4] = cuda.clz(y)
    out[5] = x.bit_count()
    out_u[0] = cuda.brev(np.uint32(x))
    out[6] = cuda.selp(x > 5, 1, 2)


def test_bit_intrinsics_work_on_the_width_of_the_signature_types():
    out, out_u = np.zeros(7, np.int64), np.zeros(1, np.uint32)
    bit_tricks[1, 1](out, out_u, 0x00100000 | 0x30, (1 << 40) | 7)  # Python ints, converted as declared
    assert out.tolist() == [3, 11, 5, 4, 23, 3, 1]
    assert out_u[0] == int(f"{0x00100030:032b}"[::-1], 2)


@cuda.jit
def rounding(x, out):
    i = cuda.grid(1)
    out[i, 0] = round(x[i])
    out[i, 1] = round(x[i], 1)
    out[i, 2] = pow(x[i], 2)
    out[i, 3] = cuda.fma(x[i], 2.0, 1.0)
    out[i, 4] = cuda.cbrt(x[i])
    out[i, 5] = math.degrees(x[i]) + math.radians(x[i])
    out[i, 6] = math.nextafter(x[i], math.inf)


def test_round_pow_fma_cbrt_and_angle_conversions():
    x = np.array([0.5, 1.5, 2.25, -2.5, 8.0])
    out = np.zeros((5, 7))
    rounding[1, 5](x, out)
    np.testing.assert_array_equal(out[:, 0], [0, 2, 2, -2, 8])  # ties to even, as Python
    np.testing.assert_array_equal(out[:, 1], np.round(x, 1))
    np.testing.assert_array_equal(out[:, 2], x**2)
    np.testing.assert_array_equal(out[:, 3], x * 2 + 1)
    np.testing.assert_allclose(out[:, 4], np.cbrt(x))
    np.testing.assert_allclose(out[:, 5], np.degrees(x) + np.radians(x))
    np.testing.assert_array_equal(out[:, 6], np.nextafter(x, np.inf))


@cuda.jit
def half_math(a, b, out):
    i = cuda.grid(1)
    out[i, 0] = cuda.fp16.hadd(a[i], b[i])
    out[i, 1] = cuda.fp16.hmul(a[i], b[i])
    out[i, 2] = cuda.fp16.hfma(a[i], b[i], a[i])
    out[i, 3] = cuda.fp16.hneg(a[i])
    out[i, 4] = cuda.fp16.hmax(a[i], b[i])
    out[i, 5] = cuda.fp16.hlt(a[i], b[i])


def test_fp16_functions_compute_in_half_precision():
    rng = np.random.default_rng(4)
    a, b = rng.random(8).astype(np.float16), rng.random(8).astype(np.float16)
    out = np.zeros((8, 6), np.float16)
    half_math[1, 8](a, b, out)
    np.testing.assert_array_equal(out[:, 0], a + b)
    np.testing.assert_array_equal(out[:, 1], a * b)
    np.testing.assert_array_equal(out[:, 2], (a.astype(np.float32) * b + a).astype(np.float16))
    np.testing.assert_array_equal(out[:, 3], -a)
    np.testing.assert_array_equal(out[:, 4], np.maximum(a, b))
    np.testing.assert_array_equal(out[:, 5], a < b)


# ------------------------------------------------------------------------------------ the kernel object
@cuda.jit
def scale(x, f):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= f


def test_kernel_object_api_py_func_forall_specialize_overloads():
    assert scale.py_func.__name__ == "scale" and scale.extensions == []
    x = np.arange(300.0)
    scale.forall(300)(x, 2.0)
    np.testing.assert_array_equal(x, np.arange(300.0) * 2)
    s = scale.specialize(x, 2.0)
    s[3, 128](x, 0.5)
    np.testing.assert_array_equal(x, np.arange(300.0))
    assert len(scale.overloads) == 1
    with pytest.raises(TypeError, match="No matching definition"):
        s[1, 1](np.zeros(3, np.float32), 1.0)


def test_a_launch_configuration_is_checked_when_indexed():
    with pytest.raises(SimtError, match="block dimension must be between 1"):
        scale[1, 0]


# ------------------------------------------------------------------------------------ device arrays
def test_device_arrays_take_element_and_slice_assignment_like_numba():
    d = cuda.to_device(np.arange(10.0))
    d[3] = -1.0
    d[5:8] = cuda.to_device(np.array([7.0, 8.0, 9.0]))
    d[::4] = 0.5
    assert d[3] == -1.0 and d[9] == 9.0
    np.testing.assert_array_equal(d.copy_to_host(), [0.5, 1, 2, -1, 0.5, 7, 8, 9, 0.5, 9])
    d[:0] = cuda.to_device(np.zeros(0))  # an empty slice is fine


@cuda.jit
def copy2d(src, dst):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[i, j]


def test_fortran_order_transposes_and_flags():
    host = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    d = cuda.to_device(host)
    assert d.flags["F_CONTIGUOUS"] and not d.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(d.copy_to_host(), host)
    out = cuda.device_array((4, 3), order="F")
    copy2d[(1, 1), (8, 8)](d.T, out)  # a transposed view as a kernel argument
    np.testing.assert_array_equal(out.copy_to_host(), host.T)
    assert cuda.device_array_like(host).flags["F_CONTIGUOUS"]


# ------------------------------------------------------------------------------------ functions as values
import operator  # noqa: E402

OPS = (operator.add, operator.mul, operator.truediv, operator.lt)


def make(op):
    @cuda.jit
    def apply(a, b, out):
        i = cuda.grid(1)
        out[i] = op(a[i], b[i])

    return apply


def jitted_twice(x):
    return 2 * x


twice = cuda.jit(jitted_twice)  # a kernel object called from a kernel: a device function, as in numba


@cuda.jit
def calls_a_kernel_object(out, x):
    out[0] = twice(x)


def test_operator_module_functions_and_jitted_functions_are_callable_in_kernels():
    a, b = np.array([3.0, 4.0]), np.array([2.0, 8.0])
    for op in OPS:
        out = np.zeros(2)
        make(op)[1, 2](a, b, out)
        np.testing.assert_array_equal(out, op(a, b))
    out = np.zeros(1, np.int64)
    calls_a_kernel_object[1, 1](out, 21)
    assert out[0] == 42


# ------------------------------------------------------------------------------------ cmath
import cmath  # noqa: E402


@cuda.jit("complex128(complex128)", device=True)
def csqrt_log(z):
    return cmath.sqrt(z) + cmath.log(z)


@cuda.jit
def complex_math(z, out, flags, parts):
    i = cuda.grid(1)
    out[i, 0] = csqrt_log(z[i])
    out[i, 1] = cmath.tanh(z[i])
    out[i, 2] = cmath.rect(abs(z[i]), cmath.phase(z[i]))
    flags[i] = cmath.isfinite(z[i])
    r, phi = cmath.polar(z[i])
    parts[i, 0] = r
    parts[i, 1] = phi


def test_cmath_follows_pythons_cmath_special_values_included():
    z = np.array([1 + 2j, -3 + 0j, 0j, complex(np.inf, 1), complex(np.nan, 0), -1e-300j, 4j])
    out = np.zeros((z.size, 3), np.complex128)
    flags, parts = np.zeros(z.size, np.bool_), np.zeros((z.size, 2))
    complex_math[1, z.size](z, out, flags, parts)
    for k, v in enumerate(z):
        try:
            expected = cmath.sqrt(v) + cmath.log(v)
        except ValueError:  # log(0): C's clog gives -inf
            expected = complex(-np.inf, 0)
        np.testing.assert_equal(out[k, 0], expected)
        np.testing.assert_equal(out[k, 1], cmath.tanh(v))
        np.testing.assert_equal(out[k, 2], cmath.rect(abs(v), cmath.phase(v)))
        assert flags[k] == cmath.isfinite(v)
        np.testing.assert_equal(tuple(parts[k]), cmath.polar(v))


@cuda.jit("float32(float32, int32)", device=True)
def scaled(x, k):
    return x * k + 0.1  # the result converts to float32, as the signature declares


@cuda.jit
def calls_typed(x, out):
    i = cuda.grid(1)
    out[i] = scaled(x[i], 3.9)  # 3.9 converts to the declared int32: 3


def test_a_device_function_signature_converts_arguments_and_result():
    x, out = np.arange(4.0), np.zeros(4)
    calls_typed[1, 4](x, out)
    np.testing.assert_array_equal(out, (x.astype(np.float32) * 3 + np.float32(0.1)).astype(np.float32))


# ------------------------------------------------------------------------------------ slices
@cuda.jit
def slices(x, out, n_out):
    dyn = cuda.shared.array(0, dtype=np.int32)
    i = cuda.threadIdx.x
    dyn[i] = i * 10
    cuda.syncthreads()
    tail = dyn[2:]  # a view of dynamic shared memory
    rev = dyn[::-1]
    mine = x[i:]  # element 0 differs per thread
    row = out[i, :]
    row[0] = tail[0] + rev[0]
    row[1] = mine[0] + len(tail)
    n_out[i] = mine.shape[0]
    cuda.atomic.add(out[:, 2], i, 5)


def test_slices_of_shared_and_device_arrays_are_views():
    x = np.arange(8.0)
    out, n_out = np.zeros((8, 3)), np.zeros(8, np.int64)
    slices[1, 8, 0, 8 * 4](x, out, n_out)
    np.testing.assert_array_equal(out[:, 0], 20 + 70)
    np.testing.assert_array_equal(out[:, 1], x + 6)
    np.testing.assert_array_equal(n_out, 8 - np.arange(8))
    np.testing.assert_array_equal(out[:, 2], 5)


def test_an_index_through_a_slice_is_checked_against_the_slice():
    @cuda.jit
    def past(x):
        v = x[2:4]
        v[2] = 1.0  # element 4 of x exists, element 2 of v does not

    with pytest.raises(aclsim.AclError, match=r"index 2 out of bounds"):
        past[1, 1](np.zeros(8))
        cuda.synchronize()


# ------------------------------------------------------------------------------------ tuple arguments
from collections import namedtuple  # noqa: E402

Point = namedtuple("Point", ("x", "y"))


@cuda.jit
def tuple_args(out, t, p, empty):
    out[0] = t[0] + t[2]
    out[1] = len(t) + len(empty)
    out[2] = p.x * p.y
    out[3] = t[1][1]


def test_tuples_and_named_tuples_are_kernel_arguments():
    out = np.zeros(4)
    tuple_args[1, 1](out, (1, (2.5, 3.5), 4), Point(3, 4.0), ())
    assert out.tolist() == [5, 3, 12, 3.5]
    tuple_args[1, 1](out, (10, (0, 1), 20), Point(1, 1), ())  # other values: another specialization
    assert out.tolist() == [30, 3, 1, 1]


# ------------------------------------------------------------------------------------ iterators
@cuda.jit
def iterate(x, y, out):
    acc = 0.0
    for v in x:
        acc += v
    for i, v in enumerate(x, 1):
        acc += i * v
    for a, b in zip(x, y):  # noqa: B905 (the shorter one bounds the loop)
        acc += a * b
    for i, (a, b) in enumerate(zip(x, y)):  # noqa: B905
        acc -= i + a + b
    out[0] = acc


def test_loops_over_arrays_enumerate_and_zip():
    x, y = np.arange(1.0, 6.0), np.array([2.0, 3.0, 4.0])
    out = np.zeros(1)
    iterate[1, 1](x, y, out)
    pairs = list(zip(x[:3], y, strict=True))
    expected = x.sum() + sum(i * v for i, v in enumerate(x, 1)) + sum(a * b for a, b in pairs) \
        - sum(i + a + b for i, (a, b) in enumerate(pairs))
    assert out[0] == expected


# ------------------------------------------------------------------------------------ records
particle = np.dtype([("pos", np.float64, 3), ("mass", np.float32), ("id", np.int32)], align=True)


@cuda.jit
def step(ps, dt, total):
    i = cuda.grid(1)
    if i < ps.shape[0]:
        p = ps[i]  # one record, bound to a name
        for k in range(3):
            ps[i].pos[k] += dt * ps[i]["mass"]
        p.id = i * 10
        cuda.atomic.add(total, 0, ps[i].mass)


@cuda.jit
def record_arg(r, out):
    out[0] = r.mass * 2
    out[1] = r.pos[2]
    r.id = 99  # written back to the host record, as numba does


@cuda.jit
def copy_records(ps):
    ps[1] = ps[0]


def test_record_arrays_and_record_arguments():
    ps = np.zeros(5, particle)
    ps["mass"] = np.arange(5)
    ps["pos"] = np.arange(15.0).reshape(5, 3)
    total = np.zeros(1, np.float32)
    step[1, 8](ps, 0.5, total)
    np.testing.assert_array_equal(ps["pos"], np.arange(15.0).reshape(5, 3) + 0.5 * np.arange(5)[:, None])
    np.testing.assert_array_equal(ps["id"], np.arange(5) * 10)
    assert total[0] == 10
    out = np.zeros(2)
    rec = ps[3]
    record_arg[1, 1](rec, out)
    assert out.tolist() == [6.0, ps["pos"][3, 2]] and ps["id"][3] == 99
    copy_records[1, 1](ps)
    assert ps[1].tobytes() == ps[0].tobytes()


# ------------------------------------------------------------------------------------ launch arguments
@cuda.jit
def set_three(a):
    a[0] = 3


def test_in_out_and_inout_choose_the_copies_back():
    a = np.zeros(1, np.int64)
    set_three[1, 1](cuda.In(a))  # copied in only
    assert a[0] == 0
    set_three[1, 1](cuda.InOut(a))
    assert a[0] == 3
    b = np.zeros(1, np.int64)
    set_three[1, 1](cuda.Out(b))
    assert b[0] == 3


@cuda.jit("void(int64[:], int32)")
def store_int32(out, x):
    out[0] = x


def test_a_python_int_converts_to_the_signature_type_as_numba_casts():
    out = np.zeros(1, np.int64)
    store_int32[1, 1](out, 0xFFFFFFFF)  # int32: wraps to -1
    assert out[0] == -1


import enum  # noqa: E402


class Color(enum.IntEnum):
    red = 1
    green = 2


class Shape(enum.Enum):
    circle = 10


WEIGHTS = (0.5, 1.5, 2.5)


@cuda.jit("double(double[:], int64)", device=True)
def weighted(a, i):  # an array parameter in a device-function signature passes through
    return a[i] * WEIGHTS[i]


@cuda.jit
def enums_and_constant_tuples(a, out):
    acc = 0.0
    for i, w in enumerate(WEIGHTS):  # a loop over a module-level tuple
        acc += w + weighted(a, i)
    out[0] = acc
    out[1] = Color.green + (1 if Shape.circle == Shape.circle else 0)


def test_enum_members_and_loops_over_constant_tuples():
    a, out = np.array([1.0, 2.0, 3.0]), np.zeros(2)
    enums_and_constant_tuples[1, 1](a, out)
    assert out[0] == sum(WEIGHTS) + (a * np.array(WEIGHTS)).sum()
    assert out[1] == 3


# ------------------------------------------------------------------------------------ more numba habits
nested = np.dtype([("v", np.int16, (3,)), ("w", np.float32)], align=True)


@cuda.jit
def nested_fields(src, dst, out):
    dst[0]["v"] = src[1]["v"]  # an array field assigned an array field
    out[0] = src.w[1] + src.v[0, 2]  # the field of every record: an array view
    z = complex(out[0], 1.0)
    out[1] = z.conjugate().imag
    flag = out[0] > 0
    if flag is True and z is not None:
        out[2] = 1


def test_array_fields_whole_field_views_conjugate_and_identity_tests():
    src = np.zeros(2, nested)
    src["v"] = [[1, 2, 3], [4, 5, 6]]
    src["w"] = [0.5, 1.5]
    dst, out = np.zeros(1, nested), np.zeros(3)
    nested_fields[1, 1](src, dst, out)
    assert dst["v"][0].tolist() == [4, 5, 6]
    assert out.tolist() == [1.5 + 3, -1.0, 1.0]


@cuda.jit(["void(float64[:], float32, float32)", "void(float64[:], float64, float64)"])
def add_to(r, x, y):
    r[0] = x + y


def test_the_best_signature_is_chosen_as_numba_does():
    r = np.zeros(1)
    add_to[1, 1](r, np.float32(1), np.float32(2**-25))  # float32 + float32
    assert r[0] == 1.0
    add_to[1, 1](r, 1, 2**-25)  # Python numbers: the float64 signature
    assert r[0] == 1.0000000298023224


def test_launch_configuration_errors_are_numbas():
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"):
        add_to[(1, 2, 3, 4), 1]
    with pytest.raises(TypeError, match=r"blockdim must be a sequence of integers, got \[3.0\]"):
        add_to[2, 3.0]
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        add_to(np.zeros(1), 1.0, 2.0)


# ------------------------------------------------------------------------------------ closures, *args, keywords
@cuda.jit(device=True)
def apply_all(func, *args):
    return func(*args)


@cuda.jit(device=True)
def scaled_sum(a, b, scale=10, offset=0.5):
    return (a + b) * scale + offset


@cuda.jit
def closures(out):
    base = 7  # a local assigned once from a literal: the nested function may use it

    def add_base(x, y=1):
        return x + y + base

    out[0] = add_base(1)
    out[1] = apply_all(add_base, 2, 3)
    out[2] = scaled_sum(1, 2)
    out[3] = scaled_sum(1, 2, offset=0.25)
    out[4] = scaled_sum(b=2, a=1, scale=2)


def test_nested_functions_varargs_keywords_and_defaults():
    out = np.zeros(5)
    closures[1, 1](out)
    assert out.tolist() == [9, 12, 30.5, 30.25, 6.5]


# ------------------------------------------------------------------------------------ raise
class BadInput(Exception):
    pass


@cuda.jit(device=True)
def check(v):
    if v < 0:
        raise BadInput("negative input")
    return v


@cuda.jit
def checked_sqrt(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sqrt(check(x[i]))


def test_a_kernel_raise_reaches_the_host_as_the_exception_numba_raises():
    out = np.zeros(4)
    checked_sqrt[1, 4](np.array([1.0, 4.0, 9.0, 16.0]), out)
    assert out.tolist() == [1, 2, 3, 4]
    with pytest.raises(BadInput, match=r"^tid=\[2, 0, 0\] ctaid=\[0, 0, 0\]: negative input$"):
        checked_sqrt[1, 4](np.array([1.0, 4.0, -9.0, -16.0]), out)


# ------------------------------------------------------------------------------------ host helpers
sum_reduce = cuda.Reduce(lambda a, b: a + b)  # a lambda: compiled like a device function


@cuda.jit(device=True)
def bigger(a, b):
    return max(a, b)


def test_reduce_combines_every_element_then_init():
    a = np.arange(1, 1001, dtype=np.float64)
    assert sum_reduce(a) == a.sum()
    assert sum_reduce(cuda.to_device(a), init=10) == a.sum() + 10
    assert sum_reduce(np.zeros(0)) == 0
    assert cuda.Reduce(bigger)(np.array([3, 9, 2], np.int32)) == 9  # a device function
    res = cuda.device_array(1)
    sum_reduce(a[:16], res=res)
    assert res.copy_to_host()[0] == a[:16].sum()


def test_external_streams_and_compile_ptx():
    s = aclsim.Stream()
    e = cuda.external_stream(s.handle)
    assert e.handle == s.handle
    with pytest.raises(SimtError, match="is not a stream of the emulated runtime"):
        cuda.external_stream(0x12345678)
    with pytest.raises(SimtError, match="compile_ptx is not emulated by aclsim"):
        cuda.compile_ptx(lambda x: x, "void(int32)")


@cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def hypot_plus(a, b):
    return math.sqrt(a * a + b * b) + 1


def test_vectorize_applies_a_scalar_function_with_broadcasting():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = hypot_plus(a, np.float32(2))  # broadcast scalar, float32 signature
    assert got.dtype == np.float32 and got.shape == (3, 4)
    np.testing.assert_allclose(got, np.sqrt(a * a + 4) + 1, rtol=1e-6)
    d = hypot_plus(cuda.to_device(np.array([3.0])), cuda.to_device(np.array([4.0])))  # device in, device out
    assert d.copy_to_host().tolist() == [6.0]
