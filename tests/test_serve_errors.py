"""``fjmj serve`` and ``fjmj db`` failures are one ``fjmj: error:`` line (exit 2: bad input,
exit 1: the environment), never a traceback; one server per SQLite database. Real
processes: what is tested is the process itself (its exit status, its output, an OS lock
that outlives nothing but the process). A server's start is awaited on its banner (printed
once its port is bound and its database lock taken), never on a fixed delay."""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.test_server_support import FJMJ


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([FJMJ, *args], capture_output=True, text=True, timeout=120)


def _one_error(p: subprocess.CompletedProcess[str], status: int) -> str:
    assert p.returncode == status, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fjmj: error: "), p.stderr
    return lines[0]


def _start(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """A ``fjmj serve`` on a free port of its choosing: the process and its URL, read from
    its banner (the port is bound and the database locked before it is printed)."""
    proc = subprocess.Popen(
        [FJMJ, "serve", "--port", "0", "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the banner, or "" when the process ended
    if not line.startswith("fjmj serve: http://"):
        proc.kill()
        raise AssertionError(f"no banner: {line!r} {proc.communicate()}")
    return proc, line.split()[2]


def _live(url: str) -> None:
    """Until the server answers ``GET /livez`` (its signal handlers are then installed)."""
    for _ in range(600):
        try:
            if httpx.get(url + "livez", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("the server never answered /livez")


def _stop(proc: subprocess.Popen[str], sig: int = signal.SIGINT) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
    proc.communicate(timeout=60)


def test_a_port_out_of_range_is_refused_in_one_line(tmp_path: Path) -> None:
    for port in ("99999", "-1", "http"):
        line = _one_error(_run("serve", "--port", port, "--data-dir", str(tmp_path)), 2)
        assert "--port" in line and port in line
    assert not (tmp_path / "fjmj.sqlite3").exists()  # nothing was touched


def test_a_busy_port_is_one_line_before_any_url(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        p = _run("serve", "--port", str(port), "--data-dir", str(tmp_path))
    line = _one_error(p, 1)
    assert f"127.0.0.1:{port}" in line and "in use" in line
    assert "http://" not in p.stdout  # no URL was printed for a port it does not serve


def test_an_unreachable_database_is_one_line(tmp_path: Path) -> None:
    url = "postgresql+asyncpg://nobody:secret@127.0.0.1:1/none"
    for args in (("db", "upgrade", "--db", url), ("serve", "--port", "0", "--db", url)):
        line = _one_error(_run(*args), 1)
        assert "127.0.0.1:1" in line and "cannot connect" in line
        assert "secret" not in line  # the password is never shown


def test_a_failed_migration_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "fjmj.sqlite3"
    with sqlite3.connect(db) as c:  # a database from a newer (unknown) version of fjmj
        c.execute("create table alembic_version (version_num varchar(32) primary key)")
        c.execute("insert into alembic_version values ('ffffffffffff')")
    for args in (("db", "upgrade"), ("serve", "--port", "0")):
        line = _one_error(_run(*args, "--data-dir", str(tmp_path)), 1)
        assert "cannot be migrated" in line and "ffffffffffff" in line


def test_a_second_server_on_one_sqlite_database_refuses_naming_the_first(tmp_path: Path) -> None:
    first, url = _start(tmp_path)
    try:
        p = _run("serve", "--port", "0", "--data-dir", str(tmp_path))
        line = _one_error(p, 1)
        assert f"(pid {first.pid})" in line and str(tmp_path / "fjmj.sqlite3") in line
        assert "http://" not in p.stdout
        # the same database through --db is the same database
        db = f"sqlite+aiosqlite:///{tmp_path / 'fjmj.sqlite3'}"
        assert f"(pid {first.pid})" in _one_error(_run("serve", "--port", "0", "--db", db), 1)
        # other commands may use it beside the server
        assert _run("db", "upgrade", "--data-dir", str(tmp_path)).returncode == 0
        assert first.poll() is None
    finally:
        _stop(first, signal.SIGKILL)  # a crash: the OS lets go of the lock
    second, url = _start(tmp_path)
    _live(url)
    _stop(second)
    assert second.returncode == 0
    # and after a clean stop
    third, _ = _start(tmp_path)
    _stop(third, signal.SIGTERM)


def test_errors_are_one_line_for_every_bad_option(tmp_path: Path) -> None:
    cases = [
        ("--workers", "2"),  # needs --redis
        ("--lease-s", "0.1"),
        ("--redis", "redis://127.0.0.1:1/0"),  # needs PostgreSQL
        ("--host", "no-such-host.invalid"),
        ("--db", "not a url"),
        ("--db", "mysql://u@h/db"),  # not a database the server runs on
        ("--db", "postgresql://u@h/db"),  # not the asyncio driver
    ]
    for args in cases:
        _one_error(_run("serve", "--port", "0", "--data-dir", str(tmp_path), *args), 2)
    for url in ("not a url", "sqlite:///x.sqlite3"):
        assert "--db" in _one_error(_run("db", "upgrade", "--db", url), 2)
    assert not list(tmp_path.iterdir())  # nothing was made


@pytest.mark.parametrize(
    "args",
    [
        ("--claim-pause-ms", "-5"),
        ("--bot-delay-ms", "0.5"),
        ("--opening-ms", "-1"),
        ("--grace-s", "nan"),
        ("--grace-s", "-3"),
        ("--max-fee-ratio", "inf"),
        ("--starting-grant", "1e3"),
        ("--guests-per-address", "-1"),
        ("--grace-s", "1e10"),
        ("--lease-s", "nan"),
        ("--drain-s", "-5"),
    ],
    ids=" ".join,
)
def test_a_negative_or_malformed_amount_is_one_line_and_starts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, str]
) -> None:
    """The durations, amounts and limits of ``fjmj serve`` are numbers of at least 0: any
    other value is refused by name, before anything is made (in-process: the parser)."""
    from fujian_mahjong.cli.main import main

    data = tmp_path / "data"
    assert main(["serve", "--port", "0", "--data-dir", str(data), *args]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"fjmj: error: argument {args[0]}: "), lines
    assert args[1] in lines[0]
    assert not data.exists()
