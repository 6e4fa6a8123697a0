"""A hand over REST: its record (``GET /api/hands/{id}``) and, once it is over, its event
log (``GET /api/hands/{id}/log``, R12). The replay, review and summary screens built from
the log are in ``server/web_api.py``.

A hand of a **private** table is shown only to its players, the table's creator and those
who give the table's code (``?code=ABCDE``); to anyone else it answers the same 404 as a
hand that does not exist (hand ids are sequential and could be enumerated). Wrong codes
count as misses of the address's table lookups (rate limited like ``GET /api/tables``)."""

from __future__ import annotations

import contextlib
import hmac
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from fujian_mahjong.engine import to_jsonl
from fujian_mahjong.server.auth import bearer_player
from fujian_mahjong.server.routes.deps import BearerDoc, StoreDep
from fujian_mahjong.server.routes.errors import OPTIONAL_AUTH, ApiError, DbId, errors
from fujian_mahjong.server.store import HandRow, Store, TableRow, get_hand
from fujian_mahjong.server.table import TableError

router = APIRouter(tags=["hands"])

CodeQuery = Annotated[
    str | None,
    Query(max_length=20, description="the table's code: opens the hands of a private table"),
]


def _not_found(hand_id: int) -> ApiError:
    return ApiError(404, f"no hand {hand_id}", "no_hand")


def _not_finished(hand_id: int) -> ApiError:
    return ApiError(404, f"hand {hand_id} is not finished (or does not exist)", "no_hand")


async def may_see(request: Request, store: Store, hand: HandRow, code: str | None) -> bool:
    """Whether this caller may see this hand: any hand of a public table; a private
    table's hand only for its players and the table's creator (bearer token) or with the
    table's code. A wrong code counts as a miss of this address (then 429)."""
    async with store.sessions() as s:
        table = await s.get(TableRow, hand.table_id)
    if table is None or not table.private:
        return True
    if code is not None:
        dispatcher = request.app.state.dispatcher
        addr = request.client.host if request.client else "?"
        try:
            dispatcher.check_misses(addr)
        except TableError as e:
            raise ApiError(429, e.message, e.code, {"Retry-After": "60"}) from None
        if hmac.compare_digest(code.strip().upper().encode(), table.code.encode()):
            return True
        dispatcher.misses.hit(addr)
    if request.headers.get("authorization"):
        with contextlib.suppress(HTTPException):
            viewer = (await bearer_player(request, store)).id
            return viewer == table.creator_id or viewer in (hand.seat_players or [])
    return False


async def visible_hand(
    request: Request, store: Store, hand_id: int, code: str | None
) -> HandRow | None:
    """The hand's row if it exists and this caller may see it, else None."""
    async with store.sessions() as s:
        hand = await get_hand(s, hand_id)
    if hand is None or not await may_see(request, store, hand, code):
        return None
    return hand


_LOG_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The events, one JSON object per line (or a JSON array)",
        "content": {
            "application/x-ndjson": {"schema": {"type": "string"}},
            "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
        },
    },
    **errors(404, 422, 429, 503),
}


@router.get(
    "/api/hands/{hand_id}/log",
    response_model=None,
    responses=_LOG_RESPONSES,
    openapi_extra=OPTIONAL_AUTH,
)
async def hand_log(
    hand_id: DbId,
    request: Request,
    store: StoreDep,
    _doc: BearerDoc,
    # anything else is a 422 naming the two (it answered JSON Lines for ?format=xml)
    format: Literal["jsonl", "json"] = "jsonl",
    code: CodeQuery = None,
) -> Any:
    """A finished hand's event log (R12): JSON Lines, or a JSON array with
    ``?format=json``. 404 until the hand is over, so nothing leaks early. A void hand's
    log ends where it was cut short, without ``end``: its seed is in ``GET
    /api/hands/{id}`` (``fjmj replay --seed`` verifies the two)."""
    hand, events = await store.hand_log(hand_id)
    if hand is None or not events or not await may_see(request, store, hand, code):
        raise _not_finished(hand_id)
    if format == "json":
        return JSONResponse(events)
    return PlainTextResponse(to_jsonl(events), media_type="application/x-ndjson")


@router.get(
    "/api/hands/{hand_id}", responses=errors(404, 422, 429, 503), openapi_extra=OPTIONAL_AUTH
)
async def hand_info(
    hand_id: DbId, request: Request, store: StoreDep, _doc: BearerDoc, code: CodeQuery = None
) -> dict[str, Any]:
    """A hand's metadata; ``result``, ``score`` and ``log_url`` once it is over; a void
    hand's ``log_url`` and ``seed`` (R12: revealed when the hand ends; its log has no
    ``end`` event to reveal it)."""
    h = await visible_hand(request, store, hand_id, code)
    if h is None:
        raise _not_found(hand_id)
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
    elif h.status == "void":
        out.update(seed=h.seed, log_url=f"/api/hands/{h.id}/log")
    return out
