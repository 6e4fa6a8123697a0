"""A table's time (docs/architecture.md): the timers of one table on its ``Clock`` — each
human's deadline, the bots' and 托管 seats' delays, the end of the claim pause, a
disconnected player's grace period (R11) and the retry after a store fault. A timer never
runs anything itself: it posts a command to the table's queue, so everything still happens
inside the actor, one thing at a time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.engine import Action, Game
from fujian_mahjong.server.clock import Clock, Timer
from fujian_mahjong.server.visibility import in_window

Command = Callable[[], Awaitable[None]]


class SeatLike(Protocol):
    bot: bool
    auto: bool
    auto_hidden: bool

    @property
    def human(self) -> bool: ...


class Scheduler:
    """Named timers (one per key: ``("act", seat)``, ``("grace", seat)``, ``"hold"``,
    ``"retry"``), the decision point an automatic action is due at per seat, and each
    human's deadline ``(decision point, time)``."""

    def __init__(self, clock: Clock, post: Callable[[Command], None]) -> None:
        self.clock = clock
        self.post = post
        self.timers: dict[Any, Timer] = {}
        self.scheduled: dict[int, int] = {}  # seat -> decision point an automatic act is due at
        self.deadlines: dict[int, tuple[int, float]] = {}  # seat -> (decision point, deadline)
        self.bot = HeuristicBot()

    # ------------------------------------------------------------------ timers

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

    def cancel_all(self) -> None:
        for t in self.timers.values():
            t.cancel()
        self.timers.clear()

    def clear_acts(self) -> None:
        """The hand is over (or the store failed): no automatic act, no deadline, no pause."""
        for key in [
            k for k in self.timers if k == "hold" or (isinstance(k, tuple) and k[0] == "act")
        ]:
            self.cancel(key)
        self.scheduled.clear()
        self.deadlines.clear()

    def forget(self, seat: int) -> None:
        """The seat acted (or its plan changed): plan it again at the next pump."""
        self.scheduled.pop(seat, None)
        self.deadlines.pop(seat, None)

    # ------------------------------------------------------------------ deadlines

    def deadline_ms(self, seat: int, key: int) -> int | None:
        d = self.deadlines.get(seat)
        if d is None or d[0] != key:
            return None
        return max(0, int((d[1] - self.clock.now()) * 1000))

    def ensure_deadline(
        self, seat: int, s: SeatLike, key: int, phase: str, window_key: int, turn_seconds: float
    ) -> None:
        d = self.deadlines.get(seat)
        if d is not None and d[0] == key:
            return
        if d is not None and in_window(phase) and d[0] >= window_key:
            # the same claim window (another seat answered meanwhile): same deadline
            self.deadlines[seat] = (key, d[1])
        elif s.human and (not s.auto or s.auto_hidden):
            self.deadlines[seat] = (key, self.clock.now() + turn_seconds)

    # ------------------------------------------------------------------ automatic acts

    def plan(
        self,
        to_act: Iterable[int],
        seats: list[Any],
        key: int,
        phase: str,
        window_key: int,
        window_asked: frozenset[int],
        held: bool,
        bot_delay_s: float,
        turn_seconds: float,
        command: Callable[[int, int], Command],
    ) -> None:
        """Bots, 托管 seats and deadlines: one timer per seat that must act."""
        window = in_window(phase)
        for seat in to_act:
            if held and not (window and seat in window_asked):
                continue  # nobody moves on before the pause ends
            if self.scheduled.get(seat) == key:
                continue
            s = seats[seat]
            if s.bot or (s.auto and not s.auto_hidden):
                # answers inside a claim window are hidden by the pause: no delay needed (a
                # 托管 seat answering late would make the window close late just when it
                # was asked, R12 rev 2)
                delay = 0.0 if window else bot_delay_s
            else:
                self.ensure_deadline(seat, s, key, phase, window_key, turn_seconds)
                delay = self.deadlines[seat][1] - self.clock.now()
            self.scheduled[seat] = key
            if delay <= 0:
                # straight into the queue (bots at full speed): no timer to create or cancel
                self.cancel(("act", seat))
                self.post(command(seat, key))
            else:
                self.later(("act", seat), delay, command(seat, key))

    def auto_action(self, g: Game, seat: int, bot: bool) -> Action:
        """A bot plays its own game; a human's seat at a deadline: claims → pass, own turn →
        win if possible, else the heuristic bot's choice."""
        legal = g.legal_actions(seat)
        if not bot:
            if in_window(g.phase):
                for a in legal:
                    if a.type == "pass":
                        return a
            for a in legal:
                if a.type == "win":
                    return a
        return self.bot.act(g.seat_view(seat)).action
