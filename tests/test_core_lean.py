"""The server core's cheaper paths (docs/architecture.md, "CPU per decision") give exactly
what the paths they replaced gave: a message's text, a seat's waits, an actor's calls."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import orjson
import pytest

from fujian_mahjong.engine import Game
from fujian_mahjong.engine.tenpai import seat_waits
from fujian_mahjong.server.actor import Actor
from fujian_mahjong.server.conn import encode
from fujian_mahjong.server.presenter import _waits
from fujian_mahjong.server.store import _json_text


@pytest.mark.parametrize("fn", [encode, _json_text])
def test_encoding_is_the_option_s_text(fn: Any) -> None:
    """String keys, number keys, a float's exponent, text as is, an int past 64 bits."""
    cases: list[Any] = [
        {"type": "state", "view": {"hand": "1m中", "melds": [[], [{"tiles": None}]]}, "x": 1e-7},
        {"type": "hand_end", "by_seat": {0: 1, 2: -3}, "ok": True},
        {"type": "x", "big": 2**70},
    ]
    for m in cases:
        try:
            want = orjson.dumps(m, option=orjson.OPT_NON_STR_KEYS).decode()
        except orjson.JSONEncodeError:
            want = json.dumps(m, ensure_ascii=False, separators=(",", ":"))
        assert fn(m) == want


@pytest.mark.parametrize("profile", ["fuzhou-tcy", "sanming", "fuzhou-doudou"])
def test_waits_are_seat_waits(profile: str) -> None:
    """The presenter's shortcut (no waits for a hand that cannot wait) answers what
    ``seat_waits`` answers, for every seat at every decision of random hands."""
    waiting = 0
    for i in range(12):
        g = Game.new(profile, seed=f"lean-{i}")
        rng = random.Random(i)
        while True:
            for s in range(g.n):
                v = g.view(s)
                want = seat_waits(v)
                assert _waits(v) == want
                waiting += want is not None
            if g.is_over() or not g.to_act():
                break
            s = g.to_act()[0]
            g.apply(s, rng.choice(g.legal_actions(s)))
    assert waiting > 0  # the comparison met ready hands too
    assert _waits({"seat": 0}) == seat_waits({"seat": 0}) is None  # no sizes: asked as before


class _Echo(Actor[Any]):
    async def _dispatch(self, cmd: Any) -> Any:
        if cmd == "wait":
            await asyncio.sleep(3600)
        if isinstance(cmd, Exception):
            raise cmd
        return cmd


def test_ask_forgets_its_call() -> None:
    """An answered, refused or cancelled call is not kept among the calls the actor answers
    when it stops."""
    asyncio.run(_ask_forgets_its_call())


async def _ask_forgets_its_call() -> None:
    a = _Echo()
    a.refusals = (ValueError,)
    a.start()
    assert await a.ask(7) == 7
    with pytest.raises(ValueError):
        await a.ask(ValueError("no"))
    assert not a._calls
    t = asyncio.get_running_loop().create_task(a.ask("wait"))
    await asyncio.sleep(0)
    assert len(a._calls) == 1
    t.cancel()
    with pytest.raises(asyncio.CancelledError):
        await t
    assert not a._calls
    assert a.task is not None
    a.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await a.task
