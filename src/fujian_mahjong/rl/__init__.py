"""Reinforcement learning: a PettingZoo AEC environment and a Gymnasium single-seat
wrapper (``FujianMahjong-v0``), a batched environment (:class:`VecGames`), with fixed
observation/action encodings (docs/rl.md).

The encodings and the batched environment need only numpy (a runtime dependency: the
``neural`` bot encodes its seat view with them). The AEC and Gymnasium environments need
the ``rl`` extra (pettingzoo, gymnasium); where it is installed, importing this package
registers ``FujianMahjong-v0`` with Gymnasium, and where it is not, asking for them raises
one ImportError that names the extra.
"""

from __future__ import annotations

from typing import Any

try:
    import numpy  # noqa: F401  (the encodings need it; fail here, in one line)
except ModuleNotFoundError as _e:
    if (_e.name or "").split(".")[0] != "numpy":
        raise
    raise ImportError(
        "fujian_mahjong.rl needs numpy: pip install 'fujian-mahjong[rl]'", name=_e.name
    ) from None

from fujian_mahjong.rl.encoding import (
    ACTION_NAMES,
    N_ACTIONS,
    OBS_SIZE,
    Encoder,
    action_index,
)
from fujian_mahjong.rl.vec import VecGames, VecStep

GYM_ID = "FujianMahjong-v0"

# the name of the missing module of the rl extra (pettingzoo, gymnasium), None when present
_MISSING: str | None = None
try:
    import gymnasium
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
except ModuleNotFoundError as _e:
    if (_e.name or "").split(".")[0] not in ("gymnasium", "pettingzoo"):
        raise
    _MISSING = _e.name or "pettingzoo"

if _MISSING is None:
    from fujian_mahjong.rl.aec import FujianMahjongEnv
    from fujian_mahjong.rl.gym_env import FujianMahjongGymEnv

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="fujian_mahjong.rl.gym_env:FujianMahjongGymEnv")


def _need_extra() -> None:
    if _MISSING is not None:
        raise ImportError(
            "the PettingZoo and Gymnasium environments need the rl extra: "
            "pip install 'fujian-mahjong[rl]'",
            name=_MISSING,
        )


def __getattr__(name: str) -> Any:
    if name in ("FujianMahjongEnv", "FujianMahjongGymEnv"):
        _need_extra()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def raw_env(
    profile: str = "fuzhou-tcy",
    players: int = 4,
    seed: int | str | None = None,
    render_mode: str | None = None,
) -> FujianMahjongEnv:
    """The bare AEC environment, ``FujianMahjongEnv(profile, players, seed, render_mode)``."""
    _need_extra()
    return FujianMahjongEnv(profile, players, seed, render_mode)


def env(
    profile: str = "fuzhou-tcy",
    players: int = 4,
    seed: int | str | None = None,
    render_mode: str | None = None,
) -> Any:
    """The AEC environment inside PettingZoo's standard checks (bounds, call order)."""
    _need_extra()
    e: Any = FujianMahjongEnv(profile, players, seed, render_mode)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


__all__ = [
    "ACTION_NAMES",
    "GYM_ID",
    "N_ACTIONS",
    "OBS_SIZE",
    "Encoder",
    "FujianMahjongEnv",
    "FujianMahjongGymEnv",
    "VecGames",
    "VecStep",
    "action_index",
    "env",
    "raw_env",
]
