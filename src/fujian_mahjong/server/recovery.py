"""A table's way through a store fault (docs/architecture.md, "Faults"): a step that failed
(a full disk, a lost database) leaves the table degraded — its timers stopped, nobody shown
anything new, everyone told ``status: failing`` — and is decided again, with back-off, until
the store answers; then everyone is told ``status: ok``, every player gets fresh time, and
the table goes on from where it was.

Nothing of a failed step was applied (the actor's writes come first: server/effects.py), so
retrying means asking the table's parts again: a dissolution agreed by vote, a pending
leave, a match or hand to start, a hand's end, or the pump with its unsaved events."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.social import VOTE_TIMER

if TYPE_CHECKING:
    from fujian_mahjong.server.clock import Clock
    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.effects import Effects
    from fujian_mahjong.server.finisher import Finisher
    from fujian_mahjong.server.presenter import Presenter
    from fujian_mahjong.server.scheduler import Scheduler
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.social import Social
    from fujian_mahjong.server.tablestate import HandState, Seat

log = logging.getLogger("fjmj.table")

# the longest wait between two tries (s); the first is 0.1 s, doubling
MAX_BACKOFF_S = 5.0


def status_msg(table_id: int, store: str) -> dict[str, Any]:
    """What everyone at the table is told when the store fails (``failing``) and when the
    game goes on (``ok``), in both languages."""
    if store == "failing":
        return {
            "type": "status",
            "table": table_id,
            "store": "failing",
            "message": "the server cannot save the game; waiting",
            "message_zh": "服务器暂时无法保存牌局, 请稍候",
        }
    return {
        "type": "status",
        "table": table_id,
        "store": "ok",
        "message": "the game continues",
        "message_zh": "牌局继续",
    }


class RecoveringTable(Protocol):
    """What the recovery reads and runs of its table (server/table.py's ``TableActor``,
    which sits above it: docs/architecture.md, "Layers")."""

    @property
    def id(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def hand(self) -> HandState | None: ...
    @property
    def seats(self) -> list[Seat]: ...
    @property
    def pending_leave(self) -> int | None: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def sched(self) -> Scheduler: ...
    @property
    def social(self) -> Social: ...
    @property
    def finisher(self) -> Finisher: ...
    @property
    def presenter(self) -> Presenter: ...

    def conns(self) -> list[Conn]: ...
    def broadcast(self, msg: dict[str, Any]) -> None: ...
    async def effect(self, fx: Effects) -> None: ...
    async def flush(self, h: HandState) -> None: ...
    async def _maybe_start(self) -> None: ...
    async def _pump(self, fresh: Conn | None = None) -> None: ...
    def _plan(self, h: HandState, held: bool) -> None: ...


class Recovery:
    """The table's fault state (``degraded``, ``failures``) and its steps through one."""

    def __init__(self, table: RecoveringTable) -> None:
        self.t = table
        self.degraded = False
        self.failures = 0

    def failed(self, e: BaseException) -> None:
        """A step failed: the table degrades (once) and tries again after the back-off."""
        t = self.t
        self.failures += 1
        delay = min(MAX_BACKOFF_S, 0.1 * 2 ** min(self.failures - 1, 6))
        if self.failures == 1 or self.failures % 50 == 0:
            log.warning(
                "table %s: a step failed (%s: %s); retrying in %.1f s",
                t.id,
                type(e).__name__,
                str(e).splitlines()[0][:200] if str(e) else "",
                delay,
                exc_info=self.failures == 1,
            )
        if t.status == "closed":
            return
        if not self.degraded:
            self.degraded = True
            # timers stop: no deadline or bot fires into a broken store (a disconnected
            # player's grace period too: nobody is made a leaver by the server's fault);
            # a dissolve vote still ends on time (it writes nothing, server/social.py)
            t.sched.cancel_all(keep=(VOTE_TIMER,))
            t.sched.scheduled.clear()
            t.broadcast(status_msg(t.id, "failing"))
        t.sched.later("retry", delay, C.Recover())

    async def recover(self) -> None:
        """``Recover``: retry whatever failed — a dissolution by vote, a pending leave, a
        match or hand to start, the end of a hand, or the pump with its unsaved events."""
        t = self.t
        if t.status == "closed":
            return
        if t.social.agreed is not None:  # a dissolution by vote (server/social.py)
            await t.effect(await t.social.try_dissolve())
            if t.status == "closed":
                self.recovered()
                return
        if t.pending_leave is not None:
            await t.effect(await t.finisher.end_match(leaver=t.pending_leave))
            if t.status == "closed":
                self.recovered()
                return
        elif t.hand is None and t.status in ("open", "between"):
            await t._maybe_start()
        elif t.hand is not None and not t.hand.end_sent and t.hand.game.is_over():
            h = t.hand
            if len(h.game.events) > h.persisted:
                await t.flush(h)
            if t.clock.now() >= h.hold_until:
                await t.effect(t.finisher.hand_over(h))
        unsaved = t.hand
        if unsaved is not None and len(unsaved.game.events) > unsaved.persisted:
            # the failed step's events (a claim pause's draw and answers among them): stored
            # before "ok" goes out, and before anything they let be shown
            await t.flush(unsaved)
        self.recovered()
        await t._pump()

    def recovered(self) -> None:
        """A step succeeded: a degraded table tells everyone the game goes on, gives every
        player fresh time from now (nobody loses time to the server's fault), restarts the
        grace periods of those not connected and its own timers."""
        if not self.degraded:
            self.failures = 0
            return
        t = self.t
        self.degraded = False
        self.failures = 0
        t.sched.cancel("retry")
        t.sched.deadlines.clear()
        t.sched.scheduled.clear()
        t.broadcast(status_msg(t.id, "ok"))
        now = t.clock.now()
        for i, s in enumerate(t.seats):
            if s.human and s.conn is None and t.status != "closed":
                t.sched.later(("grace", i), t.settings.grace_s, C.GraceOver(i))
                s.disconnected_at = now
        h = t.hand
        if h is not None and t.status == "playing":
            held = now < h.hold_until
            if not h.hold_from_send:
                # (a claim pause whose notice has not gone out: the pump that follows sends
                # it, its pause, then what came after, in order. The current state first
                # showed the next draw before the discard, and when it came at once, that
                # nobody could claim it: R12)
                for c in t.conns():
                    t.presenter.refresh(c, h)
            if held:
                t.sched.later("hold", h.hold_until - now, C.Pump())
            if not h.game.is_over():
                t._plan(h, held)
