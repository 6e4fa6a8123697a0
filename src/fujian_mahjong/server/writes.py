"""A table's store writes (server/effects.py's ``Write``s), each committed when ``perform``
returns: the table actor (server/table.py) runs a decision's writes in order, before
anything about them is sent, and a write that fails raises (the table's recovery decides
the step again, server/recovery.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from fujian_mahjong.server import economy
from fujian_mahjong.server.effects import (
    AgreeDissolution,
    EndMatch,
    FinishMatchHand,
    Flush,
    MarkLeaver,
    RecordDissolution,
    SetSeat,
    StartHand,
    StartMatch,
    TableStatus,
    VoidHand,
    Write,
)
from fujian_mahjong.server.tablestate import TableError

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from fujian_mahjong.engine import Match
    from fujian_mahjong.server.store import Store
    from fujian_mahjong.server.tablestate import HandState

__all__ = ["perform", "store_events"]


async def store_events(
    store: Store,
    h: HandState,
    match: Match | None,
    match_id: int | None,
    upto: int | None = None,
) -> None:
    """The hand's events not stored yet (``upto``: those before it), committed; with the
    hand's last, its result and the match's record as it will be once the hand is recorded."""
    g = h.game
    end = len(g.events) if upto is None else min(upto, len(g.events))
    events = g.events[h.persisted : end]
    finish = None
    if g.is_over() and end == len(g.events):
        v = g.view(0)
        finish = {"result": v.get("result"), "score": v.get("score")}
        if match is not None and match_id is not None:
            # R9: the match's row as it will be once the hand is recorded (the finisher
            # records it in memory after this commit: nothing shows it before). Never "over"
            # here: the match's end is its own write (EndMatch, with the table's close), so a
            # restart inside the last hand's pause still finds the match
            played, totals = match.standing_after(g)
            finish["match"] = {"match_id": match_id, "hands_played": played, "totals": totals}
    await store.append_events(h.id, h.persisted, events, finish=finish)
    h.persisted = end
    h.match_stored = finish is not None and "match" in finish


async def perform(
    store: Store,
    table_id: int,
    w: Write,
    flush: Callable[[HandState], Awaitable[None]],
) -> None:
    """Carry out one write of table ``table_id`` (``flush``: the table's own, which knows
    what of the hand is not stored yet)."""
    match w:
        case Flush(h):
            await flush(h)
        case FinishMatchHand(match_id, played, totals, over):
            await store.finish_match_hand(match_id, played, list(totals), over=over)
        case VoidHand(hand_id, leaver, match_id, totals):
            await store.void_hand(hand_id, leaver, match_id, list(totals))
        case EndMatch(match_id, totals, leaver):
            await store.end_match(match_id, list(totals), leaver)
        case MarkLeaver(match_id, seat):
            await store.mark_leaver(match_id, seat)
        case AgreeDissolution(match_id, votes):
            await store.agree_dissolution(match_id, dict(votes))
        case TableStatus(status):
            await store.set_table_status(table_id, status)
        case SetSeat(seat, player_id, bot, bot_kind, free, one_table):
            check = _one_table(table_id, player_id) if one_table and player_id else None
            await store.set_seat(
                table_id, seat, player_id, bot=bot, bot_kind=bot_kind, free=free, check=check
            )
        case StartMatch(start, players):
            if start.match_id is None:
                m = start.match
                start.match_id = await store.create_match(table_id, m.dealer, players, m.seed)
            await store.set_table_status(table_id, "playing")
        case StartHand(start):
            # the last write of a start: once it commits, the start is taken (never re-run)
            assert start.match_id is not None
            start.hand_id = await store.create_hand(match_id=start.match_id, **start.hand_row)
        case RecordDissolution(match_id, hand_id, votes, totals, played):
            async with store.table_write(table_id) as db:
                await economy.record_dissolution(
                    db,
                    table_id=table_id,
                    match_id=match_id,
                    hand_id=hand_id,
                    votes=dict(votes),
                    totals=list(totals),
                    hands_played=played,
                )


def _one_table(table_id: int, player_id: int) -> Callable[[AsyncSession], Awaitable[None]]:
    """R11: the seat's own transaction refuses an account seated for silver at another
    table (``economy.one_table``), and one whose balance is not within the table's bounds
    now (``economy.can_sit``: the balance read before the write may be stale — a guest
    registered, or a penalty at the table just left, committed meanwhile); raising rolls
    the seat back."""

    async def check(db: AsyncSession) -> None:
        other = await economy.one_table(db, table_id, player_id)
        if other is not None:
            raise TableError(
                "already_seated", f"you are seated at table {other}, for silver; leave it first"
            )
        why = await economy.can_sit(db, table_id, player_id)
        if why is not None:
            raise TableError("insufficient_silver", why)

    return check
