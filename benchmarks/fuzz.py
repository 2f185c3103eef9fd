"""Long fuzz run: random pyACL call sequences ("runtime") and generated cases of the newer surfaces (models,
operators, DVPP, Ascend C queues/UB, SIMT launch configurations), with the generators and checks of
tests/fuzzer.py and tests/fuzz_surfaces.py.

Each batch runs in a child process; a crash, a hang, an undocumented code, an internal traceback, a silent
success or device bytes that differ from what was written stops the run and prints the seed and the case.
At the end it prints, per surface, the cases run and their outcomes (ok / a code / a clear error).

Run: python benchmarks/fuzz.py --cases 20000 [--surfaces all] [--batch 250] [--seed 1]
     python benchmarks/fuzz.py --minutes 5 --surfaces runtime
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import fuzz_surfaces
import fuzzer

ALL = ("runtime", *fuzz_surfaces.SURFACES)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=0, help="stop after this many cases in all (default: --minutes)")
    ap.add_argument("--minutes", type=float, default=1.0, help="how long to run when --cases is not given")
    ap.add_argument("--surfaces", default="all", help=f"comma-separated subset of {', '.join(ALL)} (default all)")
    ap.add_argument("--ops", type=int, default=80, help="operations per runtime sequence (default 80)")
    ap.add_argument("--batch", type=int, default=250, help="cases per child process (default 250)")
    ap.add_argument("--seed", type=int, default=int(time.time()), help="first batch's seed (default: the time)")
    args = ap.parse_args()
    surfaces = ALL if args.surfaces == "all" else tuple(s.strip() for s in args.surfaces.split(","))
    unknown = set(surfaces) - set(ALL)
    if unknown:
        ap.error(f"unknown surfaces {sorted(unknown)}; choose from {', '.join(ALL)}")
    end = time.monotonic() + args.minutes * 60
    seed, total = args.seed, 0
    outcomes: dict[str, Counter] = {s: Counter() for s in surfaces}
    t0 = time.monotonic()
    while (total < args.cases) if args.cases else (time.monotonic() < end):
        for surface in surfaces:
            rng = random.Random(seed)
            n = min(args.batch, args.cases - total) if args.cases else args.batch
            if n <= 0:
                break
            cases = [fuzzer.generate_case(surface, lambda lo, hi, r=rng: r.randint(lo, hi), args.ops)
                     for _ in range(n)]
            r = fuzzer.run_child(cases)
            total += r.passed
            for s, c in r.outcomes.items():
                outcomes[s].update(c)
            if r.failure is not None:
                print(f"\nFAILED (surface {surface}, batch seed {seed}, after {total} cases): {r.failure}")
                return 1
            print(f"\r{total:,} cases, 0 failures, {total / (time.monotonic() - t0):.0f} cases/s", end="", flush=True)
            seed += 1
    print(f"\ndone in {time.monotonic() - t0:.0f} s: {total:,} cases, 0 internal tracebacks, 0 hangs, 0 crashes, "
          "0 silent successes")
    print(f"{'surface':<10} {'cases':>7} {'ok':>7} {'code':>7} {'error':>7}")
    for s in surfaces:
        c = outcomes[s]
        print(f"{s:<10} {sum(c.values()):>7,} {c['ok']:>7,} {c['code']:>7,} {c['error']:>7,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
