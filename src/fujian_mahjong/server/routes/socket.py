"""The WebSocket endpoint ``/ws`` (docs/protocol.md): one receive loop per socket feeding
text frames to the ``Dispatcher`` (``server/ws.py``), and one writer task draining the
connection's queue (``QueueTransport``) to the socket. The protocol itself knows nothing
of sockets; this module is the only place that does."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from fujian_mahjong.server.conn import Conn, QueueTransport
from fujian_mahjong.server.routes.deps import DispatcherDep, SettingsDep

router = APIRouter()
log = logging.getLogger("fjmj.server")


@router.websocket("/ws")
async def ws_endpoint(ws: WebSocket, dispatcher: DispatcherDep, settings: SettingsDep) -> None:
    await ws.accept()
    transport = QueueTransport()
    conn = Conn(settings.bad_messages_per_minute, transport)
    conn.addr = ws.client.host if ws.client else "?"
    writer = asyncio.create_task(_writer(ws, conn, transport))
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
        dispatcher.disconnected(conn)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)


async def _writer(ws: WebSocket, conn: Conn, transport: QueueTransport) -> None:
    """Sends the connection's queued frames until ``None``; then closes the socket with the
    connection's reason unless the client went away first."""
    try:
        while True:
            m = await transport.queue.get()
            if m is None:
                break
            await ws.send_text(m)
    except Exception:
        conn.closed = True
        return
    if conn.close_reason not in ("disconnected",):
        with contextlib.suppress(Exception):
            await ws.close(code=transport.close_code, reason=conn.close_reason[:100])
