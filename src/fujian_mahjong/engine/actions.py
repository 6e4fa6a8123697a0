"""Player decisions as plain values (JSON: ``{"type": "discard", "tile": "5p"}``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.tiles import KIND_STR, fmt, parse, parse_kind

# R6/R8 decision types. ``win`` is whatever win the moment offers (自摸, 放胡, 抢杠, 天胡).
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
TILE_ACTIONS = frozenset({"discard", "concealed_kong", "added_kong", "jin_kan"})


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of one seat. ``tile`` is a kind (-1 when none), ``tiles`` for chow."""

    type: str
    tile: int = -1
    tiles: tuple[int, ...] = ()

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
            raise IllegalAction(f"an action must be a JSON object, got {data!r}")
        typ = data.get("type", data.get("do"))
        if typ not in ACTION_TYPES:
            raise IllegalAction(
                f"unknown action {typ!r}; expected one of {', '.join(ACTION_TYPES)}"
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
        return Action(str(typ), tile, tiles)


PASS = Action("pass")
WIN = Action("win")
PONG = Action("pong")
KONG = Action("kong")
THREE_GOLDS = Action("three_golds")
ROB_GOLD = Action("rob_gold")
