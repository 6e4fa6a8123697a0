"""The input of scoring: a finished hand's win situation (what `fjmj score` reads)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fujian_mahjong._compiled import reduce_dataclass
from fujian_mahjong.errors import MahjongError, ScoreInputError
from fujian_mahjong.fileio import misspelt
from fujian_mahjong.rules import Profile, get_profile
from fujian_mahjong.tiles import (
    KIND_STR,
    copies_of,
    fmt,
    is_bonus,
    is_flower,
    is_suited,
    parse,
    parse_kind,
)

WIN_KINDS = (
    "discard",
    "self_draw",
    "rob_gold",
    "heavenly",
    "three_golds",
    "rob_kong",
    "last_group",
)
SELF_DRAW_KINDS = frozenset(WIN_KINDS) - {"discard"}  # R10: "self-draw" includes these
MELD_TYPES = ("chow", "pong", "kong_exposed", "kong_added", "kong_concealed")


@dataclass(frozen=True, slots=True)
class MeldIn:
    """An exposed (or concealed-kong) meld of the winner."""

    type: str
    tiles: tuple[int, ...]

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled

    @property
    def is_exposed_kong(self) -> bool:
        # R5: an added kong is an exposed kong
        return self.type in ("kong_exposed", "kong_added")

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "tiles": fmt(self.tiles)}


@dataclass(frozen=True, slots=True)
class Situation:
    """A win (or a draw) ready for scoring (R10)."""

    profile: Profile
    seats: int
    dealer: int
    win: str  # one of WIN_KINDS, or "draw"
    gold: int | None = None
    winner: int | None = None
    discarder: int | None = None
    hand: tuple[int, ...] = ()
    winning_tile: int | None = None
    melds: tuple[MeldIn, ...] = ()
    flowers: tuple[int, ...] = ()
    streak: int = 0
    base: int | None = None
    jinkan_declared: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled

    @property
    def self_draw(self) -> bool:
        return self.win in SELF_DRAW_KINDS

    def to_json(self) -> dict[str, Any]:
        if self.win == "draw":
            return {
                "profile": self.profile.name,
                "win": "draw",
                "dealer": self.dealer,
                "seats": self.seats,
                "streak": self.streak,
            }
        assert self.gold is not None
        return {
            "profile": self.profile.name,
            "gold": KIND_STR[self.gold],
            "seats": self.seats,
            "dealer": self.dealer,
            "winner": self.winner,
            "discarder": self.discarder,
            "win": self.win,
            "hand": fmt(sorted(self.hand)),
            "winning_tile": KIND_STR[self.winning_tile] if self.winning_tile is not None else None,
            "melds": [m.to_json() for m in self.melds],
            "flowers": fmt(self.flowers),
            "streak": self.streak,
            "base": self.base,
            "jinkan_declared": self.jinkan_declared,
        }


# Hostile input: bounded sizes, short excerpts in messages.
MAX_TILES_TEXT = 120  # characters of tile notation in one field (a hand needs ~40)
MAX_MELDS = 5
MAX_BASE = 1_000_000
MAX_STREAK = 10_000


def short(v: Any, limit: int = 40) -> str:
    """A one-line excerpt of a value for an error message (never the whole input)."""
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def honours_playable(profile: Profile) -> bool:
    """R1: ``fuzhou-doudou`` plays 1z-7z as ordinary tiles (profile field ``honours``)."""
    return getattr(profile, "honours", "flowers") == "playable"


def is_flower_in(profile: Profile, kind: int) -> bool:
    """R1: the flowers of a profile — 1z-7z and 1f-8f, or only 1f-8f with playable honours."""
    return is_bonus(kind) if honours_playable(profile) else is_flower(kind)


def _int(data: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    v = data.get(key, default)
    if v is None:
        raise ScoreInputError(f"field '{key}' is required")
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ScoreInputError(
            f"field '{key}' must be a whole number from {lo} to {hi}, got {short(v)}"
        )
    return v


def _kind(text: str, key: str) -> int:
    if len(text) > MAX_TILES_TEXT:
        raise ScoreInputError(f"field '{key}' is too long ({len(text)} characters)")
    try:
        return parse_kind(text)
    except MahjongError as e:
        raise ScoreInputError(f"field '{key}': {e}") from None


def _tiles(data: dict[str, Any], key: str, field_name: str | None = None) -> list[int]:
    fname = field_name or key
    v = data.get(key, "")
    if not isinstance(v, str):
        raise ScoreInputError(f"field '{fname}' must be a string of tiles, got {short(v)}")
    if len(v) > MAX_TILES_TEXT:
        raise ScoreInputError(
            f"field '{fname}' is too long ({len(v)} characters; at most {MAX_TILES_TEXT})"
        )
    try:
        return parse(v)
    except MahjongError as e:
        raise ScoreInputError(f"field '{fname}': {e}") from None


def _profile(data: dict[str, Any]) -> Profile:
    name = data.get("profile")
    if name is None:
        raise ScoreInputError("field 'profile' is required (a profile name)")
    if not isinstance(name, str):
        raise ScoreInputError(f"field 'profile' must be a profile name, got {short(name)}")
    if len(name) > 256 or not name.isprintable():
        raise ScoreInputError(f"field 'profile': not a profile name or path: {short(name)}")
    if name.endswith(".toml"):
        # a user profile: only a regular file (a FIFO would hang the reader)
        try:
            ok = Path(name).is_file()
        except (OSError, ValueError):
            ok = False
        if not ok:
            raise ScoreInputError(f"field 'profile': {short(name)} is not a readable file")
    try:
        return get_profile(name)
    except MahjongError as e:
        raise ScoreInputError(f"field 'profile': {e}") from None


def _meld(m: Any, i: int, gold: int, profile: Profile) -> MeldIn:
    f = f"melds[{i}]"
    if not isinstance(m, dict) or m.get("type") not in MELD_TYPES:
        raise ScoreInputError(f"field '{f}.type' must be one of {', '.join(MELD_TYPES)}")
    ts = _tiles(m, "tiles", f"{f}.tiles")
    typ = str(m["type"])
    want = 3 if typ in ("chow", "pong") else 4
    ok = len(ts) == want and not any(is_flower_in(profile, k) for k in ts)  # R1
    if ok and typ == "chow":
        # R1/R7: chows are suited only (no sequences of winds or dragons)
        s = sorted(ts)
        ok = is_suited(s[2]) and s[0] // 9 == s[2] // 9 and s[1] == s[0] + 1 and s[2] == s[0] + 2
    elif ok:
        ok = len(set(ts)) == 1
    if not ok:
        raise ScoreInputError(f"field '{f}.tiles': {short(m.get('tiles'))} is not a {typ}")
    if gold in ts:
        raise ScoreInputError(f"field '{f}.tiles': golds can never be claimed into a meld (R5)")
    return MeldIn(typ, tuple(ts))


# docs/scoring.md: the fields of a win situation
SITUATION_KEYS = (
    "profile",
    "win",
    "seats",
    "dealer",
    "streak",
    "gold",
    "winner",
    "discarder",
    "hand",
    "flowers",
    "melds",
    "winning_tile",
    "jinkan_declared",
    "base",
)


def situation_from_json(data: Any) -> Situation:
    """Validate a JSON win situation; errors name the field (ScoreInputError).

    Besides the shape of each field, impossible situations are refused (:func:`check`).
    """
    if not isinstance(data, dict):
        raise ScoreInputError("the situation must be a JSON object")
    typo = misspelt(data, SITUATION_KEYS)
    if typo is not None:
        raise ScoreInputError(f"field {typo[0]!r}: unknown (did you mean {typo[1]!r}?)")
    profile = _profile(data)
    win = data.get("win")
    if win != "draw" and win not in WIN_KINDS:
        raise ScoreInputError(
            f"field 'win' must be one of {', '.join((*WIN_KINDS, 'draw'))}, got {short(win)}"
        )
    seats = _int(data, "seats", profile.players_min, profile.players_max, 4)
    dealer = _int(data, "dealer", 0, seats - 1, 0)
    streak = _int(data, "streak", 0, MAX_STREAK, 0)
    if win == "draw":
        return Situation(profile=profile, seats=seats, dealer=dealer, win="draw", streak=streak)
    playable = honours_playable(profile)
    gold_s = data.get("gold")
    what = "a playable kind such as '5p' or '1z'" if playable else "a suited kind such as '5p'"
    if gold_s is None:
        raise ScoreInputError(f"field 'gold' is required ({what})")
    if not isinstance(gold_s, str):
        raise ScoreInputError(f"field 'gold' must be {what}, got {short(gold_s)}")
    gold = _kind(gold_s, "gold")
    if is_flower_in(profile, gold):
        raise ScoreInputError(
            f"field 'gold': {gold_s} is a flower in {profile.name}; the gold is {what} (R5)"
        )
    winner = _int(data, "winner", 0, seats - 1)
    discarder = data.get("discarder")
    if win == "discard":
        discarder = _int(data, "discarder", 0, seats - 1)
        if discarder == winner:
            raise ScoreInputError("field 'discarder' must differ from 'winner'")
    elif discarder is not None:
        raise ScoreInputError(
            f"field 'discarder' must be null unless win is 'discard' (win is {win!r})"
        )
    hand = _tiles(data, "hand")
    for k in hand:
        if is_flower_in(profile, k):
            raise ScoreInputError(
                f"field 'hand': {KIND_STR[k]} is a flower in {profile.name}; "
                "flowers are never in hand (R1)"
            )
    wt = data.get("winning_tile")
    winning_tile: int | None = None
    if wt is not None:
        if not isinstance(wt, str):
            raise ScoreInputError(
                f"field 'winning_tile' must be a tile such as '7s', got {short(wt)}"
            )
        winning_tile = _kind(wt, "winning_tile")
        if winning_tile not in hand:
            raise ScoreInputError(
                f"field 'winning_tile': {KIND_STR[winning_tile]} is not in 'hand'"
            )
    elif win not in ("three_golds", "heavenly"):
        raise ScoreInputError("field 'winning_tile' is required")
    melds_in = data.get("melds", [])
    if not isinstance(melds_in, list):
        raise ScoreInputError("field 'melds' must be a list")
    if len(melds_in) > MAX_MELDS:
        raise ScoreInputError(f"field 'melds' has {len(melds_in)} melds; at most {MAX_MELDS}")
    melds = [_meld(m, i, gold, profile) for i, m in enumerate(melds_in)]
    flowers = _tiles(data, "flowers")
    for k in flowers:
        if not is_flower_in(profile, k):
            raise ScoreInputError(
                f"field 'flowers': {KIND_STR[k]} is not a flower in {profile.name} (R1)"
            )
    _check_copies(hand, melds, flowers)
    expected = 3 * (5 - len(melds)) + 2
    if len(hand) != expected and not (win == "three_golds" and len(hand) == expected - 1):
        raise ScoreInputError(
            f"field 'hand' has {len(hand)} tiles; with {len(melds)} melds it must have {expected}"
        )
    base = data.get("base")
    if base is not None and (
        not isinstance(base, int) or isinstance(base, bool) or not 1 <= base <= MAX_BASE
    ):
        raise ScoreInputError(
            f"field 'base' must be a whole number from 1 to {MAX_BASE}, got {short(base)}"
        )
    jk = data.get("jinkan_declared", False)
    if not isinstance(jk, bool):
        raise ScoreInputError("field 'jinkan_declared' must be true or false")
    sit = Situation(
        profile=profile,
        seats=seats,
        dealer=dealer,
        win=str(win),
        gold=gold,
        winner=winner,
        discarder=discarder,
        hand=tuple(hand),
        winning_tile=winning_tile,
        melds=tuple(melds),
        flowers=tuple(flowers),
        streak=streak,
        base=base,
        jinkan_declared=jk,
    )
    check(sit)
    return sit


def _check_copies(hand: list[int], melds: list[MeldIn], flowers: list[int]) -> None:
    """R1: at most 4 copies of a kind (1 of a bonus tile); the error names the fields
    holding the copies."""
    where: dict[int, list[str]] = {}
    counts = [0] * 42
    parts: list[tuple[str, tuple[int, ...] | list[int]]] = [("hand", hand)]
    parts += [(f"melds[{i}].tiles", m.tiles) for i, m in enumerate(melds)]
    parts.append(("flowers", flowers))
    for fname, tiles in parts:
        for k in tiles:
            counts[k] += 1
            if fname not in where.setdefault(k, []):
                where[k].append(fname)
    for k, n in enumerate(counts):
        limit = copies_of(k)
        if n > limit:
            fields = ", ".join(f"'{f}'" for f in where[k])
            label = "field" if len(where[k]) == 1 else "fields"
            raise ScoreInputError(
                f"{label} {fields}: {n} copies of {KIND_STR[k]} (there are {limit})"
            )


def check(sit: Situation) -> None:
    """Refuse situations that cannot arise at a table under RULES.md, naming the field.

    ``score()`` calls this too, so a hand-made :class:`Situation` is held to the same rules
    as ``fjmj score``'s input.
    """
    if sit.win == "draw":
        return
    p = sit.profile
    gold = sit.gold
    assert gold is not None
    if sit.win == "heavenly" and sit.winner != sit.dealer:
        raise ScoreInputError(
            f"field 'winner': 天胡 (heavenly) is the dealer's win (seat {sit.dealer}), "
            f"not seat {sit.winner}'s (R7)"
        )
    if sit.win == "discard" and sit.winning_tile == gold:
        raise ScoreInputError(
            f"field 'winning_tile': {KIND_STR[gold]} is the gold kind; a discarded gold can "
            "never be won on (R5)"
        )
    if sit.win == "three_golds":
        g = sum(1 for k in sit.hand if k == gold)
        if g < 3:
            raise ScoreInputError(
                f"field 'hand': 三金倒 (three_golds) needs three golds ({KIND_STR[gold]}) in "
                f"the hand, it has {g} (R7)"
            )
    if sit.win == "rob_kong" and not p.rob_kong:
        raise ScoreInputError(
            f"field 'win': {p.name} has no 抢杠 (rob_kong); only profiles with rob_kong do "
            "(R6, D-16)"
        )
    if sit.win == "rob_gold" and sit.winning_tile != gold:
        got = KIND_STR[sit.winning_tile] if sit.winning_tile is not None else "none"
        raise ScoreInputError(
            f"field 'winning_tile': 抢金 takes the gold indicator, so the robbed tile is the "
            f"gold kind {KIND_STR[gold]}, not {got} (R8)"
        )
