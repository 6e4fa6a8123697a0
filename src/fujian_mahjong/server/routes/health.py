"""``GET /api/health``: liveness for load balancers and the operator's counters (tables,
actions, commits, the database). 503 with ``"status": "degraded"`` while the store cannot
write or a table is in fault recovery."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from fujian_mahjong.server.routes.deps import LobbyDep, StoreDep

router = APIRouter()


@router.get("/api/health", response_model=None)
async def health(store: StoreDep, lobby: LobbyDep) -> Any:
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
