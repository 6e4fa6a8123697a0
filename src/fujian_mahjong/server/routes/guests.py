"""``POST /api/guests``: a guest player and its bearer token (registered accounts are in
``server/accounts.py``). Limited per address like registrations
(``Settings.guests_per_address`` per ``guests_window_s``: then 429 ``rate_limited``);
guests that can no longer log in and never sat down are deleted later
(``Store.delete_idle_guests``, run by the app)."""

from __future__ import annotations

import unicodedata

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from fujian_mahjong.server import economy
from fujian_mahjong.server.auth import NAME_MAX, clean_name
from fujian_mahjong.server.ratelimit import RateLimiter
from fujian_mahjong.server.routes.deps import SettingsDep, StoreDep
from fujian_mahjong.server.routes.errors import ApiError, errors, too_many
from fujian_mahjong.server.settings import Settings

router = APIRouter(tags=["players"])


class GuestIn(BaseModel):
    model_config = ConfigDict(strict=True)

    name: str = Field(
        "guest",
        max_length=NAME_MAX,
        description="shown to the other players: at most 20 characters; control and format "
        "characters are dropped, runs of white space become one space, and a name left "
        'empty is "guest"',
    )


class GuestOut(BaseModel):
    token: str
    player_id: int
    name: str


def _guest_name(raw: str) -> str:
    """A guest's name as shown: any name the OpenAPI allows is taken (a guest chooses
    nothing else): control, format and unassigned characters dropped, white space runs
    made one space, an empty result "guest"."""
    kept = "".join(ch for ch in raw if not unicodedata.category(ch).startswith("C"))
    return " ".join(kept.split()) or "guest"


def _limiter(request: Request, settings: Settings) -> RateLimiter:
    lim: RateLimiter | None = getattr(request.app.state, "guest_limiter", None)
    if lim is None:
        lim = RateLimiter(
            max(1, settings.guests_per_address),
            max(1.0, settings.guests_window_s),
            clock=request.app.state.lobby.clock.now,  # the server's clock (fake in tests)
        )
        request.app.state.guest_limiter = lim
    return lim


@router.post("/api/guests", response_model=GuestOut, responses=errors(400, 409, 422, 429, 503))
async def new_guest(
    body: GuestIn, request: Request, store: StoreDep, settings: SettingsDep
) -> GuestOut:
    name = clean_name(_guest_name(body.name))
    lim = _limiter(request, settings)
    addr = request.client.host if request.client else "unknown"
    wait = lim.retry_after(addr)
    if wait:
        raise too_many("guests from this address", wait)
    # an account's name is its own: a guest named as one sat beside its players in its
    # name (docs/economy.md, "Names": the same key, NFKC and case folded). Refused before
    # the address's count: a name to change is not a guest made
    async with store.sessions() as s:
        if await economy.player_name_taken(s, unicodedata.normalize("NFKC", name).casefold()):
            raise ApiError(409, f"name {name!r} is an account's: choose another", "name_taken")
    lim.hit(addr)
    player, token = await store.create_guest(name)
    return GuestOut(token=token, player_id=player.id, name=player.name)
