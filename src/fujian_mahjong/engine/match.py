"""R9: a match (一局) — a series of hands at one table with dealer rotation and streaks."""

from __future__ import annotations

import random
from typing import Any

from fujian_mahjong.engine.game import Game
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import Profile, get_profile
from fujian_mahjong.scoring import Level, level_for, settle, settle_leaver, update_rating


class Match:
    """Hands at one table. ``next_hand()`` deals, ``record(game)`` settles it (R9, R10)."""

    def __init__(
        self,
        profile: Profile | str = "fuzhou-tcy",
        seed: int | str = 0,
        players: int = 4,
        dealer: int | None = None,
        balances: list[int] | None = None,
        stake: int = 1,
        fee: int = 0,
        cap: int = 0,
        ratings: list[int] | None = None,
    ) -> None:
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        self.seed = str(seed)
        self.players = players
        rng = random.Random(f"match:{self.seed}")
        # R2: the first dealer is chosen at random (sanming: by dice; the same draw here)
        self.dealer = rng.randrange(players) if dealer is None else dealer
        self.streak = 1 if self.profile.streak == "hands_dealt" else 0
        self.totals = [0] * players
        self.hands_played = 0
        self.history: list[dict[str, Any]] = []
        self.over = False
        self.leaver: int | None = None
        self.current: Game | None = None
        # R11: silver balances, the table's stake, service fee and per-hand loss cap
        self.balances = list(balances) if balances is not None else [10_000] * players
        self.stake = stake
        self.fee = fee
        self.cap = cap or self.profile.hand_cap
        self.ratings = list(ratings) if ratings is not None else [0] * players
        if len(self.balances) != players or len(self.ratings) != players:
            raise MahjongError("balances and ratings need one entry per seat")

    def levels(self) -> list[Level]:
        """R11: each seat's level from its rating."""
        return [level_for(r) for r in self.ratings]

    def next_hand(self) -> Game:
        if self.over:
            raise MahjongError("the match is over")
        if self.current is not None and not self.current.is_over():
            raise MahjongError("the current hand is not finished")
        g = Game.new(
            self.profile,
            seed=f"{self.seed}:{self.hands_played}",
            players=self.players,
            dealer=self.dealer,
            streak=self.streak,
        )
        self.current = g
        return g

    def record(self, game: Game) -> None:
        """Add the hand's payments to the running totals and rotate the dealer (R9)."""
        sc = game.score()
        if not game.is_over() or sc is None:
            raise MahjongError("record() needs a finished hand")
        for s, p in enumerate(sc.payments):
            self.totals[s] += p
            self.ratings[s] = update_rating(self.ratings[s], p)
        st = settle(sc.payments, self.balances, self.stake, self.cap, self.fee)
        self.balances = list(st.balances)
        winner = game.win["winner"] if game.win else None
        self.history.append(
            {
                "hand": self.hands_played,
                "dealer": self.dealer,
                "streak": self.streak,
                "winner": winner,
                "win": game.win["win"] if game.win else "draw",
                "payments": list(sc.payments),
                "silver": list(st.transfers),
                "fees": list(st.fees),
            }
        )
        self.hands_played += 1
        rule = self.profile.streak
        dealer_keeps = winner is None or winner == self.dealer
        if dealer_keeps:
            if rule == "dealer_wins":
                if winner is not None:
                    self.streak += 1  # D-18: a draw leaves L unchanged
            else:
                self.streak += 1  # doudou k counts hands dealt; sanming L grows on a draw too
        else:
            self.dealer = (self.dealer + 1) % self.players
            self.streak = 1 if rule == "hands_dealt" else 0
        self.current = None

    def leave(self, seat: int) -> None:
        """R9: any player leaving ends the match (R11: the hand in progress is void)."""
        if not 0 <= seat < self.players:
            raise MahjongError(f"there is no seat {seat}")
        if self.current is not None and not self.current.is_over():
            # R11 逃跑: the hand is void; the leaver pays 8 × base × stake plus the fee
            st = settle_leaver(seat, self.balances, self.profile.base, self.stake, self.fee)
            self.balances = list(st.balances)
        self.leaver = seat
        self.over = True
        self.current = None
