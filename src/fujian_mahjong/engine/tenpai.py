"""A seat's 听牌 facts from its own view (R7: waits with the golds; R12: from its own tiles
only): its waits when its concealed hand is ready, and on its own turn the discards that
leave it ready (听牌提示). The table server sends them in the seat's state (docs/protocol.md)
and the terminal client shows them (docs/terminal.md)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from fujian_mahjong.analysis import shanten, waits
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import get_profile
from fujian_mahjong.tiles import KIND_STR, counts_of, parse, parse_kind


def seat_waits(view: dict[str, Any]) -> list[str] | None:
    """The waits of this seat's concealed hand when it is ready (from its own tiles only)."""
    try:
        exposed = len(view["melds"][view["seat"]])
        w = _waits(view.get("hand") or "", view.get("gold") or "", str(view["profile"]), exposed)
    except (KeyError, TypeError, IndexError):
        return None
    return list(w) if w else None


def seat_ready_discards(view: dict[str, Any]) -> dict[str, list[str]] | None:
    """On the seat's own turn (a discard to make): each discard that leaves its concealed
    hand ready, with the waits it would have then — from its own tiles only, as
    :func:`seat_waits` (R7: waits with the golds). None when it has no discard to make or
    none leaves it ready. The web client marks those tiles (听牌提示)."""
    try:
        kinds = tuple(
            sorted({a["tile"] for a in view.get("legal_actions") or () if a["type"] == "discard"})
        )
        if not kinds:
            return None
        found = _ready_discards(
            view.get("hand") or "",
            view.get("gold") or "",
            str(view["profile"]),
            len(view["melds"][view["seat"]]),
            kinds,
        )
    except (KeyError, TypeError, IndexError):
        return None
    return {k: list(w) for k, w in found} or None


@lru_cache(maxsize=4096)
def _ready_discards(
    hand_text: str, gold_text: str, profile: str, exposed: int, kinds: tuple[str, ...]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """:func:`seat_ready_discards` of one hand (a pure function of its text). A hand whose
    best discard leaves it short of ready (its shanten above 0) is answered at once: so is
    about three own turns in four, at a few microseconds."""
    try:
        playable = _playable(hand_text, gold_text, profile)
        if playable is None or len(playable[0]) % 3 != 2:
            return ()
        hand, gold, honours, size = playable
        if shanten(counts_of(hand, size), gold, exposed, honours=honours) > 0:
            return ()
        out = []
        for k in kinds:
            rest = list(hand)
            rest.remove(parse_kind(k))
            w = _waits("".join(KIND_STR[x] for x in rest), gold_text, profile, exposed)
            if w:
                out.append((k, w))
    except (MahjongError, KeyError, TypeError, IndexError, ValueError):
        return ()
    return tuple(out)


@lru_cache(maxsize=8192)
def _waits(hand_text: str, gold_text: str, profile: str, exposed: int) -> tuple[str, ...]:
    """:func:`seat_waits` of one hand (a pure function of its text, so kept: a state is sent
    to every seat after every decision, and most of them leave the seat's hand as it was)."""
    try:
        playable = _playable(hand_text, gold_text, profile)
        if playable is None or len(playable[0]) % 3 != 1:
            return ()
        hand, gold, honours, size = playable
        w = waits(counts_of(hand, size), gold, exposed, honours=honours)
    except (MahjongError, KeyError, TypeError, IndexError):
        return ()
    return tuple(KIND_STR[k] for k in w)


def _playable(
    hand_text: str, gold_text: str, profile: str
) -> tuple[list[int], int | None, bool, int] | None:
    """A hand's text as kinds, with its gold, whether the profile plays the honours and the
    number of kinds (R1 rev 2: fuzhou-doudou plays the honours, 34 kinds; elsewhere they are
    flowers, 27); None when a tile of the hand or the gold cannot be played there."""
    hand = parse(hand_text)
    gold = parse_kind(gold_text) if gold_text else None
    honours = get_profile(profile).honours == "playable"
    if not honours and (any(k >= 27 for k in hand) or (gold is not None and gold >= 27)):
        return None
    return hand, gold, honours, 34 if honours else 27
