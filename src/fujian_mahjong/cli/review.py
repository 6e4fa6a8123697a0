"""``fjmj review LOG --seat S``: one seat's decisions in a hand log beside the 高手's
(``--bot strong``, the default: the strongest bot that fits a review's time budget) or the
heuristic bot's (``--bot heuristic``), with the estimated cost in points of each departure
(the logic is :func:`fujian_mahjong.review.review`; this module only prints it).

Exit status: 0 reviewed; 1 the log does not verify; 2 bad input (as ``fjmj replay``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fujian_mahjong.cli.common import CliError
from fujian_mahjong.fileio import excerpt, read_input


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "review",
        help="review one seat's decisions in a hand log against the 高手 (strong bot)",
        description="One seat's decisions in a hand log beside the 高手's (--bot strong, the "
        "default) or the heuristic bot's (--bot heuristic), with the estimated cost in "
        "points of each departure.",
    )
    p.add_argument("file", metavar="LOG", help="hand event log (.jsonl), or - for standard input")
    p.add_argument("--seat", required=True, help="the seat to review (0-3)")
    p.add_argument(
        "--bot",
        choices=("strong", "heuristic"),
        default="strong",
        help="the bot to compare with (default: strong, the 高手)",
    )
    p.add_argument(
        "--worlds",
        default="24",
        help="sampled deals per estimated cost (1-400, default 24; 2 rollouts each)",
    )
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    from fujian_mahjong.cli.replay import add_profile_option

    add_profile_option(p)
    p.set_defaults(func=run)


# a decision without a claimed or drawn tile, named by the hand's phase (engine/events.py
# Phase) in words: (中文, English)
PHASE_WORDS: dict[str, tuple[str, str]] = {
    "turn": ("轮到你", "your turn"),
    "window_a": ("开局 (天胡, 三金倒)", "the opening (heavenly win, three golds)"),
    "claims": ("别家打牌", "a discard to answer"),
    "last_group": ("最后一组", "the last group"),
}


def _phase(phase: str, zh: bool) -> str:
    """A decision's phase in words (an unknown one as it is written)."""
    words = PHASE_WORDS.get(phase)
    return phase if words is None else words[0 if zh else 1]


def _action(a: dict[str, Any], lang: str) -> str:
    """An action in words, e.g. 打 5饼 / discard 5p."""
    from fujian_mahjong.engine import Action
    from fujian_mahjong.tiles import name
    from fujian_mahjong.tui.render import option_label

    act = Action.from_json(a)
    if act.type == "discard":
        return ("打 " if lang == "zh" else "discard ") + name(act.tile, lang)
    return option_label(act, lang).strip()


def _measure(m: dict[str, Any], zh: bool) -> str:
    if m["shanten"] is None:
        return "-"
    if m["shanten"] < 0:
        return "胡" if zh else "win"
    s = f"向听 {m['shanten']}" if zh else f"shanten {m['shanten']}"
    if m["ukeire"] is not None:
        s += f", 有效牌 {m['ukeire']}" if zh else f", {m['ukeire']} tiles"
    return s


def _cost(d: dict[str, Any], zh: bool) -> str:
    """The estimated cost of a departure from the bot, e.g. ``cost ≈ 4.2 points (±1.3, 24
    deals)``; "" where the play agreed or nothing was estimated."""
    if d.get("agree") or d.get("cost") is None:
        return ""
    c, se, n = d["cost"], d.get("cost_se") or 0.0, d.get("cost_worlds") or 0
    if zh:
        return f"估计损失 {c:.1f} 分 (±{se:.1f}, 模拟 {n} 局)"
    return f"cost ≈ {c:.1f} points (±{se:.1f}, {n} simulated deals)"


def render(rv: dict[str, Any], lang: str) -> str:
    """The review as text in the UI language."""
    from fujian_mahjong.tiles import name, parse_kind

    zh = lang == "zh"
    seat = rv["seat"]
    out = [
        f"复盘: {seat}号 ({rv['profile']})" if zh else f"Review of seat {seat} ({rv['profile']})"
    ]
    for d in rv["decisions"]:
        mark = "✓" if d["agree"] else "✗"
        where = f"第{d['line']}行" if zh else f"line {d['line']}"
        if d["claim"]:
            t = name(parse_kind(d["claim"]["tile"]), lang)
            ctx = f"{d['claim']['from']}号 打 {t}" if zh else f"P{d['claim']['from']} discards {t}"
        elif d["drawn"]:
            ctx = ("摸 " if zh else "drew ") + name(parse_kind(d["drawn"]), lang)
        else:
            ctx = _phase(str(d["phase"]), zh)
        out.append(f"{mark} {where}  {ctx}  ({_measure(d['before'], zh)})")
        played = _action(d["played"], lang)
        out.append(
            f"    {'你打' if zh else 'played'}: {played}  → {_measure(d['after_played'], zh)}"
        )
        if not d["agree"]:
            bot = _action(d["bot"], lang)
            out.append(f"    {'电脑' if zh else 'bot'}: {bot}  → {_measure(d['after_bot'], zh)}")
        reason = d["reason_zh"] if zh else d["reason"]
        out.append(f"    {'理由' if zh else 'why'}: {reason}")
        cost = _cost(d, zh)
        if cost:
            out.append(f"    {cost}")
    sm = rv["summary"]
    n, agreed = sm["decisions"], sm["agreed"]
    rate = f"{sm['agreement_rate']:.0%}" if sm["agreement_rate"] is not None else "-"
    out.append(
        f"一致率: {agreed}/{n} ({rate}); 损失向听 {sm['shanten_lost']}, 损失有效牌 {sm['tiles_lost']}"
        if zh
        else f"Agreement: {agreed}/{n} ({rate}); shanten lost {sm['shanten_lost']}, "
        f"tiles lost {sm['tiles_lost']}"
    )
    pts = sm.get("points_lost_per_hand")
    if pts is not None:
        missing = sm.get("costs_missing") or 0
        note = ""
        if missing:
            note = f" ({missing} 个未估计)" if zh else f" ({missing} not estimated)"
        out.append(
            f"本局估计损失 {pts:.1f} 分 (±{sm.get('points_lost_se', 0):.1f}){note}"
            if zh
            else f"Points lost this hand (estimated): {pts:.1f} (±{sm.get('points_lost_se', 0):.1f})"
            f"{note}"
        )
    if sm["worst"]:
        out.append("损失最大的决定:" if zh else "Costliest decisions:")
        for w in sm["worst"]:
            out.append(
                f"  {'第' + str(w['line']) + '行' if zh else 'line ' + str(w['line'])}: "
                f"{w['played']} / {w['bot']}: "
                + (
                    f"向听 +{w['shanten_lost']}, 有效牌 -{w['tiles_lost']}"
                    if zh
                    else f"shanten +{w['shanten_lost']}, tiles -{w['tiles_lost']}"
                )
                + (
                    (f", 约 {w['cost']:.1f} 分" if zh else f", ≈ {w['cost']:.1f} points")
                    if w.get("cost")
                    else ""
                )
            )
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    from fujian_mahjong.cli.replay import log_profile, parse_log, verify
    from fujian_mahjong.cli.simulate import whole_number
    from fujian_mahjong.review import review

    where = excerpt("standard input" if args.file == "-" else args.file, 120)
    seat = whole_number("--seat", args.seat, 0, 3)
    worlds = whole_number("--worlds", args.worlds, 1, 400)
    events = parse_log(read_input(args.file), where)
    profile = log_profile(args.profile, events, where)
    why = verify(events, profile)
    if why is not None:
        label = "记录验证失败" if args.lang == "zh" else "does not verify"
        print(f"fjmj: error: {where}: {label}: {why}", file=sys.stderr)
        return 1
    players = events[0].get("players")
    if isinstance(players, int) and seat >= players:
        raise CliError(f"--seat: the table has seats 0-{players - 1}, got {seat}")
    rv = review(events, seat, bot=args.bot, worlds=worlds, profile=profile)
    if args.json:
        print(json.dumps(rv, ensure_ascii=False))
    else:
        print(render(rv, args.lang))
    return 0
