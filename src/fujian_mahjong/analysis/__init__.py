"""R7 hand analysis with golds, built on per-suit lookup tables (查表法)."""

from fujian_mahjong.analysis.core import (
    Decomposition,
    Group,
    decompositions,
    is_any_tile_ready,
    is_ready,
    is_win,
    is_win_keys,
    need_keys,
    shanten,
    shanten_keys,
    split_keys,
    waits,
    waits_keys,
)

__all__ = [
    "Decomposition",
    "Group",
    "decompositions",
    "is_any_tile_ready",
    "is_ready",
    "is_win",
    "is_win_keys",
    "need_keys",
    "shanten",
    "shanten_keys",
    "split_keys",
    "waits",
    "waits_keys",
]
