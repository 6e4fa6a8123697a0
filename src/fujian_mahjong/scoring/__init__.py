"""R7 specials, R10 scoring (one formula per profile) and R11 settlement."""

from fujian_mahjong.scoring.score import (
    SPECIAL_NAMES,
    Score,
    Term,
    detect_specials,
    score,
)
from fujian_mahjong.scoring.settlement import (
    LEVELS,
    Level,
    Settlement,
    level_for,
    settle,
    settle_leaver,
    update_rating,
)
from fujian_mahjong.scoring.situation import (
    SELF_DRAW_KINDS,
    WIN_KINDS,
    MeldIn,
    Situation,
    situation_from_json,
)

__all__ = [
    "LEVELS",
    "SELF_DRAW_KINDS",
    "SPECIAL_NAMES",
    "WIN_KINDS",
    "Level",
    "MeldIn",
    "Score",
    "Settlement",
    "Situation",
    "Term",
    "detect_specials",
    "level_for",
    "score",
    "settle",
    "settle_leaver",
    "situation_from_json",
    "update_rating",
]
