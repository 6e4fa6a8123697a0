"""Issue 16 determinism: the event logs of seeded heuristic-bot hands are byte-identical to
the logs recorded before the speed work (``tests/data/golden_logs.json``, written by
``bench/golden.py --record`` at the baseline commit; R12: same seed + same decisions ->
identical event log). ``python bench/golden.py --check`` checks all 1,000 per group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.golden import DATA, digest, groups, hand_log

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
