"""R12: a seat's view for bots — the same information as ``Game.view(seat)``, but as an
object with cheap accessors (the simulator asks for thousands per second).

It exposes only what the seat may see: its own concealed tiles, everyone's melds (a
concealed kong's kind is hidden from the others), discards and flowers, the gold, tile
counts, dice and public declarations, and its own legal actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.events import Phase

if TYPE_CHECKING:
    from fujian_mahjong.engine.game import Game
    from fujian_mahjong.rules import Profile

# Compiled, a Final is a C static (see engine/game.py)
_TURN: Final = Phase.TURN
_CLAIMS: Final = Phase.CLAIMS
_OVER: Final = Phase.OVER


class SeatView:
    """Read-only view of one seat (R12)."""

    __slots__ = ("_g", "legal", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._g = game
        self.seat = seat
        self.legal: list[Action] = game.legal_actions(seat)

    # own information
    @property
    def counts(self) -> list[int]:
        """Own concealed tiles as 34 counts (a copy): the 27 suited kinds, then the honours
        1z–7z (always 0 where the profile treats honours as flowers, R1)."""
        return list(self._g.counts[self.seat])

    @property
    def keys(self) -> tuple[int, int, int]:
        """Analysis keys of the natural (non-gold) suited tiles: m, p, s."""
        k = self._g.keys[self.seat]
        return k[0], k[1], k[2]

    @property
    def kh(self) -> int:
        """Analysis key of the natural honours (0 unless honours are playable)."""
        return self._g.keys[self.seat][3]

    @property
    def honours_playable(self) -> bool:
        """R1: does this profile play 东南西北中发白 as ordinary tiles?"""
        return self._g.profile.honours_playable

    @property
    def playable_kinds(self) -> int:
        """R1: 27, or 34 where honours are playable."""
        return self._g.profile.playable_kinds

    @property
    def drawn(self) -> int:
        """The tile just drawn by this seat at its own turn, else -1."""
        g = self._g
        return g.last_drawn if g.phase is _TURN and g.turn == self.seat and g.drew_this_turn else -1

    # public information
    @property
    def players(self) -> int:
        return self._g.n

    @property
    def profile_name(self) -> str:
        return self._g.profile.name

    @property
    def profile(self) -> Profile:
        """The table's rules (public: every seat plays by them), also a user's own profile
        file, which no name lookup finds."""
        return self._g.profile

    @property
    def gold(self) -> int:
        return self._g.gold

    @property
    def dealer(self) -> int:
        return self._g.dealer

    @property
    def live(self) -> int:
        return self._g.live

    @property
    def phase(self) -> Phase:
        return self._g.phase

    @property
    def claim(self) -> tuple[int, int]:
        """(discarder, tile) of the discard being answered, or (-1, -1)."""
        g = self._g
        if g.phase is _CLAIMS:
            return g.claim_from, g.claim_tile
        return -1, -1

    def melds(self, seat: int) -> list[tuple[str, tuple[int, ...]]]:
        """Each meld of ``seat`` as (type, tiles); another seat's concealed kong has no tiles
        until the hand is over (R12, as ``Game.view``)."""
        hide = seat != self.seat and self._g.phase is not _OVER
        out: list[tuple[str, tuple[int, ...]]] = []
        for m in self._g.melds[seat]:
            if hide and m.type == "kong_concealed":
                out.append((m.type, ()))
            else:
                out.append((m.type, m.tiles))
        return out

    def exposed(self, seat: int) -> int:
        return len(self._g.melds[seat])

    def discards(self, seat: int) -> list[int]:
        return list(self._g.discards[seat])

    def flowers(self, seat: int) -> list[int]:
        return list(self._g.flowers[seat])

    def hand_size(self, seat: int) -> int:
        return self._g.hand_size(seat)

    def visible_counts(self) -> list[int]:
        """How many copies of each of the 34 suited and honour kinds this seat can see (own
        hand, melds, discards, the gold indicator)."""
        g = self._g
        c = list(g.counts[self.seat])
        for s in range(g.n):
            for k in g.discards[s]:
                c[k] += 1
            for _t, tiles in self.melds(s):
                for k in tiles:
                    c[k] += 1
        if g.indicator >= 0:
            c[g.indicator] += 1
        return c

    def xian_jin(self, seat: int) -> bool:
        return self._g.xian_jin[seat]

    def gold_discarded(self, seat: int) -> bool:
        return self._g.gold_discarded[seat]

    def special_value(self, key: str) -> int:
        return self._g.profile.special_value(key)

    @property
    def gold_discard_rule(self) -> str:
        return self._g.profile.gold_discard

    @property
    def has_special(self) -> tuple[str, ...]:
        return self._g.profile.specials

    def to_json(self) -> dict[str, Any]:
        """The plain JSON view (``Game.view``)."""
        return self._g.view(self.seat)
