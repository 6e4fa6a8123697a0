"""R12 views and replay: the spectator's view is built by an allow-list of public keys
(``engine.spectator_view``), a seat's view names no other seat in ``to_act``, ``SeatView``
agrees with ``Game.view``, and the engine's one replay API (``fresh_game`` /
``apply_decisions``) rebuilds a logged hand and names the first event that does not replay.

Positions come from seeded hands played by the engine's bots (every profile; 三明 with 2–4
players), checked at every decision point and at the end."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest

from fujian_mahjong import _compiled
from fujian_mahjong.bots import HeuristicBot, RandomBot
from fujian_mahjong.engine import (
    Game,
    apply_decisions,
    fresh_game,
    replay,
    spectator_view,
)
from fujian_mahjong.engine.spectator import END_KEYS, PUBLIC_KEYS
from fujian_mahjong.errors import ReplayError
from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.tiles import KIND_STR, counts_of, parse, parse_kind

TABLES = [(p, 4) for p in sorted(BUILTIN)] + [("sanming", 2), ("sanming", 3)]
SEEDS = range(12)  # heuristic bots; random bots play SEEDS[:4] too


def reference_public_view(g: Game) -> dict[str, Any]:
    """The table server's spectator view as it was built before the allow-list (seat 0's
    view with the private fields deleted or replaced): the oracle for the same dict."""
    n = g.n
    v = g.view(0)
    if g.is_over():
        v["seat"] = None
        v["legal_actions"] = []
        v["to_act"] = []
        return v
    v["melds"] = [g.view((s + 1) % n)["melds"][s] for s in range(n)]
    v["seat"] = None
    v["hand"] = ""
    v["drawn"] = None
    v["legal_actions"] = []
    v["to_act"] = []
    return v


def play(
    profile: str, players: int, seed: int, bot: str = "heuristic", cls: type[Game] = Game
) -> Iterator[Game]:
    """A seeded hand played by bots: the game at every decision point, then at the end (the
    same object, advanced between yields)."""
    g = cls.new(profile, seed=f"views-{seed}", players=players, dealer=seed % players)
    bots = [
        HeuristicBot(s) if bot == "heuristic" else RandomBot(f"{seed}:{s}") for s in range(players)
    ]
    while not g.is_over():
        yield g
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    yield g


def positions(profile: str, players: int) -> Iterator[Game]:
    for seed in SEEDS:
        yield from play(profile, players, seed)
    for seed in SEEDS[:4]:
        yield from play(profile, players, seed, bot="random")


def finished(profile: str, players: int, seed: int, bot: str = "heuristic") -> Game:
    *_, g = play(profile, players, seed, bot)
    assert g.is_over()
    return g


def has_concealed_kong(g: Game) -> bool:
    return any(m.type == "kong_concealed" for ms in g.melds for m in ms)


def blind(view: dict[str, Any]) -> dict[str, Any]:
    """A seat's view with that seat's own private information removed."""
    v = copy.deepcopy(view)
    s = v["seat"]
    v["melds"][s] = [
        {"type": m["type"], "tiles": None} if m["type"] == "kong_concealed" else m
        for m in v["melds"][s]
    ]
    v.update(seat=None, hand="", drawn=None, legal_actions=[], to_act=[])
    return v


# ---------------------------------------------------------------- the spectator's view


@pytest.mark.parametrize(("profile", "players"), TABLES)
def test_spectator_view_equals_the_old_public_view(profile: str, players: int) -> None:
    phases: set[str] = set()
    for g in positions(profile, players):
        assert spectator_view(g) == reference_public_view(g), (profile, g.phase, len(g.events))
        phases.add(g.phase)
    assert {"turn", "claims", "over"} <= phases


def test_positions_cover_concealed_kongs_hidden_then_revealed() -> None:
    """The hands above include concealed kongs: face down for spectators during the hand,
    shown at the end (as every seat sees them, R12)."""
    hidden = shown = 0
    for profile, players in TABLES:
        for g in positions(profile, players):
            v = spectator_view(g)
            for s in range(g.n):
                for m, shown_m in zip(g.melds[s], v["melds"][s], strict=True):
                    if m.type != "kong_concealed":
                        continue
                    if g.is_over():
                        assert shown_m["tiles"] is not None
                        shown += 1
                    else:
                        assert shown_m == {"type": "kong_concealed", "tiles": None}
                        hidden += 1
    assert hidden and shown


class _LeakyView:
    """A game whose seat views carry a private field that no allow-list knows (duck-typed:
    a compiled ``Game`` cannot be subclassed or patched from Python)."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def view(self, seat: object) -> dict[str, Any]:
        v = self._game.view(seat)
        v["secret"] = v["hand"]
        v["wall_order"] = "".join(KIND_STR[k] for k in range(9))
        return v

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def test_a_private_field_added_to_the_seat_view_does_not_reach_spectators() -> None:
    for profile, players in TABLES:
        for g in play(profile, players, 3):
            leaky: Any = _LeakyView(g)
            assert "secret" in leaky.view(0)
            v = spectator_view(leaky)
            assert "secret" not in v and "wall_order" not in v
            assert v == spectator_view(g)
            # deleting fields from a seat's view (the old way) passed it on
            assert "secret" in reference_public_view(leaky)


def test_a_game_subclass_whose_view_leaks_does_not_reach_spectators() -> None:
    if _compiled.status()["compiled"]:
        # a mypyc-compiled Game cannot be subclassed from Python: the same test runs on the
        # pure-Python fallback in a child process
        import os
        import subprocess
        import sys

        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:xdist",
                "-p",
                "no:randomly",
                f"{__file__}::test_a_game_subclass_whose_view_leaks_does_not_reach_spectators",
            ],
            env={**os.environ, "FJMJ_PURE_PYTHON": "1"},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        return

    class LeakyGame(Game):
        def view(self, seat: object) -> dict[str, Any]:
            v = super().view(seat)
            v["secret"] = v["hand"]
            return v

    seen = 0
    for g in play("fuzhou-tcy", 4, 5, cls=LeakyGame):
        assert isinstance(g, LeakyGame) and "secret" in g.view(1)
        v = spectator_view(g)
        assert "secret" not in v
        assert set(v) <= {"seat", "to_act", "hand", "melds", "legal_actions", "drawn"} | set(
            PUBLIC_KEYS
        ) | set(END_KEYS)
        seen += 1
    assert seen > 10


@pytest.mark.parametrize(("profile", "players"), TABLES)
def test_no_concealed_tile_reaches_a_spectator_before_the_end(profile: str, players: int) -> None:
    for g in positions(profile, players):
        v = spectator_view(g)
        assert v["seat"] is None and v["to_act"] == [] and v["legal_actions"] == []
        if g.is_over():
            assert set(v) == {"seat", "to_act", "hand", "melds", "legal_actions", "drawn"} | set(
                PUBLIC_KEYS
            ) | set(END_KEYS)
            assert v["hands"] == {str(s): g.view(s)["hand"] for s in range(g.n)}
            continue
        assert set(v) == {"seat", "to_act", "hand", "melds", "legal_actions", "drawn"} | set(
            PUBLIC_KEYS
        )
        assert v["hand"] == "" and v["drawn"] is None
        # what any seat sees of the table, less its own tiles: so no seat's concealed tiles
        for s in range(g.n):
            assert v == blind(g.view(s)), (profile, s, len(g.events))
        # the tiles shown are the public ones: melds (concealed kongs face down), discards,
        # flowers and the gold indicator; never a tile still in a hand or in the wall
        shown = [0] * 42
        for s in range(g.n):
            for m in v["melds"][s]:
                for k in parse(m["tiles"] or ""):
                    shown[k] += 1
            for k in parse(v["discards"][s]) + parse(v["flowers"][s]):
                shown[k] += 1
        if v["indicator"]:
            shown[parse_kind(v["indicator"])] += 1
        public = [0] * 42
        for s in range(g.n):
            for m in g.melds[s]:
                if m.type != "kong_concealed":
                    for k in m.tiles:
                        public[k] += 1
            for k in list(g.discards[s]) + list(g.flowers[s]):
                public[k] += 1
        if g.indicator >= 0:
            public[g.indicator] += 1
        assert shown == public
        assert sum(v["hand_sizes"]) == sum(len(g.hand(s)) for s in range(g.n))


# ---------------------------------------------------------------- seat views


@pytest.mark.parametrize(("profile", "players"), TABLES)
def test_seat_views_name_only_their_seat_and_agree_with_seatview(
    profile: str, players: int
) -> None:
    for g in positions(profile, players):
        over = g.is_over()
        for s in range(g.n):
            v = g.view(s)
            sv = g.seat_view(s)
            # R12 rev 2: who must answer is private; the engine reduces to_act to the seat
            assert v["to_act"] == ([s] if s in g.to_act() else [])
            assert bool(v["to_act"]) == bool(v["legal_actions"])
            assert sv.to_json() == v
            assert [a.to_json() for a in sv.legal] == v["legal_actions"]
            kinds = len(sv.counts)
            assert sv.counts == counts_of(parse(v["hand"]), kinds)
            assert (KIND_STR[sv.drawn] if sv.drawn >= 0 else None) == v["drawn"]
            assert sv.seat == v["seat"] and sv.players == v["players"] == g.n
            assert sv.profile_name == v["profile"] and sv.dealer == v["dealer"]
            assert sv.phase == v["phase"] and sv.live == v["live"]
            assert (KIND_STR[sv.gold] if sv.gold >= 0 else None) == v["gold"]
            if v["phase"] == "claims":
                ld = v["last_discard"]
                assert sv.claim == (ld["seat"], parse_kind(ld["tile"]))
            else:
                assert sv.claim == (-1, -1)
            for t in range(g.n):
                melds = [
                    (m["type"], tuple(parse(m["tiles"])) if m["tiles"] is not None else ())
                    for m in v["melds"][t]
                ]
                assert sv.melds(t) == melds, (s, t, over)
                assert sv.exposed(t) == len(v["melds"][t])
                assert sv.discards(t) == parse(v["discards"][t])
                assert sv.flowers(t) == parse(v["flowers"][t])
                assert sv.hand_size(t) == v["hand_sizes"][t]
                assert sv.xian_jin(t) == (t in v["xian_jin"])
                assert sv.gold_discarded(t) == (t in v["gold_discarded"])


# ---------------------------------------------------------------- fresh_game / apply_decisions


def _stacked(profile: str, seed: int) -> Game:
    wall = [k for k in range(34) for _ in range(4)] + list(range(34, 42))
    random.Random(seed).shuffle(wall)
    g = Game.from_wall(profile, wall, dice=(2, 5), players=4, dealer=1, streak=1)
    bots = [HeuristicBot(s) for s in range(4)]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    return g


@pytest.mark.parametrize(("profile", "players"), TABLES)
def test_fresh_game_and_apply_decisions_rebuild_a_logged_hand(profile: str, players: int) -> None:
    for seed in range(3):
        g = finished(profile, players, seed)
        events = copy.deepcopy(g.events)
        start = fresh_game(events)
        assert start.events == events[: len(start.events)] and not start.is_over()
        decided: list[int] = []

        def note(_game: Game, i: int, decided: list[int] = decided) -> None:
            decided.append(i)

        r = apply_decisions(start, events, on_decision=note)
        assert r is start and r.events == events
        assert decided == [i for i, e in enumerate(events) if e["type"] == "act"]
        assert all(r.view(s) == g.view(s) for s in range(g.n))
        assert spectator_view(r) == spectator_view(g)
        assert replay(events).events == events


def test_a_stacked_hand_replays() -> None:
    g = _stacked("fuzhou-tcy", 1)
    assert g.events[0]["stacked"] and g.seed.startswith("stacked:")
    assert replay(g.events).events == g.events


def test_a_hand_in_progress_replays_from_its_seed() -> None:
    """The server's crash restore: the log has no end yet; the seed comes from elsewhere."""
    g = Game.new("fuzhou-tcy", seed="in-progress", players=4, dealer=2)
    bots = [HeuristicBot(s) for s in range(4)]
    checked = 0
    while not g.is_over():
        events = copy.deepcopy(g.events)
        r = apply_decisions(fresh_game(events, seed=g.seed), events)
        assert r.events == g.events and spectator_view(r) == spectator_view(g)
        assert r.to_act() == g.to_act()
        checked += 1
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    assert checked > 10
    with pytest.raises(ReplayError, match="must be 'end' revealing the seed"):
        fresh_game(g.events[:-1])
    with pytest.raises(ReplayError, match="SHA-256"):
        fresh_game(g.events[:-1], seed="another seed")
    with pytest.raises(ReplayError, match="another seed than the one given"):
        fresh_game(g.events, seed="another seed")


def _edit_a_decision(events: list[dict[str, Any]]) -> int:
    """Change a discard into one of a flower (never legal, R1); return its index."""
    for i, e in enumerate(events):
        if i > len(events) // 2 and e["type"] == "act" and e["action"]["type"] == "discard":
            e["action"] = {**e["action"], "tile": "1f"}
            return i
    raise AssertionError("no discard in the second half of the hand")


def test_an_edited_log_fails_naming_its_first_bad_event() -> None:
    g = finished("fuzhou-tcy", 4, 1)
    # an edited decision: illegal or producing other events, at that line
    events = copy.deepcopy(g.events)
    i = _edit_a_decision(events)
    with pytest.raises(ReplayError, match=f"^line {i + 1}: "):
        replay(events)
    with pytest.raises(ReplayError, match=f"^hand 7: stored event {i}: "):
        apply_decisions(fresh_game(g.events), events, where=lambda j: f"hand 7: stored event {j}")
    # an edited event the engine produces (a draw's tile)
    events = copy.deepcopy(g.events)
    j = next(k for k, e in enumerate(events) if k > 10 and e["type"] == "draw")
    events[j] = {**events[j], "tile": "9s" if events[j].get("tile") != "9s" else "8s"}
    with pytest.raises(ReplayError, match=f"^line {j + 1}: logged .* but the replay gives"):
        replay(events)
    # an event where a decision is due
    events = copy.deepcopy(g.events)
    k = next(
        k
        for k, e in enumerate(events)
        if k > 10 and e["type"] == "act" and e["action"]["type"] == "discard"
    )
    events.insert(k, {"type": "draw", "seat": 0})
    with pytest.raises(ReplayError, match=f"^line {k + 1}: .*expected a decision"):
        apply_decisions(fresh_game(g.events), events)
    # a log that stops inside a decision (the act without what it caused)
    events = copy.deepcopy(g.events[: k + 1])
    with pytest.raises(ReplayError, match=f"^line {k + 2}: the log ends early"):
        apply_decisions(fresh_game(g.events), events)
    # the start edited: the commitment fails
    events = copy.deepcopy(g.events)
    events[0]["dealer"] = (events[0]["dealer"] + 1) % 4
    with pytest.raises(ReplayError, match="SHA-256 committed on line 1"):
        fresh_game(events)
