"""``fjmj admin`` (docs/economy.md, "Operators") as a real command on a real database:
create, grant, remove (refused below zero, with a reason), list, ledger, and ``audit`` (exit
0 when clean, exit 1 naming the mismatch after tampering).

The commands run in-process through ``fjmj``'s own entry point (``cli.main.main``: the same
parser, exit statuses and output as the installed command, without paying the interpreter's
and the server's imports once per command); the last audit runs as a real ``fjmj`` process,
so that its exit status is seen from outside."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from fujian_mahjong.cli.main import main
from tests.test_economy_support import FJMJ

Admin = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def fjmj(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Admin:
    """``fjmj admin ARGS --data-dir DATA`` in-process: (exit status, stdout, stderr)."""

    def run(data: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        argv = ["admin", *args, "--data-dir", str(data)]
        capsys.readouterr()  # nothing of an earlier command
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin or ""))
        code = main(argv)
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out, err)

    return run


def test_admin_commands_and_audit(tmp_path: Path, fjmj: Admin) -> None:
    r = fjmj(tmp_path, "create", "Opal", "--password-stdin", "--json", stdin="opal-password\n")
    assert r.returncode == 0, r.stderr
    made = json.loads(r.stdout)
    assert made["silver"] == 10_000 and "opal-password" not in r.stdout + r.stderr
    r = fjmj(tmp_path, "create", "opal", "--password-stdin", stdin="another-pw\n")
    assert r.returncode == 2 and "taken" in r.stderr and r.stderr.count("\n") == 1
    r = fjmj(tmp_path, "create", "Pat", "--grant", "50", "--password-stdin", stdin="short\n")
    assert r.returncode == 2 and "password" in r.stderr
    assert (
        fjmj(
            tmp_path, "create", "Pat", "--grant", "50", "--password-stdin", stdin="pat-pw-123\n"
        ).returncode
        == 0
    )

    r = fjmj(tmp_path, "grant", "opal", "250", "--reason", "tournament prize")
    assert r.returncode == 0 and "10250" in r.stdout
    r = fjmj(tmp_path, "remove", "Pat", "51", "--reason", "chargeback")
    assert r.returncode == 2 and "cannot remove 51" in r.stderr
    r = fjmj(tmp_path, "remove", "Pat", "50", "--reason", "chargeback")
    assert r.returncode == 0
    assert fjmj(tmp_path, "grant", "nobody", "5", "--reason", "x").returncode == 2

    listed = json.loads(fjmj(tmp_path, "list", "--json").stdout)
    assert [(a["name"], a["silver"]) for a in listed] == [("Opal", 10_250), ("Pat", 0)]
    led = json.loads(fjmj(tmp_path, "ledger", "Pat", "--json").stdout)["rows"]
    assert [(x["kind"], x["amount"], x["balance_after"], x["reason"]) for x in led] == [
        ("starting_grant", 50, 50, "new account"),
        ("admin", -50, 0, "chargeback"),
    ]
    r = fjmj(tmp_path, "audit")
    assert r.returncode == 0 and "audit: OK" in r.stdout
    assert "grants 10050, admin +200" in r.stdout

    # tampering behind the ledger's back is found (exit 1)
    db = sqlite3.connect(tmp_path / "fjmj.sqlite3")
    with db:
        db.execute(
            "UPDATE accounts SET silver = silver + 1000 WHERE player_id = ?", (made["player_id"],)
        )
    db.close()
    r = subprocess.run(
        [FJMJ, "admin", "audit", "--json", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert not rep["ok"] and any("ledger sums to 10250" in p for p in rep["problems"])
    assert any("created or lost" in p for p in rep["problems"])
    # and the database itself refuses a negative balance
    db = sqlite3.connect(tmp_path / "fjmj.sqlite3")
    try:
        with db:
            db.execute("UPDATE accounts SET silver = -1")
        raise AssertionError("a negative balance was accepted")
    except sqlite3.IntegrityError as e:
        assert "CHECK" in str(e)
    finally:
        db.close()


def test_admin_refuses_what_it_cannot_do_right(
    tmp_path: Path, fjmj: Admin, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input: one line, exit 2, nothing changed or made.

    - an account named "01" is found by its name, not taken for player 1 (the silver went
      to another account);
    - a mistyped ``--data-dir`` is not answered from a new, empty database (an audit said
      OK, a failed grant left a database behind);
    - an empty ``--data-dir`` is not the default database (an unset shell variable);
    - a ``--db`` that is no database URL, an amount past the bounds, a negative
      ``--limit``, a player id without an account: each one line."""
    data = tmp_path / "db"
    for name, pw in (("alice", "alice-password"), ("01", "zero-one-password")):
        r = fjmj(data, "create", name, "--password-stdin", "--json", stdin=pw + "\n")
        assert r.returncode == 0, r.stderr
    ids = {a["name"]: a["player_id"] for a in json.loads(fjmj(data, "list", "--json").stdout)}
    assert ids == {"alice": 1, "01": 2}
    r = fjmj(data, "grant", "01", "500", "--reason", "for 01", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["player_id"] == 2
    listed = json.loads(fjmj(data, "list", "--json").stdout)
    assert [a["silver"] for a in listed] == [10_000, 10_500]
    assert (
        json.loads(fjmj(data, "grant", "1", "5", "--reason", "x", "--json").stdout)["player_id"]
        == 1
    )  # an id, where no account has that name

    def refused(where: Path, *args: str, needle: str) -> None:
        r = fjmj(where, *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr

    refused(data, "grant", "99", "5", "--reason", "x", needle="player 99 has no account")
    refused(data, "grant", "²", "5", "--reason", "x", needle="no account named")
    refused(data, "grant", "alice", "9" * 30, "--reason", "x", needle="amount must be")
    refused(data, "ledger", "alice", "--limit", "-3", needle="a whole number")
    typo = tmp_path / "dta"
    for args in (("audit",), ("list",), ("grant", "alice", "5", "--reason", "x")):
        refused(typo, *args, needle="no database at")
    assert not typo.exists()
    for flag in ("--data-dir", "--db"):
        capsys.readouterr()
        assert main(["admin", "audit", flag, ""]) == 2
        assert capsys.readouterr().err == f"fjmj: error: {flag}: empty\n"
    r = fjmj(data, "list", "--db", "notaurl")
    assert r.returncode == 2 and "not a database URL" in r.stderr and r.stderr.count("\n") == 1
    # nothing moved by any of them
    assert [a["silver"] for a in json.loads(fjmj(data, "list", "--json").stdout)] == [
        10_005,
        10_500,
    ]
