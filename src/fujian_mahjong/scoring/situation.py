"""The input of scoring: a finished hand's win situation (what `fjmj score` reads)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fujian_mahjong.errors import MahjongError, ScoreInputError
from fujian_mahjong.rules import Profile, get_profile
from fujian_mahjong.tiles import KIND_STR, fmt, is_flower, parse, parse_kind

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

    @property
    def is_kong(self) -> bool:
        return self.type.startswith("kong")

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


def _int(data: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    v = data.get(key, default)
    if v is None:
        raise ScoreInputError(f"field '{key}' is required")
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ScoreInputError(f"field '{key}' must be a whole number from {lo} to {hi}, got {v!r}")
    return v


def _kind(text: str, key: str) -> int:
    try:
        return parse_kind(text)
    except MahjongError as e:
        raise ScoreInputError(f"field '{key}': {e}") from None


def _tiles(data: dict[str, Any], key: str) -> list[int]:
    v = data.get(key, "")
    if not isinstance(v, str):
        raise ScoreInputError(f"field '{key}' must be a string of tiles, got {v!r}")
    try:
        return parse(v)
    except MahjongError as e:
        raise ScoreInputError(f"field '{key}': {e}") from None


def situation_from_json(data: Any) -> Situation:
    """Validate a JSON win situation; errors name the field (ScoreInputError)."""
    if not isinstance(data, dict):
        raise ScoreInputError("the situation must be a JSON object")
    prof_name = data.get("profile")
    if not isinstance(prof_name, str):
        raise ScoreInputError("field 'profile' is required (a profile name)")
    try:
        profile = get_profile(prof_name)
    except MahjongError as e:
        raise ScoreInputError(f"field 'profile': {e}") from None
    win = data.get("win")
    if win != "draw" and win not in WIN_KINDS:
        raise ScoreInputError(
            f"field 'win' must be one of {', '.join((*WIN_KINDS, 'draw'))}, got {win!r}"
        )
    seats = _int(data, "seats", profile.players_min, profile.players_max, 4)
    dealer = _int(data, "dealer", 0, seats - 1, 0)
    streak = _int(data, "streak", 0, 10_000, 0)
    if win == "draw":
        return Situation(profile=profile, seats=seats, dealer=dealer, win="draw", streak=streak)
    gold_s = data.get("gold")
    if not isinstance(gold_s, str):
        raise ScoreInputError("field 'gold' is required (a suited kind such as '5p')")
    gold = _kind(gold_s, "gold")
    if is_flower(gold):
        raise ScoreInputError(f"field 'gold': {gold_s} is a flower; the gold is a suited kind")
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
        if is_flower(k):
            raise ScoreInputError(
                f"field 'hand': {KIND_STR[k]} is a flower; flowers are never in hand"
            )
    wt = data.get("winning_tile")
    winning_tile: int | None = None
    if wt is not None:
        if not isinstance(wt, str):
            raise ScoreInputError("field 'winning_tile' must be a tile such as '7s'")
        winning_tile = _kind(wt, "winning_tile")
        if winning_tile not in hand:
            raise ScoreInputError(f"field 'winning_tile': {wt} is not in 'hand'")
    elif win not in ("three_golds", "heavenly"):
        raise ScoreInputError("field 'winning_tile' is required")
    melds_in = data.get("melds", [])
    if not isinstance(melds_in, list):
        raise ScoreInputError("field 'melds' must be a list")
    melds: list[MeldIn] = []
    for i, m in enumerate(melds_in):
        if not isinstance(m, dict) or m.get("type") not in MELD_TYPES:
            raise ScoreInputError(f"field 'melds[{i}].type' must be one of {', '.join(MELD_TYPES)}")
        ts = _tiles(m, "tiles")
        want = 3 if m["type"] in ("chow", "pong") else 4
        ok = len(ts) == want and not any(is_flower(k) for k in ts)
        if ok and m["type"] == "chow":
            s = sorted(ts)
            ok = s[0] // 9 == s[2] // 9 and s[1] == s[0] + 1 and s[2] == s[0] + 2
        elif ok:
            ok = len(set(ts)) == 1
        if not ok:
            raise ScoreInputError(
                f"field 'melds[{i}].tiles': {m.get('tiles')!r} is not a {m['type']}"
            )
        if gold in ts:
            raise ScoreInputError(
                f"field 'melds[{i}].tiles': golds can never be claimed into a meld (R5)"
            )
        melds.append(MeldIn(str(m["type"]), tuple(ts)))
    flowers = _tiles(data, "flowers")
    for k in flowers:
        if not is_flower(k):
            raise ScoreInputError(f"field 'flowers': {KIND_STR[k]} is not a flower")
    counts = [0] * 42
    for k in [*hand, *(k for m in melds for k in m.tiles), *flowers]:
        counts[k] += 1
    for k, n in enumerate(counts):
        limit = 1 if k >= 34 else 4
        if n > limit:
            raise ScoreInputError(f"field 'hand': {n} copies of {KIND_STR[k]} (at most {limit})")
    expected = 3 * (5 - len(melds)) + 2
    if len(hand) != expected and not (win == "three_golds" and len(hand) == expected - 1):
        raise ScoreInputError(
            f"field 'hand' has {len(hand)} tiles; with {len(melds)} melds it must have {expected}"
        )
    base = data.get("base")
    if base is not None and (not isinstance(base, int) or isinstance(base, bool) or base < 1):
        raise ScoreInputError(f"field 'base' must be a whole number >= 1, got {base!r}")
    jk = data.get("jinkan_declared", False)
    if not isinstance(jk, bool):
        raise ScoreInputError("field 'jinkan_declared' must be true or false")
    return Situation(
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
