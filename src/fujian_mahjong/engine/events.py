"""R12: the engine's phases and events as types (docs/engine.md, "Events").

``Game.events`` is a list of plain JSON-ready dicts, typed ``list[Event]``; this module says
exactly what each one holds. Every event type is a :class:`~typing_extensions.TypedDict`
whose keys and value types are the ones the engine writes — the TypedDict *is* the JSON form
(tiles are notation: ``"3p"`` for one tile, ``"123m45p"`` for several, as ``tiles.fmt``
writes them). ``Event`` is their union, ``EVENT_TYPES`` maps each ``type`` string to its
definition, and :func:`validate_event` checks one event (from the engine or from a JSON Lines
log) against its definition with pydantic, strictly: the type is known, every required key is
there, no other key is, and every value has the right JSON type (an int is not a bool or a
string) and, for tiles, the right notation. ``Phase``, a string enum, lists every value of
``Game.phase`` (and so of a view's ``"phase"``).

The TypedDicts come from ``typing_extensions`` (pydantic needs that form before Python
3.12); pydantic itself is imported on the first validation only (it costs start-up).
"""

from __future__ import annotations

import functools
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

from typing_extensions import TypedDict

from fujian_mahjong.errors import MahjongError

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "EVENT_TYPES",
    "ActionJSON",
    "ActionType",
    "Event",
    "EventType",
    "Phase",
    "WinKind",
    "validate_event",
]

# ---------------------------------------------------------------------- value types


class Phase(StrEnum):
    """``Game.phase``: ``DEAL`` only while the hand is being dealt (``Game.new`` returns after
    it), ``WINDOW_A`` (opening window A, R8.1), ``TURN`` (a seat decides), ``CLAIMS`` (answers
    to a discard, window B or an added kong), ``LAST_GROUP`` (only inside the last-group draws,
    R5) and ``OVER``.

    A :class:`~enum.StrEnum`: each member *is* its string (``Phase.TURN == "turn"``), so a
    view's ``"phase"`` and a log serialize exactly as the plain strings did. Compare members
    by identity or equality (``g.phase is Phase.TURN``)."""

    DEAL = "deal"
    WINDOW_A = "window_a"
    TURN = "turn"
    CLAIMS = "claims"
    LAST_GROUP = "last_group"
    OVER = "over"


ActionType = Literal[
    "discard",
    "pass",
    "chow",
    "pong",
    "kong",
    "concealed_kong",
    "added_kong",
    "win",
    "three_golds",
    "rob_gold",
    "jin_kan",
]
"""``engine.ACTION_TYPES`` as a type (a test keeps the two equal)."""

WinKind = Literal[
    "discard", "self_draw", "rob_gold", "heavenly", "three_golds", "rob_kong", "last_group"
]
"""``scoring.situation.WIN_KINDS`` as a type (a test keeps the two equal)."""

EventType = Literal[
    "start",
    "dice",
    "deal",
    "flower",
    "gold",
    "act",
    "draw",
    "discard",
    "claim",
    "kong",
    "add_kong_declared",
    "xian_jin",
    "xian_jin_end",
    "jin_kan",
    "last_group",
    "win",
    "draw_game",
    "end",
]


class _Notation:
    """Pydantic metadata (``Annotated[str, _Notation(...)]``): a strict string matching a
    regular expression. It speaks pydantic's ``__get_pydantic_core_schema__`` protocol, so
    this module needs no pydantic import until something is validated."""

    def __init__(self, pattern: str, what: str) -> None:
        self.pattern = pattern
        _WHAT[pattern] = what

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.str_schema(pattern=self.pattern, strict=True)

    def __repr__(self) -> str:
        return f"_Notation({self.pattern!r})"


_WHAT: dict[str, str] = {}  # pattern -> what it stands for (error messages)
Tile = Annotated[str, _Notation(r"^(?:[1-9][mps]|[1-7]z|[1-8]f)$", "one tile like '3p'")]
"""One tile in notation: ``"3p"``, ``"7z"``, ``"2f"``."""
Tiles = Annotated[
    str, _Notation(r"^(?:[1-9]+[mps]|[1-7]+z|[1-8]+f)*$", "tiles in notation like '123m45p'")
]
"""Tiles in notation, as ``tiles.fmt`` writes them (``"123m45p"``; ``""`` for none)."""
SeatKey = Annotated[str, _Notation(r"^[0-9]$", "a seat number")]
"""A seat number as a JSON object key (``"0"``…)."""


class ActionJSON(TypedDict):
    """``Action.to_json()``: ``{"type": "discard", "tile": "5p"}``, ``{"type": "chow",
    "tiles": "46p"}``, ``{"type": "pass"}``."""

    type: ActionType
    tile: NotRequired[Tile]
    tiles: NotRequired[Tiles]


# ---------------------------------------------------------------------- the events


class StartEvent(TypedDict):
    """First event: the hand's parameters and the seed commitment (R12)."""

    type: Literal["start"]
    version: int
    profile: str
    players: int
    dealer: int
    streak: int
    seed_sha256: str
    stacked: bool


class DiceEvent(TypedDict):
    type: Literal["dice"]
    dice: list[int]


class DealEvent(TypedDict):
    """Every seat's dealt tiles (seat → tiles), before flower replacement (R3)."""

    type: Literal["deal"]
    hands: dict[SeatKey, Tiles]


class FlowerEvent(TypedDict):
    """Flowers set aside (R4). The initial replacement rounds carry ``round`` and the
    replacement tiles ``drawn``; a flower drawn in play is one tile in ``flowers``."""

    type: Literal["flower"]
    seat: int
    flowers: Tiles
    round: NotRequired[int]
    drawn: NotRequired[Tiles]


class GoldEvent(TypedDict):
    """The gold opened (R5); flipped flowers went to the dealer (``to_dealer``)."""

    type: Literal["gold"]
    indicator: Tile
    gold: Tile
    to_dealer: Tiles


class ActEvent(TypedDict):
    """One decision (the only events a replay feeds back in)."""

    type: Literal["act"]
    seat: int
    action: ActionJSON


class DrawEvent(TypedDict):
    type: Literal["draw"]
    seat: int
    tile: Tile
    source: Literal["head", "tail"]


class DiscardEvent(TypedDict):
    """``rob_gold``: the dealer attached 庄家抢金 to this discard (R8)."""

    type: Literal["discard"]
    seat: int
    tile: Tile
    rob_gold: bool


# "from" is a keyword: the functional form
ClaimEvent = TypedDict(
    "ClaimEvent",
    {
        "type": Literal["claim"],
        "seat": int,
        "meld": Literal["chow", "pong", "kong"],
        "tiles": Tiles,
        "from": int,
    },
)
"""A discard claimed (R6): the meld's tiles (the claimed one included) and the discarder."""


class KongEvent(TypedDict):
    type: Literal["kong"]
    seat: int
    kind: Literal["concealed", "added"]
    tile: Tile


class AddKongDeclaredEvent(TypedDict):
    """Sanming: an added kong that may now be robbed (R6)."""

    type: Literal["add_kong_declared"]
    seat: int
    tile: Tile


class XianJinEvent(TypedDict):
    """闲金 announced (R8.4)."""

    type: Literal["xian_jin"]
    seat: int


class XianJinEndEvent(TypedDict):
    """闲金 ended (R8.4)."""

    type: Literal["xian_jin_end"]
    seat: int


class JinKanEvent(TypedDict):
    """金坎 declared with the discard just before it (R8.5); ``shown``: the two tiles."""

    type: Literal["jin_kan"]
    seat: int
    shown: Tiles


class LastGroupEvent(TypedDict):
    """The last group starts (R5); ``live``: the tiles left to draw."""

    type: Literal["last_group"]
    live: int


class WinEvent(TypedDict):
    """The hand won (R10 score): ``tile`` is the winning tile (None for 三金倒)."""

    type: Literal["win"]
    seat: int
    win: WinKind
    discarder: int | None
    tile: Tile | None
    points: int
    payments: list[int]
    specials: list[str]


class DrawGameEvent(TypedDict):
    """The wall ran out: a draw (流局)."""

    type: Literal["draw_game"]
    payments: list[int]


class EndEvent(TypedDict):
    """Last event: the seed revealed (R12) and every concealed hand."""

    type: Literal["end"]
    seed: str
    hands: dict[SeatKey, Tiles]


Event = (
    StartEvent
    | DiceEvent
    | DealEvent
    | FlowerEvent
    | GoldEvent
    | ActEvent
    | DrawEvent
    | DiscardEvent
    | ClaimEvent
    | KongEvent
    | AddKongDeclaredEvent
    | XianJinEvent
    | XianJinEndEvent
    | JinKanEvent
    | LastGroupEvent
    | WinEvent
    | DrawGameEvent
    | EndEvent
)
"""Any engine event."""

EVENT_TYPES: dict[str, type[Any]] = {
    "start": StartEvent,
    "dice": DiceEvent,
    "deal": DealEvent,
    "flower": FlowerEvent,
    "gold": GoldEvent,
    "act": ActEvent,
    "draw": DrawEvent,
    "discard": DiscardEvent,
    "claim": ClaimEvent,
    "kong": KongEvent,
    "add_kong_declared": AddKongDeclaredEvent,
    "xian_jin": XianJinEvent,
    "xian_jin_end": XianJinEndEvent,
    "jin_kan": JinKanEvent,
    "last_group": LastGroupEvent,
    "win": WinEvent,
    "draw_game": DrawGameEvent,
    "end": EndEvent,
}
"""Every event ``type`` and its definition (the keys are ``EventType``'s values)."""


# ---------------------------------------------------------------------- validation


@functools.cache
def _adapter() -> TypeAdapter[Any]:
    """One pydantic adapter over the union, discriminated by ``type``; strict (no coercion:
    ``"3"`` is not an int, ``True`` is not an int, a tuple is not a list) and no extra keys.
    The config reaches every TypedDict of the union (none sets its own)."""
    from pydantic import ConfigDict, Field, TypeAdapter

    return TypeAdapter(
        Annotated[Event, Field(discriminator="type")],
        config=ConfigDict(strict=True, extra="forbid"),
    )


def _short(v: object) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:39] + "…"


def validate_event(e: object) -> Event:
    """Check one event against its definition; return it (as a new, equal dict).

    Raises :class:`MahjongError` naming the event type and the field: an unknown type, a
    missing or unknown key, or a value of the wrong type or notation."""
    from pydantic import ValidationError

    if not isinstance(e, dict) or not isinstance(e.get("type"), str):
        raise MahjongError(f"an event must be a JSON object with a 'type', got {_short(e)}")
    t = e["type"]
    if t not in EVENT_TYPES:
        raise MahjongError(
            f"unknown event type {_short(t)}; expected one of {', '.join(EVENT_TYPES)}"
        )
    try:
        out: Event = _adapter().validate_python(e)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = first.get("loc", ())[1:]  # the first element is the union tag
        where = ".".join(str(x) for x in loc) or "event"
        kind = first.get("type", "")
        if kind == "missing":
            why = f"missing field '{where}'"
        elif kind == "extra_forbidden":
            why = f"unknown field '{where}'"
        else:
            pattern = (first.get("ctx") or {}).get("pattern")
            msg = f"expected {_WHAT[pattern]}" if pattern in _WHAT else first.get("msg", "invalid")
            why = f"field '{where}': {msg}, got {_short(first.get('input'))}"
        more = err.error_count() - 1
        raise MahjongError(
            f"event {t!r}: {why}" + (f" (and {more} more problem(s))" if more else "")
        ) from None
    return out
