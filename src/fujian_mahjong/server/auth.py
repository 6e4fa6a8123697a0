"""Identity: guests now, registered accounts (docs/economy.md). Every REST call carries
``Authorization: Bearer TOKEN``; the WebSocket carries the token in ``hello``."""

from __future__ import annotations

import unicodedata

from fastapi import Request

from fujian_mahjong.server.routes.errors import ApiError
from fujian_mahjong.server.store import Player, Store

NAME_MAX = 20


def clean_name(name: str) -> str:
    """A display name: trimmed, 1-20 characters, no control characters (HTTP 422 if not)."""
    n = " ".join(name.split())
    if not n:
        raise ApiError(422, "name: must not be empty", "bad_name")
    if len(n) > NAME_MAX:
        raise ApiError(422, f"name: at most {NAME_MAX} characters, got {len(n)}", "bad_name")
    if any(unicodedata.category(ch).startswith("C") for ch in n):
        raise ApiError(422, "name: control characters are not allowed", "bad_name")
    return n


async def bearer_player(request: Request, store: Store) -> Player:
    """The player of the request's bearer token (HTTP 401 if missing or not valid)."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(
            401,
            "missing bearer token (Authorization: Bearer …)",
            "not_authenticated",
            {"WWW-Authenticate": "Bearer"},
        )
    player = await store.player_for_token(token.strip())
    if player is None:
        raise ApiError(
            401, "unknown, expired or revoked token", "bad_token", {"WWW-Authenticate": "Bearer"}
        )
    return player
