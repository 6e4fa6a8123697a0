"""The table actor's commands (server/commands.py): one dataclass each, one ``match`` in
``TableActor._dispatch`` that sends each to the actor's (or its parts') method with its
arguments — checked for every command class, so a new command without its case fails here.
The socket layer queues typed commands, not closures."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import AsyncMock, MagicMock, Mock

import pytest

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.conn import Conn, RecordingTransport
from fujian_mahjong.server.table import TableActor


def _fake() -> Any:
    t = MagicMock()
    for name in (
        "act",
        "_auto_act",
        "_pump",
        "ready",
        "set_auto",
        "reserve",
        "add_bot",
        "remove_bot",
        "_maybe_start",
        "_grace_over",
        "_seat_leaves",
    ):
        setattr(t, name, AsyncMock(return_value=name))
    # chat and the vote decide (their Effects), the actor carries them out
    t.social.chat = Mock(return_value="chat")
    t.social.try_dissolve = AsyncMock(return_value="try_dissolve")
    t.social.lapsed = Mock(return_value="lapsed")
    t.social.joined = Mock(return_value="joined")
    t.hints.begin = Mock(return_value="begin")
    # who is here (server/attendance.py) decides, the actor carries it out
    t.attendance.join = AsyncMock(return_value="join")
    t.attendance.leave = Mock(return_value="leave")
    t.attendance.disconnected = Mock(return_value="disconnected")
    t.clock.now = Mock(return_value=12.5)
    t.hints.end = Mock(return_value="end")
    t.social.dissolve = Mock(return_value="dissolve")
    # the finisher decides (its Effects), the actor carries them out (TableActor.effect)
    t.finisher.close = Mock(return_value="close")
    t.finisher.finish_match = Mock(return_value="finish_match")
    t.recovery.recover = AsyncMock(return_value="recover")  # a store fault's retry
    t.effect = AsyncMock(side_effect=lambda fx: fx)
    return t


CONN = Conn(20, RecordingTransport())


async def _step() -> str:
    return "step"


CASES: list[tuple[Any, str, tuple[Any, ...]]] = [
    (C.Act(CONN, 3, {"type": "pass"}), "act", (CONN, 3, {"type": "pass"})),
    (C.AutoAct(2, 17), "_auto_act", (2, 17)),
    (C.Pump(), "_pump", (None,)),
    (C.Pump(CONN), "_pump", (CONN,)),
    (C.Ready(CONN), "ready", (CONN,)),
    (C.Join(CONN, "spectator"), "attendance.join", (CONN, "spectator")),
    (C.SetAuto(CONN, True), "set_auto", (CONN, True)),
    (C.Leave(CONN), "attendance.leave", (CONN,)),
    (C.Chat(CONN, "hurry"), "social.chat", (CONN, "hurry")),
    (C.Dissolve(CONN, False), "social.dissolve", (CONN, False)),
    (C.Disconnected(CONN), "attendance.disconnected", (CONN, 12.5)),
    (C.Reserve(7, "小明"), "reserve", (7, "小明")),
    (C.AddBot(7, "strong"), "add_bot", (7, "strong")),
    (C.RemoveBot(7), "remove_bot", (7,)),
    (C.MaybeStart(), "_maybe_start", ()),
    (C.GraceOver(1), "_grace_over", (1,)),
    (C.SeatLeaves(2), "_seat_leaves", (2,)),
    (C.Recover(), "recovery.recover", ()),
    (C.Close("nobody sat down"), "finisher.close", ("nobody sat down",)),
    (C.FinishMatch(), "finisher.finish_match", (None,)),
    (C.VoteLapsed(4), "social.lapsed", (4,)),
    (C.TryDissolve(), "social.try_dissolve", ()),
    (C.HintBegin(CONN), "hints.begin", (CONN,)),
    (C.HintEnd(CONN, 2, [], {"action": {}}), "hints.end", (CONN, 2, [], {"action": {}})),
]


def _method(t: Any, path: str) -> Any:
    obj = t
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize(("cmd", "method", "args"), CASES, ids=lambda x: type(x).__name__)
def test_each_command_reaches_its_method_with_its_arguments(
    cmd: Any, method: str, args: tuple[Any, ...]
) -> None:
    t = _fake()
    result = asyncio.run(TableActor._dispatch(t, cmd))
    m = _method(t, method)
    if isinstance(m, AsyncMock):
        m.assert_awaited_once_with(*args)
        if method.startswith("attendance."):  # carried out
            t.effect.assert_any_await(m.return_value)
    else:
        m.assert_called_once_with(*args)
        if method.startswith(("finisher.", "social.", "hints.end", "attendance.")):  # carried out
            t.effect.assert_awaited_once_with(m.return_value)
    if isinstance(cmd, C.Join):
        assert result is None
        t.social.joined.assert_called_once_with(CONN)  # an open dissolve vote is shown
        assert [c.args for c in t.effect.await_args_list] == [("join",), ("joined",)]
    else:
        assert result == method.rsplit(".", 1)[-1]


def test_every_command_class_has_a_case_and_a_step_runs_its_function() -> None:
    covered = {type(cmd) for cmd, _m, _a in CASES} | {C.Step}
    assert covered == set(C.COMMANDS)
    assert asyncio.run(TableActor._dispatch(_fake(), C.Step(_step))) == "step"
    with pytest.raises(TypeError, match="not a table command"):
        asyncio.run(TableActor._dispatch(_fake(), object()))  # type: ignore[arg-type]


def test_commands_are_frozen_data() -> None:
    cmd = C.Act(CONN, 1, {"type": "pass"})
    assert cmd == C.Act(CONN, 1, {"type": "pass"})
    with pytest.raises(AttributeError):
        cmd.seq = 2  # type: ignore[misc]
