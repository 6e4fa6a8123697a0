"""A fair arena (docs/bots.md: the old arena itself was biased) and ``fjmj simulate --duplicate``.

The old rotation (seat s plays ``kinds[(s + i) mod n]`` with dealer ``i mod n``) kept the
first-listed kind at the dealer or the dealer's opposite with 4 players and at the dealer
every hand with 2. Now seat 0 deals and the kinds rotate: every kind takes every seat
relative to the dealer equally often. Duplicate mode plays each deal in every seating of
the kinds, clusters the statistics by deal, and gives identical bots exactly zero.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.bots import BOT_KINDS, HeuristicBot, RandomBot
from fujian_mahjong.cli.main import main
from fujian_mahjong.sim import simulate
from fujian_mahjong.sim.simulate import (
    DEALER,
    Accumulator,
    HandRecord,
    duplicate_seatings,
    placements2,
    play_deal,
    play_hand,
    seat_kinds,
)

LABELS = ("a", "b", "c", "d")


@pytest.fixture
def aliases(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Bot kinds under other names: ``a``–``d`` random bots, ``heuristic2`` and ``random2``
    the same bots as ``heuristic`` and ``random`` (worker processes inherit them by fork)."""
    for k in LABELS:
        monkeypatch.setitem(BOT_KINDS, k, RandomBot)
    monkeypatch.setitem(BOT_KINDS, "heuristic2", HeuristicBot)
    monkeypatch.setitem(BOT_KINDS, "random2", RandomBot)
    yield


def _positions(records: Sequence[HandRecord]) -> Counter[tuple[str, int]]:
    """How often each kind sat at each seat relative to the dealer (0 = the dealer)."""
    n = len(records[0].kinds)
    return Counter((k, (s - r.dealer) % n) for r in records for s, k in enumerate(r.kinds))


def _strip(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in ("seconds", "hands_per_s")}


# ------------------------------------------------------------------------ the rotation


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rotation_gives_every_kind_every_seat_relative_to_the_dealer(n: int) -> None:
    """In any n consecutive hands each kind sits once at each seat relative to the dealer
    (so over n² hands, n times each); the dealer is seat 0."""
    kinds = LABELS[:n]
    for start in range(2 * n):
        window = [seat_kinds(kinds, i) for i in range(start, start + n)]
        seen = Counter((k, (s - DEALER) % n) for rot in window for s, k in enumerate(rot))
        assert seen == {(k, p): 1 for k in kinds for p in range(n)}, (start, seen)
    seen = Counter(
        (k, (s - DEALER) % n) for i in range(n * n) for s, k in enumerate(seat_kinds(kinds, i))
    )
    assert set(seen.values()) == {n} and len(seen) == n * n


def test_the_old_rotation_was_biased() -> None:
    """The old rotation's bias: with dealer i mod n the first kind never sat left or right
    of the dealer with 4 players, and dealt every hand with 2."""
    for n, positions in ((4, {0, 2}), (2, {0})):
        kinds = LABELS[:n]
        old = {((s - i) % n) for i in range(4 * n) for s in range(n) if kinds[(s + i) % n] == "a"}
        assert old == positions


@pytest.mark.parametrize("n", [2, 3, 4])
def test_played_hands_rotate_fairly(n: int, aliases: None) -> None:
    """The same property on hands really played (sanming plays 2 to 4): the records' seats
    and dealer, over n hands."""
    recs = [play_hand("sanming", "fair", i, LABELS[:n]) for i in range(n)]
    assert all(r.dealer == DEALER for r in recs)
    assert _positions(recs) == {(k, p): 1 for k in LABELS[:n] for p in range(n)}


def test_every_kind_sits_everywhere_in_a_whole_run(aliases: None) -> None:
    """A non-duplicate run of 4·k hands: each kind's win rate is over equal shares of every
    seat, so the seat table shows the dealer's edge and no kind's."""
    sm = simulate("fuzhou-tcy", 8, "fair", LABELS)
    assert {st["seat_hands"] for st in sm.kind_stats.values()} == {8}


# ------------------------------------------------------------------------ duplicate seatings


@pytest.mark.parametrize(
    ("kinds", "count"),
    [
        (("heuristic", "random", "random", "random"), 4),
        (("heuristic", "heuristic", "random", "random"), 6),
        (("heuristic", "random", "random"), 3),
        (("heuristic", "random"), 2),
        (("heuristic",) * 4, 1),
        (LABELS, 24),
    ],
)
def test_duplicate_seatings_cover_every_seat(kinds: tuple[str, ...], count: int) -> None:
    seatings = duplicate_seatings(kinds)
    n = len(kinds)
    assert len(seatings) == count == len(set(seatings))
    for k, m in Counter(kinds).items():
        for s in range(n):  # each kind sits at each seat in m/n of the seatings
            assert sum(1 for rot in seatings if rot[s] == k) * n == m * count
    for other in (tuple(reversed(kinds)), kinds[1:] + kinds[:1]):
        assert duplicate_seatings(other) == seatings


def test_a_deal_is_the_same_wall_in_every_seating(aliases: None) -> None:
    """Duplicate: one seed, seat 0 deals, every seating of the kinds; each kind at each
    seat relative to the dealer once."""
    recs = play_deal("fuzhou-tcy", "dup", 5, ("a", "b", "c", "d"), duplicate=True)
    assert len(recs) == 24 and len({r.seed for r in recs}) == 1
    assert {r.index for r in recs} == {5} and all(r.dealer == DEALER for r in recs)
    assert set(_positions(recs).values()) == {6}
    assert play_deal("fuzhou-tcy", "dup", 5, LABELS) == (play_hand("fuzhou-tcy", "dup", 5, LABELS),)


# ------------------------------------------------------------------------ placement points


@pytest.mark.parametrize(
    ("payments", "placement"),
    [
        ((8, -8, 0, 0), (3, 0, 1.5, 1.5)),  # a discard win: the two bystanders tie
        ((24, -8, -8, -8), (3, 1, 1, 1)),  # self-draw: three share 2nd to 4th
        ((0, 0, 0, 0), (1.5, 1.5, 1.5, 1.5)),  # a draw
        ((-6, 3, 3), (0, 1.5, 1.5)),  # sanming 3 players: a dealer's draw payment
        ((5, -5), (1, 0)),
    ],
)
def test_placement_points_share_ties(
    payments: tuple[int, ...], placement: tuple[float, ...]
) -> None:
    two = placements2(payments)
    assert tuple(p / 2 for p in two) == placement
    n = len(payments)
    assert sum(two) == n * (n - 1)  # always the field's (n - 1)/2 per seat


# ------------------------------------------------------------------------ exact zero


@pytest.mark.parametrize(
    ("profile", "kinds"),
    [
        ("fuzhou-tcy", ("heuristic", "heuristic2", "heuristic2", "heuristic2")),
        ("fuzhou-tcy", ("heuristic2", "heuristic", "heuristic2", "heuristic")),
        ("sanming", ("random", "random2", "random")),
        ("sanming", ("heuristic", "heuristic2")),
    ],
)
def test_duplicate_identical_bots_differ_by_exactly_zero(
    profile: str, kinds: tuple[str, ...], aliases: None
) -> None:
    """Two names for the same bot: each plays every seat of every deal equally often with
    the same seeds, so every difference is exactly 0 (points and placement, mean and CI)."""
    sm = simulate(profile, 12, "zero", kinds, duplicate=True)
    stats = list(sm.kind_stats.values())
    assert len(stats) == 2
    for st in stats:
        assert st["points_vs_field"] == 0.0 and st["points_vs_field_ci95"] == [0.0, 0.0]
        assert st["placement_vs_field"] == 0.0
        assert st["placement_vs_field_ci95"] == [0.0, 0.0]
        assert st["placement"] == (len(kinds) - 1) / 2
    a, b = stats
    for key in ("points_per_hand", "win_rate", "deal_ins_per_hand", "placement"):
        assert a[key] == b[key], key
    assert sm.to_json()["field"]["points_per_hand"] == 0.0  # payments are zero-sum


def test_cli_duplicate_identical_bots_is_exactly_zero(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--duplicate", "--json", "--no-progress", "--hands", "6"]
    assert main([*args, "--players", "heuristic,heuristic,heuristic,heuristic"]) == 0
    out = json.loads(capsys.readouterr().out)
    st = out["by_kind"]["heuristic"]
    assert st["points_per_hand"] == 0.0 and st["ci95"] == [0.0, 0.0]
    assert st["points_vs_field"] == 0.0 and st["placement_vs_field"] == 0.0
    assert out["seatings"] == 1 and out["hands"] == out["deals"] == 6


# ------------------------------------------------------------------------ the statistics


def test_duplicate_statistics_are_clustered_by_deal() -> None:
    """Mean, CI (mean ± 1.96·sd/√deals of the per-deal means), placement and deal-ins
    recomputed from the records."""
    kinds = ("heuristic", "random", "random", "random")
    deals = [play_deal("fuzhou-tcy", "ci", k, kinds, duplicate=True) for k in range(15)]
    acc = Accumulator("fuzhou-tcy", "ci", kinds, duplicate=True)
    for d in deals:
        acc.add_deal(d)
    sm = acc.summary()
    assert sm.hands == 60 and sm.deals == 15 and sm.seatings == 4
    for kind in ("heuristic", "random"):
        per_deal = [
            statistics.fmean(p for r in d for s, p in enumerate(r.payments) if r.kinds[s] == kind)
            for d in deals
        ]
        place = [
            statistics.fmean(
                z / 2
                for r in d
                for s, z in enumerate(placements2(r.payments))
                if r.kinds[s] == kind
            )
            for d in deals
        ]
        st = sm.kind_stats[kind]
        mean = statistics.fmean(per_deal)
        half = 1.96 * statistics.stdev(per_deal) / math.sqrt(len(deals))
        assert st["points_per_hand"] == pytest.approx(mean, abs=1e-4)
        assert st["ci95"] == pytest.approx([mean - half, mean + half], abs=1e-4)
        assert st["mean_points"] == st["points_per_hand"]
        assert [st["ci95_low"], st["ci95_high"]] == st["ci95"]
        assert st["placement"] == pytest.approx(statistics.fmean(place), abs=1e-4)
        assert st["placement_vs_field"] == pytest.approx(st["placement"] - 1.5, abs=1e-4)
        dealt_in = sum(
            1 for d in deals for r in d if r.discarder is not None and r.kinds[r.discarder] == kind
        )
        assert st["deal_ins_per_hand"] == round(dealt_in / st["seat_hands"], 4)
    out = sm.to_json()
    discard_wins = out["win_kinds"].get("discard", 0)
    assert discard_wins > 0
    assert discard_wins == sum(
        round(st["deal_ins_per_hand"] * st["seat_hands"]) for st in sm.kind_stats.values()
    )


def test_duplicate_heuristic_beats_random() -> None:
    sm = simulate(
        "fuzhou-tcy", 40, "strength", ("random", "heuristic", "random", "random"), duplicate=True
    )
    h, r = sm.kind_stats["heuristic"], sm.kind_stats["random"]
    assert h["ci95"][0] > 0 > r["ci95"][1]
    assert h["placement_vs_field"] > 0 > r["placement_vs_field"]
    assert h["deal_ins_per_hand"] < r["deal_ins_per_hand"]


# ------------------------------------------------------------------------ order, workers


@pytest.mark.parametrize(
    "orders",
    [
        [("heuristic", "random", "random", "random"), ("random", "random", "heuristic", "random")],
        [
            ("heuristic", "random", "heuristic", "random"),
            ("heuristic", "heuristic", "random", "random"),
        ],
        [("random", "heuristic", "random"), ("heuristic", "random", "random")],
    ],
)
def test_duplicate_does_not_depend_on_the_order_of_the_kinds(
    orders: list[tuple[str, ...]],
) -> None:
    profile = "sanming"
    a, b = (simulate(profile, 8, "order", o, duplicate=True).to_json() for o in orders)
    assert a["by_kind"] == b["by_kind"]
    a.pop("players"), b.pop("players")
    assert _strip(a) == _strip(b)


def test_duplicate_same_summary_for_any_worker_count() -> None:
    kinds = ("heuristic", "random", "heuristic", "random")
    one = simulate("fuzhou-doudou", 10, 3, kinds, workers=1, duplicate=True).to_json()
    ticks: list[int] = []
    two = simulate("fuzhou-doudou", 10, 3, kinds, workers=2, duplicate=True, progress=ticks.append)
    assert _strip(one) == _strip(two.to_json())
    assert sum(ticks) == 60 and one["hands"] == 60 and one["deals"] == 10


@pytest.mark.xdist_group("ray")  # one Ray instance at a time (tests/conftest.py)
def test_duplicate_ray_backend_gives_the_local_summary() -> None:
    pytest.importorskip("ray")
    from fujian_mahjong.sim.ray_backend import simulate_ray

    kinds = ("heuristic", "random", "random")
    local = simulate("sanming", 6, "ray-dup", kinds, duplicate=True).to_json()
    ray_sm = simulate_ray("sanming", 6, "ray-dup", kinds, workers=2, duplicate=True)
    assert _strip(local) == _strip(ray_sm.to_json())


# ------------------------------------------------------------------------ the CLI


def test_cli_duplicate_json_and_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--duplicate", "--json", "--no-progress", "--hands", "3", "--seed", "c"]
    args += ["--players", "heuristic,random,random", "--profile", "sanming"]
    assert main([*args, "--log-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["duplicate"] is True and (out["deals"], out["seatings"], out["hands"]) == (3, 3, 9)
    for st in out["by_kind"].values():
        assert {"points_per_hand", "ci95", "placement", "deal_ins_per_hand"} <= set(st)
        assert {"mean_points", "ci95_low", "ci95_high", "win_rate", "seats"} <= set(st)
    assert len(out["mean_points_by_seat"]) == 3 and out["dealer_seat"] == 0
    assert len(sorted(tmp_path.glob("hand-*.jsonl"))) == 9
    # the table
    assert main(args[:2] + args[4:]) == 0
    text = capsys.readouterr().out
    assert "3 deals × 3 seatings = 9 hands (duplicate)" in text and "placement" in text
    # without --duplicate the keys are there too (one seating per deal)
    assert main(["simulate", "--json", "--no-progress", "--hands", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["duplicate"] is False and out["seatings"] == 1 and out["hands"] == 4
    assert {"points_per_hand", "ci95", "placement", "deal_ins_per_hand"} <= set(
        out["by_kind"]["heuristic"]
    )
