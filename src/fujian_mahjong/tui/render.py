"""Pure text rendering of a seat's view for the terminal client (R12: only the view).

Every panel is built from ``Game.view(seat)`` and the public event lines, so nothing on
screen can show another seat's concealed tiles before the hand ends.

Seats are named one way everywhere — the seat panel, the log, prompts, results and the
match standings: ``你`` / ``下家1号`` / ``对家2号`` / ``上家3号`` (en: ``You`` / ``P1 right`` /
``P2 across`` / ``P3 left``). Lines are wrapped to the terminal width, never cut.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.narrate import profile_title
from fujian_mahjong.engine.tenpai import seat_ready_discards, seat_waits
from fujian_mahjong.i18n import msg
from fujian_mahjong.tiles import KIND_STR, name, parse, parse_kind

SLOT = 4  # cells per tile in the hand row
GAP = 2  # extra cells between the sorted hand and the drawn tile
MIN_W, MIN_H = 80, 24
OPTION_KEYS = "abcdefgijl"  # never h (hint), k, m, n (next hand), q (quit), y (yes)

_EN_SHORT_HONOUR = ("E", "S", "W", "N", "Rd", "Gn", "Wh")


def tr(key: str, lang: str, **kw: object) -> str:
    """The client's text ``tui.<key>`` from the message catalogue (``web/locale``)."""
    return msg("tui." + key, lang, **kw)


def tile(k: int, lang: str) -> str:
    """A tile's name wherever the client writes tiles out — the seats panel, prompts, hints,
    the log and the result: ``5饼``/``东``/``春`` (zh), ``5p``/``E``/``Red``/``Spring`` (en),
    the names the narration uses (:func:`fujian_mahjong.tiles.name`). Only the hand row's
    fixed slots take :func:`slot_tile`."""
    return name(k, lang)


def slot_tile(k: int, lang: str) -> str:
    """A tile's name in the hand row, where each tile has a slot of :data:`SLOT` cells: the
    English dragons are cut to 2 letters (``Rd``/``Gn``/``Wh``); every other name, and all
    Chinese ones, are :func:`tile`'s."""
    if lang != "zh" and 27 <= k <= 33:
        return _EN_SHORT_HONOUR[k - 27]
    return tile(k, lang)


_ZH_WORD = re.compile(r"([一二三四五六七八九])([万饼条])")
_EN_WORD = re.compile(r"\b([1-9]) (Characters?|Dots?|Bamboo)\b")
_EN_SUIT_LETTER = {"C": "m", "D": "p", "B": "s"}
_EN_HONOUR_WORDS = re.compile(r"\b(East|South|West|North) wind\b|\b(Red|Green|White) dragon\b")


def compact_tiles(text: str, lang: str) -> str:
    """Tiles named in words (``五饼``/``5 Dots``/``Red dragon``,
    :func:`fujian_mahjong.i18n.tile_name`, as bots' reasons name them) in this client's
    names (``5饼``/``5p``/``Red``: :func:`tile`), so a hint names a tile as the rest of the
    client's prose does."""
    if lang == "zh":
        return _ZH_WORD.sub(
            lambda m: f"{'一二三四五六七八九'.index(m.group(1)) + 1}{m.group(2)}", text
        )
    text = _EN_WORD.sub(lambda m: m.group(1) + _EN_SUIT_LETTER[m.group(2)[0]], text)
    order = ("East", "South", "West", "North", "Red", "Green", "White")
    return _EN_HONOUR_WORDS.sub(
        lambda m: tile(27 + order.index(m.group(1) or m.group(2)), lang), text
    )


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
        return tr("you", lang)
    if n == 2 or (n == 4 and d == 2):
        return tr("across", lang)
    if d == 1:
        return tr("right", lang)
    return tr("left", lang)


def seat_name(me: int, s: int, n: int, lang: str) -> str:
    """``你`` / ``下家1号`` (zh), ``You`` / ``P1 right`` (en) — the one naming scheme."""
    if s == me:
        return tr("you", lang)
    return tr("seat", lang, rel=relation(me, s, n, lang), n=s)


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


def you_verbs(line: str, lang: str) -> str:
    """English narration names this seat ``You``: "You draws" becomes "You draw"."""
    return line if lang == "zh" else _YOU_VERB.sub(_you_verb, line)


def rename_seats(line: str, me: int, n: int, lang: str) -> str:
    """Lines that name seats ``3号位``/``seat 3`` rewritten in the client's scheme (and in
    English, "seat 0 draws" becomes "You draw"). The narration takes the names itself
    (``engine.narrate``); this is for text that comes without them."""
    pat = _SEAT_RE["zh" if lang == "zh" else "en"]
    return you_verbs(pat.sub(lambda m: seat_name(me, int(m.group(1)), n, lang), line), lang)


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


def _slot(k: int, gold: int) -> int:
    """A tile's cells in the hand row: a gold one more (``*3条`` fills a slot, and two golds
    side by side read ``*3条*3条``)."""
    return SLOT + 1 if k == gold else SLOT


def slot_starts(view: dict[str, Any]) -> list[int]:
    """The cell where each tile of the hand row starts (the drawn tile after a gap)."""
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    order = hand_order(view)
    starts, at = [], 0
    for k in order:
        starts.append(at)
        at += _slot(k, gold)
    if starts and has_drawn(view):
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


def hand_bar(view: dict[str, Any], selected: int, lang: str, ready: Collection[int] = ()) -> Text:
    """The hand row: one fixed-width slot per tile; ``*`` marks a gold; the drawn tile is
    set apart at the right; a tile whose discard leaves the hand ready (``ready``, 听牌提示)
    is green, and :func:`tenpai_line` names them."""
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    order = hand_order(view)
    drawn_apart = has_drawn(view)
    t = Text()
    for i, k in enumerate(order):
        if drawn_apart and i == len(order) - 1:
            t.append(" " * GAP)
        label = slot_tile(k, lang)
        mark = "*" if k == gold else " "
        cell = mark + label
        cell += " " * (_slot(k, gold) - cell_len(cell))
        style = "bold yellow" if k == gold else ("bold green" if k in ready else "")
        t.append(cell, style="reverse" if i == selected else style)
    return t


def _waits_text(seen: Sequence[int], waits: Iterable[str], lang: str, gold: int = -1) -> str:
    """Each wait with how many are unseen: 4 less the copies this seat can see (``seen``:
    ``SeatView.visible_counts``, R12), as the web client's wait counter counts them. The
    gold's kind marked ``*`` as in the hand row (a wait on 2万 that is the gold read as a
    plain 2万)."""
    return " ".join(
        tr(
            "wait_left",
            lang,
            tile=("*" if k == gold else "") + tile(k, lang),
            n=max(0, 4 - seen[k]),
        )
        for k in map(parse_kind, waits)
    )


def ready_kinds(view: dict[str, Any]) -> frozenset[int]:
    """On the seat's own turn, the kinds whose discard leaves its hand ready (听牌提示,
    engine/tenpai.py)."""
    return frozenset(parse_kind(k) for k in seat_ready_discards(view) or ())


def tenpai_line(
    view: dict[str, Any], selected: int | None, lang: str, seen: Sequence[int]
) -> str | None:
    """The seat's 听牌 facts (from its own tiles, engine/tenpai.py), each wait with how many
    are unseen (``seen``: the copies it can see): on its turn what discarding the selected
    tile would leave it waiting on, or else which discards leave it ready; otherwise its
    waits while it is ready."""
    ready = seat_ready_discards(view)
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    if ready:
        sel = KIND_STR[selected] if selected is not None else ""
        if sel in ready:
            after = _waits_text(seen, ready[sel], lang, gold)
            return tr("ready_after", lang, tile=tile(parse_kind(sel), lang), waits=after)
        names = " ".join(tile(parse_kind(k), lang) for k in sorted(ready, key=parse_kind))
        return tr("ready_hint", lang, tiles=names)
    waits = seat_waits(view)
    return tr("tenpai", lang, waits=_waits_text(seen, waits, lang, gold)) if waits else None


# ---------------------------------------------------------------------------- seats


# around a face-up tile of the kind under the hand's cursor (同牌提示): zero cells wide, so
# lines wrap as without them; :func:`marked` turns them into a style
MARK_ON, MARK_OFF = "\x1e", "\x1f"
SAME_STYLE = "bold black on cyan"


def _face_up(notation: str, lang: str, same: int | None) -> list[str]:
    """The names of face-up tiles, those of kind ``same`` between the marks."""
    return [
        f"{MARK_ON}{tile(k, lang)}{MARK_OFF}" if k == same else tile(k, lang)
        for k in parse(notation)
    ]


def marked(lines: Iterable[str], style: str = SAME_STYLE) -> Text:
    """Lines joined into one Text, each stretch between MARK_ON and MARK_OFF in ``style``."""
    t = Text()
    for i, line in enumerate(lines):
        if i:
            t.append("\n")
        for j, part in enumerate(line.split(MARK_ON)):
            shown, _, rest = part.partition(MARK_OFF) if j else ("", "", part)
            t.append(shown, style=style)
            t.append(rest)
    return t


def meld_text(m: dict[str, Any], lang: str, same: int | None = None) -> str:
    """``碰 2万2万2万`` / ``pong 2m 2m 2m``; another seat's concealed kong stays ``??``;
    the tiles of kind ``same`` marked for :func:`marked`."""
    word = tr("meld." + m["type"], lang)
    if m["tiles"] is None:
        return word + tr("meld.hidden", lang)
    names = _face_up(m["tiles"], lang, same)
    return f"{word} {''.join(names) if lang == 'zh' else ' '.join(names)}"


def gold_restriction(view: dict[str, Any], lang: str) -> str:
    """What discarding a gold costs in this profile (R5, D-4)."""
    rule = view.get("gold_discard_rule", "self_draw_only")
    if rule == "self_draw_only":
        return tr("gold_discarded.self_draw_only", lang)
    return tr("gold_discarded", lang)


def flower_kinds(notation: str) -> list[int]:
    """A seat's flowers in the order the client lists tiles everywhere (by kind: 东 南 西 北
    中 发 白, then 春 夏 秋 冬 梅 兰 竹 菊), not in the order they were drawn: the same
    flowers always read the same, and a set (套花) stands together."""
    return sorted(parse(notation)) if notation else []


def flowers_words(notation: str, lang: str) -> list[str]:
    """``花（5）：东 西 中 发 白`` as words to wrap (the label held to the first flower)."""
    fl = [tile(k, lang) for k in flower_kinds(notation)]
    return _lead(tr("flowers", lang, n=len(fl)), fl or ["-"])


def melds_words(melds: Sequence[dict[str, Any]], lang: str, same: int | None = None) -> list[str]:
    """``副露：碰 2万2万2万 暗杠 …`` as words to wrap, each meld whole (its spaces do not
    break: callers turn U+00A0 back into a space once wrapped); nothing without melds."""
    texts = [meld_text(m, lang, same).replace(" ", "\u00a0") for m in melds]
    return _lead(tr("melds", lang), texts) if texts else []


# the wide layout: the other seats side by side when each column gets this many cells
WIDE_COL = 52
COL_SEP = " │ "


def _seat_block(
    view: dict[str, Any],
    s: int,
    lang: str,
    width: int,
    last_discard: int | None,
    same: int | None,
) -> list[str]:
    """One seat's lines (:func:`seat_lines`), wrapped to ``width``."""
    n = view["players"]
    me = view["seat"]
    head = [seat_name(me, s, n, lang) + (tr("dealer_mark", lang) if s == view["dealer"] else "")]
    head.append(tr("tiles_held", lang, n=view["hand_sizes"][s]))
    if s in view.get("xian_jin", []):
        head.append(tr("xian_jin", lang))
    jk = view.get("jin_kan", {}).get(str(s))
    if jk is not None:
        head.append(tr("jin_kan_shows", lang, tiles=tiles_text(jk, lang)))
    if s in view.get("gold_discarded", []):
        head.append("⚠" + gold_restriction(view, lang))
    head.extend(flowers_words(view["flowers"][s], lang))
    head.extend(melds_words(view["melds"][s], lang, same))
    out = [x.replace("\u00a0", " ") for x in wrap(head, width, 4)]
    river = _face_up(view["discards"][s], lang, same)
    if river and last_discard == s:
        river[-1] = f"‹{river[-1]}›"
    river_words = _lead("  " + tr("river", lang), river or ["-"])
    out.extend(x.replace("\u00a0", " ") for x in wrap(river_words, width, 8))
    return out


def columns(blocks: Sequence[Sequence[str]], col_w: int, sep: str = COL_SEP) -> list[str]:
    """Blocks of lines (each at most ``col_w`` cells) side by side, padded by cells (the
    zero-width marks of :func:`marked` take none), ``sep`` between them."""
    rows = max((len(b) for b in blocks), default=0)
    out = []
    for i in range(rows):
        cells = [b[i] if i < len(b) else "" for b in blocks]
        padded = [c + " " * (col_w - cell_len(c)) for c in cells[:-1]]
        out.append(sep.join([*padded, cells[-1]]).rstrip())
    return out


def seat_lines(
    view: dict[str, Any],
    lang: str,
    width: int = MIN_W,
    last_discard: int | None = None,
    same: int | None = None,
) -> list[str]:
    """Per seat (you last): name, tiles held, flowers with a count (sorted by kind), melds,
    declarations (闲金, 金坎 with its shown tiles, the gold-discard restriction), then the
    river with the last discard marked ‹…›. Wrapped to ``width``; nothing is cut. With
    ``same`` (the kind under the hand's cursor), its face-up copies in the melds and rivers
    are between MARK_ON and MARK_OFF (:func:`marked` shows them).

    Where the other seats each get :data:`WIDE_COL` cells side by side (a 4-player table
    from 162 columns, a 3-player one from 107), they stand in columns as they sit — 上家 on
    the left, 对家 across in the middle, 下家 on the right — and your own seat under them
    at full width; narrower, one under another in the order of play."""
    n = view["players"]
    me = view["seat"]
    others = [(me + d) % n for d in range(1, n)]
    sep = cell_len(COL_SEP)
    col_w = (width - sep * (len(others) - 1)) // max(1, len(others))
    out: list[str] = []
    if len(others) >= 2 and col_w >= WIDE_COL:
        blocks = [_seat_block(view, s, lang, col_w, last_discard, same) for s in reversed(others)]
        out.extend(columns(blocks, col_w))
    else:
        for s in others:
            out.extend(_seat_block(view, s, lang, width, last_discard, same))
    out.extend(_seat_block(view, me, lang, width, last_discard, same))
    return out


def reveal_lines(
    view: dict[str, Any],
    lang: str,
    width: int,
    names: Sequence[str],
    winner: int | None = None,
    win_tile: int = -1,
) -> list[str]:
    """The hand's reveal (the view of a finished hand, ``hands``): per seat its concealed
    tiles (golds first, marked ``*``; the winner's winning tile ‹…›), beside them its melds
    as the seats panel shows them during play (``碰 2万2万2万``, a concealed kong now with its
    tiles), and its flowers sorted as there."""
    gold = parse_kind(view["gold"]) if view.get("gold") else -1
    hands = view.get("hands", {})
    out = [tr("hands", lang)]
    for s in range(view["players"]):
        ks = sorted(parse(hands.get(str(s), "")), key=lambda k: (k != gold, k))
        tiles: list[str] = []
        mark = s == winner and win_tile >= 0
        for k in ks:
            t = ("*" if k == gold else "") + tile(k, lang)
            if mark and k == win_tile:
                t = f"‹{t}›"
                mark = False
            tiles.append(t)
        if mark:
            tiles.append(f"+‹{tile(win_tile, lang)}›")
        words = _lead(names[s] + ("：" if lang == "zh" else ":"), tiles or ["-"])
        words.extend(melds_words(view["melds"][s], lang))
        words.extend(flowers_words(view["flowers"][s], lang))
        out.extend(x.replace("\u00a0", " ") for x in wrap(words, width, 4))
    return out


def _lead(label: str, words: Sequence[str]) -> list[str]:
    """A label and its values as words to wrap, the label held to the first value: never
    alone at a line's end (``│ 总分：`` above its totals). After a full-width colon no
    space (``花（5）：中``, not ``花（5）： 中``); after an ASCII one a space that does not
    break (callers turn U+00A0 back into a space once wrapped)."""
    first, *rest = words
    glue = "" if label.endswith("：") else "\u00a0"
    return [f"{label}{glue}{first}", *rest]


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
    words = tr(
        "status",
        lang,
        hand=hand_no,
        profile=profile_title(str(view["profile"]), lang),
        gold=g,
        dealer=dealer,
        streak=view["streak"],
        live=view["live"],
        reserve=view["reserve"],
    ).split(" ")
    words.append("│")
    totals_words = (
        totals_text(totals, me, lang).replace(" +", "\u00a0+").replace(" -", "\u00a0-").split("  ")
    )
    words.extend(_lead(tr("match_total", lang), totals_words))
    return [x.replace("\u00a0", " ") for x in wrap(words, width, 2)]


# ---------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class OnSelected:
    """An offered option that also discards the selected tile (庄家抢金 attached to the first
    discard, 金坎): the tile is taken from the cursor when it is chosen."""

    type: str


Option = Action | OnSelected


def option_label(a: Option, lang: str, phase: Phase | None = None) -> str:
    t = a.type
    if isinstance(a, OnSelected):
        return tr("option." + t, lang) + tr("option.discards_selected", lang)
    if t == "win" and phase is Phase.WINDOW_A:
        return tr("option.heavenly", lang)
    if t == "chow":
        return tr("option.chow", lang) + " " + "".join(tile(k, lang) for k in a.tiles)
    label = tr("option." + t, lang)
    if t in ("concealed_kong", "added_kong", "discard"):
        label += " " + tile(a.tile, lang)
    if t in ("rob_gold", "jin_kan") and a.tile >= 0:
        # these also discard a tile (庄家抢金 with the first discard; 金坎): say so
        label += tr("option.discards", lang, tile=tile(a.tile, lang))
    return label


# the keys and what they do (``tui.help.<name>`` in the catalogue; the key's own label is
# ``tui.help.<name>.key`` where it has words, e.g. 空格 / Space)
HELP_KEYS: tuple[tuple[str, str], ...] = (
    ("select", "←/→, 1-9, 0"),
    ("discard", ""),
    ("mouse", ""),
    ("options", "a b c …"),
    ("hint", "h"),
    ("next", "n"),
    ("scroll", "↑/↓, PgUp/PgDn"),
    ("help", "?"),
    ("quit", "q, ctrl+q"),
)


def help_lines(lang: str) -> list[str]:
    head = tr("help.head", lang)
    out = [head]
    for name_, key in HELP_KEYS:
        k = key or tr(f"help.{name_}.key", lang)
        # pad by display cells, not characters (空格 is two cells wide per character)
        out.append(f"  {k}{' ' * max(1, 16 - cell_len(k))}{tr('help.' + name_, lang)}")
    return out


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
