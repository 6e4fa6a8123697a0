"""R12: the spectator's view — public information only, built by an allow-list.

A spectator sees what every seat sees of the others: melds (a concealed kong face down),
discards and flowers, the gold and its indicator, tile counts, dice and public declarations;
never a concealed tile or the wall order before the hand ends (then all hands are revealed).

:func:`spectator_view` copies from a seat's view (``Game.view``) only the keys listed in
:data:`PUBLIC_KEYS` (and, once the hand is over, :data:`END_KEYS`), and fills the seat's own
keys with what a spectator has: no seat, no hand, no drawn tile, nothing to do. A key added
to ``Game.view`` later is therefore not shown to spectators until someone lists it here.

This module is not compiled with mypyc (see ``fujian_mahjong/_compiled.py``): it is called
once per message, not once per decision of a simulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fujian_mahjong.engine.game import Game

__all__ = ["END_KEYS", "PUBLIC_KEYS", "spectator_view"]

# R12: the keys of a seat's view that every seat sees alike (none depends on the seat)
PUBLIC_KEYS: tuple[str, ...] = (
    "profile",
    "players",
    "dealer",
    "streak",
    "dice",
    "gold",
    "indicator",
    "phase",
    "turn",
    "hand_sizes",
    "flowers",
    "discards",
    "live",
    "reserve",
    "wall",
    "last_group",
    "last_discard",
    "xian_jin",
    "jin_kan",
    "gold_discarded",
)

# R12: public once the hand is over (all hands revealed, the result and its score)
END_KEYS: tuple[str, ...] = ("hands", "result", "score")


def spectator_view(game: Game) -> dict[str, Any]:
    """What a spectator of ``game`` may see (R12), in the shape of ``Game.view``.

    ``seat`` is None, ``to_act`` and ``legal_actions`` are empty (who must answer a discard
    is private, R12 revision 2), ``hand`` is empty and ``drawn`` None; every seat's melds are
    shown as its opponents see them (a concealed kong's tiles are None). Once the hand is over
    the view adds ``hands``, ``result`` and ``score``, concealed kongs are shown, and
    ``hand`` is seat 0's revealed hand (as the table server has always sent)."""
    over = game.is_over()
    seen = game.view(0)  # any seat's: the allow-listed keys are the same for every seat
    v: dict[str, Any] = {"seat": None}
    for k in PUBLIC_KEYS:
        v[k] = seen[k]
    v["to_act"] = []
    v["hand"] = seen["hand"] if over else ""
    # R12: a concealed kong is face down for everyone but its owner until the end
    v["melds"] = [[m.to_json(hidden=not over) for m in game.melds[s]] for s in range(game.n)]
    v["legal_actions"] = []
    v["drawn"] = None
    if over:
        for k in END_KEYS:
            v[k] = seen[k]
    return v
