"""R2–R9, R12: engine invariants over random play, illegal actions, replay, views, match."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.engine import Action, Game, Match, Phase, from_jsonl, replay, to_jsonl
from fujian_mahjong.errors import IllegalAction, MahjongError, ReplayError
from fujian_mahjong.rules import BUILTIN, get_profile
from fujian_mahjong.scoring import level_for
from fujian_mahjong.tiles import flower_sets, parse, physical_set
from tests import gamestate

PHYS = [physical_set().count(k) for k in range(42)]


def policy(rng: random.Random, legal: list[Action]) -> Action:
    """Random legal play that usually takes a win (so wins as well as draws are covered)."""
    wins = [a for a in legal if a.type in ("win", "three_golds", "rob_gold")]
    if wins and rng.random() < 0.8:
        return rng.choice(wins)
    return rng.choice(legal)


def check_invariants(g: Game) -> None:
    # all 144 tiles accounted for (R1)
    assert g.tiles_accounted() == PHYS
    n = g.n
    gold = g.gold
    for s in range(n):
        # hand sizes consistent: 3k+1 between turns, 3k+2 for the seat to discard (R6)
        size = g.hand_size(s) + 3 * len(g.melds[s])
        assert size in (16, 17), (s, size)
        # no flower in a concealed hand (R1/R4): hands are counts over the 34 suited and
        # honour kinds, and the honours stay 0 where the profile treats them as flowers
        assert len(g.counts[s]) == 34
        if not g.profile.honours_playable:
            assert not any(g.counts[s][27:])
    # never more than 3 golds live (R5)
    assert sum(g.counts[s][gold] for s in range(n)) <= 3 + (
        1 if g.win and g.win["win"] == "rob_gold" else 0
    )
    # live/reserve arithmetic (R5)
    ek = sum(1 for s in range(n) for m in g.melds[s] if m.type in ("kong_exposed", "kong_added"))
    ak = sum(1 for s in range(n) for m in g.melds[s] if m.type == "kong_concealed")
    sets = sum(flower_sets(f, g.profile.honours_playable) for f in g.flowers)
    assert g.reserve == g.profile.reserve(ek, ak, sets)
    assert g.live == max(0, g.wall_left - g.reserve)


def check_views(g: Game) -> None:
    """R12: a seat's view holds only its own concealed tiles; never the wall order."""
    over = g.is_over()
    for s in range(g.n):
        v = g.view(s)
        assert sorted(parse(v["hand"])) == g.hand(s)
        text = json.dumps(v)
        assert "wall_order" not in text and "seed" not in v
        if not over:
            assert "hands" not in v
            for o in range(g.n):
                for m in v["melds"][o]:
                    if o != s and m["type"] == "kong_concealed":
                        assert m["tiles"] is None
        else:
            assert set(v["hands"]) == {str(x) for x in range(g.n)}


def play(profile: str, seed: int, players: int = 4, check: bool = True) -> Game:
    rng = random.Random(seed)
    g = Game.new(profile, seed=seed, players=players, dealer=seed % players)
    steps = 0
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, policy(rng, g.legal_actions(s)))
        steps += 1
        if check:
            check_invariants(g)
            if steps % 7 == 0:
                check_views(g)
    check_views(g)
    return g


@pytest.mark.parametrize("profile", BUILTIN)
@pytest.mark.parametrize("chunk", range(4))
def test_random_hands_keep_invariants_and_replay(profile: str, chunk: int) -> None:
    """2,000 complete hands per profile (4 chunks of 500), every event checked."""
    kinds: dict[str, int] = {}
    for i in range(500):
        seed = chunk * 500 + i
        players = 2 + seed % 3 if profile == "sanming" else 4
        g = play(profile, seed, players)
        k = g.win["win"] if g.win else "draw"
        kinds[k] = kinds.get(k, 0) + 1
        assert g.events[0]["type"] == "start" and g.events[-1]["type"] == "end"
        if i % 5 == 0:
            again = replay(from_jsonl(to_jsonl(g.events)))
            assert again.events == g.events
            assert again.score() == g.score()
    assert kinds.get("draw", 0) < 500 and len(kinds) >= 3, kinds


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(BUILTIN))
def test_determinism_same_seed_same_decisions(seed: int, profile: str) -> None:
    a = play(profile, seed, check=False)
    b = play(profile, seed, check=False)
    assert a.events == b.events


def test_different_seeds_differ() -> None:
    a = Game.new("fuzhou-tcy", seed=1)
    b = Game.new("fuzhou-tcy", seed=2)
    assert a.events[2] != b.events[2]


def _state(g: Game) -> bytes:
    """The whole game state, byte for byte (the legal-action cache aside)."""
    return gamestate.state_of(g)


@pytest.mark.parametrize(
    ("seat", "action", "why"),
    [
        (1, Action("discard", 0), "may not act"),
        (0, Action("discard", 26), "not legal"),
        (0, Action("pong"), "not legal"),
        (7, Action("pass"), "no seat 7"),
        (0, Action("chow", -1, (0, 1)), "not legal"),
    ],
)
def test_illegal_actions_raise_and_change_nothing(seat: int, action: Action, why: str) -> None:
    g = Game.new("fuzhou-tcy", seed=11)
    while g.phase != "turn":
        g.apply(g.to_act()[0], Action("pass"))
    if 26 in g.hand(g.turn):
        pytest.fail("seed 11 was chosen so that the dealer holds no 9s")
    before = _state(g)
    with pytest.raises(IllegalAction, match=why):
        g.apply(seat, action)
    assert _state(g) == before


def test_acting_after_the_end_is_illegal() -> None:
    g = play("fuzhou-tcy", 3, check=False)
    n = len(g.events)
    with pytest.raises(IllegalAction, match="over"):
        g.apply(0, Action("pass"))
    assert len(g.events) == n


def test_claim_not_offered_is_illegal() -> None:
    g = Game.new("sanming", seed=5)
    while g.phase != "claims":
        s = g.to_act()[0]
        legal = g.legal_actions(s)
        g.apply(s, next((a for a in legal if a.type == "discard"), legal[-1]))
    waiting = set(g.to_act())
    outsider = next(s for s in range(g.n) if s not in waiting and s != g.claim_from)
    with pytest.raises(IllegalAction):
        g.apply(outsider, Action("pong"))
    with pytest.raises(IllegalAction):
        g.apply(g.claim_from, Action("pass"))


def test_seed_commitment_r12() -> None:
    import hashlib

    g = play("fuzhou-doudou", 9, check=False)
    # revision 2: the commitment hashes the whole start of the hand, canonically encoded
    canon = '{"dealer":1,"players":4,"profile":"fuzhou-doudou","seed":"9","streak":0,"version":2}'
    assert g.events[0]["seed_sha256"] == hashlib.sha256(canon.encode()).hexdigest()
    assert g.events[-1]["seed"] == "9"
    assert "seed" not in g.events[0]


def test_replay_detects_tampering() -> None:
    g = play("sanming", 4, check=False)
    lines = to_jsonl(g.events).splitlines()
    # change a drawn tile
    i = next(i for i, e in enumerate(g.events) if e["type"] == "draw")
    bad = json.loads(lines[i])
    bad["tile"] = "1m" if bad["tile"] != "1m" else "2m"
    lines[i] = json.dumps(bad)
    with pytest.raises(ReplayError, match=f"line {i + 1}:"):
        replay(from_jsonl("\n".join(lines)))
    # a different revealed seed does not match the commitment
    end = json.loads(lines[-1])
    end["seed"] = "other"
    with pytest.raises(ReplayError, match="SHA-256"):
        replay(from_jsonl("\n".join([*to_jsonl(g.events).splitlines()[:-1], json.dumps(end)])))
    with pytest.raises(ReplayError, match="line 2: not valid JSON"):
        from_jsonl('{"type":"start"}\n{oops\n')


def test_cli_replay(tmp_path: Path) -> None:
    g = play("fuzhou-tcy", 21, check=False)
    f = tmp_path / "hand.jsonl"
    f.write_text(to_jsonl(g.events))
    exe = [sys.executable, "-m", "fujian_mahjong", "replay"]
    p = subprocess.run([*exe, str(f), "--lang", "en"], capture_output=True, text=True, check=False)
    assert p.returncode == 0 and "log verified" in p.stdout and "Gold flip" in p.stdout
    lines = f.read_text().splitlines()
    del lines[5]
    f.write_text("\n".join(lines))
    p = subprocess.run([*exe, str(f)], capture_output=True, text=True, check=False)
    assert p.returncode == 1 and "line 6" in p.stderr and "Traceback" not in p.stderr


def test_stacked_wall_must_be_the_set() -> None:
    wall = physical_set()
    wall[0] = 1
    with pytest.raises(MahjongError, match="144-tile set"):
        Game.from_wall("fuzhou-tcy", wall)


def test_player_counts_follow_profile_r2() -> None:
    with pytest.raises(MahjongError, match="4-4"):
        Game.new("fuzhou-tcy", players=3)
    for n in (2, 3, 4):
        g = Game.new("sanming", seed=1, players=n)
        assert [g.hand_size(s) for s in range(n)].count(17) == 1


@pytest.mark.parametrize(
    ("profile", "first", "after_dealer_win", "after_draw", "after_other_win", "draw_dealer"),
    [
        ("fuzhou-tcy", 0, 1, 1, 0, 2),  # L: dealer wins; a draw leaves L (D-18)
        # R9 revision 2: 边锋 passes the deal after a draw and the streak resets
        ("fuzhou-bianfeng", 0, 1, 0, 0, 3),
        ("fuzhou-doudou", 1, 2, 3, 1, 2),  # k: hands dealt including this one
        ("sanming", 0, 1, 2, 0, 2),  # L: +1 on a dealer win and on a draw
    ],
)
def test_match_dealer_rotation_and_streaks_r9(
    profile: str,
    first: int,
    after_dealer_win: int,
    after_draw: int,
    after_other_win: int,
    draw_dealer: int,
) -> None:
    m = Match(profile, seed=1, players=4, dealer=2)
    assert m.streak == first

    def finish(winner: int | None) -> None:
        g = m.next_hand()
        g.phase = Phase.OVER
        if winner is None:
            g._draw_game()
        else:
            g.win = {"winner": winner, "win": "self_draw", "discarder": None}
            from fujian_mahjong.scoring import Score

            g._score = Score(1, tuple(3 if s == winner else -1 for s in range(4)), (), (), winner)
        m.record(g)

    finish(2)
    assert (m.dealer, m.streak) == (2, after_dealer_win)
    finish(None)
    assert (m.dealer, m.streak) == (draw_dealer, after_draw)
    finish(0 if draw_dealer != 0 else 1)
    assert (m.dealer, m.streak) == ((draw_dealer + 1) % 4, after_other_win)
    assert sum(m.totals) == 0
    m.leave(1)
    assert m.over
    with pytest.raises(MahjongError):
        m.next_hand()


def test_match_plays_real_hands_with_running_totals() -> None:
    m = Match("sanming", seed=7, players=3)
    rng = random.Random(7)
    for _ in range(10):
        g = m.next_hand()
        assert g.streak == m.streak and g.dealer == m.dealer
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, policy(rng, g.legal_actions(s)))
        m.record(g)
    assert m.hands_played == 10 and sum(m.totals) == 0
    assert len(m.history) == 10


def test_profiles_validate_on_load(tmp_path: Path) -> None:
    from fujian_mahjong.errors import ProfileError
    from fujian_mahjong.rules import load_profile_file

    src = Path(get_profile("sanming").name)
    text = (
        Path(__file__).resolve().parents[1] / "src/fujian_mahjong/rules/profiles" / f"{src}.toml"
    ).read_text()
    f = tmp_path / "p.toml"
    f.write_text(text.replace('gold_discard = "forbidden"', 'gold_discard = "maybe"'))
    with pytest.raises(ProfileError, match="'gold_discard'"):
        load_profile_file(f)
    f.write_text(text.replace("reserve_base = 20", "reserve_base = -1"))
    with pytest.raises(ProfileError, match="'reserve_base'"):
        load_profile_file(f)
    f.write_text(re.sub(r"^rob_kong.*\n", "", text, flags=re.M))
    with pytest.raises(ProfileError, match="'rob_kong'"):
        load_profile_file(f)
    f.write_text(
        text.replace('name = "sanming"', 'name = "my-sanming"').replace(
            "reserve_base = 20", "reserve_base = 24"
        )
    )
    p = load_profile_file(f)
    g = Game.new(p, seed=1)
    assert g.reserve == 24


def test_game_replay_classmethod() -> None:
    g = play("fuzhou-bianfeng", 12, check=False)
    assert Game.replay(g.events).events == g.events


def test_match_settles_silver_and_ratings_r11() -> None:
    m = Match("fuzhou-tcy", seed=3, players=4, balances=[1000, 1000, 1000, 20], stake=10, fee=2)
    rng = random.Random(3)
    total_before = sum(m.balances)
    fees = 0
    for _ in range(6):
        g = m.next_hand()
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, policy(rng, g.legal_actions(s)))
        m.record(g)
        fees += sum(m.history[-1]["fees"])
        assert all(b >= 0 for b in m.balances)
        assert sum(m.history[-1]["silver"]) == 0
    assert sum(m.balances) == total_before - fees  # only the fee burns silver
    assert all(r >= 0 for r in m.ratings)
    assert [lv.level for lv in m.levels()] == [level_for(r).level for r in m.ratings]
    # a leaver mid-hand: the hand is void, the leaver pays 8 x base x stake + fee
    g = m.next_hand()
    before = list(m.balances)
    m.leave(2)
    assert m.over
    assert m.balances[2] == max(0, before[2] - 8 * 1 * 10 - 2)
    assert [b for i, b in enumerate(m.balances) if i != 2] == [
        b for i, b in enumerate(before) if i != 2
    ]
