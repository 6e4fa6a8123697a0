"""``fjmj serve``: the online table server; ``fjmj db upgrade``: migrate its database.

Every failure to start is one ``fjmj: error:`` line (cli/main.py), never a traceback: exit
2 for bad input (an option out of range, options that do not go together), exit 1 for the
environment (the port is taken, the database cannot be reached or migrated, another server
holds the SQLite database). ``fjmj serve`` binds its port before it prints its URL, so the
URL it prints is one it serves."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import re
import sys
from pathlib import Path
from typing import Any


def _db_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="SQLAlchemy URL (default: the SQLite file fjmj.sqlite3 in the data dir; "
        "PostgreSQL: postgresql+asyncpg://user@host/db)",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        default=None,
        help="data directory (default: $FJMJ_DATA_DIR or ~/.local/share/fujian-mahjong)",
    )


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    # the options below default to None: then the --config file's [server] value, else the
    # Settings default (the one in the help) applies
    p = sub.add_parser("serve", help="run the online table server (HTTP + WebSocket)")
    p.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="a TOML settings file: [server] settings, [[rooms]] (the rooms by stake), "
        "[relief] (救济金), [tables] (private tables' stake bounds); docs/economy.md. "
        "Options given on the command line win over the file",
    )
    p.add_argument(
        "--host",
        default=None,
        help="the address to listen on (default 127.0.0.1; 0.0.0.0: every interface)",
    )
    p.add_argument(
        "--port", type=_port, default=None, help="default 8000; 0: any free port (printed)"
    )
    _db_options(p)
    p.add_argument(
        "--claim-pause-ms",
        type=_count,
        default=None,
        help="minimum pause after every discard at tables with humans (R12; default 600)",
    )
    p.add_argument(
        "--claim-window",
        choices=("auto", "fast", "fixed"),
        default=None,
        help="how long a claim pause lasts at tables that do not choose; fixed draws every "
        "pause from one law so a deliberation does not show (default auto: fixed with two "
        "or more humans)",
    )
    p.add_argument(
        "--bot-delay-ms",
        type=_count,
        default=None,
        help="bots act this long after the claim pause (default 300)",
    )
    p.add_argument(
        "--opening-ms",
        type=_count,
        default=None,
        help="how long a hand's opening (the dice, the deal, 补花, 开金) holds the first "
        "decisions at tables with humans (default 3000: the web client shows it in 3 s)",
    )
    p.add_argument(
        "--grace-s",
        type=_amount,
        default=None,
        help="seconds a disconnected player may take to come back (default 120)",
    )
    p.add_argument(
        "--starting-grant",
        type=_count,
        default=None,
        help="silver a new account starts with (R11; default 10000)",
    )
    p.add_argument(
        "--operator-token-file",
        metavar="FILE",
        default=None,
        help="a file holding the operator's token: GET /api/metrics and GET /metrics "
        "(Prometheus) then answer to 'Authorization: Bearer TOKEN' (without it both are 404)",
    )
    p.add_argument(
        "--guests-per-address",
        type=_count,
        default=None,
        help="new guests per client address per 10 minutes (default 60)",
    )
    p.add_argument(
        "--bot-tables-per-player",
        type=_count,
        default=None,
        help="bot-only tables a player may have live at a time (default 10; 0: no limit)",
    )
    p.add_argument(
        "--max-fee-ratio",
        type=_amount,
        default=None,
        help="a table's fee may be at most this many times its stake (R11; default 1)",
    )
    p.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help="several processes on one PostgreSQL (--db) and this Redis "
        "(redis://host:6379/0): each table runs in one process, any process serves any "
        "client, a dead process's tables move to the others (docs/deploy.md)",
    )
    p.add_argument(
        "--redis-prefix",
        default=None,
        help="prefix of every Redis key and channel (default fjmj): several clusters on one Redis",
    )
    p.add_argument(
        "--lease-s",
        type=_amount,
        default=None,
        help="with --redis: seconds a table's lease lasts unrenewed (default 5); a dead "
        "process's tables move after about this long",
    )
    p.add_argument(
        "--drain-s",
        type=_amount,
        default=25.0,
        help="on SIGTERM: seconds to hand the tables to the other processes (--redis) or "
        "to let the hands in progress finish (one process) before stopping; 0: stop at "
        "once, as on SIGINT (default 25, under Kubernetes' 30 s grace)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="with --redis: run N processes on this machine sharing --port (SO_REUSEPORT); "
        "a worker that dies is started again (default 1)",
    )
    p.add_argument(
        "--reuse-port",
        action="store_true",
        help="bind with SO_REUSEPORT, so that several processes share the port (Linux)",
    )
    p.add_argument(
        "--ws-deflate",
        action="store_true",
        help="compress WebSocket messages (permessage-deflate) for clients that offer it; off "
        "by default: it costs server CPU on every message (docs/architecture.md)",
    )
    p.add_argument(
        "--loop",
        choices=("auto", "uvloop", "asyncio"),
        default="auto",
        help="the event loop: uvloop when installed (auto, the default), or asyncio's own",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        choices=("debug", "info", "warning", "error"),
        help="the least severe server log messages written to standard error (default warning)",
    )
    p.set_defaults(func=run_serve)

    d = sub.add_parser("db", help="database maintenance for the server")
    dsub = d.add_subparsers(dest="db_command", required=True)
    up = dsub.add_parser("upgrade", help="create or migrate the database (Alembic)")
    _db_options(up)
    up.set_defaults(func=run_upgrade)


class OptionError(ValueError):
    """A bad command-line option (one line for stderr; exit 2)."""


class StartError(RuntimeError):
    """The environment stops the server from starting (one line for stderr; exit 1)."""


ERROR = "fjmj: error:"  # every error line's prefix (cli/main.py)


def _whole(text: str, hi: int, what: str) -> int:
    """A whole number 0-``hi`` (argparse types), else why not (``what`` it must be)."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= hi:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return n


def _port(text: str) -> int:
    """A TCP port number (argparse type): 0-65535."""
    return _whole(text, 65535, "a port number 0-65535")


def _count(text: str) -> int:
    """A whole number of at least 0 (argparse type): milliseconds, silver, a limit."""
    return _whole(text, 2**31 - 1, "a whole number 0-2147483647")


def _amount(text: str) -> float:
    """A finite number of at least 0 (argparse type): seconds, a ratio."""
    try:
        x = float(text)
    except ValueError:
        x = -1.0
    if not (math.isfinite(x) and 0 <= x <= 10.0**9):
        raise argparse.ArgumentTypeError(f"must be a number 0-1000000000, got {text!r}")
    return x


def _operator_token(path: str) -> str:
    try:
        token = Path(path).expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise OptionError(f"--operator-token-file {path}: {type(e).__name__}: {e}") from None
    if len(token) < 16 or any(ch.isspace() for ch in token):
        raise OptionError(
            f"--operator-token-file {path}: the token must be one word of at least 16 characters"
        )
    return token


def _config(args: argparse.Namespace) -> dict[str, Any]:
    """The Settings fields the ``--config`` file sets (OptionError: one line)."""
    path = getattr(args, "config", None)
    if not path:
        return {}
    from fujian_mahjong.server.rooms import ConfigError, load_config

    try:
        return load_config(path, getattr(args, "max_fee_ratio", None))
    except ConfigError as e:
        raise OptionError(f"--config {path}: {e}") from None


def _settings(args: argparse.Namespace) -> object:
    from fujian_mahjong.server.settings import Settings, default_data_dir

    refuse_empty_db_options(args)
    extra: dict[str, Any] = _config(args)
    data_dir_cfg = extra.pop("data_dir", None)
    db_url_cfg = extra.pop("db_url", "")
    data_dir = Path(args.data_dir).expanduser() if args.data_dir else data_dir_cfg
    db_url = args.db or db_url_cfg
    # where each value came from, as an error names it: the option, else the --config file
    in_config = f"--config {getattr(args, 'config', None)}: [server]"
    db_where = "--db" if args.db else f"{in_config} db_url"
    dir_where = "--data-dir" if args.data_dir else f"{in_config} data_dir"
    redis_where = "--redis" if getattr(args, "redis", None) else f"{in_config} redis_url"
    for name in (
        "host",
        "port",
        "claim_pause_ms",
        "claim_window",
        "bot_delay_ms",
        "grace_s",
        "starting_grant",
        "guests_per_address",
        "bot_tables_per_player",
        "max_fee_ratio",
    ):
        if getattr(args, name, None) is not None:
            extra[name] = getattr(args, name)
    if getattr(args, "opening_ms", None) is not None:
        extra["opening_s"] = args.opening_ms / 1000
    if getattr(args, "redis", None):
        extra["redis_url"] = args.redis
    for name in ("redis_prefix", "lease_s"):
        if getattr(args, name, None) is not None:
            extra[name] = getattr(args, name)
    if getattr(args, "operator_token_file", None):
        extra["operator_token"] = _operator_token(args.operator_token_file)
    if "rooms" not in extra and "max_fee_ratio" in extra:
        # the default rooms must respect the fee ratio too
        _check_default_rooms(float(extra["max_fee_ratio"]))
    if db_url:
        _check_db_url(db_url, db_where)
    if data_dir is not None:
        check_data_dir(data_dir, dir_where)
    elif not db_url:
        env = "$FJMJ_DATA_DIR" if os.environ.get("FJMJ_DATA_DIR") else "the data directory"
        check_data_dir(default_data_dir(), env)
    if extra.get("redis_url"):
        _check_redis_url(str(extra["redis_url"]), redis_where)
    return Settings(data_dir=data_dir or default_data_dir(), db_url=db_url, **extra)


# the databases the server runs on, each through its asyncio driver
DB_DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}


def refuse_empty_db_options(args: argparse.Namespace) -> None:
    """``--db ""``, ``--data-dir ""``, ``--host ""`` or ``--redis ""``: refused
    (OptionError), never the default database, every interface or one process without
    Redis (an unset shell variable in an operator's script)."""
    for flag, name in (("--db", "db"), ("--data-dir", "data_dir"), ("--host", "host")):
        value = getattr(args, name, None)
        if value is not None and not str(value).strip():
            raise OptionError(f"{flag}: empty")
    redis = getattr(args, "redis", None)
    if redis is not None and not str(redis).strip():
        raise OptionError("--redis: empty (leave the option out to run one process)")


def check_data_dir(path: Path, where: str = "--data-dir") -> None:
    """A data directory, or a path where one can be made: OptionError (exit 2) when it, or
    the nearest part of it that exists, is not a directory (a plain file)."""
    for part in (path, *path.parents):
        if part.exists():
            if not part.is_dir():
                tail = "" if part == path else f" ({part} is not a directory)"
                raise OptionError(f"{where} {path}: not a directory{tail}")
            return


def _check_db_url(url: str, where: str = "--db") -> None:
    """A ``--db`` URL the server can use, or OptionError (bad input: exit 2). ``where``
    names where the URL was given (the option, or the ``--config`` file's key)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        u = make_url(url)
    except (ArgumentError, ValueError):
        raise OptionError(
            f"{where}: not a database URL (sqlite+aiosqlite:///PATH or "
            "postgresql+asyncpg://USER@HOST/DB)"
        ) from None
    backend, driver = u.get_backend_name(), u.get_driver_name()
    want = DB_DRIVERS.get(backend)
    if want is None:
        raise OptionError(f"{where} {_shown(url)}: only SQLite and PostgreSQL are supported")
    if driver != want:
        raise OptionError(
            f"{where} {_shown(url)}: use the {want} driver ({backend}+{want}://…), not {driver}"
        )


def _check_redis_url(url: str, where: str = "--redis") -> None:
    """A Redis URL in a form Redis's client takes, or OptionError (bad input: exit 2)."""
    from redis.connection import parse_url

    from fujian_mahjong.server.cluster import shown_url

    try:
        parse_url(url)  # type: ignore[no-untyped-call]
    except ValueError as e:
        why = " ".join(str(e).split()).rstrip(".")
        raise OptionError(
            f"{where} {shown_url(url)}: not a Redis URL: {why} (e.g. redis://HOST:6379/0)"
        ) from None


async def _ping_redis(url: str) -> None:
    """One PING to the Redis at ``url`` (at most a few seconds): raises when it fails."""
    from redis.asyncio import Redis

    client = Redis.from_url(url, socket_timeout=5.0, socket_connect_timeout=5.0)
    try:
        await client.ping()
    finally:
        await client.aclose()


def _redis_reachable(url: str) -> None:
    """StartError (exit 1, one line) when the Redis at ``url`` does not answer."""
    from fujian_mahjong.server.cluster import shown_url

    try:
        asyncio.run(_ping_redis(url))
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise StartError(
            _one_line(f"--redis {shown_url(url)}: cannot reach Redis: {first}")
        ) from None


def _check_default_rooms(ratio: float) -> None:
    from fujian_mahjong.server.rooms import default_rooms

    for r in default_rooms():
        if r.fee > ratio * r.stake:
            raise OptionError(
                f"--max-fee-ratio {ratio:g}: the default room {r.id} has fee {r.fee} at stake "
                f"{r.stake}; give rooms of your own with --config"
            )


def run_upgrade(args: argparse.Namespace) -> int:
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import upgrade

    try:
        st = _settings(args)
    except OptionError as e:
        print(f"{ERROR} db upgrade: {e}", file=sys.stderr)
        return 2
    assert isinstance(st, Settings)
    try:
        asyncio.run(upgrade(st.database_url))
    except Exception as e:
        print(f"{ERROR} db upgrade: {_db_error(st.database_url, e)}", file=sys.stderr)
        return 1
    print(f"database up to date: {_shown(st.database_url)}")
    return 0


async def _pg_server_free(url: str, shared: bool) -> None:
    """PostgreSQL: raise DatabaseInUse when another server holds the database (the lock is
    taken and given back at once: the app takes it for its life, server/app.py)."""
    from fujian_mahjong.server.store import Store

    if not url.startswith("postgresql"):
        return
    store = Store(url)
    try:
        await store.hold_server_lock(shared)
    finally:
        await store.close()


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _db_error(url: str, e: BaseException) -> str:
    """A database that cannot be reached or migrated, in one line (no password)."""
    first = (str(e).strip().splitlines() or [""])[0]
    what = "cannot connect" if isinstance(e, OSError) else "cannot be migrated"
    return _one_line(f"database {_shown(url)} {what}: {type(e).__name__}: {first}")


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def run_serve(args: argparse.Namespace) -> int:
    try:
        return _serve(args)
    except OptionError as e:
        print(f"{ERROR} serve: {e}", file=sys.stderr)
        return 2
    except StartError as e:
        print(f"{ERROR} serve: {e}", file=sys.stderr)
        return 1


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from fujian_mahjong.server.app import create_app
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import DatabaseInUse, lock_sqlite_writer, upgrade

    st = _settings(args)
    assert isinstance(st, Settings)
    # bad input first (exit 2), before anything is touched
    if not 0 <= st.port <= 65535:
        raise OptionError(f"port must be 0-65535, got {st.port}")
    if st.redis_url and not st.database_url.startswith("postgresql"):
        raise OptionError("--redis needs PostgreSQL (--db postgresql+asyncpg://…)")
    if st.lease_s < 0.5:
        raise OptionError("--lease-s must be at least 0.5")
    workers = getattr(args, "workers", None)
    workers = 1 if workers is None else int(workers)
    if workers != 1 and (workers < 1 or not st.redis_url):
        raise OptionError("--workers N needs N >= 1 and --redis")
    reuse = bool(getattr(args, "reuse_port", False))
    # the port before anything else: a taken port is one line, and nothing was migrated
    sockets = _listen(st.host, st.port, reuse) if workers == 1 else []
    if st.redis_url:
        # a Redis that does not answer is one line before any database is touched
        _redis_reachable(st.redis_url)
    # one server per SQLite database, held until this process ends (server/store/)
    try:
        lock_sqlite_writer(st.database_url)
    except DatabaseInUse as e:
        raise StartError(str(e)) from None
    except OSError as e:
        raise StartError(f"database {_shown(st.database_url)}: {e.strerror or e}") from None
    try:
        # PostgreSQL: another server on the database refuses this one before anything is
        # touched, the migrations included (the app's start-up takes the lock for good)
        asyncio.run(_pg_server_free(st.database_url, shared=bool(st.redis_url)))
    except DatabaseInUse as e:
        raise StartError(str(e)) from None
    except Exception as e:
        raise StartError(_db_error(st.database_url, e)) from None
    try:
        # create / migrate the database first: a bad URL is one line here, not a traceback
        asyncio.run(upgrade(st.database_url))
    except Exception as e:
        raise StartError(_db_error(st.database_url, e)) from None
    if workers != 1:
        return _supervise(workers, st)
    app = create_app(st)
    port = sockets[0].getsockname()[1]
    shown_host = f"[{st.host}]" if ":" in st.host else st.host
    print(f"fjmj serve: http://{shown_host}:{port}/  (API docs at /docs, WebSocket at /ws)")
    print(f"fjmj serve: database {_shown(st.database_url)}", flush=True)
    from fujian_mahjong.server.idle import http_protocol

    config = uvicorn.Config(
        app,
        host=st.host,
        port=port,
        log_level=args.log_level,
        ws_max_size=65536,
        # per-message deflate costs CPU on every frame of every client (off unless asked)
        ws_per_message_deflate=bool(getattr(args, "ws_deflate", False)),
        # silent sockets: a ping every 20 s, closed when its pong is 20 s late
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        # idle connections (docs/deploy.md, "Limits on idle connections"): 5 s between
        # requests, a request's head within 10 s (server/idle.py); with h11, at most
        # 16 KiB of it (httptools, the default when installed, has its own bound)
        timeout_keep_alive=5,
        h11_max_incomplete_event_size=16 * 1024,
        http=http_protocol(),
        loop=getattr(args, "loop", "auto") or "auto",
        lifespan="on",
        # stopping: open connections get this long, then their tasks are cancelled
        timeout_graceful_shutdown=STOP_CONNECTIONS_S,
    )
    server = _stoppable(config, app, float(getattr(args, "drain_s", 0.0) or 0.0))
    failed = _StartupFailure(server)
    supervisor = os.environ.pop(SUPERVISOR_ENV, "")
    if supervisor.isdigit():
        _stop_when_orphaned(server, int(supervisor))
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=sockets)
    except SystemExit:
        # uvicorn exits 3 when the app's start-up failed (its traceback was kept back)
        pass
    if not server.started and failed.reason:
        raise StartError(f"the server did not start: {failed.reason}")
    return 0 if server.started or not server.should_exit else 1


class _StartupFailure:
    """Keeps uvicorn's start-up errors (a traceback from the app's lifespan) off stderr and
    remembers their last line, which ``fjmj serve`` prints as its one error line."""

    def __init__(self, server: Any) -> None:
        import logging

        self.server = server
        self.reason = ""
        logging.getLogger("uvicorn.error").addFilter(self.filter)

    def filter(self, record: Any) -> bool:
        import logging

        if record.levelno < logging.ERROR or self.server.started:
            return True
        lines = [ln for ln in record.getMessage().splitlines() if ln.strip()]
        if lines and not self.reason and (len(lines) > 1 or "Traceback" in lines[0]):
            # our own refusals read as what they say (DatabaseInUse: the database's server
            # lock, server/store/), without the exception's module path
            self.reason = _one_line(re.sub(r"^fujian_mahjong(\.\w+)+: ", "", lines[-1]))
        elif lines and not self.reason and "startup failed" not in lines[0]:
            self.reason = _one_line(lines[0])
        return False


def _listen(host: str, port: int, reuse_port: bool = False) -> list[Any]:
    """The listening sockets of ``host:port`` (every address ``host`` stands for), bound
    now: a port that is taken, or a host that is not this machine's, is a StartError (or
    an OptionError for a host name that does not resolve)."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as e:
        raise OptionError(f"--host {host}: {e.strerror or e}") from None
    addrs = list(dict.fromkeys((fam, str(sa[0])) for fam, _t, _p, _c, sa in infos))
    families = {fam for fam, _ in addrs}
    out: list[Any] = []
    for fam, addr in addrs:
        sock = socket.socket(fam, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            if fam == socket.AF_INET6 and socket.AF_INET in families:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            # port 0: the first address picks a free port, the others take the same
            sock.bind((addr, port or (out[0].getsockname()[1] if out else 0)))
            sock.listen(2048)
        except OSError as e:
            sock.close()
            for s in out:
                s.close()
            where = f"{addr}:{port}" if ":" not in addr else f"[{addr}]:{port}"
            if e.errno == errno.EADDRINUSE:
                raise StartError(
                    f"{where} is already in use (another server?); choose another --port"
                ) from None
            if e.errno == errno.EADDRNOTAVAIL:
                raise OptionError(f"--host {host}: not an address of this machine") from None
            raise StartError(f"cannot listen on {where}: {e.strerror or e}") from None
        sock.set_inheritable(True)
        out.append(sock)
    if not out:
        raise OptionError(f"--host {host}: no address to listen on")
    return out


# the pid of the `--workers N` process that started a worker (set for the worker only)
SUPERVISOR_ENV = "FJMJ_SUPERVISOR_PID"


# stopping (docs/deploy.md, "Stopping and rolling restarts"): the open connections get this
# long to close; the whole stop after SIGINT (or after a SIGTERM's drain) at most the other
STOP_CONNECTIONS_S = 3
STOP_HARD_S = 30.0


def _stoppable(config: Any, app: Any, drain_s: float) -> Any:
    """uvicorn's server, stopping within a bounded time: SIGINT stops at once; SIGTERM
    first drains (``app.state.drain``: the tables handed to the other processes, or the
    hands in progress finished, for at most ``drain_s`` seconds); a second signal stops at
    once. Whatever happens, the process exits ``STOP_HARD_S`` after it began to stop (after
    a SIGTERM that drains, ``drain_s + STOP_HARD_S`` after the signal: the watchdog is armed
    when the signal arrives, so a drain held by a silent database cannot outlive it)."""
    import signal

    import uvicorn

    class Server(uvicorn.Server):
        draining = False

        def handle_exit(self, sig: int, frame: Any) -> None:
            loop = getattr(app.state, "loop", None)
            if (
                sig == signal.SIGTERM
                and drain_s > 0
                and not self.draining
                and not self.should_exit
                and self.started
                and loop is not None
            ):
                self.draining = True
                print(f"fjmj serve: draining (at most {drain_s:g} s)", file=sys.stderr, flush=True)
                _exit_after(drain_s + STOP_HARD_S)
                loop.call_soon_threadsafe(lambda: loop.create_task(self._drain()))
                return
            _exit_after(STOP_HARD_S)
            super().handle_exit(sig, frame)

        async def _drain(self) -> None:
            try:
                # bounded here too: whatever inside the drain waits on a silent database
                # or Redis, the stop begins ``drain_s`` after the signal (and a second)
                await asyncio.wait_for(app.state.drain(drain_s), drain_s + 1.0)
            except TimeoutError:
                print(
                    f"fjmj serve: draining not done after {drain_s:g} s; stopping",
                    file=sys.stderr,
                    flush=True,
                )
            except Exception as e:
                print(f"fjmj serve: draining failed: {e!r}"[:300], file=sys.stderr, flush=True)
            finally:
                _exit_after(STOP_HARD_S)
                self.should_exit = True

    return Server(config)


def _exit_after(seconds: float) -> None:
    """A stop that has not ended after ``seconds`` ends the process (its leases expire
    on their own; a hang here must never keep a port or a table)."""
    import threading
    import time

    def watch() -> None:
        time.sleep(seconds)
        print(
            f"fjmj serve: not stopped {seconds:g} s after the signal; exiting",
            file=sys.stderr,
            flush=True,
        )
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="stop-watchdog").start()


def _stop_when_orphaned(server: Any, supervisor: int) -> None:
    """A worker of ``--workers N`` stops, as on SIGTERM (its leases given back), once the
    process that started it is gone (killed with SIGKILL: it could tell nobody); otherwise
    it would go on serving the port beside whatever is started next."""
    import threading
    import time

    def watch() -> None:
        while not server.should_exit:
            time.sleep(0.5)
            if os.getppid() != supervisor:
                print("fjmj serve: the supervisor is gone; stopping", file=sys.stderr, flush=True)
                _exit_after(STOP_HARD_S)  # bounded, as after a signal
                server.should_exit = True
                return

    threading.Thread(target=watch, daemon=True, name="watch-supervisor").start()


def _supervise(workers: int, st: Any) -> int:
    """``--workers N``: N ``fjmj serve --reuse-port`` processes on one port (each with the
    same options), each started again if it dies; SIGINT/SIGTERM stop them all."""
    import signal
    import subprocess
    import time

    argv = sys.argv[1:]
    rest: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--workers":
            skip = True
            continue
        if a.startswith("--workers="):
            continue
        rest.append(a)
    cmd = [sys.executable, "-m", "fujian_mahjong.cli.main", *rest, "--reuse-port"]
    stopping = False

    def stop(_sig: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    # the workers have a session of their own: a Ctrl-C at the terminal reaches this process
    # only, which stops each worker once, cleanly (SIGINT: at once, its leases given back;
    # not SIGTERM's drain: every worker of one supervisor stops together, so a table would
    # have nowhere to go, docs/deploy.md)
    env = {**os.environ, SUPERVISOR_ENV: str(os.getpid())}
    procs = [subprocess.Popen(cmd, start_new_session=True, env=env) for _ in range(workers)]
    print(
        f"fjmj serve: {workers} workers on port {st.port} (pids {', '.join(str(p.pid) for p in procs)})",
        flush=True,
    )
    while not stopping:
        time.sleep(0.5)
        for i, p in enumerate(procs):
            if p.poll() is not None and not stopping:
                print(
                    f"fjmj serve: worker {p.pid} exited ({p.returncode}); starting another",
                    file=sys.stderr,
                    flush=True,
                )
                procs[i] = subprocess.Popen(cmd, start_new_session=True, env=env)
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    return 0
