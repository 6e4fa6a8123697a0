"""The operator's bounds on a private table's stakes (docs/protocol.md, "Rooms"):

- ``GET /api/stakes`` → ``{"min", "max", "max_fee_ratio"}``: the stake a table made with
  ``POST /api/tables`` may have (``Settings.table_stake_min``–``table_stake_max``, the
  ``[tables]`` section of ``fjmj serve --config``) and the most its fee may be, as a multiple
  of the stake (``Settings.max_fee_ratio``, R11). Public: the create form offers only these
  stakes; ``POST /api/tables`` still refuses anything else (``stake_out_of_bounds``)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from fujian_mahjong.server.routes.deps import SettingsDep

router = APIRouter(tags=["rooms"])


class StakeBoundsOut(BaseModel):
    min: int
    max: int
    max_fee_ratio: float


@router.get("/api/stakes")
async def stake_bounds(settings: SettingsDep) -> StakeBoundsOut:
    """The bounds of a private table's stake and fee on this server."""
    return StakeBoundsOut(
        min=settings.table_stake_min,
        max=settings.table_stake_max,
        max_fee_ratio=settings.max_fee_ratio,
    )
