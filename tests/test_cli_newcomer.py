"""What a newcomer following the README meets: every refusal is one ``fjmj: error:`` line
naming what and where, exit 2 for bad input (1 for the environment), and it changes nothing
(no database migrated, no file written, no earlier log overwritten). Real processes where
the process is what is tested (``fjmj serve``, the examples); in-process calls elsewhere."""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fujian_mahjong.cli.main import build_parser, main
from tests.conftest import fresh_pg_database

ROOT = Path(__file__).resolve().parent.parent
EXE = [sys.executable, "-m", "fujian_mahjong"]


def _proc(
    *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EXE, *args], input=stdin, capture_output=True, text=True, timeout=timeout, check=False
    )


def _one_line(p: subprocess.CompletedProcess[str], code: int) -> str:
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fjmj: error: "), p.stderr
    assert "Traceback" not in p.stderr
    return lines[0]


def _main(args: list[str], capsys: pytest.CaptureFixture[str], code: int = 2) -> str:
    assert main(args) == code
    out, err = capsys.readouterr()
    assert out == "", out
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fjmj: error: "), err
    return lines[0]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# ------------------------------------------------------------------------- fjmj serve


async def _tables(url: str) -> list[str]:
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://", 1))
    try:
        rows = await conn.fetch(
            "select table_name from information_schema.tables where table_schema = 'public'"
        )
    finally:
        await conn.close()
    return [r["table_name"] for r in rows]


def test_a_bad_or_silent_redis_is_refused_before_the_database_is_migrated() -> None:
    """``--redis notaurl``: bad input (exit 2, no exception's name); a Redis that does not
    answer: exit 1. Either way before the URL is printed and with the database untouched."""
    with fresh_pg_database() as db:
        for redis, code, words in (
            ("notaurl", 2, "not a Redis URL"),
            ("redis://127.0.0.1:99999/0", 2, "not a Redis URL"),
            ("redis://127.0.0.1:1/0", 1, "cannot reach Redis"),
        ):
            p = _proc("serve", "--port", "0", "--db", db, "--redis", redis)
            line = _one_line(p, code)
            assert "--redis" in line and words in line, line
            assert "Error:" not in line.replace("fjmj: error:", ""), line  # no class names
            assert p.stdout == "", p.stdout  # no URL printed
            assert asyncio.run(_tables(db)) == [], "the database was migrated"


def test_an_empty_host_is_refused(tmp_path: Path) -> None:
    """It bound every interface (a process: a server that starts must not hang the test)."""
    data = tmp_path / "data"
    p = _proc("serve", "--port", "0", "--host", "", "--data-dir", str(data), timeout=60)
    assert "--host: empty" in _one_line(p, 2)
    assert not data.exists()


def test_a_data_dir_that_is_a_file_is_not_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    for args in (["serve", "--port", "0"], ["db", "upgrade"]):
        line = _main([*args, "--data-dir", str(afile)], capsys)
        assert f"--data-dir {afile}: not a directory" in line, line
        line = _main([*args, "--data-dir", str(afile / "sub")], capsys)
        assert "not a directory" in line and str(afile) in line, line
    assert _files(tmp_path) == {"afile": b"x"}


def test_a_bad_db_url_in_the_config_file_names_the_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[server]\ndb_url = "nonsense"\n')
    line = _main(["serve", "--port", "0", "--config", str(cfg)], capsys)
    assert f"--config {cfg}: [server] db_url: not a database URL" in line, line
    assert "--db:" not in line
    assert _files(tmp_path) == {"c.toml": cfg.read_bytes()}


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser([name])
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[name]  # type: ignore[no-any-return]


def test_help_says_what_each_option_does_and_its_default() -> None:
    for name, with_default in (
        ("serve", ("--log-level",)),
        ("simulate", ("--hands", "--players", "--seed", "--workers")),
    ):
        for action in _subparser(name)._actions:
            assert action.help, (name, action.option_strings)
            if set(action.option_strings) & set(with_default):
                assert "default" in action.help, (name, action.option_strings, action.help)
    (token,) = [
        a for a in _subparser("serve")._actions if "--operator-token-file" in a.option_strings
    ]
    assert "/metrics" in (token.help or "").replace("/api/metrics", "")


# --------------------------------------------------------------- play and simulate


def test_a_log_dir_with_an_earlier_runs_logs_is_refused(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    first = _proc("simulate", "--hands", "3", "--no-progress", "--json", "--log-dir", str(logs))
    assert first.returncode == 0, first.stderr
    before = _files(tmp_path)
    assert len(before) == 3
    again = _proc("simulate", "--hands", "1", "--no-progress", "--log-dir", str(logs))
    line = _one_line(again, 2)
    assert f"--log-dir {logs}: already holds hand logs" in line, line
    # play refuses it too, before anything else (here: before it asks for a terminal)
    line = _one_line(_proc("play", "--log-dir", str(logs), stdin=""), 2)
    assert "already holds hand logs" in line, line
    assert _files(tmp_path) == before  # nothing overwritten, nothing added


def test_play_names_its_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _main(["play", "--players", "3"], capsys)
    assert "fuzhou-tcy plays with 4 players, got 3" in line, line
    assert "4-4" not in line
    line = _main(["play", "--profile", str(tmp_path / "missing.toml")], capsys)
    assert line.startswith("fjmj: error: --profile: "), line
    line = _main(["play", "--profile", "sanming", "--players", "1"], capsys)
    assert "2" in line and "4" in line


def test_ray_address_form_is_bad_input_and_nothing_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    for address in ("nonsense", "host:99999", "host:", ":80"):
        args = ["simulate", "--backend", "ray", "--address", address, "--hands", "1"]
        line = _main([*args, "--no-progress", "--log-dir", str(logs)], capsys)
        assert "--address" in line and address in line, line
    line = _main(["simulate", "--address", "auto", "--log-dir", str(logs)], capsys)
    assert "--address needs --backend ray" in line
    assert not logs.exists()


def test_an_unknown_option_names_the_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    line = _main(["simulate", "--hands", "10", "--playrs", "x"], capsys)
    assert line.endswith("(see fjmj simulate --help)"), line
    assert "--playrs x" in line
    line = _main(["db", "upgrade", "--nope"], capsys)
    assert line.endswith("(see fjmj db upgrade --help)"), line


# -------------------------------------------------------------------------- review


def test_review_names_the_phase_in_words() -> None:
    from fujian_mahjong.cli.review import render

    measure = {"shanten": 2, "ukeire": None}
    decision = {
        "agree": True,
        "line": 15,
        "claim": None,
        "drawn": None,
        "phase": "turn",
        "before": measure,
        "played": {"type": "discard", "tile": "5p"},
        "after_played": measure,
        "reason": "keeps the most effective tiles",
        "reason_zh": "有效牌最多",
    }
    summary = {
        "decisions": 1,
        "agreed": 1,
        "agreement_rate": 1.0,
        "shanten_lost": 0,
        "tiles_lost": 0,
        "worst": [],
    }
    rv = {"seat": 0, "profile": "fuzhou-tcy", "decisions": [decision], "summary": summary}
    zh, en = render(rv, "zh").splitlines()[1], render(rv, "en").splitlines()[1]
    assert zh == "✓ 第15行  轮到你  (向听 2)", zh
    assert en == "✓ line 15  your turn  (shanten 2)", en


# ------------------------------------------------------------------------ examples


@pytest.mark.parametrize("example", ["random_agent.py", "train_masked.py"])
def test_the_examples_end_in_one_line_not_a_traceback(example: str, tmp_path: Path) -> None:
    path = str(ROOT / "examples" / example)
    bad = ["--players", "5"]
    if example == "train_masked.py":
        bad = ["--profile", "nope", "--out", str(tmp_path / "c.png")]
    p = subprocess.run(
        [sys.executable, path, *bad],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.splitlines()) == 1 and p.stderr.startswith(f"{example}: error: ")
    # without the rl extra (its modules made unimportable): one line naming it, exit 1
    code = (
        "import runpy, sys\n"
        "sys.modules['pettingzoo'] = sys.modules['gymnasium'] = None\n"
        f"sys.argv = [{path!r}, '--hands', '1']\n"
        f"runpy.run_path({path!r}, run_name='__main__')\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.splitlines()) == 1 and "make venv" in p.stderr, p.stderr
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------------- README


def test_the_readme_capture_is_the_terminal_docs_capture() -> None:
    """README's terminal capture is a part of docs/terminal.md's (seed ``demo``), which is
    taken from the real screen."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    docs = (ROOT / "docs/terminal.md").read_text(encoding="utf-8")
    start = readme.index("### The terminal game")
    block = readme[start:].split("```")[1].strip("\n")
    assert block.count("\n") >= 10 and block in docs, block
    rows = json.dumps(block, ensure_ascii=False)
    assert "花（" in rows and "fuzhou-tcy" not in rows
