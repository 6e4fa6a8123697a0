"""Rule scenarios (R3–R8): every shipped scenario passes; the runner reports failures clearly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.errors import ScenarioError
from fujian_mahjong.scenario import load_scenarios, parse_scenario, run_scenario

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "scenarios").glob("*.json*"))
ALL = [(f, sc) for f in SHIPPED for sc in load_scenarios(f)]


@pytest.mark.parametrize(("path", "sc"), ALL, ids=[f"{f.name}:{sc.name}" for f, sc in ALL])
def test_shipped_scenario_passes(path: Path, sc: Any) -> None:
    out = run_scenario(sc)
    bad = [f"{c.check}: {c.detail}" for c in out.checks if not c.ok]
    assert not bad, bad
    assert out.checks, "a scenario must check something"


def test_every_rule_section_has_scenarios() -> None:
    names = " ".join(sc.name for _, sc in ALL)
    for sec in ("R1", "R3", "R4", "R5", "R6", "R7", "R8", "R10"):
        assert sec in names
    # rules revision 2 (RULES.md): every change the scenarios can show has one
    rev2 = [sc for _, sc in ALL if "revision 2" in sc.name]
    for sec in ("R1", "R5", "R6", "R8", "R8.4", "R10"):
        assert any(sec in sc.name for sc in rev2), sec
    profiles = {sc.profile for _, sc in ALL}
    assert profiles == {"fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming"}


def _one() -> dict[str, Any]:
    return json.loads((ROOT / "scenarios/r3-deal-counts-tcy.json").read_text())


def test_wrong_expectation_fails_naming_the_check() -> None:
    data = json.loads((ROOT / "scenarios/r6-claim-priority.jsonl").read_text().splitlines()[0])
    data["expect"]["score"]["points"] = 41
    out = run_scenario(parse_scenario(data))
    assert not out.passed
    failed = [c for c in out.checks if not c.ok]
    assert [c.check for c in failed] == ["score"]
    assert "points: expected 41, got 40" in failed[0].detail


def _run_cli(tmp_path: Path, data: Any, *args: str) -> subprocess.CompletedProcess[str]:
    f = tmp_path / "s.json"
    f.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return subprocess.run(
        [sys.executable, "-m", "fujian_mahjong", "scenario", str(f), *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d["deal"].update({"0": d["deal"]["0"][:-2] + "x"}), "bad character 'x'"),
        (lambda d: d["deal"].update({"1": "5555m56789m1234567p"}), "too many copies of 5m"),
        (lambda d: d["deal"].update({"2": "123m"}), "must be dealt 16 tiles"),
        (lambda d: d.update(actions=[{"seat": 0, "do": "dance"}]), "unknown action 'dance'"),
        (lambda d: d.update(tail="1f1f9p"), "too many copies of 1f"),
        (lambda d: d.update(profile="nope"), "unknown profile"),
    ],
)
def test_invalid_files_exit_2_with_one_line(tmp_path: Path, change: Any, needle: str) -> None:
    d = _one()
    change(d)
    p = _run_cli(tmp_path, d)
    assert p.returncode == 2, p.stdout + p.stderr
    assert needle in p.stderr
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_bad_json_exits_2(tmp_path: Path) -> None:
    p = _run_cli(tmp_path, "{nope")
    assert p.returncode == 2 and "not valid JSON" in p.stderr


def test_action_by_wrong_seat_is_a_failing_check(tmp_path: Path) -> None:
    d = _one()
    d["actions"] = [{"seat": 2, "do": "discard", "tile": "8p"}]
    d["expect"] = {}
    p = _run_cli(tmp_path, d, "--lang", "en")
    assert p.returncode == 1
    assert "action 1: seat 2 acts (discard 8p) but it is seat 0's turn" in p.stdout
    assert "Traceback" not in p.stderr


def test_json_output_and_trace(tmp_path: Path) -> None:
    data = json.loads((ROOT / "scenarios/r6-claim-priority.jsonl").read_text().splitlines()[0])
    p = _run_cli(tmp_path, data, "--json")
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert out["passed"] is True and out["result"]["winner"] == 0
    assert out["score"] == {"points": 40, "payments": [40, -40, 0, 0]}
    assert {"check", "ok", "detail"} <= set(out["checks"][0])
    p = _run_cli(tmp_path, data, "--trace", "--lang", "en")
    assert "seat 1 discards 5m" in p.stdout and "wins on a discard" in p.stdout


def test_players_outside_profile_rejected() -> None:
    d = _one()
    d["players"] = 3
    with pytest.raises(ScenarioError, match="'players'"):
        parse_scenario(d)


def test_docs_scenarios_pass() -> None:
    text = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    blocks = [json.loads(b.split("```", 1)[0]) for b in text.split("```json\n")[1:]]
    assert len(blocks) == 5
    for b in blocks:
        out = run_scenario(parse_scenario(b, "docs/scenarios.md"))
        assert out.passed, [c for c in out.checks if not c.ok]


def test_mangled_scenarios_never_crash() -> None:
    """Seeded fuzzing: any mangled scenario is rejected (ScenarioError) or runs; no traceback."""
    import copy
    import random

    from fujian_mahjong.errors import MahjongError

    base = [sc.data for _, sc in ALL]
    rng = random.Random(0)
    values: list[Any] = [
        None,
        0,
        -1,
        5,
        99,
        "x",
        "1m",
        "",
        [],
        {},
        [1],
        {"a": 1},
        True,
        "999m",
        {"0": "1m"},
    ]

    def mutate(d: Any, depth: int = 0) -> None:
        if isinstance(d, dict) and d:
            k = rng.choice(list(d))
            if rng.random() < 0.5 or depth > 3:
                d[k] = rng.choice(values)
            else:
                mutate(d[k], depth + 1)
        elif isinstance(d, list) and d:
            i = rng.randrange(len(d))
            if rng.random() < 0.5 or depth > 3:
                d[i] = rng.choice(values)
            else:
                mutate(d[i], depth + 1)

    ran = rejected = 0
    for _ in range(1500):
        d = copy.deepcopy(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            mutate(d)
        try:
            sc = parse_scenario(d)
        except MahjongError:
            rejected += 1
            continue
        run_scenario(sc)
        ran += 1
    assert ran > 100 and rejected > 100


def test_pending_seat_whose_next_action_is_not_an_answer_passes_automatically() -> None:
    """Seat 2 may win on seat 1's discard, but the script's next action by seat 2 is its own
    turn's 三金倒: the runner passes seat 2's answer automatically."""
    lines = (ROOT / "scenarios/r8-window-a.jsonl").read_text().splitlines()
    data = next(json.loads(x) for x in lines if "declined, then declared" in x)
    data["actions"] = [a for a in data["actions"] if a["do"] != "pass" or a["seat"] != 2]
    data["actions"].insert(0, {"seat": 2, "do": "pass"})  # window A: declines 三金倒
    data["expect"]["legal"][0]["before"] = 4
    out = run_scenario(parse_scenario(data))
    assert out.passed, [c for c in out.checks if not c.ok]


def test_a_win_on_the_dealers_first_discard_is_taken_as_rob_gold() -> None:
    lines = (ROOT / "scenarios/r8-rob-gold.jsonl").read_text().splitlines()
    data = json.loads(lines[2])  # sanming: seat 3 robs after the dealer's plain discard
    data["actions"][1]["do"] = "win"
    out = run_scenario(parse_scenario(data))
    assert out.passed, [c for c in out.checks if not c.ok]
