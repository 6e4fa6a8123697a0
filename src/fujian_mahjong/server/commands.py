"""What a table actor runs (docs/architecture.md, "One actor per table"): one frozen dataclass
per command, queued by the socket layer, REST, the lobby, quick match, the cluster and the
table's own timers, and dispatched by one ``match`` in ``TableActor._dispatch``
(server/table.py). A command names what is to happen and carries only its arguments, so a
queue can be read, logged and tested as data; ``Step`` carries a collaborator's own step
(the social side's vote timers, a cluster call) where no command of its own is needed.

Each command is answered (``TableActor.ask``: its result, or the ``TableError`` it raised)
or fired and forgotten (``TableActor.submit``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fujian_mahjong.server.conn import Conn

__all__ = [
    "COMMANDS",
    "Act",
    "AddBot",
    "AutoAct",
    "Chat",
    "Close",
    "Disconnected",
    "Dissolve",
    "FinishMatch",
    "GraceOver",
    "HintBegin",
    "HintEnd",
    "Join",
    "Leave",
    "MaybeStart",
    "Pump",
    "Ready",
    "Recover",
    "RemoveBot",
    "Reserve",
    "SeatLeaves",
    "SetAuto",
    "Step",
    "TableCommand",
    "TryDissolve",
    "VoteLapsed",
]


# ------------------------------------------------------------------ from a client (WS, REST)


@dataclass(frozen=True, slots=True)
class Join:
    """WS ``join``: take a seat (``player``) or watch (``spectator``)."""

    conn: Conn
    as_: str


@dataclass(frozen=True, slots=True)
class Ready:
    """WS ``ready`` / ``next``: ready for the match or the next hand."""

    conn: Conn


@dataclass(frozen=True, slots=True)
class Act:
    """WS ``act``: a decision on the state ``seq`` showed (validated inside the actor)."""

    conn: Conn
    seq: int
    action: Any


@dataclass(frozen=True, slots=True)
class SetAuto:
    """WS ``auto``: 托管 on or off."""

    conn: Conn
    on: bool


@dataclass(frozen=True, slots=True)
class Leave:
    """WS ``leave``."""

    conn: Conn


@dataclass(frozen=True, slots=True)
class Chat:
    """WS ``chat``: a fixed phrase (server/social.py)."""

    conn: Conn
    phrase: str


@dataclass(frozen=True, slots=True)
class Dissolve:
    """WS ``dissolve``: ask for, or answer, the vote to dissolve the match."""

    conn: Conn
    accept: bool


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The client's socket closed: its grace period starts."""

    conn: Conn


@dataclass(frozen=True, slots=True)
class Reserve:
    """Quick match: hold a free seat for this player (server/rooms.py)."""

    player_id: int
    name: str


@dataclass(frozen=True, slots=True)
class AddBot:
    """REST: a bot of ``kind`` (None: the server's default) into a free seat."""

    player_id: int
    kind: str | None


@dataclass(frozen=True, slots=True)
class RemoveBot:
    """REST: the last bot out of its seat."""

    player_id: int


# ------------------------------------------------------------------ from the server itself


@dataclass(frozen=True, slots=True)
class MaybeStart:
    """Deal when every seat is taken and ready (the lobby, quick match)."""


@dataclass(frozen=True, slots=True)
class Pump:
    """Persist, show and schedule again (the end of a claim pause, a restored hand);
    ``fresh``: a connection that has just joined, shown everything it may see now."""

    fresh: Conn | None = None


@dataclass(frozen=True, slots=True)
class AutoAct:
    """A bot's, a 托管 seat's or a missed deadline's decision at decision point ``key``."""

    seat: int
    key: int


@dataclass(frozen=True, slots=True)
class GraceOver:
    """A disconnected seat's grace period is over: it leaves."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatLeaves:
    """A seat's player left (WS ``leave``, or its grace period ran out): its seat is freed
    at an open table; mid-match it is a leaver (R9, R11, D-24). ``told``: the connection
    that asked to leave, answered ``left`` once the leave is stored (commit before send)."""

    seat: int
    told: Conn | None = None


@dataclass(frozen=True, slots=True)
class Recover:
    """Retry the step that failed on a store fault (with back-off)."""


@dataclass(frozen=True, slots=True)
class Close:
    """Close the table (nobody sat down; it could not be restored)."""

    reason: str


@dataclass(frozen=True, slots=True)
class FinishMatch:
    """The match is over (a restored table whose last hand was played, or whose stored
    leaver's hand has ended: ``leaver``)."""

    leaver: int | None = None


@dataclass(frozen=True, slots=True)
class VoteLapsed:
    """The dissolve vote numbered ``token`` ran out of time (server/social.py)."""

    token: int


@dataclass(frozen=True, slots=True)
class TryDissolve:
    """Look again whether an agreed dissolution can happen now (after a pause or a window)."""


@dataclass(frozen=True, slots=True)
class HintBegin:
    """A hint asked for (WS ``hint``): the seat's decision copied out for the search."""

    conn: Conn


@dataclass(frozen=True, slots=True)
class HintEnd:
    """A hint's search is done: sent to the seat if it is still at that decision."""

    conn: Conn
    seat: int
    legal: Any
    advice: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Step:
    """A collaborator's own step, run inside the actor (quick match's bots filling a room
    table, a cluster call for a socket on another process)."""

    fn: Callable[[], Awaitable[Any]]


# every command class (``TableActor.post`` tells a command from a bare step by it)
COMMANDS = (
    Join,
    Ready,
    Act,
    SetAuto,
    Leave,
    Chat,
    Dissolve,
    Disconnected,
    Reserve,
    AddBot,
    RemoveBot,
    MaybeStart,
    Pump,
    AutoAct,
    GraceOver,
    SeatLeaves,
    Recover,
    Close,
    FinishMatch,
    VoteLapsed,
    TryDissolve,
    HintBegin,
    HintEnd,
    Step,
)

TableCommand = (
    Join
    | Ready
    | Act
    | SetAuto
    | Leave
    | Chat
    | Dissolve
    | Disconnected
    | Reserve
    | AddBot
    | RemoveBot
    | MaybeStart
    | Pump
    | AutoAct
    | GraceOver
    | SeatLeaves
    | Recover
    | Close
    | FinishMatch
    | VoteLapsed
    | TryDissolve
    | HintBegin
    | HintEnd
    | Step
)
