"""Tables and the lobby over REST: create a table (with its R11 stakes), list the open
ones, look one up by id or code, add and remove bots. Lookups by something shaped like a
private table's code are rate-limited per address (the dispatcher's misses), shared with
the WebSocket ``join``.

A table and its stakes are stored in one transaction before the table can take a join
(``Lobby.create``), and the stakes are bounded (docs/economy.md): the stake by the operator's
``table_stake_min``–``table_stake_max`` (``[tables]`` of ``fjmj serve --config``), the fee by
``Settings.max_fee_ratio`` × the stake, the minimum balance from below by what one hand can
cost at the table (``economy.min_balance_floor``)."""

from __future__ import annotations

import contextlib
from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.server import commands as C
from fujian_mahjong.server import economy
from fujian_mahjong.server.auth import bearer_player
from fujian_mahjong.server.lobby import Lobby
from fujian_mahjong.server.routes.deps import (
    DispatcherDep,
    LobbyDep,
    Me,
    SettingsDep,
    StoreDep,
)
from fujian_mahjong.server.routes.errors import ApiError, errors, id_of
from fujian_mahjong.server.store import Player
from fujian_mahjong.server.table import TableError
from fujian_mahjong.server.ws import Dispatcher

router = APIRouter(tags=["tables"])

TableRef = Annotated[
    str, Path(min_length=1, max_length=40, description="a table id, or its 5-letter code")
]


class StakesOut(BaseModel):
    stake: int
    base: int
    fee: int
    cap: int
    min_balance: int


# the bot kinds a table may seat (fujian_mahjong.bots.BOT_KINDS): 新手, 普通, 熟手 (the
# neural network), 高手 and the reference kinds
BotKind = Literal["random", "greedy", "heuristic", "neural", "strong", "heuristic-v1"]


class TableIn(BaseModel):
    # strict: "10", true or 2.0 are not integers here, "yes" is not a boolean; a key not
    # below is refused (422), and OpenAPI says so (``additionalProperties: false``)
    model_config = ConfigDict(strict=True, extra="forbid")

    # OpenAPI: the profile names (an enum); any other is still 400 ``unknown profile``
    # from the table
    profile: str = Field(
        default="fuzhou-tcy", max_length=40, json_schema_extra={"enum": list(BUILTIN)}
    )
    players: int = Field(default=4, ge=2, le=4)
    bots: int = Field(default=0, ge=0, le=4)
    turn_seconds: float = Field(default=15, ge=0.2, le=600)
    hands: int = Field(default=8, ge=1, le=64)
    private: bool = False
    # how long a claim pause lasts (docs/protocol.md); default: the server's --claim-window
    claim_window: Literal["auto", "fast", "fixed"] | None = None
    # the bots' kind (docs/bots.md, the difficulty ladder); default: the server's (heuristic)
    bot_kind: BotKind | None = None
    # R11 (server/economy.py): silver per point, base, fee (at most max_fee_ratio × stake),
    # loss cap in points (0: the profile's own, if any), the minimum balance to sit down
    # (default 20 × stake; never below what one hand can cost)
    stake: int = Field(default=1, ge=0, le=10**9)
    base: int = Field(default=1, ge=1, le=10**6)
    fee: int = Field(default=0, ge=0, le=10**9)
    cap: int = Field(default=0, ge=0, le=10**9)
    min_balance: int | None = Field(default=None, ge=0, le=10**15)


class TableOut(BaseModel):
    id: int
    code: str
    stakes: StakesOut | None = None
    # R11 逃跑: what leaving mid-hand costs here (8 × base × stake + fee), unless practice
    escape_penalty: int | None = None
    # 练习 (docs/economy.md): one account with bots not of the house, or guests: no stake
    # moves, no fee, no escape penalty
    practice: bool = False


def _bot_table(
    lobby: Lobby, player_id: int, bot_only: bool
) -> contextlib.AbstractContextManager[None]:
    """A table with a bot at every seat plays at once, at the server's cost (and a 高手's
    searches share one worker): a player may keep only ``bot_tables_per_player`` going
    (counted in this process, those being made included: ``Lobby.making_bot_table``)."""
    if not bot_only:
        return contextlib.nullcontext()
    return lobby.making_bot_table(
        player_id, int(getattr(lobby.settings, "bot_tables_per_player", 0))
    )


@router.post("/api/tables", response_model=TableOut, responses=errors(400, 401, 409, 422, 503))
async def new_table(
    me: Me, lobby: LobbyDep, settings: SettingsDep, body: TableIn | None = None
) -> TableOut:
    """A table (joined over ``/ws``) with its R11 stakes. Besides what each field allows,
    rules between fields (docs/economy.md): the profile's number of players (400
    ``bad_players``), at most one bot a seat (400 ``bad_bots``), the stake within this
    server's bounds (422 ``stake_out_of_bounds``), the fee at most ``max_fee_ratio`` × the
    stake (422 ``fee_too_high``), the minimum balance at least what one hand can cost here
    (422 ``min_balance_too_low``). A key not in the body's schema is refused (422)."""
    b = body or TableIn()
    if not settings.table_stake_min <= b.stake <= settings.table_stake_max:
        raise ApiError(
            422,
            f"stake: this server allows {settings.table_stake_min}-{settings.table_stake_max}"
            f", got {b.stake}",
            "stake_out_of_bounds",
        )
    try:
        stakes = economy.make_stakes(
            b.stake,
            b.base,
            b.fee,
            b.cap,
            b.min_balance,
            profile=b.profile if b.profile in BUILTIN else None,
            max_fee_ratio=settings.max_fee_ratio,
        )
    except economy.EconomyError as e:
        raise ApiError(422, e.message, e.code) from None
    try:
        with _bot_table(lobby, me.id, b.bots >= b.players):
            t = await lobby.create(
                me.id,
                b.profile,
                b.players,
                b.bots,
                b.turn_seconds,
                b.hands,
                b.private,
                stakes=asdict(stakes),
                claim_window=b.claim_window,
                bot_kind=b.bot_kind,
            )
    except TableError as e:
        status = 409 if e.code == "too_many_tables" else 400
        raise ApiError(status, e.message, e.code) from None
    if lobby.cluster is not None:
        await lobby.cluster.table_made()  # found by its code through any process at once
    return TableOut(
        id=t.id,
        code=t.cfg.code,
        stakes=StakesOut(**asdict(stakes)),
        escape_penalty=economy.escape_penalty(stakes),
        practice=t.practice,
    )


@router.get("/api/tables")
async def list_tables(lobby: LobbyDep) -> list[dict[str, Any]]:
    """The open public tables, each with its ``stakes`` (null: points only)."""
    return lobby.open_tables()


def _check_misses(dispatcher: Dispatcher, ref: str, addr: str) -> None:
    try:
        if dispatcher.code_like(ref):
            dispatcher.check_misses(addr)
    except TableError as e:
        raise ApiError(429, e.message, e.code, {"Retry-After": "60"}) from None


@router.get("/api/tables/{ref}", responses=errors(404, 422, 429, 503))
async def table_detail(
    ref: TableRef,
    request: Request,
    store: StoreDep,
    lobby: LobbyDep,
    dispatcher: DispatcherDep,
) -> dict[str, Any]:
    """One table with its ``stakes``, its ``escape_penalty`` (8 × base × stake + fee, R11;
    null: points only) and its ``room`` (null: not a quick-match table). A private table by
    id: only for its creator, its seated players and its spectators (its code is the key; ids are
    sequential). With several processes (docs/deploy.md) a table another process runs is
    answered from its published summary, the same body and the same rule as its owner's; a
    table no process runs, by id, with its stored row (without ``seats``)."""
    addr = request.client.host if request.client else "?"
    _check_misses(dispatcher, ref, addr)
    viewer: int | None = None
    if request.headers.get("authorization"):
        with contextlib.suppress(HTTPException):
            viewer = (await bearer_player(request, store)).id
    try:
        return lobby.describe(lobby.find(ref, viewer))
    except TableError:
        pass
    tid = id_of(ref)
    unreadable = False
    key = tid if tid is not None else ref.strip().upper() if dispatcher.code_like(ref) else None
    if lobby.cluster is not None and key is not None:
        try:
            found = await lobby.cluster.lookup(key, viewer)
        except TableError:
            unreadable = True  # Redis is down: maybe another process runs it
        else:
            if found is not None:
                return found  # no miss: a code found anywhere in the cluster is no guess
    if tid is not None:
        row = await store.get_table(tid)
        if row is not None and (not row.private or row.creator_id == viewer):
            stakes = await store.table_stakes(row.id)
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
                "stakes": stakes,
                "escape_penalty": economy.escape_penalty(stakes),
                "room": row.room,
                "practice": False,  # no live seats: see docs/economy.md
            }
    if unreadable:
        raise ApiError(
            503,
            "the other servers' tables cannot be read now; try again",
            "unavailable",
            {"Retry-After": "1"},
        )
    if dispatcher.code_like(ref):
        dispatcher.misses.hit(addr)
    raise ApiError(404, f"no table {ref[:20]!r}", "no_table")


async def _bots(
    lobby: Lobby,
    dispatcher: Dispatcher,
    request: Request,
    ref: str,
    me: Player,
    add: bool,
    kind: str | None = None,
) -> dict[str, Any]:
    addr = request.client.host if request.client else "?"
    _check_misses(dispatcher, ref, addr)
    try:
        # by id a private table is there only for its creator and its players
        t = dispatcher.find(ref, me.id, addr)
        if lobby.table_rooms.get(getattr(t, "id", -1)) is not None:
            # a quick-match table fills its free seats with bots itself after the room's
            # wait and deals at once (docs/economy.md): nobody adds or removes them
            raise ApiError(
                409, "a room table fills its free seats with bots by itself", "room_table"
            )
        seats = getattr(t, "seats", None)  # None: a table another process runs
        if not add:
            return await t.ask(C.RemoveBot(me.id))  # type: ignore[no-any-return]
        # this bot would make it a bot-only table, which starts at once
        last = (
            seats is not None
            and t.cfg.creator_id == me.id
            and sum(1 for x in seats if not x.taken) == 1
            and not any(x.human for x in seats)
        )
        with _bot_table(lobby, me.id, last):
            return await t.ask(C.AddBot(me.id, kind))  # type: ignore[no-any-return]
    except TableError as e:
        status = {"forbidden": 403, "no_table": 404, "rate_limited": 429}.get(e.code, 409)
        raise ApiError(status, e.message, e.code) from None


_BOT_ERRORS = errors(401, 403, 404, 409, 422, 429, 503)


@router.post("/api/tables/{ref}/bots", responses=_BOT_ERRORS)
async def add_bot(
    ref: TableRef,
    request: Request,
    me: Me,
    lobby: LobbyDep,
    dispatcher: DispatcherDep,
    kind: BotKind | None = None,
) -> dict[str, Any]:
    """The creator adds a bot (before the match starts), of ``?kind=`` (default: the
    server's); answers the table."""
    return await _bots(lobby, dispatcher, request, ref, me, True, kind)


@router.delete("/api/tables/{ref}/bots", responses=_BOT_ERRORS)
async def remove_bot(
    ref: TableRef, request: Request, me: Me, lobby: LobbyDep, dispatcher: DispatcherDep
) -> dict[str, Any]:
    """The creator removes a bot (before the match starts); answers the table."""
    return await _bots(lobby, dispatcher, request, ref, me, False)
