"""The WebSocket endpoint ``/ws`` (docs/protocol.md): one receive loop per socket feeding
text frames to the ``Dispatcher`` (``server/ws.py``), and one writer task draining the
connection's queue (``QueueTransport``) to the socket. The protocol itself knows nothing
of sockets; this module is the only place that does.

A socket that has not said ``hello`` with a valid token ``HELLO_TIMEOUT_S`` (10 s, on the
server's clock) after it opened is closed with code 1008 and the reason ``no hello``
(docs/deploy.md, "Limits on idle connections"): an unauthenticated socket costs the
server memory and a task, and no client needs that long. Silent sockets after the hello
are uvicorn's: it pings every 20 s and drops a socket whose pong does not come within
20 s (``fjmj serve``, cli/serve.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from fujian_mahjong.server.conn import CLOSE_POLICY, Conn, QueueTransport
from fujian_mahjong.server.routes.deps import DispatcherDep, SettingsDep

router = APIRouter()
log = logging.getLogger("fjmj.server")

# seconds a new socket has to say hello (then it is closed: 1008 "no hello")
HELLO_TIMEOUT_S = 10.0


@router.websocket("/ws")
async def ws_endpoint(ws: WebSocket, dispatcher: DispatcherDep, settings: SettingsDep) -> None:
    await ws.accept()
    transport = QueueTransport()
    conn = Conn(settings.bad_messages_per_minute, transport)
    conn.addr = ws.client.host if ws.client else "?"
    writer = asyncio.create_task(_writer(ws, conn, transport))
    metrics = ws.app.state.metrics
    metrics.sockets += 1
    metrics.sockets_opened += 1

    def no_hello() -> None:
        if conn.player_id is None and not conn.closed:
            metrics.sockets_no_hello += 1
            conn.close("no hello", CLOSE_POLICY)

    hello_timer = dispatcher.lobby.clock.call_later(HELLO_TIMEOUT_S, no_hello)
    try:
        while not conn.closed:
            try:
                raw = await ws.receive()
            except (WebSocketDisconnect, RuntimeError):
                break
            if raw.get("type") == "websocket.disconnect":
                break
            text = raw.get("text")
            if text is None:
                conn.error("bad_message", "send JSON text frames")
                continue
            try:
                await dispatcher.handle(conn, text)
            except Exception:
                # a bug must not drop the player's connection: it is logged, the client is
                # told, and the connection stays open
                log.exception("unexpected error handling a WebSocket message")
                conn.error("server_error", "the server could not handle that message")
    finally:
        hello_timer.cancel()
        metrics.sockets -= 1
        dispatcher.disconnected(conn)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)


async def _writer(ws: WebSocket, conn: Conn, transport: QueueTransport) -> None:
    """Sends the connection's queued frames until ``None``; then closes the socket with the
    connection's reason unless the client went away first."""
    box = transport.box
    try:
        # a message already queued is taken without waiting (a table's notice and state
        # come together: docs/architecture.md, "CPU per decision")
        while (m := await box.get()) is not None:
            await ws.send_text(m)
    except Exception:
        conn.closed = True
        return
    if conn.close_reason not in ("disconnected",):
        with contextlib.suppress(Exception):
            await ws.close(code=transport.close_code, reason=conn.close_reason[:100])
