"""A table's social side (docs/protocol.md): chat by preset phrases and reactions (快捷语,
表情) and 解散房间, dissolving a private match by vote.

The table actor (``server/table.py``) owns one :class:`Social`; the socket layer posts its
commands on the actor's queue (``TableActor.call``), so they are serialised with every other
action of the table, and time comes only from the table's Clock (FakeClock in the tests).

R12: nothing here reads the hidden state of a hand. A phrase or a vote is relayed to every
viewer the moment the actor takes it, inside a claim pause or window too; an agreed
dissolution waits, as ``seats`` updates do, until no claim pause or window is open, and
only then voids the hand. The phrases are a fixed list that names no tile (no free text),
and bots never chat or vote."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.effects import (
    AgreeDissolution,
    Effects,
    Flush,
    RecordDissolution,
    Reply,
    Settled,
)
from fujian_mahjong.server.tablestate import TableError

if TYPE_CHECKING:
    from fujian_mahjong.engine import Action, Match
    from fujian_mahjong.server.clock import Clock
    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.finisher import Finisher
    from fujian_mahjong.server.tablestate import HandState, Seat, TableConfig

__all__ = [
    "CHAT_LIMIT",
    "CHAT_WINDOW_S",
    "DISSOLVE_S",
    "PHRASES",
    "PROPOSE_COOLDOWN_S",
    "Phrase",
    "Social",
    "phrases_json",
]

# at most CHAT_LIMIT phrases per player in any CHAT_WINDOW_S seconds (the table's clock)
CHAT_LIMIT = 3
CHAT_WINDOW_S = 10.0
# a dissolve proposal lasts this long (the table's clock)
DISSOLVE_S = 120.0
# a seat whose proposal was refused or lapsed may propose again only this long after
PROPOSE_COOLDOWN_S = 30.0
# how often an agreed dissolution looks again whether the pause or window has ended
RECHECK_S = 0.25
# the scheduler's keys of the vote's timers (server/scheduler.py): its end, and the next look
# at an agreed dissolution. A store fault stops the table's timers but the vote's end (it
# writes nothing; the dissolution itself is retried by the table's recovery)
VOTE_TIMER = ("social", "vote")
DISSOLVE_TIMER = ("social", "dissolve")


@dataclass(frozen=True, slots=True)
class Phrase:
    """One preset phrase (快捷语, ``kind="phrase"``) or reaction (表情, ``"reaction"``)."""

    id: str
    zh: str
    en: str
    kind: Literal["phrase", "reaction"]
    emoji: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "zh": self.zh, "en": self.en, "kind": self.kind, "emoji": self.emoji}


# Fixed in code: no free text (nothing to moderate); no text names a tile, a meld, a wait or
# a decision ("let me think" would tell that a seat was asked, R12), so a phrase carries no
# game information beyond what it says (tests/test_chat.py checks the tile names).
PHRASES: tuple[Phrase, ...] = (
    Phrase("hello", "大家好，很高兴见到各位", "Hello everyone, nice to meet you", "phrase"),
    Phrase("hurry", "快点吧", "Hurry up, please", "phrase"),
    Phrase("nice_play", "你的牌打得太好了", "You play really well", "phrase"),
    Phrase("lucky", "运气真好", "What luck!", "phrase"),
    Phrase("sorry_dc", "不好意思，掉线了", "Sorry, I was disconnected", "phrase"),
    Phrase("good_luck", "祝大家好运", "Good luck, everyone", "phrase"),
    Phrase("thanks", "谢谢", "Thank you", "phrase"),
    Phrase("again", "再来一局吧", "One more match?", "phrase"),
    Phrase("bye", "我要走了，下次再玩", "I have to go, see you next time", "phrase"),
    Phrase("smile", "微笑", "Smile", "reaction", "😊"),
    Phrase("laugh", "大笑", "Laugh", "reaction", "😂"),
    Phrase("thumbs_up", "赞", "Thumbs up", "reaction", "👍"),
    Phrase("clap", "鼓掌", "Applause", "reaction", "👏"),
    Phrase("wow", "惊讶", "Wow", "reaction", "😮"),
    Phrase("cry", "大哭", "Cry", "reaction", "😭"),
    Phrase("angry", "生气", "Angry", "reaction", "😠"),
)
BY_ID = {p.id: p for p in PHRASES}


def phrases_json() -> list[dict[str, Any]]:
    """``GET /api/phrases``: the phrases in display order."""
    return [p.to_json() for p in PHRASES]


@dataclass
class Vote:
    """An open dissolve proposal: each seated human's answer (None: not yet)."""

    proposer: int
    votes: dict[int, bool | None]
    deadline: float
    token: int


class SocialTable(Protocol):
    """What chat and the dissolve vote need of their table (server/table.py's
    ``TableActor``, which sits above them: docs/architecture.md, "Layers")."""

    hand: HandState | None

    @property
    def id(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def cfg(self) -> TableConfig: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def finisher(self) -> Finisher: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def match_id(self) -> int | None: ...
    @property
    def seats(self) -> list[Seat]: ...

    async def apply_for(self, seat: int, a: Action) -> None: ...


class Social:
    """Chat and the dissolve vote of one table (commands run inside its actor)."""

    def __init__(self, table: SocialTable) -> None:
        self.t = table
        self.chats: dict[int, deque[float]] = {}  # player id -> times of recent phrases
        self.vote: Vote | None = None
        self.cooldown: dict[int, float] = {}  # seat -> when it may propose again
        self.agreed: dict[int, bool | None] | None = None  # the votes of an agreed vote
        self._token = 0

    # ------------------------------------------------------------------ chat

    def chat(self, conn: Conn, phrase: str) -> Effects:
        """WS ``chat``: relay a preset phrase from a seated player to every viewer."""

        t = self.t
        if conn.seat is None or conn.table is not t or not t.seats[conn.seat].human:
            raise TableError("not_seated", "only a seated player may chat; spectators watch")
        p = BY_ID.get(phrase)
        if p is None:
            shown = repr(phrase)[:40]
            raise TableError("bad_phrase", f"unknown phrase {shown}; see GET /api/phrases")
        assert conn.player_id is not None
        now = t.clock.now()
        q = self.chats.setdefault(conn.player_id, deque())
        while q and q[0] <= now - CHAT_WINDOW_S:
            q.popleft()
        if len(q) >= CHAT_LIMIT:
            wait = q[0] + CHAT_WINDOW_S - now
            # answered here, not raised: a refused phrase is not a bad message (the
            # connection's limit of 20 a minute is for broken clients, not eager players)
            refused = {
                "type": "error",
                "code": "rate_limited",
                "message": f"at most {CHAT_LIMIT} phrases in {CHAT_WINDOW_S:g} s; "
                f"try again in {max(wait, 0.1):.1f} s",
            }
            return Effects(replies=[Reply(conn, refused, stream=False)])
        q.append(now)
        # relayed now, to every viewer at once, whatever the hand's state (R12: nothing
        # about it depends on who was asked or what anyone decided)
        return Effects(
            messages=[{"type": "chat", "table": t.id, "seat": conn.seat, "phrase": p.id}]
        )

    # ------------------------------------------------------------------ the dissolve vote

    def _message(self, outcome: str | None) -> dict[str, Any]:
        v = self.vote
        assert v is not None
        left = None
        if outcome is None:
            left = max(0, round((v.deadline - self.t.clock.now()) * 1000))
        return {
            "type": "dissolve",
            "table": self.t.id,
            "votes": {str(s): a for s, a in sorted(v.votes.items())},
            "deadline_ms": left,
            "proposer": v.proposer,
            "outcome": outcome,
        }

    def joined(self, conn: Conn) -> Effects:
        """A viewer (re)joined: show it the open vote, if any."""
        if self.vote is not None and self.agreed is None and conn.table is self.t:
            return Effects(replies=[Reply(conn, self._message(None))])
        return Effects()

    def dissolve(self, conn: Conn, accept: bool) -> Effects:
        """WS ``dissolve``: propose (the first accept), accept or refuse (R11: an agreed
        dissolution voids the hand in progress without any escape penalty or fee). A vote
        needs two or more seated humans; a repeated accept is answered to its sender only."""

        t = self.t
        if conn.seat is None or conn.table is not t or not t.seats[conn.seat].human:
            raise TableError("not_seated", "only a seated player may vote to dissolve")
        if not t.cfg.private:
            raise TableError(
                "not_private", "only a private table can be dissolved by vote; leave instead"
            )
        if self.agreed is not None:
            raise TableError("not_now", "the match is being dissolved")
        if t.match is None or t.status not in ("playing", "between"):
            raise TableError(
                "not_now", "no match is in progress; before the first hand, leaving costs nothing"
            )
        seat = conn.seat
        now = t.clock.now()
        v = self.vote
        fx = Effects()
        if v is None:
            if not accept:
                raise TableError("no_vote", "there is no proposal to refuse")
            wait = self.cooldown.get(seat, 0.0) - now
            if wait > 0:
                raise TableError(
                    "rate_limited", f"you may propose to dissolve again in {wait:.0f} s"
                )
            humans = [i for i, s in enumerate(t.seats) if s.human]
            if len(humans) < 2:
                # a "vote" of one would void any hand that looks bad at no cost: an escape
                # without R11's escape penalty, and only good hands kept in the levels
                raise TableError(
                    "not_now",
                    "a vote needs two or more players at the table; "
                    "alone with bots, leave instead (the escape penalty applies mid-hand)",
                )
            self._token += 1
            v = self.vote = Vote(
                proposer=seat,
                votes={i: None for i in humans},
                deadline=now + DISSOLVE_S,
                token=self._token,
            )
            fx.timers.append((VOTE_TIMER, DISSOLVE_S, C.VoteLapsed(self._token)))
        if seat not in v.votes:
            raise TableError("not_seated", "only the seated players vote")
        if accept and v.votes[seat] is True:
            # nothing changed: answered to this viewer only (a repeated accept relayed to
            # everyone would let one client flood every screen; chat is rate-limited)
            fx.replies.append(Reply(conn, self._message(None)))
            return fx
        v.votes[seat] = accept
        if not accept:
            return self._end("refused")
        if all(a is True for a in v.votes.values()):
            self.agreed = dict(v.votes)
            # stored, then told, and dissolved when nothing is hidden by a pause or a
            # window (a restart in between carries it out: server/restore.py)
            votes = tuple((str(k), a) for k, a in v.votes.items())
            fx.writes.append(AgreeDissolution(self.t.match_id, votes))
            fx.cancel.append(VOTE_TIMER)
            fx.messages.append(self._message("dissolved"))
            fx.then.append(C.TryDissolve())
            return fx
        fx.messages.append(self._message(None))
        return fx

    def _end(self, outcome: str) -> Effects:
        """The vote is over without agreement: play goes on."""
        v = self.vote
        assert v is not None
        self.cooldown[v.proposer] = self.t.clock.now() + PROPOSE_COOLDOWN_S
        fx = Effects(cancel=[VOTE_TIMER], messages=[self._message(outcome)])
        self.vote = None
        return fx

    def lapsed(self, token: int) -> Effects:
        """``VoteLapsed``: the vote numbered ``token`` ran out of time, unless it is over."""
        v = self.vote
        if v is None or v.token != token or self.agreed is not None:
            return Effects()
        if self.t.status == "closed":
            self.vote = None
            return Effects()
        return self._end("expired")

    # ------------------------------------------------------------------ the dissolution

    def _later(self, delay: float) -> Effects:
        """Look again when the pause ends (exactly then: a recheck later would put the
        dissolution after the next state for some pauses only), or, while a claim window
        is open past it (its end is not known yet), in RECHECK_S."""
        when = delay if delay > 0 else RECHECK_S
        return Effects(timers=[(DISSOLVE_TIMER, when, C.TryDissolve())])

    async def try_dissolve(self) -> Effects:
        """Dissolve an agreed match, when nothing is hidden by a pause or a window: the
        dissolution's ``Effects`` (server/effects.py) — the hand's events so far and the
        dissolution in one transaction (the hand void, its note, the match, the table), then
        ``hand_void`` and ``match_end``, then the close — which the actor carries out, writes
        first. None yet (empty effects) while a pause or a window is open: looked at again
        then. Decided again after a store fault (the table's ``Recover``): nothing of a
        failed dissolution was applied, and the store records it once."""
        t = self.t
        votes = self.agreed
        if votes is None:
            return Effects()
        if t.status == "closed":
            self.agreed = None
            self.vote = None
            return Effects()
        h = t.hand
        if h is not None and not h.end_sent:
            g = h.game
            if vis.in_window(g.phase) and not g.is_over():
                # the hand is void whatever they answer: a seat still asked in the open
                # window passes now (as a leaver's pending answer does, D-24), so nobody
                # waits out a prompt the client no longer shows (docs/protocol.md); a pass
                # at once is an answer any player may give, so the window's law is kept
                for seat in sorted(g.to_act()):
                    answer = next((a for a in g.legal_actions(seat) if a.type == "pass"), None)
                    if answer is not None:
                        await t.apply_for(seat, answer)
                if t.hand is not h or h.end_sent:
                    return Effects()
            now = t.clock.now()
            # R12: as ``seats`` updates, nothing changes for others inside a pause or an open
            # window; a hand whose end is decided ends first (its hand_end is due once the
            # pause is over: the pump sends it), then the match is dissolved
            if g.is_over() or vis.quiet(t.status == "playing", now, h.hold_until, g.phase):
                return self._later(h.hold_until - now)
        elif t.status not in ("playing", "between"):
            return Effects()
        hand_id = h.id if h is not None and not h.end_sent else None
        m = t.match
        totals = list(m.totals) if m is not None else [0] * t.cfg.players
        played = m.hands_played if m is not None else 0
        fx = Effects(hand_done=True)
        if h is not None and hand_id is not None:
            fx.writes.append(Flush(h))  # its events so far (not over: nothing is settled)
        fx.writes.append(
            RecordDissolution(
                match_id=t.match_id,
                hand_id=hand_id,
                votes=tuple((str(k), v) for k, v in votes.items()),
                totals=tuple(totals),
                hands_played=played,
            )
        )
        if h is not None and hand_id is not None:
            fx.voided = h
            # R12: its seed revealed, as for any void hand (server/finisher.py)
            msg = {"type": "hand_void", "table": t.id, "hand": hand_id, "leaver": None}
            msg["seed"] = h.game.seed
            fx.messages.append(Settled({**msg, "dissolved": True}, hand_id, "void"))
        fx.messages.append(t.finisher.match_end_message(totals, None, dissolved=True))
        fx += t.finisher.close("dissolved")
        return fx
