"""The FastAPI app: REST (guests, tables, hand logs; OpenAPI at /docs), the WebSocket at
/ws, and the browser client's static files at / when they are installed."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import InterfaceError, OperationalError

from fujian_mahjong.engine import to_jsonl
from fujian_mahjong.server.auth import bearer_player, clean_name
from fujian_mahjong.server.clock import Clock
from fujian_mahjong.server.conn import Conn, QueueTransport
from fujian_mahjong.server.deals import DealSource
from fujian_mahjong.server.lobby import Lobby
from fujian_mahjong.server.ratelimit import RateLimiter
from fujian_mahjong.server.settings import Settings
from fujian_mahjong.server.store import Player, Store, StoreFaults, StoreUnavailable
from fujian_mahjong.server.table import TableError
from fujian_mahjong.server.ws import Dispatcher

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
    # R11 (server/economy.py): silver per point, base, fee, loss cap in points
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


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    deals: DealSource | None = None,
    faults: StoreFaults | None = None,
) -> FastAPI:
    """The server. ``clock``, ``deals`` and ``faults`` are seams for tests and benchmarks
    (a fake clock, fixed or stacked deals, a store that fails on purpose); the command line
    never sets them, so a network client can never choose a deal."""
    settings = settings or Settings()
    store = Store(settings.database_url, settings.token_ttl_days, faults=faults)
    lobby = Lobby(settings, store, clock=clock, deals=deals)
    misses = RateLimiter(max(1, settings.table_misses_per_minute), 60.0)
    dispatcher = Dispatcher(store, lobby, misses)
    _check_misses = dispatcher.check_misses
    _code_like = dispatcher.code_like

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
    app.state.dispatcher = dispatcher

    @app.exception_handler(StoreUnavailable)
    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    async def _store_down(_req: Request, exc: Exception) -> JSONResponse:
        # the database cannot write now (full disk, lost connection): 503, not 500
        log.warning("store unavailable: %s", str(exc).splitlines()[0][:200] if str(exc) else exc)
        return JSONResponse(
            status_code=503,
            content={
                "detail": "the server cannot save right now; try again shortly",
                "code": "store_unavailable",
            },
            headers={"Retry-After": "5"},
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(_req: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        return JSONResponse(
            status_code=422,
            content={"detail": f"{where}: {err.get('msg')}", "code": "bad_request"},
        )

    # ------------------------------------------------------------------ REST

    @app.get("/api/health", response_model=None)
    async def health() -> Any:
        degraded = store.failing or lobby.degraded_tables() > 0
        body = {
            "ok": not degraded,
            "status": "degraded" if degraded else "ok",
            "tables": len(lobby.tables),
            "actions": lobby.actions,
            "commits": store.commits,
            "database": store.dialect_name,
        }
        return JSONResponse(body, status_code=503 if degraded else 200)

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
        from fujian_mahjong.server import economy  # R11: the table's stakes

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
                await dispatcher.handle(conn, text)
        finally:
            dispatcher.disconnected(conn)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5)

    async def _writer(ws: WebSocket, conn: Conn, transport: QueueTransport) -> None:
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

    # ------------------------------------------------------------------ extras

    try:
        web_api = importlib.import_module("fujian_mahjong.server.web_api")
    except ModuleNotFoundError as e:
        if e.name != "fujian_mahjong.server.web_api":
            raise
    else:
        app.include_router(web_api.router)
    from fujian_mahjong.server.accounts import router as accounts_router  # R11, docs/economy.md

    app.include_router(accounts_router)

    if (WEB_DIR / "index.html").exists():
        from fastapi.staticfiles import StaticFiles

        app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")

    return app
