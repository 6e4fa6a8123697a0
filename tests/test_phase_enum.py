"""``Phase`` (engine/events.py) is a string enum, and it is what every place that exposes a
phase holds: ``Game.phase``, ``SeatView.phase``, the ``"phase"`` of ``Game.view`` and of the
spectator's view. Being a ``StrEnum`` each member equals its string and serializes as it, so
the views and logs stay byte-identical (the golden logs of test_determinism check the logs).
Every event of played hands validates against its TypedDict (``validate_event``); and no
module compares a phase with a string literal any more."""

from __future__ import annotations

import copy
import json
import pickle
import re
from enum import StrEnum
from pathlib import Path

import pytest

from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import Game, Phase, spectator_view, validate_event

SRC = Path(__file__).resolve().parents[1] / "src" / "fujian_mahjong"
TABLES = [
    ("fuzhou-tcy", 4),
    ("fuzhou-bianfeng", 4),
    ("fuzhou-doudou", 4),
    ("sanming", 4),
    ("sanming", 3),
    ("sanming", 2),
]


def test_phase_is_a_string_enum_of_the_documented_values() -> None:
    assert issubclass(Phase, StrEnum)
    assert [p.value for p in Phase] == [
        "deal",
        "window_a",
        "turn",
        "claims",
        "last_group",
        "over",
    ]
    for p in Phase:
        assert p == p.value and str(p) == p.value and f"{p}" == p.value
        assert hash(p) == hash(p.value)
        assert Phase(p.value) is p
        assert json.dumps(p) == json.dumps(p.value)
        assert pickle.loads(pickle.dumps(p)) is p


def _played(profile: str, n: int, seed: int) -> Game:
    """A seeded hand played to the end by heuristic bots, checking the phase at every step."""
    g = Game.new(profile, seed=f"phase-{profile}-{n}-{seed}", players=n, dealer=seed % n)
    bots = [make_bot("heuristic", f"phase-{seed}:{s}") for s in range(n)]
    _check_phase(g)
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
        _check_phase(g)
    return g


def _check_phase(g: Game) -> None:
    assert type(g.phase) is Phase
    assert g.phase in (Phase.WINDOW_A, Phase.TURN, Phase.CLAIMS, Phase.OVER)
    assert g.is_over() == (g.phase is Phase.OVER)
    for s in range(g.n):
        assert g.seat_view(s).phase is g.phase
        v = g.view(s)
        assert v["phase"] is g.phase
        # the JSON is the one the plain string gave
        assert json.dumps(v) == json.dumps({**v, "phase": g.phase.value})
    sv = spectator_view(g)
    assert sv["phase"] is g.phase
    assert json.dumps(sv) == json.dumps({**sv, "phase": g.phase.value})


@pytest.mark.parametrize(("profile", "n"), TABLES)
def test_every_exposed_phase_is_the_enum_and_every_event_validates(profile: str, n: int) -> None:
    for seed in range(3):
        g = _played(profile, n, seed)
        assert g.events[0]["type"] == "start" and g.events[-1]["type"] == "end"
        for e in g.events:
            assert validate_event(e) == e
        # copies (search code copies games) keep the member, not a string
        for c in (copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
            assert c.phase is Phase.OVER
            assert c.events == g.events


def test_the_phase_during_the_deal_and_the_last_group() -> None:
    """``DEAL`` and ``LAST_GROUP`` last only inside ``Game.new`` / ``apply``: a fresh game is
    past the deal, and a hand through its last group shows the enum again afterwards."""
    g = Game.new("fuzhou-tcy", seed="phase-deal")
    assert g.phase in (Phase.WINDOW_A, Phase.TURN)
    for seed in range(40):
        g = _played("fuzhou-tcy", 4, seed)
        if any(e["type"] == "last_group" for e in g.events):
            assert g.phase is Phase.OVER
            return
    pytest.fail("no hand reached the last group")


# a phase compared with a string literal: `phase == "turn"`, `.phase != "over"`,
# `phase in ("claims", ...)`, `phase not in ("turn", ...)`
_VALUES = "|".join(p.value for p in Phase)
_STRING_COMPARISON = re.compile(
    rf"""phase\)?\s*(?:==|!=|(?:not\s+)?in\s*[(\[{{])\s*["'](?:{_VALUES})["']"""
)
# modules whose owners convert them separately (their string comparisons still work: a
# StrEnum member equals its string)
_PENDING: set[str] = set()


def test_no_module_compares_a_phase_with_a_string_literal() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in _PENDING:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _STRING_COMPARISON.search(line):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert not found, "compare with Phase members:\n" + "\n".join(found)
