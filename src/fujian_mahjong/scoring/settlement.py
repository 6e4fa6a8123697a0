"""R11 the platform economy: settlement in silver, the loss cap, the fee, leavers, levels."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# R11 level table: (level, 级别, 段位, rating needed to reach the NEXT level)
LEVELS: tuple[tuple[int, str, str, int], ...] = (
    (1, "待业", "麻袋", 100),
    (2, "临时工", "街头一段", 200),
    (3, "合同工", "街头二段", 400),
    (4, "正式工", "街头三段", 800),
    (5, "助理主管", "街头霸王", 1600),
    (6, "副主管", "茶室一段", 3200),
    (7, "主管", "茶室二段", 6400),
    (8, "助理经理", "茶室三段", 12800),
    (9, "副经理", "茶室不败", 25600),
    (10, "经理", "酒店一段", 51200),
    (11, "助理总裁", "酒店二段", 102400),
    (12, "副总裁", "酒店三段", 204800),
    (13, "总裁", "酒店至尊", 409600),
    (14, "董事", "县级大师", 819200),
    (15, "副董事长", "市级大师", 1638400),
    (16, "董事长", "省级大师", 3276800),
    (17, "赌王", "国家大师", 6553600),
    (18, "赌圣", "国际大师", 13107200),
    (19, "赌神", "特级大师", 26214400),
    (20, "边锋首富", "麻将部长", 52428800),
    (21, "中国首富", "麻将总理", 104857600),
    (22, "亚洲首富", "麻将总统", 209715200),
    (23, "世界首富", "麻将皇帝", 419430400),
    (24, "财神", "麻将无敌", 838860800),
)


@dataclass(frozen=True, slots=True)
class Level:
    level: int
    title: str  # 级别
    rank: str  # 段位
    next_at: int | None  # rating that reaches the next level (None at the top)


def level_for(rating: int) -> Level:
    """R11: the level of a rating (level 1 starts at 0; "next" is the rating for the next)."""
    if rating < 0:
        raise ValueError(f"rating must be >= 0, got {rating}")
    for lv, title, rank, nxt in LEVELS:
        if lv == 24 or rating < nxt:
            return Level(lv, title, rank, None if lv == 24 else nxt)
    raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True)
class Settlement:
    """The result of settling one hand in silver."""

    transfers: tuple[int, ...]  # silver moved by the hand, per seat (zero-sum)
    fees: tuple[int, ...]  # service fee actually burned, per seat (>= 0)
    balances: tuple[int, ...]  # balances after transfers and fees (never below 0)


def settle(
    payments: Sequence[int],
    balances: Sequence[int],
    stake: int = 1,
    cap: int = 0,
    fee: int = 0,
) -> Settlement:
    """R11: settle a hand's point payments in silver.

    Each loser pays ``min(loss, cap) × stake`` (cap 0 = no cap), but never more than their
    balance; the winners share what was actually paid in proportion to their points (one
    winner receives all of it). Then the fee is burned from every seat, down to 0.
    """
    n = len(payments)
    if len(balances) != n:
        raise ValueError("payments and balances must have one entry per seat")
    if any(b < 0 for b in balances):
        raise ValueError("balances must be >= 0")
    if stake < 0 or cap < 0 or fee < 0:
        raise ValueError("stake, cap and fee must be >= 0")
    paid = [0] * n
    for s, pts in enumerate(payments):
        if pts < 0:
            loss = -pts if not cap else min(-pts, cap)
            paid[s] = min(loss * stake, balances[s])
    pot = sum(paid)
    gains = [p for p in payments if p > 0]
    total_gain = sum(gains)
    transfers = [-x for x in paid]
    if total_gain:
        winners = [s for s, p in enumerate(payments) if p > 0]
        given = 0
        for i, s in enumerate(winners):
            share = pot - given if i == len(winners) - 1 else pot * payments[s] // total_gain
            transfers[s] += share
            given += share
    after = [b + t for b, t in zip(balances, transfers, strict=True)]
    fees = [min(fee, b) for b in after]
    final = [b - f for b, f in zip(after, fees, strict=True)]
    return Settlement(tuple(transfers), tuple(fees), tuple(final))


def settle_leaver(
    leaver: int, balances: Sequence[int], base: int = 1, stake: int = 1, fee: int = 0
) -> Settlement:
    """R11 逃跑: the hand is void; the leaver loses 8 × base × stake plus the fee (down to 0);
    the other players pay nothing, not even the fee."""
    n = len(balances)
    if not 0 <= leaver < n:
        raise ValueError(f"leaver must be a seat 0-{n - 1}")
    penalty = min(8 * base * stake, balances[leaver])
    fees = [0] * n
    transfers = [0] * n
    transfers[leaver] = -penalty
    left = balances[leaver] - penalty
    fees[leaver] = min(fee, left)
    final = list(balances)
    final[leaver] = left - fees[leaver]
    return Settlement(tuple(transfers), tuple(fees), tuple(final))


def update_rating(rating: int, points: int) -> int:
    """R11: rating changes by the points won or lost, floored at 0."""
    return max(0, rating + points)
