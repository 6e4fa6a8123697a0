"""Pure text rendering of a seat's view for the terminal client (R12: only the view).

Every panel is built from ``Game.view(seat)`` and the public event lines, so nothing on
screen can show another seat's concealed tiles before the hand ends.

Seats are named one way everywhere — the seat panel, the log, prompts, results and the
match standings: ``你`` / ``下家1号`` / ``对家2号`` / ``上家3号`` (en: ``You`` / ``P1 right`` /
``P2 across`` / ``P3 left``). Lines are wrapped to the terminal width, never cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.tiles import name, parse, parse_kind

SLOT = 4  # cells per tile in the hand row
GAP = 2  # extra cells between the sorted hand and the drawn tile
MIN_W, MIN_H = 80, 24
OPTION_KEYS = "abcdefgijl"  # never h (hint), k, m, n (next hand), q (quit), y (yes)

_EN_SHORT_HONOUR = ("E", "S", "W", "N", "Rd", "Gn", "Wh")


def L(lang: str, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


def tile(k: int, lang: str) -> str:
    """A tile's short name; honours in English are at most 2 letters (they fit a slot)."""
    if lang != "zh" and 27 <= k <= 33:
        return _EN_SHORT_HONOUR[k - 27]
    return name(k, lang)


def tile_names(notation: str | Iterable[int] | None, lang: str) -> list[str]:
    if notation is None or notation == "":
        return []
    ks = parse(notation) if isinstance(notation, str) else list(notation)
    return [tile(k, lang) for k in ks]


def tiles_text(notation: str | Iterable[int] | None, lang: str) -> str:
    return " ".join(tile_names(notation, lang)) or "-"


# ---------------------------------------------------------------------------- seat names


def relation(me: int, s: int, n: int, lang: str) -> str:
    """R2: 下家 plays after me, 上家 before me; 对家 across (4 players) or the only other."""
    d = (s - me) % n
    if d == 0:
        return L(lang, "你", "You")
    if n == 2 or (n == 4 and d == 2):
        return L(lang, "对家", "across")
    if d == 1:
        return L(lang, "下家", "right")
    return L(lang, "上家", "left")


def seat_name(me: int, s: int, n: int, lang: str) -> str:
    """``你`` / ``下家1号`` (zh), ``You`` / ``P1 right`` (en) — the one naming scheme."""
    if s == me:
        return L(lang, "你", "You")
    rel = relation(me, s, n, lang)
    return f"{rel}{s}号" if lang == "zh" else f"P{s} {rel}"


_SEAT_RE = {
    "zh": re.compile(r"(\d)号位"),
    "en": re.compile(r"\b[Ss]eat (\d)\b"),
}


_YOU_VERB = re.compile(r"\bYou (\w+)")
_IRREGULAR = {"is": "are", "has": "have", "passes": "pass"}


def _you_verb(m: re.Match[str]) -> str:
    v = m.group(1)
    if v in _IRREGULAR:
        return f"You {_IRREGULAR[v]}"
    return f"You {v[:-1]}" if v.endswith("s") and not v.endswith("ss") else m.group(0)


def rename_seats(line: str, me: int, n: int, lang: str) -> str:
    """Event lines name seats ``3号位``/``seat 3``; rewrite them in the client's scheme
    (and in English, "seat 0 draws" becomes "You draw")."""
    pat = _SEAT_RE["zh" if lang == "zh" else "en"]
    out = pat.sub(lambda m: seat_name(me, int(m.group(1)), n, lang), line)
    return out if lang == "zh" else _YOU_VERB.sub(_you_verb, out)


# ---------------------------------------------------------------------------- wrapping


def wrap(words: Sequence[str], width: int, indent: int = 0, sep: str = " ") -> list[str]:
    """Words joined by ``sep`` into lines of at most ``width`` cells; continuation lines
    are indented by ``indent`` cells. A word longer than a line is split (never dropped)."""
    lines: list[str] = []
    cur = ""
    pad = " " * indent
    for w in words:
        while cell_len(w) > width - indent and w:
            # a very long word: cut it by cells
            part = ""
            for ch in w:
                if cell_len(part + ch) > width - indent:
                    break
                part += ch
            if cur:
                lines.append(cur)
            lines.append((pad if lines else "") + part)
            cur = ""
            w = w[len(part) :]
        if not w:
            continue
        cand = (cur + sep + w) if cur else ((pad if lines else "") + w)
        if cur and cell_len(cand) > width:
            lines.append(cur)
            cur = pad + w
        else:
            cur = cand
    if cur or not lines:
        lines.append(cur)
    return lines


def wrap_text(line: str, width: int, indent: int = 2) -> list[str]:
    return wrap(line.split(" "), width, indent)


# ---------------------------------------------------------------------------- hand


def hand_order(view: dict[str, Any]) -> list[int]:
    """The player's concealed tiles as shown: golds first, then sorted, and the tile just
    drawn last (it is shown apart, so the player sees what came in)."""
    hand = parse(view["hand"])
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    drawn = parse_kind(view["drawn"]) if view.get("drawn") else -1
    rest = list(hand)
    if drawn >= 0 and drawn in rest:
        rest.remove(drawn)
    order = [k for k in rest if k == gold] + sorted(k for k in rest if k != gold)
    return [*order, drawn] if drawn >= 0 and drawn in hand else order


def has_drawn(view: dict[str, Any]) -> bool:
    return bool(view.get("drawn")) and parse_kind(view["drawn"]) in parse(view["hand"])


def slot_starts(view: dict[str, Any]) -> list[int]:
    """The cell where each tile of the hand row starts (the drawn tile after a gap)."""
    n = len(hand_order(view))
    starts = [i * SLOT for i in range(n)]
    if n and has_drawn(view):
        starts[-1] += GAP
    return starts


def start_cursor(view: dict[str, Any]) -> int:
    """Where the cursor starts on a turn: the drawn tile, else the first tile that is not
    a gold (a gold is never selected by accident)."""
    order = hand_order(view)
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    if has_drawn(view) and order[-1] != gold:
        return len(order) - 1
    for i, k in enumerate(order):
        if k != gold:
            return i
    return 0


def hand_bar(view: dict[str, Any], selected: int, lang: str) -> Text:
    """The hand row: one fixed-width slot per tile; ``*`` marks a gold; the drawn tile is
    set apart at the right."""
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    order = hand_order(view)
    drawn_apart = has_drawn(view)
    t = Text()
    for i, k in enumerate(order):
        if drawn_apart and i == len(order) - 1:
            t.append(" " * GAP)
        label = tile(k, lang)
        mark = "*" if k == gold else " "
        cell = mark + label
        cell += " " * (SLOT - cell_len(cell))
        style = "reverse" if i == selected else ("bold yellow" if k == gold else "")
        t.append(cell, style=style)
    return t


# ---------------------------------------------------------------------------- seats


_MELD_WORDS = {
    "chow": ("吃", "chow"),
    "pong": ("碰", "pong"),
    "kong_exposed": ("明杠", "kong"),
    "kong_added": ("加杠", "added kong"),
    "kong_concealed": ("暗杠", "concealed kong"),
}


def meld_text(m: dict[str, Any], lang: str) -> str:
    """``碰 2万2万2万`` / ``pong 2m 2m 2m``; another seat's concealed kong stays ``??``."""
    word = L(lang, *_MELD_WORDS[m["type"]])
    if m["tiles"] is None:
        return f"{word}{L(lang, '(未亮)', ' (hidden)')}"
    names = tile_names(m["tiles"], lang)
    return f"{word} {''.join(names) if lang == 'zh' else ' '.join(names)}"


def gold_restriction(view: dict[str, Any], lang: str) -> str:
    """What discarding a gold costs in this profile (R5, D-4)."""
    rule = view.get("gold_discard_rule", "self_draw_only")
    if rule == "self_draw_only":
        return L(lang, "打过金: 本盘只能自摸", "discarded a gold: self-draw only")
    return L(lang, "打过金", "discarded a gold")


def seat_lines(
    view: dict[str, Any], lang: str, width: int = MIN_W, last_discard: int | None = None
) -> list[str]:
    """Per seat (you last): name, tiles held, flowers with a count, melds, declarations
    (闲金, 金坎 with its shown tiles, the gold-discard restriction), then the river with the
    last discard marked ‹…›. Wrapped to ``width``; nothing is cut."""
    n = view["players"]
    me = view["seat"]
    out: list[str] = []
    order = [(me + d) % n for d in range(1, n)] + [me]
    for s in order:
        head = [
            seat_name(me, s, n, lang) + (L(lang, "[庄]", "[dealer]") if s == view["dealer"] else "")
        ]
        head.append(L(lang, f"{view['hand_sizes'][s]}张", f"{view['hand_sizes'][s]} tiles"))
        if s in view.get("xian_jin", []):
            head.append(L(lang, "闲金", "xian-jin(any tile wins)"))
        jk = view.get("jin_kan", {}).get(str(s))
        if jk is not None:
            head.append(
                L(
                    lang,
                    f"金坎(已锁定) 亮:{tiles_text(jk, lang)}",
                    f"jin-kan(locked) shows: {tiles_text(jk, lang)}",
                )
            )
        if s in view.get("gold_discarded", []):
            head.append("⚠" + gold_restriction(view, lang))
        fl = tile_names(view["flowers"][s], lang)
        head.append(L(lang, f"花({len(fl)}):", f"flowers({len(fl)}):"))
        head.extend(fl or ["-"])
        melds = [meld_text(m, lang) for m in view["melds"][s]]
        if melds:
            head.append(L(lang, "副露:", "melds:"))
            head.extend(m.replace(" ", "\u00a0") for m in melds)
        out.extend(x.replace("\u00a0", " ") for x in wrap(head, width, 4))
        river = tile_names(view["discards"][s], lang)
        if river and last_discard == s:
            river[-1] = f"‹{river[-1]}›"
        out.extend(wrap([L(lang, "  河:", "  river:"), *(river or ["-"])], width, 8))
    return out


def totals_text(totals: Sequence[int], me: int, lang: str) -> str:
    n = len(totals)
    order = [me] + [(me + d) % n for d in range(1, n)]
    return "  ".join(f"{seat_name(me, s, n, lang)} {totals[s]:+d}" for s in order)


def status_lines(
    view: dict[str, Any], hand_no: int, totals: Sequence[int], lang: str, width: int = MIN_W
) -> list[str]:
    """Hand number, gold, dealer, counts and the match totals (always visible). R12: the
    view only says whether *you* must act, so nothing here names who else is asked."""
    gold = view.get("gold")
    g = tile(parse_kind(gold), lang) if gold else "-"
    me, n = view["seat"], view["players"]
    dealer = seat_name(me, view["dealer"], n, lang)
    words = L(
        lang,
        f"第{hand_no}盘 {view['profile']} 金:{g} 庄:{dealer} 连庄:{view['streak']} "
        f"余牌:{view['live']} 留牌:{view['reserve']}",
        f"Hand {hand_no} {view['profile']} gold:{g} dealer:{dealer} streak:{view['streak']} "
        f"live:{view['live']} reserve:{view['reserve']}",
    ).split(" ")
    words.append("│")
    words.append(L(lang, "总分:", "Match:"))
    words.extend(
        totals_text(totals, me, lang).replace(" +", "\u00a0+").replace(" -", "\u00a0-").split("  ")
    )
    return [x.replace("\u00a0", " ") for x in wrap(words, width, 2)]


# ---------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class OnSelected:
    """An offered option that also discards the selected tile (庄家抢金 attached to the first
    discard, 金坎): the tile is taken from the cursor when it is chosen."""

    type: str


Option = Action | OnSelected


def option_label(a: Option, lang: str, phase: str = "") -> str:
    t = a.type
    if isinstance(a, OnSelected):
        word = L(lang, "抢金", "rob the gold") if t == "rob_gold" else L(lang, "金坎", "jin-kan")
        return word + L(lang, "(并打出选中的牌)", " (discards the selected tile)")
    if t == "win" and phase == "window_a":
        return L(lang, "天胡", "heavenly win")
    if t == "chow":
        return L(lang, "吃 ", "chow ") + "".join(tile(k, lang) for k in a.tiles)
    words = {
        "discard": ("打", "discard"),
        "win": ("胡", "win"),
        "pass": ("过", "pass"),
        "pong": ("碰", "pong"),
        "kong": ("杠", "kong"),
        "three_golds": ("三金倒", "three golds"),
        "rob_gold": ("抢金", "rob the gold"),
        "concealed_kong": ("暗杠 ", "concealed kong "),
        "added_kong": ("加杠 ", "add to kong "),
        "jin_kan": ("金坎", "jin-kan"),
    }[t]
    label = L(lang, words[0], words[1])
    if t in ("concealed_kong", "added_kong", "discard"):
        label += (" " if t == "discard" else "") + tile(a.tile, lang)
    if t in ("rob_gold", "jin_kan") and a.tile >= 0:
        # these also discard a tile (庄家抢金 with the first discard; 金坎): say so
        label += L(lang, f"(并打出{tile(a.tile, lang)})", f" (discards {tile(a.tile, lang)})")
    return label


HELP_KEYS: tuple[tuple[str, str, str], ...] = (
    ("←/→, 1-9, 0", "选牌", "select a tile"),
    ("Enter / 空格", "打出选中的牌 (打金要确认)", "discard the selected tile (a gold asks first)"),
    ("鼠标", "点一下选中, 再点打出", "click selects, a second click discards"),
    (
        "a b c …",
        "选择提示行里的选项 (胡/杠/碰/吃/过…)",
        "choose an offered option (win/kong/pong/chow/pass…)",
    ),
    (
        "h",
        "提示 (电脑的建议, 指向选项字母)",
        "hint (the bot's advice, pointing at the option letter)",
    ),
    ("n", "一盘结束后开始下一盘", "start the next hand once a hand is over"),
    ("?", "显示/隐藏本帮助", "show/hide this help"),
    (
        "q, ctrl+q",
        "退出 (要确认; 退出后打印比赛结果)",
        "quit (asks first; prints the match summary)",
    ),
)


def help_lines(lang: str) -> list[str]:
    head = L(lang, "按键 (按任意键关闭):", "Keys (any key closes):")
    # pad by display cells, not characters (空格 is two cells wide per character)
    return [head] + [
        f"  {k}{' ' * max(1, 16 - cell_len(k))}{L(lang, zh, en)}" for k, zh, en in HELP_KEYS
    ]


def fit(line: str, width: int = MIN_W) -> str:
    """Cut a line to ``width`` cells, marking the cut (only for log lines, which the full
    log keeps; panels wrap instead)."""
    if cell_len(line) <= width:
        return line
    out = ""
    for ch in line:
        if cell_len(out + ch) > width - 1:
            break
        out += ch
    return out + "…"
