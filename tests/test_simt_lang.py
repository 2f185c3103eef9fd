"""aclsim.simt kernel language: C typing, divergent control flow, device functions, refusals."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
from aclsim import simt
from aclsim.simt import Ptr, blockDim, blockIdx, threadIdx


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def launch(kernel, grid, block, *args):
    """Run a kernel on device copies of the numpy arguments; returns the arrays after the kernel."""
    dev = [aclsim.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid, block](*dev)
    aclsim.Stream.default().synchronize()
    return [d.copy_to_host() for d in dev if isinstance(d, aclsim.DeviceArray)]


# ------------------------------------------------------------------------------------ typing
@simt.kernel
def sub_u32(a: np.uint32, b: np.uint32, out: Ptr[np.uint32]):
    out[threadIdx.x] = a - b + threadIdx.x


def test_uint32_arithmetic_wraps_like_c():
    (out,) = launch(sub_u32, 1, 4, 3, 5, np.zeros(4, np.uint32))
    assert out.tolist() == [(3 - 5 + t) % 2**32 for t in range(4)]


@simt.kernel
def int_div_mod(x: Ptr[np.int32], y: Ptr[np.int32], q: Ptr[np.int32], r: Ptr[np.int32]):
    i = threadIdx.x
    q[i] = x[i] / y[i]
    r[i] = x[i] % y[i]


def test_integer_division_truncates_and_remainder_follows_the_dividend():
    x = np.array([7, -7, 7, -7, 0, 9], np.int32)
    y = np.array([2, 2, -2, -2, 3, 3], np.int32)
    q, r = launch(int_div_mod, 1, 6, x, y, np.zeros(6, np.int32), np.zeros(6, np.int32))[2:]
    assert q.tolist() == [int(a / b) for a, b in zip(x.tolist(), y.tolist(), strict=True)]
    assert r.tolist() == np.fmod(x, y).tolist()


@simt.kernel
def float_kinds(x32: Ptr[np.float32], i32: Ptr[np.int32], out: Ptr[np.float64]):
    i = threadIdx.x
    out[2 * i] = x32[i] * 1.1  # a Python float literal does not widen float32
    out[2 * i + 1] = i32[i] / 3.0  # int with float: float32


def test_float32_stays_float32_and_int_with_float_gives_float32():
    x = np.random.default_rng(0).random(8, dtype=np.float32)
    ints = np.arange(-4, 4, dtype=np.int32)
    out = launch(float_kinds, 1, 8, x, ints, np.zeros(16))[2]
    assert np.array_equal(out[0::2], (x * np.float32(1.1)).astype(np.float64))
    assert np.array_equal(out[1::2], (ints.astype(np.float32) / np.float32(3)).astype(np.float64))


@simt.kernel
def half_fma(a: Ptr[np.float16], b: Ptr[np.float16], c: Ptr[np.float16], out: Ptr[np.float16]):
    i = blockIdx.x * blockDim.x + threadIdx.x
    out[i] = a[i] * b[i] + c[i]


def test_float16_arithmetic_stays_float16():
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(512).astype(np.float16) for _ in range(3))
    out = launch(half_fma, 2, 256, a, b, c, np.zeros(512, np.float16))[3]
    assert np.array_equal(out, a * b + c)


@simt.kernel
def signed_vs_unsigned(x: Ptr[np.int32], n: np.uint32, out: Ptr[np.int32]):
    i = threadIdx.x
    out[i] = 1 if x[i] < n else 0  # C converts x to unsigned: -1 < 1u is false


def test_comparison_uses_c_conversions():
    out = launch(signed_vs_unsigned, 1, 3, np.array([-1, 0, 5], np.int32), 1, np.zeros(3, np.int32))[1]
    assert out.tolist() == [0, 1, 0]


@simt.kernel
def bits(x: Ptr[np.uint32], out: Ptr[np.uint32]):
    i = threadIdx.x
    out[i] = ((x[i] << 3) ^ (x[i] >> 2)) & 0xFFFF | ~x[i] & 0xF0000


def test_bitwise_operators_on_uint32():
    x = np.random.default_rng(2).integers(0, 2**32, 64, dtype=np.uint32)
    out = launch(bits, 1, 64, x, np.zeros(64, np.uint32))[1]
    assert np.array_equal(out, ((x << 3) ^ (x >> 2)) & 0xFFFF | ~x & 0xF0000)


@simt.kernel
def math_fns(x: Ptr[np.float32], out: Ptr[np.float32]):
    i = threadIdx.x
    v = x[i]
    out[i] = simt.sqrt(v) + simt.exp(-v) + simt.max(v, 0.5) - simt.min(v, 0.25) + simt.abs(v - 1.0)


def test_math_functions_keep_float32():
    x = np.random.default_rng(3).random(32, dtype=np.float32)
    out = launch(math_fns, 1, 32, x, np.zeros(32, np.float32))[1]
    ref = np.sqrt(x) + np.exp(-x) + np.maximum(x, np.float32(0.5)) - np.minimum(x, np.float32(0.25)) + np.abs(x - 1)
    assert np.array_equal(out, ref)


# ------------------------------------------------------------------------------------ control flow
@simt.kernel
def loops(out: Ptr[np.int32], n: np.int32):
    t = np.int32(blockIdx.x * blockDim.x + threadIdx.x)
    if t >= n:
        return
    acc = 0
    for j in range(t % 37):  # a different trip count per thread
        if j % 3 == 0:
            continue
        if j > 25:
            break
        acc += j
    k = t
    while k > 0:
        k -= 7
        if k == 14:
            out[t] = -acc
            return
    if acc > 100:
        acc = acc * 2
    elif acc > 50:
        acc = acc + 1000
    else:
        acc = acc - 1
    out[t] = acc


def loops_ref(t: int) -> int:
    acc = 0
    for j in range(t % 37):
        if j % 3 == 0:
            continue
        if j > 25:
            break
        acc += j
    k = t
    while k > 0:
        k -= 7
        if k == 14:
            return -acc
    if acc > 100:
        return acc * 2
    if acc > 50:
        return acc + 1000
    return acc - 1


def test_divergent_loops_break_continue_return():
    n = 1000
    out = launch(loops, 4, 256, np.full(1024, 7777, np.int32), n)[0]
    assert out[:n].tolist() == [loops_ref(t) for t in range(n)]
    assert (out[n:] == 7777).all()  # returned threads stored nothing


@simt.device
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@simt.device
def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@simt.kernel
def uses_device_fns(out: Ptr[np.int32]):
    t = np.int32(blockIdx.x * blockDim.x + threadIdx.x)
    out[t] = clamp(collatz_steps(t + 1), 5, 100)


def test_device_functions_with_divergent_returns():
    out = launch(uses_device_fns, 2, 128, np.zeros(256, np.int32))[0]

    def steps(n):
        s = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            s += 1
        return s

    assert out.tolist() == [min(max(steps(t + 1), 5), 100) for t in range(256)]


@simt.kernel
def guarded_loads(x: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    i = blockIdx.x * blockDim.x + threadIdx.x
    a = x[i] if i < n else np.float32(-1)
    b = 1 if i < n and x[i] > 0.5 else 0
    out[i] = a + b


def test_short_circuit_and_conditional_expressions_do_not_load_in_masked_lanes():
    n = 1000
    x = np.random.default_rng(4).random(n, dtype=np.float32)
    out = launch(guarded_loads, 4, 256, x, np.zeros(1024, np.float32), n)[1]
    assert np.array_equal(out[:n], x + (x > 0.5))
    assert (out[n:] == -1).all()


@simt.kernel
def grid_coords(out: Ptr[np.uint32], width: np.uint32, height: np.uint32):
    x = blockIdx.x * blockDim.x + threadIdx.x
    y = blockIdx.y * blockDim.y + threadIdx.y
    z = blockIdx.z * blockDim.z + threadIdx.z
    if x < width and y < height:
        out[(z * height + y) * width + x] = x * 1000000 + y * 1000 + z


def test_three_dimensional_grid_and_block_indices():
    w, h, d = 37, 21, 4
    out = launch(grid_coords, simt.dim3(5, 3, 2), (8, 8, 2), np.zeros(w * h * d, np.uint32), w, h)[0]
    z, y, x = np.meshgrid(np.arange(d), np.arange(h), np.arange(w), indexing="ij")
    assert np.array_equal(out.reshape(d, h, w), (x * 1000000 + y * 1000 + z).astype(np.uint32))


@simt.kernel
def grid_stride(x: Ptr[np.float32], n: np.int32):
    for i in range(blockIdx.x * blockDim.x + threadIdx.x, n, blockDim.x * gridDim.x):
        x[i] = x[i] * 2 + 1


gridDim = simt.gridDim


def test_range_loop_with_per_thread_start_covers_every_element_once():
    n = 100_003
    x = np.random.default_rng(5).random(n, dtype=np.float32)
    out = launch(grid_stride, 13, 128, x, n)[0]
    assert np.array_equal(out, x * 2 + 1)


@simt.kernel
def big_square(inp: Ptr[np.float32], out: Ptr[np.float32], size: np.uint32):
    tid = blockIdx.x * blockDim.x + threadIdx.x
    if tid < size:
        out[tid] = inp[tid] * inp[tid]


def test_launch_larger_than_one_chunk():
    n = (1 << 19) + 77
    x = np.random.default_rng(6).random(n, dtype=np.float32)
    out = launch(big_square, (n + 255) // 256, 256, x, np.zeros(n, np.float32), n)[1]
    assert np.array_equal(out, x * x)


@simt.kernel
def swap_and_annotate(x: Ptr[np.int32], out: Ptr[np.float32]):
    i = threadIdx.x
    a, b = x[i], i
    a, b = b, a
    f: np.float32 = a + b
    out[i] = f / 2


def test_tuple_assignment_and_annotated_locals():
    x = np.arange(10, 20, dtype=np.int32)
    out = launch(swap_and_annotate, 1, 10, x, np.zeros(10, np.float32))[1]
    assert np.array_equal(out, (x + np.arange(10)).astype(np.float32) / 2)


# ------------------------------------------------------------------------------------ refusals
def _refused(source: str, tmp_path, name: str = "k"):
    """Define a kernel from source in a real file and launch it; returns the SimtError text."""
    path = tmp_path / "kmod.py"
    path.write_text("import numpy as np\nfrom aclsim import simt\n" + source)
    ns: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    out = aclsim.zeros(4, np.float32)
    with pytest.raises(simt.SimtError) as e:
        ns[name][1, 4](out)
    return str(e.value), str(path)


@pytest.mark.parametrize(
    ("body", "construct", "line"),
    [
        ("    with open('f') as f:\n        pass\n", "'with' statement", 5),
        ("    try:\n        x[0] = 1\n    except Exception:\n        pass\n", "'try' statement", 5),
        ("    x[0] = abs([1, 2])\n", "a list", 5),
        ("    for v in (1, 2):\n        x[0] = v\n", "iterating over", 5),
        ("    x[0] = print(1)\n", "print() inside an expression", 5),
        ("    return 3\n", "returning a value from a kernel", 5),
        ("    y = x * 2\n", "pointer/shared array 'x'", 5),
        ("    x[0] = [i for i in range(3)][0]\n", "list comprehension", 5),
    ],
)
def test_unsupported_constructs_are_refused_with_construct_and_line(tmp_path, body, construct, line):
    src = f"@simt.kernel\ndef k(x: simt.Ptr[np.float32]):\n{body}"
    msg, path = _refused(src, tmp_path)
    assert construct in msg
    assert f"{path}:{line}" in msg


@simt.device
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@simt.kernel
def fibs(out: simt.Ptr[np.int64]):
    i = simt.threadIdx.x
    out[i] = fib(np.int64(i))


def test_recursive_device_functions_run_per_thread():
    out = launch(fibs, 1, 12, np.zeros(12, np.int64))[0]
    assert out.tolist() == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]


def test_runaway_recursion_faults_the_launch(tmp_path):
    path = tmp_path / "kmod.py"
    path.write_text("import numpy as np\nfrom aclsim import simt\n"
                    "@simt.device\ndef f(n):\n    return f(n - 1)\n\n"
                    "@simt.kernel\ndef k(x: simt.Ptr[np.float32]):\n    x[0] = f(3)\n")
    ns: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    out = aclsim.zeros(4, np.float32)
    ns["k"][1, 4](out)
    with pytest.raises(aclsim.AclError, match="RecursionError"):
        aclsim.Stream.default().synchronize()


def test_refused_kernel_queues_nothing(tmp_path):
    out = aclsim.to_device(np.ones(4, np.float32))
    src = "@simt.kernel\ndef k(x: simt.Ptr[np.float32]):\n    x[0] = 5\n    y = [x[0]]\n"
    _refused(src, tmp_path)
    assert aclsim.Stream.default().query()
    assert out.copy_to_host().tolist() == [1, 1, 1, 1]


def test_parameters_need_annotations():
    with pytest.raises(simt.SimtError, match="parameter 'n' needs a type annotation"):
        @simt.kernel
        def k(x: Ptr[np.float32], n):
            x[0] = n


def test_launch_configuration_is_checked():
    out = aclsim.zeros(4, np.float32)
    with pytest.raises(simt.SimtError, match="at most 2048 per block"):
        big_square[1, (64, 64)](out, out, 4)
    with pytest.raises(simt.SimtError, match="between 1 and"):
        big_square[0, 256](out, out, 4)
    with pytest.raises(simt.SimtError, match="host numpy array"):
        big_square[1, 4](np.zeros(4, np.float32), out, 4)
    with pytest.raises(simt.SimtError, match="does not fit uint32"):
        big_square[1, 4](out, out, -1)
    with pytest.raises(simt.SimtError, match="launch configuration"):
        big_square(out, out, 4)


def test_in_kernel_names_raise_outside_kernels():
    with pytest.raises(simt.SimtError, match=r"inside a @simt\.kernel"):
        simt.syncthreads()
    with pytest.raises(simt.SimtError, match=r"threadIdx\.x"):
        _ = threadIdx.x


@simt.kernel
def chained_and_empty_bodies(counter: Ptr[np.int32], out: Ptr[np.int32]):
    i = threadIdx.x
    if i > 100:
        pass
    else:
        """only a docstring"""
    a = b = simt.atomic_add(counter, 0, 1)  # one atomic per thread, not two
    out[i] = a + b


def test_chained_assignment_evaluates_once_and_empty_bodies_compile():
    counter, out = aclsim.zeros(1, np.int32), aclsim.zeros(8, np.int32)
    chained_and_empty_bodies[1, 8](counter, out)
    assert counter.copy_to_host()[0] == 8
    assert np.array_equal(np.sort(out.copy_to_host()), np.arange(8) * 2)


@simt.kernel
def ranges(out: Ptr[np.int32], a: np.uint32, b: np.uint32):
    t = blockIdx.x * blockDim.x + threadIdx.x
    v = 0
    if t >= a and t < b:
        v += 1
    if t < a or t >= b:
        v += 10
    if not (t < b):
        v += 100
    elif t <= a:
        v += 1000
    w = t - a if t > a else a - t
    out[t] = v * 100000 + w


@pytest.mark.parametrize(("a", "b"), [(0, 0), (0, 1024), (100, 900), (256, 512), (700, 300), (1023, 5000)])
def test_conditions_on_thread_ranges(a, b):
    out = launch(ranges, 4, 256, np.zeros(1024, np.int32), a, b)[0]
    t = np.arange(1024)
    v = ((t >= a) & (t < b)) * 1 + ((t < a) | (t >= b)) * 10 + (t >= b) * 100 + ((t < b) & (t <= a)) * 1000
    assert np.array_equal(out, v * 100000 + np.abs(t - a))


def test_pointer_element_types_are_numbers():
    with pytest.raises(simt.SimtError, match=r"integer, float and complex element types \(and records of them\) only"):
        simt.Ptr[np.dtype("U4")]
    assert simt.Ptr[np.complex64].dtype == np.complex64


@simt.kernel
def says(x: Ptr[np.float32]):
    t = threadIdx.x
    if t % 2 == 1:
        print("thread", t, "has", x[t])


def test_print_runs_in_every_active_thread_in_thread_order(capsys):
    launch(says, 1, 6, np.arange(6, dtype=np.float32) / 2)
    assert capsys.readouterr().out.splitlines() == ["thread 1 has 0.5", "thread 3 has 1.5", "thread 5 has 2.5"]


@simt.kernel
def stepped(steps: Ptr[np.int32], out: Ptr[np.int32]):
    t = np.int32(threadIdx.x)
    acc = 0
    for i in range(t, -3, -2):  # negative step, per-thread start
        acc += i
    for _j in range(0, 40, steps[t]):  # per-thread step, positive or negative
        acc += 1000
    for _k in range(10, t, steps[t]):
        acc += 100000
    out[t] = acc


def test_range_loops_with_negative_and_per_thread_steps():
    steps = np.array([1, 3, -2, 7, 5, -1, 40, 2], np.int32)
    out = launch(stepped, 1, 8, steps, np.zeros(8, np.int32))[1]
    expected = [sum(range(t, -3, -2)) + 1000 * len(range(0, 40, s)) + 100000 * len(range(10, t, s))
                for t, s in enumerate(steps.tolist())]
    assert out.tolist() == expected


# ------------------------------------------------------------------------------------ pointers and rebinding
@simt.kernel
def row_scale(m: Ptr[np.float32], f: Ptr[np.float32], cols: np.int32):
    r = blockIdx.x
    row = m + r * cols  # pointer arithmetic: this block's row
    c = threadIdx.x
    if c < cols:
        row[c] = row[c] * f[r]


def test_pointer_arithmetic_offsets_a_pointer_per_thread():
    a = np.arange(5 * 7, dtype=np.float32).reshape(5, 7)
    f = np.arange(1, 6, dtype=np.float32)
    out = launch(row_scale, 5, 8, a, f, 7)[0]
    assert np.array_equal(out.reshape(5, 7), a * f[:, None])


@simt.kernel
def ping_pong(a: Ptr[np.int32], b: Ptr[np.int32], steps: np.int32):
    i = threadIdx.x
    src = a
    dst = b
    for _ in range(steps):
        dst[i] = src[i] + 1
        src, dst = dst, src  # swap the buffers (every thread alike)
        simt.syncthreads()


def test_rebinding_names_to_other_pointers():
    a = np.zeros(16, np.int32)
    b = np.zeros(16, np.int32)
    out_a, out_b = launch(ping_pong, 1, 16, a, b, 5)
    assert out_b.tolist() == [5] * 16 and out_a.tolist() == [4] * 16


@simt.kernel
def divergent_rebind(a: Ptr[np.int32], b: Ptr[np.int32]):
    i = threadIdx.x
    p = a
    if i % 2 == 0:
        p = b
    p[i] = 1


def test_rebinding_to_different_arrays_in_some_threads_faults():
    d = [aclsim.to_device(np.zeros(4, np.int32)) for _ in range(2)]
    divergent_rebind[1, 4](*d)
    with pytest.raises(aclsim.AclError, match="bound to different arrays in different threads"):
        aclsim.Stream.default().synchronize()


def test_a_refused_construct_is_raised_from_the_launch_not_from_inside_the_compiler():
    import traceback

    @simt.kernel
    def uses_with(x: Ptr[np.float32]):
        with open("f"):
            x[0] = 1.0

    with pytest.raises(simt.SimtError, match=r"a 'with' statement is not supported in a simt kernel") as e:
        uses_with.compile()
    assert not [f for f in traceback.extract_tb(e.value.__traceback__) if f.filename.endswith("compiler.py")]
