"""REST endpoints for the browser client's replay, review and end-of-hand screens
(docs/web.md). Included by the app when this module exists.

- ``GET /api/hands/{id}/replay``: every step of a finished hand — after each decision the
  omniscient state (all hands visible) and the events it produced, narrated in zh/en with
  the seats named as at the table (players' names, ``Bot 2``…; ``names``); a claim that
  lost to a higher one is a line of kind ``claim-lost`` (``lost: true``), not a claim;
- ``GET /api/hands/{id}/review?seat=S``: at each decision of seat S, the 高手's (``strong``,
  the strongest bot that fits the review's time budget, docs/bots.md) choice and reason
  beside what was played, with the estimated cost in points of each departure. It is
  computed in a worker process (never on the event loop: a review runs rollouts for
  seconds), one at a time, and kept per hand and seat (a finished hand never changes). A
  new review counts towards its address's limit (``REVIEWS_PER_MINUTE``, then 429
  ``rate_limited``). The worker's turns go round robin over the players asking (a player
  by its bearer token, else its address), each of whom may have ``REVIEWS_PER_PLAYER``
  new reviews waiting or running (an address ``REVIEWS_PER_ADDRESS`` whoever asks; then
  429 ``rate_limited``), so a few players can delay the others but never deny them; while
  ``REVIEW_QUEUE`` are waiting the answer is 503 ``busy``; a worker that died is replaced;
- ``GET /api/hands/{id}/summary``: the winning hand's decomposition (what each gold stands
  for), the specials by name, the score.

Only finished hands: the log of a hand in progress would reveal concealed tiles and the wall
(R12), so everything here is 404 until the hand is over; a private table's hands only for
its players and those who give its code (``?code=``, server/routes/hands.py). The stored log is verified
(``engine.replay``) and the frames are rebuilt with the engine's replay API
(``engine.fresh_game``, ``engine.apply_decisions``); nothing reaches into engine internals.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from fastapi import APIRouter, Query, Request
from sqlalchemy import select

from fujian_mahjong.engine import Game, apply_decisions, fresh_game, replay
from fujian_mahjong.engine.narrate import narrate
from fujian_mahjong.engine.spectator import PUBLIC_KEYS
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.i18n import tile_name
from fujian_mahjong.review import review
from fujian_mahjong.scoring import SPECIAL_NAMES
from fujian_mahjong.server.ratelimit import FairTurn, RateLimiter
from fujian_mahjong.server.routes.deps import BearerDoc
from fujian_mahjong.server.routes.errors import (
    OPTIONAL_AUTH,
    ApiError,
    DbId,
    ErrorOut,
    errors,
    too_many,
)
from fujian_mahjong.server.routes.hands import CodeQuery, may_see
from fujian_mahjong.server.workers import WorkerError, WorkerPool, WorkerTimeout

router = APIRouter(tags=["replay"])
_ERRORS = errors(404, 422, 429, 503)


def omniscient(g: Game) -> dict[str, Any]:
    """Every seat's hand and melds plus the public state (for finished hands only)."""
    views = [g.view(s) for s in range(g.n)]
    state = {k: views[0].get(k) for k in PUBLIC_KEYS}
    state["hands"] = [v["hand"] for v in views]
    state["melds"] = [views[s]["melds"][s] for s in range(g.n)]
    state["drawn"] = next((v["drawn"] for v in views if v.get("drawn")), None)
    return state


def bot_name(seat: int) -> str:
    """A bot's name as the table gives it (server/table.py, server/lobby.py: ``Bot 2``)."""
    return f"Bot {seat + 1}"


def _narrate(
    events: list[dict[str, Any]], start: int, stop: int, names: list[str | None] | None
) -> list[dict[str, Any]]:
    """The lines of ``events[start:stop]`` in zh and en (``engine.narrate``: the profile's
    title, the dice as numbers, payments per named seat, tiles as the table names them): each
    ``{"zh", "en", "seat", "kind"}``, and for a claim that lost ``lost: true`` and ``by``
    (the seat that took the tile)."""
    # tiles named as the table names them (一万 / 1 Character, the browser's tileName)
    kw: dict[str, Any] = {"names": names, "hand_over": True, "start": start, "stop": stop}
    zh = narrate(events, "zh", tile_name=tile_name, **kw)
    en = narrate(events, "en", tile_name=tile_name, **kw)
    out = []
    for a, b in zip(zh, en, strict=True):
        line: dict[str, Any] = {"zh": a["text"], "en": b["text"], "seat": a["seat"]}
        line["kind"] = a["kind"]
        if a.get("lost"):
            line["lost"] = True
            line["by"] = a["by"]
            line["claim"] = a["claim"]
        out.append(line)
    return out


def build_replay(
    events: list[dict[str, Any]], names: list[str | None] | None = None
) -> dict[str, Any]:
    """Frames of a finished hand: frame 0 is the table after the deal and the gold; frame i
    is the state after the i-th decision (``actor``, ``action``) with the events it caused,
    in words (``text``; seats named by ``names``)."""
    g = fresh_game(events)
    frames: list[dict[str, Any]] = [
        {
            "actor": None,
            "action": None,
            "text": _narrate(events, 0, len(g.events), names),
            "state": omniscient(g),
        }
    ]

    def frame(game: Game, i: int) -> None:
        e = events[i]  # the decision just applied; game.events[i:] is it and what it caused
        frames.append(
            {
                "actor": int(e["seat"]),
                "action": e["action"],
                # the whole log gives the context: a window's answers before its outcome
                "text": _narrate(events, i, len(game.events), names),
                "state": omniscient(game),
            }
        )

    apply_decisions(g, events, on_decision=frame)
    out: dict[str, Any] = {
        "profile": events[0]["profile"],
        "players": int(events[0]["players"]),
        "frames": frames,
        **summarize(g),
    }
    return out


def summarize(g: Game) -> dict[str, Any]:
    """The end of a hand: result, score, the winning decomposition (R7: the reading the
    scorer chose) and the specials by name."""
    sc = g.score()
    dec = sc.decomposition if sc is not None else None
    v = g.view(0)
    return {
        "gold": v["gold"],
        "result": v.get("result"),
        "score": v.get("score"),
        "hands": v.get("hands"),
        "decomposition": dec.to_json() if dec is not None else None,
        "specials_named": [
            {"key": k, "zh": SPECIAL_NAMES[k][0], "en": SPECIAL_NAMES[k][1]}
            for k in (sc.specials if sc is not None else ())
            if k in SPECIAL_NAMES
        ],
    }


# the web review's bot and its time budget (rollouts for the cost of each departure stop
# after it; the rest of the review is the bot's choice only)
REVIEW_BOT = "strong"
REVIEW_DEADLINE_S = 6.0


def build_review(events: list[dict[str, Any]], seat: int, bot: str = REVIEW_BOT) -> dict[str, Any]:
    """At each decision of ``seat`` that offered a choice, the bot's choice and reason (from
    the seat's own view only, R12) beside what was played, with the cost of a departure —
    the library review (``fujian_mahjong.review``, as ``fjmj review``) plus, per decision,
    ``frame``: the replay frame the decision was taken in."""
    players = int(events[0]["players"])
    if not 0 <= seat < players:
        raise ValueError(f"seat must be 0-{players - 1}, got {seat}")
    rev = review(events, seat, bot=bot, deadline_s=REVIEW_DEADLINE_S)
    frame_of: dict[int, int] = {}
    acts = 0
    for line, e in enumerate(events, 1):
        if e.get("type") == "act":
            frame_of[line] = acts
            acts += 1
    decisions = [{**d, "frame": frame_of[int(d["line"])]} for d in rev["decisions"]]
    return {
        **rev,
        "decisions": decisions,
        "agree": sum(1 for d in decisions if d["agree"]),
        "total": len(decisions),
    }


async def _finished_events(
    request: Request, hand_id: int, code: str | None = None
) -> tuple[list[dict[str, Any]], Any, Game]:
    """A finished hand's verified log, its row and the replayed hand; 404 before the end
    (R12), and for a private table's hand unless the caller is one of its players or gives
    its code (server/routes/hands.py)."""
    store = request.app.state.store
    hand, events = await store.hand_log(hand_id)
    if (
        hand is None
        or hand.status != "over"
        or not events
        or not await may_see(request, store, hand, code)
    ):
        raise ApiError(404, f"hand {hand_id} is not finished (or does not exist)", "no_hand")
    try:
        g = replay(events)
    except MahjongError as err:
        raise ApiError(
            422, f"hand {hand_id}: the stored log does not replay: {err}", "bad_log"
        ) from None
    return events, hand, g


async def _names(request: Request, hand: Any) -> list[str | None]:
    """The seats' names as the table showed them: players' names, bots ``Bot 2``… (a
    player whose row is gone: None) from the hand's seat list."""
    from fujian_mahjong.server.store import Player

    ids = [p for p in (hand.seat_players or []) if p is not None]
    names: dict[int, str] = {}
    if ids:
        async with request.app.state.store.sessions() as s:
            rows = await s.execute(select(Player.id, Player.name).where(Player.id.in_(ids)))
            names = {int(i): str(n) for i, n in rows.all()}
    return [
        names.get(p) if p is not None else bot_name(s)
        for s, p in enumerate(hand.seat_players or [])
    ]


@router.get("/api/hands/{hand_id}/replay", responses=_ERRORS, openapi_extra=OPTIONAL_AUTH)
async def hand_replay(
    hand_id: DbId, request: Request, _doc: BearerDoc, code: CodeQuery = None
) -> dict[str, Any]:
    """Every step of a finished hand with all hands visible (404 before the end)."""
    events, hand, _g = await _finished_events(request, hand_id, code)
    names = await _names(request, hand)
    out = build_replay(events, names)
    out["id"] = hand_id
    out["names"] = names
    return out


# the review's own 503: the queue is full or the worker died (the other 503s of _ERRORS
# are the database's)
_REVIEW_ERRORS = {
    **_ERRORS,
    503: {
        "model": ErrorOut,
        "description": "Too many new reviews queued, or the review worker stopped "
        "(busy); or the database cannot be read right now; see Retry-After",
    },
}


@router.get("/api/hands/{hand_id}/review", responses=_REVIEW_ERRORS, openapi_extra=OPTIONAL_AUTH)
async def hand_review(
    hand_id: DbId,
    request: Request,
    _doc: BearerDoc,
    seat: int = Query(0, ge=0, le=3),
    code: CodeQuery = None,
) -> dict[str, Any]:
    """The 高手's (the ``strong`` bot's) choice and reason at each decision of ``seat``.

    A review already made (or being made) for this hand and seat is free; a new one counts
    towards the address's ``REVIEWS_PER_MINUTE`` (then 429 ``rate_limited``); a player (by
    its bearer token, else its address) may have ``REVIEWS_PER_PLAYER`` new ones waiting
    or running (then 429), served round robin with the other players'; while
    ``REVIEW_QUEUE`` new ones are waiting or running the answer is 503 ``busy``."""
    events, _hand, _g = await _finished_events(request, hand_id, code)
    players = int(events[0]["players"])
    if not 0 <= seat < players:
        raise ApiError(422, f"seat must be 0-{players - 1}, got {seat}", "bad_seat")
    reviews = _Reviews.of(request)
    key = (hand_id, seat)
    out = reviews.done.get(key)
    if out is None:
        job = reviews.running.get(key)
        if job is None:
            who = await _requester(request)
            job = reviews.start(key, events, seat, _address(request), who)
        # shielded: a client that goes away does not cancel the review for the others
        out = await asyncio.shield(job)
    else:
        reviews.done.move_to_end(key)
    return {**out, "id": hand_id}


# ---------------------------------------------------------------------- the review's worker

REVIEWS_KEPT = 256  # finished reviews kept per app (a finished hand never changes)
REVIEWS_PER_MINUTE = 6  # new reviews per client address per minute (then 429)
REVIEW_QUEUE = 64  # new reviews waiting or running per app (then 503 busy)
# a bounded share of the queue for each player (by token, else address) and each address
# (whoever asks through it): beyond it 429, so a few can delay the others but not deny them
REVIEWS_PER_PLAYER = 2
REVIEWS_PER_ADDRESS = 4
# A review's bot keeps a deadline of its own (REVIEW_DEADLINE_S); a worker that has not
# answered long after it (and before a reverse proxy's usual 60 s read timeout) is stuck (a
# bug): the pool stops and replaces it (server/workers.py)
REVIEW_TIMEOUT_S = 45.0


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def _requester(request: Request) -> str:
    """Who asks, for the review queue's shares: the player of a valid bearer token
    (``p<id>``), else the client address (``a<address>``)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        player = await request.app.state.store.player_for_token(token.strip())
        if player is not None:
            return f"p{player.id}"
    return f"a{_address(request)}"


class _Reviews:
    """One app's reviews: the finished ones (per hand and seat, most recently used kept),
    the ones being made (one task per hand and seat, shared by every request for it), the
    turn (one at a time: the worker has one core's worth of work to give; round robin over
    the players waiting, ``FairTurn``), each player's and address's share of the queue and
    the per-address limit. It lives on ``app.state`` (its store's hand ids are its keys)."""

    def __init__(self, request: Request) -> None:
        self.done: OrderedDict[tuple[int, int], dict[str, Any]] = OrderedDict()
        self.running: dict[tuple[int, int], asyncio.Task[dict[str, Any]]] = {}
        self.turn = FairTurn()
        # new reviews waiting or running per player (or address) and per address
        self.by_player: dict[str, int] = {}
        self.by_address: dict[str, int] = {}
        self.workers: WorkerPool = request.app.state.workers  # server/workers.py
        self.limiter = RateLimiter(
            REVIEWS_PER_MINUTE,
            60.0,
            clock=request.app.state.lobby.clock.now,  # the server's clock (fake in tests)
        )

    @classmethod
    def of(cls, request: Request) -> _Reviews:
        r: _Reviews | None = getattr(request.app.state, "reviews", None)
        if r is None:
            r = request.app.state.reviews = cls(request)
        return r

    def start(
        self,
        key: tuple[int, int],
        events: list[dict[str, Any]],
        seat: int,
        addr: str,
        who: str | None = None,
    ) -> asyncio.Task[dict[str, Any]]:
        """A new review, if this address may ask for one, the player (``who``: a player or
        an address) and the address are within their shares, and the queue has room."""
        who = who or f"a{addr}"
        wait = self.limiter.retry_after(addr)
        if wait:
            raise too_many("new reviews from this address", wait)
        if len(self.running) >= REVIEW_QUEUE:
            raise ApiError(
                503,
                "too many reviews are being prepared; try again shortly",
                "busy",
                {"Retry-After": "10"},
            )
        if self.by_player.get(who, 0) >= REVIEWS_PER_PLAYER:
            raise too_many("reviews of yours waiting; wait for them", 10)
        if self.by_address.get(addr, 0) >= REVIEWS_PER_ADDRESS:
            raise too_many("reviews waiting from this address; wait for them", 10)
        self.limiter.hit(addr)
        self.by_player[who] = self.by_player.get(who, 0) + 1
        self.by_address[addr] = self.by_address.get(addr, 0) + 1
        job = asyncio.create_task(self._make(key, events, seat, who, addr))
        job.add_done_callback(_retrieved)  # every request for it may have gone away
        self.running[key] = job
        return job

    async def _make(
        self, key: tuple[int, int], events: list[dict[str, Any]], seat: int, who: str, addr: str
    ) -> dict[str, Any]:
        try:
            async with self.turn.hold(who):
                out = await _in_worker(self.workers, events, seat)
            self.done[key] = out
            while len(self.done) > REVIEWS_KEPT:
                self.done.popitem(last=False)
            return out
        finally:
            del self.running[key]
            for counts, k in ((self.by_player, who), (self.by_address, addr)):
                counts[k] -= 1
                if not counts[k]:
                    del counts[k]


def _retrieved(job: asyncio.Task[dict[str, Any]]) -> None:
    if not job.cancelled():
        job.exception()


async def _in_worker(
    workers: WorkerPool, events: list[dict[str, Any]], seat: int
) -> dict[str, Any]:
    """``build_review`` in one of the server's worker processes (server/workers.py: a worker
    killed under it is replaced and the review tried once more there). A stuck worker, or a
    second death, answers 503 ``busy`` (the next request starts another)."""
    try:
        out: dict[str, Any] = await workers.run(
            build_review, events, seat, REVIEW_BOT, timeout=REVIEW_TIMEOUT_S
        )
    except WorkerTimeout:
        raise ApiError(
            503, "the review took too long; try again shortly", "busy", {"Retry-After": "5"}
        ) from None
    except WorkerError:
        raise ApiError(
            503, "the review worker stopped; try again shortly", "busy", {"Retry-After": "5"}
        ) from None
    return out


@router.get("/api/hands/{hand_id}/summary", responses=_ERRORS, openapi_extra=OPTIONAL_AUTH)
async def hand_summary(
    hand_id: DbId, request: Request, _doc: BearerDoc, code: CodeQuery = None
) -> dict[str, Any]:
    """The finished hand's result, score and winning decomposition."""
    _events, hand, g = await _finished_events(request, hand_id, code)
    out = summarize(g)
    out["id"] = hand_id
    out["names"] = await _names(request, hand)
    return out
