"""Registered accounts and the public economy endpoints (R11, docs/economy.md).

- ``POST /api/accounts {"name", "password"}``: register (201). With a guest's bearer token
  the guest becomes the account and keeps its player id. Names are unique (compared after
  NFKC and case folding), 2–20 letters, digits, spaces or ``_ - .``; passwords 8–128
  characters, hashed with argon2id (``argon2-cffi``), never logged nor returned.
- ``POST /api/login {"name", "password"}`` → ``{"token", "player_id", "name"}``; failed
  attempts are rate-limited per name and per address (HTTP 429 with ``Retry-After``).
- ``POST /api/logout`` revokes the bearer token (``{"all": true}``: every token of the
  player). Tokens expire after the server's ``token_ttl_days``.
- ``GET /api/me`` → ``{"player_id", "name", "silver", "rating", "level"}``.
- ``GET /api/players/{id}`` (the profile: level and progress, statistics and the skill
  rating per profile, recent hands), ``GET /api/players/{id}/hands``,
  ``GET /api/leaderboard?profile=P&by=level|skill&page=N&per_page=M``.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import unicodedata
from typing import Annotated, Any, Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import case, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.scoring import level_for
from fujian_mahjong.scoring.settlement import LEVELS
from fujian_mahjong.server import economy
from fujian_mahjong.server import rating as skill
from fujian_mahjong.server.auth import bearer_player
from fujian_mahjong.server.ratelimit import RateLimiter
from fujian_mahjong.server.routes.deps import BearerDoc
from fujian_mahjong.server.routes.errors import (
    OPTIONAL_AUTH,
    ApiError,
    DbId,
    errors,
    id_of,
    too_many,
)
from fujian_mahjong.server.store import HandRow, Player, Store, TableRow, Token, hash_token
from fujian_mahjong.server.store.economy_models import (
    Account,
    HandResultRow,
    LedgerRow,
    ProfileStatRow,
    SkillRow,
)
from fujian_mahjong.server.store.models import utcnow

router = APIRouter(tags=["accounts"])

NAME_MIN, NAME_MAX = 2, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 128
NAME_PUNCT = " _-."
GUEST_NAME = "guest"  # a guest's name when it gives none (routes/guests.py)
HASHER = PasswordHasher()  # argon2id with the library's current recommended parameters
_DUMMY: list[str] = []  # a hash to verify against for unknown names (equal timing)


class Credentials(BaseModel):
    model_config = ConfigDict(strict=True)
    # generous limits here; the precise rules are checked below with clear messages
    name: str = Field(max_length=1000)
    password: str = Field(max_length=1000)


class AccountOut(BaseModel):
    token: str
    player_id: int
    name: str
    silver: int | None = None


class LogoutIn(BaseModel):
    model_config = ConfigDict(strict=True)

    all: bool = False


def account_name(raw: str) -> tuple[str, str]:
    """(display name, uniqueness key) of an account name, or HTTP 422 saying what is wrong."""
    name = unicodedata.normalize("NFKC", " ".join(raw.split()))
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ApiError(422, f"name: {NAME_MIN}-{NAME_MAX} characters, got {len(name)}", "bad_name")
    for ch in name:
        if not (unicodedata.category(ch)[0] in "LN" or ch in NAME_PUNCT):
            raise ApiError(
                422,
                f"name: only letters, digits, spaces and _ - . are allowed, not {ch!r}",
                "bad_name",
            )
    return name, name.casefold()


def check_password(pw: str) -> None:
    if not PASSWORD_MIN <= len(pw) <= PASSWORD_MAX:
        raise ApiError(
            422,
            f"password: {PASSWORD_MIN}-{PASSWORD_MAX} characters, got {len(pw)}",
            "bad_password",
        )


def _limiters(request: Request) -> dict[str, RateLimiter]:
    st = request.app.state
    lim: dict[str, RateLimiter] | None = getattr(st, "account_limiters", None)
    if lim is None:
        cfg = st.settings
        window = float(getattr(cfg, "login_window_s", 300.0))
        now = st.lobby.clock.now  # the server's clock (the fake one in tests)
        lim = {
            "name": RateLimiter(int(getattr(cfg, "login_fails_per_name", 5)), window, now),
            "addr": RateLimiter(int(getattr(cfg, "login_fails_per_address", 30)), window, now),
            "register": RateLimiter(
                int(getattr(cfg, "registrations_per_address", 30)), 3600.0, now
            ),
        }
        st.account_limiters = lim
    return lim


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def _new_token(s: Any, store: Store, player_id: int) -> str:
    token = secrets.token_urlsafe(32)
    await s.execute(
        insert(Token).values(
            token_hash=hash_token(token),
            player_id=player_id,
            created_at=utcnow(),
            expires_at=utcnow() + store.token_ttl,
            revoked=False,
        )
    )
    return token


def _bearer(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


@router.post(
    "/api/accounts",
    status_code=201,
    response_model=AccountOut,
    responses=errors(400, 401, 409, 422, 429, 503),
)
async def register(body: Credentials, request: Request, _doc: BearerDoc) -> AccountOut:
    """Register an account (a guest's bearer token turns that guest into the account)."""
    store: Store = request.app.state.store
    name, key = account_name(body.name)
    if key == GUEST_NAME:
        # every guest that gives no name is "guest" (routes/guests.py): an account of that
        # name would refuse them all (a guest may not take an account's name)
        raise ApiError(409, f"name {name!r} is kept for guests", "name_taken")
    check_password(body.password)
    guest = await bearer_player(request, store) if _bearer(request) else None
    if guest is not None and guest.kind == "registered":
        raise ApiError(409, "this player is already registered", "already_registered")
    lim = _limiters(request)["register"]
    addr = _address(request)
    wait = lim.retry_after(addr)
    if wait:
        raise too_many("registrations from this address", wait)
    lim.hit(addr)
    pw_hash = await asyncio.to_thread(HASHER.hash, body.password)
    grant = int(getattr(request.app.state.settings, "starting_grant", economy.DEFAULT_GRANT))
    try:
        async with store.write() as s:
            if await economy.player_name_taken(s, key):
                raise ApiError(409, f"name {name!r} is taken", "name_taken")
            if guest is not None:
                pid = guest.id
                # still a guest in this transaction (two registrations of one guest at
                # the same moment: the second finds it registered, not its name taken);
                # the update locks the player's row before the seat check below, as a
                # sit-down does (economy.one_table), so the two are taken one after the other
                done = await s.execute(
                    update(Player)
                    .where(Player.id == pid, Player.kind == "guest")
                    .values(name=name, kind="registered", password_hash=pw_hash)
                )
                if not getattr(done, "rowcount", 0):
                    raise ApiError(409, "this player is already registered", "already_registered")
                # R11: a guest's seat plays for points; registered mid-match, it would play
                # for silver at a table whose minimum balance it never met
                seated = await economy.seated_at(s, pid)
                if seated is not None:
                    raise ApiError(
                        409,
                        f"you are seated at table {seated}; register after leaving it",
                        "seated",
                    )
            else:
                res = await s.execute(
                    insert(Player)
                    .values(
                        name=name, kind="registered", password_hash=pw_hash, created_at=utcnow()
                    )
                    .returning(Player.id)
                )
                pid = int(res.scalar_one())
            await economy.create_account(s, pid, key, grant)
            token = await _new_token(s, store, pid)
    except IntegrityError:
        raise ApiError(409, f"name {name!r} is taken", "name_taken") from None
    return AccountOut(token=token, player_id=pid, name=name, silver=grant)


@router.post("/api/login", response_model=AccountOut, responses=errors(400, 401, 422, 429, 503))
async def login(body: Credentials, request: Request) -> AccountOut:
    """Log in: a new token. Wrong name and wrong password get the same answer."""
    store: Store = request.app.state.store
    lims = _limiters(request)
    raw = unicodedata.normalize("NFKC", " ".join(body.name.split()))[:100]
    key = raw.casefold()
    nkey, akey = f"name:{key}", f"addr:{_address(request)}"
    wait = max(lims["name"].retry_after(nkey), lims["addr"].retry_after(akey))
    if wait:
        raise too_many("failed logins", wait)
    row = None
    if NAME_MIN <= len(raw) <= NAME_MAX and len(body.password) <= PASSWORD_MAX:
        async with store.sessions() as s:
            row = (
                await s.execute(
                    select(Player.id, Player.name, Player.password_hash)
                    .join(Account, Account.player_id == Player.id)
                    .where(Account.name_key == key)
                )
            ).first()
    ok = await asyncio.to_thread(
        _verify, row[2] if row is not None else None, body.password[:PASSWORD_MAX]
    )
    if row is None or not ok:
        lims["name"].hit(nkey)
        lims["addr"].hit(akey)
        raise ApiError(401, "wrong name or password", "wrong_credentials")
    lims["name"].reset(nkey)
    pid, name, pw_hash = int(row[0]), str(row[1]), row[2]
    async with store.write() as s:
        if pw_hash is not None and HASHER.check_needs_rehash(pw_hash):
            new_hash = HASHER.hash(body.password)
            await s.execute(update(Player).where(Player.id == pid).values(password_hash=new_hash))
        token = await _new_token(s, store, pid)
    return AccountOut(token=token, player_id=pid, name=name)


def _verify(pw_hash: str | None, password: str) -> bool:
    if pw_hash is None:
        if not _DUMMY:
            _DUMMY.append(HASHER.hash(secrets.token_hex(16)))
        pw_hash = _DUMMY[0]
        with contextlib.suppress(VerifyMismatchError, VerificationError, InvalidHashError):
            HASHER.verify(pw_hash, password)
        return False
    try:
        return HASHER.verify(pw_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


@router.post("/api/logout", responses=errors(400, 401, 422, 503))
async def logout(request: Request, _doc: BearerDoc, body: LogoutIn | None = None) -> dict[str, Any]:
    """Revoke the bearer token (or, with ``{"all": true}``, every token of this player).
    The WebSockets that said hello with a revoked token are closed with code 4001
    (docs/protocol.md)."""
    store: Store = request.app.state.store
    me = await bearer_player(request, store)
    token = _bearer(request) or ""
    everything = body is not None and body.all
    async with store.write() as s:
        q = update(Token).values(revoked=True)
        if everything:
            q = q.where(Token.player_id == me.id)
        else:
            q = q.where(Token.token_hash == hash_token(token))
        await s.execute(q)
    request.app.state.dispatcher.close_player(me.id, token=None if everything else token)
    return {"ok": True}


def _stats_level(rating: int) -> dict[str, Any]:
    return economy.level_json(level_for(max(0, rating)))


@router.get("/api/me", responses=errors(401, 503))
async def me(request: Request, _doc: BearerDoc) -> dict[str, Any]:
    """``{"player_id", "name", "silver", "rating", "level": {"n", "title_zh", "rank_zh",
    "next"}}``; a guest has ``"registered": false`` and ``"silver": null``."""
    store: Store = request.app.state.store
    player = await bearer_player(request, store)
    async with store.sessions() as s:
        acc = await economy.account_of(s, player.id)
    silver, rating = (acc[1], acc[2]) if acc is not None else (None, 0)
    return {
        "player_id": player.id,
        "name": player.name,
        "registered": acc is not None,
        "silver": silver,
        "rating": rating,
        "level": _stats_level(rating),
    }


def _progress(rating: int) -> dict[str, Any]:
    """Progress to the next R11 level: ``{"from", "next", "fraction"}`` (the rating where this
    level starts, where the next one starts — null at the top — and how far along, 0–1)."""
    rating = max(0, rating)
    lv = level_for(rating)
    # level 1 starts at 0, level n at level n-1's "next" (R11's table)
    start = 0 if lv.level == 1 else int(LEVELS[lv.level - 2][3])
    if lv.next_at is None:
        return {"from": start, "next": None, "fraction": 1.0}
    span = lv.next_at - start
    return {"from": start, "next": lv.next_at, "fraction": round((rating - start) / span, 4)}


RECENT_HANDS = 10


def _listed(query: Any, own: bool) -> Any:
    """A query of a player's hands as this viewer may list them: all of them for the
    player themselves; for anyone else none of a private table's (they open only to its
    players and to its code, routes/hands.py ``may_see``: listed, they said who played
    whom there, when and for how much)."""
    if own:
        return query
    return query.join(TableRow, TableRow.id == HandRow.table_id).where(TableRow.private.is_(False))


def _counted(query: Any, own: bool) -> Any:
    """A count of a player's hand results as this viewer may see it: ``_listed``'s rule (a
    private table's hands only for the player themselves), so that the totals a stranger
    polls do not move when a private table's hand ends (they said when it ended and how many
    points it was worth)."""
    if own:
        return query
    return _listed(query.join(HandRow, HandRow.id == HandResultRow.hand_id), own)


@router.get(
    "/api/players/{player_id}", responses=errors(404, 422, 503), openapi_extra=OPTIONAL_AUTH
)
async def player_profile(player_id: DbId, request: Request, _doc: BearerDoc) -> dict[str, Any]:
    """A public profile: name, the R11 level (title and rank) with the progress to the
    next, hands, wins, win rate and mean points per profile, the skill rating per profile
    (``{"rating", "uncertainty"}``, server/rating.py), the recent hands with their log and
    replay links and the recent escapes (``escapes``: each hand left mid-way and what it
    cost, so the balance is explained, docs/economy.md). The balance (``silver``, and each
    entry's ``balance_after``) only for the player themselves (bearer token)."""
    store: Store = request.app.state.store
    token = _bearer(request)
    viewer = await store.player_for_token(token) if token else None
    own = viewer is not None and viewer.id == player_id
    async with store.sessions() as s:
        p = await s.get(Player, player_id)
        if p is None:
            raise ApiError(404, f"no player {player_id}", "no_player")
        acc = await economy.account_of(s, player_id)
        per = (
            await s.execute(
                _counted(
                    select(
                        HandResultRow.profile,
                        func.count(),
                        func.sum(case((HandResultRow.won, 1), else_=0)),
                        func.sum(HandResultRow.points),
                    ).where(HandResultRow.player_id == player_id),
                    own,
                )
                .group_by(HandResultRow.profile)
                .order_by(HandResultRow.profile)
            )
        ).all()
        ratings = dict(
            (
                await s.execute(
                    select(ProfileStatRow.profile, ProfileStatRow.rating).where(
                        ProfileStatRow.player_id == player_id
                    )
                )
            ).all()
        )
        skills = {
            prof: (float(mu), float(sg), int(n))
            for prof, mu, sg, n in await s.execute(
                select(SkillRow.profile, SkillRow.mu, SkillRow.sigma, SkillRow.hands).where(
                    SkillRow.player_id == player_id
                )
            )
        }
        recent_rows = (
            await s.execute(
                _listed(
                    select(HandResultRow, HandRow.table_id, HandRow.number, HandRow.ended_at)
                    .join(HandRow, HandRow.id == HandResultRow.hand_id)
                    .where(HandResultRow.player_id == player_id, HandRow.status == "over"),
                    own,
                )
                .order_by(HandResultRow.hand_id.desc())
                .limit(RECENT_HANDS)
            )
        ).all()
        escapes = await _recent_escapes(s, player_id, own)
    rating = acc[2] if acc is not None else 0

    def skill_of(prof: str) -> dict[str, Any]:
        mu, sg, _n = skills.get(prof, (skill.MU, skill.SIGMA, 0))
        return skill.skill_json(mu, sg)

    profiles = [
        {
            "profile": prof,
            "hands": int(n),
            "wins": int(w or 0),
            "win_rate": round(int(w or 0) / int(n), 4) if n else 0.0,
            "mean_points": round(int(pts or 0) / int(n), 2) if n else 0.0,
            "rating": int(ratings.get(prof, 0)),
            "level": _stats_level(int(ratings.get(prof, 0))),
            "skill": skill_of(prof),
        }
        for prof, n, w, pts in per
    ]
    hands = sum(x["hands"] for x in profiles)
    wins = sum(x["wins"] for x in profiles)
    main = max(profiles, key=lambda x: (x["hands"], x["profile"]), default=None)
    recent = [
        {
            "hand": r.hand_id,
            "table": table_id,
            "number": number,
            "profile": r.profile,
            "seat": r.seat,
            "points": r.points,
            "won": r.won,
            "silver": r.silver,
            "balance_after": r.balance_after if own else None,
            "ended_at": ended.isoformat() if ended is not None else None,
            "log_url": f"/api/hands/{r.hand_id}/log",
            "replay_url": f"/api/hands/{r.hand_id}/replay",
            "review_url": f"/api/hands/{r.hand_id}/review?seat={r.seat}",
            "watch_url": f"/?replay={r.hand_id}&seat={r.seat}",
        }
        for r, table_id, number, ended in recent_rows
    ]
    out: dict[str, Any] = {
        "player_id": p.id,
        "name": p.name,
        "registered": acc is not None,
        "rating": rating,
        "level": _stats_level(rating),
        "progress": _progress(rating),
        "hands": hands,
        "wins": wins,
        "win_rate": round(wins / hands, 4) if hands else 0.0,
        "mean_points": round(sum(x["mean_points"] * x["hands"] for x in profiles) / hands, 2)
        if hands
        else 0.0,
        "skill": main["skill"] if main is not None else None,
        "skill_profile": main["profile"] if main is not None else None,
        "profiles": profiles,
        "recent": recent,
        "escapes": [{**e, "balance_after": e["balance_after"] if own else None} for e in escapes],
    }
    if own:
        out["silver"] = acc[1] if acc is not None else None
    return out


async def _recent_escapes(s: Any, player_id: int, own: bool) -> list[dict[str, Any]]:
    """The player's last escapes (R11 逃跑): per void hand they left, the penalty and the
    fee charged (``silver`` = their sum, negative) and the balance after, newest first."""
    rows = (
        await s.execute(
            _listed(
                select(
                    LedgerRow.hand_id,
                    LedgerRow.kind,
                    LedgerRow.amount,
                    LedgerRow.balance_after,
                    LedgerRow.id,
                    HandRow.table_id,
                    HandRow.number,
                    HandRow.profile,
                    HandRow.ended_at,
                )
                .join(HandRow, HandRow.id == LedgerRow.hand_id)
                .where(
                    LedgerRow.player_id == player_id,
                    LedgerRow.kind.in_(("escape", "fee")),
                    HandRow.status == "void",
                ),
                own,
            )
            .order_by(LedgerRow.id.desc())
            .limit(2 * RECENT_HANDS)
        )
    ).all()
    out: dict[int, dict[str, Any]] = {}
    for hid, kind, amount, after, _lid, table_id, number, profile, ended in rows:
        e = out.setdefault(
            int(hid),
            {
                "hand": int(hid),
                "table": table_id,
                "number": number,
                "profile": profile,
                "penalty": 0,
                "fee": 0,
                "silver": 0,
                "balance_after": int(after),  # the hand's last row comes first
                "ended_at": ended.isoformat() if ended is not None else None,
            },
        )
        if kind == "escape":
            e["penalty"] = -int(amount)
        else:
            e["fee"] = -int(amount)
        e["silver"] += int(amount)
    return sorted(out.values(), key=lambda e: -e["hand"])[:RECENT_HANDS]


@router.get(
    "/api/players/{player_id}/hands",
    responses=errors(404, 422, 503),
    openapi_extra=OPTIONAL_AUTH,
)
async def player_hands(
    player_id: DbId,
    request: Request,
    _doc: BearerDoc,
    limit: int = Query(20, ge=1, le=100),
    offset: int = Query(0, ge=0, le=1_000_000),
) -> JSONResponse:
    """The player's finished hands, newest first, ``limit``/``offset`` paginated; each with
    its log URL (logs are public once a hand is over, R12). ``balance_after`` is shown only
    to the player themselves (bearer token); everyone sees the silver won or lost."""
    store: Store = request.app.state.store
    token = _bearer(request)
    viewer = await store.player_for_token(token) if token else None
    own = viewer is not None and viewer.id == player_id
    async with store.sessions() as s:
        if await s.get(Player, player_id) is None:
            raise ApiError(404, f"no player {player_id}", "no_player")
        rows = (
            await s.execute(
                _listed(
                    select(HandResultRow, HandRow.table_id, HandRow.number, HandRow.ended_at)
                    .join(HandRow, HandRow.id == HandResultRow.hand_id)
                    .where(HandResultRow.player_id == player_id, HandRow.status == "over"),
                    own,
                )
                .order_by(HandResultRow.hand_id.desc())
                .limit(limit + 1)
                .offset(offset)
            )
        ).all()
    more = len(rows) > limit
    hands = [
        {
            "hand": r.hand_id,
            "table": table_id,
            "number": number,
            "profile": r.profile,
            "seat": r.seat,
            "points": r.points,
            "won": r.won,
            "silver": r.silver,
            "balance_after": r.balance_after if own else None,
            "ended_at": ended.isoformat() if ended is not None else None,
            "log_url": f"/api/hands/{r.hand_id}/log",
        }
        for r, table_id, number, ended in rows[:limit]
    ]
    nxt = f"/api/players/{player_id}/hands?limit={limit}&offset={offset + limit}" if more else None
    return JSONResponse({"player_id": player_id, "hands": hands, "next": nxt})


@router.get("/api/leaderboard", responses=errors(422, 503))
async def leaderboard(
    request: Request,
    # OpenAPI: the profile names (an enum; any other is 422 ``bad_profile`` below)
    profile: str | None = Query(None, max_length=40, json_schema_extra={"enum": list(BUILTIN)}),
    by: Literal["level", "skill"] = Query(
        "level", description="level, or skill (of one profile: then profile is required)"
    ),
    page: int = Query(1, ge=1, le=100_000),
    per_page: int = Query(100, ge=1, le=100),
) -> dict[str, Any]:
    """Registered players ranked ``by=level`` (the R11 rating points: overall, or in one
    profile with ``?profile=``) or ``by=skill`` (the skill rating of one profile:
    ``profile`` is then required), ``page`` by ``page`` of ``per_page`` (1–100, default
    100). Each entry: rank, player, R11 rating and level, skill ``{"rating",
    "uncertainty"}`` (of the profile; null overall) and hands."""
    store: Store = request.app.state.store
    if profile is not None and profile not in BUILTIN:
        raise ApiError(
            422,
            f"profile: unknown {profile[:40]!r}; expected one of {', '.join(BUILTIN)}",
            "bad_profile",
        )
    if by == "skill" and profile is None:
        raise ApiError(
            422, "profile: required with by=skill (skill is rated per profile)", "bad_profile"
        )
    offset = (page - 1) * per_page
    async with store.sessions() as s:
        if profile is None:
            base = select(Player.id, Player.name, Account.rating).join(
                Account, Account.player_id == Player.id
            )
            total = (await s.execute(select(func.count()).select_from(Account))).scalar_one()
            q = base.order_by(Account.rating.desc(), Player.id)
        elif by == "level":
            base = (
                select(Player.id, Player.name, ProfileStatRow.rating)
                .join(ProfileStatRow, ProfileStatRow.player_id == Player.id)
                .join(Account, Account.player_id == Player.id)
                .where(ProfileStatRow.profile == profile)
            )
            total = (
                await s.execute(select(func.count()).select_from(base.subquery()))
            ).scalar_one()
            q = base.order_by(ProfileStatRow.rating.desc(), Player.id)
        else:
            base = (
                select(Player.id, Player.name, ProfileStatRow.rating)
                .join(SkillRow, SkillRow.player_id == Player.id)
                .join(Account, Account.player_id == Player.id)
                .outerjoin(
                    ProfileStatRow,
                    (ProfileStatRow.player_id == Player.id) & (ProfileStatRow.profile == profile),
                )
                .where(SkillRow.profile == profile)
            )
            total = (
                await s.execute(select(func.count()).select_from(base.subquery()))
            ).scalar_one()
            q = base.order_by(
                SkillRow.rating.desc(), (SkillRow.mu - 3 * SkillRow.sigma).desc(), Player.id
            )
        rows = (await s.execute(q.limit(per_page).offset(offset))).all()
        ids = [int(r[0]) for r in rows]
        skills: dict[int, tuple[float, float, int]] = {}
        if profile is not None and ids:
            skills = {
                int(pid): (float(mu), float(sg), int(n))
                for pid, mu, sg, n in await s.execute(
                    select(SkillRow.player_id, SkillRow.mu, SkillRow.sigma, SkillRow.hands).where(
                        SkillRow.profile == profile, SkillRow.player_id.in_(ids)
                    )
                )
            }
        hands: dict[int, int] = {}
        if ids:
            hq = _counted(
                select(HandResultRow.player_id, func.count()).where(
                    HandResultRow.player_id.in_(ids)
                ),
                False,
            )
            if profile is not None:
                hq = hq.where(HandResultRow.profile == profile)
            hands = {
                int(pid): int(n) for pid, n in await s.execute(hq.group_by(HandResultRow.player_id))
            }

    def skill_of(pid: int) -> dict[str, Any] | None:
        if profile is None:
            return None
        mu, sg, _n = skills.get(pid, (skill.MU, skill.SIGMA, 0))
        return skill.skill_json(mu, sg)

    pages = max(1, -(-int(total) // per_page))
    return {
        "profile": profile,
        "by": by,
        "page": page,
        "per_page": per_page,
        "total": int(total),
        "pages": pages,
        "players": [
            {
                "rank": offset + i + 1,
                "player_id": int(pid),
                "name": name,
                "rating": int(r or 0),
                "level": _stats_level(int(r or 0)),
                "skill": skill_of(int(pid)),
                "hands": hands.get(int(pid), 0),
            }
            for i, (pid, name, r) in enumerate(rows)
        ],
    }


@router.get("/api/tables/{ref}/stakes", responses=errors(404, 422, 429, 503))
async def table_stakes(
    ref: Annotated[str, Path(min_length=1, max_length=40)], request: Request, _doc: BearerDoc
) -> dict[str, Any]:
    """A table's stakes (R11): ``{"table", "stakes": {"stake", "base", "fee", "cap",
    "min_balance"}}``; ``stakes`` is null for a table played for points only. Found as
    ``GET /api/tables/{ref}`` finds it (a private table by its code, by id only for its
    creator and seated players)."""
    from fujian_mahjong.server.table import TableError

    store: Store = request.app.state.store
    dispatcher = request.app.state.dispatcher
    addr = _address(request)
    token = _bearer(request)
    viewer = await store.player_for_token(token) if token else None
    vid = viewer.id if viewer is not None else None
    try:
        tid: int | None = dispatcher.find(ref, vid, addr).id
    except TableError as e:
        if e.code == "rate_limited":
            raise ApiError(429, e.message, e.code, {"Retry-After": "60"}) from None
        tid = id_of(ref)
        if tid is not None:
            row = await store.get_table(tid)
            if row is None or (row.private and row.creator_id != vid):
                tid = None
    if tid is None:
        raise ApiError(404, f"no table {ref[:20]!r}", "no_table")
    return {"table": tid, "stakes": await store.table_stakes(tid)}
