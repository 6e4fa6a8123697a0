"""``fjmj analyze``: R7 analysis of one hand (or many with --batch)."""

from __future__ import annotations

import argparse
import json
import sys

from fujian_mahjong import analysis
from fujian_mahjong.errors import HandError, MahjongError
from fujian_mahjong.i18n import t
from fujian_mahjong.rules import get_profile
from fujian_mahjong.tiles import KIND_STR, NUM_SUITED, is_flower, name, parse, parse_kind


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("analyze", help="analyse a hand: win, waits, shanten, decompositions (R7)")
    p.add_argument(
        "hand", nargs="?", help='concealed hand in notation, e.g. "123m456m789m234s678s5p"'
    )
    p.add_argument("--gold", required=True, help="the gold kind, e.g. 5p")
    p.add_argument("--exposed", type=int, default=0, help="exposed melds already made (0-5)")
    p.add_argument("--profile", default="fuzhou-tcy", help="rule profile (analysis is the same)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--batch", action="store_true", help="read one hand per line on stdin; JSONL")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.set_defaults(func=run)


def analyse(hand: str, gold: int, exposed: int) -> dict[str, object]:
    """The JSON object for one hand; raises MahjongError on a bad hand."""
    kinds = parse(hand)
    for pos, k in enumerate(kinds):
        if is_flower(k):
            raise HandError(
                f"tile {pos + 1} ({KIND_STR[k]}) is a flower: flowers are never in hand"
            )
    counts = [0] * NUM_SUITED
    for k in kinds:
        counts[k] += 1
    for k, n in enumerate(counts):
        if n > 4:
            raise HandError(f"{n} copies of {KIND_STR[k]}: a kind has at most 4")
    if not 0 <= exposed <= 5:
        raise HandError(f"--exposed must be 0-5, got {exposed}")
    n = len(kinds)
    melds = 5 - exposed
    if n not in (3 * melds + 1, 3 * melds + 2):
        raise HandError(
            f"hand has {n} tiles; with {exposed} exposed melds it must have "
            f"{3 * melds + 1} or {3 * melds + 2}"
        )
    golds = counts[gold]
    if n % 3 == 2:
        win = analysis.is_win(counts, gold, exposed)
        waits: list[int] = []
        ready = False
        any_ready = False
        decs = analysis.decompositions(counts, gold, exposed) if win else []
    else:
        win = False
        waits = analysis.waits(counts, gold, exposed)
        ready = bool(waits)
        any_ready = len(waits) == NUM_SUITED
        decs = []
    return {
        "hand": hand,
        "gold": KIND_STR[gold],
        "golds": golds,
        "exposed": exposed,
        "tiles": n,
        "win": win,
        "waits": [KIND_STR[k] for k in waits],
        "ready": ready,
        "any_tile_ready": any_ready,
        "shanten": analysis.shanten(counts, gold, exposed),
        "decompositions": [d.to_json() for d in decs],
    }


def _human(res: dict[str, object], lang: str) -> str:
    yn = {True: t("yes", lang), False: t("no", lang)}
    gold_kind = parse_kind(str(res["gold"]))
    lines = [
        f"{t('hand', lang)}: {res['hand']}   {t('gold', lang)}: {name(gold_kind, lang)} "
        f"({res['gold']})   {t('golds_in_hand', lang)}: {res['golds']}",
        f"{t('win', lang)}: {yn[bool(res['win'])]}",
        f"{t('shanten', lang)}: {res['shanten']}",
    ]
    if int(str(res["tiles"])) % 3 == 1:
        waits = res["waits"]
        assert isinstance(waits, list)
        shown = " ".join(name(parse_kind(w), lang) for w in waits) or t("none", lang)
        lines.append(f"{t('waits', lang)}: {shown}")
        lines.append(f"{t('any_tile_ready', lang)}: {yn[bool(res['any_tile_ready'])]}")
    decs = res["decompositions"]
    assert isinstance(decs, list)
    if decs:
        lines.append(f"{t('decompositions', lang)}:")
        for d in decs[:10]:
            parts = []
            for g in [*d["melds"], d["pair"]]:
                txt = str(g["tiles"])
                if g["golds"]:
                    txt += f"[{t('gold_as', lang)} {','.join(g['golds'])}]"
                parts.append(txt)
            lines.append("  " + "  ".join(parts))
        if len(decs) > 10:
            lines.append("  " + t("more", lang, n=len(decs) - 10))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        get_profile(args.profile)  # analysis is the same in every profile, but check the name
    except MahjongError as e:
        raise MahjongError(f"--profile: {e}") from None
    try:
        gold = parse_kind(args.gold)
    except MahjongError as e:
        raise MahjongError(f"--gold: {e}") from None
    if is_flower(gold):
        raise MahjongError(f"--gold: {args.gold} is a flower; the gold is a suited kind")
    if args.batch:
        code = 0
        for lineno, line in enumerate(sys.stdin, 1):
            hand = line.strip()
            if not hand:
                continue
            try:
                print(json.dumps(analyse(hand, gold, args.exposed), ensure_ascii=False))
            except MahjongError as e:
                print(
                    json.dumps({"hand": hand, "error": f"line {lineno}: {e}"}, ensure_ascii=False)
                )
                print(f"fjmj: error: line {lineno}: {e}", file=sys.stderr)
                code = 2
        return code
    if not args.hand:
        raise MahjongError("analyze needs a HAND argument (or --batch)")
    res = analyse(args.hand, gold, args.exposed)
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    else:
        print(_human(res, args.lang))
    return 0
