"""Pure text rendering of a seat's view for the terminal client (R12: only the view).

Every panel is built from ``Game.view(seat)`` and the public event lines, so nothing on
screen can show another seat's concealed tiles before the hand ends.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.tiles import name, parse, parse_kind

SLOT = 4  # cells per tile in the hand row


def tiles_text(notation: str | None, lang: str, limit: int = 0) -> str:
    if not notation:
        return "-"
    ks = parse(notation)
    if limit and len(ks) > limit:
        return "…" + " ".join(name(k, lang) for k in ks[-limit:])
    return " ".join(name(k, lang) for k in ks)


def L(lang: str, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


def hand_order(view: dict[str, Any]) -> list[int]:
    """The player's concealed tiles: golds first (marked), then sorted."""
    hand = parse(view["hand"])
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    return [k for k in hand if k == gold] + sorted(k for k in hand if k != gold)


def hand_bar(view: dict[str, Any], selected: int, lang: str) -> Text:
    """The hand row: one fixed-width slot per tile; ``*`` marks a gold."""
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    t = Text()
    for i, k in enumerate(hand_order(view)):
        label = name(k, lang)
        mark = "*" if k == gold else " "
        cell = mark + label
        cell += " " * (SLOT - cell_len(cell))
        style = "reverse" if i == selected else ("bold yellow" if k == gold else "")
        t.append(cell, style=style)
    return t


def seat_label(view: dict[str, Any], s: int, lang: str) -> str:
    me = view["seat"]
    who = L(lang, "你", "You") if s == me else L(lang, f"{s}号", f"P{s}")
    if s == view["dealer"]:
        who += L(lang, "[庄]", "[D]")
    return who


def meld_text(m: dict[str, Any], lang: str) -> str:
    """Compact meld: 碰222万 / 吃789条 / 明杠2222饼 (zh), P222m / C789s / K2222p (en)."""
    kind = {
        "chow": ("吃", "C"),
        "pong": ("碰", "P"),
        "kong_exposed": ("明杠", "K"),
        "kong_added": ("加杠", "K+"),
        "kong_concealed": ("暗杠", "CK"),
    }[m["type"]]
    if m["tiles"] is None:
        return f"{L(lang, kind[0], kind[1])}??"
    ks = parse(m["tiles"])
    digits = "".join(str(k % 9 + 1) for k in ks)
    suit = "mps"[ks[0] // 9]
    suit_txt = L(lang, {"m": "万", "p": "饼", "s": "条"}[suit], suit)
    return f"{L(lang, kind[0], kind[1])}{digits}{suit_txt}"


def fit(line: str, width: int = 80) -> str:
    """Cut a line to the terminal width (cells), marking the cut."""
    if cell_len(line) <= width:
        return line
    out = ""
    for ch in line:
        if cell_len(out + ch) > width - 1:
            break
        out += ch
    return out + "…"


def status_line(view: dict[str, Any], hand_no: int, lang: str) -> str:
    gold = view.get("gold")
    g = name(parse_kind(gold), lang) if gold else "-"
    turn = view["to_act"]
    who = ",".join(str(s) for s in turn) if turn else "-"
    return fit(
        L(
            lang,
            f"第{hand_no}盘 {view['profile']} 金:{g} 庄:{view['dealer']}号 连庄:{view['streak']} "
            f"余牌:{view['live']} 留牌:{view['reserve']} 行动:{who}",
            f"Hand {hand_no} {view['profile']} gold:{g} dealer:P{view['dealer']} streak:{view['streak']} "
            f"live:{view['live']} reserve:{view['reserve']} to act:{who}",
        )
    )


def seat_lines(view: dict[str, Any], lang: str) -> list[str]:
    """One line per seat: size, flowers, melds, discards (public only)."""
    out = []
    n = view["players"]
    for s in range(n):
        melds = " ".join(meld_text(m, lang) for m in view["melds"][s]) or "-"
        fl = tiles_text(view["flowers"][s], lang, 6)
        extra = ""
        if s in view.get("xian_jin", []):
            extra += L(lang, " 闲金", " xianjin")
        if str(s) in view.get("jin_kan", {}):
            extra += L(lang, " 金坎", " jinkan")
        head = f"{seat_label(view, s, lang)} {L(lang, '张', 'n')}{view['hand_sizes'][s]}{extra}"
        out.append(fit(f"{head} {L(lang, '花', 'fl')}:{fl} {L(lang, '副', 'm')}:{melds}"))
        out.append(fit(f"   {L(lang, '弃', 'disc')}: {tiles_text(view['discards'][s], lang, 16)}"))
    return out


OPTION_KEYS = "abcdefgijl"


def option_label(a: Action, lang: str, phase: str = "") -> str:
    t = a.type
    if t == "win" and phase == "window_a":
        return L(lang, "天胡", "heavenly win")
    if t == "chow":
        return L(lang, "吃", "chow ") + " ".join(name(k, lang) for k in a.tiles)
    words = {
        "win": ("胡", "win"),
        "pass": ("过", "pass"),
        "pong": ("碰", "pong"),
        "kong": ("杠", "kong"),
        "three_golds": ("三金倒", "3 golds"),
        "rob_gold": ("抢金", "rob gold"),
        "concealed_kong": ("暗杠", "c.kong "),
        "added_kong": ("加杠", "add kong "),
        "jin_kan": ("金坎", "jin kan"),
    }[t]
    label = L(lang, words[0], words[1])
    if t in ("concealed_kong", "added_kong"):
        label += name(a.tile, lang)
    if t in ("rob_gold", "jin_kan") and a.tile >= 0:
        label += L(lang, "(打选中的牌)", " (discard selected)")
    return label
