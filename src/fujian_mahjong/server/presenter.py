"""What each connection at a table is shown (docs/architecture.md, "The pump"; R12): the
public notices, each seat's and each spectator's state as far as it may see it now (the
claim pause and windows, server/visibility.py), the opening (docs/protocol.md, "The
opening"), a (re)joining client's last state and history. The pump (server/table.py) calls
it after the hand's events are committed, never before. It also checks a seat's ``act``
against the state its connection was shown (``checked``), before the engine applies it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong.engine import Action, Game, Match, Phase, spectator_view
from fujian_mahjong.engine.tenpai import seat_ready_discards, seat_waits
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.conn import Conn, send_all
from fujian_mahjong.server.tablestate import TableError

if TYPE_CHECKING:
    from fujian_mahjong.server.clock import Clock
    from fujian_mahjong.server.scheduler import Scheduler
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.tablestate import HandState, Seat, TableConfig

__all__ = ["Presenter", "PresenterTable", "public_view"]


def public_view(g: Game) -> dict[str, Any]:
    """A spectator's view: only public data, no concealed tile at all (R12): the engine's
    allow-list of public keys (``engine.spectator_view``)."""
    return spectator_view(g)


def _waits(view: dict[str, Any]) -> list[str] | None:
    """``seat_waits`` of a seat's view: none when the seat holds a number of concealed tiles
    that cannot wait (its own turn, a tile drawn: ``seat_waits`` would parse that hand,
    new at every draw, to find as much); else the seat's waits (kept per hand text)."""
    sizes = view.get("hand_sizes")
    seat = view.get("seat")
    if isinstance(sizes, list) and isinstance(seat, int) and 0 <= seat < len(sizes):
        if sizes[seat] % 3 != 1:
            return None
    return seat_waits(view)


class PresenterTable(Protocol):
    """What the presenter reads of its table (server/table.py's ``TableActor``, above it)."""

    @property
    def id(self) -> int: ...
    @property
    def cfg(self) -> TableConfig: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def sched(self) -> Scheduler: ...
    @property
    def seats(self) -> list[Seat]: ...
    @property
    def practice(self) -> bool: ...
    @property
    def has_humans(self) -> bool: ...

    @property
    def status(self) -> str: ...
    @property
    def spectators(self) -> set[Conn]: ...
    @property
    def hand(self) -> HandState | None: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def claim_window(self) -> str: ...

    def conns(self) -> list[Conn]: ...


class Presenter:
    """Sends each connection of a table what it may see now (the pump's second step)."""

    def __init__(self, table: PresenterTable) -> None:
        self.t = table

    def seats_json(self) -> list[dict[str, Any]]:
        """The seat list: the same for every viewer (every entry is public, R12)."""
        return [
            {
                "seat": i,
                "name": s.name if s.taken else None,
                "player_id": s.player_id,
                "bot": s.bot,
                # the bot's kind (docs/protocol.md); null for a human or an empty seat
                "bot_level": (s.bot_kind or self.t.sched.default_kind) if s.bot else None,
                "connected": s.bot or s.conn is not None,
                "auto": s.auto,
                "ready": s.bot or s.ready,
            }
            for i, s in enumerate(self.t.seats)
        ]

    def seats_msg(self) -> dict[str, Any]:
        """The ``seats`` message: the same for every connection (every entry is public)."""
        return {"type": "seats", "table": self.t.id, "seats": self.seats_json()}

    def seats_may_go(self, h: HandState | None, now: float) -> bool:
        """A changed seat list may go out now: never inside a claim pause or window (R12: it
        would tell who was asked)."""
        if h is None:
            return True
        return not vis.quiet(self.t.status == "playing", now, h.hold_until, h.game.phase)

    def summary(self) -> dict[str, Any]:
        """What the lobby lists and ``GET /api/tables/{id}`` returns."""
        t = self.t
        c = t.cfg
        return {
            "id": c.id,
            "code": c.code,
            "profile": c.profile,
            "players": c.players,
            "turn_seconds": c.turn_seconds,
            "hands": c.hands,
            "private": c.private,
            "creator_id": c.creator_id,
            "status": t.status,
            "seats_taken": sum(1 for s in t.seats if s.taken),
            "humans": sum(1 for s in t.seats if s.human),
            "bots": sum(1 for s in t.seats if s.bot),
            "seats": self.seats_json(),
            "spectators": len(t.spectators),
            "hand": t.hand.id if t.hand else None,
            "hands_played": t.match.hands_played if t.match else 0,
            "totals": list(t.match.totals) if t.match else None,
            # how long a claim pause lasts here (docs/architecture.md): fast or fixed
            "claim_window": t.claim_window,
            "practice": t.practice,  # docs/economy.md: nothing at stake here
        }

    def refresh(self, conn: Conn, h: HandState) -> None:
        """The current state again, if this seat may see it now (after a stale action, so a
        client that missed a state cannot wait for one forever; after a store fault)."""
        g = h.game
        if h.persisted < len(g.events):
            return  # commit before send: never a state the store does not hold yet
        held = self.t.clock.now() < h.hold_until
        window = vis.in_window(g.phase)
        seat = conn.seat
        asked = vis.still_asked(
            seat, g.phase, h.window_asked, seat is not None and bool(g.legal_actions(seat))
        )
        if vis.may_refresh(seat, asked, held, window):
            self.send_state(conn, h, held, window, force=True)

    def checked(self, conn: Conn, seat: int, h: HandState, seq: int, action: Any) -> Action:
        """WS ``act`` of ``seat``: the action, checked against the state this connection was
        shown (its ``seq``; the decision point it showed) and the engine's legal actions. A
        client that acts on a state it was not shown is sent the current one."""
        g = h.game
        if seq < conn.state_seq:
            # a state replaced the one acted on before the act arrived: a race a client that
            # acts at once meets whenever a state is sent again (as while the store fails),
            # not a bad message — counted, they closed such a client within a minute; it
            # costs nothing more (the current state was already sent). A seq no message ever
            # had (0 or less) is still a bad one
            raise TableError(
                "stale",
                f"seq {seq} is not the current state's ({conn.state_seq}); act on it",
                bad=seq <= 0,
            )
        if seq > conn.seq:
            raise TableError(
                "stale", f"seq {seq} is not the current state's ({conn.state_seq}); act on it"
            )
        if conn.state_key != len(g.events):
            # the table applied something since this state (a double tap's first act, another
            # seat's move inside a pause): a race as well, not a bad message
            self.refresh(conn, h)
            raise TableError("stale", "the table has moved on; wait for the next state", bad=False)
        try:
            a = Action.from_json(action)
        except MahjongError as e:
            raise TableError("bad_action", str(e)) from None
        legal = g.legal_actions(seat)
        if not legal:
            raise TableError("not_your_turn", f"seat {seat} need not act now")
        if a not in legal:
            raise TableError(
                "illegal",
                f"{a} is not legal now; legal: {', '.join(str(x) for x in legal)}",
            )
        return a

    def show(self, h: HandState, fresh: Conn | None, held: bool, window: bool) -> None:
        """The public notices to everyone at once, then each connection's state as far as
        it may see it now; a (re)joining client inside a pause gets the last state it may
        see, then the pending notices (docs/protocol.md, "Reconnecting")."""
        if h.notices_sent < len(h.notices):
            others = [c for c in self.t.conns() if c is not fresh]
            for n in h.notices[h.notices_sent :]:
                send_all(others, n)
            h.notices_sent = len(h.notices)
        pending = list(h.notices) if fresh is not None and (held or window) else []
        if not held and not window:
            h.notices.clear()
            h.notices_sent = 0
        conns = self.t.conns()
        if conns:
            common = self.common(h)  # the same for every connection (public)
            for c in conns:
                self.send_state(c, h, held, window, force=c is fresh, common=common)
        if fresh is not None:
            for n in pending:
                fresh.send(dict(n))

    def state_for(self, c: Conn, h: HandState) -> dict[str, Any]:
        g = h.game
        key = len(g.events)
        if c.seat is None:
            view = public_view(g)
            # a spectator sees the countdown of the seat whose turn it is (public: whose
            # turn it is, and the turn's time, R12); never one inside a claim window, where
            # who is asked is hidden
            turn = view.get("turn")
            deadline = (
                self.t.sched.deadline_ms(turn, key)
                if g.phase is Phase.TURN and isinstance(turn, int)
                else None
            )
        else:
            view = g.view(c.seat)  # to_act already reduced to this seat (R12 rev 2)
            deadline = self.t.sched.deadline_ms(c.seat, key) if view["legal_actions"] else None
        return {
            "type": "state",
            "table": self.t.id,
            "hand": h.id,
            "view": view,
            "deadline_ms": deadline,
        }

    def common(self, h: HandState) -> dict[str, Any]:
        """What every state of this moment carries alike (all of it public)."""
        return {
            "seats": self.seats_json(),
            "practice": self.t.practice,
            "number": h.number,
            "seed_sha256": h.game.events[0].get("seed_sha256"),
        }

    def send_state(
        self,
        c: Conn,
        h: HandState,
        held: bool,
        window: bool,
        force: bool = False,
        common: dict[str, Any] | None = None,
    ) -> None:
        g = h.game
        seat = c.seat
        holder: Any
        if seat is None:
            holder, legal = c, False
        else:
            holder, legal = self.t.seats[seat], bool(g.legal_actions(seat))
        asked = vis.still_asked(seat, g.phase, h.window_asked, legal)
        key = len(g.events)
        show = vis.what_to_show(asked, held, window, force, holder.last_view is not None)
        if show == "nothing":
            return
        shown = holder.last_key
        if show == "last":
            # nothing new may be shown now; a (re)joining client gets what it saw last
            msg: dict[str, Any] = {
                "type": "state",
                "table": self.t.id,
                "hand": h.id,
                "view": holder.last_view,
                "deadline_ms": None,
            }
            c.state_key = -1
        else:
            if legal and seat is not None:  # (legal: a seat's, never a spectator's)
                self.t.sched.ensure_deadline(
                    seat,
                    self.t.seats[seat],
                    key,
                    g.phase,
                    h.window_key,
                    self.t.cfg.turn_seconds,
                    self.not_before(h),
                )
            if not force and holder.last_view is not None and holder.last_key == key:
                c.state_key = key  # the view of a decision point already shown: the same
                return
            msg = self.state_for(c, h)
            if not force and msg["view"] == holder.last_view:
                c.state_key = key
                return
            holder.last_view = msg["view"]
            holder.last_key = shown = key
            c.state_key = key
        if common is None:
            common = self.common(h)
        msg["seats"] = common["seats"]
        msg["practice"] = common["practice"]
        msg["me"] = {"player_id": c.player_id, "name": c.name, "seat": seat}
        v = msg["view"]
        msg["waits"] = _waits(v) if seat is not None else None
        ready = seat_ready_discards(v) if seat is not None else None
        if ready:
            msg["ready_discards"] = ready  # 听牌提示: only on the seat's own turn
        if not any(v["discards"]) and not any(v["melds"]):
            msg["opening"] = vis.opening(g.events, seat)  # the opening is shown (docs/web.md)
            if self.t.has_humans:
                # what is left of it (0: over, also when the view is one sent before the
                # first discard, or when the server's opening is 0), so a client that
                # (re)joins resumes it where it is (docs/protocol.md, "The opening")
                left = h.opening_until - self.t.clock.now() if self.fresh(g) else 0.0
                msg["opening_ms"] = max(0, round(left * 1000))
        msg["number"] = common["number"]
        msg["seed_sha256"] = common["seed_sha256"]
        if c.history_due:
            # a client that (re)joins: the hand's public actions up to what this state shows
            # (R12: server/visibility.py ``history``), so its action log comes back
            msg["history"] = vis.history(g.events[:shown], seat)
            c.history_due = False
        c.send(msg)

    @property
    def opening_s(self) -> float:
        """How long a hand's opening lasts here (docs/protocol.md, "The opening"): at a table
        with humans, the server's ``opening_s`` (settings.py ``OPENING_S`` by default); none
        at a table of bots, which nobody plays at."""
        if not self.t.has_humans:
            return 0.0
        return self.t.settings.opening_s

    @staticmethod
    def fresh(g: Game) -> bool:
        """No tile discarded or melded yet: the hand's opening is what there is to show."""
        return not any(g.discards) and not any(g.melds)

    def not_before(self, h: HandState) -> float:
        """When the time of the hand's next decision may start (docs/protocol.md, "The
        opening"): the opening's end while nobody has discarded or melded yet — a player who
        acts before it is over ends it for everyone — else no wait."""
        return h.opening_until if self.fresh(h.game) else 0.0

    def opening_begins(self, h: HandState, now: float, held: bool, window: bool) -> None:
        """The opening runs for ``opening_s`` from the moment the hand is shown: to every
        seat when the deal's claim pause is over (and the opening's window A, R8, closed),
        to a seat asked in window A at once (its deadline counts from the end of its own
        opening). Until it is over no bot or 托管 seat acts on its turn and no human's
        time runs (``Scheduler.plan``'s ``not_before``); a hand restored after a restart
        before its first discard is shown, and timed, afresh."""
        if h.shown or not self.fresh(h.game):
            return
        length = self.opening_s
        if not held and not window:
            h.shown = True
            if length > 0:
                h.opening_until = max(h.opening_until, now + length)
        elif window and h.opening_until == 0.0 and length > 0:
            h.opening_until = now + length  # the seats asked in window A see the hand now
