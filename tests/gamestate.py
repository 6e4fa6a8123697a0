"""The whole state of a Game as bytes, for "an illegal action changes nothing" tests.

Works for the pure-Python Game (instance ``__dict__``) and the mypyc-compiled one (no
``__dict__``; its attributes are listed in ``__mypyc_attrs__``), issue 16."""

from __future__ import annotations

import pickle

from fujian_mahjong.engine.game import Game


def attribute_names(g: Game) -> list[str]:
    names = getattr(type(g), "__mypyc_attrs__", None)
    if names is None:
        names = tuple(vars(g))
    return sorted(n for n in names if n != "__dict__")


def state_of(g: Game) -> bytes:
    """Every attribute but the legal-action cache, pickled."""
    return pickle.dumps(
        {k: getattr(g, k) for k in attribute_names(g) if not k.startswith("_legal")}
    )
