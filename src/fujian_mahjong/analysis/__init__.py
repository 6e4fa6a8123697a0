"""R7 hand analysis with golds, built on per-suit lookup tables (查表法).

Honours (1z–7z) are a pong/pair-only suit where the profile plays them (R1 ``honours``).
"""

from fujian_mahjong.analysis.core import (
    NUM_PLAYABLE,
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
    split_keys34,
    waits,
    waits_keys,
)

__all__ = [
    "NUM_PLAYABLE",
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
    "split_keys34",
    "waits",
    "waits_keys",
]
