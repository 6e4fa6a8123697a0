"""Bots (they see only a seat view, R12) and the difficulty ladder (docs/bots.md).

Bot kinds, weakest first: ``random``, ``greedy`` (新手), ``heuristic`` (普通), ``neural``
(熟手: a policy network played in numpy, ``bots/neural.py``, imported when one is made; it
imitates the 高手 and sits between the 普通 and the 高手 in duplicate, docs/bots.md "The
neural bot"), ``strong`` (高手, ``bots/strong.py``, imported when a strong bot is made), and
the frozen reference ``heuristic-v1`` (the heuristic before the ladder, never changed: the
baseline of every "against today's heuristic" figure).
"""

from collections.abc import Callable

from fujian_mahjong.bots.base import Bot, Decision, RandomBot
from fujian_mahjong.bots.greedy import GreedyBot
from fujian_mahjong.bots.heuristic import HeuristicBot
from fujian_mahjong.bots.heuristic_v1 import HeuristicV1Bot


def _strong(seed: int | str = 0) -> Bot:
    """``strong``: ``fujian_mahjong.bots.strong.StrongBot``, imported on first use."""
    from fujian_mahjong.bots.strong import StrongBot

    bot: Bot = StrongBot(seed)
    return bot


def _neural(seed: int | str = 0) -> Bot:
    """``neural``: ``fujian_mahjong.bots.neural.NeuralBot`` (numpy), imported on first use.

    Imported by name: the mypyc build (setup.py) type-checks what the compiled modules
    import, in a build environment without numpy, and this package is one of them."""
    import importlib

    bot: Bot = importlib.import_module("fujian_mahjong.bots.neural").NeuralBot(seed)
    return bot


BOT_KINDS: dict[str, Callable[[int | str], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "heuristic": HeuristicBot,
    "strong": _strong,
    "heuristic-v1": HeuristicV1Bot,
    "neural": _neural,
}

# The ladder in order of strength (the kinds a player chooses from; heuristic-v1 is a
# reference, not a level).
# neural sits between heuristic and strong: in 1 v 3 duplicate (fuzhou-tcy) it scores +0.53
# [+0.08, +0.99] a hand against three heuristic and −0.33 [−0.57, −0.10] against three strong
# (docs/bots.md, "The neural bot").
LADDER: tuple[str, ...] = ("random", "greedy", "heuristic", "neural", "strong")


# A fixed rating per kind for the platform's skill rating (server/rating.py: openskill's
# Plackett-Luce, mu 25, sigma 25/3): measured in duplicate by ``python bench/ladder.py``
# (docs/bots.md, "The difficulty ladder"). heuristic is 25; another kind is
# 25 + c·ln(P / (1 − P)), P the chance that one of its seats ends a hand above one of
# heuristic's in their 2 v 2 match (fuzhou-tcy, 2,000 deals; strong 200), c = 2·√(β² + 1),
# β = 25/6; sigma 1 (the bots are fixed anchors). strong scores more points than heuristic
# (+0.44 ± 0.56 a hand over 200 deals) but places above it slightly less often (0.498: it
# passes some discard wins to wait for a self-draw, so it wins less often, for more): its
# rating follows the placements.
BOT_RATINGS: dict[str, tuple[float, float]] = {
    "random": (17.0, 1.0),
    "greedy": (23.4, 1.0),
    "heuristic": (25.0, 1.0),
    "strong": (24.9, 1.0),
    "heuristic-v1": (24.6, 1.0),
    # neural: +0.54 ± 0.26 points a hand 2 v 2, yet above a heuristic seat 0.499 of the time
    "neural": (25.0, 1.0),
}


def make_bot(kind: str, seed: int | str = 0) -> Bot:
    """A bot by name (a key of :data:`BOT_KINDS`)."""
    try:
        return BOT_KINDS[kind](seed)
    except KeyError:
        from fujian_mahjong.errors import MahjongError

        raise MahjongError(
            f"unknown bot kind {kind!r}; expected one of {', '.join(BOT_KINDS)}"
        ) from None


__all__ = [
    "BOT_KINDS",
    "BOT_RATINGS",
    "LADDER",
    "Bot",
    "Decision",
    "GreedyBot",
    "HeuristicBot",
    "HeuristicV1Bot",
    "RandomBot",
    "make_bot",
]
