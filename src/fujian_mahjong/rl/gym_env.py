"""``FujianMahjong-v0``: a Gymnasium single-agent view of the table — one learning seat
against bots (``opponents="heuristic"`` or ``"random"``), who decide from their own seat
views (R12) between the learner's decisions.

An episode is one hand. The reward is the learner's R10 points at the end of the hand
(0 before). An action outside the mask ends the episode with ``illegal_reward`` and
``info["illegal_action"] = True`` (state untouched), so unmasked samplers (e.g.
``check_env``) never crash the env; masked policies never see it. A hand that the bots
finish before the learner's first decision (a bot's 天胡/抢金) is skipped: reset plays the
next hand of the seed sequence.
"""

from __future__ import annotations

import secrets
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt

from fujian_mahjong.bots import BOT_KINDS, Bot, make_bot
from fujian_mahjong.engine import Action, Game
from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.rl.aec import Obs, observation_space
from fujian_mahjong.rl.encoding import N_ACTIONS, Encoder, mask_of, to_engine_action
from fujian_mahjong.rl.render import render_table
from fujian_mahjong.rules import get_profile


class FujianMahjongGymEnv(gymnasium.Env[Obs, np.int64]):
    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium API)

    def __init__(
        self,
        profile: str = "fuzhou-tcy",
        players: int = 4,
        opponents: str = "heuristic",
        seat: int = 0,
        seed: int | str | None = None,
        render_mode: str | None = None,
        illegal_reward: float = -10.0,
    ) -> None:
        prof = get_profile(profile)
        if not isinstance(players, int) or not prof.players_min <= players <= prof.players_max:
            raise MahjongError(
                f"profile {prof.name} plays with {prof.players_min}-{prof.players_max} "
                f"players, not {players!r}"
            )
        if opponents not in BOT_KINDS:
            raise MahjongError(
                f"opponents must be one of {', '.join(BOT_KINDS)}, got {opponents!r}"
            )
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise MahjongError(f"seat must be 0-{players - 1}, got {seat!r}")
        if render_mode not in (None, "ansi"):
            raise MahjongError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.profile = prof
        self.players = players
        self.opponents = opponents
        self.seat = seat
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.observation_space = observation_space()  # type: ignore[assignment]
        self.action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self._encoder = Encoder(prof, players)
        self._base = str(seed) if seed is not None else secrets.token_hex(8)
        self._hand_no = 0
        self.game: Game | None = None
        self._bots: list[Bot] = []
        self._jin_kan = [False] * players
        self._legal: dict[int, Action] = {}
        self._obs: Obs | None = None

    # ------------------------------------------------------------------ helpers
    def _observe(self) -> Obs:
        g = self.game
        assert g is not None
        obs, legal = self._encoder.observe(g.seat_view(self.seat), 0, self._jin_kan)
        self._legal = legal
        self._obs = {"observation": obs, "action_mask": mask_of(legal)}
        return {k: v.copy() for k, v in self._obs.items()}

    def _run_bots(self) -> None:
        """Bots play until the learner must act or the hand is over."""
        g = self.game
        assert g is not None
        while not g.is_over():
            s = g.to_act()[0]
            if s == self.seat:
                return
            a = self._bots[s].act(g.seat_view(s)).action
            g.apply(s, a)
            if a.type == "jin_kan":
                self._jin_kan[s] = True

    def _payment(self) -> float:
        g = self.game
        assert g is not None
        sc = g.score()
        return float(sc.payments[self.seat]) if sc is not None else 0.0

    def _info(self) -> dict[str, Any]:
        g = self.game
        assert g is not None
        # the hand's number in the seed sequence — never the seed itself, which would give
        # away the wall order before the hand ends (R12)
        info: dict[str, Any] = {"hand": self._hand_no - 1}
        sit = g.result()
        if g.is_over():
            info["result"] = sit.win if sit is not None else "draw"
            info["winner"] = sit.winner if sit is not None else None
        return info

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._base = str(seed)
            self._hand_no = 0
        for _ in range(1000):
            i = self._hand_no
            self._hand_no += 1
            hs = f"{self._base}:{i}"
            self.game = Game.new(
                self.profile, seed=hs, players=self.players, dealer=i % self.players
            )
            self._bots = [make_bot(self.opponents, f"{hs}:{s}") for s in range(self.players)]
            self._jin_kan = [False] * self.players
            self._run_bots()
            if not self.game.is_over():
                return self._observe(), self._info()
        raise MahjongError("1,000 hands in a row ended before the learner's turn")

    def step(self, action: np.int64 | int) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        g = self.game
        if g is None or self._obs is None:
            raise MahjongError("call reset() before step()")
        if g.is_over():
            raise MahjongError("the hand is over: call reset()")
        try:
            act = to_engine_action(action, self._legal)
        except IllegalAction as e:
            info = self._info()
            info["illegal_action"] = True
            info["error"] = str(e)
            obs = {k: v.copy() for k, v in self._obs.items()}
            return obs, self.illegal_reward, True, False, info
        g.apply(self.seat, act)
        if act.type == "jin_kan":
            self._jin_kan[self.seat] = True
        self._run_bots()
        obs = self._observe()
        if g.is_over():
            return obs, self._payment(), True, False, self._info()
        return obs, 0.0, False, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The current mask as booleans (the MaskablePPO convention)."""
        if self._obs is None:
            raise MahjongError("call reset() first")
        return self._obs["action_mask"].astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return render_table(self.game.view(self.seat), f"P{self.seat}")
