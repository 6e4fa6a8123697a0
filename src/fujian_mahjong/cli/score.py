"""``fjmj score``: score a win situation (R10) from JSON, with its breakdown."""

from __future__ import annotations

import argparse
import json

from fujian_mahjong.cli.common import read_input
from fujian_mahjong.errors import ScoreInputError
from fujian_mahjong.scoring import Score, score, situation_from_json


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("score", help="score a win situation given as JSON (R10)")
    p.add_argument("file", help="JSON file with the situation, or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.set_defaults(func=run)


def render(sc: Score, lang: str) -> str:
    lines = []
    for t in sc.breakdown:
        label = t.zh if lang == "zh" else t.en
        lines.append(f"  {label:<36} {t.value:>6}")
    head = "得分" if lang == "zh" else "Points"
    pay = "支付" if lang == "zh" else "Payments"
    seat = "座" if lang == "zh" else "seat "
    lines.append(f"{head}: {sc.points}")
    lines.append(f"{pay}: " + "  ".join(f"{seat}{i}: {p:+d}" for i, p in enumerate(sc.payments)))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScoreInputError(f"{args.file}: not valid JSON: {e}") from None
    sc = score(situation_from_json(data))
    if args.json:
        print(json.dumps(sc.to_json(), ensure_ascii=False))
    else:
        print(render(sc, args.lang))
    return 0
