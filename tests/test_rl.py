"""The PettingZoo AEC environment and the FujianMahjong-v0 Gymnasium wrapper (docs/rl.md)."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from fujian_mahjong.engine import Action, build_wall
from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.rl import (
    ACTION_NAMES,
    GYM_ID,
    N_ACTIONS,
    OBS_SIZE,
    FujianMahjongEnv,
    action_index,
    env,
    raw_env,
)
from fujian_mahjong.rl import encoding as E
from fujian_mahjong.rules import BUILTIN

TABLES = [(p, 4) for p in BUILTIN] + [("sanming", 3), ("sanming", 2)]
IDS = [f"{p}-{n}p" for p, n in TABLES]


def _play_random(e: FujianMahjongEnv, rng: random.Random) -> int:
    """One hand with masked random agents; returns the number of steps."""
    steps = 0
    while not e.terminations[e.agent_selection]:
        agent = e.agent_selection
        mask = e.observe(agent)["action_mask"]
        e.step(rng.choice(np.flatnonzero(mask).tolist()))
        steps += 1
    return steps


# ------------------------------------------------------------------ encodings


def test_action_table_is_a_bijection_over_34_kinds() -> None:
    assert N_ACTIONS == len(ACTION_NAMES) == len(set(ACTION_NAMES))
    idx = set(E.ACTION_INDEX.values())
    # every non-chow index is reached by exactly one engine action; chows fill the rest
    assert len(idx) == len(E.ACTION_INDEX) == N_ACTIONS - 3
    assert set(range(N_ACTIONS)) - idx == {E.A_CHOW, E.A_CHOW + 1, E.A_CHOW + 2}
    for k in range(34):  # honours 1z-7z (27..33) are playable kinds in fuzhou-doudou (R1)
        assert action_index(Action("discard", k), -1) == E.A_DISCARD + k
        assert action_index(Action("concealed_kong", k), -1) == E.A_CONCEALED_KONG + k
        assert action_index(Action("added_kong", k), -1) == E.A_ADDED_KONG + k
        assert action_index(Action("rob_gold", k), -1) == E.A_ROB_GOLD_DISCARD + k
        assert action_index(Action("jin_kan", k), -1) == E.A_JIN_KAN + k
    assert action_index(Action("rob_gold"), -1) == E.A_ROB_GOLD
    # chow shapes relative to the claimed tile 5m (kind 4): 67m, 46m, 34m
    assert action_index(Action("chow", -1, (5, 6)), 4) == E.A_CHOW
    assert action_index(Action("chow", -1, (3, 5)), 4) == E.A_CHOW + 1
    assert action_index(Action("chow", -1, (2, 3)), 4) == E.A_CHOW + 2


def test_docs_tables_match_the_encodings() -> None:
    """docs/rl.md lists every observation slice and action index exactly as encoded."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text("utf-8")
    assert E.markdown_tables() in doc
    for table, size in ((E.OBS_DOC, OBS_SIZE), (E.ACTION_DOC, N_ACTIONS)):
        covered = [i for a, b, _, _ in table for i in range(a, b)]
        assert covered == list(range(size))  # contiguous, no gaps, no overlaps


def test_bad_action_is_one_clear_line_and_changes_nothing() -> None:
    e = raw_env(profile="fuzhou-tcy", seed=5)
    e.reset()
    agent = e.agent_selection
    before = e.observe(agent)
    events = len(e.game.events) if e.game else 0
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    for bad in (illegal, -1, N_ACTIONS, "3", 2.5, None, True):
        with pytest.raises(IllegalAction) as ei:
            e.step(bad)  # type: ignore[arg-type]
        assert "\n" not in str(ei.value) and agent in str(ei.value)
    assert e.game is not None and len(e.game.events) == events
    after = e.observe(agent)
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


def test_constructor_validates() -> None:
    with pytest.raises(MahjongError):
        FujianMahjongEnv(profile="nope")
    with pytest.raises(MahjongError, match="players"):
        FujianMahjongEnv(profile="fuzhou-tcy", players=3)
    with pytest.raises(MahjongError, match="render_mode"):
        FujianMahjongEnv(render_mode="human")
    with pytest.raises(MahjongError, match="opponents"):
        gymnasium.make(GYM_ID, opponents="oracle")


# ------------------------------------------------------------------ PettingZoo checks


@pytest.mark.parametrize(("profile", "players"), TABLES, ids=IDS)
def test_pettingzoo_api_and_seed(profile: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about all-zero masks of waiting seats
        api_test(env(profile=profile, players=players, seed=1), num_cycles=300)
        seed_test(lambda: env(profile=profile, players=players), num_cycles=300)


def test_same_seed_same_event_log_and_secret_seed_otherwise() -> None:
    logs = []
    for _ in range(2):
        e = raw_env(profile="fuzhou-doudou", seed="det")
        e.reset()
        _play_random(e, random.Random(3))
        assert e.game is not None
        logs.append(e.game.events)
    assert logs[0] == logs[1]
    a, b = raw_env(), raw_env()
    a.reset()
    b.reset()
    assert a.game is not None and b.game is not None
    assert a.game.seed != b.game.seed  # no seed: each env draws its own from secrets


@settings(max_examples=15, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32), choice=st.integers(0, 2**32))
def test_replaying_the_same_decisions_gives_the_same_hand(
    table: tuple[str, int], seed: int, choice: int
) -> None:
    """Same seed + same decisions -> identical observations, rewards and event log; every
    observation is inside the space, with non-negative unseen counts that add up (R12)."""
    profile, players = table
    runs = []
    for _ in range(2):
        e = raw_env(profile=profile, players=players, seed=seed)
        e.reset()
        rng = random.Random(choice)
        trace = []
        space = e.observation_space("player_0")
        while not e.terminations[e.agent_selection]:
            agent = e.agent_selection
            o = e.observe(agent)
            assert space.contains(o)
            v = o["observation"]
            seen = v[E.O_HAND : E.O_DRAWN].reshape(10, 34).sum(axis=0)
            unseen = v[E.O_UNSEEN : E.O_SEATS]
            assert (unseen >= 0).all() and (seen + unseen <= 4).all()
            trace.append((agent, v.tobytes(), o["action_mask"].tobytes()))
            e.step(rng.choice(np.flatnonzero(o["action_mask"]).tolist()))
        assert e.game is not None
        runs.append((trace, dict(e.rewards), e.game.events))
    assert runs[0] == runs[1]


def test_masked_random_agents_never_choose_illegal_actions_over_1000_hands() -> None:
    """Every mask is exactly the engine's legal actions (one index each), a masked choice
    is always accepted, and each hand's rewards are its R10 payments (zero-sum)."""
    rng = random.Random(15)
    hands = 0
    kinds_seen: set[int] = set()
    for profile, players in TABLES:
        e = raw_env(profile=profile, players=players, seed=f"mask-{profile}-{players}")
        for _ in range(1000 // len(TABLES) + 1):
            e.reset()
            g = e.game
            assert g is not None
            while not e.terminations[e.agent_selection]:
                agent = e.agent_selection
                seat = int(agent.split("_")[1])
                legal = g.legal_actions(seat)
                mask = e.observe(agent)["action_mask"]
                table = e.legal_actions(agent)
                assert int(mask.sum()) == len(legal) == len(table)
                assert sorted(table) == np.flatnonzero(mask).tolist()
                i = rng.choice(np.flatnonzero(mask).tolist())
                assert table[i] in legal
                kinds_seen.add(i)
                e.step(i)
            sc = g.score()
            assert sc is not None
            got = [e.rewards[f"player_{s}"] for s in range(players)]
            assert got == [float(x) for x in sc.payments] and sum(got) == 0
            hands += 1
    assert hands >= 1000
    assert any(E.A_CHOW <= i < E.A_PONG for i in kinds_seen)
    assert {E.A_PONG, E.A_WIN, E.A_PASS} <= kinds_seen


def test_ansi_render_shows_only_the_viewers_hand() -> None:
    e = raw_env(profile="fuzhou-tcy", seed=2, render_mode="ansi")
    e.reset()
    text = e.render()
    assert isinstance(text, str) and "gold" in text and "*P" in text
    assert e.game is not None
    me = int(e.agent_selection.split("_")[1])
    for s in range(4):
        line = next(ln for ln in text.splitlines() if ln.lstrip("* ").startswith(f"P{s} "))
        if s != me:
            assert "16 tiles" in line or "17 tiles" in line
    assert raw_env(seed=1).render() is None  # no render_mode


# ------------------------------------------------------------------ R12


def _deal(rng: random.Random, others_perm: list[int]) -> tuple[list[int], dict[int, list[int]]]:
    pool = [k for k in range(27) for _ in range(4)]
    rng.shuffle(pool)
    deal = {0: pool[:17]}
    rest = pool[17:65]
    rest = [rest[i] for i in others_perm]
    for s in (1, 2, 3):
        deal[s] = rest[16 * (s - 1) : 16 * s]
    return pool, deal


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    profile=st.sampled_from(BUILTIN),
    seed=st.integers(0, 10**6),
    perm=st.permutations(list(range(48))),
)
def test_observation_ignores_other_seats_concealed_tiles(
    profile: str, seed: int, perm: list[int]
) -> None:
    """R12: two deals that differ only in how seats 1-3's concealed tiles are shared out
    give seat 0 the same observation and mask (through the env, on stacked walls)."""
    deals = [_deal(random.Random(seed), p)[1] for p in (list(range(48)), perm)]
    assume(deals[0] != deals[1])  # the deals really differ where seat 0 cannot look
    assert deals[0][0] == deals[1][0]
    e = raw_env(profile=profile, seed=0)
    obs = []
    for deal in deals:
        e.reset(options={"wall": build_wall(deal), "dealer": 0})
        g = e.game
        assert g is not None
        # a window A declaration by another seat (三金倒) would legitimately change the
        # phase; such deals say nothing about hidden tiles
        assume(all(g.golds(s) < 3 for s in (1, 2, 3)))
        assume(g.to_act() == [0])
        obs.append(e.observe("player_0"))
    assert np.array_equal(obs[0]["observation"], obs[1]["observation"])
    assert np.array_equal(obs[0]["action_mask"], obs[1]["action_mask"])


def test_waiting_seat_sees_no_claim_window() -> None:
    """R12: a seat that is not asked cannot tell whether anybody else is: no phase bit, no
    claim tile, an empty mask — while the asked seat sees all three."""
    rng = random.Random(4)
    checked = 0
    for i in range(60):
        e = raw_env(profile="sanming", seed=f"w{i}")
        e.reset()
        g = e.game
        assert g is not None
        while not e.terminations[e.agent_selection] and checked < 200:
            if g.phase == "claims":
                asked = g.to_act()
                for s in range(4):
                    o = e.observe(f"player_{s}")
                    v = o["observation"]
                    phase_bits = v[E.O_PHASE : E.O_PHASE + 3].sum()
                    claim_bits = v[E.O_CLAIM : E.O_CLAIM + 34].sum()
                    if s in asked:
                        assert phase_bits == 1 and claim_bits == 1 and o["action_mask"].any()
                    else:
                        assert phase_bits == 0 and claim_bits == 0
                        assert not o["action_mask"].any() and v[E.O_MUST_ACT] == 0
                checked += 1
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(rng.choice(np.flatnonzero(mask).tolist()))
    assert checked >= 50


def test_observation_bounds_and_slices() -> None:
    e = raw_env(profile="fuzhou-doudou", seed=9)
    rng = random.Random(0)
    space = e.observation_space("player_0")
    for _ in range(5):
        e.reset()
        g = e.game
        assert g is not None
        while not e.terminations[e.agent_selection]:
            agent = e.agent_selection
            s = int(agent.split("_")[1])
            o = e.observe(agent)
            assert o["observation"].shape == (OBS_SIZE,) and o["observation"].dtype == np.float32
            assert space.contains(o)
            v = o["observation"]
            hand = g.hand(s)
            assert v[E.O_HAND : E.O_HAND + 34].sum() == len(hand)
            assert v[E.O_GOLD + g.gold] == 1
            assert v[E.O_SEATS + 2] == len(hand)  # own hand size in slot 0
            e.step(rng.choice(np.flatnonzero(o["action_mask"]).tolist()))


# ------------------------------------------------------------------ Gymnasium wrapper


@pytest.mark.parametrize("opponents", ["heuristic", "random"])
def test_gymnasium_check_env(opponents: str) -> None:
    e = gymnasium.make(GYM_ID, profile="fuzhou-tcy", opponents=opponents)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(e.unwrapped)


@pytest.mark.parametrize(("profile", "players"), TABLES, ids=IDS)
def test_gymnasium_episodes(profile: str, players: int) -> None:
    e = gymnasium.make(GYM_ID, profile=profile, players=players, opponents="heuristic")
    rng = random.Random(1)
    total = 0.0
    for ep in range(6):
        obs, info = e.reset(seed=ep if ep == 0 else None)
        done = False
        while not done:
            mask = obs["action_mask"]
            assert mask.any()
            assert np.array_equal(mask.astype(bool), e.unwrapped.action_masks())  # type: ignore[attr-defined]
            obs, r, term, trunc, info = e.step(rng.choice(np.flatnonzero(mask).tolist()))
            done = term or trunc
            assert "illegal_action" not in info
            # R12: nothing in info gives away the seed (hence the wall order)
            assert e.unwrapped.game.seed not in repr(info)  # type: ignore[attr-defined]
        total += float(r)
        assert "result" in info
    assert np.isfinite(total)


def test_gymnasium_illegal_action_ends_episode_with_penalty() -> None:
    e = gymnasium.make(GYM_ID, opponents="random", illegal_reward=-7.0)
    obs, _ = e.reset(seed=3)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, r, term, trunc, info = e.step(bad)
    assert (r, term, trunc, info["illegal_action"]) == (-7.0, True, False, True)
    assert np.array_equal(obs["observation"], obs2["observation"])
