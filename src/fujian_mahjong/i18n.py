"""One zh/en message table for user-facing text (STYLE.md)."""

from __future__ import annotations

MESSAGES: dict[str, tuple[str, str]] = {
    # analyze
    "hand": ("手牌", "Hand"),
    "gold": ("金", "Gold"),
    "golds_in_hand": ("手中金数", "Golds in hand"),
    "exposed": ("已有副露", "Exposed melds"),
    "win": ("胡牌", "Winning hand"),
    "waits": ("听牌", "Waits"),
    "ready": ("听牌状态", "Ready"),
    "any_tile_ready": ("闲金(听全部27种)", "Ready on any tile (闲金)"),
    "shanten": ("向听数", "Shanten"),
    "decompositions": ("拆分", "Decompositions"),
    "pair": ("将", "pair"),
    "yes": ("是", "yes"),
    "no": ("否", "no"),
    "none": ("无", "none"),
    "gold_as": ("金作", "gold as"),
    "chow": ("吃", "chow"),
    "pong": ("碰", "pong"),
    "kong": ("杠", "kong"),
    "more": ("另有 {n} 种", "{n} more"),
}


def t(key: str, lang: str = "zh", **kw: object) -> str:
    """Translate a message key."""
    zh, en = MESSAGES[key]
    text = zh if lang == "zh" else en
    return text.format(**kw) if kw else text
