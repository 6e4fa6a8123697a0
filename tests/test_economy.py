"""The silver ledger and settlement (R11, docs/economy.md) on a real database: property
tests over random sequences of hands, caps, fees, short payers, leavers, bots, guests and
admin changes (silver is never created, never negative, the audit is clean), bots' shares
(no silver), the exactly-once settlement, and the audit finding tampering."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from fujian_mahjong.server import economy
from fujian_mahjong.server.economy import Stakes, account_payments
from fujian_mahjong.server.store.economy_models import (
    Account,
    HandResultRow,
    LedgerRow,
    ProfileStatRow,
    SettlementRow,
)
from tests.test_economy_support import add_hand, add_player, add_table, real_hands, schema_db

# --------------------------------------------------------------------------- pure parts


@given(
    st.lists(st.integers(-500, 500), min_size=2, max_size=4),
    st.lists(st.booleans(), min_size=4, max_size=4),
    st.integers(0, 300),
)
def test_account_payments_never_charge_more_than_owed_to_accounts(
    pay: list[int], acct: list[bool], cap: int
) -> None:
    """Bots and guests (docs/economy.md): a seat without an account gets 0; an account loser
    owes at most its (capped) loss, and nothing when no account won; winners keep their
    points."""
    acct = acct[: len(pay)]
    out = account_payments(pay, acct, cap)
    won_by_accounts = any(p > 0 and a for p, a in zip(pay, acct, strict=True))
    for p, a, o in zip(pay, acct, out, strict=True):
        if not a:
            assert o == 0
        elif p < 0:
            assert -min(-p, cap or -p) <= o <= 0
            if not won_by_accounts:
                assert o == 0
        else:
            assert o == p


def test_levels_json_matches_r11() -> None:
    from fujian_mahjong.scoring import level_for

    assert economy.level_json(level_for(0)) == {
        "n": 1,
        "title_zh": "待业",
        "rank_zh": "麻袋",
        "next": 100,
    }
    assert economy.level_json(level_for(838860800))["n"] == 24
    assert economy.level_json(level_for(838860800))["next"] is None


def test_make_stakes_defaults_and_refusals() -> None:
    assert economy.make_stakes(stake=5) == Stakes(5, 1, 0, 0, 100)  # min = 20 × stake
    for bad in ({"stake": -1}, {"base": 0}, {"fee": -2}, {"cap": True}, {"min_balance": -1}):
        with pytest.raises(economy.EconomyError):
            economy.make_stakes(**bad)  # type: ignore[arg-type]
    # a stake and cap whose default minimum balance is past any balance: the error names
    # the stake (the client sent no min_balance; it said "min_balance: must be 0-10^15")
    with pytest.raises(economy.EconomyError) as e:
        economy.make_stakes(stake=10**9, cap=10**9, profile="fuzhou-tcy")
    assert e.value.code == "bad_stakes" and e.value.message.startswith("stake: "), e.value
    assert "min_balance" not in e.value.message.split(";")[0]


# --------------------------------------------------------------------------- helpers


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def balances(sessions: Any) -> dict[int, int]:
    async with sessions() as s:
        return {
            int(p): int(b) for p, b in await s.execute(select(Account.player_id, Account.silver))
        }


def payments_for(kind: str, x: int, winner: int, other: int) -> tuple[list[int], int | None]:
    p = [0, 0, 0, 0]
    if kind == "self_draw":
        p = [-x] * 4
        p[winner] = 3 * x
        return p, winner
    if kind == "discard":
        if other == winner:
            other = (winner + 1) % 4
        p[winner], p[other] = x, -x
        return p, winner
    if kind == "dealer_pays":  # sanming-style draw: one payer, three receivers
        p = [5] * 4
        p[winner] = -15
        return p, None
    return p, None


seat_kind = st.sampled_from(["account", "account", "account", "guest", "bot"])
op_hand = st.tuples(
    st.just("hand"),
    st.lists(seat_kind, min_size=4, max_size=4),
    st.sampled_from(["self_draw", "discard", "dealer_pays", "draw"]),
    st.integers(1, 400),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),  # which stakes
)
op_void = st.tuples(
    st.just("void"),
    st.lists(seat_kind, min_size=4, max_size=4),
    st.integers(0, 3),
    st.integers(0, 3),
)
op_admin = st.tuples(st.just("admin"), st.integers(0, 4), st.integers(-3000, 3000))
STAKES = [
    Stakes(1, 1, 0, 0, 0),
    Stakes(10, 2, 5, 0, 0),
    Stakes(50, 1, 30, 20, 0),  # a 20-point cap
    Stakes(3, 5, 100, 0, 0),  # a fee that often exceeds what is left
]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    grants=st.lists(st.integers(0, 3000), min_size=5, max_size=5),
    ops=st.lists(st.one_of(op_hand, op_void, op_admin), min_size=1, max_size=14),
)
def test_random_sequences_conserve_silver_and_audit_clean(
    grants: list[int], ops: list[tuple[Any, ...]]
) -> None:
    """Acceptance: over random hands (caps, fees, short payers, bots, guests), leavers and
    admin changes, silver is never created (balances + fees and escapes burned = grants +
    admin), never negative, every hand is zero-sum between accounts, bots and guests never
    pay or receive, and the audit finds nothing."""
    with tempfile.TemporaryDirectory() as d:
        run(_sequence(Path(d), grants, ops))


async def _sequence(tmp: Path, grants: list[int], ops: list[tuple[Any, ...]]) -> None:
    engine, sessions = await schema_db(tmp / "p.sqlite3")
    try:
        async with sessions() as s, s.begin():
            accounts = [await add_player(s, f"acc{i}", g) for i, g in enumerate(grants)]
            guest = await add_player(s, "guest")
            tables = [(await add_table(s, accounts[0], stk)) for stk in STAKES]
        admin_total = 0
        for op in ops:
            if op[0] == "admin":
                pid, amount = accounts[op[1]], op[2]
                before = (await balances(sessions))[pid]
                if amount == 0:
                    continue
                try:
                    async with sessions() as s, s.begin():
                        await economy.admin_adjust(s, pid, amount, "test")
                    admin_total += amount
                    assert before + amount >= 0
                except economy.EconomyError as e:
                    assert e.code == "insufficient" and before + amount < 0
                    assert (await balances(sessions))[pid] == before  # unchanged
                continue
            kinds = op[1]
            free = list(accounts)
            seats: list[int | None] = []
            for k in kinds:
                if k == "account":
                    seats.append(free.pop(0))
                elif k == "guest":
                    seats.append(guest if guest not in seats else None)
                else:
                    seats.append(None)
            before = await balances(sessions)
            if op[0] == "void":
                leaver, which = op[2], op[3]
                tid, mid = tables[which]
                async with sessions() as s, s.begin():
                    hid = await add_hand(s, tid, mid, seats, status="void")
                    await economy.settle_void(s, hid, leaver)
                after = await balances(sessions)
                stk = STAKES[which]
                # practice (docs/economy.md): at most one account, no house here: free to leave
                practice = economy.seat_modes(seats, False, set(accounts))[1]
                assert practice == (sum(p in accounts for p in seats) <= 1)
                for pid, b in after.items():
                    if pid == seats[leaver] and not practice:
                        due = min(8 * stk.base * stk.stake, before[pid])
                        assert b == before[pid] - due - min(stk.fee, before[pid] - due)
                    else:
                        assert b == before[pid]  # R11: nobody else pays anything
                continue
            _, _, kind, x, w, o, which = op
            pay, winner = payments_for(kind, x, w, o)
            tid, mid = tables[which]
            stk = STAKES[which]
            async with sessions() as s, s.begin():
                hid = await add_hand(s, tid, mid, seats)
                d = await economy.settle_hand(s, hid, {"payments": pay}, {"winner": winner})
            assert d is not None
            after = await balances(sessions)
            assert sum(d["transfers"]) == 0  # zero-sum
            # practice: at most one account (guests and bots hold nothing: nothing to win)
            assert d["practice"] == (sum(p in accounts for p in seats) <= 1)
            for seat, pid in enumerate(seats):
                if pid is None or pid not in before:  # a bot or a guest: no silver at all
                    assert d["transfers"][seat] == 0 and d["fees"][seat] == 0
                    continue
                t, f = d["transfers"][seat], d["fees"][seat]
                assert after[pid] == before[pid] + t - f >= 0
                if d["practice"]:  # docs/economy.md: nothing moves, no fee
                    assert t == f == 0
                    continue
                if t < 0:
                    cap = stk.cap or -pay[seat]
                    assert -t <= min(-pay[seat], cap) * stk.stake  # at most the capped loss
                    assert -t <= before[pid]  # a short payer pays what they have
                assert f == min(stk.fee, before[pid] + t)  # the fee, down to 0
        async with sessions() as s:
            rep = await economy.audit(s, replay_logs=False)
        assert rep.ok, rep.problems
        assert rep.conserved()
        assert rep.grants == sum(grants) and rep.admin == admin_total
        assert all(b >= 0 for b in (await balances(sessions)).values())
    finally:
        await engine.dispose()


# --------------------------------------------------------------------------- bots and guests


async def _one_hand(
    tmp: Path, kinds: list[str], pay: list[int], winner: int | None, stakes: Stakes
) -> tuple[dict[str, Any], list[int | None], dict[int, int]]:
    engine, sessions = await schema_db(tmp / "b.sqlite3")
    try:
        async with sessions() as s, s.begin():
            seats: list[int | None] = []
            for i, k in enumerate(kinds):
                if k == "account":
                    seats.append(await add_player(s, f"p{i}", 1000))
                elif k == "guest":
                    seats.append(await add_player(s, f"g{i}"))
                else:
                    seats.append(None)
            tid, mid = await add_table(s, seats[0] or await add_player(s, "c"), stakes)
            hid = await add_hand(s, tid, mid, seats)
            d = await economy.settle_hand(s, hid, {"payments": pay}, {"winner": winner})
        assert d is not None
        return d, seats, await balances(sessions)
    finally:
        await engine.dispose()


def test_bots_neither_pay_nor_receive(tmp_path: Path) -> None:
    """Silver flows only between accounts (docs/economy.md). A human self-draw against three
    bots wins no silver; a bot's win costs the human discarder nothing; two humans with two
    bots: only the human loser's payment moves. Ratings still move by the full points."""
    st_ = Stakes(10, 1, 0, 0, 0)
    d, seats, bal = run(
        _one_hand(tmp_path / "a", ["account", "bot", "bot", "bot"], [30, -10, -10, -10], 0, st_)
    )
    assert d["transfers"] == [0, 0, 0, 0] and bal[seats[0]] == 1000  # type: ignore[index]
    assert d["ratings_after"][0] == 30
    d, seats, bal = run(
        _one_hand(tmp_path / "b", ["bot", "account", "bot", "bot"], [20, -20, 0, 0], 0, st_)
    )
    assert d["transfers"] == [0, 0, 0, 0] and bal[seats[1]] == 1000  # type: ignore[index]
    assert d["ratings_after"][1] == 0  # floored at 0
    d, seats, bal = run(
        _one_hand(
            tmp_path / "c", ["account", "account", "bot", "guest"], [30, -10, -10, -10], 0, st_
        )
    )
    assert d["transfers"] == [100, -100, 0, 0]
    assert bal[seats[0]] == 1100 and bal[seats[1]] == 900  # type: ignore[index]
    # a guest is like a bot: no balance, no ledger row
    assert d["accounts"] == [True, True, False, False]


def test_capped_short_payer_and_fee_burned(tmp_path: Path) -> None:
    """R11: the cap limits the loss in points; a short payer pays what they have and the
    winner receives only that; then the fee is burned from everyone, down to 0."""

    async def go() -> None:
        engine, sessions = await schema_db(tmp_path / "c.sqlite3")
        async with sessions() as s, s.begin():
            a = await add_player(s, "winner", 1000)
            b = await add_player(s, "poor", 30)
            c = await add_player(s, "rich", 5000)
            tid, mid = await add_table(s, a, Stakes(stake=10, base=1, fee=7, cap=40))
            hid = await add_hand(s, tid, mid, [a, b, c, None])
            d = await economy.settle_hand(s, hid, {"payments": [150, -50, -50, -50]}, {"winner": 0})
        assert d is not None
        # bot's third of the 150 is not paid; each human owes min(50, cap 40) × 2/3... of the
        # accounts' share: gains by accounts 150 of 150 → full 40 points = 400 silver
        assert d["adjusted"] == [150, -40, -40, 0]
        assert d["transfers"] == [430, -30, -400, 0]  # the poor pays 30, all they had
        assert d["fees"] == [7, 0, 7, 0]
        assert await balances(sessions) == {a: 1423, b: 0, c: 4593}
        async with sessions() as s:
            rows = (
                await s.execute(
                    select(LedgerRow.player_id, LedgerRow.kind, LedgerRow.amount).where(
                        LedgerRow.hand_id == hid
                    )
                )
            ).all()
            res = (await s.execute(select(HandResultRow).order_by(HandResultRow.seat))).scalars()
            results = [(r.seat, r.points, r.won, r.silver) for r in res]
            stats = (await s.execute(select(ProfileStatRow))).scalars().all()
        assert sorted(rows) == sorted(
            [(a, "hand", 430), (a, "fee", -7), (b, "hand", -30), (c, "hand", -400), (c, "fee", -7)]
        )
        assert results == [(0, 150, True, 423), (1, -50, False, -30), (2, -50, False, -407)]
        assert {(x.player_id, x.hands, x.wins, x.rating) for x in stats} == {
            (a, 1, 1, 150),
            (b, 1, 0, 0),
            (c, 1, 0, 0),
        }
        await engine.dispose()

    run(go())


def test_settled_once_and_level_up(tmp_path: Path) -> None:
    """The hand id is the idempotency key: a second settlement does nothing (and a raw
    duplicate row is refused by the database); a level-up is reported."""

    async def go() -> None:
        engine, sessions = await schema_db(tmp_path / "o.sqlite3")
        async with sessions() as s, s.begin():
            a = await add_player(s, "a", 1000)
            b = await add_player(s, "b", 1000)
            tid, mid = await add_table(s, a, Stakes(1, 1, 0, 0, 0))
            hid = await add_hand(s, tid, mid, [a, b, None, None])
            d = await economy.settle_hand(s, hid, {"payments": [120, -120, 0, 0]}, {"winner": 0})
        assert d is not None and d["level_ups"] == [
            {
                "seat": 0,
                "player_id": a,
                "level": {"n": 2, "title_zh": "临时工", "rank_zh": "街头一段", "next": 200},
            }
        ]
        async with sessions() as s, s.begin():
            assert await economy.settle_hand(s, hid, {"payments": [120, -120, 0, 0]}, None) is None
            assert await economy.settle_void(s, hid, 1) is None
        assert await balances(sessions) == {a: 1120, b: 880}
        with pytest.raises(IntegrityError):
            async with sessions() as s, s.begin():
                s.add(SettlementRow(hand_id=hid, kind="hand", detail={}))
        # the database refuses a negative balance whatever the code does
        with pytest.raises(IntegrityError):
            async with sessions() as s, s.begin():
                await s.execute(update(Account).where(Account.player_id == b).values(silver=-1))
        async with sessions() as s:
            fields = await economy.hand_end_fields(s, hid)
        assert fields["silver"][:2] == [
            {"change": 120, "transfer": 120, "fee": 0, "balance": 1120},
            {"change": -120, "transfer": -120, "fee": 0, "balance": 880},
        ]
        assert fields["silver"][2:] == [None, None]
        await engine.dispose()

    run(go())


# --------------------------------------------------------------------------- the audit


def test_audit_replays_real_logs_and_finds_tampering(tmp_path: Path) -> None:
    """``audit`` recomputes each hand's payments from its stored log (engine.replay) and
    each settlement and balance from the ledger; any edit is reported."""

    async def go() -> None:
        engine, sessions = await schema_db(tmp_path / "a.sqlite3")
        hands = real_hands()[:6]
        async with sessions() as s, s.begin():
            ps = [await add_player(s, f"p{i}", 500) for i in range(3)]
            tid, mid = await add_table(s, ps[0], Stakes(5, 1, 2, 30, 0))
            ids = []
            for events, result, score in hands:
                hid = await add_hand(
                    s, tid, mid, [ps[0], ps[1], ps[2], None], events, "over", result, score
                )
                await economy.settle_hand(s, hid, score, result)
                ids.append(hid)
        async with sessions() as s:
            rep = await economy.audit(s)
        assert rep.ok, rep.problems
        assert rep.hands == 6 and rep.conserved()

        async def problems() -> list[str]:
            async with sessions() as s:
                return (await economy.audit(s)).problems

        # 1. a balance edited behind the ledger's back
        async with sessions() as s, s.begin():
            await s.execute(
                update(Account).where(Account.player_id == ps[2]).values(silver=Account.silver + 1)
            )
        assert any(f"player {ps[2]}: balance" in p for p in await problems())
        async with sessions() as s, s.begin():
            await s.execute(
                update(Account).where(Account.player_id == ps[2]).values(silver=Account.silver - 1)
            )
        assert await problems() == []
        # 2. a settlement whose payments differ from what the stored log says
        async with sessions() as s, s.begin():
            row = await s.get(SettlementRow, ids[0])
            assert row is not None
            detail = dict(row.detail)
            detail["payments"] = [
                p + (1 if i == 0 else 0) for i, p in enumerate(detail["payments"])
            ]
            await s.execute(
                update(SettlementRow).where(SettlementRow.hand_id == ids[0]).values(detail=detail)
            )
        assert any("the log says" in p for p in await problems())
        # 3. a ledger row removed: the chain breaks and the hand lacks its row
        async with sessions() as s, s.begin():
            first = (
                (
                    await s.execute(
                        select(LedgerRow.id).where(
                            LedgerRow.hand_id == ids[1], LedgerRow.amount != 0
                        )
                    )
                )
                .scalars()
                .first()
            )
            await s.execute(delete(LedgerRow).where(LedgerRow.id == first))
        probs = await problems()
        assert any("chain" in p for p in probs) and any(f"hand {ids[1]}" in p for p in probs)
        await engine.dispose()

    run(go())


def test_the_audit_reads_each_settlement_by_the_practice_rule_it_was_made_by(
    tmp_path: Path,
) -> None:
    """R11 and docs/economy.md, practice: a settlement records the rule its ``practice`` was decided
    by (``practice_rule``: by accounts). One made before, by the first rule (humans), is
    read by that rule: two humans (an account and a guest) with bots were not practice then,
    are practice now, and the audit accepts the old row as it was settled; a new row whose
    ``practice`` disagrees with its seats is reported."""

    async def main() -> None:
        engine, sessions = await schema_db(tmp_path / "r.sqlite3")
        try:
            async with sessions() as s, s.begin():
                acc = await add_player(s, "acc", 1000)
                guest = await add_player(s, "guest")
                tid, mid = await add_table(s, acc, Stakes(10, 1, 0, 0, 0))
                hid = await add_hand(s, tid, mid, [acc, guest, None, None])
                d = await economy.settle_hand(s, hid, {"payments": [3, -1, -1, -1]}, {"winner": 0})
            assert d is not None and d["practice"] is True and d["practice_rule"] == "accounts"

            async def set_detail(**change: Any) -> list[str]:
                async with sessions() as s, s.begin():
                    row = (
                        await s.execute(select(SettlementRow).where(SettlementRow.hand_id == hid))
                    ).scalar_one()
                    detail = {**row.detail, **change}
                    for k in [k for k, v in change.items() if v is None]:
                        detail.pop(k)
                    await s.execute(
                        update(SettlementRow)
                        .where(SettlementRow.hand_id == hid)
                        .values(detail=detail)
                    )
                async with sessions() as s:
                    rep = await economy.audit(s, replay_logs=False)
                return [p for p in rep.problems if "practice" in p]

            assert await set_detail() == []  # as settled
            # the first rule's row: an account and a guest were not practice
            assert await set_detail(practice_rule=None, practice=False) == []
            # the new rule's row saying otherwise than its seats: reported
            problems = await set_detail(practice_rule="accounts", practice=False)
            assert problems and "settled as practice=False but its seats say True" in problems[0]
        finally:
            await engine.dispose()

    run(main())
