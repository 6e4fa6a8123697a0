"""Determinism through the speed work: the event logs of seeded heuristic-bot hands are
byte-identical to the logs recorded before the speed work (``tests/data/golden_logs.json``,
written by ``bench/golden.py --record`` at the baseline commit; R12: same seed + same
decisions -> identical event log). ``python bench/golden.py --check`` checks all 1,000 per
group. The recorded heuristic games are played by the frozen ``heuristic-v1``
(bots/heuristic_v1.py), the heuristic of that time; the improved ``heuristic`` of the
difficulty ladder plays differently."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bench.golden import DATA, digest, groups, hand_log
from fujian_mahjong.analysis import shanten_keys, tables
from fujian_mahjong.analysis.core import others_id, shanten_split, suit_ids
from fujian_mahjong.analysis.tables import POW5
from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import Game
from fujian_mahjong.engine.game import fmt as engine_fmt
from fujian_mahjong.engine.game import shuffle
from fujian_mahjong.rules import BUILTIN, get_profile
from fujian_mahjong.scoring import Situation, Term, detect_specials, score
from fujian_mahjong.scoring.score import FORMULAS, quantities, readings, term
from fujian_mahjong.tiles import fmt as tiles_fmt

HANDS = 100  # per group in the test (the script checks 1,000)


def _golden() -> dict[str, list[str]]:
    data: dict[str, list[str]] = json.loads(Path(DATA).read_text(encoding="utf-8"))
    return data


def test_golden_file_covers_every_group() -> None:
    data = _golden()
    assert sorted(data) == sorted(name for name, _p, _n in groups())
    for name, hashes in data.items():
        assert len(hashes) >= 1000, name
        assert len(set(hashes)) == len(hashes), f"{name}: duplicate logs"


@pytest.mark.parametrize(("name", "profile", "players"), groups())
def test_event_logs_identical_to_baseline(name: str, profile: str, players: int) -> None:
    want = _golden()[name][:HANDS]
    bad = [i for i in range(HANDS) if digest(hand_log(name, profile, players, i)) != want[i]]
    assert not bad, f"{name}: hands {bad[:10]} differ from the recorded logs (seed golden-{name}-i)"


def test_hand_log_is_reproducible_and_ends() -> None:
    a = hand_log("fuzhou-tcy", "fuzhou-tcy", 4, 7)
    assert a == hand_log("fuzhou-tcy", "fuzhou-tcy", 4, 7)
    lines = a.splitlines()
    assert json.loads(lines[0])["type"] == "start"
    assert json.loads(lines[-1])["type"] == "end"


# The split shanten used by the heuristic bot (a speed-up) equals shanten_keys on every hand:
# the untouched suits combined once, then the changed suit.
@st.composite
def _hands(draw: st.DrawFn) -> tuple[list[int], int, int]:
    kinds = draw(st.sampled_from([27, 34]))
    n = draw(st.sampled_from([1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17]))
    c = [0] * 34
    picks = draw(st.lists(st.integers(0, kinds - 1), min_size=n, max_size=n))
    for k in picks:
        if c[k] < 4:
            c[k] += 1
    return c, draw(st.integers(0, 3)), draw(st.integers(0, 5))


@settings(max_examples=400, deadline=None)
@given(_hands())
def test_split_shanten_equals_shanten_keys(hand: tuple[list[int], int, int]) -> None:
    c, w, melds = hand
    keys = [0, 0, 0, 0]
    for k in range(34):
        keys[min(k // 9, 3)] += c[k] * POW5[k % 9 if k < 27 else k - 27]
    ids = suit_ids(*keys)
    want = shanten_keys(keys[0], keys[1], keys[2], w, melds, keys[3])
    for i in range(4):
        assert shanten_split(others_id(ids, i), ids[i], w, melds) == want


# Scoring (a speed-up): when no reading can change the specials (R7: 金雀/金龙/清一色 need two
# or three golds, or one suit) ``score`` skips the enumeration of readings and finds the
# scored one only on demand. It must equal the old way: every reading scored, the first
# best one kept (points, specials, breakdown and the decomposition shown to players).
def _score_every_reading(sit: Situation) -> tuple[int, tuple[str, ...], tuple[Term, ...], Any]:
    q = quantities(sit)
    formula = FORMULAS[sit.profile.scoring]
    best: tuple[int, list[Term], list[str], Any] | None = None
    for dec in readings(sit):
        specials = detect_specials(sit, dec, q)
        x, terms = formula(sit, q, specials)
        if best is None or x > best[0]:
            best = (x, terms, specials, dec)
    assert best is not None
    x, terms, specials, dec = best
    terms = [*terms, term("total" if sit.self_draw else "total_discard", x)]
    return x, tuple(specials), tuple(terms), dec


@st.composite
def _winning(draw: st.DrawFn) -> Situation:
    profile = get_profile(draw(st.sampled_from(sorted(BUILTIN))))
    suits = draw(st.sampled_from([(0,), (1,), (0, 1), (0, 1, 2)]))
    kinds = [9 * s + r for s in suits for r in range(9)]
    hand: list[int] = []
    for _ in range(5):
        if draw(st.booleans()):
            s = draw(st.sampled_from(suits))
            r = draw(st.integers(0, 6))
            hand += [9 * s + r, 9 * s + r + 1, 9 * s + r + 2]
        else:
            hand += [draw(st.sampled_from(kinds))] * 3
    hand += [draw(st.sampled_from(kinds))] * 2
    gold = draw(st.sampled_from(kinds))
    golds = draw(st.integers(0, 3))
    hand = [k for k in hand if k != gold]
    for i in draw(st.lists(st.integers(0, 16), max_size=golds, unique=True)):
        if i < len(hand):
            hand[i] = gold
    while len(hand) < 17:
        hand.append(gold)
    assume(all(hand.count(k) <= 4 for k in kinds) and hand.count(gold) <= 3)
    tile = next((k for k in hand if k != gold), gold)
    win = draw(st.sampled_from(["self_draw", "discard"])) if tile != gold else "self_draw"
    return Situation(
        profile=profile,
        seats=4,
        dealer=0,
        win=win,
        gold=gold,
        winner=1,
        discarder=2 if win == "discard" else None,
        hand=tuple(sorted(hand)),
        winning_tile=tile,  # R5: never a discarded gold
        streak=draw(st.integers(0, 3)),
    )


@settings(max_examples=300, deadline=None)
@given(_winning())
def test_score_without_enumeration_equals_every_reading(sit: Situation) -> None:
    sc = score(sit)
    x, specials, terms, dec = _score_every_reading(sit)
    assert (sc.points, sc.specials, sc.breakdown) == (x, specials, terms)
    assert sc.decomposition == dec


def test_score_of_engine_hands_equals_every_reading() -> None:
    n = 0
    for name, profile, players in groups():
        for i in range(40):
            g = Game.new(profile, seed=f"score-{name}-{i}", players=players, dealer=i % players)
            bots = [make_bot("heuristic", f"score-{i}:{s}") for s in range(players)]
            while not g.is_over():
                s = g.to_act()[0]
                g.apply(s, bots[s].act(g.seat_view(s)).action)
            sit = g.result()
            if sit is None or sit.win == "draw":
                continue
            sc = score(sit)
            x, specials, terms, dec = _score_every_reading(sit)
            assert (sc.points, sc.specials, sc.breakdown) == (x, specials, terms), g.seed
            assert sc.decomposition == dec
            n += 1
    assert n > 200


# The shipped kept table (for a cold process as fast as a warm one) holds, for every
# suit key, the id of the vector the recursive definition gives; a process's first keys are
# computed recursively (the same ids) before the table is read.
@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_kept_table_equals_recursive_definition(digits: list[int]) -> None:
    key = sum(c * p for c, p in zip(digits, POW5, strict=False))
    ids = tables.load_kept_ids()
    assert tables.KEPT_VECTORS[ids[key]] == tables._kept_build(key)
    assert tables._VECTOR_ID[tables._kept_build(key)] == ids[key] == tables.kept_id(key)


def test_kept_table_ids_of_every_key_are_valid() -> None:
    ids = tables.load_kept_ids()
    assert len(ids) == tables.NKEYS and max(ids) < len(tables._kept_vectors()) == 152
    assert tables.KEPT_VECTORS[ids[0]] == (0,) * 13


# Game.new shuffles the wall with an inlined copy of random.shuffle (for speed): the same
# permutation and the same generator state afterwards (the dice come next), for any seed.
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20), st.integers(1, 200))
def test_engine_shuffle_equals_random_shuffle(seed: str, n: int) -> None:
    a, b = random.Random(seed), random.Random(seed)
    x, y = list(range(n)), list(range(n))
    a.shuffle(x)
    shuffle(b, y)
    assert x == y and a.getstate() == b.getstate()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 41), max_size=20))
def test_engine_fmt_equals_tiles_fmt(kinds: list[int]) -> None:
    assert engine_fmt(kinds) == tiles_fmt(kinds) == engine_fmt(tuple(kinds))
