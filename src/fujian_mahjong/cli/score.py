"""``fjmj score``: score a win situation (R10) from JSON, with its breakdown.

Hostile input never gives a traceback: the input is a regular file or standard
input of at most :data:`MAX_INPUT` bytes of UTF-8 JSON with bounded depth and digits (the
shared readers in :mod:`fujian_mahjong.fileio`), every number is range-checked where it
enters (:func:`fujian_mahjong.scoring.situation_from_json`), and every error is one line
naming the field at fault (exit 2).
"""

from __future__ import annotations

import argparse
import json

from rich.cells import cell_len

from fujian_mahjong.fileio import excerpt, loads, read_input
from fujian_mahjong.scoring import SPECIAL_NAMES, Score, score, situation_from_json

MAX_INPUT = 1 << 20  # bytes: a situation is a few hundred bytes


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("score", help="score a win situation given as JSON (R10)")
    p.add_argument("file", help="JSON file with the situation, or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.set_defaults(func=run)


def _label(zh: str, en: str, lang: str) -> str:
    return zh if lang == "zh" else en


def render(sc: Score, lang: str) -> str:
    """The breakdown as aligned rows (display width, so CJK labels line up), then the
    specials, the points and every seat's payment."""
    rows = [(t.zh if lang == "zh" else t.en, str(t.value)) for t in sc.breakdown]
    if sc.specials:
        names = ", ".join(_label(*SPECIAL_NAMES[s], lang) for s in sc.specials)
        rows.append((_label("特殊牌型", "specials", lang), names))
    discard = bool(sc.breakdown) and sc.breakdown[-1].key == "total_discard"
    if sc.winner is None:
        head = _label("得分（黄庄）", "points (draw)", lang)
    elif discard:
        head = _label("得分（放胡者付）", "points (the discarder pays)", lang)
    else:
        head = _label("得分（每家付）", "points (each payer pays)", lang)
    rows.append((head, str(sc.points)))
    seat = _label("{}号", "seat {}", lang)
    pays = "  ".join(f"{seat.format(i)} {p:+d}" for i, p in enumerate(sc.payments))
    rows.append((_label("支付", "payments", lang), pays))
    label_w = max(cell_len(label) for label, _ in rows)
    value_w = max(len(v) for _, v in rows if v.lstrip("-").isdigit())
    lines = []
    for label, value in rows:
        pad = " " * (label_w - cell_len(label))
        # numbers right-aligned in one column; names and the payment row left-aligned
        numeric = value.lstrip("-").isdigit()
        v = value.rjust(value_w) if numeric else value
        lines.append(f"{label}{pad}  {v}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    name = "standard input" if args.file == "-" else excerpt(args.file, 120)
    data = loads(read_input(args.file, MAX_INPUT), name)
    sc = score(situation_from_json(data))
    if args.json:
        print(json.dumps(sc.to_json(), ensure_ascii=False))
    else:
        print(render(sc, args.lang))
    return 0
