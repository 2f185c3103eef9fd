"""Native kernels from C: the article's square kernel on 2^22 floats (launch + synchronize, built by aclsim cc
-O2, run by aclsim run) against a plain C++ loop over the same data, timed interleaved in one run.

    python benchmarks/bench_c_kernels.py [n] [repetitions]

Target: the kernel within 3x the loop (issue 21). Prints both times and the ratio.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    n = sys.argv[1] if len(sys.argv) > 1 else str(1 << 22)
    reps = sys.argv[2] if len(sys.argv) > 2 else "15"
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "square_bench"
        cc = [sys.executable, "-m", "aclsim", "cc", "-O2", str(HERE / "c" / "square_bench.asc"), "-o", str(prog)]
        subprocess.run(cc, check=True)
        r = subprocess.run([sys.executable, "-m", "aclsim", "run", "--soc", "Ascend950PR_9589", str(prog), n, reps],
                           check=True, capture_output=True, text=True)
    fields = dict(zip(r.stdout.split()[::2], r.stdout.split()[1::2], strict=False))
    kernel, loop = float(fields["kernel_ms"]), float(fields["loop_ms"])
    print(f"square kernel on {fields['n']} floats, best of {reps}: {kernel:.2f} ms (launch + synchronize); "
          f"plain C++ loop {loop:.2f} ms; ratio {kernel / loop:.2f}x (target <= 3x); wrong elements {fields['wrong']}")
    return 0 if fields["wrong"] == "0" else 1


if __name__ == "__main__":
    sys.exit(main())
