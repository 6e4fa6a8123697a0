"""Player decisions as plain values (JSON: ``{"type": "discard", "tile": "5p"}``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.tiles import KIND_STR, NUM_KINDS, fmt, parse, parse_kind

# R6/R8 decision types. ``win`` is whatever win the moment offers (自摸, 点炮胡 on a discard, 抢杠, 天胡).
ACTION_TYPES = (
    "discard",  # tile
    "pass",
    "chow",  # tiles: the two tiles from hand
    "pong",
    "kong",  # exposed kong on a discard (明杠)
    "concealed_kong",  # tile (暗杠)
    "added_kong",  # tile (加杠)
    "win",
    "three_golds",  # 三金倒
    "rob_gold",  # 抢金; the dealer attaches it to his first discard (tile)
    "jin_kan",  # 金坎: discard tile and declare
)
_TYPE_SET = frozenset(ACTION_TYPES)


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of one seat. ``tile`` is a kind (-1 when none), ``tiles`` for chow.

    Fields are checked on construction (and again by ``Game.apply``, for an object built
    around ``__init__``): a malformed action raises :class:`IllegalAction`, never
    ``TypeError`` or ``IndexError`` (a server relies on one exception type)."""

    type: str
    tile: int = -1
    tiles: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise :class:`IllegalAction` naming the field unless every field is well formed:
        ``type`` one of ACTION_TYPES, ``tile`` a kind 0–41 or -1, ``tiles`` a tuple of at
        most four kinds."""
        typ = self.type
        if not isinstance(typ, str) or typ not in _TYPE_SET:
            raise IllegalAction(
                f"unknown action {_short(typ)}; expected one of {', '.join(ACTION_TYPES)}"
            )
        t = self.tile
        if not isinstance(t, int) or isinstance(t, bool) or not -1 <= t < NUM_KINDS:
            raise IllegalAction(
                f"action {typ}: tile must be a kind 0-{NUM_KINDS - 1} or -1, got {_short(t)}"
            )
        ts = self.tiles
        if type(ts) is not tuple or len(ts) > 4:
            raise IllegalAction(
                f"action {typ}: tiles must be a tuple of at most 4 kinds, got {_short(ts)}"
            )
        for x in ts:
            if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < NUM_KINDS:
                raise IllegalAction(
                    f"action {typ}: tiles must be kinds 0-{NUM_KINDS - 1}, got {_short(ts)}"
                )

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type}
        if self.tile >= 0:
            d["tile"] = KIND_STR[self.tile]
        if self.tiles:
            d["tiles"] = fmt(self.tiles)
        return d

    def __str__(self) -> str:
        extra = KIND_STR[self.tile] if self.tile >= 0 else fmt(self.tiles)
        return f"{self.type} {extra}".strip()

    @staticmethod
    def from_json(data: Any) -> Action:
        """Parse ``{"type"|"do": …, "tile": …, "tiles": …}``; raises IllegalAction."""
        if not isinstance(data, dict):
            raise IllegalAction(f"an action must be a JSON object, got {_short(data)}")
        typ = data.get("type", data.get("do"))
        if typ not in ACTION_TYPES:
            raise IllegalAction(
                f"unknown action {_short(typ)}; expected one of {', '.join(ACTION_TYPES)}"
            )
        tile = -1
        tiles: tuple[int, ...] = ()
        try:
            if data.get("tile") is not None:
                tile = parse_kind(str(data["tile"]))
            if data.get("tiles") is not None:
                tiles = tuple(sorted(parse(str(data["tiles"]))))
        except MahjongError as e:
            raise IllegalAction(f"action {typ}: {e}") from None
        return Action(str(typ), tile, tiles)  # validated on construction


def _short(v: object) -> str:
    """A value for a one-line error message: its repr, cut to 40 characters."""
    r = repr(v)
    return r if len(r) <= 40 else r[:39] + "…"


PASS = Action("pass")
WIN = Action("win")
PONG = Action("pong")
KONG = Action("kong")
THREE_GOLDS = Action("three_golds")
ROB_GOLD = Action("rob_gold")
