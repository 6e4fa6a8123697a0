"""Determinism baseline: SHA-256 of the event logs of seeded heuristic-bot hands.

The recorded games are played by ``heuristic-v1`` (bots/heuristic_v1.py: the heuristic bot
as it was when they were recorded, frozen when the improved ``heuristic`` of the difficulty
ladder replaced it) and by ``random``.

For each profile (and sanming also with 3 players; and each profile with random bots) hand ``i`` uses the explicit seed
``golden-{profile}-{i}`` (``golden-{profile}-3p-{i}`` for three players), dealer ``i mod n``
and four (three) heuristic (or random) bots seeded ``{seed}:{seat}``. The log is hashed exactly as
``fjmj replay`` reads it (``to_jsonl(game.events)``, UTF-8).

    python bench/golden.py --record [--hands 1000]   # write tests/data/golden_logs.json
    python bench/golden.py --check  [--hands 1000]   # compare; exit 1 on any mismatch

``tests/test_determinism.py`` checks the first 100 hands of every group.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import Game, to_jsonl
from fujian_mahjong.rules import BUILTIN

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "golden_logs.json"


def groups() -> list[tuple[str, str, int]]:
    """(group name, profile, players): every profile with heuristic bots, sanming also with
    3 players, and every profile with random bots (group name ending in ``-random``: they
    pin the order of the legal-action lists too)."""
    out = [(p, p, 4) for p in BUILTIN]
    out.append(("sanming-3p", "sanming", 3))
    out.extend((f"{p}-random", p, 4) for p in BUILTIN)
    return out


def hand_log(group: str, profile: str, players: int, i: int) -> str:
    """The JSONL event log of golden hand ``i`` of ``group``."""
    seed = f"golden-{group}-{i}"
    kind = "random" if group.endswith("-random") else "heuristic-v1"
    bots = [make_bot(kind, f"{seed}:{s}") for s in range(players)]
    g = Game.new(profile, seed=seed, players=players, dealer=i % players)
    n = 0
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
        n += 1
        if n > 5000:
            raise RuntimeError(f"golden hand {seed} does not end")
    return to_jsonl(g.events)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def compute(hands: int) -> dict[str, list[str]]:
    return {
        name: [digest(hand_log(name, prof, n, i)) for i in range(hands)]
        for name, prof, n in groups()
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", action="store_true")
    mode.add_argument("--check", action="store_true")
    ap.add_argument("--hands", type=int, default=1000)
    args = ap.parse_args(argv)
    if args.record:
        got = compute(args.hands)
        DATA.write_text(json.dumps(got, indent=0) + "\n", encoding="utf-8")
        print(f"recorded {args.hands} hands x {len(got)} groups -> {DATA}")
        return 0
    want = json.loads(DATA.read_text(encoding="utf-8"))
    bad = 0
    for name, prof, n in groups():
        ref = want[name]
        m = min(args.hands, len(ref))
        for i in range(m):
            if digest(hand_log(name, prof, n, i)) != ref[i]:
                bad += 1
                print(f"MISMATCH {name} hand {i} (seed golden-{name}-{i})")
        print(f"{name}: {m} hands checked", flush=True)
    print("identical" if not bad else f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
