"""A hand over REST: its record (``GET /api/hands/{id}``) and, once it is over, its event
log (``GET /api/hands/{id}/log``, R12). The replay, review and summary screens built from
the log are in ``server/web_api.py``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse, PlainTextResponse

from fujian_mahjong.engine import to_jsonl
from fujian_mahjong.server.routes.deps import StoreDep
from fujian_mahjong.server.store import get_hand

router = APIRouter()


@router.get("/api/hands/{hand_id}/log", response_model=None)
async def hand_log(hand_id: int, store: StoreDep, format: str = "jsonl") -> Any:
    """A finished hand's event log (R12): JSON Lines, or a JSON array with
    ``?format=json``. 404 until the hand is over, so nothing leaks early."""
    hand, events = await store.hand_log(hand_id)
    if hand is None or hand.status != "over":
        raise HTTPException(404, f"hand {hand_id} is not finished (or does not exist)")
    if format == "json":
        return JSONResponse(events)
    return PlainTextResponse(to_jsonl(events), media_type="application/x-ndjson")


@router.get("/api/hands/{hand_id}")
async def hand_info(hand_id: int, store: StoreDep) -> dict[str, Any]:
    async with store.sessions() as s:
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
