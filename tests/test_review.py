"""``fujian_mahjong.review`` and ``fjmj review`` (docs/strong-bot.md, "Review") on
stacked-wall hands whose played discard is known to be worse than the heuristic bot's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.engine import Action, Game, build_wall, to_jsonl
from fujian_mahjong.errors import MahjongError, ReplayError
from fujian_mahjong.review import review
from fujian_mahjong.tiles import parse, parse_kind

EXE = [sys.executable, "-m", "fujian_mahjong"]
OTHERS = {
    1: "147m258p369s147m258p3s",
    2: "258m369p147s258m369p4s",
    3: "369m147p258s369m147p2s",
}


def _hand(dealer_tiles: str, bad: str) -> list[dict[str, Any]]:
    """A stacked hand (gold 9p): the dealer's first discard is ``bad``, then bots play."""
    deal = {0: parse(dealer_tiles), **{s: parse(t) for s, t in OTHERS.items()}}
    g = Game.from_wall("fuzhou-tcy", build_wall(deal, (), parse("9p"), 4, 0), (3, 4), 4, 0, 0)
    bots = [HeuristicBot() for _ in range(4)]
    first = True
    while not g.is_over():
        s = g.to_act()[0]
        if s == 0 and first and g.phase == "turn":
            g.apply(0, Action("discard", parse_kind(bad)))
            first = False
            continue
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    return g.events


def test_a_worse_discard_is_flagged_beside_the_bots_choice() -> None:
    # 123m 456m 789m 13p 578p 99s + 1s: discarding the lone 1s keeps shanten 1; breaking
    # the 789m run with 8m costs a shanten
    events = _hand("123m456m789m13p578p99s1s", "8m")
    rv = review(events, 0)
    first = rv["decisions"][0]
    assert first["played"] == {"type": "discard", "tile": "8m"} and not first["agree"]
    assert first["bot"]["type"] == "discard" and first["bot"]["tile"] != "8m"
    assert first["after_played"]["shanten"] > first["after_bot"]["shanten"]
    assert first["after_bot"]["ukeire"] > 0 and first["reason"] and first["reason_zh"]
    assert first["shanten_lost"] >= 1
    sm = rv["summary"]
    assert sm["worst"][0]["line"] == first["line"] and sm["worst"][0]["played"] == "discard 8m"
    assert sm["decisions"] == len(rv["decisions"]) and sm["agreed"] == sm["decisions"] - 1
    assert sm["agreement_rate"] == round(sm["agreed"] / sm["decisions"], 4)
    json.dumps(rv)  # plain data


def test_a_ready_dealer_missing_the_gold_rob() -> None:
    # ready after the deal: the bot robs the gold with its first discard (庄家抢金, a win);
    # discarding 2m instead loses the win and a shanten
    rv = review(_hand("123m456m789m123p45p99s1s", "2m"), 0)
    first = rv["decisions"][0]
    assert (
        first["bot"] == {"type": "rob_gold", "tile": "1s"} and first["after_bot"]["shanten"] == -1
    )
    assert first["before"]["shanten"] == 0 and first["after_played"]["shanten"] == 1
    assert first["shanten_lost"] == 2


def test_bot_seats_agree_with_themselves_and_other_seats_are_untouched() -> None:
    # fuzhou-doudou: honours are playable tiles (R1), so the review counts 34 kinds
    g = Game.new("fuzhou-doudou", seed="review", players=4, dealer=0)
    bots = [HeuristicBot() for _ in range(4)]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    for seat in range(4):
        rv = review(g.events, seat)
        assert all(d["agree"] for d in rv["decisions"]), seat
        assert rv["summary"]["shanten_lost"] == 0 and rv["summary"]["tiles_lost"] == 0


def test_review_refuses_forged_logs_and_bad_seats() -> None:
    events = _hand("123m456m789m13p578p99s1s", "8m")
    with pytest.raises(MahjongError, match="seats 0-3"):
        review(events, 4)
    forged = [dict(e) for e in events]
    i = next(i for i, e in enumerate(forged) if e["type"] == "act" and e["seat"] == 1)
    forged[i] = {**forged[i], "seat": 2}
    with pytest.raises(ReplayError):
        review(forged, 0)


def test_cli_review_text_json_and_errors(tmp_path: Path) -> None:
    log = tmp_path / "hand.jsonl"
    log.write_text(to_jsonl(_hand("123m456m789m13p578p99s1s", "8m")), encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*EXE, "review", *args], capture_output=True, text=True, check=False)

    p = run(str(log), "--seat", "0", "--lang", "en")
    assert p.returncode == 0, p.stderr
    assert "played: discard 8m" in p.stdout and "Agreement:" in p.stdout
    assert "Costliest decisions:" in p.stdout
    p = run(str(log), "--seat", "0")
    assert "一致率" in p.stdout and "你打: 打 8万" in p.stdout and "电脑: 打" in p.stdout
    p = run(str(log), "--seat", "0", "--json")
    data = json.loads(p.stdout)
    assert data["decisions"][0]["played_text"] == "discard 8m"
    for args, code in (
        (["--seat", "9"], 2),
        (["--seat", "x"], 2),
        (["--seat", "True"], 2),
    ):
        p = run(str(log), *args)
        assert p.returncode == code and len(p.stderr.splitlines()) == 1
        assert p.stderr.startswith("fjmj: error:") and "Traceback" not in p.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    p = run(str(empty), "--seat", "0")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = log.read_text().splitlines()
    del lines[6]
    log.write_text("\n".join(lines) + "\n")
    p = run(str(log), "--seat", "0")
    assert p.returncode == 1 and "记录验证失败" in p.stderr and len(p.stderr.splitlines()) == 1
