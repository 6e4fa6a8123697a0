"""Bots: the protocol, RandomBot and HeuristicBot (they see only a seat view, R12)."""

from collections.abc import Callable

from fujian_mahjong.bots.base import Bot, Decision, RandomBot
from fujian_mahjong.bots.heuristic import HeuristicBot

BOT_KINDS: dict[str, Callable[[int | str], Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(kind: str, seed: int | str = 0) -> Bot:
    """A bot by name (``random`` or ``heuristic``)."""
    try:
        return BOT_KINDS[kind](seed)
    except KeyError:
        from fujian_mahjong.errors import MahjongError

        raise MahjongError(
            f"unknown bot kind {kind!r}; expected one of {', '.join(BOT_KINDS)}"
        ) from None


__all__ = ["BOT_KINDS", "Bot", "Decision", "HeuristicBot", "RandomBot", "make_bot"]
