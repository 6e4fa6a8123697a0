"""``fjmj scenario``: run rule scenarios (stacked walls, scripted moves, expectations)."""

from __future__ import annotations

import argparse
import json
import sys

from fujian_mahjong.engine import Game
from fujian_mahjong.engine.narrate import describe
from fujian_mahjong.errors import ScenarioError
from fujian_mahjong.scenario import Outcome, load_scenarios, run_scenario


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "scenario", help="run rule scenarios (.json / .jsonl) and check expectations"
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="one JSON object per scenario")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--trace", action="store_true", help="print the play-by-play of each scenario")
    p.set_defaults(func=run)


def _trace(g: Game, lang: str) -> None:
    for e in g.events:
        line = describe(e, lang)
        if line:
            print(f"    {line}")


def run(args: argparse.Namespace) -> int:
    scenarios = []
    for f in args.files:
        try:
            scenarios.extend(load_scenarios(f))
        except ScenarioError as e:
            print(f"fjmj: scenario: {e}", file=sys.stderr)
            return 2
    outcomes: list[Outcome] = [run_scenario(sc) for sc in scenarios]
    zh = args.lang == "zh"
    failed = 0
    for o in outcomes:
        if not o.passed:
            failed += 1
        if args.json:
            print(json.dumps(o.to_json(), ensure_ascii=False))
            continue
        mark = "✓" if o.passed else "✗"
        print(f"{mark} {o.scenario.name}  ({o.scenario.source})")
        if args.trace and o.game is not None:
            _trace(o.game, args.lang)
        for c in o.checks:
            print(
                f"  {'✓' if c.ok else '✗'} {c.check}"
                + (f": {c.detail}" if c.detail and not c.ok else "")
            )
    if not args.json:
        total = len(outcomes)
        if zh:
            print(f"{total - failed} 个场景通过, {failed} 个失败 (共 {total})")
        else:
            print(f"{total - failed} scenarios passed, {failed} failed (of {total})")
    return 1 if failed else 0
