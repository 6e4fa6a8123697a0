"""Bots: the protocol, RandomBot and HeuristicBot (they see only a seat view, R12)."""

from fujian_mahjong.bots.base import Bot, Decision, RandomBot
from fujian_mahjong.bots.heuristic import HeuristicBot

BOT_KINDS = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(kind: str, seed: int | str = 0) -> Bot:
    """A bot by name (``random`` or ``heuristic``)."""
    try:
        return BOT_KINDS[kind](seed)  # type: ignore[abstract]
    except KeyError:
        from fujian_mahjong.errors import MahjongError

        raise MahjongError(f"unknown bot kind {kind!r}; expected one of {', '.join(BOT_KINDS)}") from None


__all__ = ["BOT_KINDS", "Bot", "Decision", "HeuristicBot", "RandomBot", "make_bot"]
