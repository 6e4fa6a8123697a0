"""The routes' dependencies (``Depends``): the objects ``create_app`` put on ``app.state``
and the authenticated player. They take an ``HTTPConnection`` so the same functions serve
HTTP routes and the WebSocket endpoint; none of them adds a parameter to the OpenAPI."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from fujian_mahjong.server.auth import bearer_player
from fujian_mahjong.server.lobby import Lobby
from fujian_mahjong.server.settings import Settings
from fujian_mahjong.server.store import Player, Store
from fujian_mahjong.server.ws import Dispatcher


def get_settings(request: HTTPConnection) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_store(request: HTTPConnection) -> Store:
    store: Store = request.app.state.store
    return store


def get_lobby(request: HTTPConnection) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def get_dispatcher(request: HTTPConnection) -> Dispatcher:
    dispatcher: Dispatcher = request.app.state.dispatcher
    return dispatcher


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[Store, Depends(get_store)]
LobbyDep = Annotated[Lobby, Depends(get_lobby)]
DispatcherDep = Annotated[Dispatcher, Depends(get_dispatcher)]


# declares the bearer token in the OpenAPI (the check itself is ``bearer_player``)
bearer_scheme = HTTPBearer(
    auto_error=False,
    description="a player's token (from POST /api/guests, /api/accounts or /api/login)",
)
BearerDoc = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)]


async def current_player(request: Request, store: StoreDep, _doc: BearerDoc) -> Player:
    """The REST caller (``Authorization: Bearer TOKEN``); HTTP 401 if missing or not valid."""
    return await bearer_player(request, store)


Me = Annotated[Player, Depends(current_player)]
