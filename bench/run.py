"""`make bench`: runs every benchmark in bench/ and prints the figures (one core).

Each module's ``run()`` returns rows ``(label, value, unit, target)``: a target of 0 is
none, a positive one a lower bound (``>= target``), a negative one an upper bound
(``<= -target``: a growth, a latency)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MODULES = [
    "bench.bench_analysis",
    "bench.bench_engine",
    "bench.bench_bots",
    "bench.bench_cli",
    "bench.bench_rl",
    "bench.bench_vec",
    "bench.bench_core",
    "bench.bench_server",
    "bench.bench_cluster",
    "bench.bench_claims",
    "bench.bench_soak",
]


def main() -> int:
    from fujian_mahjong import _compiled

    print(f"fujian_mahjong: {_compiled.status()['reason']}")
    # other work on the machine makes every figure worse: say how busy it was
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"{'benchmark':<58} {'figure':>14}  target")
    for name in MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue
            raise
        for label, value, unit, target in mod.run():
            if target >= 0:
                tgt = f">= {target:,.0f}{unit}" if target else ""
                mark = "" if not target else ("  ok" if value >= target else "  BELOW TARGET")
            else:
                tgt = f"<= {-target:,.0f}{unit}"
                mark = "  ok" if value <= -target else "  ABOVE TARGET"
            print(f"{label:<58} {value:>14,.2f}  {tgt}{mark}", flush=True)
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
