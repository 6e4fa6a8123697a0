"""``POST /api/guests``: a guest player and its bearer token (registered accounts are in
``server/accounts.py``)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from fujian_mahjong.server.auth import clean_name
from fujian_mahjong.server.routes.deps import StoreDep

router = APIRouter()


class GuestIn(BaseModel):
    name: str = Field("guest", description="shown to the other players (1-20 characters)")


class GuestOut(BaseModel):
    token: str
    player_id: int
    name: str


@router.post("/api/guests", response_model=GuestOut)
async def new_guest(body: GuestIn, store: StoreDep) -> GuestOut:
    name = clean_name(body.name)
    player, token = await store.create_guest(name)
    return GuestOut(token=token, player_id=player.id, name=player.name)
