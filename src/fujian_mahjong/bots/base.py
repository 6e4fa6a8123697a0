"""The bot protocol: a bot sees only its seat's view (R12) and returns one action."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong._compiled import reduce_dataclass
from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.errors import MahjongError

if TYPE_CHECKING:
    from fujian_mahjong.engine.game import Game


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's choice with a short explanation (shown by clients as a hint)."""

    action: Action
    reason: str
    reason_zh: str = ""

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled

    def explain(self, lang: str = "en") -> str:
        """The reason in the client's language (zh falls back to English)."""
        return self.reason_zh if lang == "zh" and self.reason_zh else self.reason


class Bot(Protocol):
    """Anything with ``name`` and ``act(view) -> Decision``. Bots keep no hidden state
    beyond what they saw."""

    name: str

    def act(self, view: SeatView) -> Decision: ...


class RandomBot:
    """Uniform over the legal actions, seeded."""

    name = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(f"random-bot:{seed}")

    def act(self, view: SeatView) -> Decision:
        legal = view.legal
        return Decision(legal[_below(self.rng, len(legal))], "random choice", "随机选择")


def _below(rng: random.Random, n: int) -> int:
    """A uniform index in 0..n-1 drawn exactly as ``rng.choice`` draws it (CPython's
    ``_randbelow_with_getrandbits``), so the random bot's choices are unchanged; compiled,
    this skips two layers of Python calls per decision."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def play_out(game: Game, bots: Sequence[Bot], limit: int = 5000) -> int:
    """Let ``bots[s]`` decide for seat ``s`` (from its seat view, R12) until the hand is
    over; returns the number of decisions. Raises MahjongError after ``limit`` decisions
    (a hand that does not end is an engine bug). The simulator's loop, compiled with the
    engine."""
    n = 0
    while not game.is_over():
        s = game.to_act()[0]
        game.apply(s, bots[s].act(game.seat_view(s)).action)
        n += 1
        if n > limit:
            raise MahjongError(f"the hand does not end (over {limit:,} decisions)")
    return n
