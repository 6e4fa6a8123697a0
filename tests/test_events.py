"""Typed events and phases (engine/events.py): every event the engine writes validates
against its definition, every definition is used and every phase is listed, over a corpus
of real hands (seeded bot hands of every profile and player count, every shipped scenario);
events and server messages survive a JSON round trip and still validate."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import ACTION_TYPES, Action, Game, from_jsonl, to_jsonl
from fujian_mahjong.engine.events import (
    EVENT_TYPES,
    ActionType,
    EventType,
    Phase,
    WinKind,
    validate_event,
)
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.scenario import load_scenarios, run_scenario
from fujian_mahjong.scoring.situation import WIN_KINDS
from fujian_mahjong.server.protocol import server_message
from tests.inproc import running

ROOT = Path(__file__).resolve().parents[1]
GAME_PY = ROOT / "src" / "fujian_mahjong" / "engine" / "game.py"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.json*"))

# (profile, players, bot kind): every profile, sanming with 2, 3 and 4 players
GROUPS = [
    (p, n, kind)
    for p, n in [
        ("fuzhou-tcy", 4),
        ("fuzhou-bianfeng", 4),
        ("fuzhou-doudou", 4),
        ("sanming", 4),
        ("sanming", 3),
        ("sanming", 2),
    ]
    for kind in ("heuristic", "random")
]
HANDS_PER_GROUP = 60
# the phases a view can show: "deal" and "last_group" last only inside Game.new / apply
VISIBLE_PHASES = {"window_a", "turn", "claims", "over"}


@dataclass
class Corpus:
    logs: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)  # (name, log)
    phases: Counter[str] = field(default_factory=Counter)  # view["phase"] values seen

    def add_views(self, g: Game) -> None:
        seats = g.to_act() or [0]
        for s in seats:
            self.phases[g.view(s)["phase"]] += 1


def _bot_hand(c: Corpus, profile: str, n: int, kind: str, i: int) -> None:
    seed = f"events-{profile}-{n}-{kind}-{i}"
    g = Game.new(profile, seed=seed, players=n, dealer=i % n, streak=i % 3)
    bots = [make_bot(kind, f"{seed}:{s}") for s in range(n)]
    c.add_views(g)
    steps = 0
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
        c.add_views(g)
        steps += 1
        assert steps < 5000, seed
    c.logs.append((seed, g.events))


def _scenario_hands(c: Corpus) -> None:
    """Every shipped scenario, played by the scenario runner; its decisions are played again
    on the same stacked wall to see the view's phase after each one."""
    for f in SCENARIOS:
        for sc in load_scenarios(f):
            out = run_scenario(sc)
            assert out.game is not None
            events = out.game.events
            g = Game.from_wall(sc.profile, sc.wall, sc.dice, sc.players, sc.dealer, sc.streak)
            c.add_views(g)
            for e in events:
                if e["type"] == "act":
                    g.apply(e["seat"], Action.from_json(e["action"]))
                    c.add_views(g)
            assert g.events == events, sc.name
            c.logs.append((f"{f.name}: {sc.name}", events))


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    c = Corpus()
    for profile, n, kind in GROUPS:
        for i in range(HANDS_PER_GROUP):
            _bot_hand(c, profile, n, kind, i)
    _scenario_hands(c)
    return c


def test_every_event_of_the_corpus_validates_and_round_trips(corpus: Corpus) -> None:
    n = 0
    for name, log in corpus.logs:
        for i, e in enumerate(log, 1):
            try:
                assert validate_event(e) == e
                back = json.loads(json.dumps(e))
                assert back == e
                assert validate_event(back) == e
            except MahjongError as err:
                pytest.fail(f"{name}, event {i}: {err}")
            n += 1
        # the JSON Lines form (what `fjmj replay` reads) too
        assert [validate_event(e) for e in from_jsonl(to_jsonl(log))] == log
    assert n > 10_000


def test_the_corpus_uses_every_event_type_and_nothing_else(corpus: Corpus) -> None:
    """A new event type in the engine without a definition (or a definition the engine no
    longer writes) fails here."""
    seen = Counter(e["type"] for _, log in corpus.logs for e in log)
    assert set(seen) == set(EVENT_TYPES), (
        f"seen, not defined: {sorted(set(seen) - set(EVENT_TYPES))}; "
        f"defined, never seen: {sorted(set(EVENT_TYPES) - set(seen))}"
    )
    assert set(get_args(EventType)) == set(EVENT_TYPES)
    for t, td in EVENT_TYPES.items():
        assert get_args(get_type_hints(td)["type"]) == (t,), t
    # both forms of the flower event (initial rounds, and a flower drawn in play)
    flowers = [e for _, log in corpus.logs for e in log if e["type"] == "flower"]
    assert any("round" in e for e in flowers) and any("round" not in e for e in flowers)
    # every optional key of every definition occurs, and so does its absence
    for t, td in EVENT_TYPES.items():
        evs = [e for _, log in corpus.logs for e in log if e["type"] == t]
        for k in td.__optional_keys__:
            assert any(k in e for e in evs) and any(k not in e for e in evs), (t, k)


def test_every_event_type_the_engine_source_writes_is_defined() -> None:
    """The same check on the source: every ``self._ev(type="…")`` in engine/game.py."""
    src = GAME_PY.read_text(encoding="utf-8")
    written = set(re.findall(r"_ev\(\s*\{\s*\"type\": \"(\w+)\"", src))
    assert written == set(EVENT_TYPES)
    assert src.count("events.append(") == 1, "events are appended only by Game._ev"


def test_phases(corpus: Corpus) -> None:
    phases = set(Phase)
    src = GAME_PY.read_text(encoding="utf-8")
    # game.py names the members by module constants (_TURN = Phase.TURN: see its comment)
    consts = dict(re.findall(r"^(_[A-Z_]+): Final = Phase\.([A-Z_]+)$", src, re.M))
    assert {Phase[m] for m in consts.values()} == phases
    assert all(k == "_" + m for k, m in consts.items()), consts
    assigned = set(re.findall(r"self\.phase(?:: Phase)? = (_[A-Z_]+)\b", src))
    assert {Phase[consts[c]] for c in assigned} == phases, f"game.py sets {sorted(assigned)}"
    assert not re.search(r"phase (?:==|!=|in) ", src), "game.py compares phases by identity"
    assert set(corpus.phases) <= phases, corpus.phases
    assert set(corpus.phases) >= VISIBLE_PHASES, corpus.phases


def test_value_literals_match_the_engine() -> None:
    assert get_args(ActionType) == ACTION_TYPES
    assert get_args(WinKind) == WIN_KINDS


# ---------------------------------------------------------------------- refusals


def _draw(**kw: Any) -> dict[str, Any]:
    return {"type": "draw", "seat": 1, "tile": "3p", "source": "head", **kw}


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ([1], "JSON object with a 'type'"),
        ({"seat": 1}, "JSON object with a 'type'"),
        ({"type": "teleport"}, "unknown event type 'teleport'"),
        ({"type": "draw", "seat": 1, "tile": "3p"}, "event 'draw': missing field 'source'"),
        (_draw(hidden=True), "event 'draw': unknown field 'hidden'"),
        (_draw(seat="1"), "event 'draw': field 'seat'"),
        (_draw(seat=True), "event 'draw': field 'seat'"),
        (_draw(seat=1.0), "event 'draw': field 'seat'"),
        (_draw(tile="0p"), "field 'tile': expected one tile like '3p'"),
        (_draw(tile="33p"), "field 'tile': expected one tile like '3p'"),
        (_draw(tile=3), "field 'tile'"),
        (_draw(source="middle"), "field 'source'"),
        (
            {"type": "claim", "seat": 1, "meld": "chow", "tiles": "345p", "from": "0"},
            "event 'claim': field 'from'",
        ),
        (
            {"type": "claim", "seat": 1, "meld": "chow", "tiles": "345p"},
            "event 'claim': missing field 'from'",
        ),
        (
            {"type": "act", "seat": 0, "action": {"type": "fold"}},
            "event 'act': field 'action.type'",
        ),
        (
            {"type": "act", "seat": 0, "action": {"type": "discard", "tile": "9z"}},
            "field 'action.tile': expected one tile like '3p'",
        ),
        (
            {"type": "act", "seat": 0, "action": {"type": "pass", "why": "x"}},
            "unknown field 'action.why'",
        ),
        ({"type": "dice", "dice": (3, 4)}, "event 'dice': field 'dice'"),
        ({"type": "deal", "hands": {"0": "123x"}}, "expected tiles in notation"),
        ({"type": "deal", "hands": {"north": "123m"}}, "expected a seat number"),
        (
            {"type": "flower", "seat": 0, "flowers": "1f", "round": "1"},
            "event 'flower': field 'round'",
        ),
        (
            {
                "type": "win",
                "seat": 0,
                "win": "lucky",
                "discarder": None,
                "tile": None,
                "points": 1,
                "payments": [1, -1],
                "specials": [],
            },
            "event 'win': field 'win'",
        ),
        ({"type": "xian_jin"}, "event 'xian_jin': missing field 'seat'"),
    ],
)
def test_a_bad_event_is_refused_naming_the_field(event: Any, words: str) -> None:
    with pytest.raises(MahjongError, match=re.escape(words)):
        validate_event(event)


def test_optional_keys_and_nulls() -> None:
    assert validate_event({"type": "flower", "seat": 2, "flowers": "3f"})
    assert validate_event(
        {"type": "flower", "seat": 2, "round": 1, "flowers": "13f", "drawn": "5m7z"}
    )
    assert validate_event({"type": "gold", "indicator": "5s", "gold": "5s", "to_dealer": ""})
    assert validate_event({"type": "act", "seat": 3, "action": {"type": "chow", "tiles": "46p"}})
    win = {
        "type": "win",
        "seat": 1,
        "win": "three_golds",
        "discarder": None,
        "tile": None,
        "points": 30,
        "payments": [-30, 90, -30, -30],
        "specials": ["san_jin_dao"],
    }
    assert validate_event(win) == win
    with pytest.raises(MahjongError, match="missing field 'tile'"):
        validate_event({k: v for k, v in win.items() if k != "tile"})


# ---------------------------------------------------------------------- server messages


def _pick(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return (
        next((a for a in legal if a["type"] == "win"), None)
        or next((a for a in legal if a["type"] == "discard"), None)
        or next((a for a in legal if a["type"] == "pass"), legal[0])
    )


def test_server_messages_of_a_hand_validate_and_round_trip(tmp_path: Path) -> None:
    """One hand in-process (a human and three bots, a spectator watching): every message
    either client got is a documented server message, also after a JSON round trip, every
    view's phase is a Phase, and the stored log's events validate."""

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            watcher = await h.guest("watcher")
            tid = await h.table(me, bots=3)
            await h.seat(me, tid)
            await h.seat(watcher, tid, as_="spectator")
            await me.send({"type": "ping"})
            await me.send({"type": "teleport"})  # an error message
            await h.ready(me)
            acted = -1
            hinted = False
            for _ in range(3000):
                if me.of_type("hand_end"):
                    break
                st = me.state
                if me.legal and st is not None and st["seq"] != acted:
                    if not hinted:
                        await me.send({"type": "hint"})
                        await h.hints_done()
                        await watcher.send({"type": "leave"})  # "left"
                        hinted = True
                    acted = st["seq"]
                    await me.act(_pick(me.legal))
                else:
                    await h.advance(0.3)
            assert me.of_type("hand_end"), "the hand did not end"
            hand = me.of_type("hand_end")[-1]["hand"]
            r = await h.http.get(f"/api/hands/{hand}/log", params={"format": "json"})
            assert r.status_code == 200, r.text
            return me.messages + watcher.messages, r.json()

    messages, log = asyncio.run(main())
    types = Counter(m["type"] for m in messages)
    for want in ("welcome", "seated", "seats", "state", "hand_start", "discard", "hand_end"):
        assert types[want], (want, types)
    for want in ("pong", "error", "hint", "left"):
        assert types[want], (want, types)
    phases = set(Phase)
    for m in messages:
        server_message.validate_python(m)
        back = json.loads(json.dumps(m))
        assert back == m
        server_message.validate_python(back)
        if m["type"] == "state":
            assert m["view"]["phase"] in phases, m["view"]["phase"]
    assert log and log[0]["type"] == "start" and log[-1]["type"] == "end"
    for e in log:
        assert validate_event(e) == e
