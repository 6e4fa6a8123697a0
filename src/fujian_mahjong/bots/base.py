"""The bot protocol: a bot sees only its seat's view (R12) and returns one action."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.view import SeatView


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's choice with a short explanation (shown by clients as a hint)."""

    action: Action
    reason: str
    reason_zh: str = ""

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
        a = self.rng.choice(view.legal)
        return Decision(a, "random choice", "随机选择")
