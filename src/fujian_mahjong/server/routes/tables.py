"""Tables and the lobby over REST: create a table (with its R11 stakes), list the open
ones, look one up by id or code, add and remove bots. Lookups by something shaped like a
private table's code are rate-limited per address (the dispatcher's misses), shared with
the WebSocket ``join``."""

from __future__ import annotations

import contextlib
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, Field

from fujian_mahjong.server import economy
from fujian_mahjong.server.auth import bearer_player
from fujian_mahjong.server.lobby import Lobby
from fujian_mahjong.server.routes.deps import DispatcherDep, LobbyDep, Me, StoreDep
from fujian_mahjong.server.store import Player
from fujian_mahjong.server.table import TableError

router = APIRouter()


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


@router.post("/api/tables", response_model=TableOut)
async def new_table(
    me: Me, store: StoreDep, lobby: LobbyDep, body: TableIn | None = None
) -> TableOut:
    b = body or TableIn()
    try:
        t = await lobby.create(
            me.id, b.profile, b.players, b.bots, b.turn_seconds, b.hands, b.private
        )
    except TableError as e:
        raise HTTPException(400, e.message) from None
    async with store.write() as s:
        await economy.set_stakes(
            s, t.id, economy.make_stakes(b.stake, b.base, b.fee, b.cap, b.min_balance)
        )
    return TableOut(id=t.id, code=t.cfg.code)


@router.get("/api/tables")
async def list_tables(lobby: LobbyDep) -> list[dict[str, Any]]:
    return lobby.open_tables()


@router.get("/api/tables/{ref}")
async def table_detail(
    ref: str, request: Request, store: StoreDep, lobby: LobbyDep, dispatcher: DispatcherDep
) -> dict[str, Any]:
    addr = request.client.host if request.client else "?"
    try:
        if dispatcher.code_like(ref):
            dispatcher.check_misses(addr)
    except TableError as e:
        raise HTTPException(429, e.message) from None
    viewer: int | None = None
    if request.headers.get("authorization"):
        with contextlib.suppress(HTTPException):
            viewer = (await bearer_player(request, store)).id
    try:
        # a private table by id: only for its creator and seated players (its code is the
        # key to it; ids are sequential and could be enumerated)
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
    if dispatcher.code_like(ref):
        dispatcher.misses.hit(addr)
    raise HTTPException(404, f"no table {ref[:20]!r}")


async def _bots(lobby: Lobby, ref: str, me: Player, add: bool) -> dict[str, Any]:
    try:
        t = lobby.find(ref)
        fn = t.add_bot if add else t.remove_bot
        return await t.call(lambda: fn(me.id))  # type: ignore[no-any-return]
    except TableError as e:
        code = {"forbidden": 403, "no_table": 404}.get(e.code, 409)
        raise HTTPException(code, e.message) from None


@router.post("/api/tables/{ref}/bots")
async def add_bot(ref: str, me: Me, lobby: LobbyDep) -> dict[str, Any]:
    return await _bots(lobby, ref, me, True)


@router.delete("/api/tables/{ref}/bots")
async def remove_bot(ref: str, me: Me, lobby: LobbyDep) -> dict[str, Any]:
    return await _bots(lobby, ref, me, False)
