"""R9: a match (一局) — a series of hands at one table with dealer rotation and streaks."""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Any

from fujian_mahjong.engine.game import MAX_STREAK, Game, random_seed
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import Profile, get_profile
from fujian_mahjong.scoring import Level, level_for, settle, settle_leaver, update_rating


def hand_seed(match_seed: str, k: int) -> str:
    """R12: hand k's seed, HMAC-SHA256(match seed, k) in hex.

    A hand's seed is revealed when it ends; the HMAC makes that tell nothing about the
    match seed or any other hand's seed (unlike ``f"{seed}:{k}"``)."""
    return hmac.new(
        str(match_seed).encode("utf-8"), str(k).encode("ascii"), hashlib.sha256
    ).hexdigest()


class Match:
    """Hands at one table. ``next_hand()`` deals, ``record(game)`` settles it (R9, R10)."""

    def __init__(
        self,
        profile: Profile | str = "fuzhou-tcy",
        seed: int | str | None = None,
        players: int = 4,
        dealer: int | None = None,
        balances: list[int] | None = None,
        stake: int = 1,
        fee: int = 0,
        cap: int = 0,
        ratings: list[int] | None = None,
    ) -> None:
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        # R12: without a seed, 128 bits from `secrets`; an explicit seed is reproducible and
        # not secret. Hand k plays HMAC-SHA256(seed, k) (hand_seed).
        self.seed = random_seed() if seed is None else str(seed)
        p = self.profile
        if (
            not isinstance(players, int)
            or isinstance(players, bool)
            or not p.players_min <= players <= p.players_max
        ):
            raise MahjongError(
                f"profile {p.name} plays with {p.players_min}-{p.players_max} players, "
                f"not {players!r}"
            )
        self.players = players
        if dealer is not None and (
            not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players
        ):
            raise MahjongError(f"dealer must be a seat 0-{players - 1}, got {dealer!r}")
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
        if self.streak > MAX_STREAK:
            self.streak = MAX_STREAK  # R9: a streak beyond the sane bound plays as the bound
        g = Game.new(
            self.profile,
            seed=hand_seed(self.seed, self.hands_played),
            players=self.players,
            dealer=self.dealer,
            streak=self.streak,
        )
        self.current = g
        return g

    def standing_after(self, game: Game) -> tuple[int, list[int]]:
        """(hands played, totals) as they are once ``game`` is recorded (R9): what
        ``record`` makes them for the finished hand this match dealt last, and as they
        stand for a hand already recorded. Changes nothing (a store writes it first)."""
        sc = game.score()
        if game is not self.current or not game.is_over() or sc is None:
            return self.hands_played, list(self.totals)
        return self.hands_played + 1, [t + p for t, p in zip(self.totals, sc.payments, strict=True)]

    def record(self, game: Game) -> None:
        """Add the hand's payments to the running totals and rotate the dealer (R9).

        Only the hand this match dealt last (``next_hand``), once, and only when finished."""
        if self.current is None or game is not self.current:
            raise MahjongError(
                "record() takes the hand this match dealt last (from next_hand()), once"
            )
        sc = game.score()
        if not game.is_over() or sc is None:
            raise MahjongError("record() needs a finished hand")
        _played, self.totals = self.standing_after(game)
        self.ratings = [update_rating(r, p) for r, p in zip(self.ratings, sc.payments, strict=True)]
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
        # R9: the dealer keeps the deal when he wins, and after a draw unless the profile
        # passes it on (边锋: draw_keeps_dealer = false — his next player deals, streak resets)
        dealer_keeps = winner == self.dealer or (winner is None and self.profile.draw_keeps_dealer)
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
