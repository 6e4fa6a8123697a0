"""``GET /api/health``: liveness and readiness for load balancers, nothing more; and
``GET /api/metrics``: the operator's counters, behind the operator's token.

Health carries no counter: a process-wide count of actions or commits moves with every
answer inside a claim pause, so a seat polling it could tell when a claim window is open
(R12 rev 2). The metrics are for the operator only (``Authorization: Bearer`` with the
token of ``fjmj serve --operator-token-file``; without one configured the route does not
exist: 404), and their counters are snapshots taken at most every ``metrics_refresh_s``
(10 s), so even they cannot time one claim window. The metrics also carry the event
loop's lag (``server/looplag.py``; null where the app runs on a test's fake clock).

Probes for load balancers and Kubernetes (docs/deploy.md, "Probes and metrics"):
``GET /livez`` answers 200 as soon as the event loop runs the request (nothing else is
read: a process whose loop is stuck fails it by timing out); ``GET /readyz`` answers 200
while the process accepts tables, 503 with its reasons while it drains
(``app.state.draining``), while its store cannot write, or while its cluster's Redis bus is
down (``app.state.cluster.bus_ok``). ``GET /metrics``: the Prometheus text format
(server/metrics.py), behind the operator's token like ``/api/metrics``."""

from __future__ import annotations

import hmac
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from fujian_mahjong.server.routes.deps import LobbyDep, SettingsDep, StoreDep
from fujian_mahjong.server.routes.errors import ApiError, ErrorOut, errors

router = APIRouter(tags=["health"])


class HealthOut(BaseModel):
    ok: bool
    status: Literal["ok", "degraded"]


class MetricsOut(BaseModel):
    tables: int
    actions: int
    commits: int
    database: str
    degraded_tables: int
    store_failing: bool
    snapshot_age_s: float
    # the event loop's lag (server/looplag.py), ms: p50/p99/max of the last minute, the
    # largest since start, and a cumulative histogram (counts per bucket of upper edges
    # loop_lag_buckets_ms, the last bucket open) to difference between two readings; null
    # where the server runs on a fake clock (tests)
    loop_lag_p50_ms: float | None = None
    loop_lag_p99_ms: float | None = None
    loop_lag_max_ms: float | None = None
    loop_lag_max_ever_ms: float | None = None
    loop_lag_samples: int | None = None
    loop_lag_window_s: float | None = None
    loop_lag_buckets_ms: list[float] | None = None
    loop_lag_counts: list[int] | None = None
    # garbage collections since start per generation (0, 1, 2): how many, their total and
    # longest pause (ms)
    gc_collections: list[int] | None = None
    gc_pause_total_ms: list[float] | None = None
    gc_pause_max_ms: list[float] | None = None
    # several processes (--redis): this process's node id and every live process's last
    # published figures by node id (each at most metrics_refresh_s old; docs/deploy.md,
    # "What to watch"); null with one process
    node: str | None = None
    nodes: dict[str, dict[str, Any]] | None = None


@router.get(
    "/api/health",
    response_model=HealthOut,
    responses={
        503: {
            "model": HealthOut,
            "description": "Degraded: the database cannot take writes, or a table is "
            "waiting for it",
        }
    },
)
async def health(store: StoreDep, lobby: LobbyDep) -> Any:
    """``{"ok", "status"}``: 200 ``ok``, or 503 ``degraded`` while the store cannot write
    (the last write failed) or a table is in fault recovery."""
    degraded = store.failing or lobby.degraded_tables() > 0
    body = {"ok": not degraded, "status": "degraded" if degraded else "ok"}
    return JSONResponse(body, status_code=503 if degraded else 200)


class LiveOut(BaseModel):
    ok: bool


class ReadyOut(BaseModel):
    ok: bool
    status: Literal["ready"]


# why a process is not ready, in the order they are reported (the 503's ``code`` is the
# first that holds; its ``detail`` names every one)
UNREADY = {
    "draining": "draining (stopping: it takes no new tables)",
    "server_lock_lost": "another fjmj serve took this database while this one's connection "
    "was lost: it writes nothing more; stop it",
    "store_failing": "the database cannot write",
    "bus_down": "the cluster's Redis bus is down",
    "leases_failing": "the cluster cannot renew its table leases (the database is unreachable)",
}


@router.get("/livez", response_model=LiveOut)
async def livez() -> Any:
    """Liveness: 200 ``{"ok": true}`` whenever the event loop runs at all (it reads
    nothing, so a failing database or Redis never makes a live process look dead)."""
    return {"ok": True}


def unready_reasons(state: Any) -> list[str]:
    """Why the app does not accept tables now (empty: it does). The cluster object is read
    duck-typed: one without ``bus_ok`` counts as a healthy bus, one without ``leases_ok``
    as renewing its leases."""
    reasons = []
    if getattr(state, "draining", False):
        reasons.append("draining")
    if getattr(state.store, "server_lock_lost", False):
        reasons.append("server_lock_lost")
    if state.store.failing:
        reasons.append("store_failing")
    cluster = getattr(state, "cluster", None)
    if cluster is not None and not getattr(cluster, "bus_ok", True):
        reasons.append("bus_down")
    if cluster is not None and not getattr(cluster, "leases_ok", True):
        # its leases expire and the others take its tables: its players belong elsewhere
        reasons.append("leases_failing")
    return reasons


@router.get(
    "/readyz",
    response_model=ReadyOut,
    responses={
        503: {
            "model": ErrorOut,
            "description": "Not accepting tables; ``code`` is the first reason that holds: "
            "``draining``, ``server_lock_lost`` (another server took the database), "
            "``store_failing`` (the database cannot write), ``bus_down`` "
            "(the cluster's Redis bus) or ``leases_failing`` (the cluster's lease renewals "
            "fail), ``detail`` names every one",
        }
    },
)
async def readyz(request: Request) -> Any:
    """Readiness: 200 ``{"ok": true, "status": "ready"}`` while this process accepts
    tables; 503 ``{"detail", "code"}`` while it drains (``draining``), once another server
    has taken its PostgreSQL database (``server_lock_lost``), while its store cannot write
    (``store_failing``), while the cluster's Redis is down (``bus_down``) or
    while its lease renewals fail for a whole lease (``leases_failing``)."""
    reasons = unready_reasons(request.app.state)
    if not reasons:
        return {"ok": True, "status": "ready"}
    detail = "not ready: " + "; ".join(UNREADY[r] for r in reasons)
    return JSONResponse({"detail": detail, "code": reasons[0]}, status_code=503)


def _operator(request: Request, token: str) -> None:
    """404 unless an operator token is configured; 401 unless the request carries it."""
    if not token:
        raise ApiError(404, "Not Found", "not_found")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    ok = scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode("utf-8"), token.encode("utf-8")
    )
    if not ok:
        raise ApiError(
            401, "operator token required", "unauthorized", {"WWW-Authenticate": "Bearer"}
        )


@router.get("/api/metrics", response_model=MetricsOut, responses=errors(401, 404))
async def metrics(
    request: Request, settings: SettingsDep, store: StoreDep, lobby: LobbyDep
) -> MetricsOut:
    """The operator's counters (tables, decisions applied, commits, the database), as a
    snapshot refreshed at most every 10 s (``snapshot_age_s`` says how old it is), and the
    event loop's lag."""
    _operator(request, settings.operator_token)
    now = lobby.clock.now()
    state = request.app.state
    snap: tuple[float, dict[str, Any]] | None = getattr(state, "metrics_snapshot", None)
    if snap is None or now - snap[0] >= settings.metrics_refresh_s:
        snap = (
            now,
            {
                "tables": len(lobby.tables),
                "actions": lobby.actions,
                "commits": store.commits,
                "database": store.dialect_name,
                "degraded_tables": lobby.degraded_tables(),
                "store_failing": store.failing,
            },
        )
        lag = getattr(state, "looplag", None)
        if lag is not None:
            snap[1].update(lag.snapshot())
        cluster = lobby.cluster
        if cluster is not None:
            snap[1]["node"] = cluster.node
            try:
                snap[1]["nodes"] = await cluster.nodes_metrics()
            except Exception:  # Redis unreachable: this process's own figures still answer
                snap[1]["nodes"] = None
        state.metrics_snapshot = snap
    return MetricsOut(**snap[1], snapshot_age_s=round(now - snap[0], 3))


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "The Prometheus text exposition format (version 0.0.4)",
        },
        **errors(401, 404),
    },
)
async def prometheus(request: Request, settings: SettingsDep) -> Response:
    """This process's figures for Prometheus (server/metrics.py): decisions, the latency
    from a decision to its messages, the event loop's lag, tables, sockets, leases,
    takeovers, store and bus failures; behind the operator's token (404 without one
    configured, 401 without it)."""
    from fujian_mahjong.server.metrics import CONTENT_TYPE

    _operator(request, settings.operator_token)
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE)
