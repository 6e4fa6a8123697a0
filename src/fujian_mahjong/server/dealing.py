"""A match's and a hand's start (R2, R9, R12) — decided here and returned as ``Effects``
(server/effects.py) for the table actor to carry out:

- a table starts its next hand once every seat is taken and every human is connected and
  has said 准备 (a room table's humans need no 准备 before its first hand, docs/economy.md);
- an open table's match comes from the deal source (R2, R12: by default the first dealer
  and the seed from ``secrets``; hand k plays HMAC(seed, k)); its row is stored and the
  table marked ``playing`` (``StartMatch``), then the hand's row (``StartHand``), before
  anything of the hand is shown; its start notice carries its seed's SHA-256 (R12);
- a start whose writes failed (a store fault) is decided again from what was dealt and
  stored already (``pending``: the same match, the same deal, the ids its rows got), so
  nothing is dealt or stored twice; the seats' rows are read afresh each time.

Nothing here writes, sends or changes the table (it keeps only its own ``pending``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.effects import Effects, StartHand, StartMatch
from fujian_mahjong.server.tablestate import HandStart, HandState

if TYPE_CHECKING:
    from fujian_mahjong.engine import Game, Match
    from fujian_mahjong.server.deals import DealSource
    from fujian_mahjong.server.scheduler import Scheduler
    from fujian_mahjong.server.tablestate import Seat, TableConfig

__all__ = ["Dealing", "DealingTable", "hand_state"]


class DealingTable(Protocol):
    """What a hand's start reads of its table (server/table.py's ``TableActor``)."""

    @property
    def id(self) -> int: ...
    @property
    def cfg(self) -> TableConfig: ...
    @property
    def status(self) -> str: ...
    @property
    def seats(self) -> list[Seat]: ...
    @property
    def auto_ready(self) -> bool: ...
    @property
    def stopping(self) -> bool: ...
    def next_hand_due(self) -> bool: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def match_id(self) -> int | None: ...
    @property
    def deals(self) -> DealSource: ...
    @property
    def sched(self) -> Scheduler: ...


class Dealing:
    def __init__(self, table: DealingTable) -> None:
        self.t = table
        # a start decided but not yet taken (its writes failed): decided again from it
        self.pending: HandStart | None = None

    def may_start(self) -> bool:
        t = self.t
        if t.stopping or t.status not in ("open", "between") or not all(s.taken for s in t.seats):
            return False
        # a room table: no 准备 for its first hand, nor for the next once its wait is over
        auto = t.auto_ready and (t.status == "open" or t.next_hand_due())
        return all(s.bot or ((s.ready or auto) and s.conn is not None) for s in t.seats)

    def start(self) -> Effects:
        """``MaybeStart``: the next hand (and at an open table its match) if the table may
        start one; no effect otherwise."""
        t = self.t
        if not self.may_start():
            return Effects()
        st = self.pending
        if st is None:
            m = t.match if t.match is not None else t.deals.new_match(t.cfg.profile, t.cfg.players)
            # the deal's seed's SHA-256 goes out with its start (R12)
            game = t.deals.next_hand(m)
            st = self.pending = HandStart(match=m, game=game, match_id=t.match_id)
        m, game = st.match, st.game
        st.hand_row = {
            "table_id": t.id,
            "number": m.hands_played,
            "profile": t.cfg.profile,
            "players": t.cfg.players,
            "dealer": game.dealer,
            "streak": game.streak,
            "seed": game.seed,
            "seed_sha256": str(_start_event(game)["seed_sha256"]),
            "seat_players": [None if s.bot else s.player_id for s in t.seats],
            # the bot kind of each seat anchors the skill rating (server/rating.py)
            "bot_kinds": [(s.bot_kind or t.sched.default_kind) if s.bot else None for s in t.seats],
        }
        fx = Effects(started=st, then=[C.Pump()])
        if t.status == "open":
            fx.writes.append(StartMatch(st, t.cfg.players))
        fx.writes.append(StartHand(st))
        return fx

    def taken(self) -> None:
        """The start's rows are stored and the table plays its hand."""
        self.pending = None


def _start_event(game: Game) -> Mapping[str, Any]:
    return game.events[0]  # the hand's start (R12: its seed's hash)


def hand_state(st: HandStart, table_id: int) -> HandState:
    """The hand a start begins, its start notice waiting to be shown (R12: its seed's hash;
    the dealer and streak, R2)."""
    assert st.hand_id is not None
    m, game = st.match, st.game
    h = HandState(id=st.hand_id, number=m.hands_played, game=game)
    h.notices.append(
        {
            "type": "hand_start",
            "table": table_id,
            "hand": st.hand_id,
            "number": m.hands_played,
            "dealer": m.dealer,
            "streak": m.streak,
            "seed_sha256": _start_event(game)["seed_sha256"],
        }
    )
    return h
