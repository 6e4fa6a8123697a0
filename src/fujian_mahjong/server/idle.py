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

:class:`BodyLimit` (ASGI middleware) bounds a request's body: at most ``MAX_BODY`` bytes
(413 ``too_large``, refused on its ``Content-Length`` before a byte is read), complete
within ``BODY_TIMEOUT_S`` of its head (408 ``body_timeout``). Every body the API takes is a
small JSON object; without it one request of 100 MB held 600 MB and the event loop for
seconds, and a body trickled a byte at a time held its connection for ever.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

HEAD_TIMEOUT_S = 10.0
MAX_BODY = 64 * 1024  # bytes: the API's bodies are a few hundred
BODY_TIMEOUT_S = 10.0


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


class BodyLimit:
    """ASGI middleware: an HTTP request's body read whole before the app sees it, at most
    ``max_body`` bytes and within ``timeout_s`` (module docstring); WebSockets pass."""

    def __init__(
        self, app: Any, max_body: int = MAX_BODY, timeout_s: float = BODY_TIMEOUT_S
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.timeout_s = timeout_s

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _refuse(send, 413, f"body: more than {self.max_body} bytes", "too_large")
            return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout_s):
                while True:
                    msg = await receive()
                    if msg["type"] != "http.request":
                        return  # the client went away
                    chunk = msg.get("body", b"")
                    size += len(chunk)
                    if size > self.max_body:
                        await _refuse(
                            send, 413, f"body: more than {self.max_body} bytes", "too_large"
                        )
                        return
                    chunks.append(chunk)
                    if not msg.get("more_body"):
                        break
        except TimeoutError:
            await _refuse(
                send, 408, f"body: not complete within {self.timeout_s:g} s", "body_timeout"
            )
            return
        whole: Message | None = {
            "type": "http.request",
            "body": b"".join(chunks),
            "more_body": False,
        }

        async def replay() -> Message:
            nonlocal whole
            if whole is not None:
                msg, whole = whole, None
                return msg
            return await receive()

        await self.app(scope, replay, send)


async def _refuse(send: Send, status: int, detail: str, code: str) -> None:
    """The API's error body (docs/protocol.md, "Errors"); the connection is not kept."""
    body = orjson.dumps({"detail": detail, "code": code})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
