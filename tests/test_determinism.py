"""Issue 16 determinism: the event logs of seeded heuristic-bot hands are byte-identical to
the logs recorded before the speed work (``tests/data/golden_logs.json``, written by
``bench/golden.py --record`` at the baseline commit; R12: same seed + same decisions ->
identical event log). ``python bench/golden.py --check`` checks all 1,000 per group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.golden import DATA, digest, groups, hand_log
from fujian_mahjong.analysis import shanten_keys
from fujian_mahjong.analysis.core import others_id, shanten_split, suit_ids
from fujian_mahjong.analysis.tables import POW5

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


# The split shanten used by the heuristic bot (issue 16) equals shanten_keys on every hand:
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
