"""``fjmj scenario``: run rule scenarios (stacked walls, scripted moves, expectations).

Exit status: 0 every scenario passes, 1 some check fails, 2 a file is bad input (unreadable,
not a regular file, too large, not UTF-8, empty, not JSON, or a scenario that does not
validate). Check lines are printed in the UI language (``--lang``).
"""

from __future__ import annotations

import argparse
import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fujian_mahjong.engine import Game

MAX_FILES = 1000


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "scenario", help="run rule scenarios (.json / .jsonl) and check expectations"
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="one JSON object per scenario")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--trace", action="store_true", help="print the play-by-play of each scenario")
    p.set_defaults(func=run)


# The runner names its checks in English; these patterns give the Chinese line.
_WHERE = r"(after|before) (\d+)"
_ZH_CHECKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"^state (\w+) {_WHERE}$"), "状态 {0} ({1})"),
    (re.compile(rf"^legal seat (\d+) includes (.+) {_WHERE}$"), "{0}号可选 {1} ({2})"),
    (re.compile(rf"^legal seat (\d+) excludes (.+) {_WHERE}$"), "{0}号不可选 {1} ({2})"),
    (re.compile(rf"^illegal seat (\d+) (.+) {_WHERE}$"), "{0}号 {1} 被拒绝 ({2})"),
    (re.compile(r"^action (\d+)$"), "第{0}步"),
    (re.compile(r"^result$"), "结果"),
    (re.compile(r"^score$"), "得分"),
]


_ZH_STATE = {
    "to_act": "待行动",
    "live": "余牌",
    "reserve": "留牌",
    "wall": "牌墙",
    "gold": "金",
    "flowers": "花",
    "hand": "手牌",
    "hand_sizes": "张数",
    "melds": "副露",
    "xian_jin": "闲金",
}


def _zh_where(point: str, n: str) -> str:
    return f"第{n}步后" if point == "after" else f"第{n}步前"


def check_label(check: str, lang: str) -> str:
    """A check's name in the UI language (the runner's names are English)."""
    if lang != "zh":
        return check
    for pat, fmt in _ZH_CHECKS:
        m = pat.match(check)
        if not m:
            continue
        g = list(m.groups())
        if len(g) >= 2 and g[-2] in ("after", "before"):
            g = [*g[:-2], _zh_where(g[-2], g[-1])]
        if check.startswith("state "):
            g[0] = _ZH_STATE.get(g[0], g[0])
        return fmt.format(*g)
    return check


def _trace(g: Game, lang: str) -> None:
    from fujian_mahjong.engine.narrate import describe

    for e in g.events:
        line = describe(e, lang)
        if line:
            print(f"    {line}")


def run(args: argparse.Namespace) -> int:
    from fujian_mahjong.cli.common import CliError
    from fujian_mahjong.errors import ScenarioError
    from fujian_mahjong.scenario import Outcome, load_scenarios, run_scenario

    if len(args.files) > MAX_FILES:
        raise CliError(f"{len(args.files):,} files (at most {MAX_FILES:,} at once)")
    scenarios = []
    for f in args.files:
        try:
            scenarios.extend(load_scenarios(f))
        except ScenarioError as e:
            raise CliError(str(e)) from None
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
                f"  {'✓' if c.ok else '✗'} {check_label(c.check, args.lang)}"
                + (f": {c.detail}" if c.detail and not c.ok else "")
            )
    if not args.json:
        total = len(outcomes)
        if zh:
            print(f"{total - failed} 个场景通过, {failed} 个失败 (共 {total})")
        else:
            print(f"{total - failed} scenarios passed, {failed} failed (of {total})")
    return 1 if failed else 0
