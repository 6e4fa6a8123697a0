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
    is_win_keys,
    need_keys,
    shanten,
    shanten_keys,
    split_keys,
    split_keys34,
    waits,
    waits_keys,
)
from fujian_mahjong.analysis.tables import (
    NKEYS,
    build_need_table,
    combine_kept,
    honour_table,
    kept,
    kept_honours,
    need_table,
)
from fujian_mahjong.errors import HandError
from fujian_mahjong.tiles import parse, parse_kind
from tests.handgen import near_win_hand, near_win_hand34, random_hand, random_hand34
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
    for _ in range(1000):
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
    checked = [0, 0, 0, 0, 0]  # by shanten -1..3
    for _ in range(1500):
        c, gold, e = _sample(rng, -1 if rng.random() < 0.5 else 0)
        rng.random()  # keeps the seeded sequence of hands as it was
        s = shanten(c, gold, e)
        # The brute-force reference is exponential in shanten: every hand up to shanten 3
        # (about 2.5 s a chunk with its remembered sub-searches, tests/reference.py).
        if s > 3:
            continue
        assert s == ref_shanten(c, gold), (c, gold, e)
        checked[s + 1] += 1
    assert min(checked) > 20, checked


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


# ---------------------------------------------------------------- playable honours (R1/R7)
# fuzhou-doudou (honours = "playable"): 1z–7z make pongs, kongs and the pair, never chows;
# a gold may stand for any of the 34 playable kinds and the gold kind may be an honour.


def counts34(text: str) -> list[int]:
    c = [0] * 34
    for k in parse(text):
        c[k] += 1
    return c


def _sample34(rng: random.Random, extra: int) -> tuple[list[int], int, int]:
    """A seeded random 34-kind hand of size 3*(5-e)+2 (extra=0) or 3*(5-e)+1 (extra=-1)."""
    e = rng.randrange(5)
    size = 3 * (5 - e) + 2
    gold = rng.randrange(34)
    golds = rng.randrange(4)
    gen = near_win_hand34 if rng.random() < 0.5 else random_hand34
    c = gen(rng, size, gold, golds)
    if extra == -1:
        ks = [k for k in range(34) if c[k] and k != gold] or [gold]
        c[rng.choice(ks)] -= 1
    return c, gold, e


# 20,000 hands with honours and 0-3 golds for is_win, in 4 seeded chunks.
@pytest.mark.parametrize("chunk", range(4))
def test_is_win_with_honours_matches_reference_20k(chunk: int) -> None:
    rng = random.Random(4000 + chunk)
    wins = honour_wins = 0
    for _ in range(5_000):
        c, gold, e = _sample34(rng, 0)
        got = is_win(c, gold, e, honours=True)
        assert got == ref_is_win(c, gold), (c, gold, e)
        wins += got
        honour_wins += got and any(c[27:])
    assert wins > 500 and honour_wins > 300  # both answers, and honours in winning hands


@pytest.mark.parametrize("chunk", range(2))
def test_waits_and_ready_with_honours_match_reference(chunk: int) -> None:
    rng = random.Random(5000 + chunk)
    ready = honour_waits = 0
    for _ in range(400):
        c, gold, e = _sample34(rng, -1)
        want = ref_waits(c, gold)
        assert waits(c, gold, e, honours=True) == want, (c, gold, e)
        assert is_ready(c, gold, e, honours=True) == bool(want)
        assert is_any_tile_ready(c, gold, e, honours=True) == (len(want) == 34)
        ready += bool(want)
        honour_waits += any(k >= 27 and k != gold for k in want)
    assert ready > 50 and honour_waits > 10


def test_shanten_with_honours_matches_reference() -> None:
    rng = random.Random(6000)
    checked = 0
    for _ in range(300):
        c, gold, e = _sample34(rng, -1 if rng.random() < 0.5 else 0)
        s = shanten(c, gold, e, honours=True)
        if s > 2:
            continue  # the brute-force reference is exponential in shanten
        assert s == ref_shanten(c, gold), (c, gold, e)
        checked += 1
    assert checked > 150


def test_shanten_with_honours_small_hands_match_reference() -> None:
    # few melds to make: the reference stays fast up to shanten 3
    rng = random.Random(6100)
    for _ in range(300):
        e = rng.choice((3, 4))
        size = 3 * (5 - e) + 2 - rng.randrange(2)
        gold = rng.randrange(34)
        c = random_hand34(rng, size, gold, rng.randrange(3))
        assert shanten(c, gold, e, honours=True) == ref_shanten(c, gold), (c, gold, e)


def test_decompositions_with_honours_are_valid_r7() -> None:
    rng = random.Random(6200)
    seen_honour_group = False
    for _ in range(400):
        c, gold, e = _sample34(rng, 0)
        decs = decompositions(c, gold, e, honours=True)
        assert bool(decs) == is_win(c, gold, e, honours=True)
        for d in decs:
            assert len(d.melds) == 5 - e
            total = [0] * 34
            golds = 0
            for g in d.groups:
                if g.type == "chow":
                    assert all(k < 27 for k in g.tiles)  # R7: no honour chows
                for k in g.tiles:
                    total[k] += 1
                for k in g.golds:
                    total[k] -= 1
                golds += len(g.golds)
                seen_honour_group |= g.tiles[0] >= 27
            nat = [0 if k == gold else c[k] for k in range(34)]
            assert total == nat and golds == c[gold]
    assert seen_honour_group


def test_honour_examples_r7() -> None:
    nine_s = parse_kind("9s")
    # five honour pongs and an honour pair
    c = counts34("111z222z333z444z555z66z")
    assert is_win(c, nine_s, honours=True) and shanten(c, nine_s, honours=True) == -1
    (d,) = decompositions(c, nine_s, honours=True)
    assert d.pair.tiles == (32, 32) and all(g.type == "pong" for g in d.melds)
    # no chows of winds or dragons
    assert not is_win(counts34("123z456m789m123p456p11s"), nine_s, honours=True)
    # a gold stands for an honour: 55z + gold = pong of 5z
    c = counts34("123m456m789m123p55z11s9s")
    assert is_win(c, nine_s, honours=True)
    assert any(
        g.type == "pong" and g.tiles == (31, 31, 31) and g.golds == (31,)
        for d in decompositions(c, nine_s, honours=True)
        for g in d.groups
    )
    # waits on an honour: shanpon 55z / 11s
    w = waits(counts34("123m456m789m123p55z11s"), nine_s, honours=True)
    assert w == [parse_kind(x) for x in ("1s", "9s", "5z")]
    # the gold kind is an honour: one gold beside four melds is ready on all 34 kinds (D-13)
    east = parse_kind("1z")
    c = counts34("123m456m789m123p456p1z")
    assert waits(c, east, honours=True) == list(range(34))
    assert is_any_tile_ready(c, east, honours=True)
    # 金雀 and 金龙 with an honour gold
    assert any(
        d.gold_pair
        for d in decompositions(counts34("123m456m789m234s678s1z1z"), east, honours=True)
    )
    decs = decompositions(counts34("123m456m789m234s55s1z1z1z"), east, honours=True)
    assert any(d.gold_pong_of_gold for d in decs)
    # a fifth copy of an honour is listed by shape alone (D-13)
    c = counts34("1111z234m567m789p234s")
    assert parse_kind("1z") in waits(c, nine_s, honours=True) == ref_waits(c, nine_s)


def test_honours_are_flowers_without_the_flag_r1() -> None:
    c = counts34("111z222z333z444z555z66z")
    for fn in (is_win, shanten, decompositions):
        with pytest.raises(HandError, match="1z is a flower here"):
            fn(c, 0)
    with pytest.raises(HandError, match="gold must be a suited kind"):
        is_win(counts34("123m456m789m123p456p11s"), parse_kind("1z"))
    with pytest.raises(HandError, match="27 suited counts"):
        is_win([0] * 30, 0)
    # 34 counts with no honours and honours=False: exactly the 27-kind answers
    rng = random.Random(6300)
    for _ in range(300):
        c27, gold, e = _sample(rng, -1)
        c = c27 + [0] * 7
        assert waits(c, gold, e) == waits(c27, gold, e)
        assert shanten(c, gold, e) == shanten(c27, gold, e)
        # the same suited hand with honours=True: same waits (plus honours), same shanten
        w27 = waits(c27, gold, e)
        w34 = waits(c, gold, e, honours=True)
        assert w34[: len(w27)] == w27 and all(k >= 27 for k in w34[len(w27) :])
        assert shanten(c, gold, e, honours=True) == shanten(c27, gold, e)
        c27, gold, e = _sample(rng, 0)
        win = is_win(c27, gold, e)
        assert is_win(c27 + [0] * 7, gold, e) == win == is_win(c27 + [0] * 7, gold, e, honours=True)


def test_key_level_api_with_honours() -> None:
    c = counts34("123m456m789m123p55z11s9s")
    gold = parse_kind("9s")
    k0, k1, k2, kh, w = split_keys34(c, gold)
    assert (k0, k1, k2, w) == (*split_keys(c[:27], gold)[:3], 1)
    assert kh == 2 * 5**4
    assert need_keys(k0, k1, k2, kh) == 1 and is_win_keys(k0, k1, k2, w, kh)
    assert not is_win_keys(k0, k1, k2, 0, kh)  # 55z needs the gold
    assert need_keys(k0, k1, k2) == 0  # without kh the honours are not there
    assert shanten_keys(k0, k1, k2, w, 5, kh) == -1
    k0, k1, k2, kh, w = split_keys34(counts34("123m456m789m123p55z11s"), gold)
    assert waits_keys(k0, k1, k2, w, gold, kh) == [parse_kind("1s"), gold]
    assert waits_keys(k0, k1, k2, w, gold, kh, honours=True)[-1] == parse_kind("5z")
    # an honour gold: its copies are golds, not part of kh
    assert split_keys34(counts34("1z1z5z"), parse_kind("1z")) == (0, 0, 0, 5**4, 2)


# ---------------------------------------------------------------- hypothesis, with honours

hands34 = st.builds(
    lambda seed, e, golds, gold: _hyp_hand34(seed, e, golds, gold),
    st.integers(0, 2**32),
    st.integers(0, 4),
    st.integers(0, 3),
    st.integers(0, 33),
)


def _hyp_hand34(seed: int, e: int, golds: int, gold: int) -> tuple[list[int], int, int]:
    rng = random.Random(seed)
    size = 3 * (5 - e) + 2
    gen = near_win_hand34 if seed % 2 else random_hand34
    c = gen(rng, size, gold, golds)
    ks = [k for k in range(34) if c[k] and k != gold] or [gold]
    c[rng.choice(ks)] -= 1
    return c, gold, e


@settings(max_examples=200, deadline=None)
@given(hands34)
def test_honours_adding_a_wait_wins(h: tuple[list[int], int, int]) -> None:
    c, gold, e = h
    for k in waits(c, gold, e, honours=True):
        c2 = list(c)
        c2[k] += 1
        if c2[k] <= 4:
            assert is_win(c2, gold, e, honours=True)
        else:  # a fifth copy wins by shape alone (D-13); the reference takes any count
            assert ref_is_win(c2, gold)


@settings(max_examples=200, deadline=None)
@given(hands34, st.integers(0, 33))
def test_honours_gold_replacing_a_natural_never_loses_a_win(
    h: tuple[list[int], int, int], add: int
) -> None:
    c, gold, e = h
    c = list(c)
    c[add] += 1
    if c[add] > 4 or add == gold or c[gold] >= 3:
        return
    if not is_win(c, gold, e, honours=True):
        return
    for k in range(34):
        if c[k] and k != gold:
            c2 = list(c)
            c2[k] -= 1
            c2[gold] += 1
            assert is_win(c2, gold, e, honours=True), (c, gold, k)


@settings(max_examples=200, deadline=None)
@given(hands34, st.permutations(list(range(7))), st.permutations([0, 1, 2]))
def test_permuting_honours_and_suits_preserves_results(
    h: tuple[list[int], int, int], hperm: list[int], sperm: list[int]
) -> None:
    c, gold, e = h

    def m(k: int) -> int:
        return 9 * sperm[k // 9] + k % 9 if k < 27 else 27 + hperm[k - 27]

    c2 = [0] * 34
    for k in range(34):
        c2[m(k)] = c[k]
    gold2 = m(gold)
    assert shanten(c, gold, e, honours=True) == shanten(c2, gold2, e, honours=True)
    assert sorted(m(k) for k in waits(c, gold, e, honours=True)) == waits(
        c2, gold2, e, honours=True
    )
    for k in range(34):  # every 3k+2 hand one tile away
        if c[k] < 4:
            c3 = list(c)
            c3[k] += 1
            c4 = [0] * 34
            for j in range(34):
                c4[m(j)] = c3[j]
            assert is_win(c3, gold, e, honours=True) == is_win(c4, gold2, e, honours=True)


# ---------------------------------------------------------------- tables behind the hot paths


def test_honour_table_matches_its_closed_form_r7() -> None:
    table = honour_table()
    assert len(table) == 5**7
    for key in range(5**7):
        digits = [(key // 5**i) % 5 for i in range(7)]
        f = sum((-c) % 3 for c in digits)  # jokers to complete each kind into pongs
        d = -1 if any(c % 3 for c in digits) else 2  # a kind with c % 3 != 0 hosts the pair
        assert table[key] == f * 4 + d + 1, key


def _full_combine(a: tuple[int, ...], b: tuple[int, ...]) -> list[int]:
    """The untrimmed max-plus convolution ("at most j blocks", one pair)."""
    out = [0] * 12
    for j in range(6):
        out[j] = max(a[x] + b[y] for x in range(6) for y in range(6) if x + y <= j)
        out[6 + j] = max(
            max(a[6 + x] + b[y], a[x] + b[6 + y]) for x in range(6) for y in range(6) if x + y <= j
        )
    return out


@settings(max_examples=300, deadline=None)
@given(hands34)
def test_trimmed_combination_equals_full_convolution(h: tuple[list[int], int, int]) -> None:
    c, gold, _e = h
    k0, k1, k2, kh, _w = split_keys34(c, gold)
    vecs = [kept(k0), kept(k1), kept(k2), kept_honours(kh)]
    for v in vecs:  # flat beyond its recorded length
        n = v[12]
        assert all(v[j] == v[n] and v[6 + j] == v[6 + n] for j in range(n, 6))
    for a in vecs:
        for b in vecs:
            got = combine_kept(a, b)
            assert list(got[:12]) == _full_combine(a, b)
            assert all(got[j] == got[got[12]] for j in range(got[12], 6))
