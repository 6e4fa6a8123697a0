"""server/web_api.py: replay frames, review and summary of finished hands (docs/web.md).

Pure functions on event logs (no server, no browser): frames re-apply the log's decisions
with the engine's public API; every frame is omniscient (finished hands only, R12)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.bots import HeuristicBot, RandomBot
from fujian_mahjong.engine import Game
from fujian_mahjong.server.web_api import build_replay, build_review, summarize
from fujian_mahjong.tiles import parse


def play(seed: int, profile: str = "fuzhou-tcy", players: int = 4, bot: str = "heuristic") -> Game:
    g = Game.new(profile, seed=seed, players=players, dealer=seed % players, streak=0)
    bots = [
        HeuristicBot(s) if bot == "heuristic" else RandomBot(f"{seed}:{s}") for s in range(players)
    ]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    return g


def acts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "act"]


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    profile=st.sampled_from(["fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming"]),
    bot=st.sampled_from(["heuristic", "random"]),
)
def test_replay_frames_follow_the_log(seed: int, profile: str, bot: str) -> None:
    players = 3 if profile == "sanming" and seed % 2 else 4
    g = play(seed, profile, players, bot)
    events = g.events
    out = build_replay(events)
    frames = out["frames"]
    # one frame before the first decision, then one per decision
    assert len(frames) == len(acts(events)) + 1
    assert [f["actor"] for f in frames[1:]] == [a["seat"] for a in acts(events)]
    assert [f["action"] for f in frames[1:]] == [a["action"] for a in acts(events)]
    for f in frames:
        s = f["state"]
        # omniscient: every seat's concealed tiles are there, and agree with the counts
        assert [len(parse(h)) for h in s["hands"]] == s["hand_sizes"]
        assert len(s["melds"]) == players
    last = frames[-1]["state"]
    assert last["phase"] == "over"
    end = events[-1]
    assert [last["hands"][i] for i in range(players)] == [
        end["hands"][str(i)] for i in range(players)
    ]
    assert out["score"] == g.view(0)["score"]


def test_replay_frame_zero_is_after_the_deal_and_the_gold() -> None:
    g = play(7)
    f0 = build_replay(g.events)["frames"][0]
    assert f0["actor"] is None and f0["action"] is None
    assert f0["state"]["gold"] is not None
    assert sum(f0["state"]["hand_sizes"]) == 17 + 16 * 3
    # narrated in both languages
    assert f0["text"] and all(x["zh"] and x["en"] for x in f0["text"])


def test_summary_names_what_each_gold_stands_for() -> None:
    # find a won hand whose decomposition uses a gold
    for seed in range(200):
        g = play(seed)
        sm = summarize(g)
        dec = sm["decomposition"]
        if dec and any(grp["golds"] for grp in [*dec["melds"], dec["pair"]]):
            break
    else:
        pytest.fail("no gold-using win in 200 hands")
    assert sm["result"]["winner"] is not None
    groups = [*dec["melds"], dec["pair"]]
    for grp in groups:
        kinds = parse(grp["tiles"])
        for k in grp["golds"]:
            assert k in [f"{x % 9 + 1}{'mps'[x // 9]}" for x in kinds]
    assert sm["score"]["breakdown"]


def test_review_marks_decisions_with_their_frame() -> None:
    g = play(11)
    events = g.events
    out = build_review(events, 1, bot="heuristic")
    frames = build_replay(events)["frames"]
    assert out["total"] == len(out["decisions"]) > 0
    assert out["agree"] == sum(d["agree"] for d in out["decisions"])
    for d in out["decisions"]:
        nxt = frames[d["frame"] + 1]
        # the decision taken in frame i is the action that leads to frame i+1
        assert nxt["actor"] == 1 and nxt["action"] == d["played"]
        assert d["reason"] and d["reason_zh"]
    # all four seats were heuristic bots: the review agrees with every decision
    assert out["agree"] == out["total"]


def test_review_rejects_a_seat_not_at_the_table() -> None:
    g = play(3, "sanming", 3)
    with pytest.raises(ValueError, match="seat must be 0-2"):
        build_review(g.events, 3)
