"""Where a table's hands come from (a seam).

The default deals as R12 requires: the match seed is 128 bits from :mod:`secrets`, hand k
plays HMAC-SHA256(seed, k) (``engine.match.hand_seed``), and the first dealer is drawn at
random (R2). Tests give a fixed seed or stacked walls (``Game.from_wall``, the scenario
language's walls); neither is reachable from the network or the command line: only the code
that builds the app (``create_app(deals=...)``) can choose them."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Protocol

from fujian_mahjong.engine import Game, Match


class DealSource(Protocol):
    def new_match(self, profile: str, players: int) -> Match:
        """A new match (its seed and first dealer)."""
        ...

    def restore_match(self, profile: str, players: int, seed: str, dealer: int) -> Match:
        """The match a stored row describes (crash restore)."""
        ...

    def next_hand(self, match: Match) -> Game:
        """Deal the match's next hand (the match's ``current`` hand afterwards)."""
        ...


class SecretDeals:
    """R12: unpredictable seeds from :mod:`secrets`, the first dealer at random (R2)."""

    def new_match(self, profile: str, players: int) -> Match:
        return Match(profile, None, players, dealer=secrets.randbelow(players))

    def restore_match(self, profile: str, players: int, seed: str, dealer: int) -> Match:
        return Match(profile, seed, players, dealer=dealer)

    def next_hand(self, match: Match) -> Game:
        return match.next_hand()


class FixedDeals(SecretDeals):
    """A reproducible match: a given seed and first dealer (tests, benchmarks)."""

    def __init__(self, seed: str | int, dealer: int = 0) -> None:
        self.seed = str(seed)
        self.dealer = dealer

    def new_match(self, profile: str, players: int) -> Match:
        return Match(profile, self.seed, players, dealer=self.dealer % players)


class StackedDeals(SecretDeals):
    """Hands on stacked walls (``Game.from_wall``): hand k of a match plays
    ``walls[k % len(walls)]``; the logs verify with ``fjmj replay`` (a stacked hand reveals
    its wall as its seed)."""

    def __init__(
        self,
        walls: Sequence[Sequence[int]],
        dealer: int = 0,
        dice: tuple[int, int] = (1, 1),
    ) -> None:
        if not walls:
            raise ValueError("StackedDeals needs at least one wall")
        self.walls = [list(w) for w in walls]
        self.dealer = dealer
        self.dice = dice

    def new_match(self, profile: str, players: int) -> Match:
        return Match(profile, "stacked", players, dealer=self.dealer % players)

    def next_hand(self, match: Match) -> Game:
        match.next_hand()  # the match's own checks (over, hand unfinished) and bookkeeping
        g = Game.from_wall(
            match.profile,
            self.walls[match.hands_played % len(self.walls)],
            dice=self.dice,
            players=match.players,
            dealer=match.dealer,
            streak=match.streak,
        )
        match.current = g
        return g
