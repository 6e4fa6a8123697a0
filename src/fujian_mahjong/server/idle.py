"""Limits on idle HTTP connections (docs/deploy.md, "Limits on idle connections").

uvicorn closes a keep-alive connection ``timeout_keep_alive`` (5 s) after its last
response, but it sets no limit on a request's head: a connection opened and left silent,
or one whose head trickles in a byte at a time, stays open for ever, each holding a socket
and a protocol object. :func:`http_protocol` is uvicorn's own HTTP protocol (httptools
when installed, else h11) with one rule more: a request's head must be complete within
``HEAD_TIMEOUT_S`` (10 s) of the connection opening or of its first byte, else the
connection is closed without an answer. A request being answered, and a connection
upgraded to a WebSocket (``server/routes/socket.py`` has the ``hello`` deadline), are not
affected.
"""

from __future__ import annotations

import asyncio
from typing import Any

HEAD_TIMEOUT_S = 10.0


def http_protocol() -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class (``uvicorn.Config(http=…)``) with the head deadline."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    return with_head_deadline(AutoHTTPProtocol)


def with_head_deadline(base: type[Any]) -> type[asyncio.Protocol]:
    """``base`` (uvicorn's H11Protocol or HttpToolsProtocol) with the head deadline."""

    class HeadDeadline(base):  # type: ignore[misc]
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.get_protocol() is not self or not self._waiting():
                self._disarm()  # a request is being answered, or now a WebSocket
            elif self._head_timer is None:
                self._arm()  # the first bytes of the next request's head

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _waiting(self) -> bool:
            """No request is being answered: the connection waits for a request's head."""
            cycle = self.cycle
            return cycle is None or bool(cycle.response_complete)

        def _arm(self) -> None:
            self._head_timer = self.loop.call_later(HEAD_TIMEOUT_S, self._expire)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _expire(self) -> None:
            self._head_timer = None
            t = self.transport
            if t.is_closing() or t.get_protocol() is not self or not self._waiting():
                return
            t.close()

    HeadDeadline.__name__ = HeadDeadline.__qualname__ = f"HeadDeadline{base.__name__}"
    return HeadDeadline
