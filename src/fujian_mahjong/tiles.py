"""R1: tiles, kinds and compact notation.

Kinds are small integers:

* 0–8 characters ``1m``–``9m`` (万), 9–17 dots ``1p``–``9p`` (饼), 18–26 bamboo ``1s``–``9s`` (条);
* 27–33 honours ``1z``–``7z`` (东 南 西 北 中 发 白);
* 34–41 bonus tiles ``1f``–``8f`` (春 夏 秋 冬 梅 兰 竹 菊).

Physical tiles are ids 0–143: ``id // 4`` is the kind for ids below 136 (four copies of
each of the 34 suited and honour kinds); ids 136–143 are the eight bonus tiles.
Per R1 (profile field ``honours``) the honours are *flowers* (花牌) like the bonus tiles and
only the 27 suited kinds play — except where honours are playable (``fuzhou-doudou``): there
the 34 suited and honour kinds play and only ``1f``–``8f`` are flowers. The functions that
depend on it take ``playable_honours``.
"""

from __future__ import annotations

from collections.abc import Iterable

from fujian_mahjong.errors import NotationError

NUM_KINDS = 42
NUM_SUITED = 27
NUM_TILES = 144
SUITS = "mpszf"
SUITED_KINDS = tuple(range(27))
FLOWER_KINDS = tuple(range(27, 42))
HONOUR_KINDS = tuple(range(27, 34))
BONUS_KINDS = tuple(range(34, 42))

_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27, "f": 34}
_SUIT_MAX = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 8}

_ZH_NUM = "一二三四五六七八九"
_ZH_SUIT = {"m": "万", "p": "饼", "s": "条"}
_ZH_HONOUR = "东南西北中发白"
_ZH_BONUS = "春夏秋冬梅兰竹菊"
_EN_HONOUR = ("E", "S", "W", "N", "Red", "Green", "White")
_EN_HONOUR_LONG = (
    "East wind",
    "South wind",
    "West wind",
    "North wind",
    "Red dragon",
    "Green dragon",
    "White dragon",
)
_EN_BONUS = ("Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo", "Chrysanthemum")
_EN_SUIT = {"m": "Characters", "p": "Dots", "s": "Bamboo"}

# R1 flower sets (套花): four of one honour, the four seasons, the four plants.
SEASONS = frozenset(range(34, 38))
PLANTS = frozenset(range(38, 42))


def suit_of(kind: int) -> str:
    """The suit letter of a kind: ``m``, ``p``, ``s``, ``z`` or ``f``."""
    if kind < 9:
        return "m"
    if kind < 18:
        return "p"
    if kind < 27:
        return "s"
    if kind < 34:
        return "z"
    return "f"


def rank_of(kind: int) -> int:
    """The digit of a kind in notation (1–9 for suits, 1–7 honours, 1–8 bonus)."""
    return kind - _SUIT_BASE[suit_of(kind)] + 1


def is_suited(kind: int) -> bool:
    return kind < 27


def is_flower(kind: int, playable_honours: bool = False) -> bool:
    """R1: the bonus tiles are flowers (花牌); so are the honours unless they are playable."""
    return kind >= (34 if playable_honours else 27)


def is_honour(kind: int) -> bool:
    return 27 <= kind < 34


def is_bonus(kind: int) -> bool:
    return kind >= 34


def kind_of_tile(tile_id: int) -> int:
    """Kind of a physical tile id (0–143)."""
    return tile_id // 4 if tile_id < 136 else 34 + (tile_id - 136)


def copies_of(kind: int) -> int:
    """How many physical copies exist of a kind (4, or 1 for bonus tiles)."""
    return 1 if kind >= 34 else 4


def kind_str(kind: int) -> str:
    """Notation of one kind, e.g. ``"3p"``."""
    return f"{rank_of(kind)}{suit_of(kind)}"


KIND_STR: tuple[str, ...] = tuple(kind_str(k) for k in range(NUM_KINDS))
_STR_KIND = {s: k for k, s in enumerate(KIND_STR)}


def parse_kind(text: str) -> int:
    """Parse one kind such as ``"5p"``; raises :class:`NotationError`."""
    kinds = parse(text)
    if len(kinds) != 1:
        raise NotationError(f"expected exactly one tile, got {len(kinds)} in {text!r}")
    return kinds[0]


def parse(text: str) -> list[int]:
    """Parse compact notation (``"123m 55p 1z1z"``) into a list of kinds, in order.

    Digits are grouped before a suit letter; spaces are optional. Anything else raises
    :class:`NotationError` naming the bad character and its (0-based) position.
    """
    out: list[int] = []
    pending: list[tuple[int, int]] = []  # (digit, position)
    for pos, ch in enumerate(text):
        if ch.isspace():
            if pending:
                raise NotationError(
                    f"space at position {pos} inside a group: digits must be followed by a "
                    f"suit letter (m p s z f) in {text!r}"
                )
            continue
        if ch in "0123456789":
            pending.append((int(ch), pos))
            continue
        if ch in _SUIT_BASE:
            if not pending:
                raise NotationError(
                    f"suit letter {ch!r} at position {pos} has no digits before it in {text!r}"
                )
            for digit, dpos in pending:
                if not 1 <= digit <= _SUIT_MAX[ch]:
                    raise NotationError(
                        f"bad character {str(digit)!r} at position {dpos}: suit {ch!r} takes "
                        f"digits 1-{_SUIT_MAX[ch]} in {text!r}"
                    )
                out.append(_SUIT_BASE[ch] + digit - 1)
            pending = []
            continue
        raise NotationError(
            f"bad character {ch!r} at position {pos} in {text!r} (expected digits and m p s z f)"
        )
    if pending:
        raise NotationError(
            f"digits at position {pending[0][1]} are not followed by a suit letter in {text!r}"
        )
    return out


def fmt(kinds: Iterable[int]) -> str:
    """Format kinds in compact notation, keeping their order (``parse(fmt(x)) == x``)."""
    parts: list[str] = []
    run_suit = ""
    digits: list[str] = []
    for k in kinds:
        s = suit_of(k)
        if s != run_suit and digits:
            parts.append("".join(digits) + run_suit)
            digits = []
        run_suit = s
        digits.append(str(rank_of(k)))
    if digits:
        parts.append("".join(digits) + run_suit)
    return "".join(parts)


def fmt_sorted(kinds: Iterable[int]) -> str:
    """Format kinds in ascending kind order."""
    return fmt(sorted(kinds))


def counts_of(kinds: Iterable[int], size: int = NUM_KINDS) -> list[int]:
    """Count vector over kinds."""
    c = [0] * size
    for k in kinds:
        c[k] += 1
    return c


def name(kind: int, lang: str = "zh") -> str:
    """Short display text of a kind for terminals: ``5饼``/``东`` (zh) or ``5p``/``E`` (en)."""
    s = suit_of(kind)
    r = rank_of(kind)
    if lang == "zh":
        if s in _ZH_SUIT:
            return f"{r}{_ZH_SUIT[s]}"
        return _ZH_HONOUR[r - 1] if s == "z" else _ZH_BONUS[r - 1]
    if s == "z":
        return _EN_HONOUR[r - 1]
    if s == "f":
        return _EN_BONUS[r - 1]
    return f"{r}{s}"


def long_name(kind: int, lang: str = "zh") -> str:
    """Full name: ``五饼`` / ``5 Dots``, ``东`` / ``East wind``, ``春`` / ``Spring``."""
    s = suit_of(kind)
    r = rank_of(kind)
    if lang == "zh":
        if s in _ZH_SUIT:
            return f"{_ZH_NUM[r - 1]}{_ZH_SUIT[s]}"
        return name(kind, "zh")
    if s in _EN_SUIT:
        return f"{r} {_EN_SUIT[s]}"
    return _EN_HONOUR_LONG[r - 1] if s == "z" else _EN_BONUS[r - 1]


def flower_sets(flowers: Iterable[int], playable_honours: bool = False) -> int:
    """R1 套花: number of complete flower sets among flower kinds.

    A set is four copies of one honour (only where honours are flowers), the four seasons,
    or the four plants.
    """
    fl = list(flowers)
    c = counts_of(fl)
    n = 0 if playable_honours else sum(1 for k in HONOUR_KINDS if c[k] == 4)
    have = {k for k in fl if k >= 34}
    n += int(have >= SEASONS) + int(have >= PLANTS)
    return n


def physical_set() -> list[int]:
    """The kinds of all 144 physical tiles, by tile id."""
    return [kind_of_tile(t) for t in range(NUM_TILES)]
