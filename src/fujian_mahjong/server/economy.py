"""The platform economy on the server (R11, docs/economy.md): accounts' silver, the append-only
ledger, each hand's settlement, the escape penalty, ratings and the 24 levels, and the audit.

Every function here takes an open ``AsyncSession`` inside a transaction and never commits:
the caller's transaction is the unit. The table server settles a finished hand inside the
SAME transaction that stores the hand's last events and marks it over, and a void hand
inside the transaction that voids it, so a crash leaves either both or neither.

Money rules (docs/economy.md):

- every change of a balance is one ``ledger`` row (kinds :data:`LEDGER_KINDS`) with the
  balance after it; ``accounts.silver`` equals the sum of the player's rows and a database
  CHECK keeps it ≥ 0;
- a hand is settled at most once: ``settlements.hand_id`` is the primary key (the hand id is
  the idempotency key), and :func:`settle_hand` returns ``None`` for a settled hand;
- balances are read under a lock: ``SELECT … FOR UPDATE`` on PostgreSQL (in player id order,
  so two tables never deadlock), and on SQLite a write before the read takes the database's
  single write lock, so two concurrent settlements for one player serialise and no update is
  lost;
- only accounts hold silver (R11; docs/economy.md, bots and guests): a guest's share of a
  payment is neither paid nor received (:func:`account_payments`); a bot's share is paid and
  received by the **house account** at a room table made with ``house_bots`` (its rows in
  ``house_ledger``, part of the audit's conservation law), and by nobody elsewhere; a table
  where at most one account plays (with bots not of the house, or guests) is **practice**
  (:func:`seat_modes`):
  no silver moves, no fee, no escape penalty; ratings move by the full points;
- the skill rating (server/rating.py) moves with the settlement, in the same transaction;
- 救济金 relief (:func:`grant_relief`) is the one other source of silver besides grants and
  admin changes: a ``relief`` row, at most ``per_day`` times a day, only below a threshold;
- a private match dissolved by vote (:func:`record_dissolution`) voids its hand in progress
  charging nobody (R11: no penalty, no fee), noted on the void settlement and the match.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

import orjson
from sqlalchemy import Select, Table, bindparam, case, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import BUILTIN, get_profile
from fujian_mahjong.scoring import Level, level_for, settle, settle_leaver
from fujian_mahjong.scoring.settlement import update_rating
from fujian_mahjong.server import rating as skill
from fujian_mahjong.server.store import holds_write_lock, mark_write_lock
from fujian_mahjong.server.store.economy_models import (
    LEDGER_KINDS,
    Account,
    HandResultRow,
    HouseLedgerRow,
    LedgerRow,
    ProfileStatRow,
    ReliefClaim,
    SettlementRow,
    TableStakes,
)
from fujian_mahjong.server.store.models import (
    HandRow,
    MatchRow,
    Player,
    SeatRow,
    TableRow,
    utcnow,
)

__all__ = [
    "DEFAULT_GRANT",
    "LEDGER_KINDS",
    "EconomyError",
    "Stakes",
    "account_payments",
    "admin_adjust",
    "audit",
    "can_sit",
    "create_account",
    "escape_penalty",
    "get_stakes",
    "grant_relief",
    "hand_end_fields",
    "hand_plays_on",
    "has_account",
    "house_balance",
    "is_practice",
    "level_json",
    "make_stakes",
    "min_balance_floor",
    "one_table",
    "record_dissolution",
    "seat_modes",
    "seated_at",
    "seated_elsewhere",
    "set_stakes",
    "settle_hand",
    "settle_void",
    "short_of_silver",
]

DEFAULT_GRANT = 10_000  # R11: a new account's starting grant
MIN_BALANCE_STAKES = 20  # docs/economy.md: the default minimum balance to sit is 20 × stake
MAX_SILVER = 10**15  # any single amount beyond this is a typo, not a grant
# the house account's balance as a payer in :func:`settle` (it always pays in full: a bot's
# capped loss × the stake is far below this); its real balance is the sum of its rows
HOUSE_FLOAT = 10**18


class EconomyError(ValueError):
    """A refused money operation: ``code`` and a one-line message; nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# ---------------------------------------------------------------------------- stakes


@dataclass(frozen=True, slots=True)
class Stakes:
    """R11: a table's stake (silver per point), base, fee, loss cap (points; 0 = the
    profile's own cap, if any) and the minimum balance to sit down."""

    stake: int = 1
    base: int = 1
    fee: int = 0
    cap: int = 0
    min_balance: int = 20


def make_stakes(
    stake: int = 1,
    base: int = 1,
    fee: int = 0,
    cap: int = 0,
    min_balance: int | None = None,
    *,
    profile: str | None = None,
    max_fee_ratio: float | None = None,
) -> Stakes:
    """Validated stakes; the minimum balance defaults to 20 × stake (docs/economy.md).

    With ``max_fee_ratio`` the fee may be at most that many times the stake (``fee_too_high``);
    with ``profile`` the minimum balance may not be below what one hand can cost at this
    table (:func:`min_balance_floor`: ``min_balance_too_low``), and its default is raised to
    that floor when 20 × stake is less."""
    for name, v, lo in (("stake", stake, 0), ("base", base, 1), ("fee", fee, 0), ("cap", cap, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= MAX_SILVER:
            raise EconomyError("bad_stakes", f"{name}: must be an integer {lo}-{MAX_SILVER}")
    if max_fee_ratio is not None and fee > max_fee_ratio * stake:
        raise EconomyError(
            "fee_too_high",
            f"fee: at most {max_fee_ratio:g} × the stake ({int(max_fee_ratio * stake)}), got {fee}",
        )
    floor = min_balance_floor(profile, Stakes(stake, base, fee, cap, 0)) if profile else 0
    if min_balance is None:
        mb = max(MIN_BALANCE_STAKES * stake, floor)
        if mb > MAX_SILVER:
            # the default minimum, not anything sent, is past the largest balance
            raise EconomyError(
                "bad_stakes",
                f"stake: the table's minimum balance would be {mb} (the larger of "
                f"{MIN_BALANCE_STAKES} × the stake and what one hand can cost), more than "
                f"any balance ({MAX_SILVER}); lower the stake or the cap",
            )
    else:
        mb = min_balance
    if isinstance(mb, bool) or not isinstance(mb, int) or not 0 <= mb <= MAX_SILVER:
        raise EconomyError("bad_stakes", f"min_balance: must be an integer 0-{MAX_SILVER}")
    if mb < floor:
        raise EconomyError(
            "min_balance_too_low",
            f"min_balance: at least {floor} (what one hand can cost at this table), got {mb}",
        )
    return Stakes(stake, base, fee, cap, mb)


def min_balance_floor(profile: str, stakes: Stakes) -> int:
    """The least minimum balance a table may ask (docs/economy.md): what one hand can cost a
    player there — the larger of the capped loss (``cap`` points, or the profile's own
    per-hand cap) and the escape penalty (8 × base, R11), times the stake, plus the fee.
    Without any cap a hand's loss has no bound; the floor is then the escape penalty and
    the fee."""
    cap = _cap(profile, stakes)
    return stakes.stake * max(cap, 8 * stakes.base) + stakes.fee


def escape_penalty(stakes: Stakes | dict[str, int] | None) -> int | None:
    """R11 逃跑: what leaving mid-hand costs at a table with these stakes, 8 × base × stake
    plus the fee (None: a points-only table)."""
    if stakes is None:
        return None
    d = asdict(stakes) if isinstance(stakes, Stakes) else stakes
    return 8 * int(d["base"]) * int(d["stake"]) + int(d["fee"])


async def set_stakes(s: AsyncSession, table_id: int, stakes: Stakes) -> None:
    await s.execute(insert(TableStakes).values(table_id=table_id, **asdict(stakes)))


# the rule a settlement's ``practice`` was decided by (its detail's ``practice_rule``; none:
# the first rule, by humans, which the audit still reads for the hands settled by it)
PRACTICE_RULE = "accounts"


def is_practice(house_bots: bool, accounts: int, others: int) -> bool:
    """练习 (docs/economy.md): a table where at most one account plays, with bots that do
    not play for the house or guests (``others``: those seated, at least one). Nothing can
    be won there — every share of every other seat is neither paid nor received — so
    nothing is at stake: no silver moves, no fee, no escape penalty (winning pays nothing,
    so leaving costs nothing). A table with nobody but its free seats and at most one
    account is not practice yet: the players it waits for may have accounts."""
    return not house_bots and accounts <= 1 and others >= 1


def seat_modes(
    seat_players: Sequence[int | None], house_bots: bool, accounts: Collection[int]
) -> tuple[list[bool], bool]:
    """For a hand's seats (a player id, or None for a bot) and the players among them that
    have an account: which seats play for the house account, and whether the hand is
    practice (:func:`is_practice`)."""
    bots = [p is None for p in seat_players]
    if house_bots:
        return bots, False
    n = sum(1 for p in seat_players if p is not None and p in accounts)
    return [False] * len(bots), is_practice(False, n, len(seat_players) - n)


def _first_rule_practice(seat_players: Sequence[int | None]) -> bool:
    """The first practice rule (one human with bots), for settlements made by it."""
    bots = sum(1 for p in seat_players if p is None)
    return bots >= 1 and len(seat_players) - bots <= 1


async def house_bots_of(s: AsyncSession, table_id: int) -> bool:
    """Whether this table's bots play for the house account (``table_stakes.house_bots``)."""
    row = (
        await s.execute(select(TableStakes.house_bots).where(TableStakes.table_id == table_id))
    ).first()
    return bool(row[0]) if row is not None else False


async def house_balance(s: AsyncSession) -> int:
    """The house account's balance: the sum of its rows (negative: it has paid out more
    than it won)."""
    return int(
        (await s.execute(select(func.coalesce(func.sum(HouseLedgerRow.amount), 0)))).scalar_one()
    )


async def get_stakes(s: AsyncSession, table_id: int) -> Stakes | None:
    """A table's stakes; None for a table played for points only (made before the economy existed)."""
    row = (
        await s.execute(
            select(
                TableStakes.stake,
                TableStakes.base,
                TableStakes.fee,
                TableStakes.cap,
                TableStakes.min_balance,
            ).where(TableStakes.table_id == table_id)
        )
    ).first()
    return None if row is None else Stakes(*(int(x) for x in row))


_ACCOUNTS = cast(Table, Account.__table__)
# SQLite's write lock taken by a write that changes nothing (_write_first)
_NO_OP_WRITE = update(_ACCOUNTS).where(_ACCOUNTS.c.player_id == -1).values(rating=0)
_SETTLED = select(SettlementRow.hand_id).where(SettlementRow.hand_id == bindparam("h"))
# settle_hand's one read: the hand, its table's stakes (none: a points-only table) and
# whether it is settled already
_SETTLE_READ = (
    select(
        HandRow.table_id,
        HandRow.profile,
        HandRow.players,
        HandRow.seat_players,
        HandRow.bot_kinds,
        TableStakes.stake,
        TableStakes.base,
        TableStakes.fee,
        TableStakes.cap,
        TableStakes.min_balance,
        TableStakes.house_bots,
        _SETTLED.scalar_subquery().label("settled"),
    )
    .select_from(HandRow)
    .outerjoin(TableStakes, TableStakes.table_id == HandRow.table_id)
    .where(HandRow.id == bindparam("h"))
)


# ---------------------------------------------------------------------------- levels


def level_json(lv: Level) -> dict[str, Any]:
    """R11: ``{"n", "title_zh", "rank_zh", "next"}`` (``next`` null at the top level)."""
    return {"n": lv.level, "title_zh": lv.title, "rank_zh": lv.rank, "next": lv.next_at}


# ---------------------------------------------------------------------------- ledger


def _dialect(s: AsyncSession) -> str:
    return str(s.get_bind().dialect.name)


async def _lock(s: AsyncSession, player_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Lock these accounts for the rest of the transaction and read (silver, rating).

    PostgreSQL: row locks (``FOR UPDATE``) taken in id order. SQLite: a no-op write first,
    so this transaction holds the single write lock before it reads (a read first would let
    another writer commit in between: a lost update or SQLITE_BUSY_SNAPSHOT)."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}
    q = select(Account.player_id, Account.silver, Account.rating).where(Account.player_id.in_(ids))
    c = await s.connection()
    if _dialect(s) == "sqlite":
        await _write_first(s)
    else:
        q = q.order_by(Account.player_id).with_for_update()
    rows = (await c.execute(q)).all()
    await _pause_point(s)
    return {int(p): (int(b), int(r)) for p, b, r in rows}


async def _write_first(s: AsyncSession) -> None:
    """SQLite: take the database's write lock before any read of this transaction (a no-op
    write), so checks such as "already settled?" run under the lock. PostgreSQL locks rows
    instead (:func:`_lock`). A session whose transaction has written already says
    so (``store.mark_write_lock``: the store's hand end does), and needs no second write."""
    if _dialect(s) != "sqlite" or holds_write_lock(s):
        return
    await (await s.connection()).execute(_NO_OP_WRITE)
    mark_write_lock(s)


def _ledger_row(
    player_id: int,
    kind: str,
    amount: int,
    balance_after: int,
    hand_id: int | None = None,
    reason: str | None = None,
    now: Any = None,
) -> dict[str, Any]:
    assert kind in LEDGER_KINDS
    return {
        "player_id": player_id,
        "hand_id": hand_id,
        "kind": kind,
        "amount": amount,
        "balance_after": balance_after,
        "reason": reason,
        "created_at": now if now is not None else utcnow(),
    }


async def _post(
    s: AsyncSession,
    player_id: int,
    kind: str,
    amount: int,
    balance_after: int,
    hand_id: int | None = None,
    reason: str | None = None,
) -> None:
    await s.execute(
        insert(LedgerRow).values(
            **_ledger_row(player_id, kind, amount, balance_after, hand_id, reason)
        )
    )


async def create_account(
    s: AsyncSession, player_id: int, name_key: str, grant: int = DEFAULT_GRANT
) -> None:
    """Open the account of an existing player row with its starting grant (a ledger row)."""
    if isinstance(grant, bool) or not isinstance(grant, int) or not 0 <= grant <= MAX_SILVER:
        raise EconomyError("bad_amount", f"starting grant must be 0-{MAX_SILVER}")
    await s.execute(
        insert(Account).values(
            player_id=player_id, name_key=name_key, silver=grant, rating=0, created_at=utcnow()
        )
    )
    await _post(s, player_id, "starting_grant", grant, grant, reason="new account")


async def admin_adjust(s: AsyncSession, player_id: int, amount: int, reason: str) -> int:
    """Grant (amount > 0) or remove (< 0) silver by an operator: an ``admin`` row with a
    reason. A removal larger than the balance is refused. Returns the new balance."""
    await _write_first(s)
    reason = " ".join(str(reason).split())
    if not reason:
        raise EconomyError("no_reason", "an admin change needs a reason")
    if len(reason) > 200:
        raise EconomyError("bad_reason", "reason: at most 200 characters")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise EconomyError("bad_amount", "amount must be a non-zero integer")
    if abs(amount) > MAX_SILVER:
        raise EconomyError("bad_amount", f"amount must be at most {MAX_SILVER} in size")
    acc = await _lock(s, [player_id])
    if player_id not in acc:
        raise EconomyError("no_account", f"player {player_id} has no account")
    bal = acc[player_id][0]
    if bal + amount < 0:
        raise EconomyError(
            "insufficient", f"player {player_id} has {bal} silver; cannot remove {-amount}"
        )
    await s.execute(
        update(Account).where(Account.player_id == player_id).values(silver=bal + amount)
    )
    await _post(s, player_id, "admin", amount, bal + amount, reason=reason)
    return bal + amount


# ---------------------------------------------------------------------------- relief


async def relief_used(s: AsyncSession, player_id: int, day: int) -> int:
    """How many times this player claimed relief on ``day``."""
    row = (
        await s.execute(
            select(ReliefClaim.times).where(
                ReliefClaim.player_id == player_id, ReliefClaim.day == day
            )
        )
    ).first()
    return 0 if row is None else int(row[0])


async def grant_relief(
    s: AsyncSession, player_id: int, day: int, threshold: int, amount: int, per_day: int
) -> tuple[int, int]:
    """救济金: grant ``amount`` silver to an account whose balance is below ``threshold``,
    at most ``per_day`` times on ``day`` (a ``relief`` ledger row and the day's count, under
    the account's lock, so concurrent claims cannot exceed the limit). Returns (granted,
    new balance). Refusals: ``no_account`` (guests and bots), ``not_eligible`` (relief is
    off, or the balance is not below the threshold), ``limit_reached``."""
    await _write_first(s)
    acc = await _lock(s, [player_id])
    if player_id not in acc:
        raise EconomyError("no_account", "relief is for registered players only")
    if amount <= 0 or per_day <= 0:
        raise EconomyError("not_eligible", "this server offers no relief")
    bal = acc[player_id][0]
    if bal >= threshold:
        raise EconomyError(
            "not_eligible", f"relief is for balances below {threshold} silver; you have {bal}"
        )
    used = await relief_used(s, player_id, day)
    if used >= per_day:
        raise EconomyError(
            "limit_reached", f"relief was already claimed {used} time(s) today (at most {per_day})"
        )
    if used:
        await s.execute(
            update(ReliefClaim)
            .where(ReliefClaim.player_id == player_id, ReliefClaim.day == day)
            .values(times=used + 1)
        )
    else:
        await s.execute(insert(ReliefClaim).values(player_id=player_id, day=day, times=1))
    new = bal + amount
    await s.execute(update(Account).where(Account.player_id == player_id).values(silver=new))
    await _post(s, player_id, "relief", amount, new, reason=f"relief, day {day}")
    return amount, new


# ---------------------------------------------------------------------------- settlement


def account_payments(payments: Sequence[int], accounts: Sequence[bool], cap: int) -> list[int]:
    """The point payments restricted to account seats (R11, docs/economy.md).

    A loser's loss is first capped (R11 封顶, in points; 0 = no cap), then only the share of
    it that goes to account winners is kept (a bot's or guest's share is neither paid nor
    received); winners keep their points, which only set how the pot is shared. Seats
    without an account get 0. The result goes to :func:`settle` with no further cap."""
    gains = sum(p for p in payments if p > 0)
    gains_acc = sum(p for p, a in zip(payments, accounts, strict=True) if p > 0 and a)
    out = []
    for p, a in zip(payments, accounts, strict=True):
        if not a:
            out.append(0)
        elif p < 0:
            loss = min(-p, cap) if cap else -p
            out.append(-(loss * gains_acc // gains) if gains else 0)
        else:
            out.append(p)
    return out


def settle_amounts(
    payments: Sequence[int],
    accounts: Sequence[bool],
    house: Sequence[bool],
    before: Sequence[int],
    stakes: Stakes,
    cap: int,
    practice: bool = False,
) -> tuple[list[int], list[int], list[int], list[int]]:
    """R11 settlement of one hand at a table with stakes (pure; the audit recomputes it):
    (adjusted point payments, transfers, fees, balances after).

    Account seats pay and receive; ``house`` seats (bots playing for the house account)
    pay and receive too, always in full and without a fee; other seats (guests, bots
    without the house) hold nothing. A practice hand moves nothing and charges no fee."""
    n = len(payments)
    if practice:
        return [0] * n, [0] * n, [0] * n, list(before)
    if not any(house):
        adjusted = account_payments(payments, accounts, cap)
        st = settle(adjusted, before, stakes.stake, 0, stakes.fee)
        return adjusted, list(st.transfers), list(st.fees), list(st.balances)
    payers = [a or h for a, h in zip(accounts, house, strict=True)]
    adjusted = account_payments(payments, payers, cap)
    bal = [HOUSE_FLOAT if h else b for h, b in zip(house, before, strict=True)]
    st = settle(adjusted, bal, stakes.stake, 0, 0)
    transfers = list(st.transfers)
    fees = [
        min(stakes.fee, b + t) if a else 0
        for a, b, t in zip(accounts, before, transfers, strict=True)
    ]
    after = [
        (b + t - f) if a else 0
        for a, b, t, f in zip(accounts, before, transfers, fees, strict=True)
    ]
    return adjusted, transfers, fees, after


def _cap(profile: str, stakes: Stakes) -> int:
    # R11: the table's cap; 0 = the profile's own per-hand cap (if any), as in engine.Match
    if stakes.cap:
        return stakes.cap
    return get_profile(profile).hand_cap if profile in BUILTIN else 0


async def _pause_point(s: AsyncSession) -> None:
    """Where a test may widen the race window of a settlement (the locks are held while it
    waits, so another transaction must wait for them): the session's injected ``faults``
    object (``Store(faults=...)``, tests/test_economy_concurrency.py) may define ``pause``."""
    pause = getattr(s.info.get("faults"), "pause", None)
    if pause is not None:
        await pause()


def _crash_point(s: AsyncSession, name: str) -> None:
    """Where a crash test may kill the server (``point(name)`` of the session's injected
    ``faults`` object; tests/crash_server.py)."""
    point = getattr(s.info.get("faults"), "point", None)
    if point is not None:
        point(name)


# a hand's settlement's statements, built once (their values as parameters: building
# ``.values(...)`` at every hand cost more than the statement; docs/architecture.md)
_BALANCES_UPDATE = (
    update(_ACCOUNTS)
    .where(_ACCOUNTS.c.player_id == bindparam("b_pid"))
    .values(silver=bindparam("b_silver"), rating=bindparam("b_rating"))
)
_SETTLEMENT_INSERT = insert(cast(Table, SettlementRow.__table__))


async def settle_hand(
    s: AsyncSession,
    hand_id: int,
    score: dict[str, Any] | None,
    result: dict[str, Any] | None,
) -> dict[str, Any] | None:
    """R11: settle a finished hand in the caller's transaction (once: None if it already
    was). Silver moves between accounts at the table's stake with its cap (zero-sum; a short
    payer pays what they have and the winners get what was paid), then the fee is burned
    down to 0; ratings move by the points (floored at 0); per-profile statistics and the
    per-seat hand results are written for history and leaderboards."""
    await _write_first(s)
    # one read: the hand, its table's stakes, and whether it is settled already (the
    # settlements table is keyed by hand: a hand settles exactly once)
    c = await s.connection()
    hand = (await c.execute(_SETTLE_READ, {"h": hand_id})).first()
    if hand is None:  # (a settlement row cannot outlive its hand: a foreign key)
        raise EconomyError("no_hand", f"no hand {hand_id}")
    if hand.settled is not None:
        return None
    table_id, profile, n, bot_kinds = hand.table_id, hand.profile, hand.players, hand.bot_kinds
    seat_players = list(hand.seat_players)
    payments = [int(x) for x in (score or {}).get("payments") or [0] * n]
    if len(payments) != n or len(seat_players) != n:
        raise EconomyError("bad_hand", f"hand {hand_id}: payments/seats do not match {n} seats")
    winner = (result or {}).get("winner")
    stakes = (
        None
        if hand.stake is None
        else Stakes(
            *(int(x) for x in (hand.stake, hand.base, hand.fee, hand.cap, hand.min_balance))
        )
    )
    locked = await _lock(s, [p for p in seat_players if p is not None])
    house, practice = seat_modes(seat_players, bool(hand.house_bots), locked)
    acct = [p is not None and p in locked for p in seat_players]
    before = [locked[p][0] if a else 0 for p, a in zip(seat_players, acct, strict=True)]
    ratings = [locked[p][1] if a else 0 for p, a in zip(seat_players, acct, strict=True)]
    if stakes is None:
        adjusted = [0] * n
        transfers, fees, after = [0] * n, [0] * n, list(before)
    else:
        adjusted, transfers, fees, after = settle_amounts(
            payments, acct, house, before, stakes, _cap(profile, stakes), practice
        )
    new_ratings = [
        update_rating(r, p) if a else 0 for r, p, a in zip(ratings, payments, acct, strict=True)
    ]
    level_ups = []
    # every row of the hand's settlement, written by one statement per table (each
    # statement is a round trip; on SQLite one more wait of every other table's writes)
    now = utcnow()
    ledger: list[dict[str, Any]] = []
    balances: list[dict[str, Any]] = []
    stats: list[tuple[int, int, bool]] = []
    results: list[dict[str, Any]] = []
    for seat in range(n):
        pid = seat_players[seat]
        if pid is None:
            continue
        if acct[seat]:
            mid = before[seat] + transfers[seat]
            ledger.append(_ledger_row(pid, "hand", transfers[seat], mid, hand_id, now=now))
            if fees[seat]:
                ledger.append(_ledger_row(pid, "fee", -fees[seat], after[seat], hand_id, now=now))
            balances.append({"b_pid": pid, "b_silver": after[seat], "b_rating": new_ratings[seat]})
            old_lv, new_lv = level_for(ratings[seat]), level_for(new_ratings[seat])
            if new_lv.level > old_lv.level:
                level_ups.append({"seat": seat, "player_id": pid, "level": level_json(new_lv)})
            stats.append((pid, payments[seat], winner == seat))
        results.append(
            {
                "hand_id": hand_id,
                "seat": seat,
                "player_id": pid,
                "profile": profile,
                "points": payments[seat],
                "won": winner == seat,
                "silver": transfers[seat] - fees[seat] if acct[seat] and stakes else None,
                "balance_after": after[seat] if acct[seat] else None,
                "created_at": now,
            }
        )
    if ledger:
        await c.execute(insert(LedgerRow), ledger)
    house_rows = [
        {"hand_id": hand_id, "seat": seat, "amount": transfers[seat], "created_at": now}
        for seat in range(n)
        if house[seat] and stakes is not None and transfers[seat]
    ]
    if house_rows:
        await c.execute(insert(HouseLedgerRow), house_rows)
    if balances:
        await c.execute(_BALANCES_UPDATE, balances)
    await _bump_stats(s, profile, stats)
    if results:
        await c.execute(insert(HandResultRow), results)
    # the skill rating by placement (bots fixed), after the accounts' locks (rating.py)
    skills = await skill.rate_hand(s, profile, seat_players, bot_kinds, payments)
    detail = {
        "table_id": table_id,
        "profile": profile,
        "stakes": None if stakes is None else asdict(stakes),
        "seat_players": seat_players,
        "accounts": acct,
        "house": house,
        "practice": practice,
        "practice_rule": PRACTICE_RULE,
        "payments": payments,
        "adjusted": adjusted,
        "balances_before": before,
        "transfers": transfers,
        "fees": fees,
        "balances_after": after,
        "ratings_before": ratings,
        "ratings_after": new_ratings,
        "level_ups": level_ups,
        "skill": skills,
    }
    await c.execute(
        _SETTLEMENT_INSERT,
        {"hand_id": hand_id, "kind": "hand", "detail": detail, "created_at": utcnow()},
    )
    _crash_point(s, "settle_before_commit")
    return detail


async def _bump_stats(
    s: AsyncSession, profile: str, hands: Sequence[tuple[int, int, bool]]
) -> None:
    """Per-profile statistics of these (player, points, won): one read and at most one
    insert and one update for all of them. The caller holds the accounts' locks, so the
    read-modify-write cannot race."""
    if not hands:
        return
    pids = sorted({pid for pid, _p, _w in hands})
    c = await s.connection()  # Core statements (the settlement's, settle_hand)
    have = {
        int(pid): (int(r), int(h), int(w))
        for pid, r, h, w in await c.execute(
            select(
                ProfileStatRow.player_id,
                ProfileStatRow.rating,
                ProfileStatRow.hands,
                ProfileStatRow.wins,
            ).where(ProfileStatRow.profile == profile, ProfileStatRow.player_id.in_(pids))
        )
    }
    new: dict[int, tuple[int, int, int]] = {}
    for pid, points, won in hands:  # the same player twice (never at a real table) adds up
        r, h, w = new.get(pid) or have.get(pid) or (0, 0, 0)
        new[pid] = (update_rating(r, points), h + 1, w + int(won))
    fresh = [
        {"player_id": pid, "profile": profile, "rating": r, "hands": h, "wins": w}
        for pid, (r, h, w) in new.items()
        if pid not in have
    ]
    old = [
        {"s_pid": pid, "s_rating": r, "s_hands": h, "s_wins": w}
        for pid, (r, h, w) in new.items()
        if pid in have
    ]
    if fresh:
        await c.execute(insert(ProfileStatRow), fresh)
    if old:
        t = cast(Table, ProfileStatRow.__table__)
        await c.execute(
            update(t)
            .where(t.c.player_id == bindparam("s_pid"), t.c.profile == profile)
            .values(
                rating=bindparam("s_rating"), hands=bindparam("s_hands"), wins=bindparam("s_wins")
            ),
            old,
        )


async def _begin_settlement(s: AsyncSession, hand_id: int) -> bool:
    """Take the writer lock first (SQLite), then say whether ``hand_id`` is settled already
    (the settlements table is keyed by hand: a hand settles exactly once)."""
    await _write_first(s)
    found = await s.execute(select(SettlementRow.hand_id).where(SettlementRow.hand_id == hand_id))
    return found.first() is not None


# R11 逃跑: the leaver loses 8 × the table's base (× its stake in silver)
ESCAPE_BASES = 8


async def settle_void(s: AsyncSession, hand_id: int, leaver: int | None) -> dict[str, Any] | None:
    """R11 逃跑: a void hand charges the leaver 8 × base × stake plus the fee (down to 0) and
    nobody else anything (``escape`` and ``fee`` rows). Once per hand (None if settled)."""
    if await _begin_settlement(s, hand_id):
        return None
    hand = (
        await s.execute(
            select(
                HandRow.table_id,
                HandRow.players,
                HandRow.seat_players,
                HandRow.profile,
                HandRow.bot_kinds,
            ).where(HandRow.id == hand_id)
        )
    ).first()
    if hand is None:
        raise EconomyError("no_hand", f"no hand {hand_id}")
    table_id, n, seat_players = hand[0], hand[1], hand[2]
    stakes = await get_stakes(s, table_id)
    accounts = await _accounts_among(s, seat_players)
    _house, practice = seat_modes(list(seat_players), await house_bots_of(s, table_id), accounts)
    pid = seat_players[leaver] if leaver is not None and 0 <= leaver < n else None
    locked = await _lock(s, [pid] if pid is not None else [])
    detail: dict[str, Any] = {
        "table_id": table_id,
        "stakes": None if stakes is None else asdict(stakes),
        "seat_players": list(seat_players),
        "accounts": [p is not None and p in accounts for p in seat_players],
        "practice_rule": PRACTICE_RULE,
        "leaver": leaver,
        "player_id": pid,
        "balance_before": None,
        "penalty": 0,
        "fee": 0,
        "balance_after": None,
        "practice": practice,
    }
    # 练习: winning pays nothing there, so leaving costs nothing (docs/economy.md)
    if (
        stakes is not None
        and not practice
        and pid is not None
        and pid in locked
        and leaver is not None
    ):
        bal = locked[pid][0]
        balances = [0] * n
        balances[leaver] = bal
        st = settle_leaver(leaver, balances, stakes.base, stakes.stake, stakes.fee)
        penalty, fee, after = -st.transfers[leaver], st.fees[leaver], st.balances[leaver]
        await _post(s, pid, "escape", -penalty, bal - penalty, hand_id)
        if fee:
            await _post(s, pid, "fee", -fee, after, hand_id)
        await s.execute(update(Account).where(Account.player_id == pid).values(silver=after))
        detail.update(balance_before=bal, penalty=penalty, fee=fee, balance_after=after)
    if pid is not None and leaver is not None:
        detail.update(await _leaver_rated(s, hand, leaver, pid, locked, stakes))
    await s.execute(
        insert(SettlementRow).values(
            hand_id=hand_id, kind="void", detail=detail, created_at=utcnow()
        )
    )
    return detail


async def _leaver_rated(
    s: AsyncSession,
    hand: Any,
    leaver: int,
    pid: int,
    locked: dict[int, tuple[int, int]],
    stakes: Stakes | None,
) -> dict[str, Any]:
    """A leaver's void hand counts against the leaver, at every table, practice included
    (docs/economy.md, "Leaving mid-hand"): otherwise a player could leave each hand that
    looked bad and keep only the good ones in its levels and skill rating. R11: the leaver
    loses 8 × base (× the stake, in silver): its 积分 go down by those points (floored at
    0); and the skill rating places it last, the others level (only the leaver's changes:
    nobody gains by another's leave)."""
    _table, n, seat_players, profile, bot_kinds = hand
    out: dict[str, Any] = {}
    if stakes is not None and pid in locked:
        lost = ESCAPE_BASES * stakes.base
        before = locked[pid][1]
        after = update_rating(before, -lost)
        if after != before:
            await s.execute(update(Account).where(Account.player_id == pid).values(rating=after))
        out.update(rating_before=before, rating_after=after)
        # the profile's own 积分 (its leaderboard) likewise; its hand count does not move
        await s.execute(
            update(ProfileStatRow)
            .where(ProfileStatRow.player_id == pid, ProfileStatRow.profile == profile)
            .values(
                rating=case((ProfileStatRow.rating > lost, ProfileStatRow.rating - lost), else_=0)
            )
        )
    points = [-1 if seat == leaver else 0 for seat in range(n)]
    skills = await skill.rate_hand(s, str(profile), list(seat_players), bot_kinds, points, only=pid)
    out["skill"] = skills
    return out


async def record_dissolution(
    s: AsyncSession,
    *,
    table_id: int,
    match_id: int | None,
    hand_id: int | None,
    votes: dict[str, bool | None],
    totals: list[int],
    hands_played: int,
) -> dict[str, Any] | None:
    """解散房间 (docs/economy.md): a private match dissolved by the vote of every seated
    human, in one transaction — the hand in progress (``hand_id``, if any) is void with a
    ``void`` settlement that charges nobody (R11: no points, no escape penalty, and no fee,
    as for any void hand but the leaver's) and notes ``"dissolved": true`` with the votes;
    the match row gets the status ``dissolved`` with its totals; the table is closed. Once:
    run again (after a store fault) it changes nothing already recorded. Returns the void
    settlement's detail (None without a hand or when it was recorded already)."""
    detail: dict[str, Any] | None = None
    if hand_id is not None and not await _begin_settlement(s, hand_id):
        hand = (
            await s.execute(
                select(HandRow.table_id, HandRow.seat_players).where(HandRow.id == hand_id)
            )
        ).first()
        if hand is None:
            raise EconomyError("no_hand", f"no hand {hand_id}")
        stakes = await get_stakes(s, int(hand[0]))
        await s.execute(
            update(HandRow).where(HandRow.id == hand_id).values(status="void", ended_at=utcnow())
        )
        detail = {
            "table_id": int(hand[0]),
            "stakes": None if stakes is None else asdict(stakes),
            "seat_players": list(hand[1]),
            "leaver": None,
            "player_id": None,
            "balance_before": None,
            "penalty": 0,
            "fee": 0,
            "balance_after": None,
            "dissolved": True,
            "votes": dict(votes),
        }
        await s.execute(
            insert(SettlementRow).values(
                hand_id=hand_id, kind="void", detail=detail, created_at=utcnow()
            )
        )
    else:
        await _write_first(s)
    if match_id is not None:
        await s.execute(
            update(MatchRow)
            # only a match still playing: run again it changes nothing, and a match that
            # ended meanwhile (over, or void by a leaver) keeps its own end
            .where(MatchRow.id == match_id, MatchRow.status == "playing")
            .values(
                status="dissolved",
                totals=list(totals),
                hands_played=hands_played,
                leaver=None,
                ended_at=utcnow(),
            )
        )
    await s.execute(
        update(TableRow)
        .where(TableRow.id == table_id, TableRow.status != "closed")
        .values(status="closed", closed_at=utcnow())
    )
    return detail


async def hand_end_fields(s: AsyncSession, hand_id: int) -> dict[str, Any]:
    """What ``hand_end`` adds (docs/economy.md): per seat the silver change (after the fee),
    the transfer, the fee and the new balance (null for seats without an account), and the
    level-ups. Read from the committed settlement."""
    _crash_point(s, "settle_after_commit")
    row = (
        await s.execute(
            select(SettlementRow.kind, SettlementRow.detail).where(SettlementRow.hand_id == hand_id)
        )
    ).first()
    if row is None:
        return {"silver": None, "level_ups": []}
    return end_fields(row[0], row[1])


async def match_silver(s: AsyncSession, match_id: int, players: int) -> list[dict[str, Any] | None]:
    """What ``match_end`` adds (docs/economy.md): per seat the silver the match moved, its
    hands' settlements summed — ``change`` (after the fees), ``fees`` and the ``balance``
    after the last of them (null for seats without an account, or with nothing settled:
    a points-only table). Read from the committed settlements."""
    rows = (
        await s.execute(
            select(SettlementRow.kind, SettlementRow.detail)
            .join(HandRow, HandRow.id == SettlementRow.hand_id)
            .where(HandRow.match_id == match_id)
            .order_by(HandRow.id)
        )
    ).all()
    out: list[dict[str, Any] | None] = [None] * players
    for kind, detail in rows:
        lines = end_fields(kind, detail)["silver"] or []
        for i, x in enumerate(lines[:players]):
            if x is None:
                continue
            t = out[i] or {"change": 0, "fees": 0, "balance": None}
            t["change"] += int(x["change"])
            t["fees"] += int(x["fee"])
            t["balance"] = x["balance"]
            out[i] = t
    return out


def end_fields(kind: str, d: dict[str, Any]) -> dict[str, Any]:
    """``hand_end_fields`` from a settlement's kind and detail (pure)."""
    if kind == "void":
        n = len(d["seat_players"])
        silver: list[dict[str, Any] | None] = [None] * n
        if d["balance_after"] is not None:
            silver[d["leaver"]] = {
                "change": -(d["penalty"] + d["fee"]),
                "transfer": -d["penalty"],
                "fee": d["fee"],
                "balance": d["balance_after"],
            }
        return {
            "silver": silver,
            "level_ups": [],
            "stakes": d["stakes"],
            "practice": bool(d.get("practice")),
        }
    silver = []
    for i, a in enumerate(d["accounts"]):
        if not a or d["stakes"] is None:
            silver.append(None)
            continue
        silver.append(
            {
                "change": d["transfers"][i] - d["fees"][i],
                "transfer": d["transfers"][i],
                "fee": d["fees"][i],
                "balance": d["balances_after"][i],
            }
        )
    return {
        "silver": silver,
        "level_ups": d["level_ups"],
        "stakes": d["stakes"],
        "skill": d.get("skill"),
        "practice": bool(d.get("practice")),
    }


async def has_account(s: AsyncSession, player_id: int) -> bool:
    """Whether this player has an account (R11: only accounts hold silver)."""
    row = await s.execute(select(Account.player_id).where(Account.player_id == player_id))
    return row.first() is not None


async def can_sit(s: AsyncSession, table_id: int, player_id: int) -> str | None:
    """Why this player may not sit at this table (None if they may): an account whose
    balance is below the table's minimum, or above its room's maximum (server/rooms.py).
    Guests play for points only and may sit."""
    bounds = (
        await s.execute(
            select(TableStakes.min_balance, TableStakes.max_balance).where(
                TableStakes.table_id == table_id
            )
        )
    ).first()
    if bounds is None:
        return None
    lo, hi = int(bounds[0] or 0), bounds[1]
    if not lo and hi is None:
        return None
    row = (await s.execute(select(Account.silver).where(Account.player_id == player_id))).first()
    if row is None:
        return None
    have = int(row[0])
    if have < lo:
        return f"this table needs at least {lo} silver to sit down; you have {have}"
    if hi is not None and have > int(hi):
        return f"this table takes at most {int(hi)} silver to sit down; you have {have}"
    return None


async def short_of_silver(s: AsyncSession, table_id: int, player_ids: list[int]) -> list[int]:
    """The accounts among ``player_ids`` whose balance is now below this table's minimum
    (docs/economy.md, "Between hands"): the minimum asked to sit is asked again before each
    hand, or an account that lost everything would play on for nothing — it pays only what
    it has (R11) and wins in full. Empty for a table played for points only, one without a
    minimum, a practice table (练习: nothing moves) and guests."""
    if not player_ids:
        return []
    bounds = (
        await s.execute(
            select(TableStakes.stake, TableStakes.min_balance).where(
                TableStakes.table_id == table_id
            )
        )
    ).first()
    if bounds is None or not int(bounds[0]) or not int(bounds[1] or 0):
        return []
    rows = (
        await s.execute(
            select(Account.player_id).where(
                Account.player_id.in_(player_ids), Account.silver < int(bounds[1])
            )
        )
    ).all()
    if not rows or await _practice(s, table_id):
        return []
    short = {int(r[0]) for r in rows}
    return [p for p in player_ids if p in short]


async def hand_plays_on(s: AsyncSession, table_id: int, player_id: int) -> bool:
    """Whether the hand in progress plays on when this player leaves (docs/economy.md,
    "Leaving mid-hand"): a leaver without an account (a guest) at a table where silver
    moves between the others. R11's void is bought with the escape penalty, which a guest
    cannot pay: its leave would otherwise void, for nothing, a hand an account was losing."""
    stake = (
        await s.execute(select(TableStakes.stake).where(TableStakes.table_id == table_id))
    ).first()
    if stake is None or not int(stake[0]):
        return False
    if await has_account(s, player_id):
        return False
    return not await _practice(s, table_id)


async def _practice(s: AsyncSession, table_id: int) -> bool:
    """Whether this table is practice now (练习, :func:`is_practice`, from the accounts
    among its seats and its ``house_bots``)."""
    seated = (
        await s.execute(
            select(SeatRow.bot, Account.player_id)
            .outerjoin(Account, Account.player_id == SeatRow.player_id)
            .where(SeatRow.table_id == table_id)
        )
    ).all()
    accounts = sum(1 for bot, acct in seated if not bot and acct is not None)
    return is_practice(await house_bots_of(s, table_id), accounts, len(seated) - accounts)


async def _accounts_among(s: AsyncSession, players: Sequence[int | None]) -> set[int]:
    """The players among these that have an account."""
    ids = sorted({p for p in players if p is not None})
    if not ids:
        return set()
    rows = await s.execute(select(Account.player_id).where(Account.player_id.in_(ids)))
    return {int(r[0]) for r in rows}


async def seated_elsewhere(s: AsyncSession, table_id: int, player_id: int) -> int | None:
    """Another table, not closed and played for silver (a stake above 0), where this
    account holds a seat (None: none, or a guest, or this table plays for points). One
    account sits at one table for silver at a time: each table checks the minimum balance
    against the whole of it, and an account at two could lose only what it has while
    winning at both (R11). A practice table (练习) counts like any other: a second account
    sitting down there makes it a table for silver, and its first would then be at two."""
    here = (
        await s.execute(select(TableStakes.stake).where(TableStakes.table_id == table_id))
    ).first()
    if here is None or not int(here[0]):
        return None
    if not await has_account(s, player_id):
        return None
    other = (
        await s.execute(
            _held_seats(player_id)
            .join(TableStakes, TableStakes.table_id == SeatRow.table_id)
            .where(SeatRow.table_id != table_id, TableStakes.stake > 0)
            .limit(1)
        )
    ).first()
    return None if other is None else int(other[0])


async def one_table(s: AsyncSession, table_id: int, player_id: int) -> int | None:
    """In the transaction that seats this human at this table: another table where the
    account holds a seat for silver (:func:`seated_elsewhere`; None: it may sit). The
    player's and the account's rows are locked first (PostgreSQL; SQLite's writes are
    serialised already), so two sit-downs of one account at two tables at the same moment
    are taken one after the other, and the second finds the first's seat (R11: one table for
    silver at a time); and a guest's registration (which updates the player's row first,
    server/accounts.py) and its sit-down are too: either the seat is found by the
    registration, or the account by the seat."""
    await s.execute(select(Player.id).where(Player.id == player_id).with_for_update())
    await s.execute(
        select(Account.player_id).where(Account.player_id == player_id).with_for_update()
    )
    return await seated_elsewhere(s, table_id, player_id)


def _held_seats(player_id: int) -> Select[Any]:
    """The tables, not closed, where this player holds a seat (its table ids, in order)."""
    return (
        select(SeatRow.table_id)
        .join(TableRow, TableRow.id == SeatRow.table_id)
        .where(
            SeatRow.player_id == player_id,
            SeatRow.bot.is_(False),
            TableRow.status != "closed",
        )
        .order_by(SeatRow.table_id)
    )


async def seated_at(s: AsyncSession, player_id: int) -> int | None:
    """A table, not closed, where this player holds a seat (None: none)."""
    row = (await s.execute(_held_seats(player_id).limit(1))).first()
    return None if row is None else int(row[0])


# ---------------------------------------------------------------------------- audit


@dataclass
class AuditReport:
    problems: list[str]
    accounts: int = 0
    silver: int = 0
    grants: int = 0
    admin: int = 0
    relief: int = 0
    fees_burned: int = 0
    escapes_burned: int = 0
    hands: int = 0
    voids: int = 0
    dissolved: int = 0  # void hands of matches dissolved by vote (no one charged)
    house: int = 0  # the house account's balance (bots at room tables play for it)
    practice: int = 0  # practice hands (nothing at stake)

    @property
    def ok(self) -> bool:
        return not self.problems

    def conserved(self) -> bool:
        """Silver is created only by grants, admin changes and relief: balances + the house
        account's balance + burned = grants + admin changes + relief."""
        return (
            self.silver + self.house + self.fees_burned + self.escapes_burned
            == self.grants + self.admin + self.relief
        )


async def audit(s: AsyncSession, replay_logs: bool = True) -> AuditReport:
    """Recompute every balance from the ledger and every hand's settlement from its stored
    log (``fjmj admin audit``); every mismatch is one line in ``problems``."""
    from fujian_mahjong.engine import replay
    from fujian_mahjong.server.store import get_hand_events

    rep = AuditReport(problems=[])
    bad = rep.problems
    balances = {
        int(p): int(b) for p, b in (await s.execute(select(Account.player_id, Account.silver)))
    }
    rep.accounts = len(balances)
    rep.silver = sum(balances.values())
    running: dict[int, int] = {}
    relief_rows: dict[int, int] = {}  # player -> relief rows in the ledger
    # (hand, player, kind) -> rows; balance before each hand row, from the chain
    by_hand: dict[int, dict[int, dict[str, tuple[int, int]]]] = {}
    rows = await s.execute(
        select(
            LedgerRow.id,
            LedgerRow.player_id,
            LedgerRow.hand_id,
            LedgerRow.kind,
            LedgerRow.amount,
            LedgerRow.balance_after,
        ).order_by(LedgerRow.player_id, LedgerRow.id)
    )
    for lid, pid, hid, kind, amount, after in rows:
        pid, amount, after = int(pid), int(amount), int(after)
        prev = running.get(pid, 0)
        if prev + amount != after:
            bad.append(
                f"ledger row {lid} (player {pid}): {prev} {amount:+d} is not {after} "
                "(the balance chain is broken)"
            )
        if after < 0:
            bad.append(f"ledger row {lid} (player {pid}): balance {after} is negative")
        running[pid] = after
        if kind == "starting_grant":
            rep.grants += amount
        elif kind == "admin":
            rep.admin += amount
        elif kind == "relief":
            rep.relief += amount
            relief_rows[pid] = relief_rows.get(pid, 0) + 1
            if amount <= 0:
                bad.append(f"ledger row {lid} (player {pid}): relief of {amount}")
            if hid is not None:
                bad.append(f"ledger row {lid} (player {pid}): a relief row with a hand")
        elif kind == "fee":
            rep.fees_burned -= amount
        elif kind == "escape":
            rep.escapes_burned -= amount
        if kind in ("hand", "fee", "escape"):
            if hid is None:
                bad.append(f"ledger row {lid} (player {pid}): a {kind} row without a hand")
                continue
            per = by_hand.setdefault(int(hid), {}).setdefault(pid, {})
            if kind in per:
                bad.append(f"hand {hid}: player {pid} has two {kind} rows")
            per[kind] = (amount, after)
    for pid, bal in balances.items():
        if running.get(pid, 0) != bal:
            bad.append(f"player {pid}: balance {bal} but the ledger sums to {running.get(pid, 0)}")
    for pid in running.keys() - balances.keys():
        bad.append(f"player {pid}: ledger rows but no account")
    claimed = {
        int(p): int(n or 0)
        for p, n in await s.execute(
            select(ReliefClaim.player_id, func.sum(ReliefClaim.times)).group_by(
                ReliefClaim.player_id
            )
        )
    }
    for pid in sorted(claimed.keys() | relief_rows.keys()):
        if claimed.get(pid, 0) != relief_rows.get(pid, 0):
            bad.append(
                f"player {pid}: {relief_rows.get(pid, 0)} relief row(s) in the ledger but "
                f"{claimed.get(pid, 0)} claim(s) counted"
            )
    # the house account: its rows per hand and seat (docs/economy.md)
    house_rows: dict[int, dict[int, int]] = {}
    for rid, hid, seat, amount in await s.execute(
        select(
            HouseLedgerRow.id, HouseLedgerRow.hand_id, HouseLedgerRow.seat, HouseLedgerRow.amount
        ).order_by(HouseLedgerRow.id)
    ):
        per_seat = house_rows.setdefault(int(hid), {})
        if int(seat) in per_seat:
            bad.append(f"house row {rid}: hand {hid} seat {seat} has two house rows")
        per_seat[int(seat)] = per_seat.get(int(seat), 0) + int(amount)
        rep.house += int(amount)
    house_tables = {
        int(t)
        for (t,) in await s.execute(
            select(TableStakes.table_id).where(TableStakes.house_bots.is_(True))
        )
    }
    settled: set[int] = set()
    for hid, kind, d in await s.execute(
        select(SettlementRow.hand_id, SettlementRow.kind, SettlementRow.detail).order_by(
            SettlementRow.hand_id
        )
    ):
        hid = int(hid)
        settled.add(hid)
        ledger = by_hand.pop(hid, {})
        house_of_hand = house_rows.pop(hid, {})
        house_table = int(d["table_id"]) in house_tables
        seated = list(d["seat_players"])
        accounts = {p for p, a in zip(seated, d.get("accounts") or (), strict=False) if a}
        modes = seat_modes(seated, house_table, accounts)
        if d.get("practice_rule") != PRACTICE_RULE:  # settled by the first rule
            modes = (modes[0], not house_table and _first_rule_practice(seated))
        if "practice" in d and bool(d["practice"]) != modes[1]:
            bad.append(
                f"hand {hid}: settled as practice={d['practice']} but its seats say {modes[1]}"
            )
        if kind == "void":
            if house_of_hand:
                bad.append(f"hand {hid}: a void hand with house rows")
            rep.voids += 1
            rep.dissolved += bool(d.get("dissolved"))
            _audit_void(bad, hid, d, ledger)
            continue
        rep.hands += 1
        rep.practice += bool(d.get("practice"))
        if "house" in d and list(d["house"]) != modes[0]:
            bad.append(
                f"hand {hid}: settled with house seats {d['house']}, its seats say {modes[0]}"
            )
        house_seats = d.get("house") or [False] * len(d["payments"])
        for seat in range(len(d["payments"])):
            want = d["transfers"][seat] if house_seats[seat] else 0
            if house_of_hand.get(seat, 0) != want:
                bad.append(
                    f"hand {hid}: seat {seat} house rows {house_of_hand.get(seat, 0):+d} but "
                    f"settled {want:+d}"
                )
        payments = d["payments"]
        if replay_logs:
            try:
                g = replay(await get_hand_events(s, hid))
                sc = g.score()
                logged = list(sc.payments) if sc is not None else None
            except MahjongError as e:
                bad.append(f"hand {hid}: the stored log does not verify: {e}")
                logged = None
            if logged is not None and logged != payments:
                bad.append(f"hand {hid}: settled payments {payments} but the log says {logged}")
        _audit_hand(bad, hid, d, ledger)
    for orphan, players in by_hand.items():
        bad.append(f"hand {orphan}: ledger rows for players {sorted(players)} but no settlement")
    for orphan in house_rows:
        bad.append(f"hand {orphan}: house rows but no settlement")
    unsettled = (
        await s.execute(
            select(HandRow.id)
            .join(TableStakes, TableStakes.table_id == HandRow.table_id)
            .where(HandRow.status == "over")
            .order_by(HandRow.id)
        )
    ).scalars()
    for hid in unsettled:
        if int(hid) not in settled:
            bad.append(f"hand {hid}: finished at a table with stakes but never settled")
    # 解散房间: a dissolved match left no hand open (the one in progress was voided)
    for hid, mid in await s.execute(
        select(HandRow.id, HandRow.match_id)
        .join(MatchRow, MatchRow.id == HandRow.match_id)
        .where(MatchRow.status == "dissolved", HandRow.status == "playing")
        .order_by(HandRow.id)
    ):
        bad.append(f"hand {hid}: still playing in match {mid}, which was dissolved")
    if not rep.conserved():
        bad.append(
            f"silver created or lost: balances {rep.silver} + house {rep.house} + fees "
            f"{rep.fees_burned} + escapes {rep.escapes_burned} != grants {rep.grants} + admin "
            f"{rep.admin} + relief {rep.relief}"
        )
    return rep


def _audit_hand(
    bad: list[str], hid: int, d: dict[str, Any], ledger: dict[int, dict[str, tuple[int, int]]]
) -> None:
    n = len(d["payments"])
    stakes = d["stakes"]
    before = d["balances_before"]
    if stakes is not None:
        st_ = Stakes(**stakes)
        _adj, transfers, fees, _after = settle_amounts(
            d["payments"],
            d["accounts"],
            d.get("house") or [False] * n,
            before,
            st_,
            _cap(d["profile"], st_),
            bool(d.get("practice")),
        )
        if transfers != d["transfers"] or fees != d["fees"]:
            bad.append(
                f"hand {hid}: recomputed transfers {transfers} / fees "
                f"{fees} differ from the stored {d['transfers']} / {d['fees']}"
            )
        if sum(transfers) != 0:
            bad.append(f"hand {hid}: transfers are not zero-sum")
    for seat in range(n):
        pid = d["seat_players"][seat]
        if not d["accounts"][seat]:
            continue
        rows = ledger.get(pid, {})
        h = rows.get("hand")
        if h is None:
            bad.append(f"hand {hid}: seat {seat} (player {pid}) has no hand row")
            continue
        if h[0] != d["transfers"][seat] or h[1] - h[0] != before[seat]:
            bad.append(
                f"hand {hid}: seat {seat} ledger {h[0]:+d} from {h[1] - h[0]} differs from the "
                f"settlement {d['transfers'][seat]:+d} from {before[seat]}"
            )
        fee = rows.get("fee", (0, h[1]))
        if -fee[0] != d["fees"][seat]:
            bad.append(f"hand {hid}: seat {seat} fee {-fee[0]} but settled {d['fees'][seat]}")


def _audit_void(
    bad: list[str], hid: int, d: dict[str, Any], ledger: dict[int, dict[str, tuple[int, int]]]
) -> None:
    pid = d["player_id"]
    if d.get("dissolved") and (
        d["leaver"] is not None or pid is not None or d["penalty"] or d["fee"]
    ):
        bad.append(f"hand {hid}: dissolved by vote, but someone was charged or named a leaver")
    if d.get("practice") and (d["penalty"] or d["fee"]):
        bad.append(f"hand {hid}: a practice hand charged its leaver")
    if d["balance_before"] is None:
        if ledger:
            bad.append(f"hand {hid}: void without a penalty, but ledger rows exist")
        return
    stakes = d["stakes"]
    n = len(d["seat_players"])
    balances = [0] * n
    balances[d["leaver"]] = d["balance_before"]
    st = settle_leaver(d["leaver"], balances, stakes["base"], stakes["stake"], stakes["fee"])
    if -st.transfers[d["leaver"]] != d["penalty"] or st.fees[d["leaver"]] != d["fee"]:
        bad.append(f"hand {hid}: the escape penalty does not recompute")
    rows = ledger.get(pid, {})
    esc = rows.get("escape")
    if esc is None or esc[0] != -d["penalty"] or esc[1] - esc[0] != d["balance_before"]:
        bad.append(f"hand {hid}: the escape row of player {pid} differs from the settlement")
    fee = rows.get("fee", (0, 0))
    if -fee[0] != d["fee"]:
        bad.append(f"hand {hid}: leaver fee {-fee[0]} but settled {d['fee']}")


async def player_name_taken(s: AsyncSession, name_key: str) -> bool:
    return (
        await s.execute(select(func.count()).where(Account.name_key == name_key))
    ).scalar_one() > 0


async def account_of(s: AsyncSession, player_id: int) -> tuple[Player, int, int] | None:
    """(player, silver, rating) of a registered player, or None."""
    row = (
        await s.execute(
            select(Player, Account.silver, Account.rating)
            .join(Account, Account.player_id == Player.id)
            .where(Player.id == player_id)
        )
    ).first()
    return None if row is None else (row[0], int(row[1]), int(row[2]))


class EconomySettlement:
    """The store's settlement hook (``Store(settlement=...)``): R11 settlement of a finished
    hand and a void hand's escape penalty, in the store's transaction.

    It also remembers the settlement it just wrote (``take``), so the table that ends the
    hand builds its ``hand_end`` without reading it back (docs/architecture.md: no
    end-of-hand read on the actor's path). The entry is written in the transaction's last
    settlement attempt: a rolled-back attempt is overwritten by its retry, and a retry that
    finds the hand settled already drops it (then ``take`` is None and the caller reads the
    committed row, as after a restart). The caller takes it only once its commit returned."""

    KEEP = 4096  # entries not taken (a table gone before its hand_end) are dropped oldest first

    def __init__(self) -> None:
        self._settled: dict[int, tuple[str, dict[str, Any]]] = {}

    def _remember(self, hand_id: int, kind: str, detail: dict[str, Any] | None) -> None:
        self._settled.pop(hand_id, None)
        if detail is None:
            return  # settled before: the committed row is the truth
        # the detail as the database returns it (JSON), so hand_end is the same either way
        self._settled[hand_id] = (kind, orjson.loads(orjson.dumps(detail)))
        while len(self._settled) > self.KEEP:
            del self._settled[next(iter(self._settled))]

    def take(self, hand_id: int) -> tuple[str, dict[str, Any]] | None:
        """The kind and detail of the settlement this process last wrote for ``hand_id``
        (once), or None."""
        return self._settled.pop(hand_id, None)

    async def settle_hand(
        self,
        s: AsyncSession,
        hand_id: int,
        score: dict[str, Any] | None,
        result: dict[str, Any] | None,
    ) -> dict[str, Any] | None:
        detail = await settle_hand(s, hand_id, score, result)
        self._remember(hand_id, "hand", detail)
        return detail

    async def settle_void(
        self, s: AsyncSession, hand_id: int, leaver: int | None
    ) -> dict[str, Any] | None:
        detail = await settle_void(s, hand_id, leaver)
        self._remember(hand_id, "void", detail)
        return detail
