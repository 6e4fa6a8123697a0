"""A join forwarded to another process that is never answered (server/cluster/sockets.py,
``JOIN_ANSWER_S``): Redis keeps no message for a process that is not subscribed, so a join
sent while the table's owner was still subscribing again after an outage is lost. The
socket that sent it is closed with 1012 once its deadline passes, and the client joins
again (docs/protocol.md, "Reconnecting"); an answered join keeps its socket. In-process,
with the cluster's socket layer over stand-ins for Redis, the database and the lobby."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from fujian_mahjong.server.cluster import Cluster
from fujian_mahjong.server.cluster import bus as B
from fujian_mahjong.server.cluster.sockets import CLOSE_MOVED, JOIN_ANSWER_S, RESYNC, Sockets

JOIN = '{"type": "join", "table": 7, "as": "player"}'


@dataclass
class _Transport:
    sent: list[str] = field(default_factory=list)

    def send(self, text: str) -> bool:
        self.sent.append(text)
        return True


@dataclass
class _Conn:
    id: int = 11
    player_id: int | None = 5
    token: str | None = "tok"
    name: str = "five"
    addr: str = "127.0.0.1"
    table: Any = None
    closed: bool = False
    closed_with: tuple[str, int] | None = None
    transport: _Transport = field(default_factory=_Transport)

    def close(self, reason: str, code: int = 1000) -> None:
        self.closed, self.closed_with = True, (reason, code)

    def error(self, code: str, message: str) -> None:
        raise AssertionError(f"refused here: {code} {message}")


class _Bus:
    ok = True

    def __init__(self) -> None:
        self.posted: list[tuple[str, B.Message]] = []

    def post(self, node: str, msg: Any) -> bool:
        self.posted.append((node, msg))
        return True


class _Front(Sockets):
    """This process: table 7 is owned by the live process ``owner``."""

    def __init__(self) -> None:
        self.node, self.lease_s, self.draining = "front", 5.0, False
        self.bound, self.proxies, self._restoring = {}, {}, set()
        self.let_go, self.let_go_codes = {}, {}
        self.bus = _Bus()  # type: ignore[assignment]
        self.lobby = type("L", (), {"tables": {}, "codes": {}, "code_like": lambda _s, _r: False})()  # type: ignore[assignment]

        async def owner_of(_key: Any) -> tuple[int, str, bool]:
            return 7, "owner", True

        async def exists(_key: str) -> int:
            return 1

        async def player_for_token(_token: str) -> object:
            return object()

        self.leases = type("Le", (), {"owner_of": staticmethod(owner_of)})()  # type: ignore[assignment]
        self.redis = type("R", (), {"exists": staticmethod(exists)})()  # type: ignore[assignment]
        self.store = type("S", (), {"player_for_token": staticmethod(player_for_token)})()  # type: ignore[assignment]

    def post(self, node: str, msg: B.Message) -> bool:
        return self.bus.post(node, msg)

    def alive_key(self, node: str) -> str:
        return f"alive:{node}"


def _forwarded_join() -> tuple[_Front, _Conn, float]:
    f, c = _Front(), _Conn()
    assert asyncio.run(f.intercept(c, JOIN))  # type: ignore[arg-type]
    assert [type(m).__name__ for _n, m in f.bus.posted] == ["FromSocket"]
    by = f.bound[c.id].join_by
    assert by is not None
    return f, c, by


def test_an_unanswered_join_closes_its_socket_for_a_new_join() -> None:
    f, c, by = _forwarded_join()
    f.expire_joins(by - 0.01)  # not yet: the socket waits
    assert c.id in f.bound and not c.closed
    f.expire_joins(by + 0.01)
    assert c.id not in f.bound
    assert c.closed_with == (RESYNC, CLOSE_MOVED)  # 1012: the client joins again
    assert [type(m).__name__ for _n, m in f.bus.posted] == ["FromSocket", "SocketGone"]
    assert JOIN_ANSWER_S < 30  # well inside a client's patience


def test_an_answered_join_keeps_its_socket() -> None:
    f, c, by = _forwarded_join()
    Cluster._on_message(f, "owner", B.ToSocket(c.id, '{"type": "seated"}', 7, 1))  # type: ignore[arg-type]
    assert c.transport.sent == ['{"type": "seated"}']
    f.expire_joins(by + 60)
    assert c.id in f.bound and not c.closed
