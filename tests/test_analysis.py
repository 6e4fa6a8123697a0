"""R7 hand analysis: cross-checked against the slow reference, plus properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.analysis import (
    decompositions,
    is_any_tile_ready,
    is_ready,
    is_win,
    shanten,
    waits,
)
from fujian_mahjong.analysis.tables import NKEYS, build_need_table, need_table
from fujian_mahjong.errors import HandError
from fujian_mahjong.tiles import parse, parse_kind
from tests.handgen import near_win_hand, random_hand
from tests.reference import ref_is_win, ref_shanten, ref_waits


def counts(text: str) -> list[int]:
    c = [0] * 27
    for k in parse(text):
        c[k] += 1
    return c


def _sample(rng: random.Random, extra: int) -> tuple[list[int], int, int]:
    """A seeded random hand of size 3*(5-e)+2 (extra=0) or 3*(5-e)+1 (extra=-1)."""
    e = rng.randrange(5)
    size = 3 * (5 - e) + 2
    gold = rng.randrange(27)
    golds = rng.randrange(4)
    gen = near_win_hand if rng.random() < 0.5 else random_hand
    c = gen(rng, size, gold, golds)
    if extra == -1:
        ks = [k for k in range(27) if c[k] and k != gold] or [gold]
        c[rng.choice(ks)] -= 1
    return c, gold, e


# 100,000 hands for is_win, in 10 seeded chunks so pytest-xdist can spread them.
@pytest.mark.parametrize("chunk", range(10))
def test_is_win_matches_reference_100k(chunk: int) -> None:
    rng = random.Random(1000 + chunk)
    wins = 0
    for _ in range(10_000):
        c, gold, e = _sample(rng, 0)
        got = is_win(c, gold, e)
        assert got == ref_is_win(c, gold), (c, gold, e)
        wins += got
    assert wins > 1000  # the corpus exercises both answers


@pytest.mark.parametrize("chunk", range(4))
def test_waits_and_ready_match_reference(chunk: int) -> None:
    rng = random.Random(2000 + chunk)
    ready = 0
    for _ in range(1500):
        c, gold, e = _sample(rng, -1)
        want = ref_waits(c, gold)
        assert waits(c, gold, e) == want, (c, gold, e)
        assert is_ready(c, gold, e) == bool(want)
        assert is_any_tile_ready(c, gold, e) == (len(want) == 27)
        ready += bool(want)
    assert ready > 100


@pytest.mark.parametrize("chunk", range(2))
def test_shanten_matches_reference(chunk: int) -> None:
    rng = random.Random(3000 + chunk)
    for _ in range(1500):
        c, gold, e = _sample(rng, -1 if rng.random() < 0.5 else 0)
        if sum(c) % 3 == 2 and rng.random() < 0.5:
            pass
        s = shanten(c, gold, e)
        if s > 3:
            continue  # the brute-force reference is exponential in shanten
        assert s == ref_shanten(c, gold), (c, gold, e)


def test_shanten_consistency_on_random_hands() -> None:
    rng = random.Random(77)
    for _ in range(3000):
        c, gold, e = _sample(rng, 0)
        s = shanten(c, gold, e)
        assert (s == -1) == is_win(c, gold, e)
        # discarding one tile from a 3k+2 hand: the 3k+1 hand's shanten is never lower
        k = rng.choice([k for k in range(27) if c[k]])
        c[k] -= 1
        assert shanten(c, gold, e) >= s
        assert (shanten(c, gold, e) == 0) == is_ready(c, gold, e)


def test_conformance_examples_r7() -> None:
    # a single gold beside four complete melds: every kind completes the pair (闲金 shape)
    assert waits(counts("123m456m789m234s678s5p"), parse_kind("5p")) == list(range(27))
    assert is_any_tile_ready(counts("123m456m789m234s678s5p"), parse_kind("5p"))
    assert is_win(counts("123m456m789m234p55p678s"), parse_kind("9s"))
    assert shanten(counts("123m456m789m234p55p678s"), parse_kind("9s")) == -1
    assert shanten(counts("123m456m789m234p56p678s"), parse_kind("9s")) == 0
    # D-13: the gold kind is listed whenever the hand is ready
    w = waits(counts("234p567p99s78s"), parse_kind("1m"), exposed=2)
    assert w == [parse_kind(x) for x in ("1m", "6s", "9s")]


def test_waits_lists_fifth_copy_d13() -> None:
    # four natural 1m in hand: by shape alone a fifth 1m would win (111m + 11m pair …)
    c = counts("1111m234m567m789p234s")  # 16 tiles
    w = waits(c, parse_kind("9s"))
    assert parse_kind("1m") in w
    assert w == ref_waits(c, parse_kind("9s"))


def test_golds_are_wildcards_but_copy_limits_ignored_d13() -> None:
    # four natural 1m and a gold standing for a fifth 1m: 111m + (1m, gold) pair
    c = counts("1111m567m789s345s678p5p")
    assert sum(c) == 17
    assert is_win(c, parse_kind("5p"))
    assert any(
        d.pair.tiles == (0, 0) and d.pair.golds == (0,) for d in decompositions(c, parse_kind("5p"))
    )


def test_bad_hands_raise() -> None:
    with pytest.raises(HandError, match="must have 17"):
        is_win(counts("123m"), 0)
    with pytest.raises(HandError, match="at most 4"):
        is_win([5] + [0] * 26, 1)
    with pytest.raises(HandError, match="must have 16"):
        waits(counts("123m456m789m234s678s5p5p"), 0)


def test_decompositions_find_gold_sparrow_and_dragon_r7() -> None:
    gold = parse_kind("5p")
    # 金雀: two golds as the pair
    decs = decompositions(counts("123m456m789m234s678s5p5p"), gold)
    assert any(d.gold_pair for d in decs)
    assert all(len(d.melds) == 5 for d in decs)
    # 金龙: three golds as a pong of the gold kind itself
    decs = decompositions(counts("123m456m789m234s55s5p5p5p"), gold)
    assert any(d.gold_pong_of_gold for d in decs)
    # a hand that does not win has no decompositions
    assert decompositions(counts("123m456m789m234s678s19p"), gold) == []
    # with exposed melds the concealed part makes fewer melds
    decs = decompositions(counts("123m456m55s"), gold, exposed=3)
    assert [len(d.melds) for d in decs] == [2]
    assert decs[0].to_json()["pair"] == {"type": "pair", "tiles": "55s", "golds": []}


def test_decompositions_record_gold_substitution() -> None:
    gold = parse_kind("9s")
    decs = decompositions(counts("13m456m789m234p55p678s9s"), gold)
    assert decs, "13m + gold as 2m wins"
    assert any(g.golds == (parse_kind("2m"),) for d in decs for g in d.groups)
    assert not any(d.golds_as_themselves for d in decs)


def test_need_table_shipped_matches_build() -> None:
    data = need_table()
    assert len(data) == NKEYS
    assert build_need_table() == data


# ---------------------------------------------------------------- hypothesis properties

hands = st.builds(
    lambda seed, e, golds, gold: _hyp_hand(seed, e, golds, gold),
    st.integers(0, 2**32),
    st.integers(0, 4),
    st.integers(0, 3),
    st.integers(0, 26),
)


def _hyp_hand(seed: int, e: int, golds: int, gold: int) -> tuple[list[int], int, int]:
    rng = random.Random(seed)
    size = 3 * (5 - e) + 2
    gen = near_win_hand if seed % 2 else random_hand
    c = gen(rng, size, gold, golds)
    ks = [k for k in range(27) if c[k] and k != gold] or [gold]
    c[rng.choice(ks)] -= 1
    return c, gold, e


@settings(max_examples=300, deadline=None)
@given(hands)
def test_adding_a_wait_to_a_ready_hand_wins(h: tuple[list[int], int, int]) -> None:
    c, gold, e = h
    for k in waits(c, gold, e):
        c2 = list(c)
        c2[k] += 1
        if c2[k] <= 4:
            assert is_win(c2, gold, e)


def _permute(c: list[int], gold: int, perm: tuple[int, int, int]) -> tuple[list[int], int]:
    out = [0] * 27
    for k in range(27):
        out[9 * perm[k // 9] + k % 9] = c[k]
    return out, 9 * perm[gold // 9] + gold % 9


@settings(max_examples=300, deadline=None)
@given(hands, st.permutations([0, 1, 2]))
def test_permuting_suits_preserves_results(h: tuple[list[int], int, int], perm: list[int]) -> None:
    c, gold, e = h
    p = (perm[0], perm[1], perm[2])
    c2, gold2 = _permute(c, gold, p)
    assert shanten(c, gold, e) == shanten(c2, gold2, e)
    w1 = sorted(9 * p[k // 9] + k % 9 for k in waits(c, gold, e))
    assert w1 == waits(c2, gold2, e)


@settings(max_examples=300, deadline=None)
@given(hands, st.integers(0, 26))
def test_gold_replacing_a_natural_never_makes_a_win_lose(
    h: tuple[list[int], int, int], add: int
) -> None:
    c, gold, e = h
    c = list(c)
    c[add] += 1
    if c[add] > 4 or add == gold:
        return
    if c[gold] >= 3:
        return
    won = is_win(c, gold, e)
    ks = [k for k in range(27) if c[k] and k != gold]
    for k in ks:
        c2 = list(c)
        c2[k] -= 1
        c2[gold] += 1
        if won:
            assert is_win(c2, gold, e)
