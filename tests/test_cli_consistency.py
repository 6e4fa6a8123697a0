"""CLI consistency (README, "Commands"): --version, bare fjmj, one-line
errors with one prefix and exit 2 for bad input, replay's exit codes, profile TOML with an
unknown key, empty scenario files, check lines in the UI language, win kinds without draws,
and a fast start (lazy imports)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fujian_mahjong.cli.main import COMMANDS, build_parser, main
from fujian_mahjong.engine import Game, to_jsonl

EXE = [sys.executable, "-m", "fujian_mahjong"]
ROOT = Path(__file__).resolve().parent.parent


def fjmj(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], input=stdin, capture_output=True, text=True, check=False)


def one_line_error(p: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert p.returncode == code, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fjmj: error: "), p.stderr
    return lines[0]


def _log(tmp_path: Path) -> Path:
    g = Game.new("fuzhou-tcy", seed="cli", players=4, dealer=0)
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, g.legal_actions(s)[-1])
    f = tmp_path / "hand.jsonl"
    f.write_text(to_jsonl(g.events), encoding="utf-8")
    return f


def test_version_bare_and_help() -> None:
    p = fjmj("--version")
    assert p.returncode == 0 and p.stdout.startswith("fjmj ") and p.stdout.split()[1][0].isdigit()
    bare = fjmj()
    assert bare.returncode == 0 and "usage: fjmj" in bare.stdout
    for cmd in ("analyze", "play", "replay", "review", "simulate", "scenario"):
        assert cmd in bare.stdout
    p = fjmj("nope")
    assert "invalid choice" in one_line_error(p)


def test_every_subcommand_parser_builds_and_help_is_lazy() -> None:
    parser = build_parser()  # every module's full parser (documentation, this test)
    sub = next(a for a in parser._actions if a.dest == "command")
    assert {"analyze", "play", "replay", "review", "simulate", "scenario"} <= set(sub.choices)
    assert set(sub.choices) <= set(COMMANDS)
    # `fjmj --help` imports no subcommand module (a fast start: README, "Benchmarks")
    code = (
        "import sys; from fujian_mahjong.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in sys.modules if m.startswith(('fujian_mahjong.cli.', 'rich', "
        "'textual', 'fujian_mahjong.engine', 'concurrent'))]\n"
        "bad = [m for m in bad if m not in ('fujian_mahjong.cli.main',)]\n"
        "assert not bad, bad"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr


def test_main_never_raises(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/x.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fjmj: error: ") and err.count("\n") == 1


def test_replay_exit_codes(tmp_path: Path) -> None:
    f = _log(tmp_path)
    p = fjmj("replay", str(f), "--quiet", "--lang", "en")
    assert p.returncode == 0 and "log verified" in p.stdout
    p = fjmj("replay", str(f), "--quiet")
    assert p.returncode == 0 and "记录验证通过" in p.stdout
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert "empty" in one_line_error(fjmj("replay", str(empty)))
    notlog = tmp_path / "notes.txt"
    notlog.write_text("hello\nworld\n")
    assert "not valid JSON" in one_line_error(fjmj("replay", str(notlog)))
    objs = tmp_path / "objs.jsonl"
    objs.write_text('{"type": "draw"}\n{"type": "end"}\n')
    assert "not a hand log" in one_line_error(fjmj("replay", str(objs)))
    # a hand log that does not verify stays exit 1 (zh and en)
    lines = f.read_text().splitlines()
    del lines[5]
    f.write_text("\n".join(lines) + "\n")
    assert "记录验证失败" in one_line_error(fjmj("replay", str(f)), 1)
    assert "does not verify" in one_line_error(fjmj("replay", str(f), "--lang", "en"), 1)


def test_profile_toml_unknown_key_is_named(tmp_path: Path) -> None:
    src = (ROOT / "src/fujian_mahjong/rules/profiles/fuzhou-tcy.toml").read_text()
    bad = tmp_path / "mine.toml"
    bad.write_text(src.replace("gold_discard =", "gold_discrad ="))
    line = one_line_error(fjmj("simulate", "--profile", str(bad), "--hands", "1"))
    assert "unknown field 'gold_discrad'" in line


def test_scenario_empty_file_and_check_lines_in_ui_language(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("  \n")
    assert "empty" in one_line_error(fjmj("scenario", str(empty)))
    sc = str(ROOT / "scenarios/r2-sanming-players.jsonl")
    zh = fjmj("scenario", sc)
    assert zh.returncode == 0 and "状态 张数 (第0步后)" in zh.stdout and "个场景通过" in zh.stdout
    en = fjmj("scenario", sc, "--lang", "en")
    assert "state hand_sizes after 0" in en.stdout and "scenarios passed" in en.stdout


def test_simulate_win_kinds_do_not_list_draws() -> None:
    p = fjmj(
        "simulate",
        "--hands",
        "30",
        "--seed",
        "3",
        "--players",
        "random,random,random,random",
        "--no-progress",
    )
    assert p.returncode == 0, p.stderr
    kinds_line = next(x for x in p.stdout.splitlines() if x.startswith("win kinds:"))
    assert "draw" not in kinds_line
    js = fjmj(
        "simulate",
        "--hands",
        "30",
        "--seed",
        "3",
        "--players",
        "random,random,random,random",
        "--json",
    )
    out = json.loads(js.stdout)
    assert "draw" not in out["win_kinds"] and out["draw_rate"] > 0
    assert sum(out["win_kinds"].values()) == round(30 * (1 - out["draw_rate"]))


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--hands", "0"],
        ["simulate", "--hands", "1e13"],
        ["simulate", "--hands", "ten"],
        ["simulate", "--workers", "0"],
        ["simulate", "--players", "random,wizard"],
        ["simulate", "--profile", "nope"],
        ["play", "--players", "3"],
        ["play", "--profile", "sanming", "--players", "5"],
        ["play", "--hands", "-1"],
        ["play"],  # not a terminal: refused instead of drawing into a pipe
        ["review", "x.jsonl"],
        ["scenario"],
    ],
)
def test_bad_arguments_are_one_line_exit_2(args: list[str]) -> None:
    one_line_error(fjmj(*args))


def test_a_log_of_a_profile_of_ones_own_verifies_with_it(tmp_path: Path) -> None:
    """A hand's log names its profile (R12: the start and its commitment). A profile file
    of one's own, named ``mine``: its logs verify with ``fjmj replay --profile FILE`` (there
    was no way to verify them: "does not verify: unknown profile"; without the file now,
    exit 2 saying to give it), not with another profile's file. A file
    that changes the rules and keeps a built-in name is refused: a log saying "fuzhou-tcy"
    always means the built-in rules (one such log was reported as tampered)."""
    src = (ROOT / "src/fujian_mahjong/rules/profiles/fuzhou-tcy.toml").read_text()
    mine = tmp_path / "mine.toml"
    mine.write_text(src.replace('name = "fuzhou-tcy"', 'name = "mine"'))
    logs = tmp_path / "logs"
    p = fjmj("simulate", "--profile", str(mine), "--hands", "1", "--log-dir", str(logs))
    assert p.returncode == 0, p.stderr
    (log,) = sorted(logs.glob("*.jsonl"))
    line = one_line_error(fjmj("replay", str(log), "--lang", "en"))
    assert "its profile 'mine' is not built in: give its file with --profile FILE" in line
    ok = fjmj("replay", str(log), "--profile", str(mine), "--quiet", "--lang", "en")
    assert ok.returncode == 0 and "verified" in ok.stdout, ok.stderr
    rv = fjmj("review", str(log), "--seat", "0", "--profile", str(mine), "--json")
    assert rv.returncode == 0 and json.loads(rv.stdout)["profile"] == "mine", rv.stderr
    assert "not built in" in one_line_error(fjmj("review", str(log), "--seat", "0"))
    other = tmp_path / "other.toml"
    other.write_text(src.replace('name = "fuzhou-tcy"', 'name = "other"'))
    line = one_line_error(fjmj("replay", str(log), "--profile", str(other), "--lang", "en"), 1)
    assert "the log's profile is 'mine', not 'other'" in line
    posing = tmp_path / "posing.toml"
    posing.write_text(src.replace("reserve_base = 18", "reserve_base = 20"))
    line = one_line_error(fjmj("simulate", "--profile", str(posing), "--hands", "1"))
    assert "name 'fuzhou-tcy' is a built-in profile's" in line


def test_a_misspelt_key_is_named_not_ignored(tmp_path: Path) -> None:
    """A key one letter from a known one that is missing: ``expct`` passed a scenario with
    no check at all, ``flower`` scored 74 instead of 78 — both exit 0. Now one line naming
    the key and the one it is near, exit 2. A key far from every known one (a comment) is
    still ignored."""
    scen = tmp_path / "s.json"
    first = (ROOT / "scenarios/r2-sanming-players.jsonl").read_text().splitlines()[0]
    body = json.loads(first)
    expect = body.pop("expect")
    scen.write_text(json.dumps({**body, "expct": expect}))
    line = one_line_error(fjmj("scenario", str(scen), "--lang", "en"))
    assert "field 'expct': unknown key (did you mean 'expect'?)" in line
    scen.write_text(json.dumps({**body, "expect": expect, "comment": "a note"}))
    assert fjmj("scenario", str(scen)).returncode == 0
    sit = {
        "profile": "fuzhou-tcy",
        "win": "self_draw",
        "gold": "5p",
        "winner": 0,
        "hand": "123m456m789m123p5p5p",
        "flower": "1f2f",
    }
    line = one_line_error(fjmj("score", "-", stdin=json.dumps(sit)))
    assert "field 'flower': unknown (did you mean 'flowers'?)" in line


def test_refusals_leave_nothing_behind_and_a_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    """``serve --workers 0`` is refused (it started as 1); ``play --log-dir D`` without a
    terminal is refused before D is made (it was left behind); ``simulate | head -1``
    exits 0 like every other command whose reader stops early (rich's table exited 1)."""
    p = subprocess.run(
        [*EXE, "serve", "--workers", "0", "--data-dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert "--workers N needs N >= 1" in one_line_error(p)
    logs = tmp_path / "logs" / "new"
    line = one_line_error(fjmj("play", "--log-dir", str(logs), stdin=""))
    assert "interactive terminal" in line and not logs.parent.exists()
    p = subprocess.run(
        f"set -o pipefail; {' '.join(EXE)} simulate --hands 3 --no-progress | head -1",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert p.returncode == 0 and p.stdout.count("\n") == 1, (p.returncode, p.stderr)


def test_a_terminal_that_cannot_show_chinese_gets_question_marks() -> None:
    """``PYTHONIOENCODING=latin-1``: 中文 output is a "?" per character it lacks, exit 0 (it
    was "internal error: UnicodeEncodeError", exit 1)."""
    import os

    p = subprocess.run(
        [*EXE, "analyze", "123456789m1234p556s", "--gold", "5p", "--lang", "zh"],
        capture_output=True,
        text=True,
        encoding="latin-1",
        env={**os.environ, "PYTHONIOENCODING": "latin-1"},
        timeout=60,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert "123456789m1234p556s" in p.stdout and "?" in p.stdout


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("reserve_base = 18", "reserve_base = 200", "'reserve_base' must be 0-60"),
        ("jin_que = 60", "jin_que = -60", "'special_values' must be a table of whole numbers"),
        ("reserve_base = 18", "reserve_base = 99999999999999999999", "'reserve_base' must be"),
    ],
    ids=["every-hand-a-draw", "negative-special", "huge"],
)
def test_a_profile_s_numbers_are_bounded(tmp_path: Path, old: str, new: str, words: str) -> None:
    """R5 and R10's numbers in a profile of one's own: a reserve that leaves nothing to draw
    (every hand a draw), a negative special's value, a number past any use — refused by
    name (they were accepted)."""
    from fujian_mahjong.errors import ProfileError
    from fujian_mahjong.rules import load_profile_file

    src = (ROOT / "src/fujian_mahjong/rules/profiles/fuzhou-tcy.toml").read_text()
    assert old in src
    f = tmp_path / "mine.toml"
    f.write_text(src.replace('name = "fuzhou-tcy"', 'name = "mine"').replace(old, new))
    with pytest.raises(ProfileError, match=re.escape(words)):
        load_profile_file(f)
