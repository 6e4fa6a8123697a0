"""The PettingZoo AEC environment: one hand of Fujian gold mahjong per episode.

The acting agent is the first seat the engine asks (``Game.to_act()``); during a claim
window several seats answer in seat order, one step each. Observations come only from
the agent's own seat view (R12), so a policy never learns who else was asked. Rewards
are the R10 points won or lost at the end of the hand (zero-sum), zero before.
"""

from __future__ import annotations

import secrets
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from fujian_mahjong.engine import Action, Game
from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.rl.encoding import (
    N_ACTIONS,
    OBS_HIGH,
    OBS_SIZE,
    Encoder,
    legal_map,
    mask_of,
    to_engine_action,
)
from fujian_mahjong.rl.render import render_table
from fujian_mahjong.rules import get_profile

Obs = dict[str, npt.NDArray[Any]]


def observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
        }
    )


class FujianMahjongEnv(AECEnv):  # type: ignore[misc]
    """PettingZoo AEC env. ``seed`` (or ``reset(seed=…)``) fixes the sequence of hands:
    hand i of a seed plays the engine seed ``"{seed}:{i}"`` with dealer ``i mod players``
    (``reset(options={"dealer": d, "streak": k})`` overrides both; ``{"wall": [...]}``
    plays a stacked wall, ``Game.from_wall``). Without a seed the base seed comes from
    :mod:`secrets`."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "fujian_mahjong_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        profile: str = "fuzhou-tcy",
        players: int = 4,
        seed: int | str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        prof = get_profile(profile)
        if not isinstance(players, int) or not prof.players_min <= players <= prof.players_max:
            raise MahjongError(
                f"profile {prof.name} plays with {prof.players_min}-{prof.players_max} "
                f"players, not {players!r}"
            )
        if render_mode not in (None, "ansi"):
            raise MahjongError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.profile = prof
        self.players = players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_space = observation_space()
        self._act_space = spaces.Discrete(N_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._act_space)
        self._encoder = Encoder(prof, players)
        self._base = str(seed) if seed is not None else secrets.token_hex(8)
        self._hand_no = 0
        self.game: Game | None = None
        self._streak = 0
        self._jin_kan = [False] * players
        self._cache: tuple[int, int, dict[int, Action]] | None = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._base = str(seed)
            self._hand_no = 0
        opts = options or {}
        i = self._hand_no
        self._hand_no += 1
        dealer = int(opts.get("dealer", i % self.players))
        self._streak = int(opts.get("streak", 0))
        if "wall" in opts:  # test tooling: a stacked wall (Game.from_wall), dice (1, 1)
            self.game = Game.from_wall(
                self.profile,
                opts["wall"],
                dice=tuple(opts.get("dice", (1, 1))),
                players=self.players,
                dealer=dealer,
                streak=self._streak,
            )
        else:
            self.game = Game.new(
                self.profile,
                seed=f"{self._base}:{i}",
                players=self.players,
                dealer=dealer,
                streak=self._streak,
            )
        self._jin_kan = [False] * self.players
        self._cache = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._after_move()

    def _after_move(self) -> None:
        g = self.game
        assert g is not None
        if g.is_over():
            sc = g.score()
            sit = g.result()
            pays = sc.payments if sc is not None else (0,) * self.players
            res = sit.win if sit is not None else "draw"
            winner = sit.winner if sit is not None else None
            for a in self.agents:
                self.rewards[a] = float(pays[self._seat[a]])
                self.terminations[a] = True
                self.infos[a] = {"result": res, "winner": winner}
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[g.to_act()[0]]

    def _observe_seat(self, s: int) -> tuple[Obs, dict[int, Action]]:
        """A fresh observation of seat s (callers may keep or modify it); its legal index
        map is remembered for the step that usually follows."""
        g = self.game
        if g is None:
            raise MahjongError("call reset() before observe() or step()")
        obs, legal = self._encoder.observe(g.seat_view(s), self._streak, self._jin_kan)
        self._cache = (s, len(g.events), legal)
        return {"observation": obs, "action_mask": mask_of(legal)}, legal

    def _legal(self, s: int) -> dict[int, Action]:
        g = self.game
        if g is None:
            raise MahjongError("call reset() before observe() or step()")
        c = self._cache
        if c is not None and c[0] == s and c[1] == len(g.events):
            return c[2]
        v = g.seat_view(s)
        return legal_map(v.legal, v.claim[1])

    def observe(self, agent: str) -> Obs:
        return self._observe_seat(self._seat[agent])[0]

    def legal_actions(self, agent: str) -> dict[int, Action]:
        """index -> engine Action for what ``agent`` may do now."""
        return dict(self._legal(self._seat[agent]))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        assert g is not None
        s = self._seat[agent]
        legal = self._legal(s)
        try:
            act = to_engine_action(action, legal)
        except IllegalAction as e:
            raise IllegalAction(f"{agent}: {e}") from None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        g.apply(s, act)
        if act.type == "jin_kan":
            self._jin_kan[s] = True  # R8.5: 金坎 is announced to all
        self._after_move()
        self._accumulate_rewards()

    # ------------------------------------------------------------------ rendering
    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        g = self.game
        if g is None:
            return "(no hand: call reset())"
        viewer = self._seat.get(self.agent_selection, 0)
        return render_table(g.view(viewer), self.agent_selection)

    def close(self) -> None:
        self.game = None
        self._cache = None
