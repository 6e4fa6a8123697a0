"""A batched environment: N hands advanced together, observations and masks as arrays.

``VecGames(n, profile, players)`` holds N games. Each game has one *acting seat* at a
time — the first seat the engine asks (``Game.to_act()``), exactly as in the AEC
environment (docs/rl.md): in a claim window several seats answer in seat order, one step
each. ``reset(seeds)`` starts game i on its own sequence of hands, ``step(actions)`` applies
one action index per game for its acting seat, and a finished hand starts the next one at
once (auto-reset) after reporting its points.

Hand j of game i plays the engine seed ``f"{seeds[i]}:{j}"`` with dealer ``j mod players``
and streak 0 — the AEC environment's scheme, so the batch replays N single environments
reset with the same seeds (tested). Observations come from the acting seat's view only
(R12, :class:`~fujian_mahjong.rl.encoding.Encoder`); rewards are the hand's R10 payments,
from each seat's own view (zero-sum), reported on the step that ends the hand.

Needs only numpy (no PettingZoo, no Gymnasium): self-play with batched network inference
feeds on it (``fujian_mahjong.rl.train``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fujian_mahjong.engine import Action, Game
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.rl.encoding import N_ACTIONS, OBS_SIZE, Encoder, to_engine_action
from fujian_mahjong.rules import get_profile


@dataclass(frozen=True, slots=True)
class VecStep:
    """What ``reset`` and ``step`` return (arrays owned by the caller: fresh copies).

    ``obs`` float32 (N, OBS_SIZE) and ``mask`` int8 (N, N_ACTIONS): the acting seat's
    observation and legal-action mask in each game; ``seat`` int64 (N,): that seat;
    ``rewards`` float32 (N, players): each seat's points for games whose hand ended on this
    step, else 0; ``done`` bool (N,): the hand ended on this step (the game has already
    started its next hand, which ``obs``/``mask``/``seat`` show)."""

    obs: npt.NDArray[np.float32]
    mask: npt.NDArray[np.int8]
    seat: npt.NDArray[np.int64]
    rewards: npt.NDArray[np.float32]
    done: npt.NDArray[np.bool_]


class VecGames:
    """N games of one profile and table size, stepped together (module docstring)."""

    def __init__(self, n: int, profile: str = "fuzhou-tcy", players: int = 4) -> None:
        prof = get_profile(profile)
        if not isinstance(n, int) or n < 1:
            raise MahjongError(f"VecGames needs at least one game, got {n!r}")
        if not isinstance(players, int) or not prof.players_min <= players <= prof.players_max:
            raise MahjongError(
                f"profile {prof.name} plays with {prof.players_min}-{prof.players_max} "
                f"players, not {players!r}"
            )
        self.n = n
        self.profile = prof
        self.players = players
        self._encoder = Encoder(prof, players)
        self.games: list[Game] = []
        self.hands = np.zeros(n, dtype=np.int64)  # hands started per game
        self.finished = 0  # hands finished, all games together
        self._base: list[str] = []
        self._jin_kan: list[list[bool]] = []
        self._legal: list[dict[int, Action]] = [{} for _ in range(n)]
        self._views: list[SeatView | None] = [None] * n
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self._seat = np.zeros(n, dtype=np.int64)

    # ------------------------------------------------------------------ episodes
    def reset(self, seeds: Sequence[int | str]) -> VecStep:
        """Start game i on hand 0 of ``seeds[i]`` (one seed per game)."""
        if len(seeds) != self.n:
            raise MahjongError(f"reset needs {self.n} seeds, got {len(seeds)}")
        self._base = [str(s) for s in seeds]
        self.hands[:] = 0
        self.finished = 0
        self.games = [self._new_hand(i) for i in range(self.n)]
        self._jin_kan = [[False] * self.players for _ in range(self.n)]
        for i in range(self.n):
            self._observe(i)
        z = np.zeros((self.n, self.players), dtype=np.float32)
        return self._result(z, np.zeros(self.n, dtype=np.bool_))

    def set_game(self, i: int, game: Game) -> None:
        """Play ``game`` (a hand in progress, e.g. from a stacked wall) in slot i; when it
        ends, slot i goes on with its own seed's next hand. For tests and analysis."""
        if game.n != self.players or game.profile.name != self.profile.name:
            raise MahjongError("set_game: the game's profile and size must be the batch's")
        if game.is_over():
            raise MahjongError("set_game: the hand is over")
        self.games[i] = game
        self._jin_kan[i] = [bool(x) for x in getattr(game, "jin_kan", [False] * self.players)]
        self._observe(i)

    def _new_hand(self, i: int) -> Game:
        j = int(self.hands[i])
        self.hands[i] += 1
        return Game.new(
            self.profile,
            seed=f"{self._base[i]}:{j}",
            players=self.players,
            dealer=j % self.players,
            streak=0,
        )

    def _observe(self, i: int) -> None:
        g = self.games[i]
        s = g.to_act()[0]
        v = g.seat_view(s)
        obs, legal = self._encoder.observe(v, 0, self._jin_kan[i])
        self._obs[i] = obs
        m = self._mask[i]
        m[:] = 0
        m[list(legal)] = 1
        self._seat[i] = s
        self._legal[i] = legal
        self._views[i] = v

    def step(self, actions: Sequence[int] | npt.NDArray[np.integer]) -> VecStep:
        """Apply ``actions[i]`` (an action index) for game i's acting seat, in every game.

        Checks every action first: an illegal one raises IllegalAction (one line naming the
        game, the action and the legal ones) and no game changes."""
        acts = np.asarray(actions)
        if acts.shape != (self.n,):
            raise MahjongError(f"step needs {self.n} actions, got shape {acts.shape}")
        if not self.games:
            raise MahjongError("call reset() before step()")
        decoded: list[Action] = []
        for i in range(self.n):
            try:
                decoded.append(to_engine_action(int(acts[i]), self._legal[i]))
            except IllegalAction as e:
                raise IllegalAction(f"game {i}, seat {int(self._seat[i])}: {e}") from None
        rewards = np.zeros((self.n, self.players), dtype=np.float32)
        done = np.zeros(self.n, dtype=np.bool_)
        for i, act in enumerate(decoded):
            g = self.games[i]
            s = int(self._seat[i])
            g.apply(s, act)
            if act.type == "jin_kan":
                self._jin_kan[i][s] = True  # R8.5: 金坎 is announced to all
            if g.is_over():
                sc = g.score()
                if sc is not None:
                    rewards[i] = sc.payments
                done[i] = True
                self.finished += 1
                self.games[i] = self._new_hand(i)
                self._jin_kan[i] = [False] * self.players
            self._observe(i)
        return self._result(rewards, done)

    def _result(self, rewards: npt.NDArray[np.float32], done: npt.NDArray[np.bool_]) -> VecStep:
        return VecStep(self._obs.copy(), self._mask.copy(), self._seat.copy(), rewards, done)

    # ------------------------------------------------------------------ for drivers
    def current(self) -> VecStep:
        """The acting seats' observations and masks now (no rewards, nothing done)."""
        z = np.zeros((self.n, self.players), dtype=np.float32)
        return self._result(z, np.zeros(self.n, dtype=np.bool_))

    def view(self, i: int) -> SeatView:
        """The acting seat's view in game i (what a bot at that seat decides from, R12)."""
        v = self._views[i]
        if v is None:
            raise MahjongError("call reset() first")
        return v

    def legal(self, i: int) -> dict[int, Action]:
        """index -> engine Action, for game i's acting seat now."""
        return dict(self._legal[i])

    def index_of(self, i: int, action: Action) -> int:
        """The action index of an engine action legal now in game i (a bot's decision)."""
        for j, a in self._legal[i].items():
            if a == action:
                return j
        raise IllegalAction(f"game {i}: {action} is not legal now")
