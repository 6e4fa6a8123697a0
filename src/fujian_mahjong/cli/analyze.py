"""``fjmj analyze``: R7 analysis of one hand (or many with --batch).

Honours (1z–7z) are accepted in a hand, and as the gold, only with a profile whose
``honours`` field is ``"playable"`` (R1, ``fuzhou-doudou``); elsewhere they are flowers and
an honour in the hand is an error. Input is bounded: a hand is at most
``MAX_HAND_CHARS`` characters, a --batch line at most ``MAX_LINE_BYTES`` bytes (longer lines
are skipped without being held in memory), and every error is one short line, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import BinaryIO

from fujian_mahjong import analysis
from fujian_mahjong.errors import HandError, MahjongError
from fujian_mahjong.i18n import t
from fujian_mahjong.rules import get_profile
from fujian_mahjong.tiles import KIND_STR, NUM_SUITED, is_bonus, is_flower, name, parse, parse_kind

NUM_PLAYABLE = analysis.NUM_PLAYABLE
MAX_HAND_CHARS = 128  # a 17-tile hand spelled one tile at a time with spaces is ~50
MAX_LINE_BYTES = 4096  # --batch: longer lines are refused (a 100 MB line must not OOM)
MAX_ARG_CHARS = 256  # --gold / --profile / --exposed


def _excerpt(text: str, n: int = 40) -> str:
    """A short printable excerpt of untrusted text for an error message."""
    short = text if len(text) <= n else text[:n] + "…"
    return ascii(short) if any(not ch.isprintable() for ch in short) else repr(short)


def _exposed(text: str) -> int:
    """argparse type of --exposed: a small whole number, checked before int() sees it."""
    s = text.strip()
    if not (1 <= len(s) <= 2 and s.isascii() and s.isdigit()):
        raise argparse.ArgumentTypeError(f"must be a whole number 0-5, got {_excerpt(text)}")
    return int(s)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("analyze", help="analyse a hand: win, waits, shanten, decompositions (R7)")
    p.add_argument(
        "hand", nargs="?", help='concealed hand in notation, e.g. "123m456m789m234s678s5p"'
    )
    p.add_argument("--gold", required=True, help="the gold kind, e.g. 5p (1z-7z: doudou)")
    p.add_argument("--exposed", type=_exposed, default=0, help="exposed melds already made (0-5)")
    p.add_argument(
        "--profile",
        default="fuzhou-tcy",
        help="rule profile; honours (1z-7z) are playable only where the profile says so "
        "(fuzhou-doudou)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--batch", action="store_true", help="read one hand per line on stdin; JSONL")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.set_defaults(func=run)


def analyse(hand: str, gold: int, exposed: int, honours: bool = False) -> dict[str, object]:
    """The JSON object for one hand; raises MahjongError on a bad hand.

    ``honours``: the profile plays 1z–7z (R1 ``honours = "playable"``); the counts then
    cover 34 kinds and the waits range over all of them.
    """
    if len(hand) > MAX_HAND_CHARS:
        raise HandError(
            f"hand is {len(hand)} characters, more than the {MAX_HAND_CHARS} accepted: "
            f"{_excerpt(hand)}"
        )
    kinds = parse(hand)
    for pos, k in enumerate(kinds):
        if is_bonus(k) or (is_flower(k) and not honours):
            extra = (
                ""
                if is_bonus(k)
                else " (honours are playable only with a profile whose honours = playable, "
                "e.g. --profile fuzhou-doudou)"
            )
            raise HandError(
                f"tile {pos + 1} ({KIND_STR[k]}) is a flower: flowers are never in hand{extra}"
            )
    size = NUM_PLAYABLE if honours else NUM_SUITED
    counts = [0] * size
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
        win = analysis.is_win(counts, gold, exposed, honours=honours)
        waits: list[int] = []
        ready = False
        any_ready = False
        decs = analysis.decompositions(counts, gold, exposed, honours=honours) if win else []
    else:
        win = False
        waits = analysis.waits(counts, gold, exposed, honours=honours)
        ready = bool(waits)
        any_ready = len(waits) == size
        decs = []
    return {
        "hand": hand,
        "gold": KIND_STR[gold],
        "golds": golds,
        "exposed": exposed,
        "tiles": n,
        "honours": "playable" if honours else "flowers",
        "win": win,
        "waits": [KIND_STR[k] for k in waits],
        "ready": ready,
        "any_tile_ready": any_ready,
        "shanten": analysis.shanten(counts, gold, exposed, honours=honours),
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


def _profile_honours(name_or_path: str) -> bool:
    """Whether the profile plays the honours (R1); any failure is a one-line MahjongError."""
    if len(name_or_path) > MAX_ARG_CHARS:
        raise MahjongError(f"--profile: name is too long: {_excerpt(name_or_path)}")
    try:
        profile = get_profile(name_or_path)
    except MahjongError as e:
        raise MahjongError(f"--profile: {e}") from None
    except (OSError, UnicodeError, RecursionError, ValueError, TypeError) as e:
        why = type(e).__name__ if not isinstance(e, UnicodeError) else "not UTF-8 text"
        raise MahjongError(f"--profile: {_excerpt(name_or_path)}: cannot read: {why}") from None
    # the engine helper adds Profile.honours ("flowers" | "playable"); older profiles lack it
    return getattr(profile, "honours", "flowers") == "playable"


def _parse_gold(text: str, honours: bool) -> int:
    if len(text) > MAX_ARG_CHARS:
        raise MahjongError(f"--gold: too long: {_excerpt(text)}")
    try:
        gold = parse_kind(text)
    except MahjongError as e:
        raise MahjongError(f"--gold: {e}") from None
    if is_bonus(gold) or (is_flower(gold) and not honours):
        what = "a suited kind or an honour" if honours else "a suited kind"
        raise MahjongError(f"--gold: {text} is a flower; the gold is {what}")
    return gold


def _lines(stream: BinaryIO) -> Iterator[tuple[int, str | None, str | None]]:
    """Yield ``(lineno, text | None, error | None)`` per line, never holding more than
    ``MAX_LINE_BYTES`` of one line in memory."""
    lineno = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        lineno += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while True:  # drain the rest of the over-long line in bounded chunks
                more = stream.readline(1 << 16)
                if not more or more.endswith(b"\n"):
                    break
            yield lineno, None, f"line longer than {MAX_LINE_BYTES} bytes (input cap)"
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            yield lineno, None, "not UTF-8 text"
            continue
        yield lineno, text, None


def _batch(gold: int, exposed: int, honours: bool) -> int:
    code = 0
    if sys.stdin is None:
        raise MahjongError("standard input is closed")
    for lineno, text, err in _lines(sys.stdin.buffer):
        hand = "" if text is None else text.strip()
        if err is None and not hand:
            continue
        try:
            if err is not None:
                raise MahjongError(err)
            res = analyse(hand, gold, exposed, honours)
        except MahjongError as e:
            shown = hand if len(hand) <= MAX_HAND_CHARS else hand[:MAX_HAND_CHARS] + "…"
            msg = f"line {lineno}: {e}"
            print(json.dumps({"hand": shown, "error": msg}, ensure_ascii=False))
            print(f"fjmj: error: {msg}", file=sys.stderr)
            code = 2
            continue
        print(json.dumps(res, ensure_ascii=False))
    return code


def run(args: argparse.Namespace) -> int:
    if args.batch and args.hand is not None:
        raise MahjongError("analyze: give a HAND argument or --batch (hands on stdin), not both")
    honours = _profile_honours(args.profile)
    gold = _parse_gold(args.gold, honours)
    if args.batch:
        return _batch(gold, args.exposed, honours)
    if not args.hand:
        raise MahjongError("analyze needs a HAND argument (or --batch)")
    res = analyse(args.hand, gold, args.exposed, honours)
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    else:
        print(_human(res, args.lang))
    return 0
