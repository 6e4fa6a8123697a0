"""A table after a restart (docs/architecture.md, "Crash restore"): what its stored rows say
it was — the seats, the match with its finished hands replayed, the hand in progress
rebuilt from its events — decided here and returned as ``Restored`` for the table actor to
take on (``TableActor.restore``). Nothing here changes the table.

Every stored decision is applied again on the hand the match deals from its seed (R12), and
every stored event must come out the same (``rebuild``): a log that does not replay is
refused, never half-restored. A human is seated as disconnected, with the grace period to
come back (R11), from the moment of the restore."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from fujian_mahjong.engine import Game, Match, apply_decisions
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.server import commands as C
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.finisher import end_message
from fujian_mahjong.server.tablestate import HandState, Seat

if TYPE_CHECKING:
    from fujian_mahjong.server.deals import DealSource
    from fujian_mahjong.server.scheduler import TimerSpec
    from fujian_mahjong.server.tablestate import TableConfig

__all__ = ["Restored", "rebuild", "restored"]


@dataclass(slots=True)
class Restored:
    """The table as its rows left it: ``status`` open (no match), between (no hand in
    progress) or playing; the timers to set (each human's grace period) and the commands
    to queue (the pump of the hand in progress, or the end of a match whose hands are all
    played)."""

    seats: list[tuple[int, Seat]]
    status: str
    match_id: int | None = None
    match: Match | None = None
    hand: HandState | None = None
    # between two hands: the last finished hand's ``hand_end`` (finisher.end_message) and
    # the hand, shown again to whoever comes back (it may not have reached anyone)
    last_end: tuple[dict[str, Any], HandState] | None = None
    # a seat that left while the match goes on to its hand's end (effects.MarkLeaver)
    pending_leave: int | None = None
    # an agreed 解散房间 not carried out yet (effects.AgreeDissolution): the votes by seat
    agreed: dict[int, bool | None] | None = None
    timers: list[TimerSpec] = field(default_factory=list)
    then: list[C.TableCommand] = field(default_factory=list)


def restored(
    rows: Mapping[str, Any], cfg: TableConfig, deals: DealSource, now: float, grace_s: float
) -> Restored:
    """The table ``rows`` (the store's ``load_tables`` entry) describe."""
    kinds = rows.get("bot_kinds", {})
    accounts = rows.get("accounts", set())
    seats = [
        (
            seat,
            Seat(
                player_id=pid,
                name=name,
                bot=bot,
                account=pid is not None and pid in accounts,
                bot_kind=kinds.get(seat) if bot else None,
                ready=bot,
                disconnected_at=None if bot or pid is None else now,
            ),
        )
        # in seat order (the rows come in the database's order): the grace periods end
        # together, and the first to run decides which seat is the leaver (R11)
        for seat, (pid, name, bot) in sorted(rows["seats"].items())
    ]
    out = Restored(seats=seats, status="open")
    out.timers = [(("grace", i), grace_s, C.GraceOver(i)) for i, s in seats if s.human]
    match = rows.get("match")
    if match is None:
        if rows.get("ended"):
            # its match ended (EndMatch committed) but the table's close did not: it closes
            out.then.append(C.Close("match over"))
            out.timers = []
        return out
    out.match_id = match["id"]
    m = deals.restore_match(cfg.profile, cfg.players, match["seed"], match["first_dealer"])
    last: Game | None = None
    for events in match["finished"]:
        last = rebuild(deals.next_hand(m), events)
        m.record(last)
    ids = match.get("finished_ids")
    if last is not None and ids:
        hid, number = ids[-1]  # the last finished hand: its end is shown again
        done = HandState(hid, number, last, persisted=len(last.events), end_sent=True)
        out.last_end = (end_message(cfg.id, hid, number, last, m, cfg.hands), done)
    out.match = m
    votes = match.get("dissolve_votes")
    if votes:
        out.agreed = {int(k): v for k, v in votes.items()}
    left = match.get("leaver")
    if left is not None:
        # it left and may not come back: a bot plays its seat (托管) to the hand's end,
        # then the match ends with it as the leaver (finisher.hand_over)
        out.pending_leave = int(left)
        seats = [(i, replace(s, auto=True) if i == left else s) for i, s in seats]
        out.seats = seats
        out.timers = [t for t in out.timers if t[0] != ("grace", left)]
    hand = rows.get("hand")
    if hand is None:
        out.status = "between"
        if m.hands_played >= cfg.hands:
            # its last hand was played: the match ends as it would have, an agreed
            # dissolution or a leave meanwhile notwithstanding (docs/protocol.md)
            out.then.append(C.FinishMatch())
        elif out.agreed is not None:
            out.then.append(C.TryDissolve())
        elif out.pending_leave is not None:
            # the leaver's hand has ended (stored) and the match's end was not: it ends now,
            # as finisher.hand_over ends it (else the table waited for the leaver for ever)
            out.then.append(C.FinishMatch(out.pending_leave))
        return out
    if out.agreed is not None:
        out.then.append(C.TryDissolve())
    fresh = deals.next_hand(m)
    out.last_end = None  # a hand is being played: its own state is what is shown
    if hand["events"]:
        # the stored log may stop inside a claim pause, after its notice (the discard):
        # what the discard caused (the next draw, when nobody could claim it) is stored at
        # the pause's end, and nobody was shown it; it comes again from the replay, and is
        # stored at the next pump (docs/architecture.md, "Persistence and crash recovery")
        game = rebuild(fresh, hand["events"], hand["id"], cut=True)
        persisted = len(hand["events"])
    else:
        # the hand's row is stored and none of its events: dealt, and nothing of it stored
        # — so nothing of it shown (commit before send): a bot-only table commits its
        # events in batches, and a store fault can fall between the row and the first
        # append. The hand goes on from its deal, its events stored at the next pump
        # (before, the empty log did not replay and the table was closed)
        if hand.get("seed") not in (None, fresh.seed):
            # the deal this match makes is not the stored hand's (R12: its seed)
            raise MahjongError(f"hand {hand['id']}: the stored seed is not the match's deal")
        game, persisted = fresh, 0
    left = out.pending_leave
    if left is not None and vis.in_window(game.phase) and left in game.to_act():
        # D-24: its pending answer is a pass, as finisher._stands made it live (that pass
        # and the answers of the pause were not stored): its seat's bot may not answer
        pass_ = next((a for a in game.legal_actions(left) if a.type == "pass"), None)
        if pass_ is not None:
            game.apply(left, pass_)
    h = HandState(id=hand["id"], number=hand["number"], game=game, persisted=persisted)
    if vis.in_window(game.phase):
        h.window_asked = frozenset(game.to_act())
        h.window_key = vis.window_start(game.events)
    out.hand = h
    out.status = "playing"
    out.then.append(C.Pump())
    return out


def rebuild(
    g: Game, events: Sequence[Mapping[str, Any]], hand_id: int = 0, cut: bool = False
) -> Game:
    """A hand from its stored events, on the fresh game the match deals for it: the
    decisions are applied again and every stored event must be reproduced (R12). The
    ReplayError (a MahjongError) names the first bad one: ``hand {id}: stored event {i}``.
    ``cut``: the hand being played, whose log may stop inside its last decision's events
    (``apply_decisions``)."""
    return apply_decisions(g, events, where=lambda i: f"hand {hand_id}: stored event {i}", cut=cut)
