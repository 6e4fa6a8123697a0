"""The skill rating (docs/economy.md, "Skill rating"): a multiplayer rating beside R11's
levels, which stay exactly as R11 defines them.

- Model: openskill's Plackett-Luce, one team of one per seat. Each player has ``mu`` (the
  estimate) and ``sigma`` (its uncertainty), per profile; a new player starts at openskill's
  defaults (25, 25/3).
- A finished hand ranks its seats by the points they won (R10 payments): more points, better
  place; equal points share a place (``[30, -10, -10, -10]`` ranks ``[1, 2, 2, 2]``). A hand
  in which every seat has the same points (a draw where nobody paid) says nothing about
  skill and is not rated.
- Bots have fixed, known ratings per kind (:func:`bot_ratings`: ``fujian_mahjong.bots.
  BOT_RATINGS`` when the bots define it, else :data:`DEFAULT_BOT_RATINGS`) with a small
  sigma: they anchor the humans' scale and are never updated.
- Displayed: ``rating`` = ``round(40 × (mu − 3·sigma))`` floored at 0 (a conservative
  estimate: a new player shows 0 and climbs as the uncertainty shrinks), ``uncertainty`` =
  sigma (3 decimals).

:func:`rate_hand` runs inside the hand's settlement transaction (``economy.settle_hand``), so
a hand moves ratings exactly once, together with its silver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from openskill.models import PlackettLuce
from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from fujian_mahjong.server.store.economy_models import SkillRow

__all__ = [
    "DEFAULT_BOT_KIND",
    "DEFAULT_BOT_RATINGS",
    "DISPLAY_SCALE",
    "MU",
    "SIGMA",
    "bot_rating",
    "bot_ratings",
    "display",
    "placements",
    "rate",
    "rate_hand",
    "skill_json",
]

MU = 25.0
SIGMA = 25.0 / 3.0
DISPLAY_SCALE = 40  # displayed rating = 40 × (mu − 3 sigma), floored at 0

# the kind a server bot is when the hand does not say (the table's bots are heuristic)
DEFAULT_BOT_KIND = "heuristic"
# fixed (mu, sigma) per bot kind, used when fujian_mahjong.bots defines no BOT_RATINGS:
# the heuristic sits at a new player's mu; sigma 1 makes them firm anchors
DEFAULT_BOT_RATINGS: dict[str, tuple[float, float]] = {
    "random": (10.0, 1.0),
    "greedy": (20.0, 1.0),
    "heuristic": (25.0, 1.0),
    "heuristic-v1": (24.0, 1.0),
    "strong": (29.0, 1.0),
}

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


def bot_ratings() -> dict[str, tuple[float, float]]:
    """Bots' fixed ratings per kind: ``fujian_mahjong.bots.BOT_RATINGS`` (if the bots define
    it) over :data:`DEFAULT_BOT_RATINGS`."""
    from fujian_mahjong import bots

    out = dict(DEFAULT_BOT_RATINGS)
    given = getattr(bots, "BOT_RATINGS", None)
    if isinstance(given, Mapping):
        for kind, value in given.items():
            try:
                mu, sigma = (float(x) for x in value)
            except (TypeError, ValueError):
                continue
            if sigma > 0:
                out[str(kind)] = (mu, sigma)
    return out


def bot_rating(kind: str | None) -> tuple[float, float]:
    """The fixed rating of a bot of this kind (an unknown kind: the default bot's)."""
    table = bot_ratings()
    return table.get(kind or DEFAULT_BOT_KIND) or table[DEFAULT_BOT_KIND]


def display(mu: float, sigma: float) -> int:
    """The displayed rating: 40 × (mu − 3 sigma), rounded, never below 0."""
    return max(0, round(DISPLAY_SCALE * (mu - 3.0 * sigma)))


def skill_json(mu: float, sigma: float) -> dict[str, Any]:
    """``{"rating", "uncertainty"}`` as the API shows a skill rating."""
    return {"rating": display(mu, sigma), "uncertainty": round(sigma, 3)}


def placements(points: Sequence[int]) -> list[int]:
    """Each seat's place by points (1 = best); equal points share the better place."""
    return [1 + sum(1 for q in points if q > p) for p in points]


def rate(
    ratings: Sequence[tuple[float, float]], points: Sequence[int]
) -> list[tuple[float, float]]:
    """New (mu, sigma) per seat after one hand (Plackett-Luce by placement). All-equal
    points change nothing."""
    if len(set(points)) <= 1:
        return list(ratings)
    teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    out = _MODEL.rate(teams, ranks=[float(r) for r in placements(points)])
    return [(float(t[0].mu), float(t[0].sigma)) for t in out]


def _dialect(s: AsyncSession) -> str:
    return str(s.get_bind().dialect.name)


async def _ensure_rows(s: AsyncSession, profile: str, ids: Sequence[int]) -> None:
    values = [
        {
            "player_id": pid,
            "profile": profile,
            "mu": MU,
            "sigma": SIGMA,
            "rating": display(MU, SIGMA),
            "hands": 0,
        }
        for pid in ids
    ]
    if _dialect(s) == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        await (await s.connection()).execute(
            pg_insert(SkillRow).values(values).on_conflict_do_nothing()
        )
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        await (await s.connection()).execute(
            sqlite_insert(SkillRow).values(values).on_conflict_do_nothing()
        )


async def rate_hand(
    s: AsyncSession,
    profile: str,
    seat_players: Sequence[int | None],
    bot_kinds: Sequence[str | None] | None,
    points: Sequence[int],
    only: int | None = None,
) -> list[dict[str, Any] | None] | None:
    """Update the skill ratings of the humans of a finished hand, in the caller's
    transaction; bots keep their fixed ratings. Per seat: ``{"rating", "uncertainty",
    "change"}`` for a human (``change``: of the displayed rating), None for a bot; None when
    the hand has no human or is not rated (all points equal). ``only``: the one player whose
    rating changes (a leaver's void hand, economy.py); the others' are read, not changed.

    Locking: PostgreSQL locks the humans' rows (``FOR UPDATE``, in player-id order) after
    the accounts' locks that the settlement took; on SQLite the settlement already holds
    the database's write lock."""
    humans = sorted({p for p in seat_players if p is not None})
    if not humans or len(points) != len(seat_players):
        return None
    if len(set(points)) <= 1:
        return None
    # the rows that change are made and locked; with ``only``, the others are read as they
    # are (a player never rated is at openskill's start, and gets no row from another's leave)
    changed = humans if only is None else [only]
    await _ensure_rows(s, profile, changed)
    c = await s.connection()
    q = (
        select(SkillRow.player_id, SkillRow.mu, SkillRow.sigma, SkillRow.hands)
        .where(SkillRow.profile == profile, SkillRow.player_id.in_(changed))
        .order_by(SkillRow.player_id)
    )
    if _dialect(s) != "sqlite":
        q = q.with_for_update()
    stored = {int(p): (float(mu), float(sg), int(n)) for p, mu, sg, n in await c.execute(q)}
    others = [p for p in humans if p not in stored]
    if others:
        read = select(SkillRow.player_id, SkillRow.mu, SkillRow.sigma, SkillRow.hands).where(
            SkillRow.profile == profile, SkillRow.player_id.in_(others)
        )
        stored.update(
            {int(p): (float(mu), float(sg), int(n)) for p, mu, sg, n in await c.execute(read)}
        )
    before: list[tuple[float, float]] = []
    for seat, pid in enumerate(seat_players):
        if pid is None:
            kind = bot_kinds[seat] if bot_kinds is not None and seat < len(bot_kinds) else None
            before.append(bot_rating(kind))
        else:
            mu, sg, _n = stored.get(pid, (MU, SIGMA, 0))
            before.append((mu, sg))
    after = rate(before, points)
    out: list[dict[str, Any] | None] = []
    rows: dict[int, dict[str, Any]] = {}
    for seat, pid in enumerate(seat_players):
        if pid is None or (only is not None and pid != only):
            out.append(None)  # a bot's rating never changes (nor, with ``only``, another's)
            continue
        mu, sg = after[seat]
        shown = display(mu, sg)
        out.append({**skill_json(mu, sg), "change": shown - display(*before[seat])})
        # the same person at two seats (never at a real table): the first seat's rating
        rows.setdefault(
            pid,
            {
                "k_pid": pid,
                "k_mu": mu,
                "k_sigma": sg,
                "k_rating": shown,
                "k_hands": stored[pid][2] + 1,
            },
        )
    t = cast(Table, SkillRow.__table__)
    # one statement for every human of the hand (each statement is a round trip)
    await (await s.connection()).execute(
        update(t)
        .where(t.c.player_id == bindparam("k_pid"), t.c.profile == profile)
        .values(
            mu=bindparam("k_mu"),
            sigma=bindparam("k_sigma"),
            rating=bindparam("k_rating"),
            hands=bindparam("k_hands"),
        ),
        list(rows.values()),
    )
    return out
