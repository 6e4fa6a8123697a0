"""`fjmj analyze` (R7) and the CLI basics: JSON contract, human output, batch, errors."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st

from fujian_mahjong.cli.analyze import analyse
from fujian_mahjong.cli.main import main
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.tiles import parse_kind

EXE = [sys.executable, "-m", "fujian_mahjong"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], input=stdin, capture_output=True, text=True, check=False)


def test_json_contract() -> None:
    p = run("analyze", "--gold", "1m", "--exposed", "2", "234p567p99s78s", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert {"win", "waits", "shanten", "ready", "any_tile_ready", "decompositions"} <= set(out)
    assert out["waits"] == ["1m", "6s", "9s"] and out["ready"] and out["shanten"] == 0
    p = run("analyze", "--gold", "9s", "123m456m789m234p55p678s", "--json")
    out = json.loads(p.stdout)
    assert out["win"] is True and out["waits"] == [] and out["shanten"] == -1
    assert out["decompositions"][0]["pair"]["tiles"] == "55p"
    assert len(out["decompositions"][0]["melds"]) == 5


def test_human_output_zh_en() -> None:
    p = run("analyze", "--gold", "5p", "123m456m789m234s678s5p")
    assert p.returncode == 0 and "听牌" in p.stdout and "向听数: 0" in p.stdout
    p = run("analyze", "--gold", "5p", "--lang", "en", "123m456m789m234s678s5p")
    assert "Shanten: 0" in p.stdout and "Ready on any tile" in p.stdout


def test_batch_jsonl() -> None:
    hands = "123m456m789m234p55p678s\n123m456m789m234p56p678s\n\n12x\n"
    p = run("analyze", "--gold", "9s", "--batch", stdin=hands)
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert [x.get("win") for x in lines[:2]] == [True, False]
    assert "error" in lines[2] and "line 4" in lines[2]["error"]
    assert p.returncode == 2


@pytest.mark.parametrize(
    ("hand", "needle"),
    [
        ("123m456x", "bad character 'x' at position 7"),
        ("123m1z", "flower"),
        ("11111m", "5 copies of 1m"),
        ("123m456m", "must have 16 or 17"),
    ],
)
def test_bad_hands_exit_2_one_line(hand: str, needle: str) -> None:
    p = run("analyze", "--gold", "5p", hand, "--json")
    assert p.returncode == 2
    assert needle in p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert p.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["analyze", "--gold", "1z", "123m456m789m234p55p678s"],
        ["analyze", "--gold", "5q", "123m"],
        ["analyze", "123m"],
        ["analyze", "--gold", "5p", "--exposed", "x", "123m"],
        ["nonsense"],
        ["analyze", "--gold", "5p", "--profile", "nope", "123m456m789m234p55p678s"],
        ["score", "/nonexistent.json"],
    ],
)
def test_bad_arguments_exit_2(args: list[str]) -> None:
    p = run(*args)
    assert p.returncode == 2, p.stdout
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_help_and_module_entry() -> None:
    p = run("--help")
    assert p.returncode == 0
    for cmd in ("analyze", "score", "replay", "simulate", "scenario", "play"):
        assert cmd in p.stdout


# ---------------------------------------------------------------- honours (R1, revision 2)


def test_doudou_accepts_honours_and_lists_34_waits_r1() -> None:
    p = run(
        "analyze", "--profile", "fuzhou-doudou", "--gold", "9s", "123m456m789m123p55z11s", "--json"
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["waits"] == ["1s", "9s", "5z"] and out["honours"] == "playable"
    # an honour gold beside four melds: ready on every one of the 34 playable kinds
    p = run(
        "analyze", "--profile", "fuzhou-doudou", "--gold", "1z", "123m456m789m123p456p1z", "--json"
    )
    out = json.loads(p.stdout)
    assert len(out["waits"]) == 34 and out["any_tile_ready"] and out["waits"][-1] == "7z"
    # a winning hand with honour pongs, a gold standing for 5z
    p = run(
        "analyze",
        "--profile",
        "fuzhou-doudou",
        "--gold",
        "9s",
        "111z222z123m456m55z11s9s",
        "--json",
    )
    out = json.loads(p.stdout)
    assert out["win"] and out["shanten"] == -1
    melds = out["decompositions"][0]["melds"]
    assert {"type": "pong", "tiles": "555z", "golds": ["5z"]} in melds
    # human output names the honours
    p = run("analyze", "--profile", "fuzhou-doudou", "--gold", "9s", "111z222z123m456m55z11s9s")
    assert p.returncode == 0 and "胡牌" in p.stdout


@pytest.mark.parametrize("profile", ["fuzhou-tcy", "fuzhou-bianfeng", "sanming"])
def test_honours_stay_flowers_elsewhere_r1(profile: str) -> None:
    p = run("analyze", "--profile", profile, "--gold", "9s", "123m456m789m123p55z11s")
    assert p.returncode == 2 and "5z) is a flower" in p.stderr and "fuzhou-doudou" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and p.stdout == ""
    p = run("analyze", "--profile", profile, "--gold", "3z", "123m456m789m123p456p1s")
    assert p.returncode == 2 and "--gold: 3z is a flower" in p.stderr


def test_bonus_tiles_are_flowers_in_doudou_too_r1() -> None:
    p = run("analyze", "--profile", "fuzhou-doudou", "--gold", "9s", "123m456m789m123p55z1f")
    assert p.returncode == 2 and "(1f) is a flower" in p.stderr
    p = run("analyze", "--profile", "fuzhou-doudou", "--gold", "2f", "123m456m789m123p456p1s")
    assert p.returncode == 2 and "--gold: 2f is a flower" in p.stderr


# ---------------------------------------------------------------- bounded, hostile input


def test_batch_with_a_positional_hand_is_an_error() -> None:
    p = run("analyze", "--gold", "9s", "--batch", "123m456m789m234p55p678s", stdin="")
    assert p.returncode == 2 and "not both" in p.stderr and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1


def test_batch_huge_line_is_capped_not_held_in_memory() -> None:
    # 20 MB without a newline, then a good hand: the long line is refused, the next analysed
    data = b"1" * 20_000_000 + b"\n123m456m789m234p55p678s\n"
    p = subprocess.run(
        [*EXE, "analyze", "--gold", "9s", "--batch"], input=data, capture_output=True, check=False
    )
    assert p.returncode == 2
    err = p.stderr.decode()
    assert err.strip() == "fjmj: error: line 1: line longer than 4096 bytes (input cap)"
    lines = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert "input cap" in lines[0]["error"] and len(lines[0]["hand"]) < 200
    assert lines[1]["win"] is True


def test_batch_invalid_utf8_and_long_hand() -> None:
    data = b"\xff\xfe12m\n" + b"1m" * 100 + b"\n"
    p = subprocess.run(
        [*EXE, "analyze", "--gold", "9s", "--batch"], input=data, capture_output=True, check=False
    )
    assert p.returncode == 2
    err = p.stderr.decode().splitlines()
    assert err[0] == "fjmj: error: line 1: not UTF-8 text"
    assert "line 2: hand is 200 characters, more than the 128 accepted" in err[1]
    assert "Traceback" not in p.stderr.decode()


@pytest.mark.parametrize(
    "args",
    [
        ["--gold", "9s", "1" * 100_000],
        ["--gold", "9" * 10_000, "123m"],
        ["--gold", "9s", "--exposed", "9" * 10_000, "123m"],
        ["--gold", "9s", "--exposed", "-1", "123m"],
        ["--gold", "9s", "--profile", "x" * 10_000, "123m"],
        ["--gold", "9s", "--profile", "/proc/self/nonexistent.toml", "123m"],
        ["--gold", "9s", "--profile", "/tmp.toml", "123m"],
        ["--gold", "9s", "--profile", "bad\x7f.toml", "123m"],
        ["--gold", "\u00b2", "123m"],
        ["--gold", "9s", "[" * 50_000],
    ],
)
def test_hostile_arguments_one_line_exit_2(args: list[str]) -> None:
    p = run("analyze", *args)
    assert p.returncode == 2, p.stdout
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert p.stdout == "" and len(p.stderr) < 400


# Seeded fuzz of hostile input: in-process so hypothesis can try many inputs quickly; the
# subprocess tests above check the same contract through the real entry point.


def _inproc(argv: list[str], stdin: bytes = b"") -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    fake_in = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    with (
        mock.patch.object(sys, "stdin", fake_in),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code: object = main(argv)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


def _valid_hand(text: str, gold: int, honours: bool) -> bool:
    try:
        analyse(text.strip(), gold, 0, honours)
    except MahjongError:
        return False
    return bool(text.strip())


_junk = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="0123456789mpszf \t", max_size=60),
    st.builds(lambda c, n: c * n, st.sampled_from("19[{mz\udcff\x00"), st.integers(200, 20_000)),
    st.integers(-(10**30), 10**30).map(str),
)


@seed(20261130)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from(["hand", "gold", "exposed", "profile", "batch"]),
    junk=_junk,
    raw=st.binary(max_size=200),
    profile=st.sampled_from(["fuzhou-tcy", "fuzhou-doudou", "sanming"]),
)
def test_fuzz_analyze_hostile_input_exit_2_one_line(
    which: str, junk: str, raw: bytes, profile: str
) -> None:
    honours = profile == "fuzhou-doudou"
    argv = ["analyze", "--profile", profile, "--gold", "9s"]
    hand = "123m456m789m234p55p678s"
    stdin = b""
    if which == "hand":
        assume(not _valid_hand(junk, 26, honours))
        hand = junk
    elif which == "gold":
        try:
            parse_kind(junk)
            assume(False)
        except MahjongError:
            pass
        argv[-1] = junk
    elif which == "exposed":
        assume(junk.strip() not in {"0", "1", "2", "3", "4", "5", "00", "01", "02", "03", "04"})
        assume(junk.strip() not in {"05"})
        argv += ["--exposed", junk]
    elif which == "profile":
        assume(junk not in {"fuzhou-tcy", "fuzhou-doudou", "fuzhou-bianfeng", "sanming"})
        argv[2] = junk
    else:
        line = raw.split(b"\n")[0] + junk.encode("utf-8", "surrogatepass")[:5000]
        line = line.replace(b"\n", b"").replace(b"\r", b"")
        try:
            assume(not _valid_hand(line.decode("utf-8"), 26, honours))
            assume(line.decode("utf-8").strip() != "")
        except UnicodeDecodeError:
            pass
        stdin = line + b"\n"
        argv.append("--batch")
    if which != "batch":
        argv.append(hand)
    code, out, err = _inproc(argv, stdin)
    assert code == 2, (argv, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fjmj: error: "), err
    assert "Traceback" not in err and len(err) < 600
    if which == "batch":
        (obj,) = [json.loads(x) for x in out.splitlines()]
        assert obj["error"].startswith("line 1: ")
    else:
        assert out == ""
