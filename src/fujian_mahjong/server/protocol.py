"""The WebSocket protocol, version 1 (docs/protocol.md): pydantic models for every client
message (validated on arrival) and every server message (used by the tests to check that
everything the server sends has the documented shape).

Every message is a JSON object with ``"type"``. Errors are
``{"type": "error", "code": …, "message": …}``: one line saying what was wrong.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

PROTOCOL_VERSION = 1

TableRef = Annotated[int | str, Field(description="a table id, or its 4-6 letter code")]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


# ---------------------------------------------------------------------- client → server


class Hello(_Msg):
    type: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=200)]


class Join(_Msg):
    type: Literal["join"]
    table: int | Annotated[str, Field(min_length=1, max_length=20)]
    as_: Literal["player", "spectator"] = Field("player", alias="as")


class Ready(_Msg):
    type: Literal["ready"]


class Next(_Msg):
    """The next hand, when this player is ready (an alias of ``ready`` between hands)."""

    type: Literal["next"]


class Act(_Msg):
    type: Literal["act"]
    seq: int
    action: dict[str, Any]


class Hint(_Msg):
    type: Literal["hint"]


class Auto(_Msg):
    """托管 on/off: the server plays this seat (win if possible, else the heuristic bot)."""

    type: Literal["auto"]
    on: bool


class Leave(_Msg):
    type: Literal["leave"]


class Ping(_Msg):
    type: Literal["ping"]


class Chat(_Msg):
    """A preset phrase or reaction (``GET /api/phrases``; server/social.py): no free text."""

    type: Literal["chat"]
    phrase: Annotated[str, Field(min_length=1, max_length=40)]


class Dissolve(_Msg):
    """解散房间: the first accept proposes; accept or refuse the open proposal."""

    type: Literal["dissolve"]
    accept: bool


ClientMessage = Annotated[
    Hello | Join | Ready | Next | Act | Hint | Auto | Leave | Ping | Chat | Dissolve,
    Field(discriminator="type"),
]
CLIENT_TYPES = (
    "hello",
    "join",
    "ready",
    "next",
    "act",
    "hint",
    "auto",
    "leave",
    "ping",
    "chat",
    "dissolve",
)
_client = TypeAdapter(ClientMessage)


class ProtocolError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_client(data: Any) -> BaseModel:
    """Validate one decoded client message; ProtocolError with a one-line reason."""
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object with a 'type'")
    t = data.get("type")
    if t not in CLIENT_TYPES:
        shown = repr(t)[:40]
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {shown}; expected one of {', '.join(CLIENT_TYPES)}",
        )
    try:
        return _client.validate_python(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())[1:]) or "message"
        raise ProtocolError("bad_message", f"{t}: {where}: {err.get('msg', 'invalid')}") from None


# ---------------------------------------------------------------------- server → client


class Welcome(_Msg):
    type: Literal["welcome"]
    v: Literal[1]
    player_id: int
    name: str


class Seated(_Msg):
    type: Literal["seated"]
    table: int
    code: str
    seat: int | None
    seq: int


class SeatInfo(_Msg):
    seat: int
    name: str | None
    player_id: int | None
    bot: bool
    connected: bool
    auto: bool
    ready: bool


class Seats(_Msg):
    type: Literal["seats"]
    table: int
    seats: list[SeatInfo]
    seq: int


class Me(_Msg):
    player_id: int | None
    name: str
    seat: int | None


class OpeningFlowers(BaseModel):
    """One 补花 of the deal in ``State.opening``: the flowers are public; ``drawn`` (the
    tiles that replaced them) is sent to their own seat only (R12)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seat: int
    round: int
    flowers: str
    drawn: str | None = None


class OpeningGold(BaseModel):
    """The 开金 in ``State.opening``: the gold and the flowers flipped onto the dealer."""

    model_config = ConfigDict(extra="forbid", strict=True)

    gold: str
    to_dealer: str


class HistoryItem(BaseModel):
    """One public action of the hand in ``State.history`` (server/visibility.py
    ``history``): ``kind`` and the keys that kind has; nothing concealed (R12)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    seat: int
    kind: Literal["flower", "gold", "discard", "chow", "pong", "kong", "win", "draw", "claim_lost"]
    flowers: str | None = None
    round: int | None = None
    drawn: str | None = None  # the seat's own replacement tiles of the deal's 补花 only
    indicator: str | None = None
    gold: str | None = None
    to_dealer: str | None = None
    tile: str | None = None
    meld: str | None = None
    tiles: str | None = None
    from_: int | None = Field(None, alias="from")
    win: str | None = None
    mine: str | None = None
    by: int | None = None
    by_kind: str | None = None


class State(_Msg):
    """``opening`` (server/visibility.py ``opening``): while no tile has been discarded or
    melded, the hand's opening as this seat may see it; absent otherwise. ``opening_ms``:
    with it, at a table with humans, the opening's time left (0: over; docs/protocol.md,
    "The opening"). ``history``: in the first state after a ``join``, the hand's public
    actions so far. ``ready_discards``: on the seat's own turn, each discard that leaves
    its hand ready, with the waits it would have then (absent when none does)."""

    type: Literal["state"]
    table: int
    hand: int
    seq: int
    view: dict[str, Any]
    deadline_ms: int | None
    seats: list[SeatInfo]
    me: Me
    waits: list[str] | None
    number: int
    seed_sha256: str | None
    ready_discards: dict[str, list[str]] | None = None
    opening: list[OpeningFlowers | OpeningGold] | None = None
    opening_ms: int | None = None
    history: list[HistoryItem] | None = None


class HandStart(_Msg):
    type: Literal["hand_start"]
    table: int
    hand: int
    number: int
    dealer: int
    streak: int
    seed_sha256: str
    seq: int


class Discard(_Msg):
    type: Literal["discard"]
    table: int
    hand: int
    seat: int
    tile: str
    seq: int


class AddedKong(_Msg):
    type: Literal["added_kong"]
    table: int
    hand: int
    seat: int
    tile: str
    seq: int


class HandEnd(_Msg):
    type: Literal["hand_end"]
    table: int
    hand: int
    number: int
    result: dict[str, Any] | None
    score: dict[str, Any] | None
    hands: dict[str, str] | None
    seed: str
    seed_sha256: str
    log_url: str
    log_jsonl_url: str
    totals: list[int]
    hands_played: int
    hands_total: int
    match_over: bool
    seq: int
    # a room table: the next hand is dealt by itself this long after (docs/protocol.md)
    next_hand_ms: int | None = None
    # sent again to a connection that (re)joins between two hands (docs/protocol.md)
    again: bool = False


class HandVoid(_Msg):
    type: Literal["hand_void"]
    table: int
    hand: int
    leaver: int | None
    seq: int
    dissolved: bool = False  # 解散房间: void by vote (leaver null), nobody charged
    seed: str | None = None  # R12: revealed when the hand ends, void or not


class MatchEnd(_Msg):
    type: Literal["match_end"]
    table: int
    totals: list[int]
    hands_played: int
    leaver: int | None
    history: list[dict[str, Any]]
    seq: int
    dissolved: bool = False  # 解散房间: ended by the vote of every seated human
    # docs/economy.md, "Between hands": the seats short of silver that ended it
    short: list[int] | None = None
    # each seat's silver over the match (docs/economy.md; its balance to that seat only)
    silver: list[dict[str, Any] | None] | None = None


class TableClosed(_Msg):
    type: Literal["table_closed"]
    table: int
    reason: str
    seq: int


class Left(_Msg):
    type: Literal["left"]
    table: int
    seq: int


class HintReply(_Msg):
    type: Literal["hint"]
    action: dict[str, Any]
    reason: str
    reason_zh: str


class ChatOut(_Msg):
    """A seated player's preset phrase, to every viewer of the table (server/social.py)."""

    type: Literal["chat"]
    table: int
    seat: int
    phrase: str
    seq: int


class DissolveOut(_Msg):
    """The dissolve vote as it stands: each seated human's answer by seat (null: not yet),
    the time left (null once over) and the outcome (null while open)."""

    type: Literal["dissolve"]
    table: int
    votes: dict[str, bool | None]
    deadline_ms: int | None
    proposer: int
    outcome: Literal["dissolved", "refused", "expired"] | None
    seq: int


class Pong(_Msg):
    type: Literal["pong"]


class Error(_Msg):
    type: Literal["error"]
    code: str
    message: str


class Status(_Msg):
    """The table's link to the database: ``failing`` while nothing can be saved (the game
    waits, timers stop), ``ok`` when it continues; with several processes, ``bus``:
    ``failing`` while the link to the process that runs the table is down (the socket is
    moved, 1012, when it is back; docs/protocol.md)."""

    type: Literal["status"]
    table: int
    store: Literal["failing", "ok"]
    bus: Literal["failing", "ok"] | None = None
    message: str
    message_zh: str


ServerMessage = Annotated[
    Welcome
    | Seated
    | Seats
    | State
    | HandStart
    | Discard
    | AddedKong
    | HandEnd
    | HandVoid
    | MatchEnd
    | TableClosed
    | Left
    | HintReply
    | Pong
    | Error
    | Status
    | ChatOut
    | DissolveOut,
    Field(discriminator="type"),
]
server_message = TypeAdapter(ServerMessage)


def frame_type(text: str) -> str | None:
    """A client's frame's ``type`` (read again only where that matters: after a store fault,
    or a frame for a connection another process no longer has); None if it has none."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def is_join_frame(text: str) -> bool:
    """Whether a client's frame is a ``join``."""
    return '"join"' in text and frame_type(text) == "join"
