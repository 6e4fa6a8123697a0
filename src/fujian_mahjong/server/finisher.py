"""How a table's hands and match end (R9, R11): the hand over (recorded, settled, its
``hand_end``), a leaver (the hand void, the escape penalty, ``hand_void`` — or, when the
hand's end was decided before the leave, that end: D-24), the match over (``match_end``)
and the table closed.

The finisher decides and the actor carries out: each step reads the table and the store and
returns ``Effects`` (server/effects.py) — the end-of-hand writes, the state, the messages,
the close — which ``TableActor.effect`` applies in one place, writes first. Of the table's
parts, only this one decides the store's end-of-hand writes and reads the economy. Each step
may be decided again after a store fault (nothing of a failed step was applied): a hand is
recorded once, voided once, and a match left once."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server import economy
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.effects import (
    Effects,
    EndMatch,
    FinishMatchHand,
    Flush,
    MarkLeaver,
    Settled,
    TableStatus,
    VoidHand,
)
from fujian_mahjong.server.store import STORE_FAULTS

if TYPE_CHECKING:
    from fujian_mahjong.engine import Action, Game, Match
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import Store
    from fujian_mahjong.server.tablestate import HandState, Seat, TableConfig


def end_message(
    table_id: int, hand_id: int, number: int, g: Game, match: Match, hands_total: int
) -> dict[str, Any]:
    """A finished hand's ``hand_end`` (before the settlement's fields: ``Settled``), the
    match having recorded it: as it went out, and as a player who comes back between two
    hands (a reload, a restart) is shown it again (docs/protocol.md)."""
    v = g.view(0)
    return {
        "type": "hand_end",
        "table": table_id,
        "hand": hand_id,
        "number": number,
        "result": v.get("result"),
        "score": v.get("score"),
        "hands": v.get("hands"),
        "seed": g.seed,
        "seed_sha256": g.events[0].get("seed_sha256"),
        "log_url": f"/api/hands/{hand_id}/log?format=json",
        "log_jsonl_url": f"/api/hands/{hand_id}/log",
        "totals": list(match.totals),
        "hands_played": match.hands_played,
        "hands_total": hands_total,
        "match_over": match.hands_played >= hands_total,
    }


class FinisherTable(Protocol):
    """What the finisher reads of its table (server/table.py's ``TableActor``, which sits
    above it: docs/architecture.md, "Layers"); it changes nothing of it but a recorded or
    left match (once each) and, for D-24, the leaver's pass (``apply_for``)."""

    @property
    def hand(self) -> HandState | None: ...
    @property
    def status(self) -> str: ...
    @property
    def pending_leave(self) -> int | None: ...
    @property
    def id(self) -> int: ...
    @property
    def cfg(self) -> TableConfig: ...
    @property
    def store(self) -> Store: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def match_id(self) -> int | None: ...
    @property
    def has_humans(self) -> bool: ...
    @property
    def seats(self) -> list[Seat]: ...
    @property
    def auto_ready(self) -> bool: ...
    @property
    def settings(self) -> Settings: ...

    async def apply_for(self, seat: int, a: Action) -> None: ...


class Finisher:
    def __init__(self, table: FinisherTable) -> None:
        self.t = table

    async def can_sit(self, player_id: int) -> str | None:
        """R11: why this account may not sit down at this table (None: it may)."""
        async with self.t.store.sessions() as db:
            return await economy.can_sit(db, self.t.id, player_id)

    async def has_account(self, player_id: int) -> bool:
        """Whether this player has an account (R11: it plays for silver)."""
        async with self.t.store.sessions() as db:
            return await economy.has_account(db, player_id)

    async def short_of_silver(self) -> list[int]:
        """The seats whose account is now below the table's minimum balance (docs/economy.md,
        "Between hands"; none at a table of bots or guests, where nothing is read: a guest
        holds no silver, and a seated guest may not register, so ``account`` is current)."""
        ids = [
            s.player_id for s in self.t.seats if s.human and s.account and s.player_id is not None
        ]
        if not ids:
            return []
        async with self.t.store.sessions() as db:
            short = await economy.short_of_silver(db, self.t.id, ids)
        return [i for i, s in enumerate(self.t.seats) if s.human and s.player_id in short]

    async def end_fields(self, hand_id: int, kind: str) -> dict[str, Any]:
        """``economy.hand_end_fields`` of a hand whose settlement has just committed
        (``Settled``): from the settlement this process wrote (no database read on the
        table's path), or read back when it has none (a retry that found the hand settled,
        a restart). ``kind`` "match": ``hand_id`` is a match's id, and the fields are what
        its hands moved (``economy.match_silver``; none if the store cannot say now: the
        match's end is not held back for them)."""
        if kind == "match":
            try:
                async with self.t.store.sessions() as db:
                    silver = await economy.match_silver(db, hand_id, self.t.cfg.players)
            except STORE_FAULTS:
                return {}
            # (nothing moved at all: a practice match, or no stake)
            moved = any(x is not None and (x["change"] or x["fees"]) for x in silver)
            return {"silver": silver} if moved else {}
        st = self.t.store.settlement
        known = st.take(hand_id) if isinstance(st, economy.EconomySettlement) else None
        if known is not None and known[0] == kind:
            faults = self.t.store.faults
            point = getattr(faults, "point", None)
            if point is not None:  # the crash tests' point, as hand_end_fields has it
                point("settle_after_commit")
            return economy.end_fields(*known)
        async with self.t.store.sessions() as db:
            return await economy.hand_end_fields(db, hand_id)

    def hand_over(self, h: HandState) -> Effects:
        """The hand is over (its events and settlement are stored): the match records it,
        ``hand_end`` goes out, then the match ends (all hands played, or a leave that waited
        for this hand's end, D-24) or the table is between two hands."""
        t = self.t
        assert t.match is not None
        g = h.game
        if t.match.current is g:  # once, also when a store fault makes this run again
            t.match.record(g)
        match_over = t.match.hands_played >= t.cfg.hands
        end = end_message(t.id, h.id, h.number, g, t.match, t.cfg.hands)
        fx = Effects(
            # the match's record, unless it was committed with the hand's end (table.flush)
            writes=[]
            if h.match_stored
            else [
                FinishMatchHand(
                    t.match_id or 0, t.match.hands_played, tuple(t.match.totals), match_over
                )
            ],
            end_sent=h,
            hand_done=True,
            # R11 (docs/economy.md): each seat's silver change and new balance, level-ups
            # (settled already, in the transaction that stored the hand's last events)
            messages=[Settled(end, h.id, "hand")],
        )
        if match_over:
            fx += self.finish_match(None)
        elif t.pending_leave is not None:
            # D-24: the hand decided before a player left has ended; now the match ends
            fx += self.finish_match(t.pending_leave)
        else:
            fx.between = True
            if t.auto_ready:
                # a room table deals the next hand by itself after its wait (table.py
                # ``next_hand_due``): the page counts it down (docs/protocol.md)
                end["next_hand_ms"] = round(1000 * float(t.settings.next_hand_s))
            # a table of bots plays its match through; at a table with players it is where
            # a seat short of silver ends the match (docs/economy.md, "Between hands")
            fx.then.append(C.MaybeStart())
        return fx

    async def end_match(self, leaver: int | None) -> Effects:
        """R9/R11: a leaver voids the hand in progress and ends the match — unless the
        hand's end was decided before the leave (D-24): then it ends as decided, and the
        match after it (``hand_over``)."""
        t = self.t
        h = t.hand
        if h is not None and not h.end_sent and leaver is not None:
            # the leave is stored either way below: a restart keeps the seat out and ends
            # the match after the hand (effects.MarkLeaver)
            if await self._stands(leaver):
                return Effects(writes=[MarkLeaver(t.match_id, leaver)])
            if not h.game.is_over() and await self._plays_on(leaver):
                # a guest's leave voids nothing where silver moves between the others: a
                # bot plays its seat to the hand's end, then the match ends (hand_over)
                s = t.seats[leaver]
                seat = replace(s, auto=True) if not s.auto else s
                return Effects(
                    writes=[MarkLeaver(t.match_id, leaver)],
                    seats=[(leaver, seat)],
                    replan=[leaver],
                    then=[C.Pump()],
                )
        first = t.pending_leave if t.pending_leave is not None else leaver
        if (
            first is not None
            and leaver is not None
            and first != leaver
            and h is not None
            and await self._plays_on(first)
        ):
            # a guest's seat that played on voided nothing: the one leaving now voids the
            # hand, and pays for it (else a guest's leave first made its account's free)
            first = leaver
        fx = Effects(hand_done=True)
        end = self.finish_match(first)
        if h is not None and not h.game.is_over():
            fx.writes.append(Flush(h))
            if not h.voided:
                # R11: the escape penalty, once; R9: the match's end in the same transaction
                # (a restart between two writes found the match still being played)
                em = next(w for w in end.writes if isinstance(w, EndMatch))
                fx.writes.append(VoidHand(h.id, first, em.match_id, em.totals))
                fx.voided = h
            # R12: the seed is revealed when the hand ends, a void one too (the match ends
            # with it: nothing dealt later depends on it), so the leaver charged for it can
            # check that the shuffle was not changed (its log: GET /api/hands/{id}/log)
            msg = {"type": "hand_void", "table": t.id, "hand": h.id, "leaver": first}
            msg["seed"] = h.game.seed
            fx.messages.append(Settled(msg, h.id, "void"))
        fx += end
        return fx

    async def _plays_on(self, leaver: int) -> bool:
        """``economy.hand_plays_on`` for the seat's player (docs/economy.md)."""
        pid = self.t.seats[leaver].player_id
        if pid is None:
            return False
        async with self.t.store.sessions() as db:
            return await economy.hand_plays_on(db, self.t.id, pid)

    async def _stands(self, leaver: int) -> bool:
        """D-24 (docs/decisions.md): the hand's end was decided before ``leaver`` left — it
        is over already (its ``hand_end`` only held by the claim pause), or a win has been
        declared in the open claim window (R6: one answer each; a declared win is
        binding). Then the leaver's pending answer becomes a pass, the window resolves as
        it would have (R6 priority among the winners), the hand ends and is settled
        normally after the pause, and ``hand_over`` ends the match for the leave; the
        leaver pays no escape penalty (no hand was voided). True: the match ends later."""
        t = self.t
        h = t.hand
        assert h is not None
        g = h.game
        if not g.is_over():
            if not (vis.in_window(g.phase) and vis.win_declared(g.events[h.window_key :])):
                return False
            if leaver in g.to_act():
                answer = next((a for a in g.legal_actions(leaver) if a.type == "pass"), None)
                if answer is None:  # every asked seat may pass (R6); never reached
                    return False
                await t.apply_for(leaver, answer)
        # the rest happens as it would have without the leave: the other asked seats answer,
        # the pause ends, the pump sends hand_end (hand_over), then the match ends
        return True

    def finish_match(self, leaver: int | None, short: list[int] | None = None) -> Effects:
        """The match is over (its hands played, or ``leaver`` left, or the ``short`` seats'
        silver fell below the table's minimum between two hands): ``match_end``, then the
        table closes."""
        t = self.t
        m = t.match
        totals = list(m.totals) if m else [0] * t.cfg.players
        if m is not None and leaver is not None and not m.over:
            m.leave(leaver)
        extra = {"short": short} if short else {}  # docs/economy.md, "Between hands"
        end = self.match_end_message(totals, leaver, **extra)
        fx = Effects(
            writes=[EndMatch(t.match_id, tuple(totals), leaver)],
            leave_done=True,
            messages=[end],
        )
        fx += self.close("short of silver" if short else "match over")
        return fx

    def match_end_message(
        self, totals: list[int], leaver: int | None, **extra: Any
    ) -> dict[str, Any] | Settled:
        """The match's ``match_end`` (its end by its hands, a leave, seats short of silver or
        a dissolution: ``extra``), completed once its writes have committed with each seat's
        silver over the match (``end_fields`` "match", docs/economy.md)."""
        t = self.t
        m = t.match
        end: dict[str, Any] = {
            "type": "match_end",
            "table": t.id,
            "totals": totals,
            "hands_played": m.hands_played if m else 0,
            "leaver": leaver,
            **extra,
            # points only: the library Match's silver/fees come from its in-memory default
            # balances, not the ledger (the real figures: each hand_end, and ``silver``)
            "history": [
                {k: v for k, v in e.items() if k not in ("silver", "fees")}
                for e in (m.history if m else [])
            ],
        }
        return Settled(end, t.match_id, "match") if t.match_id is not None else end

    def close(self, why: str) -> Effects:
        """The table closes (``table_closed``, every connection let go); nothing when it
        is closed already."""
        if self.t.status == "closed":
            return Effects()
        return Effects(writes=[TableStatus("closed")], close=why)
