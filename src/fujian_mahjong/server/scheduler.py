"""A table's time (docs/architecture.md): the timers of one table on its ``Clock`` — each
human's deadline, the bots' and 托管 seats' delays, the end of the claim pause, a
disconnected player's grace period (R11) and the retry after a store fault. A timer never
runs anything itself: it posts a command to the table's queue, so everything still happens
inside the actor, one thing at a time.

Also here: how long a claim pause holds (``ClaimPace``: the ``fast`` and ``fixed`` claim
windows, R12) and the turns bot-only tables take on the event loop (``BotPacer``), so that
they never hold up a table with humans."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Container, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong.bots import Bot, Decision, make_bot
from fujian_mahjong.engine import Action, Game, Phase, apply_decisions, fresh_game
from fujian_mahjong.server.clock import Clock, Timer
from fujian_mahjong.server.commands import AutoAct, TableCommand
from fujian_mahjong.server.tablestate import TableError
from fujian_mahjong.server.visibility import in_window
from fujian_mahjong.server.workers import WorkerClosed, WorkerError, WorkerPool

if TYPE_CHECKING:
    from fujian_mahjong.server.tablestate import HandState

log = logging.getLogger("fjmj.table")

# what a timer or a plan posts to its table: a command (server/commands.py) or a step
Command = TableCommand | Callable[[], Awaitable[None]]
# a timer to set: its key (one timer per key), its delay in seconds, what it posts
TimerSpec = tuple[Any, float, Command]


class SeatLike(Protocol):
    bot: bool
    auto: bool

    @property
    def human(self) -> bool: ...

    @property
    def away(self) -> bool: ...


class Scheduler:
    """Named timers (one per key: ``("act", seat)``, ``("grace", seat)``, ``"hold"``,
    ``"retry"``), the decision point an automatic action is due at per seat, and each
    human's deadline ``(decision point, time)``."""

    def __init__(
        self, clock: Clock, post: Callable[[Command], None], workers: WorkerPool | None = None
    ) -> None:
        self.clock = clock
        self.post = post
        # the server's worker processes (server/workers.py; set by the lobby): without them
        # a search bot plays the fast bot's moves
        self.workers = workers
        self.timers: dict[Any, Timer] = {}
        self.scheduled: dict[int, int] = {}  # seat -> decision point an automatic act is due at
        self.deadlines: dict[int, tuple[int, float]] = {}  # seat -> (decision point, deadline)
        # one bot per kind (bots keep no per-game state between calls: each decision is
        # made from the seat's view alone, R12); 托管 seats play the default kind
        self.default_kind = "heuristic"
        self.bots: dict[str, Bot] = {}
        # (seat, decision point) -> a search bot's decision (an action's JSON) being made
        # (prethink)
        self.thinking: dict[tuple[int, int], asyncio.Future[dict[str, Any]]] = {}
        # the searches whose move is shown at a fixed moment (a paced table): a search not
        # done by then gives way to the fast bot's move (R12)
        self.paced: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ timers

    def set(self, timers: Iterable[TimerSpec]) -> None:
        """Set these timers (replacing each key's); one due now (a delay of 0 or less: a bot
        at full speed) goes straight into the table's queue, with no timer to create."""
        for key, delay, fn in timers:
            if delay <= 0:
                self.cancel(key)
                self.post(fn)
            else:
                self.later(key, delay, fn)

    def later(self, key: Any, delay: float, fn: Command) -> None:
        """Post ``fn`` to the table ``delay`` seconds from now (replacing ``key``'s timer)."""
        self.cancel(key)

        def fire() -> None:
            self.timers.pop(key, None)
            self.post(fn)

        self.timers[key] = self.clock.call_later(max(0.0, delay), fire)

    def cancel(self, key: Any) -> None:
        t = self.timers.pop(key, None)
        if t is not None:
            t.cancel()

    def cancel_all(self, keep: Container[Any] = ()) -> None:
        """Every timer but those of the keys in ``keep``; the searches under way."""
        for key in [k for k in self.timers if k not in keep]:
            self.timers.pop(key).cancel()
        self.drop_thinking()

    def drop_thinking(self) -> None:
        """Forget the searches under way (the worker may finish one; nobody uses it)."""
        for f in self.thinking.values():
            f.cancel()
        self.thinking.clear()
        self.paced.clear()

    def clear_acts(self) -> None:
        """The hand is over (or the store failed): no automatic act, no deadline, no pause."""
        for key in [
            k for k in self.timers if k == "hold" or (isinstance(k, tuple) and k[0] == "act")
        ]:
            self.cancel(key)
        self.scheduled.clear()
        self.deadlines.clear()
        self.drop_thinking()

    def forget(self, seat: int) -> None:
        """The seat acted (or its plan changed): plan it again at the next pump."""
        self.scheduled.pop(seat, None)
        self.deadlines.pop(seat, None)

    # ------------------------------------------------------------------ deadlines

    def deadline_ms(self, seat: int, key: int) -> int | None:
        d = self.deadlines.get(seat)
        if d is None or d[0] != key:
            return None
        # rounded, not truncated: a deadline set now reads turn_seconds exactly, whatever
        # the clock's float value (else 29999 or 30000 by the time's last bits)
        return max(0, round((d[1] - self.clock.now()) * 1000))

    def ensure_deadline(
        self,
        seat: int,
        s: SeatLike,
        key: int,
        phase: Phase,
        window_key: int,
        turn_seconds: float,
        not_before: float = 0.0,
    ) -> None:
        """A human's deadline for decision point ``key``: ``turn_seconds`` from now, or from
        ``not_before`` when that is later (the end of the hand's opening: no time runs
        while the opening is shown, docs/protocol.md "The opening")."""
        d = self.deadlines.get(seat)
        if d is not None and d[0] == key:
            return
        if d is not None and in_window(phase) and d[0] >= window_key:
            # the same claim window (another seat answered meanwhile): same deadline
            self.deadlines[seat] = (key, d[1])
        elif s.human and not s.auto:
            self.deadlines[seat] = (key, max(self.clock.now(), not_before) + turn_seconds)

    # ------------------------------------------------------------------ automatic acts

    def plan(
        self,
        to_act: Iterable[int],
        seats: list[Any],
        key: int,
        phase: Phase,
        window_key: int,
        window_asked: frozenset[int],
        held: bool,
        bot_delay_s: float,
        turn_seconds: float,
        command: Callable[[int, int], Command],
        game: Game | None = None,
        not_before: float = 0.0,
    ) -> list[TimerSpec]:
        """Bots, 托管 seats and deadlines: one timer per seat that must act, returned as
        (key, delay, command), which the table sets (:meth:`plan_hand`, then
        :meth:`set`). A search bot
        (``game`` given) starts thinking now, on a copy of the game, while its delay runs
        (:meth:`prethink`). ``not_before``: the end of the hand's opening — no bot or 托管
        seat acts on its own turn before it, and a human's time starts then (an answer
        inside a claim window, hidden by the pause, is not held)."""
        window = in_window(phase)
        now = self.clock.now()
        timers: list[TimerSpec] = []
        for seat in to_act:
            if held and not (window and seat in window_asked):
                continue  # nobody moves on before the pause ends
            if self.scheduled.get(seat) == key:
                continue
            s = seats[seat]
            slow = s.bot and getattr(s, "bot_kind", None) in SLOW_KINDS
            # a seat whose player is away (its socket closed: everyone sees it) answers a
            # window inside the pause too, the bot playing for it (R11; TableActor._auto_act):
            # kept to a human's deadline, a window would last turn_seconds exactly when that
            # seat could claim (R12 rev 2)
            if s.bot or s.auto or (window and s.away):
                # answers inside a claim window are hidden by the pause: no delay needed (a
                # 托管 seat answering late would make the window close late just when it
                # was asked, R12 rev 2)
                delay = 0.0 if window else bot_delay_s
                if slow and not window and bot_delay_s > 0:
                    # a search bot's own move is shown after at least its longest search
                    # (R12: a move shown later when the bot searched would tell everyone
                    # that its hand held a tile worth weighing); at tables paced at 0
                    # (bots at full speed) nothing is paced
                    delay = max(delay, SEARCH_SHOWN_AFTER_S)
                if not window:
                    delay = max(delay, not_before - now)  # the opening is being shown
            else:
                self.ensure_deadline(seat, s, key, phase, window_key, turn_seconds, not_before)
                delay = self.deadlines[seat][1] - now
            self.scheduled[seat] = key
            if game is not None and slow and not window:
                self.prethink(game, seat, key, s.bot_kind)
                if bot_delay_s > 0:
                    self.paced.add((seat, key))
            timers.append((("act", seat), delay, command(seat, key)))
        return timers

    def plan_hand(
        self,
        h: HandState,
        held: bool,
        seats: list[Any],
        bot_delay_s: float,
        turn_seconds: float,
        not_before: float,
    ) -> list[TimerSpec]:
        """:meth:`plan` for the hand in progress: its seats to act at its decision point
        (the number of its events), each timer posting ``AutoAct``."""
        g = h.game
        return self.plan(
            g.to_act(),
            seats,
            len(g.events),
            g.phase,
            h.window_key,
            h.window_asked,
            held,
            bot_delay_s,
            turn_seconds,
            AutoAct,
            g,
            not_before,
        )

    def bot(self, kind: str | None = None) -> Bot:
        """The bot of this kind (None: the default kind)."""
        k = kind or self.default_kind
        b = self.bots.get(k)
        if b is None:
            b = self.bots[k] = make_bot(k, 0)
        return b

    def auto_action(self, g: Game, seat: int, bot: bool, kind: str | None = None) -> Action:
        """A bot plays its own game; a human's seat at a deadline (or 托管): claims → pass
        (a missed claim prompt is a pass and nothing more, docs/protocol.md), own turn →
        win if possible, else the default bot's choice."""
        legal = g.legal_actions(seat)
        if not bot:
            if in_window(g.phase):
                for a in legal:
                    if a.type == "pass":
                        return a
            for a in legal:
                if a.type == "win":
                    return a
            kind = None
        return self.bot(kind).act(g.seat_view(seat)).action

    def prethink(self, g: Game, seat: int, key: int, kind: str | None) -> None:
        """Start a search bot's decision at decision point ``key`` in a worker process, on
        the game rebuilt from its log (the table goes on meanwhile: chat, other seats'
        answers). It
        thinks while its bot delay runs, so the moment its move is shown does not depend
        on how long it thought (R12: a search's length depends on the bot's hand) unless
        the search outlasts the delay; and the table's queue never waits for it then
        either, except at the moment the move is due."""
        stale = [k for k in self.thinking if k[0] == seat and k[1] != key]
        for k in stale:
            self.thinking.pop(k).cancel()
        self.paced = {k for k in self.paced if k[0] != seat or k[1] == key}
        if (seat, key) in self.thinking:
            return
        # in a worker process (a search is pure Python: in a thread it would hold the GIL
        # against the event loop), on the game rebuilt there from its log
        task = asyncio.ensure_future(
            self._in_worker(_think, list(g.events), g.seed, seat, kind or "")
        )
        task.add_done_callback(_retrieved)  # a search given up on may still fail
        self.thinking[(seat, key)] = task

    async def decide(self, g: Game, seat: int, bot: bool, kind: str | None = None) -> Action:
        """:meth:`auto_action`; a search bot (``strong``: up to ~1 s a decision) thinks in
        a worker process (server/workers.py; started by :meth:`prethink` when its act was
        planned) so the event loop keeps serving the other tables."""
        if bot and kind in SLOW_KINDS and in_window(g.phase):
            # an answer to a discard is not searched (the bot's claim screen, bots/strong.py):
            # in this process at once, so a busy worker never holds a claim window open
            # just when a search bot was asked (R12)
            return self.bot(kind).act(g.seat_view(seat)).action
        if bot and kind in SLOW_KINDS:
            key = (seat, len(g.events))
            task = self.thinking.pop(key, None)
            if task is None:
                self.prethink(g, seat, len(g.events), kind)
                task = self.thinking.pop(key)
            if key in self.paced:
                self.paced.discard(key)
                if not task.done():
                    # the move is due now and the search has not come back (a busy or
                    # starting worker): waiting would show that this bot searched (R12),
                    # so the fast bot's move is shown, on time
                    task.cancel()
                    return self.bot(FALLBACK_KIND).act(g.seat_view(seat)).action
            try:
                return Action.from_json(await task)
            except WorkerError as e:
                # stuck (its bot keeps a deadline of well under 1 s) or lost (killed, out
                # of memory): the pool has replaced the process; this move is the fast
                # bot's, made here
                log.warning("search worker: %s; seat %s plays the fast bot's move", e, seat)
                return self.bot(FALLBACK_KIND).act(g.seat_view(seat)).action
        if bot and kind in DRAWING_KINDS:
            # R12: a bot that draws at random draws under the hand's secret seed (published
            # only after the hand), the seat and the decision point, afresh each time: a
            # constant seed shared across seats and hands would let anyone replay the draws
            # (and read from each choice where the tile ranks in the bot's hand), and the
            # draws of a hidden claim answer would shift the next visible choice
            secret = f"{g.seed}:{seat}:{len(g.events)}"
            return make_bot(kind or "", secret).act(g.seat_view(seat)).action
        return self.auto_action(g, seat, bot, kind)

    async def advise(
        self, events: Sequence[Mapping[str, Any]], seed: str, seat: int
    ) -> dict[str, Any]:
        """The hint: the strongest bot that fits a hint's time (docs/bots.md), in the search
        worker process on the hand rebuilt from a copy of its log (``TableActor.hint``): the
        table's actor does not wait for it, and a search in the server's own process would
        hold the GIL against the event loop, so nobody can tell from the table's pace that a
        seat asked. ``{"action", "reason", "reason_zh"}``."""
        try:
            return await self._in_worker(_advise, events, seed, seat)
        except WorkerError as e:  # stuck or lost: the pool has replaced the process
            log.warning("search worker: %s; the hint is the fast bot's", e)
            return _advise(events, seed, seat, FALLBACK_KIND)

    async def _in_worker(self, fn: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
        """``fn(*args)`` in one of the server's worker processes (server/workers.py: a stuck
        one is stopped after ``SEARCH_TIMEOUT_S``, a lost one replaced)."""
        if self.workers is None:
            raise WorkerClosed("no worker pool")
        return await self.workers.run(fn, *args, timeout=SEARCH_TIMEOUT_S)


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


def _rebuilt(events: Sequence[Mapping[str, Any]], seed: str) -> Game:
    return apply_decisions(fresh_game(events, seed=seed), events)


def _think(events: Sequence[Mapping[str, Any]], seed: str, seat: int, kind: str) -> dict[str, Any]:
    """In the search worker: the hand rebuilt from its log and seed (engine.replay's API),
    the bot's choice for ``seat`` as an action's JSON."""
    return make_bot(kind, 0).act(_rebuilt(events, seed).seat_view(seat)).action.to_json()


def _advise(
    events: Sequence[Mapping[str, Any]], seed: str, seat: int, kind: str = ""
) -> dict[str, Any]:
    """In the search worker: the hint bot's choice for ``seat``, with its reasons."""
    d: Decision = make_bot(kind or HINT_KIND, 0).act(_rebuilt(events, seed).seat_view(seat))
    return {"action": d.action.to_json(), "reason": d.reason, "reason_zh": d.reason_zh or d.reason}


# the kinds that search (think for up to a second) and the hint's bot
SLOW_KINDS = frozenset({"strong"})
# the kinds whose choices draw from a random generator (fujian_mahjong.bots)
DRAWING_KINDS = frozenset({"random", "greedy"})
HINT_KIND = "strong"
# the fast bot that stands in when the search worker is lost
FALLBACK_KIND = "heuristic"
# a search bot's own moves are shown this long after they are due, at least: more than its
# longest search (bots/strong.py: ``deadline_s`` 0.6 s) and the worker's start
SEARCH_SHOWN_AFTER_S = 0.75
# a search or a hint not back from its worker this long after the worker took it: the worker
# is stuck (its bot keeps a deadline of well under a second); the pool replaces it and the
# fast bot answers
SEARCH_TIMEOUT_S = 30.0


# the kinds that load a model the first time one is made in a process (bots/neural.py: numpy
# and the network's weights, about 0.2 s)
LOADING_KINDS = frozenset({"neural"})


async def warm_bots(kinds: Iterable[str | None], refuse: bool = True) -> None:
    """Make one bot of each kind that loads a model, in a thread, so that its first decision
    at a table does not stall the event loop, and every other table with it, while the
    model loads. Once a process has one, making another is instant (cached). A model that
    cannot load (``$FJMJ_NEURAL_WEIGHTS`` naming a missing file) is refused in one line
    (``TableError`` ``bot_kind_unavailable``) before a table gets bots that could not play;
    with ``refuse`` false (tables restored after a restart) it is only logged."""
    for kind in sorted({k for k in kinds if k in LOADING_KINDS}):
        try:
            await asyncio.to_thread(make_bot, kind, 0)
        except Exception as e:
            log.exception("bot kind %s: its model does not load", kind)
            if refuse:
                raise TableError(
                    "bot_kind_unavailable",
                    f"bot kind {kind}: this server cannot load its model ({type(e).__name__})",
                ) from None


# ---------------------------------------------------------------------- the claim pause's length

CLAIM_WINDOWS = ("fast", "fixed", "auto")


def claim_window_mode(setting: str, humans: int) -> str:
    """The claim window a table plays: ``fast`` or ``fixed``; ``auto`` (the default) is
    ``fixed`` at a table with two or more humans (someone who could learn from the pause's
    length what another player holds) and ``fast`` otherwise."""
    if setting == "auto":
        return "fixed" if humans >= 2 else "fast"
    if setting not in CLAIM_WINDOWS:
        raise ValueError(f"claim window must be one of {', '.join(CLAIM_WINDOWS)}, not {setting!r}")
    return setting


class ClaimPace:
    """How long the claim pause after a discard (or a deal) holds (R12; docs/architecture.md,
    "How long the claim pause lasts").

    ``fast``: the pause (``claim_pause_ms``) and then as long as the asked seats take to
    answer. A human who deliberates longer than the pause shows everyone that someone was
    asked.

    ``fixed``: every pause lasts ``max(D, X) + E``, drawn from one law whether or not
    anyone was asked. ``D`` is drawn from this table's recent answer times: the last
    ``POOL`` asked windows' ``max(pause, the last answer)``, each capped at ``CAP_S`` (each
    real one replaces a value of a fixed prior until the prior is gone). ``X`` is the
    window's own ``max(pause, the last answer)`` when someone was asked, and a second draw
    from the same pool when nobody was: both kinds of pause are the larger of two answer
    times of this table. One draw alone (``W`` from the pool for an unasked pause, the
    answer itself for an asked one) has the same law at a table of like players, but a seat
    whose own answers stand out (one that always answers at 3.8 s) would know its own values
    among the unasked pauses, and every other seat's windows would not look like them: with
    a draw from the pool on both sides, its values longer than the others' answers end a
    pause where another seat was asked about as often as one where nobody was. Values
    shorter than every other seat's answers still show only where nobody was asked (a
    window is never shorter than its answer): docs/architecture.md. ``E`` is
    uniform in [0, ``JITTER_S``] in both, so a drawn pause never repeats a past one to the
    millisecond. The draws are HMAC-SHA256 under a key derived from the match seed (which
    is never published; only its hands' seeds are), never the ``random`` module: the same
    deal plays the same way in tests, and nobody can predict them.
    """

    POOL = 32
    CAP_S = 4.0
    JITTER_S = 0.2
    # until a table has real windows: answer times of people deciding on a claim (seconds)
    PRIOR_S = (0.0, 0.4, 0.6, 0.8, 1.0, 1.3, 1.7, 2.4)

    def __init__(self, mode: str, pause_s: float, key: bytes) -> None:
        if mode not in ("fast", "fixed"):
            raise ValueError(f"claim pace must be fast or fixed, not {mode!r}")
        self.mode = mode
        self.pause_s = pause_s
        self._key = key
        self._n = 0
        self.pool: deque[float] = deque(
            (min(self.CAP_S, max(pause_s, p)) for p in self.PRIOR_S), maxlen=self.POOL
        )
        self._prior_left = len(self.pool)  # each real window replaces one prior value first

    @staticmethod
    def key_for(match_seed: str, table_id: int, restored: str = "") -> bytes:
        """The draws' key: the match seed's, and for a match taken on after a restart the
        moment of that restore too (``restored``), so its draws never repeat the ones its
        pauses drew from the match's start (which the players saw)."""
        label = f"claim-window:{table_id}" + (f":restored:{restored}" if restored else "")
        return hmac.new(str(match_seed).encode("utf-8"), label.encode(), hashlib.sha256).digest()

    def uniform(self) -> float:
        """The next draw in [0, 1) (HMAC-SHA256 of a counter under the table's key)."""
        self._n += 1
        d = hmac.new(self._key, self._n.to_bytes(8, "big"), hashlib.sha256).digest()
        return int.from_bytes(d[:7], "big") / float(1 << 56)

    def _draw(self) -> float:
        """One of the pool's answer times, uniformly."""
        return self.pool[min(len(self.pool) - 1, int(self.uniform() * len(self.pool)))]

    def begin(self, asked: bool) -> tuple[float, tuple[float, float] | None]:
        """A pause starts: how long it holds from now, and — for a window someone was asked
        in, at a ``fixed`` table — its drawn ``(D, E)``, settled when the window closes
        (``end``)."""
        if self.mode == "fast":
            return self.pause_s, None
        jitter = self.uniform() * self.JITTER_S
        d = self._draw()
        if asked:
            return self.pause_s, (d, jitter)  # at least the pause; settled when it closes
        return max(d, self._draw()) + jitter, None

    def end(self, elapsed: float, drawn: tuple[float, float]) -> float:
        """An asked window closed ``elapsed`` seconds into its pause: the pause's whole
        length from its start, ``max(D, W) + E`` (its ``W = max(pause, elapsed)`` joins the
        pool the draws come from)."""
        w = max(self.pause_s, elapsed)
        if self._prior_left:
            self._prior_left -= 1
            self.pool.popleft()
        self.pool.append(min(self.CAP_S, w))
        d, jitter = drawn
        return max(d, w) + jitter


# ---------------------------------------------------------------------- bot-only tables' turns


class BotPacer:
    """Bot-only tables take turns (shared by every bot-only table of one event loop), so a
    table with humans — its socket's frame, its commit, its messages — never waits behind a
    run of bot work:

    * at most ``per_tick`` bot-table commands start per loop iteration, each after the loop
      has had a turn (its sockets, its timers, the other tables), and
    * at most ``in_flight`` bot-table commands run at once: a command that waits for the
      store (a hand's end, the next hand's row) holds its slot meanwhile, so the store's
      single writer never has more than ``in_flight`` bot transactions queued before a
      human table's commit.

    Alone on the loop, bot tables still run at full speed (one select per iteration)."""

    def __init__(self, per_tick: int = 1, in_flight: int = 1) -> None:
        self.per_tick = max(1, per_tick)
        self.in_flight = max(1, in_flight)
        self.waiters: deque[asyncio.Future[None]] = deque()
        self._tick_scheduled = False
        self._slots: asyncio.Semaphore | None = None
        self.turns = 0  # commands let through (tests, the benchmark)

    @property
    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.in_flight)
        return self._slots

    async def turn(self) -> None:
        """Wait for this table's turn: granted at the loop's next iteration at the soonest,
        after whatever the loop had ready (a socket's frame, a commit, a timer)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self.waiters.append(fut)
        if not self._tick_scheduled:
            self._tick_scheduled = True
            loop.call_soon(self._tick, loop)
        await fut
        self.turns += 1

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        """One loop iteration's budget, handed to the tables waiting longest; the rest
        wait for the next iteration (the loop polls its sockets in between)."""
        self._tick_scheduled = False
        granted = 0
        while self.waiters and granted < self.per_tick:
            fut = self.waiters.popleft()
            if not fut.done():  # a table stopped while waiting
                fut.set_result(None)
                granted += 1
        if self.waiters:
            self._tick_scheduled = True
            loop.call_soon(self._tick, loop)


_pacers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BotPacer] = (
    weakref.WeakKeyDictionary()
)


def bot_pacer() -> BotPacer:
    """The pacer of the running event loop (one per process in a server; one per test's
    ``asyncio.run``)."""
    loop = asyncio.get_running_loop()
    p = _pacers.get(loop)
    if p is None:
        p = _pacers[loop] = BotPacer()
    return p
