"""``GET /api/phrases``: the table chat's preset phrases and reactions (快捷语, 表情), fixed
in code (server/social.py; docs/protocol.md): what a client may send as ``{"type": "chat",
"phrase": ID}`` and the zh/en text to show for each."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel

from fujian_mahjong.server.social import PHRASES

router = APIRouter(tags=["tables"])


class PhraseOut(BaseModel):
    id: str
    zh: str
    en: str
    kind: Literal["phrase", "reaction"]
    emoji: str | None


@router.get("/api/phrases", response_model=list[PhraseOut])
async def list_phrases() -> list[PhraseOut]:
    """The chat's phrases and reactions in display order (the same for every table)."""
    return [PhraseOut(id=p.id, zh=p.zh, en=p.en, kind=p.kind, emoji=p.emoji) for p in PHRASES]
