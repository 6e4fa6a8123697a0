"""Before/after speed in one run: hands/s of ``sim.play_hand`` (CPU time, a fresh
process per figure, alternating variants so machine drift hits them all alike).

    python bench/compare.py --variant base=/path/to/old-checkout/src \\
        [--variant other=/path/src] [--profiles fuzhou-tcy,sanming] [--rounds 2]

This tree is always measured twice: compiled (as installed) and with FJMJ_PURE_PYTHON=1.
A variant is NAME=SRC_DIR (e.g. ``git worktree add /tmp/base 82fa44a`` → /tmp/base/src).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

CODE = """
import sys, time
from fujian_mahjong.sim import play_hand
prof, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = time.process_time()
for i in range(n):
    play_hand(prof, "bench", i, (kind,) * 4)
print(n / (time.process_time() - t))
"""
HANDS = {"random": 1500, "heuristic": 400}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", action="append", default=[], help="NAME=SRC_DIR")
    ap.add_argument("--profiles", default="fuzhou-tcy,fuzhou-bianfeng,fuzhou-doudou,sanming")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent.parent / "src")
    variants: dict[str, tuple[str, str]] = {}
    for v in args.variant:
        name, sep, src = v.partition("=")
        if not sep or not Path(src, "fujian_mahjong").is_dir():
            ap.error(f"--variant {v!r}: expected NAME=SRC_DIR holding fujian_mahjong/")
        variants[name] = (src, "0")
    variants["now pure"] = (here, "1")
    variants["now compiled"] = (here, "0")
    res: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for prof in args.profiles.split(","):
            for kind, n in HANDS.items():
                for name, (src, pure) in variants.items():
                    env = {**os.environ, "PYTHONPATH": src, "FJMJ_PURE_PYTHON": pure}
                    out = subprocess.run(
                        [sys.executable, "-c", CODE, prof, kind, str(n)],
                        env=env,
                        capture_output=True,
                        text=True,
                    )
                    if out.returncode:
                        print(f"{name}: {out.stderr.strip()[-300:]}", file=sys.stderr)
                        return 1
                    res.setdefault(f"{kind:9} {prof:15} {name}", []).append(float(out.stdout))
    for k, v in res.items():
        print(f"{k:45} " + " ".join(f"{x:8,.0f}" for x in v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
