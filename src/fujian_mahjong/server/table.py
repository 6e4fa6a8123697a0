"""One actor per table: an asyncio task draining a command queue, so that no two actions of
one table ever run concurrently (the lichess model; the queue itself is ``actor.py``). This
file is the table's shell: the one ``match`` over the typed commands (server/commands.py)
that the socket layer, REST and the table's own timers post, the decision path and the pump.
Everything else is a part with a file of its own (docs/architecture.md, "Files and who owns
what"); the parts return ``Effects`` (server/effects.py), which ``TableActor.effect`` alone
carries out: the writes, then the state and the timers, the messages and the close, then the
commands that follow.

Time comes only from the Clock and deals only from the DealSource (server/deals.py).
Persistence (docs/architecture.md): every event is committed before any message about it is
sent; a failed commit is retried with back-off and nothing is shown meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from fujian_mahjong.engine import Action, Match
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.server import commands as C
from fujian_mahjong.server import economy
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.actor import Actor
from fujian_mahjong.server.attendance import Attendance
from fujian_mahjong.server.clock import Clock
from fujian_mahjong.server.commands import TableCommand
from fujian_mahjong.server.conn import Conn, send_all
from fujian_mahjong.server.dealing import Dealing, hand_state
from fujian_mahjong.server.deals import DealSource
from fujian_mahjong.server.effects import Effects, SetSeat, Settled, Write
from fujian_mahjong.server.finisher import Finisher
from fujian_mahjong.server.hints import Hints
from fujian_mahjong.server.metrics import observe_decision
from fujian_mahjong.server.pause import Pause
from fujian_mahjong.server.presenter import Presenter
from fujian_mahjong.server.recovery import Recovery
from fujian_mahjong.server.restore import restored
from fujian_mahjong.server.roster import Roster
from fujian_mahjong.server.scheduler import Scheduler, bot_pacer, warm_bots
from fujian_mahjong.server.seating import Seating
from fujian_mahjong.server.social import Social
from fujian_mahjong.server.tablestate import HandStart, HandState, Seat, TableConfig, TableError
from fujian_mahjong.server.writes import perform, store_events

if TYPE_CHECKING:
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import Store

log = logging.getLogger("fjmj.table")

__all__ = ["HandState", "Seat", "TableActor", "TableConfig", "TableError"]


class TableActor(Actor[TableCommand]):
    """The table's single serialised executor (docs/architecture.md)."""

    def __init__(
        self,
        cfg: TableConfig,
        settings: Settings,
        store: Store,
        clock: Clock,
        deals: DealSource,
        on_close: Callable[[TableActor], None] | None = None,
    ) -> None:
        super().__init__()
        self.cfg = cfg
        self.settings = settings
        self.store = store
        self.clock = clock
        self.deals = deals
        self.on_close = on_close
        self.seats = [Seat() for _ in range(cfg.players)]
        self.roster = Roster(self)  # who is connected: the seats' sockets, those watching
        self.status = "open"  # open | playing | between | closed
        self.match: Match | None = None
        self.match_id: int | None = None
        self.hand: HandState | None = None
        self.last_hand_id: int | None = None
        self.sched = Scheduler(clock, self.post)
        self.finisher = Finisher(self)
        self.social = Social(self)  # chat and the dissolve vote (server/social.py)
        self.seating = Seating(self, settings.grace_s)  # who sits where (server/seating.py)
        self.dealing = Dealing(self)  # a hand's start (server/dealing.py)
        self.attendance = Attendance(self, settings.grace_s)  # who is here (attendance.py)
        self.presenter = Presenter(self)  # what each connection is shown (server/presenter.py)
        self.seats_dirty = False
        self.actions = 0  # decisions applied (for the benchmark)
        # the store failed: nothing new is shown, timers are stopped, the failed step is
        # retried with back-off until it succeeds (server/recovery.py)
        self.recovery = Recovery(self)
        self.pending_leave: int | None = None
        # the last finished hand's hand_end and hand: shown again between two hands
        self.last_end: tuple[dict[str, Any], HandState] | None = None
        self.pause = Pause(cfg, settings)  # the claim pause (server/pause.py)
        self.hints = Hints(self)  # a seat's hint (server/hints.py)
        # docs/economy.md: this table's bots play for the house account (set by the lobby)
        self.house_bots = False
        # a room table (quick match, docs/economy.md): a seated human needs no 准备; the
        # match starts once every seat is taken and every human is connected
        self.auto_ready = False
        # the server is stopping (SIGTERM, app._finish_hands): no new hand is dealt here
        self.stopping = False
        # between two hands at a room table: when every connected human counts as ready
        # (docs/protocol.md, ``ready``: a player who stays idle does not hold the table)
        self.next_hand_at: float | None = None
        # between two hands: the seats' balances not yet asked against the table's minimum
        # since the hand's end (asked then, and again when the next hand may start)
        self.short_unasked = True

    # ------------------------------------------------------------------ the actor loop
    # (server/actor.py: the mailbox, submit/ask, a refusal to its caller, a stop)

    refusals = (TableError, MahjongError)

    @property
    def task_name(self) -> str:
        return f"table-{self.id}"

    @property
    def id(self) -> int:
        return self.cfg.id

    def closed_error(self) -> Exception:
        return TableError("table_closed", f"table {self.id} is closed")

    def failed(self, e: Exception) -> None:
        # no exception may leave the table without a next step: the failed step is retried
        # (a store fault), and until then nothing about it is shown
        self.recovery.failed(e)

    def finished(self) -> bool:
        return self.status == "closed"  # nothing else will come: the lobby forgot the table

    async def _turn(self, cmd: TableCommand, fut: asyncio.Future[Any] | None) -> None:
        if self.has_humans:
            await self._run_one(cmd, fut)
            return
        # a table of bots waits for its turn on the event loop before each command, and
        # runs it in one of a few slots (its store writes included): tables with humans
        # never wait behind a run of bot work
        pacer = bot_pacer()
        await pacer.turn()
        async with pacer.slots:
            await self._run_one(cmd, fut)

    async def _dispatch(self, cmd: TableCommand) -> Any:
        """The one place a command becomes the actor's work (server/commands.py)."""
        match cmd:
            case C.Act(conn, seq, action):
                return await self.act(conn, seq, action)
            case C.AutoAct(seat, key):
                return await self._auto_act(seat, key)
            case C.Pump(fresh):
                return await self._pump(fresh)
            case C.Ready(conn):
                return await self.ready(conn)
            case C.Join(conn, as_):
                await self.effect(await self.attendance.join(conn, as_))
                await self.effect(self.social.joined(conn))  # an open dissolve vote
                return None
            case C.SetAuto(conn, on):
                return await self.set_auto(conn, on)
            case C.Leave(conn):
                return await self.effect(self.attendance.leave(conn))
            case C.Chat(conn, phrase):
                return await self.effect(self.social.chat(conn, phrase))
            case C.Dissolve(conn, accept):
                return await self.effect(self.social.dissolve(conn, accept))
            case C.Disconnected(conn):
                return await self.effect(self.attendance.disconnected(conn, self.clock.now()))
            case C.Reserve(player_id, name):
                return await self.reserve(player_id, name)
            case C.AddBot(player_id, kind):
                return await self.add_bot(player_id, kind)
            case C.RemoveBot(player_id):
                return await self.remove_bot(player_id)
            case C.MaybeStart():
                return await self._maybe_start()
            case C.GraceOver(seat):
                return await self._grace_over(seat)
            case C.SeatLeaves(seat, told):
                try:
                    return await self._seat_leaves(seat)
                finally:
                    # after the leave's writes (a player told it has left is a leaver after
                    # a crash too); after a store fault as well: the leave is the table's
                    # then, stored when the store is back (server/recovery.py)
                    if told is not None:
                        told.send({"type": "left", "table": self.id})
            case C.Recover():
                return await self.recovery.recover()
            case C.Close(reason):
                return await self.effect(self.finisher.close(reason))
            case C.FinishMatch(leaver):
                if self.status == "closed":  # (dissolved first, or ended otherwise)
                    return None
                return await self.effect(self.finisher.finish_match(leaver))
            case C.VoteLapsed(token):
                return await self.effect(self.social.lapsed(token))
            case C.TryDissolve():
                return await self.effect(await self.social.try_dissolve())
            case C.HintBegin(conn):
                return self.hints.begin(conn)
            case C.HintEnd(conn, seat, legal, advice):
                return await self.effect(self.hints.end(conn, seat, legal, advice))
            case C.Step(fn):
                return await fn()
        raise TypeError(f"not a table command: {cmd!r}")

    def post(self, fn: TableCommand | Callable[[], Awaitable[Any]]) -> None:
        """Queue a command, or a collaborator's own step (``commands.Step``)."""
        self.submit(fn if isinstance(fn, C.COMMANDS) else C.Step(fn))

    async def call(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``fn`` inside the actor and return its result (``ask`` of a ``Step``)."""
        return await self.ask(C.Step(fn))

    async def stop(self) -> None:
        self.sched.cancel_all()
        await super().stop()

    # ------------------------------------------------------------------ faults

    @property
    def degraded(self) -> bool:
        """The store failed and the table waits for it (server/recovery.py)."""
        return self.recovery.degraded

    # ------------------------------------------------------------------ public info

    @property
    def has_humans(self) -> bool:
        return any(s.human for s in self.seats)

    @property
    def practice(self) -> bool:
        """练习 (docs/economy.md): at most one account, with bots that do not play for the
        house or guests (one at least)."""
        accounts = sum(1 for s in self.seats if s.human and s.account)
        others = sum(1 for s in self.seats if s.taken) - accounts
        return economy.is_practice(self.house_bots, accounts, others)

    @property
    def spectators(self) -> set[Conn]:
        return self.roster.spectators

    def conns(self) -> list[Conn]:
        return self.roster.conns()

    def broadcast(self, msg: dict[str, Any]) -> None:
        send_all(self.conns(), msg)  # validated and encoded once (server/conn.py)

    @staticmethod
    def _silver_for(msg: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """``msg`` (a settled ``hand_end``/``hand_void``) as ``seat`` may read it: its own
        balance only (None: a spectator, no balance)."""
        silver = msg.get("silver")
        if not silver:
            return msg
        lines = [
            x if x is None or j == seat else {k: v for k, v in x.items() if k != "balance"}
            for j, x in enumerate(silver)
        ]
        return {**msg, "silver": lines}

    def _send_ended(self, msg: dict[str, Any]) -> None:
        """A settled ``hand_end`` or ``hand_void``: each seat's balance goes to that seat's
        own connection only. The change, transfer and fee are public; the balance is the
        player's own business, as on its profile (docs/economy.md)."""
        silver = msg["silver"]
        own: set[Conn] = set()
        for i, seat in enumerate(self.seats):
            if seat.conn is not None and i < len(silver) and silver[i] is not None:
                seat.conn.send(self._silver_for(msg, i))
                own.add(seat.conn)
        send_all([c for c in self.conns() if c not in own], self._silver_for(msg, None))

    def broadcast_seats(self) -> None:
        self.broadcast(self.presenter.seats_msg())

    # ------------------------------------------------------------------ seating (REST + WS)

    def admits(self, player_id: int) -> bool:
        """A private table opens by id to its creator, its seated players and those watching
        it (who came in with its code) only."""
        return (
            player_id == self.cfg.creator_id
            or self.seat_of(player_id) is not None
            or any(c.player_id == player_id for c in self.spectators)
        )

    def seat_of(self, player_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s.player_id == player_id and not s.bot:
                return i
        return None

    async def reserve(self, player_id: int, name: str) -> str | None:
        """Quick match (server/rooms.py, server/seating.py): None: seated; "busy": not open
        or full; else why the player may not sit (R11)."""
        why, fx = await self.seating.reserve(player_id, name, self.clock.now())
        await self.effect(fx)
        return why

    async def can_sit(self, player_id: int) -> str | None:
        """R11: why this account may not sit down here (None: it may)."""
        return await self.finisher.can_sit(player_id)

    async def has_account(self, player_id: int) -> bool:
        """Whether this player has an account (it plays for silver; a guest does not)."""
        return await self.finisher.has_account(player_id)

    async def ready(self, conn: Conn) -> None:
        await self.effect(self.seating.ready(self._seat_for(conn)))

    async def set_auto(self, conn: Conn, on: bool) -> None:
        await self.effect(self.seating.set_auto(self._seat_for(conn), on))

    async def _grace_over(self, seat: int) -> None:
        s = self.seats[seat]
        if s.conn is None and s.human and self.status != "closed":
            await self._seat_leaves(seat)

    async def _seat_leaves(self, seat: int) -> None:
        if self.status == "open":
            await self.effect(self.seating.free(seat))
            return
        self.sched.cancel(("grace", seat))
        if self.status in ("playing", "between"):
            # R9/R11: a leaver voids the hand in progress and ends the match (retried as a
            # whole after a store fault) — unless the hand's end was decided before the leave
            # (D-24: a win declared stands; the match ends after that hand)
            if self.social.agreed is not None:
                # 解散房间 agreed: the vote ends the match once no pause or window is open
                # (server/social.py); leaving meanwhile makes nobody a leaver
                self.seats_dirty = True
                return
            if self.pending_leave is None:
                self.pending_leave = seat
            self.seats_dirty = True
            await self.effect(await self.finisher.end_match(leaver=seat))

    async def add_bot(self, player_id: int, kind: str | None = None) -> dict[str, Any]:
        await warm_bots([kind, *(s.bot_kind for s in self.seats)])  # None: the table's kind
        await self.effect(self.seating.add_bot(player_id, kind))
        return self.presenter.summary()

    async def remove_bot(self, player_id: int) -> dict[str, Any]:
        await self.effect(self.seating.remove_bot(player_id))
        return self.presenter.summary()

    def _seat_for(self, conn: Conn) -> int:
        if conn.seat is None or conn.table is not self:
            raise TableError("not_seated", "only a seated player may do this")
        return conn.seat

    # ------------------------------------------------------------------ match and hands

    async def _maybe_start(self) -> None:
        """The next hand, if the table may start one (server/dealing.py) — unless, between
        two hands, a seat's silver has fallen below the table's minimum: then the match ends
        (docs/economy.md, "Between hands"; asked at the hand's end and again before the
        next, which a restart may come between)."""
        if self.status == "between":
            if self.auto_ready and self.next_hand_at is None:
                self._next_hand_timer()  # a room table restored between two hands
            if self.short_unasked or self.dealing.may_start():
                # not at each 准备 of a seat while others are still to press theirs
                self.short_unasked = False
                if short := await self.finisher.short_of_silver():
                    await self.effect(self.finisher.finish_match(None, short=short))
                    return
        await self.effect(self.dealing.start())

    def next_hand_due(self) -> bool:
        """A room table between two hands whose wait for 准备 is over (server/dealing.py)."""
        return (
            self.status == "between"
            and self.next_hand_at is not None
            and self.clock.now() >= self.next_hand_at
        )

    def _next_hand_timer(self) -> None:
        """A room table between two hands: ``next_hand_s`` from now the next hand is dealt
        to every connected human, ready or not (docs/protocol.md, ``ready``)."""
        wait = float(self.settings.next_hand_s)
        self.next_hand_at = self.clock.now() + wait
        self.sched.set([(("next_hand", 0), wait, C.MaybeStart())])

    def _begin(self, st: HandStart) -> None:
        """A hand's rows are stored: it is the table's hand now, nothing of it shown yet."""
        self.dealing.taken()
        self.match, self.match_id, self.status = st.match, st.match_id, "playing"
        for s in self.seats:
            s.ready = False
            # a client that rejoins inside the deal's pause gets nothing (not the last
            # hand's view) until the pause is over
            s.last_view, s.last_key = None, 0
        for c in self.spectators:
            c.last_view, c.last_key = None, 0
        h = self.hand = hand_state(st, self.id)
        self.last_hand_id = h.id
        self.sched.scheduled.clear()
        self.sched.deadlines.clear()
        self.pause.check(h, self.humans, self.clock.now())
        self.seats_dirty = True

    @property
    def claim_window(self) -> str:
        """``fast`` or ``fixed``: how long this match's claim pause lasts (server/pause.py)."""
        return self.pause.mode(self.match, self.humans)

    @property
    def humans(self) -> int:
        return sum(1 for s in self.seats if s.human)

    async def act(self, conn: Conn, seq: int, action: Any) -> None:
        """WS ``act``: validate against the state this seat was shown, then apply."""
        seat = self._seat_for(conn)
        h = self.hand
        if h is None or self.status != "playing":
            raise TableError("not_now", "no hand is in progress")
        if self.degraded:
            # nothing is decided while the table cannot save what was (docs/protocol.md,
            # `status`): the step that failed is retried first, then every seat is shown
            # the state to act on, with fresh time
            raise TableError(
                "store_unavailable", "the server cannot save the game; wait", bad=False
            )
        a = self.presenter.checked(conn, seat, h, seq, action)
        if self.seats[seat].auto:
            await self.effect(self.seating.acted(seat))  # 托管 ends when the player acts
        await self._apply(seat, a)

    async def apply_for(self, seat: int, a: Action) -> None:
        """A decision made for a seat by the table itself (D-24: a leaver's pending answer
        becomes a pass): applied, logged and shown like any other."""
        await self._apply(seat, a)

    async def _apply(self, seat: int, a: Action) -> None:
        h = self.hand
        assert h is not None
        g = h.game
        t0 = time.perf_counter()  # decision -> notice (server/metrics.py)
        before = len(g.events)
        g.apply(seat, a)
        self.actions += 1
        self.sched.forget(seat)
        new = g.events[before:]
        rob_kong = g.profile.rob_kong
        if vis.opens_window(new, rob_kong):
            self.pause.check(h, self.humans, self.clock.now())
            h.notices.extend(vis.notices(new, self.id, h.id, rob_kong))
            if h.hold_from_send:
                ann = vis.announced(new, rob_kong)
                last = max(i for i, e in enumerate(new) if any(e is x for x in ann))
                h.notice_upto = before + last + 1
        elif not vis.in_window(g.phase):
            h.window_asked = frozenset()
        await self._pump()
        observe_decision(self.store, time.perf_counter() - t0)

    # ------------------------------------------------------------------ effects

    async def effect(self, fx: Effects) -> None:
        """Carry out a part's decision (server/effects.py), the one place that does: the
        store writes, committed before anything about them is sent (a failing one raises
        and nothing below happens: the recovery decides the step again); the figures the
        settlement committed; the state; the messages; the seat list; the close; then the
        commands that follow."""
        for w in fx.writes:
            await self._write(w)
            if isinstance(w, SetSeat) and w.one_table and w.player_id is not None:
                await self._seated_account(fx, w.seat, w.player_id)
        messages = [
            {**m.msg, **await self.finisher.end_fields(m.hand_id, m.kind)}
            if isinstance(m, Settled)
            else m
            for m in fx.messages
        ]
        self._take_state(fx)
        for key in fx.cancel:
            self.sched.cancel(key)
        for seat in fx.replan:
            self.sched.forget(seat)
            self.sched.cancel(("act", seat))
        self.sched.set(fx.timers)
        for m in fx.messages:
            if isinstance(m, Settled) and m.kind == "hand" and fx.end_sent is not None:
                # shown again to whoever comes back between two hands (its final state too)
                self.last_end = (m.msg, fx.end_sent)
        for m in messages:
            if m.get("silver"):
                self._send_ended(m)
            else:
                self.broadcast(m)
        for r in fx.replies:
            r.conn.send(r.msg, stream=r.stream)
        if fx.between:
            self.seats_dirty = False
            self.broadcast_seats()
        if fx.close is not None:
            self._close(fx.close)
        for cmd in fx.then:
            await self._dispatch(cmd)

    async def _seated_account(self, fx: Effects, seat: int, player_id: int) -> None:
        """Whether the player a seat was just written for has an account, read again now:
        it was read before the seat's transaction, and a guest's registration may have
        committed in between (it cannot any more: a seated guest may not register,
        server/accounts.py). The table's practice rule counts the seat by it."""
        account = await self.has_account(player_id)
        fx.seats = [
            (i, replace(st, account=account) if i == seat and st.account != account else st)
            for i, st in fx.seats
        ]

    async def _write(self, w: Write) -> None:
        """One of a decision's store writes (server/writes.py), committed when it returns."""
        await perform(self.store, self.id, w, self.flush)

    def _take_state(self, fx: Effects) -> None:
        """A decision's state (its writes committed): the hand's and the table's, the seats,
        the connections let go and the one that joins."""
        if fx.end_sent is not None:
            fx.end_sent.end_sent = True
        if fx.voided is not None:
            fx.voided.voided = True
        if fx.started is not None:
            self._begin(fx.started)
        if fx.hand_done:
            self.hand = None
            self.sched.clear_acts()
        if fx.leave_done:
            self.pending_leave = None
        for i, s in fx.seats:
            self.seats[i] = s
            self.seats_dirty = True
        for conn in fx.detach:
            self.roster.detach(conn)
        if fx.attach is not None:
            self.roster.attach(*fx.attach)
        if fx.seats_changed:
            self.seats_dirty = True
        if fx.between:
            self.status = "between"
            self.short_unasked = True
            self.next_hand_at = None
            for s in self.seats:
                s.ready = False
            if self.auto_ready:
                self._next_hand_timer()

    def _close(self, why: str) -> None:
        """The table closed (its status stored): everyone is told and let go, no timer
        runs, the lobby forgets it."""
        self.status = "closed"
        self.sched.cancel_all()
        self.broadcast({"type": "table_closed", "table": self.id, "reason": why})
        self.roster.let_go()
        if self.on_close is not None:
            self.on_close(self)

    # ------------------------------------------------------------------ the pump

    async def _pump(self, fresh: Conn | None = None) -> None:
        """Persist, then send whatever each connection may now see, then schedule the
        automatic actions (bots, 托管, deadlines) and the end of the claim pause."""
        h = self.hand
        if h is None:
            if fresh is not None:
                # no hand: the seat list and, between two hands, the last hand's end (a
                # reload, or a restart right after it was stored, before it reached anyone:
                # the end screen was lost, and with it the result and the revealed seed)
                fresh.send(self.presenter.seats_msg())
                if self.status == "between" and self.last_end is not None:
                    msg, last = self.last_end
                    # its final state (every hand revealed, R12: it is over), then its end,
                    # as they went out
                    self.presenter.send_state(fresh, last, held=False, window=False, force=True)
                    ended = {**msg, **await self.finisher.end_fields(last.id, "hand")}
                    ended["again"] = True  # shown before (the page shows it at once)
                    if self.auto_ready and self.next_hand_at is not None:
                        # what is left of the room table's wait (docs/protocol.md)
                        left = self.next_hand_at - self.clock.now()
                        ended["next_hand_ms"] = max(0, round(1000 * left))
                    fresh.send(self._silver_for(ended, fresh.seat))
            self._seats_if_quiet(None, self.clock.now())
            return
        # a claim pause: as its notice goes out, only what the notice shows is stored (the
        # discard); what follows it (the next draw, the answers given in the pause) is stored
        # when the pause ends, with the rest. So the store's work, which a player can time by
        # how soon the table answers anything else, is the same whether anybody was asked or
        # not: one commit as the notice goes out, one as the pause ends (R12; docs/architecture.md)
        if self.degraded:
            deferred = False
            await self._persist(h)  # raises on a store fault: nothing below is sent
        elif h.hold_from_send and h.notice_upto:
            deferred = True
            await self._persist(h, upto=h.notice_upto)
            h.notice_upto = 0
        else:
            deferred = self.clock.now() < h.hold_until and not h.hold_from_send
            if not deferred:
                await self._persist(h)
        now = self.clock.now()
        self.pause.time(h, now, self.match, self.humans)
        held = now < h.hold_until
        if deferred and not held:
            await self._persist(h)  # the pause ended with this answer: stored, then shown
        window = vis.in_window(h.game.phase)
        self.presenter.opening_begins(h, now, held, window)
        self.presenter.show(h, fresh, held, window)
        if held:
            self.sched.later("hold", h.hold_until - now, C.Pump())
        if h.game.is_over():
            if not held and not h.end_sent:
                await self.effect(self.finisher.hand_over(h))
                return
        else:
            self._plan(h, held)
        self._seats_if_quiet(h, now)

    async def _persist(self, h: HandState, upto: int | None = None) -> None:
        """Commit the hand's new events (``upto``: those before it) before anything about
        them is sent (a table nobody watches batches them, up to ``max_unflushed_events``)."""
        g = h.game
        end = len(g.events) if upto is None else upto
        unflushed = end - h.persisted
        if unflushed > 0 and (
            (g.is_over() and upto is None)
            or self.roster.any()
            or unflushed >= self.settings.max_unflushed_events
            or self.degraded
        ):
            await self.flush(h, upto)

    def _seats_if_quiet(self, h: HandState | None, now: float) -> None:
        """A changed seat list goes out, but never inside a claim pause or window (R12: it
        would tell who was asked)."""
        if self.seats_dirty and self.presenter.seats_may_go(h, now):
            self.seats_dirty = False
            self.broadcast_seats()

    async def flush(self, h: HandState, upto: int | None = None) -> None:
        """The hand's events not stored yet (``upto``: those before it), committed
        (server/writes.py)."""
        await store_events(self.store, h, self.match, self.match_id, upto)

    async def flush_pending(self) -> None:
        """Whatever of the hand is not stored yet (the answers given inside a claim pause,
        stored at its end), committed: a table handed to another process loses nothing."""
        h = self.hand
        if h is not None and len(h.game.events) > h.persisted:
            await self.flush(h)

    # ------------------------------------------------------------------ automatic acts

    def _plan(self, h: HandState, held: bool) -> None:
        """Bots, 托管 seats and deadlines: the timers of the seats to act (server/scheduler.py)."""
        bot_delay_s = self.settings.bot_delay_ms / 1000.0
        not_before = self.presenter.not_before(h)
        self.sched.set(
            self.sched.plan_hand(
                h, held, self.seats, bot_delay_s, self.cfg.turn_seconds, not_before
            )
        )

    async def _auto_act(self, seat: int, key: int) -> None:
        """``AutoAct``: a bot's, a 托管 seat's or a missed deadline's decision, if the table
        is still at decision point ``key`` and the seat still to act."""
        h = self.hand
        if h is None or self.status != "playing" or len(h.game.events) != key:
            return
        if seat not in h.game.to_act():
            return
        s = self.seats[seat]
        window = vis.in_window(h.game.phase)
        if window and s.human and not s.auto and self.sched.deadlines.get(seat) is None:
            # planned at once for a seat whose player was away (server/scheduler.py): the
            # bot answers for it (R11: a bot plays for a disconnected player) — unless the
            # player is back, whose answer it is (a human's deadline from now)
            if not s.away:
                self.sched.forget(seat)
                await self._pump()
                return
            await self._apply(seat, await self.sched.decide(h.game, seat, True, None))
            return
        if s.human:  # a missed own turn starts 托管 (server/seating.py)
            await self.effect(self.seating.missed(seat, window))
        s = self.seats[seat]
        await self._apply(seat, await self.sched.decide(h.game, seat, s.bot, s.bot_kind))

    # ------------------------------------------------------------------ crash restore

    async def restore(self, rows: dict[str, Any]) -> None:
        """Take on the table its rows describe after a restart (server/restore.py)."""
        r = restored(rows, self.cfg, self.deals, self.clock.now(), self.settings.grace_s)
        self.pause.restarted(self.clock.now())
        for i, s in r.seats:
            self.seats[i] = s
        self.status, self.match_id, self.match, self.hand = r.status, r.match_id, r.match, r.hand
        self.last_end = r.last_end
        self.pending_leave = r.pending_leave
        self.social.agreed = r.agreed
        if r.hand is not None:
            self.last_hand_id = r.hand.id
        for cmd in r.then:
            self.submit(cmd)  # before the grace timers: with a grace of 0 they post at once
        self.sched.set(r.timers)
