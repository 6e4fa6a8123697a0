"""The FastAPI app: REST (guests, tables, hand logs, accounts, replays; OpenAPI at /docs),
the WebSocket at /ws, and the browser client's static files at / when they are installed.

``create_app`` builds the shared objects (store, lobby, dispatcher), puts them on
``app.state``, and includes one ``APIRouter`` per concern: ``server/routes/`` (health,
guests, tables, rooms and quick match and relief, hands, the socket), ``server/web_api.py`` (replay, review, summary) and
``server/accounts.py`` (accounts and the public economy). Routes reach the shared objects
through the dependencies in ``server/routes/deps.py``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount
from starlette.types import Scope

from fujian_mahjong.server.accounts import router as accounts_router  # R11, docs/economy.md
from fujian_mahjong.server.clock import Clock
from fujian_mahjong.server.deals import DealSource
from fujian_mahjong.server.economy import EconomySettlement
from fujian_mahjong.server.idle import BodyLimit
from fujian_mahjong.server.lobby import Lobby
from fujian_mahjong.server.looplag import LoopLag
from fujian_mahjong.server.metrics import ServerMetrics
from fujian_mahjong.server.ratelimit import RateLimiter
from fujian_mahjong.server.routes import (
    guests,
    hands,
    health,
    phrases,
    rooms,
    socket,
    stakes,
    tables,
)
from fujian_mahjong.server.routes.deps import Me, current_player
from fujian_mahjong.server.routes.errors import http_error
from fujian_mahjong.server.settings import Settings
from fujian_mahjong.server.store import STORE_FAULTS, Store, StoreFaults, StoreUnavailable
from fujian_mahjong.server.workers import WorkerPool
from fujian_mahjong.server.ws import Dispatcher

__all__ = ["WEB_DIR", "Me", "create_app", "current_player"]

log = logging.getLogger("fjmj.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"


async def _store_down(_req: Request, exc: Exception) -> JSONResponse:
    """The database cannot write now (full disk, lost connection): 503, not 500."""
    log.warning("store unavailable: %s", str(exc).splitlines()[0][:200] if str(exc) else exc)
    return JSONResponse(
        status_code=503,
        content={
            "detail": "the server cannot save right now; try again shortly",
            "code": "store_unavailable",
        },
        headers={"Retry-After": "5"},
    )


async def _invalid(_req: Request, exc: Exception) -> JSONResponse:
    """A request that fails validation: 422 with one line saying where and what; a body that
    is not JSON at all: 400 (docs/protocol.md, "Errors")."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    err = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    if err.get("type") == "json_invalid":
        at = [x for x in err.get("loc", ()) if isinstance(x, int)]
        return JSONResponse(
            status_code=400,
            content={
                "detail": "body: not valid JSON" + (f" (at character {at[0]})" if at else ""),
                "code": "bad_request",
            },
        )
    where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
    return JSONResponse(
        status_code=422,
        content={"detail": f"{where}: {err.get('msg')}", "code": "bad_request"},
    )


class WebMount(Mount):
    """The browser client's static files at "/", for every path but the API's: a request
    under ``/api`` that no route takes is the API's own 404 or 405 (with the API's
    ``Allow``), never the static files' answer."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path = scope.get("path", "")
        if scope.get("type") == "http" and (path == "/api" or path.startswith("/api/")):
            return Match.NONE, {}
        return super().matches(scope)


async def _clean_guests(store: Store, settings: Settings) -> None:
    """Every ``guest_cleanup_interval_s``: delete the guests that can no longer log in and
    never sat down (``Store.delete_idle_guests``)."""
    while True:
        await asyncio.sleep(settings.guest_cleanup_interval_s)
        try:
            n = await store.delete_idle_guests(settings.guest_idle_days)
        except STORE_FAULTS as e:
            log.warning("guest cleanup: the store failed: %s", str(e).splitlines()[0][:200])
            continue
        if n:
            log.warning("guest cleanup: deleted %d idle guest(s)", n)


async def _bounded(what: str, aw: Any, seconds: float) -> None:
    """One shutdown step, given at most ``seconds``."""
    try:
        await asyncio.wait_for(aw, seconds)
    except TimeoutError:
        log.warning("shutdown: %s did not stop within %g s; going on", what, seconds)
    except Exception as e:
        log.warning("shutdown: %s: %s: %s", what, type(e).__name__, str(e)[:200])


async def _finish_hands(lobby: Lobby, grace_s: float) -> None:
    """One process stopping (SIGTERM): its players are told; every table between hands
    stops at once (no new hand is dealt), one with a hand in progress when that hand is
    over, or when ``grace_s`` has passed; their state is in the database and comes back
    with the next start (the crash restore)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + grace_s
    told: set[int] = set()
    stopped: set[int] = set()
    while True:
        playing = 0
        for t in list(lobby.tables.values()):
            # no new hand from now (a table of bots goes from one hand to the next in one
            # command: it was never seen between two hands here, and dealt on until the end)
            t.stopping = True
            if t.id in stopped:
                continue
            # (a table between two hands may be dealing one already, the flag too late for
            # it: it is waited for while it runs a command)
            if (t.status == "playing" or not t.idle) and loop.time() < end:
                playing += 1
                if t.id not in told:
                    told.add(t.id)
                    for c in t.conns():
                        c.error(
                            "server_stopping",
                            f"the server restarts after this hand (in {grace_s:.0f} s at most)",
                        )
                continue
            stopped.add(t.id)
            t.sched.cancel_all()
            for c in t.conns():
                c.error("server_stopping", "the server restarts now; reconnect in a moment")
            await _bounded(f"table {t.id}", t.stop(), 5)
            # the answers given inside a claim pause, stored at its end (server/table.py)
            await _bounded(f"table {t.id}'s last answers", t.flush_pending(), 5)
        if not playing:
            return
        await asyncio.sleep(0.2)


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    deals: DealSource | None = None,
    faults: StoreFaults | None = None,
    workers: WorkerPool | None = None,
) -> FastAPI:
    """The server. ``clock``, ``deals`` and ``faults`` are seams for tests and benchmarks
    (a fake clock, fixed or stacked deals, a store that fails on purpose); the command line
    never sets them, so a network client can never choose a deal. ``workers``: the worker
    processes of the 高手's searches, hints and reviews (server/workers.py); by default the
    app makes its own and closes it when it stops; a pool passed in is its maker's to
    close."""
    settings = settings or Settings()
    own_workers = workers is None
    pool = workers if workers is not None else WorkerPool()
    store = Store(
        settings.database_url,
        settings.token_ttl_days,
        faults=faults,
        settlement=EconomySettlement(),  # R11: the store settles through the economy
        command_timeout_s=settings.db_command_timeout_s,
    )
    lobby = Lobby(settings, store, clock=clock, deals=deals, workers=pool)
    # rate limits count on the server's clock (the fake one in tests)
    misses = RateLimiter(max(1, settings.table_misses_per_minute), 60.0, clock=lobby.clock.now)
    dispatcher = Dispatcher(store, lobby, misses)
    cluster = None
    if getattr(settings, "redis_url", ""):
        # several processes on PostgreSQL + Redis (docs/deploy.md): leases, remote sockets
        from fujian_mahjong.server.cluster import Cluster

        cluster = Cluster(settings, store, lobby)
        cluster.dispatcher = dispatcher
        lobby.cluster = dispatcher.cluster = cluster
    # the event loop's lag for the operator's metrics (server/looplag.py); it reads the
    # loop's real time, so not under a test's fake clock
    looplag = LoopLag() if clock is None else None
    if cluster is not None:
        cluster.looplag = looplag  # in the node's metrics that every process publishes

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # PostgreSQL: one server per database, or the processes of one cluster — before
        # anything is touched (the migrations included)
        try:
            await store.hold_server_lock(shared=cluster is not None)
        except BaseException:
            await store.close()
            raise
        await store.open()
        if cluster is None:
            restored = await lobby.restore()
        else:
            await cluster.start()  # it takes the tables nobody holds and restores them
            restored = 0
        if restored:
            log.warning("restored %d table(s) from the database", restored)
        # long-lived objects (modules, lookup tables) leave the collector's scans, and young
        # collections run less often: fewer pauses under load (bench/bench_server.py). Most
        # of what survives a young collection is live table state, so the middle generation
        # is collected every 2nd young collection (~40k objects, ~35 ms at 200 tables; every
        # 20th scanned ~400k, a pause of several hundred ms); the full one stays as rare as
        # before (every 400 young collections, and only after 25 % growth)
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 2, 200)
        if looplag is not None:
            looplag.start()
        app.state.loop = asyncio.get_running_loop()  # a signal handler's way in (cli/serve.py)
        cleaner: asyncio.Task[None] | None = None
        if settings.guest_cleanup_interval_s > 0:
            cleaner = asyncio.get_running_loop().create_task(_clean_guests(store, settings))
        try:
            yield
        finally:
            # every step bounded (docs/deploy.md, "Stopping"): a step that hangs costs its
            # time, never the process's exit
            if cleaner is not None:
                cleaner.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await cleaner
            if looplag is not None:
                await _bounded("the loop-lag monitor", looplag.stop(), 2)
            if cluster is not None:
                await _bounded("the cluster's loops", cluster.stop(), 5)
            await _bounded("the tables", lobby.shutdown(), 10)
            if own_workers:
                await _bounded("the worker processes", pool.close(), 5)
            if cluster is not None:
                await _bounded("giving the leases back", cluster.close(), 5)
            await _bounded("the database", store.close(), 5)

    async def drain(grace_s: float) -> None:
        """SIGTERM (cli/serve.py; docs/deploy.md, "Rolling restarts"): take no new table
        (``app.state.draining``: ``/readyz`` answers 503), then with several processes hand
        each table to another one, or alone let the hands in progress finish, for at most
        ``grace_s`` seconds; the process then stops."""
        app.state.draining = True
        if cluster is not None:
            moved = await cluster.drain(grace_s)
            log.warning("draining: %d table(s) handed to the other processes", moved)
        else:
            await _finish_hands(lobby, grace_s)

    app = FastAPI(
        title="fujian-mahjong table server",
        version="1",
        lifespan=lifespan,
        description="Online tables for Fujian gold mahjong; the WebSocket protocol is in "
        "docs/protocol.md.",
    )
    # what the routes' dependencies read (server/routes/deps.py)
    app.state.settings = settings
    app.state.store = store
    app.state.lobby = lobby
    app.state.dispatcher = dispatcher
    app.state.cluster = cluster
    app.state.looplag = looplag
    app.state.workers = pool  # the 高手's searches, hints and reviews (server/workers.py)
    app.state.draining = False  # SIGTERM: no new tables (``drain``); read by /readyz
    app.state.drain = drain
    # GET /metrics (the Prometheus format): this app's own registry
    app.state.metrics = ServerMetrics(app.state)

    # a request's body: bounded in size and in time (server/idle.py; docs/deploy.md)
    app.add_middleware(BodyLimit)
    app.add_exception_handler(InterfaceError, _store_down)
    app.add_exception_handler(OperationalError, _store_down)
    app.add_exception_handler(StoreUnavailable, _store_down)
    # a database the driver cannot reach (asyncpg's refused connection is a bare OSError,
    # not a DBAPI error): a store fault like the others (store.STORE_FAULTS), never a 500
    app.add_exception_handler(OSError, _store_down)
    app.add_exception_handler(RequestValidationError, _invalid)
    # every HTTPException (ours, FastAPI's, Starlette's 404/405) as {"detail", "code"}
    app.add_exception_handler(StarletteHTTPException, http_error)

    # the order is the OpenAPI's order (and the matching order)
    for module in (health, guests, tables, rooms, stakes, phrases, hands, socket):
        app.include_router(module.router)
    try:
        web_api = importlib.import_module("fujian_mahjong.server.web_api")
    except ModuleNotFoundError as e:
        if e.name != "fujian_mahjong.server.web_api":
            raise
    else:
        app.include_router(web_api.router)
    app.include_router(accounts_router)

    # last: the static client answers every path no route above took (but /api/…)
    if (WEB_DIR / "index.html").exists():
        from fastapi.staticfiles import StaticFiles

        app.router.routes.append(
            WebMount("/", app=StaticFiles(directory=WEB_DIR, html=True), name="web")
        )

    return app
