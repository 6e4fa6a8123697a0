"""`fjmj analyze` (R7) and the CLI basics: JSON contract, human output, batch, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
