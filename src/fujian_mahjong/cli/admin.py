"""``fjmj admin``: operators' commands on the server's database (docs/economy.md).

Same ``--db`` / ``--data-dir`` options and defaults as ``fjmj serve``; safe to run while the
server runs (every change is one transaction with the same locks the server takes).

- ``create NAME [--grant N] [--password-stdin]``: a registered account (argon2 hash);
- ``grant PLAYER AMOUNT --reason TEXT`` / ``remove PLAYER AMOUNT --reason TEXT``: an
  ``admin`` ledger row (a removal never drives a balance below 0);
- ``list``: every account with its balance and rating;
- ``ledger PLAYER``: a player's ledger, oldest first;
- ``audit``: recompute every balance from the ledger and every hand's settlement from its
  stored log, check the relief rows against the relief claims counted per day, and the
  conservation law (balances + fees and escapes burned = grants + admin + relief); exit 1
  on any mismatch.

PLAYER is an account's name, or a player id when no account has that name. ``--json`` prints machine-readable output.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from fujian_mahjong.cli.serve import _db_options


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("admin", help="administer accounts and silver on the server's database")
    asub = p.add_subparsers(dest="admin_command", metavar="ACTION", required=True)

    c = asub.add_parser("create", help="create a registered account")
    c.add_argument("name")
    c.add_argument("--grant", type=int, default=None, help="starting grant (default 10000)")
    c.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of standard input (else: prompt)",
    )
    for name, help_ in (("grant", "give silver"), ("remove", "take silver away")):
        g = asub.add_parser(name, help=f"{help_} (an 'admin' ledger row with a reason)")
        g.add_argument("player", help="account name (or player id, when no account has it)")
        g.add_argument("amount", type=int)
        g.add_argument("--reason", required=True)
    lst = asub.add_parser("list", help="list accounts with balance and rating")
    lg = asub.add_parser("ledger", help="show a player's ledger")
    lg.add_argument("player", help="account name (or player id, when no account has it)")
    lg.add_argument("--limit", type=_count, default=0, help="only the last N rows")
    au = asub.add_parser("audit", help="recompute balances and settlements; exit 1 on mismatch")
    au.add_argument("--no-replay", action="store_true", help="skip replaying every stored hand log")
    for q in (c, lst, lg, au, *(asub.choices[n] for n in ("grant", "remove"))):
        _db_options(q)
        q.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_admin)


def _count(text: str) -> int:
    """A whole number 0 or more (argparse type)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text[:20]!r}: a whole number, 0 or more")
    return int(text)


def _url(args: argparse.Namespace) -> str:
    """The database this command works on (as ``fjmj serve`` finds it); an empty option is
    refused (an unset shell variable must not fall back to the default database)."""
    from pathlib import Path

    from fujian_mahjong.cli.serve import OptionError, _check_db_url, refuse_empty_db_options
    from fujian_mahjong.server.settings import default_data_dir, sqlite_url

    try:
        refuse_empty_db_options(args)
        if args.db is not None:
            _check_db_url(str(args.db))
    except OptionError as e:
        raise AdminError(str(e)) from None
    if args.db is not None:
        return str(args.db)
    data_dir = Path(args.data_dir).expanduser() if args.data_dir else default_data_dir()
    return sqlite_url(data_dir)


def _missing_sqlite(url: str) -> str | None:
    """The SQLite file ``url`` names, if it does not exist (None: it does, or PostgreSQL)."""
    from pathlib import Path

    from sqlalchemy.engine import make_url

    u = make_url(url)
    if u.get_backend_name() != "sqlite" or not u.database:
        return None
    return None if Path(u.database).is_file() else u.database


class AdminError(Exception):
    """A refused command: one line, exit 2."""


def run_admin(args: argparse.Namespace) -> int:
    handlers: dict[str, Callable[[Any, argparse.Namespace], Awaitable[int]]] = {
        "create": _create,
        "grant": _grant,
        "remove": _grant,
        "list": _list,
        "ledger": _ledger,
        "audit": _audit,
    }
    password = None
    try:
        if args.admin_command == "create":
            password = _read_password(args)
            _check_new_account(args.name, password)  # before the database is touched
        return asyncio.run(_run(handlers[args.admin_command], args, password))
    except AdminError as e:
        print(f"fjmj: error: {e}", file=sys.stderr)
        return 2
    except DatabaseFailed as e:
        print(f"fjmj: error: {e}", file=sys.stderr)
        return 1


class DatabaseFailed(Exception):
    """The database could not be reached or used: one line, exit 1."""


def _check_new_account(name: str, password: str) -> None:
    from fastapi import HTTPException

    from fujian_mahjong.server.accounts import account_name, check_password

    try:
        account_name(name)
        check_password(password)
    except HTTPException as e:
        raise AdminError(str(e.detail)) from None


def _read_password(args: argparse.Namespace) -> str:
    if sys.stdin is None:
        raise AdminError("standard input is closed")
    if args.password_stdin:
        line = sys.stdin.readline()
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        print(
            "fjmj: error: no terminal to ask for a password; use --password-stdin", file=sys.stderr
        )
        raise SystemExit(2)
    pw = getpass.getpass("password: ")
    if getpass.getpass("again: ") != pw:
        print("fjmj: error: the passwords differ", file=sys.stderr)
        raise SystemExit(2)
    return pw


async def _run(
    fn: Callable[[Any, argparse.Namespace], Awaitable[int]],
    args: argparse.Namespace,
    password: str | None,
) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from fujian_mahjong.cli.serve import _db_error
    from fujian_mahjong.server.store import make_engine, upgrade

    url = _url(args)
    missing = _missing_sqlite(url)
    if missing is not None and args.admin_command != "create":
        # a mistyped --data-dir must not be answered from a new, empty database
        raise AdminError(f"no database at {missing} (fjmj serve or fjmj db upgrade makes one)")
    try:
        await upgrade(url)
    except (OSError, SQLAlchemyError, ImportError) as e:
        raise DatabaseFailed(_db_error(url, e)) from None
    engine = make_engine(url)
    args._password = password
    try:
        from sqlalchemy.ext.asyncio import async_sessionmaker

        return await fn(async_sessionmaker(engine, expire_on_commit=False), args)
    except (OSError, SQLAlchemyError) as e:
        raise DatabaseFailed(_db_error(url, e)) from None
    finally:
        await engine.dispose()


async def _player_id(s: Any, ref: str) -> int:
    import unicodedata

    from sqlalchemy import select

    from fujian_mahjong.server.store.economy_models import Account

    # an account's name first (a name may be all digits: "007"), else a player id
    key = unicodedata.normalize("NFKC", " ".join(ref.split())).casefold()
    pid = (await s.execute(select(Account.player_id).where(Account.name_key == key))).scalar()
    if pid is not None:
        return int(pid)
    if ref.isascii() and ref.isdigit() and len(ref) <= 18:
        n = int(ref)
        if (await s.execute(select(Account.player_id).where(Account.player_id == n))).scalar():
            return n
        raise AdminError(f"player {n} has no account")
    raise AdminError(f"no account named {ref[:40]!r}")


def _out(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, default=str))
    else:
        print(text)


async def _create(sessions: Any, args: argparse.Namespace) -> int:
    from fastapi import HTTPException
    from sqlalchemy import insert
    from sqlalchemy.exc import IntegrityError

    from fujian_mahjong.server import economy
    from fujian_mahjong.server.accounts import HASHER, account_name, check_password
    from fujian_mahjong.server.store import Player
    from fujian_mahjong.server.store.models import utcnow

    try:
        name, key = account_name(args.name)
        check_password(args._password or "")
    except HTTPException as e:
        raise AdminError(str(e.detail)) from None
    grant = economy.DEFAULT_GRANT if args.grant is None else args.grant
    pw_hash = await asyncio.to_thread(HASHER.hash, args._password)
    try:
        async with sessions() as s, s.begin():
            if await economy.player_name_taken(s, key):
                raise AdminError(f"name {name!r} is taken")
            res = await s.execute(
                insert(Player)
                .values(name=name, kind="registered", password_hash=pw_hash, created_at=utcnow())
                .returning(Player.id)
            )
            pid = int(res.scalar_one())
            await economy.create_account(s, pid, key, grant)
    except IntegrityError:
        raise AdminError(f"name {name!r} is taken") from None
    except economy.EconomyError as e:
        raise AdminError(e.message) from None
    _out(
        args,
        {"player_id": pid, "name": name, "silver": grant},
        f"created account {name!r}: player {pid}, {grant} silver",
    )
    return 0


async def _grant(sessions: Any, args: argparse.Namespace) -> int:
    from fujian_mahjong.server import economy

    if not 0 < args.amount <= economy.MAX_SILVER:
        raise AdminError(f"amount must be a whole number 1-{economy.MAX_SILVER}")
    amount = args.amount if args.admin_command == "grant" else -args.amount
    try:
        async with sessions() as s, s.begin():
            pid = await _player_id(s, args.player)
            bal = await economy.admin_adjust(s, pid, amount, args.reason)
    except economy.EconomyError as e:
        raise AdminError(e.message) from None
    _out(
        args,
        {"player_id": pid, "amount": amount, "silver": bal},
        f"player {pid}: {amount:+d} silver, balance {bal}",
    )
    return 0


async def _list(sessions: Any, args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from fujian_mahjong.server.store import Player
    from fujian_mahjong.server.store.economy_models import Account

    async with sessions() as s:
        rows = (
            await s.execute(
                select(Player.id, Player.name, Account.silver, Account.rating)
                .join(Account, Account.player_id == Player.id)
                .order_by(Player.id)
            )
        ).all()
    data = [{"player_id": p, "name": n, "silver": b, "rating": r} for p, n, b, r in rows]
    lines = [f"{'id':>6}  {'silver':>12}  {'rating':>8}  name"]
    lines += [f"{p:>6}  {b:>12}  {r:>8}  {n}" for p, n, b, r in rows]
    _out(args, data, "\n".join(lines))
    return 0


async def _ledger(sessions: Any, args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from fujian_mahjong.server.store.economy_models import LedgerRow

    async with sessions() as s:
        pid = await _player_id(s, args.player)
        q = select(LedgerRow).where(LedgerRow.player_id == pid).order_by(LedgerRow.id.desc())
        if args.limit > 0:
            q = q.limit(args.limit)
        rows = list(reversed((await s.execute(q)).scalars().all()))
    data = [
        {
            "id": r.id,
            "kind": r.kind,
            "hand": r.hand_id,
            "amount": r.amount,
            "balance_after": r.balance_after,
            "reason": r.reason,
            "at": r.created_at,
        }
        for r in rows
    ]
    lines = [f"{'row':>6}  {'kind':<14}  {'hand':>6}  {'amount':>10}  {'balance':>12}  reason"]
    lines += [
        f"{r.id:>6}  {r.kind:<14}  {r.hand_id if r.hand_id is not None else '':>6}  "
        f"{r.amount:>+10d}  {r.balance_after:>12}  {r.reason or ''}"
        for r in rows
    ]
    _out(args, {"player_id": pid, "rows": data}, "\n".join(lines))
    return 0


async def _audit(sessions: Any, args: argparse.Namespace) -> int:
    from fujian_mahjong.server import economy

    async with sessions() as s:
        rep = await economy.audit(s, replay_logs=not args.no_replay)
    data = {
        "ok": rep.ok,
        "problems": rep.problems,
        "accounts": rep.accounts,
        "silver": rep.silver,
        "grants": rep.grants,
        "admin": rep.admin,
        "relief": rep.relief,
        "fees_burned": rep.fees_burned,
        "escapes_burned": rep.escapes_burned,
        "house": rep.house,
        "hands": rep.hands,
        "practice": rep.practice,
        "voids": rep.voids,
    }
    summary = (
        f"{rep.accounts} accounts, {rep.silver} silver; grants {rep.grants}, admin "
        f"{rep.admin:+d}, relief {rep.relief}, fees burned {rep.fees_burned}, escapes burned "
        f"{rep.escapes_burned}; house account {rep.house:+d} (bots at room tables); "
        f"{rep.hands} hands ({rep.practice} practice) and {rep.voids} void hands settled"
    )
    text = "\n".join(
        [
            *(f"MISMATCH: {p}" for p in rep.problems),
            summary,
            "audit: OK" if rep.ok else f"audit: {len(rep.problems)} problem(s)",
        ]
    )
    _out(args, data, text)
    return 0 if rep.ok else 1
