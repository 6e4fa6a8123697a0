"""Rooms by stake, quick match and 救济金 relief (docs/economy.md):

- ``GET /api/rooms[?profile=P]``: the operator's rooms (server/rooms.py), each with its
  stakes, balance bounds, escape penalty and the humans ``playing`` in it now (with
  ``--redis``: at every process's tables);
- ``POST /api/quickmatch {"room"}`` → ``{"table"}``: a seat at a waiting table of the room
  (or a new one), to join over ``/ws``; bots fill the rest after ``quickmatch_wait_s``
  (with ``--redis``: one quick match per room at a time across the processes, which see
  each other's tables; docs/deploy.md);
- ``GET /api/relief``: the relief rules and what this player may still claim today;
- ``POST /api/relief`` → ``{"granted", "balance"}``: relief for a registered player below
  the threshold, at most ``per_day`` times a day (the day on the server's clock)."""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.server import economy
from fujian_mahjong.server.lobby import Lobby
from fujian_mahjong.server.rooms import RoomError
from fujian_mahjong.server.routes.deps import LobbyDep, Me, SettingsDep, StoreDep
from fujian_mahjong.server.routes.errors import ApiError, errors
from fujian_mahjong.server.settings import Settings

router = APIRouter(tags=["rooms"])


class RoomOut(BaseModel):
    id: str
    tier: str
    name_zh: str
    name_en: str
    profile: str
    stake: int
    base: int
    fee: int
    cap: int
    min_balance: int
    max_balance: int | None
    escape_penalty: int
    hands: int
    players: int
    playing: int
    # its bots play for the house account (false: a table alone with bots is practice,
    # docs/economy.md); the lobby says which
    house_bots: bool


class QuickMatchIn(BaseModel):
    model_config = ConfigDict(strict=True)

    room: str = Field(min_length=1, max_length=100)


class QuickMatchOut(BaseModel):
    table: int


class ReliefOut(BaseModel):
    granted: int
    balance: int


class ReliefInfo(BaseModel):
    threshold: int
    amount: int
    per_day: int
    registered: bool
    balance: int | None
    used_today: int
    left_today: int
    eligible: bool
    next_day_in_s: int


@router.get("/api/rooms", response_model=list[RoomOut], responses=errors(422))
async def list_rooms(
    lobby: LobbyDep,
    profile: Annotated[
        str | None,
        # OpenAPI: the profile names the route takes (an enum; any other is 422
        # ``bad_profile`` below), so a request valid by the document is answered
        Query(max_length=40, json_schema_extra={"enum": list(BUILTIN)}),
    ] = None,
) -> list[dict[str, Any]]:
    """The rooms by stake (all profiles, or one with ``?profile=``): stakes, fee, cap, the
    balance a player must have to enter (``min_balance``–``max_balance``, null: no upper
    bound), the escape penalty (8 × base × stake + fee) and the humans playing now."""
    if profile is not None and profile not in BUILTIN:
        raise ApiError(
            422,
            f"profile: unknown {profile[:40]!r}; expected one of {', '.join(BUILTIN)}",
            "bad_profile",
        )
    return lobby.rooms.listing(profile)


@router.post(
    "/api/quickmatch",
    response_model=QuickMatchOut,
    responses=errors(400, 401, 404, 409, 422, 503),
)
async def quickmatch(body: QuickMatchIn, me: Me, lobby: LobbyDep, store: StoreDep) -> QuickMatchOut:
    """A seat in the room: at the waiting table with the most humans, or at a new table;
    join it over ``/ws`` (``{"type": "join", "table": ID}``). After the room's wait, bots
    fill the free seats. An account's balance must be within the room's bounds (409
    ``balance_too_low`` / ``balance_too_high``); a player already seated elsewhere gets 409
    ``already_seated``; a second call for the same room answers the same table. With
    several processes, 503 ``busy`` when the room's quick match could not be had in time."""
    async with store.sessions() as s:
        acc = await economy.account_of(s, me.id)
    balance = acc[1] if acc is not None else None
    try:
        tid = await lobby.rooms.quickmatch(me.id, me.name, balance, body.room)
    except RoomError as e:
        raise ApiError(e.status, e.message, e.code) from None
    return QuickMatchOut(table=tid)


def relief_day(lobby: Lobby, settings: Settings) -> tuple[int, int]:
    """(today's number, seconds until tomorrow) on the server's clock: days since the
    epoch, starting at midnight UTC + ``relief_utc_offset_h``."""
    t = lobby.wall_time() + settings.relief_utc_offset_h * 3600.0
    day = math.floor(t / 86400.0)
    return day, max(1, math.ceil((day + 1) * 86400.0 - t))


@router.get("/api/relief", response_model=ReliefInfo, responses=errors(401, 503))
async def relief_info(
    me: Me, lobby: LobbyDep, store: StoreDep, settings: SettingsDep
) -> ReliefInfo:
    """The relief rules (threshold, amount, times a day) and this player's standing today."""
    day, left_s = relief_day(lobby, settings)
    async with store.sessions() as s:
        acc = await economy.account_of(s, me.id)
        used = await economy.relief_used(s, me.id, day) if acc is not None else 0
    per_day = settings.relief_per_day if settings.relief_amount > 0 else 0
    balance = acc[1] if acc is not None else None
    left = max(0, per_day - used)
    return ReliefInfo(
        threshold=settings.relief_threshold,
        amount=settings.relief_amount,
        per_day=per_day,
        registered=acc is not None,
        balance=balance,
        used_today=used,
        left_today=left if acc is not None else 0,
        eligible=balance is not None and balance < settings.relief_threshold and left > 0,
        next_day_in_s=left_s,
    )


@router.post("/api/relief", response_model=ReliefOut, responses=errors(401, 403, 409, 429, 503))
async def claim_relief(
    me: Me, lobby: LobbyDep, store: StoreDep, settings: SettingsDep
) -> ReliefOut:
    """救济金: ``relief_amount`` silver for a registered player whose balance is below
    ``relief_threshold``, at most ``relief_per_day`` times a day. Refusals: 403
    ``not_registered`` (a guest), 409 ``not_eligible`` (the balance is not below the
    threshold, or the server offers no relief), 429 ``limit_reached`` (with ``Retry-After``:
    the seconds until the next day)."""
    day, left_s = relief_day(lobby, settings)
    try:
        async with store.write() as s:
            granted, balance = await economy.grant_relief(
                s,
                me.id,
                day,
                settings.relief_threshold,
                settings.relief_amount,
                settings.relief_per_day,
            )
    except economy.EconomyError as e:
        if e.code == "no_account":
            raise ApiError(403, e.message, "not_registered") from None
        if e.code == "limit_reached":
            raise ApiError(429, e.message, e.code, {"Retry-After": str(left_s)}) from None
        raise ApiError(409, e.message, e.code) from None
    return ReliefOut(granted=granted, balance=balance)
