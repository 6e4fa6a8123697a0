"""Reinforcement learning: a PettingZoo AEC environment and a Gymnasium single-seat
wrapper (``FujianMahjong-v0``), with fixed observation/action encodings (docs/rl.md).

Needs the ``rl`` extra (numpy, pettingzoo, gymnasium). Importing this package registers
``FujianMahjong-v0`` with Gymnasium.
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium
    import numpy  # noqa: F401  (the encodings need it; fail here, in one line)
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
except ModuleNotFoundError as _e:
    if (_e.name or "").split(".")[0] not in ("numpy", "gymnasium", "pettingzoo"):
        raise
    raise ImportError(
        "fujian_mahjong.rl needs the rl extra: pip install 'fujian-mahjong[rl]'",
        name=_e.name,
    ) from None

from fujian_mahjong.rl.aec import FujianMahjongEnv
from fujian_mahjong.rl.encoding import (
    ACTION_NAMES,
    N_ACTIONS,
    OBS_SIZE,
    Encoder,
    action_index,
)
from fujian_mahjong.rl.gym_env import FujianMahjongGymEnv

GYM_ID = "FujianMahjong-v0"


def raw_env(
    profile: str = "fuzhou-tcy",
    players: int = 4,
    seed: int | str | None = None,
    render_mode: str | None = None,
) -> FujianMahjongEnv:
    """The bare AEC environment, ``FujianMahjongEnv(profile, players, seed, render_mode)``."""
    return FujianMahjongEnv(profile, players, seed, render_mode)


def env(
    profile: str = "fuzhou-tcy",
    players: int = 4,
    seed: int | str | None = None,
    render_mode: str | None = None,
) -> Any:
    """The AEC environment inside PettingZoo's standard checks (bounds, call order)."""
    e: Any = FujianMahjongEnv(profile, players, seed, render_mode)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="fujian_mahjong.rl.gym_env:FujianMahjongGymEnv")

__all__ = [
    "ACTION_NAMES",
    "GYM_ID",
    "N_ACTIONS",
    "OBS_SIZE",
    "Encoder",
    "FujianMahjongEnv",
    "FujianMahjongGymEnv",
    "action_index",
    "env",
    "raw_env",
]
