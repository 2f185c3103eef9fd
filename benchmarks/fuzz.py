"""Long fuzz run of random pyACL call sequences (the generator and checks of tests/fuzzer.py).

Each batch of sequences runs in a child process; a crash, a hang, an undocumented code or device
bytes that differ from what was written stops the run and prints the seed and the sequence.

Run: python benchmarks/fuzz.py --minutes 5 [--ops 80] [--batch 500] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import fuzzer


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=1.0, help="how long to run (default 1)")
    ap.add_argument("--ops", type=int, default=80, help="operations per sequence (default 80)")
    ap.add_argument("--batch", type=int, default=500, help="sequences per child process (default 500)")
    ap.add_argument("--seed", type=int, default=int(time.time()), help="first batch's seed (default: the time)")
    args = ap.parse_args()
    end = time.monotonic() + args.minutes * 60
    seed, total = args.seed, 0
    t0 = time.monotonic()
    while time.monotonic() < end:
        rng = random.Random(seed)
        seqs = [fuzzer.generate(lambda lo, hi, r=rng: r.randint(lo, hi), args.ops) for _ in range(args.batch)]
        passed, failure = fuzzer.run_child(seqs)
        total += passed
        if failure is not None:
            print(f"FAILED (batch seed {seed}, after {total} sequences): {failure}")
            return 1
        rate = total / (time.monotonic() - t0)
        print(f"\r{total:,} sequences ({total * args.ops:,} calls), 0 failures, {rate:.0f} sequences/s",
              end="", flush=True)
        seed += 1
    print(f"\ndone: {total:,} random sequences of {args.ops} calls: 0 crashes, 0 hangs, 0 invariant failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
