"""Who sits where: the seat changes of a table before and outside play, decided here and
returned as ``Effects`` (server/effects.py) for the table actor to carry out — the seat row
stored first (``SetSeat``), then the table's seat list changed, its timers set, and the
commands that follow (deal when everyone is there, show the change).

- a bot added or removed by the table's creator before the match (REST);
- a player seated by quick match before it connects (server/rooms.py): its seat is held
  for the grace period (R11) like a seat whose connection was lost;
- a player taking a free seat by joining (R11: not below the table's minimum balance);
- a seat freed at an open table (its player left, or never came): the table closes when no
  human is left;
- a seat's 准备 (then the deal, once every seat is ready) and its 托管 turned on or off by
  its player (the seat's pending decision planned again; acting ends 托管, and a missed
  turn starts it, on the decision path of server/table.py).

A leaver during a match is the finisher's (server/finisher.py: R9, R11, D-24). Nothing here
writes, sends or changes the table: what it decides is applied in one place,
``TableActor.effect``, where a failed write leaves the seat list as it was."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.effects import Effects, SetSeat
from fujian_mahjong.server.tablestate import Seat, TableError

if TYPE_CHECKING:
    from fujian_mahjong.server.tablestate import TableConfig

__all__ = ["Seating", "SeatingTable"]


class SeatingTable(Protocol):
    """What seating reads of its table (server/table.py's ``TableActor``)."""

    @property
    def status(self) -> str: ...
    @property
    def cfg(self) -> TableConfig: ...
    @property
    def seats(self) -> list[Seat]: ...

    def seat_of(self, player_id: int) -> int | None: ...
    async def can_sit(self, player_id: int) -> str | None: ...
    async def has_account(self, player_id: int) -> bool: ...


class Seating:
    def __init__(self, table: SeatingTable, grace_s: float) -> None:
        self.t = table
        self.grace_s = grace_s  # R11: how long a seat waits for its player's connection

    def _free_seat(self) -> int | None:
        return next((i for i, s in enumerate(self.t.seats) if not s.taken), None)

    def _creator_before_match(self, player_id: int) -> None:
        if player_id != self.t.cfg.creator_id:
            raise TableError("forbidden", "only the table's creator may add or remove bots")
        if self.t.status != "open":
            raise TableError("not_now", "bots can be changed only before the match starts")

    def add_bot(self, player_id: int, kind: str | None) -> Effects:
        """The creator's 加机器人: the last free seat gets a bot (of ``kind``; None: of the
        kind the table's bots all are, else the server's default), then the table deals if
        it is full and ready."""
        self._creator_before_match(player_id)
        seats = self.t.seats
        seat = next((i for i in reversed(range(len(seats))) if not seats[i].taken), None)
        if seat is None:
            raise TableError("table_full", "no free seat for a bot")
        if kind is None:
            # no kind asked for (the table page's button): the kind of the table's bots, when
            # they are all of one, so a table made with 高手 stays a table of 高手
            kinds = {s.bot_kind for s in seats if s.bot}
            kind = kinds.pop() if len(kinds) == 1 else None
        return Effects(
            writes=[SetSeat(seat, None, bot=True, bot_kind=kind)],
            seats=[(seat, Seat(bot=True, bot_kind=kind, name=f"Bot {seat + 1}", ready=True))],
            then=[C.MaybeStart(), C.Pump()],
        )

    def remove_bot(self, player_id: int) -> Effects:
        """The creator's 移除机器人: the last bot's seat is freed."""
        self._creator_before_match(player_id)
        seats = self.t.seats
        seat = next((i for i in reversed(range(len(seats))) if seats[i].bot), None)
        if seat is None:
            raise TableError("no_bot", "there is no bot at this table")
        return Effects(
            writes=[SetSeat(seat, None, free=True)], seats=[(seat, Seat())], then=[C.Pump()]
        )

    async def reserve(self, player_id: int, name: str, now: float) -> tuple[str | None, Effects]:
        """Quick match: seat ``player_id`` as if it had joined and lost its connection (a
        /ws join takes the seat; a player who never comes is freed after the grace period,
        like any leaver). (None, its effects): seated (or seated already); ("busy", nothing):
        not open or full; (why, nothing): the account may not sit here (R11)."""
        if self.t.status != "open":
            return "busy", Effects()
        if self.t.seat_of(player_id) is not None:
            return None, Effects()
        seat = self._free_seat()
        if seat is None:
            return "busy", Effects()
        why = await self.t.can_sit(player_id)
        if why is not None:
            return why, Effects()
        account = await self.t.has_account(player_id)
        return None, Effects(
            # R11: one table for silver at a time, checked in the seat's own transaction
            writes=[SetSeat(seat, player_id, one_table=True)],
            seats=[
                (
                    seat,
                    Seat(player_id=player_id, name=name, disconnected_at=now, account=account),
                )
            ],
            timers=[(("grace", seat), self.grace_s, C.GraceOver(seat))],
            then=[C.Pump()],
        )

    async def sit(self, player_id: int, name: str) -> tuple[int, Effects]:
        """A joining player with no seat here takes the first free one (raises TableError:
        the match has begun, the table is full, or R11's minimum balance)."""
        if self.t.status != "open":
            raise TableError("table_busy", f"table {self.t.cfg.id} is playing; join as a spectator")
        seat = self._free_seat()
        if seat is None:
            raise TableError("table_full", f"table {self.t.cfg.id} has no free seat")
        # R11: an account below the table's minimum balance may not sit down
        why = await self.t.can_sit(player_id)
        if why is not None:
            raise TableError("insufficient_silver", why)
        # R11: one table for silver at a time (as quick match refuses, server/rooms.py),
        # checked in the seat's own transaction (server/writes.py): ``already_seated``
        account = await self.t.has_account(player_id)
        return seat, Effects(
            writes=[SetSeat(seat, player_id, one_table=True)],
            seats=[(seat, Seat(player_id=player_id, name=name, account=account))],
        )

    def ready(self, seat: int) -> Effects:
        """准备: the seat is ready, then the table deals if every seat is (server/dealing.py)."""
        if self.t.status not in ("open", "between"):
            raise TableError("not_now", "a hand is in progress")
        return Effects(
            seats=[(seat, replace(self.t.seats[seat], ready=True))],
            then=[C.MaybeStart(), C.Pump()],
        )

    def set_auto(self, seat: int, on: bool) -> Effects:
        """托管 on or off: the seat's pending decision is planned again — at once (托管) or
        at a fresh deadline."""
        s = self.t.seats[seat]
        if s.auto == on:
            return Effects(then=[C.Pump()])
        return Effects(seats=[(seat, replace(s, auto=on))], replan=[seat], then=[C.Pump()])

    def acted(self, seat: int) -> Effects:
        """The seat's player acted: 托管 ends (docs/protocol.md)."""
        s = self.t.seats[seat]
        return Effects(seats=[(seat, replace(s, auto=False))]) if s.auto else Effects()

    def missed(self, seat: int, window: bool) -> Effects:
        """A human seat's decision is made for it at its deadline: a missed own turn starts
        托管 until the player acts again (docs/protocol.md). A missed claim prompt
        (``window``) is only a pass and sets nothing: it looks exactly like a human's pass
        to everyone (R12 rev 2)."""
        s = self.t.seats[seat]
        if s.human and not s.auto and not window:
            return Effects(seats=[(seat, replace(s, auto=True))])
        return Effects()

    def free(self, seat: int) -> Effects:
        """An open table's seat is freed (its player left, or never came back): stored,
        shown; the table closes when no human is left at it."""
        fx = Effects(
            writes=[SetSeat(seat, None, free=True)],
            seats=[(seat, Seat())],
            cancel=[("grace", seat)],
        )
        if not any(s.human for i, s in enumerate(self.t.seats) if i != seat):
            fx.then.append(C.Close("everyone left"))
        else:
            fx.then.append(C.Pump())
        return fx
