"""R11: settlement in silver, the cap, the fee, the leaver, rating and levels."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fujian_mahjong.scoring import LEVELS, level_for, settle, settle_leaver, update_rating


def test_plain_settlement_with_stake_and_fee() -> None:
    s = settle([-16, -16, -16, 48], [1000, 1000, 1000, 1000], stake=10, fee=5)
    assert s.transfers == (-160, -160, -160, 480)
    assert s.fees == (5, 5, 5, 5)
    assert s.balances == (835, 835, 835, 1475)


def test_short_payer_pays_what_they_have_r11() -> None:
    # seat 1 holds 50 silver but owes 160: pays 50; the winner receives only what was paid
    s = settle([-16, -16, -16, 48], [1000, 50, 1000, 0], stake=10, fee=5)
    assert s.transfers == (-160, -50, -160, 370)
    assert s.balances == (835, 0, 835, 365)  # the fee is taken down to 0


def test_cap_limits_each_loss_in_points_r11() -> None:
    s = settle([0, -140, 140, 0], [500, 500, 500, 500], stake=2, cap=100)
    assert s.transfers == (0, -200, 200, 0)


def test_leaver_penalty_void_hand_r11() -> None:
    s = settle_leaver(2, [100, 100, 100, 100], base=1, stake=5, fee=3)
    assert s.transfers == (0, 0, -40, 0)
    assert s.fees == (0, 0, 3, 0)  # others pay no fee for a void hand
    assert s.balances == (100, 100, 57, 100)
    poor = settle_leaver(0, [10, 0, 0, 0], stake=5, fee=3)
    assert poor.balances == (0, 0, 0, 0)


def test_levels_table_r11() -> None:
    assert len(LEVELS) == 24
    assert level_for(0).level == 1 and level_for(0).title == "待业" and level_for(0).rank == "麻袋"
    assert level_for(99).level == 1 and level_for(100).level == 2
    assert level_for(100).title == "临时工" and level_for(100).rank == "街头一段"
    assert level_for(419430399).level == 23
    top = level_for(419430400)  # level 23's "next" figure reaches the top level
    assert (
        top.level == 24 and top.title == "财神" and top.rank == "麻将无敌" and top.next_at is None
    )
    assert level_for(10**12).level == 24
    with pytest.raises(ValueError):
        level_for(-1)


def test_rating_floored_at_zero_r11() -> None:
    assert update_rating(10, -25) == 0
    assert update_rating(10, 25) == 35


@given(
    st.lists(st.integers(0, 500), min_size=4, max_size=4),
    st.integers(0, 3),
    st.integers(1, 200),
    st.booleans(),
    st.integers(0, 20),
    st.integers(0, 10),
    st.integers(0, 150),
)
def test_settlement_never_negative_never_creates_silver(
    balances: list[int], winner: int, x: int, self_draw: bool, stake: int, fee: int, cap: int
) -> None:
    pay = [0] * 4
    if self_draw:
        pay = [-x] * 4
        pay[winner] = 3 * x
    else:
        pay[winner] = x
        pay[(winner + 1) % 4] = -x
    s = settle(pay, balances, stake=stake, cap=cap, fee=fee)
    assert all(b >= 0 for b in s.balances)
    assert sum(s.transfers) == 0
    # only the fee removes silver
    assert sum(s.balances) == sum(balances) - sum(s.fees)
    assert s.transfers[winner] >= 0


def test_bianfeng_discard_special_settles_2p_in_silver_r10_r11() -> None:
    """R10 rev. 2 then R11: a 平胡 won on a discard in fuzhou-bianfeng costs the discarder
    2P = 60 points; at stake 10 that is 600 silver, capped by the table's cap and by the
    discarder's balance."""
    from fujian_mahjong.scoring import score, situation_from_json

    sc = score(
        situation_from_json(
            {
                "profile": "fuzhou-bianfeng",
                "gold": "1s",
                "seats": 4,
                "dealer": 0,
                "winner": 2,
                "discarder": 1,
                "win": "discard",
                "hand": "234m567m345p678p789s99s",
                "winning_tile": "9s",
                "melds": [],
                "flowers": "",
                "streak": 0,
            }
        )
    )
    assert sc.points == 60 and sc.specials == ("ping_hu",)  # P = 30, doubled
    s = settle(sc.payments, [1000, 1000, 1000, 1000], stake=10, fee=5)
    assert s.transfers == (0, -600, 600, 0)
    assert settle(sc.payments, [1000, 1000, 1000, 1000], stake=10, cap=40).transfers == (
        0,
        -400,
        400,
        0,
    )
    assert settle(sc.payments, [1000, 250, 1000, 1000], stake=10).transfers == (0, -250, 250, 0)
