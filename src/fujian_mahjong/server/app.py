"""The FastAPI app: REST (guests, tables, hand logs; OpenAPI at /docs), the WebSocket at
/ws, and the browser client's static files at / when they are installed."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, Field

from fujian_mahjong.engine import to_jsonl
from fujian_mahjong.server import protocol as P
from fujian_mahjong.server.auth import bearer_player, clean_name
from fujian_mahjong.server.conn import Conn
from fujian_mahjong.server.lobby import Lobby
from fujian_mahjong.server.ratelimit import RateLimiter
from fujian_mahjong.server.settings import Settings
from fujian_mahjong.server.store import Player, Store
from fujian_mahjong.server.table import TableActor, TableError

log = logging.getLogger("fjmj.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"


class GuestIn(BaseModel):
    name: str = Field("guest", description="shown to the other players (1-20 characters)")


class GuestOut(BaseModel):
    token: str
    player_id: int
    name: str


class TableIn(BaseModel):
    profile: str = "fuzhou-tcy"
    players: int = Field(default=4, ge=2, le=4)
    bots: int = Field(default=0, ge=0, le=4)
    turn_seconds: float = Field(default=15, ge=0.2, le=600)
    hands: int = Field(default=8, ge=1, le=64)
    private: bool = False
    # issue 12 / R11 (server/economy.py): silver per point, base, fee, loss cap in points
    # (0: none), the minimum balance to sit down (default 20 × stake)
    stake: int = Field(default=1, ge=0, le=10**9)
    base: int = Field(default=1, ge=1, le=10**6)
    fee: int = Field(default=0, ge=0, le=10**9)
    cap: int = Field(default=0, ge=0, le=10**9)
    min_balance: int | None = Field(default=None, ge=0, le=10**15)


class TableOut(BaseModel):
    id: int
    code: str


async def current_player(request: Request) -> Player:
    """The REST caller (``Authorization: Bearer TOKEN``)."""
    return await bearer_player(request, request.app.state.store)


Me = Annotated[Player, Depends(current_player)]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    store = Store(settings.database_url, settings.token_ttl_days)
    lobby = Lobby(settings, store)
    # misses of table lookups per address: a private table's 5-letter code (24^5) must
    # not be found by trying codes (REST GET /api/tables/{ref} and WebSocket join)
    misses = RateLimiter(max(1, settings.table_misses_per_minute), 60.0)

    def _check_misses(addr: str) -> None:
        wait = misses.retry_after(addr)
        if wait > 0:
            raise TableError(
                "rate_limited", f"too many unknown tables asked for; try again in {wait:.0f} s"
            )

    def _code_like(ref: Any) -> bool:
        """A lookup by something shaped like a table code (ids are not secret)."""
        return isinstance(ref, str) and lobby.code_like(ref)

    def _find(ref: Any, viewer: int | None, addr: str) -> TableActor:
        if not _code_like(ref):
            return lobby.find(ref, viewer)
        _check_misses(addr)
        try:
            return lobby.find(ref, viewer)
        except TableError as e:
            if e.code == "no_table":
                misses.hit(addr)
            raise

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await store.open()
        restored = await lobby.restore()
        if restored:
            log.warning("restored %d table(s) from the database", restored)
        # long-lived objects (modules, lookup tables) leave the collector's scans, and young
        # collections run less often: fewer pauses under load (bench/bench_server.py)
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        yield
        await lobby.shutdown()
        await store.close()

    app = FastAPI(
        title="fujian-mahjong table server",
        version="1",
        lifespan=lifespan,
        description="Online tables for Fujian gold mahjong; the WebSocket protocol is in "
        "docs/protocol.md.",
    )
    app.state.settings = settings
    app.state.store = store
    app.state.lobby = lobby

    @app.exception_handler(RequestValidationError)
    async def _invalid(_req: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        return JSONResponse(
            status_code=422,
            content={"detail": f"{where}: {err.get('msg')}", "code": "bad_request"},
        )

    # ------------------------------------------------------------------ REST

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {
            "ok": True,
            "tables": len(lobby.tables),
            "actions": lobby.actions,
            "commits": store.commits,
            "database": store.dialect_name,
        }

    @app.post("/api/guests", response_model=GuestOut)
    async def new_guest(body: GuestIn) -> GuestOut:
        name = clean_name(body.name)
        player, token = await store.create_guest(name)
        return GuestOut(token=token, player_id=player.id, name=player.name)

    @app.post("/api/tables", response_model=TableOut)
    async def new_table(me: Me, body: TableIn | None = None) -> TableOut:
        b = body or TableIn()
        try:
            t = await lobby.create(
                me.id, b.profile, b.players, b.bots, b.turn_seconds, b.hands, b.private
            )
        except TableError as e:
            raise HTTPException(400, e.message) from None
        from fujian_mahjong.server import economy  # issue 12: the table's stakes

        async with store.write() as s:
            await economy.set_stakes(
                s, t.id, economy.make_stakes(b.stake, b.base, b.fee, b.cap, b.min_balance)
            )
        return TableOut(id=t.id, code=t.cfg.code)

    @app.get("/api/tables")
    async def list_tables() -> list[dict[str, Any]]:
        return lobby.open_tables()

    @app.get("/api/tables/{ref}")
    async def table_detail(ref: str, request: Request) -> dict[str, Any]:
        addr = request.client.host if request.client else "?"
        try:
            if _code_like(ref):
                _check_misses(addr)
        except TableError as e:
            raise HTTPException(429, e.message) from None
        viewer: int | None = None
        if request.headers.get("authorization"):
            with contextlib.suppress(HTTPException):
                viewer = (await bearer_player(request, store)).id
        try:
            # a private table by id: only for its creator and seated players (its code is
            # the key to it; ids are sequential and could be enumerated)
            return lobby.find(ref, viewer).summary()
        except TableError:
            pass
        if ref.isdigit():
            row = await store.get_table(int(ref))
            if row is not None and (not row.private or row.creator_id == viewer):
                return {
                    "id": row.id,
                    "code": row.code,
                    "profile": row.profile,
                    "players": row.players,
                    "turn_seconds": row.turn_seconds,
                    "hands": row.hands,
                    "private": row.private,
                    "creator_id": row.creator_id,
                    "status": row.status,
                }
        if _code_like(ref):
            misses.hit(addr)
        raise HTTPException(404, f"no table {ref[:20]!r}")

    async def _bots(ref: str, me: Player, add: bool) -> dict[str, Any]:
        try:
            t = lobby.find(ref)
            fn = t.add_bot if add else t.remove_bot
            return await t.call(lambda: fn(me.id))  # type: ignore[no-any-return]
        except TableError as e:
            code = {"forbidden": 403, "no_table": 404}.get(e.code, 409)
            raise HTTPException(code, e.message) from None

    @app.post("/api/tables/{ref}/bots")
    async def add_bot(ref: str, me: Me) -> dict[str, Any]:
        return await _bots(ref, me, True)

    @app.delete("/api/tables/{ref}/bots")
    async def remove_bot(ref: str, me: Me) -> dict[str, Any]:
        return await _bots(ref, me, False)

    @app.get("/api/hands/{hand_id}/log", response_model=None)
    async def hand_log(hand_id: int, format: str = "jsonl") -> Any:
        """A finished hand's event log (R12): JSON Lines, or a JSON array with
        ``?format=json``. 404 until the hand is over, so nothing leaks early."""
        hand, events = await store.hand_log(hand_id)
        if hand is None or hand.status != "over":
            raise HTTPException(404, f"hand {hand_id} is not finished (or does not exist)")
        if format == "json":
            return JSONResponse(events)
        return PlainTextResponse(to_jsonl(events), media_type="application/x-ndjson")

    @app.get("/api/hands/{hand_id}")
    async def hand_info(hand_id: int) -> dict[str, Any]:
        async with store.sessions() as s:
            from fujian_mahjong.server.store import get_hand

            h = await get_hand(s, hand_id)
        if h is None:
            raise HTTPException(404, f"no hand {hand_id}")
        out: dict[str, Any] = {
            "id": h.id,
            "table": h.table_id,
            "match": h.match_id,
            "number": h.number,
            "profile": h.profile,
            "players": h.players,
            "dealer": h.dealer,
            "status": h.status,
            "seed_sha256": h.seed_sha256,
        }
        if h.status == "over":
            out.update(result=h.result, score=h.score, log_url=f"/api/hands/{h.id}/log")
        return out

    # ------------------------------------------------------------------ WebSocket

    @app.websocket("/ws")
    async def ws_endpoint(ws: WebSocket) -> None:
        await ws.accept()
        conn = Conn(settings.bad_messages_per_minute)
        conn.addr = ws.client.host if ws.client else "?"
        writer = asyncio.create_task(_writer(ws, conn))
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
                await _handle(conn, text)
        finally:
            if conn.table is not None:
                t = conn.table
                t.post(lambda: t.disconnected(conn))
            conn.close("disconnected")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5)

    async def _writer(ws: WebSocket, conn: Conn) -> None:
        try:
            while True:
                m = await conn.queue.get()
                if m is None:
                    break
                await ws.send_text(m)
        except Exception:
            conn.closed = True
            return
        if conn.close_reason not in ("disconnected",):
            with contextlib.suppress(Exception):
                await ws.close(code=1008, reason=conn.close_reason[:100])

    async def _handle(conn: Conn, text: str) -> None:
        try:
            if len(text) > 8192:
                # an oversized message closes the connection (no client needs 8 KiB)
                conn.error("too_long", "message too long (8 KiB at most); closing")
                conn.close("message too long")
                return
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                raise P.ProtocolError("bad_message", "not valid JSON") from None
            msg = P.parse_client(data)
            if isinstance(msg, P.Ping):
                conn.send({"type": "pong"}, stream=False)
                return
            if isinstance(msg, P.Hello):
                player = await store.player_for_token(msg.token)
                if player is None:
                    raise P.ProtocolError("bad_token", "unknown, expired or revoked token")
                if conn.player_id is not None and conn.player_id != player.id:
                    raise P.ProtocolError("already_hello", "this connection is another player's")
                conn.player_id = player.id
                conn.name = player.name
                conn.token = msg.token
                conn.send(
                    {
                        "type": "welcome",
                        "v": P.PROTOCOL_VERSION,
                        "player_id": player.id,
                        "name": player.name,
                    },
                    stream=False,
                )
                return
            if conn.player_id is None:
                raise P.ProtocolError("not_authenticated", "send hello with your token first")
            if isinstance(msg, P.Join):
                # a token revoked (logout) or expired since the hello opens no table
                if conn.token is None or await store.player_for_token(conn.token) is None:
                    conn.player_id = conn.token = None
                    raise P.ProtocolError("bad_token", "unknown, expired or revoked token")
                # a private table is found by its code only (or by its creator / its seated
                # players): its sequential id must not let anyone spectate it
                t = _find(msg.table, conn.player_id, conn.addr)
                as_ = msg.as_
                await t.call(lambda: t.join(conn, as_))
                return
            joined = conn.table
            if joined is None:
                raise P.ProtocolError("not_joined", "join a table first")
            t = joined
            if isinstance(msg, P.Ready | P.Next):
                await t.call(lambda: t.ready(conn))
            elif isinstance(msg, P.Act):
                seq, action = msg.seq, msg.action
                await t.call(lambda: t.act(conn, seq, action))
            elif isinstance(msg, P.Hint):
                await t.call(lambda: t.hint(conn))
            elif isinstance(msg, P.Auto):
                on = msg.on
                await t.call(lambda: t.set_auto(conn, on))
            elif isinstance(msg, P.Leave):
                await t.call(lambda: t.leave(conn))
        except (P.ProtocolError, TableError) as e:
            conn.error(e.code, e.message)

    # ------------------------------------------------------------------ extras

    try:
        web_api = importlib.import_module("fujian_mahjong.server.web_api")
    except ModuleNotFoundError as e:
        if e.name != "fujian_mahjong.server.web_api":
            raise
    else:
        app.include_router(web_api.router)
    from fujian_mahjong.server.accounts import router as accounts_router  # issue 12

    app.include_router(accounts_router)

    if (WEB_DIR / "index.html").exists():
        from fastapi.staticfiles import StaticFiles

        app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")

    return app
