"""The whole state of a Game as bytes, for "an illegal action changes nothing" tests.

Read through ``Game.__reduce__`` (its pickling state: every attribute, for the pure-Python
Game and for the mypyc-compiled one, which has no ``__dict__``; README, "Compiled and pure
Python")."""

from __future__ import annotations

import pickle

from fujian_mahjong.engine.game import Game


def state_of(g: Game) -> bytes:
    """Every attribute but the legal-action cache, pickled."""
    state = g.__reduce__()[1][4]
    return pickle.dumps({k: state[k] for k in sorted(state) if not k.startswith("_legal")})
