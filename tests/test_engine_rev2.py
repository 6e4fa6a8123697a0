"""Rules revision 2 in the engine (RULES.md, docs/decisions.md): playable honours
(R1/R5/R7), 边锋 rotation after a draw (R9), private claim windows (R12), malformed actions,
unpredictable seeds and a commitment over the whole start of a hand (R12), and the smaller
holes (seat, streak, tiles in a rob-the-kong window, Match.record, narration of concealed
kongs)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fujian_mahjong.engine import (
    ACTION_TYPES,
    Action,
    Game,
    Match,
    build_wall,
    from_jsonl,
    hand_seed,
    replay,
    seed_commitment,
    to_jsonl,
)
from fujian_mahjong.engine.narrate import describe
from fujian_mahjong.errors import IllegalAction, MahjongError, ReplayError
from fujian_mahjong.rules import BUILTIN, get_profile
from fujian_mahjong.tiles import HONOUR_KINDS, parse
from tests import gamestate

ROOT = Path(__file__).resolve().parents[1]
PASS = Action("pass")


def random_play(g: Game, rng: random.Random, steps: int | None = None) -> Game:
    """Random legal decisions (wins usually taken) until the end or ``steps`` decisions."""
    n = 0
    while not g.is_over() and (steps is None or n < steps):
        s = g.to_act()[0]
        legal = g.legal_actions(s)
        wins = [a for a in legal if a.type in ("win", "three_golds", "rob_gold")]
        g.apply(s, rng.choice(wins) if wins and rng.random() < 0.8 else rng.choice(legal))
        n += 1
    return g


def state_of(g: Game) -> bytes:
    """The whole game state, byte for byte (the legal-action cache aside)."""
    return gamestate.state_of(g)


def scenario(path: str, index: int = 0) -> dict[str, Any]:
    text = (ROOT / "scenarios" / path).read_text(encoding="utf-8")
    if path.endswith(".jsonl"):
        return dict(json.loads(text.splitlines()[index]))
    return dict(json.loads(text))


def game_of(sc: dict[str, Any]) -> Game:
    deal = {int(s): parse(t) for s, t in sc["deal"].items()}
    players = sc.get("players", 4)
    wall = build_wall(
        deal, parse(sc.get("draws", "")), parse(sc.get("tail", "")), players, sc.get("dealer", 0)
    )
    return Game.from_wall(sc["profile"], wall, players=players, dealer=sc.get("dealer", 0))


def drive(g: Game, actions: list[dict[str, Any]]) -> Game:
    """Play scripted actions; every other seat that must answer passes (like the runner)."""
    for a in actions:
        seat = a["seat"]
        act = Action.from_json(a)
        while not (seat in g.to_act() and act in g.legal_actions(seat)):
            waiting = g.to_act()
            other = next((s for s in waiting if s != seat), seat)
            assert g.phase != "turn", f"{a} is not legal at a turn"
            g.apply(other, PASS)
        g.apply(seat, act)
    return g


# ---------------------------------------------------------------- R1/R5/R7 honours


@pytest.mark.parametrize("profile", BUILTIN)
def test_honours_are_tiles_only_where_the_profile_plays_them_r1(profile: str) -> None:
    """斗斗 deals, keeps, discards and melds 东南西北中发白; elsewhere they are flowers."""
    prof = get_profile(profile)
    rng = random.Random(1)
    seen_in_hand = seen_discarded = seen_pong = 0
    for seed in range(60):
        g = Game.new(profile, seed=seed, players=4)
        while not g.is_over():
            s = g.to_act()[0]
            legal = g.legal_actions(s)
            for a in legal:  # R7: never a chow of honours
                assert not (a.type == "chow" and any(k >= 27 for k in a.tiles))
            random_play(g, rng, steps=1)
            for t in range(4):
                assert len(g.counts[t]) == 34
                seen_in_hand += sum(g.counts[t][27:])
        for t in range(4):
            fl = g.flowers[t]
            if prof.honours_playable:
                assert all(k >= 34 for k in fl), "only 1f-8f are flowers in doudou"
            else:
                assert not any(g.counts[t][27:])
        seen_discarded += sum(1 for d in g.discards for k in d if k in HONOUR_KINDS)
        seen_pong += sum(1 for ms in g.melds for m in ms if m.type == "pong" and m.tiles[0] >= 27)
        assert sum(g.tiles_accounted()) == 144
    if prof.honours_playable:
        assert seen_in_hand and seen_discarded and seen_pong
    else:
        assert seen_in_hand == seen_discarded == seen_pong == 0


def test_honour_gold_and_views_show_honours() -> None:
    sc = scenario("r1-r5-r7-doudou-honours.jsonl", 3)
    g = game_of(sc)
    assert g.gold == 29  # 3z (西) is the gold kind (R5, revision 2)
    v = g.view(0)
    assert v["gold"] == "3z" and "3z" in v["hand"]
    sv = g.seat_view(0)
    assert len(sv.counts) == 34 and sv.counts[29] == 1 and sv.playable_kinds == 34
    assert len(sv.visible_counts()) == 34 and sv.visible_counts()[29] == 2  # + indicator
    assert sv.honours_playable and sv.kh == 0  # the honour gold is a wildcard, not natural


# ---------------------------------------------------------------- R9 边锋 rotation


def _play_match_hand(m: Match, rng: random.Random) -> Game:
    g = m.next_hand()
    random_play(g, rng)
    m.record(g)
    return g


@pytest.mark.parametrize("profile", ["fuzhou-bianfeng", "fuzhou-tcy"])
def test_match_rotation_after_a_draw_r9(profile: str) -> None:
    """边锋: after a draw the dealer's next player deals and the streak resets (revision 2);
    the other profiles keep the dealer."""
    m = Match(profile, seed="rotation", players=4, dealer=1)
    rng = random.Random(5)
    draws = 0
    for _ in range(40):
        dealer, streak = m.dealer, m.streak
        g = _play_match_hand(m, rng)
        if g.win is None:
            draws += 1
            if profile == "fuzhou-bianfeng":
                assert (m.dealer, m.streak) == ((dealer + 1) % 4, 0)
            else:
                assert (m.dealer, m.streak) == (dealer, streak)
        elif g.win["winner"] == dealer:
            assert (m.dealer, m.streak) == (dealer, streak + 1)
        else:
            assert (m.dealer, m.streak) == ((dealer + 1) % 4, 0)
    assert draws >= 3


# ---------------------------------------------------------------- R12 private windows


def _window_deals() -> list[dict[int, list[int]]]:
    """Deals that differ only in seats 2 and 3's concealed tiles. The dealer's first
    discard 5p is answered by seat 1 (a pong) and by exactly one other seat (ready, so it
    may rob the gold): seat 3 in the first deal, seat 2 in the second, both in the third."""
    dealer = parse("5p147m258s369p1s4s7s2m5m8m9m")
    viewer = parse("5p5p1m4m7m2s5s8s3p6p9p3s6s2m8m1p")
    ready = parse("123m456m789m123s456s5p")
    junk = parse("3m6m9m7s8s9s4p7p8p1p2p4s3m6m9m6s")
    ready2 = parse("123m456m789m123s456s9s")
    return [
        {0: dealer, 1: viewer, 2: junk, 3: ready},
        {0: dealer, 1: viewer, 2: ready, 3: junk},
        {0: dealer, 1: viewer, 2: ready2, 3: ready},
    ]


def test_claim_window_views_are_private_r12() -> None:
    views_before, views_after = [], []
    for deal in _window_deals():
        g = Game.from_wall("fuzhou-tcy", build_wall(deal, (), parse("9s")))
        g.apply(0, Action("discard", parse("5p")[0]))
        assert g.phase == "claims" and 1 in g.to_act() and len(g.to_act()) >= 2
        views_before.append(g.view(1))
        other = next(s for s in g.to_act() if s != 1)
        g.apply(other, PASS)
        views_after.append(g.view(1))
    assert g.to_act() == [1, 3]  # the referee's API still lists every seat asked
    for vs in (views_before, views_after):
        assert all(v == vs[0] for v in vs), "a seat's view depends on other seats' tiles"
        assert vs[0]["to_act"] == [1] and vs[0]["phase"] == "claims"
    # a seat that is not asked sees only that a window is open
    g = Game.from_wall("fuzhou-tcy", build_wall(_window_deals()[0], (), parse("9s")))
    g.apply(0, Action("discard", parse("5p")[0]))
    assert g.view(2)["to_act"] == [] and g.view(2)["phase"] == "claims"
    assert g.view(0)["to_act"] == []  # the discarder neither


def test_opening_window_views_are_private_r12() -> None:
    """Window A: the dealer may declare 天胡 and one other seat holds three golds — seat 2 in
    one deal, seat 3 in the other. Seat 1, not asked, sees the same view in both."""
    dealer = parse("123m456m789m123p55p456p")
    viewer = parse("147m258p369p147s258s3s")
    golds = parse("9s9s9s2m5m8m1p4p7p3s6s2s5s1s4s7s")
    junk = parse("3m6m9m3p6p9p8s8s2m5m8m1p4p7p6s3s")
    views: list[list[dict[str, Any]]] = []
    for deal in (
        {0: dealer, 1: viewer, 2: golds, 3: junk},
        {0: dealer, 1: viewer, 2: junk, 3: golds},
    ):
        g = Game.from_wall("fuzhou-tcy", build_wall(deal, (), parse("9s")))
        assert g.phase == "window_a" and len(g.to_act()) == 2
        before = g.view(1)
        g.apply(0, PASS)  # the dealer passes on 天胡
        assert g.phase == "window_a"
        views.append([before, g.view(1)])
        assert views[-1][0]["to_act"] == [] and g.view(0)["to_act"] == []
        assert g.view(g.to_act()[0])["to_act"] == g.to_act()
    assert views[0] == views[1]


@pytest.mark.parametrize("profile", BUILTIN)
def test_view_to_act_names_only_the_viewer_r12(profile: str) -> None:
    rng = random.Random(3)
    for seed in range(30):
        g = Game.new(profile, seed=seed)
        while not g.is_over():
            for s in range(g.n):
                v = g.view(s)
                assert v["to_act"] == ([s] if s in g.to_act() else [])
            random_play(g, rng, steps=1)


# ---------------------------------------------------------------- malformed actions

_BAD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True),
    st.text(max_size=4),
    st.lists(st.integers(-50, 300), max_size=6),
    st.tuples(st.integers(-50, 300), st.text(max_size=2)),
    st.just(b"5p"),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
_TYPES = st.one_of(st.sampled_from(ACTION_TYPES), _BAD_VALUES)
_TILES = st.one_of(
    st.tuples(st.integers(-5, 45), st.integers(-5, 45)),
    st.lists(st.integers(0, 41), max_size=6).map(tuple),
    _BAD_VALUES,
)
_RAW_ACTION = st.tuples(_TYPES, st.one_of(st.integers(-3, 260), _BAD_VALUES), _TILES)


def _raw(typ: Any, tile: Any, tiles: Any) -> Action:
    """An Action built around ``__init__`` (as unpickling or a careless caller might)."""
    a = object.__new__(Action)
    object.__setattr__(a, "type", typ)
    object.__setattr__(a, "tile", tile)
    object.__setattr__(a, "tiles", tiles)
    return a


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 10**6),
    st.sampled_from(BUILTIN),
    st.integers(0, 60),
    st.lists(st.tuples(st.integers(-2, 5), _RAW_ACTION), min_size=10, max_size=30),
)
def test_malformed_actions_raise_illegal_action_and_change_nothing(
    seed: int, profile: str, steps: int, attempts: list[tuple[int, tuple[Any, Any, Any]]]
) -> None:
    """Thousands of malformed actions over random games: only IllegalAction, state intact."""
    g = random_play(Game.new(profile, seed=seed), random.Random(seed), steps)
    for seat, (typ, tile, tiles) in attempts:
        for around_init in (False, True):
            before = state_of(g)
            try:
                a = _raw(typ, tile, tiles) if around_init else Action(typ, tile, tiles)
                if 0 <= seat < g.n and not g.is_over() and a in g.legal_actions(seat):
                    continue  # well formed and legal: not what this test is about
                g.apply(seat, a)
            except IllegalAction:
                pass
            else:  # pragma: no cover - the assertion explains
                pytest.fail(f"seat {seat}: {typ!r}, {tile!r}, {tiles!r} was accepted")
            assert state_of(g) == before


@pytest.mark.parametrize(
    ("typ", "tile", "tiles", "needle"),
    [
        ("jin_kan", 200, (), "tile must be a kind"),
        ("discard", "5p", (), "tile must be a kind"),
        ("discard", True, (), "tile must be a kind"),
        ("chow", -1, [3, 4], "tiles must be a tuple"),
        ("chow", -1, (3, "4"), "tiles must be kinds"),
        ("chow", -1, (3, 99), "tiles must be kinds"),
        ("steal", -1, (), "unknown action"),
        (None, -1, (), "unknown action"),
    ],
)
def test_examples_from_the_fuzz(typ: Any, tile: Any, tiles: Any, needle: str) -> None:
    with pytest.raises(IllegalAction, match=needle):
        Action(typ, tile, tiles)
    g = Game.new("fuzhou-tcy", seed=11)
    before = state_of(g)
    with pytest.raises(IllegalAction, match=needle):
        g.apply(g.to_act()[0], _raw(typ, tile, tiles))
    assert state_of(g) == before


# ---------------------------------------------------------------- seeds, commitment (R12)


def test_seeds_without_an_explicit_seed_are_random_128_bit() -> None:
    a, b = Game.new("fuzhou-tcy"), Game.new("fuzhou-tcy")
    assert len(a.seed) == 32 and int(a.seed, 16) >= 0 and a.seed != b.seed
    m1, m2 = Match("fuzhou-tcy"), Match("fuzhou-tcy")
    assert len(m1.seed) == 32 and m1.seed != m2.seed
    # an explicit seed stays reproducible (documented as not secret)
    assert Game.new("sanming", seed="x").events == Game.new("sanming", seed="x").events


def test_hand_seeds_are_hmacs_of_the_match_seed_r12() -> None:
    m = Match("fuzhou-tcy", seed="table-42", dealer=0)
    rng = random.Random(1)
    g0 = _play_match_hand(m, rng)
    revealed = g0.events[-1]["seed"]
    assert revealed == hand_seed("table-42", 0)
    g1 = m.next_hand()
    want = hmac.new(b"table-42", b"1", hashlib.sha256).hexdigest()
    assert g1.seed == want
    guesses = [
        "table-42:1",
        f"{revealed}:1",
        f"{revealed}1",
        "table-42-1",
        "1",
        hand_seed(revealed, 1),  # keyed with the revealed seed
        hand_seed("table-43", 1),  # a wrong key
        hand_seed("table-42", 0),
        hmac.new(b"table-42", b"1", hashlib.sha1).hexdigest(),
    ]
    assert g1.seed not in guesses
    walls = {tuple(Game.new("fuzhou-tcy", seed=s, dealer=g1.dealer).wall) for s in guesses}
    assert tuple(g1.wall) not in walls
    # reproducible with the same explicit match seed
    assert Match("fuzhou-tcy", seed="table-42", dealer=0).next_hand().seed == revealed


@pytest.mark.parametrize(("field", "value"), [("streak", 3), ("dealer", 2), ("players", 3)])
def test_editing_the_start_of_a_log_breaks_verification_r12(field: str, value: int) -> None:
    g = random_play(Game.new("sanming", seed=4, players=4, dealer=1), random.Random(4))
    assert replay(from_jsonl(to_jsonl(g.events))).events == g.events
    events = copy.deepcopy(g.events)
    assert events[0][field] != value
    events[0][field] = value
    with pytest.raises(ReplayError, match="SHA-256 committed on line 1"):
        replay(events)


def test_commitment_is_a_hash_of_the_whole_start() -> None:
    g = Game.new("fuzhou-bianfeng", seed="s", dealer=3, streak=2)
    c = g.events[0]["seed_sha256"]
    assert c == seed_commitment("s", profile="fuzhou-bianfeng", players=4, dealer=3, streak=2)
    assert c != hashlib.sha256(b"s").hexdigest()
    for kw in (dict(dealer=2), dict(streak=1), dict(profile="fuzhou-tcy"), dict(players=3)):
        args: dict[str, Any] = dict(profile="fuzhou-bianfeng", players=4, dealer=3, streak=2)
        args.update(kw)
        assert seed_commitment("s", **args) != c


# ---------------------------------------------------------------- smaller holes


@pytest.mark.parametrize("seat", [-1, 4, 99, True, "0", 1.0, None])
def test_views_reject_a_seat_outside_the_table(seat: Any) -> None:
    g = Game.new("fuzhou-tcy", seed=1)
    with pytest.raises(IllegalAction, match="no seat"):
        g.view(seat)
    with pytest.raises(IllegalAction, match="no seat"):
        g.seat_view(seat)


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        (dict(streak=-1), "streak"),
        (dict(streak=101), "streak"),
        (dict(streak="3"), "streak"),
        (dict(streak=True), "streak"),
        (dict(players=5), "players"),
        (dict(players="4"), "players"),
        (dict(dealer=4), "dealer"),
        (dict(dealer=-1), "dealer"),
        (dict(dealer=1.0), "dealer"),
    ],
)
def test_game_new_validates_streak_players_dealer(kw: dict[str, Any], needle: str) -> None:
    with pytest.raises(MahjongError, match=needle):
        Game.new("fuzhou-tcy", seed=1, **kw)


@pytest.mark.parametrize(
    ("kw", "needle"),
    [(dict(players=3), "players"), (dict(players=True), "players"), (dict(dealer=4), "dealer")],
)
def test_match_validates_players_and_dealer(kw: dict[str, Any], needle: str) -> None:
    with pytest.raises(MahjongError, match=needle):
        Match("fuzhou-tcy", seed=1, **kw)


def test_tiles_accounted_during_a_rob_the_kong_window() -> None:
    sc = scenario("r6-rob-kong.jsonl", 0)
    g = drive(game_of(sc), sc["actions"][:8])
    assert g.phase == "claims" and g.claim_kind == "rob_kong"
    assert sum(g.tiles_accounted()) == 144
    before = g.tiles_accounted()
    g.apply(3, PASS)  # nobody robs: the kong completes
    assert g.tiles_accounted() == before


def test_an_unrobbed_kongs_window_leaves_no_trace_in_the_view() -> None:
    """R6 (抢杠, sanming), R12: once nobody robs the added kong, every seat's view names the
    last discard again (the dealer's 6p), as after an added kong nobody could rob; the tile
    offered to rob is the view's ``last_discard`` only while its window is open."""
    sc = scenario("r6-rob-kong.jsonl", 0)
    g = drive(game_of(sc), sc["actions"][:8])
    assert g.view(3)["last_discard"] == {"seat": 1, "tile": "5m"}
    g.apply(3, PASS)
    for seat in range(4):
        assert g.view(seat)["last_discard"] == {"seat": 0, "tile": "6p"}
    assert g.view(1)["melds"][1][-1]["type"] == "kong_added"


def test_match_record_takes_only_its_own_last_hand_once() -> None:
    m = Match("fuzhou-tcy", seed=2)
    rng = random.Random(2)
    g = m.next_hand()
    random_play(g, rng)
    stranger = random_play(Game.new("fuzhou-tcy", seed=3), rng)
    with pytest.raises(MahjongError, match="dealt last"):
        m.record(stranger)
    m.record(g)
    with pytest.raises(MahjongError, match="dealt last"):
        m.record(g)
    assert m.hands_played == 1 and len(m.history) == 1


def test_narration_hides_another_seats_concealed_kong_r12() -> None:
    sc = scenario("r6-kong-only-after-a-draw.jsonl")
    g = drive(game_of(sc), sc["actions"])
    kong = next(e for e in g.events if e["type"] == "kong" and e["kind"] == "concealed")
    assert kong["seat"] == 1 and kong["tile"] == "3s"
    for lang, tile in (("en", "3s"), ("zh", "3条")):
        assert tile in (describe(kong, lang) or "")  # the referee's narration
        assert tile in (describe(kong, lang, viewer=1) or "")  # its owner
        hidden = describe(kong, lang, viewer=0) or ""
        assert hidden and tile not in hidden
        assert tile in (describe(kong, lang, viewer=0, hand_over=True) or "")
        lines = [describe(e, lang, viewer=2) or "" for e in g.events]
        assert not any(tile in line and "1" in line for line in lines[-3:])
    # another seat's answers in a claim window are not narrated to a viewer
    pong_act = next(e for e in g.events if e["type"] == "act" and e["action"]["type"] == "pong")
    assert describe(pong_act, "en", viewer=0) is None
    assert describe(pong_act, "en", viewer=1) is not None
    claim = next(e for e in g.events if e["type"] == "claim")
    assert "7m" in (describe(claim, "en", viewer=0) or "")  # the outcome is public
