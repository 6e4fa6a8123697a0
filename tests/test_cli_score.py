"""``fjmj score`` as a user meets it (docs/scoring.md; README, "Commands"):
aligned, fully labelled breakdowns in zh and en, the bianfeng ×2 step (R10 rev. 2), errors
naming the field at fault, and hostile input answered by one line and exit 2."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from fujian_mahjong.cli.main import main
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.tiles import parse, parse_kind

SPARROW = "234m567m345s678s789s5p5p"  # gold 5p: two golds as the pair (金雀)

# R10 rev. 2: bianfeng 金雀 on a discard. H = fl 1 + G 2 = 3, L = 2, b = 1:
# P = b(m + L) + 2bH = 62 + 6 = 68; the discarder pays 2P = 136.
BIANFENG_DISCARD = {
    "profile": "fuzhou-bianfeng",
    "gold": "5p",
    "seats": 4,
    "dealer": 0,
    "winner": 2,
    "discarder": 1,
    "win": "discard",
    "hand": SPARROW,
    "winning_tile": "9s",
    "melds": [],
    "flowers": "1f",
    "streak": 2,
}

VALID: list[dict[str, Any]] = [
    BIANFENG_DISCARD,
    {**BIANFENG_DISCARD, "win": "self_draw", "discarder": None},
    {
        "profile": "fuzhou-doudou",
        "gold": "5p",
        "seats": 4,
        "dealer": 0,
        "winner": 1,
        "discarder": None,
        "win": "self_draw",
        "hand": "234m567m345s678s1z1z5p7z7z",
        "winning_tile": "7z",
        "melds": [{"type": "pong", "tiles": "444z"}],
        "flowers": "1f",
        "streak": 0,
    },
    {
        "profile": "sanming",
        "gold": "2p",
        "seats": 3,
        "dealer": 0,
        "winner": 2,
        "discarder": 1,
        "win": "discard",
        "hand": "123m789m456p345s2p9s",
        "winning_tile": "9s",
        "melds": [{"type": "pong", "tiles": "666s"}],
        "flowers": "1f2f",
        "streak": 1,
        "base": 5,
        "jinkan_declared": False,
    },
]
VALID[2]["hand"] = "234m567m345s1z1z5p7z7z"  # 14 tiles beside the pong (R7)


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """``fjmj`` in process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(args)
    return rc, out.getvalue(), err.getvalue()


def write(tmp: Path, name: str, data: bytes | str) -> str:
    p = tmp / name
    p.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return str(p)


def assert_one_line_error(rc: int, out: str, err: str) -> None:
    assert rc == 2, (rc, err)
    assert out == ""  # nothing written
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("fjmj: error: ") and "Traceback" not in err, err
    assert len(err) < 400


# ------------------------------------------------------------------ output


@pytest.mark.parametrize("data", VALID, ids=[d["profile"] + "-" + d["win"] for d in VALID])
def test_valid_situations_score(tmp_path: Path, data: dict[str, Any]) -> None:
    rc, out, err = run_cli(["score", "--json", write(tmp_path, "s.json", json.dumps(data))])
    assert rc == 0 and err == ""
    got = json.loads(out)
    assert sum(got["payments"]) == 0 and got["points"] > 0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_text_breakdown_aligned_by_display_width_and_labelled(tmp_path: Path, lang: str) -> None:
    """Rows align on the terminal (CJK cells count 2); every row has a label."""
    path = write(tmp_path, "s.json", json.dumps(BIANFENG_DISCARD))
    rc, out, _ = run_cli(["score", "--lang", lang, path])
    assert rc == 0
    lines = out.rstrip("\n").split("\n")
    numeric = [ln for ln in lines if ln.split()[-1].lstrip("-").isdigit()]
    assert len(numeric) >= 12
    # the numbers end in one column, measured in terminal cells
    assert len({cell_len(ln) for ln in numeric}) == 1, lines

    # labels are padded to one width: names and payments start in the same cell
    def value_start(ln: str) -> int:
        i = ln.index("  ")
        return cell_len(ln[:i]) + len(ln[i:]) - len(ln[i:].lstrip(" "))

    widest = max(cell_len(ln.split("  ")[0]) for ln in lines)
    text_rows = [ln for ln in lines if ln not in numeric]
    assert text_rows and {value_start(ln) for ln in text_rows} == {widest + 2}, lines
    assert all(value_start(ln) >= widest + 2 for ln in numeric)
    for ln in lines:
        label = ln.split("  ")[0].strip()
        assert label and not label.replace("-", "").isdigit(), ln  # a real label, not a bare number


def test_bianfeng_discard_special_shows_the_doubling(tmp_path: Path) -> None:
    """R10 rev. 2: the discarder pays 2P; points is what the discarder pays."""
    path = write(tmp_path, "s.json", json.dumps(BIANFENG_DISCARD))
    rc, out, _ = run_cli(["score", "--json", path])
    assert rc == 0
    got = json.loads(out)
    assert got["points"] == 136 and got["payments"] == [0, -136, 136, 0]
    rows = {t["key"]: t["value"] for t in got["breakdown"]}
    assert rows["winner_points"] == 68 and rows["discard_doubled"] == 136
    assert rows["total_discard"] == 136
    _, zh, _ = run_cli(["score", path])
    assert "放胡×2" in zh and "胡牌积分" in zh and "得分（放胡者付）" in zh
    _, en, _ = run_cli(["score", "--lang", "en", path])
    assert "discard win x2" in en and "winner's points" in en and "the discarder pays" in en
    # self-drawn: unchanged, each pays P (no doubling row)
    path = write(tmp_path, "t.json", json.dumps(VALID[1]))
    got = json.loads(run_cli(["score", "--json", path])[1])
    assert got["points"] == 68 and got["payments"] == [-68, -68, 204, -68]
    assert "discard_doubled" not in {t["key"] for t in got["breakdown"]}


# ------------------------------------------------------------------ errors name the field


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"win": "heavenly", "discarder": None, "winner": 2}, "'winner'"),  # 天胡 by a non-dealer
        ({"winning_tile": "5p", "hand": "234m567m345s678s789s5p5p"}, "'winning_tile'"),  # R5
        ({"win": "three_golds", "discarder": None}, "'hand'"),  # two golds only
        ({"win": "rob_kong", "discarder": None}, "'win'"),  # no 抢杠 in bianfeng (D-16)
        ({"win": "rob_gold", "discarder": None}, "'winning_tile'"),  # robbed tile 9s != gold
        ({"seats": 10**20}, "'seats'"),
        ({"base": 10**20}, "'base'"),
        ({"base": 0}, "'base'"),
        ({"dealer": -(10**20)}, "'dealer'"),
        ({"melds": [{"type": "pong", "tiles": "1z1z1z"}]}, "'melds[0].tiles'"),
        ({"hand": "234m567m345s678s789s5p1z"}, "'hand'"),  # an honour is a flower here
        ({"flowers": "1m"}, "'flowers'"),
        ({"gold": "9z"}, "'gold'"),
    ],
)
def test_errors_name_the_field_at_fault(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    path = write(tmp_path, "s.json", json.dumps({**BIANFENG_DISCARD, **change}))
    rc, out, err = run_cli(["score", path])
    assert_one_line_error(rc, out, err)
    assert f"field {field}" in err or f"fields {field}" in err, err


# ------------------------------------------------------------------ hostile input


def _hostile_files(tmp: Path) -> list[str]:
    big = json.dumps({**BIANFENG_DISCARD, "pad": "x" * (1 << 21)})
    fifo = tmp / "fifo.json"
    if not fifo.exists():
        os.mkfifo(fifo)
    return [
        write(tmp, "deep.json", "[" * 100_000 + "]" * 100_000),
        write(tmp, "deepobj.json", '{"a":' * 100_000 + "1" + "}" * 100_000),
        write(tmp, "digits.json", '{"profile": "fuzhou-tcy", "seats": ' + "9" * 10_000 + "}"),
        write(tmp, "inf.json", json.dumps({**BIANFENG_DISCARD, "base": float("inf")})),
        write(tmp, "nan.json", '{"profile": "fuzhou-tcy", "seats": NaN}'),
        write(tmp, "utf8.json", b'{"profile": "fuzhou-\xff\xfe"}'),
        write(tmp, "bin.json", bytes(range(256)) * 4),
        write(tmp, "big.json", big),
        write(tmp, "empty.json", ""),
        write(tmp, "surrogate.json", '{"profile": "\\ud800.toml"}'),
        str(fifo),
        str(tmp),  # a directory
        str(tmp / "missing.json"),
        "/dev/zero",
    ]


def test_hostile_files_give_one_line_and_exit_2(tmp_path: Path) -> None:
    for path in _hostile_files(tmp_path):
        rc, out, err = run_cli(["score", path])
        assert_one_line_error(rc, out, err)


def test_hostile_input_in_a_real_process_has_no_traceback(tmp_path: Path) -> None:
    """The same through the console entry point (stdin, a real interpreter)."""
    exe = [sys.executable, "-m", "fujian_mahjong", "score", "-"]
    for data in (
        b"[" * 100_000,
        json.dumps({**BIANFENG_DISCARD, "seats": 10**40}).encode(),
        b'{"profile": "fuzhou-tcy", "base": ' + b"7" * 5000 + b"}",
        b"\xff\xfe\xfd",
        b" " * (2 << 20),
    ):
        p = subprocess.run(exe, input=data, capture_output=True, check=False, timeout=60)
        err = p.stderr.decode()
        assert_one_line_error(p.returncode, p.stdout.decode(), err)


# -------- seeded fuzz (hypothesis): corrupt one field of a valid situation with a bad value


def _unparseable(t: str) -> bool:
    try:
        parse(t)
    except MahjongError:
        return True
    return False


def _not_a_kind_in(hand: str) -> Any:
    kinds = set(parse(hand))

    def ok(t: str) -> bool:
        try:
            return parse_kind(t) not in kinds
        except MahjongError:
            return True

    return ok


HUGE = st.one_of(st.integers(min_value=10**6 + 1, max_value=10**28), st.integers(-(10**28), -1))
NOT_INT = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
ANY = st.one_of(NOT_INT, HUGE, st.none())


def bad_values(field: str, base: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values that make ``field`` invalid in ``base`` (so the whole input must fail)."""
    seats = base["seats"]
    if field == "profile":
        return st.one_of(
            st.text(max_size=30).filter(lambda t: t not in BUILTIN), NOT_INT, HUGE, st.none()
        )
    if field == "seats":
        return st.one_of(st.integers(-(10**28), 1), st.integers(5, 10**28), NOT_INT)
    if field in ("dealer", "winner"):
        bad = st.one_of(st.integers(seats, 10**28), st.integers(-(10**28), -1), NOT_INT)
        return st.one_of(bad, st.none()) if field == "winner" else bad
    if field == "streak":
        return st.one_of(st.integers(10_001, 10**28), st.integers(-(10**28), -1), NOT_INT)
    if field == "base":
        return st.one_of(st.integers(-(10**28), 0), st.integers(10**6 + 1, 10**28), NOT_INT)
    if field == "win":
        return st.one_of(st.text(max_size=20), HUGE, st.none()).filter(
            lambda v: v not in ("discard", "self_draw", "last_group", "draw")
        )
    if field in ("hand", "flowers"):
        return st.one_of(
            st.text(max_size=40).filter(_unparseable),
            st.text(alphabet="0123456789mpszf ", min_size=200, max_size=400),
            HUGE,
            st.lists(st.text(max_size=3), min_size=1, max_size=3),
            st.dictionaries(st.text(max_size=3), st.text(max_size=3), min_size=1, max_size=2),
        )
    if field == "gold":
        return st.one_of(
            st.text(max_size=20).filter(_unparseable), st.sampled_from(["1f", "8f"]), ANY
        )
    if field == "winning_tile":
        return st.one_of(st.text(max_size=20).filter(_not_a_kind_in(base["hand"])), NOT_INT, HUGE)
    if field == "melds":
        meld = st.fixed_dictionaries(
            {
                "type": st.one_of(st.text(max_size=8), ANY),
                "tiles": st.one_of(st.text(max_size=12), ANY),
            }
        )
        return st.one_of(
            st.lists(meld, min_size=1, max_size=7), st.text(max_size=10), HUGE, st.booleans()
        )
    if field == "discarder":  # base is a discard win: the discarder must be another seat
        return st.one_of(st.integers(seats, 10**28), st.just(base["winner"]), NOT_INT, st.none())
    if field == "jinkan_declared":
        return st.one_of(st.integers(), st.text(max_size=5), st.lists(st.booleans(), max_size=2))
    raise AssertionError(field)


FIELDS = [
    "profile",
    "seats",
    "dealer",
    "winner",
    "streak",
    "base",
    "win",
    "hand",
    "flowers",
    "gold",
    "winning_tile",
    "melds",
    "discarder",
    "jinkan_declared",
]


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(st.data())
def test_fuzz_bad_fields_one_line_exit_2(fuzz_dir: Path, data: st.DataObject) -> None:
    """Hostile input: a seeded fuzz of `fjmj score`: exit 2, one line, no traceback,
    nothing on standard output."""
    base = dict(data.draw(st.sampled_from([BIANFENG_DISCARD, VALID[3]])))
    field = data.draw(st.sampled_from(FIELDS))
    base[field] = data.draw(bad_values(field, base))
    text = json.dumps(base, ensure_ascii=data.draw(st.booleans()))
    rc, out, err = run_cli(["score", write(fuzz_dir, "f.json", text)])
    assert_one_line_error(rc, out, err)
    if os.environ.get("FUZZ_LOG"):
        with open(os.environ["FUZZ_LOG"], "a") as f:
            f.write(field + "\t" + err)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.binary(max_size=300))
def test_fuzz_arbitrary_bytes_one_line_exit_2(fuzz_dir: Path, raw: bytes) -> None:
    rc, out, err = run_cli(["score", write(fuzz_dir, "b.json", raw)])
    assert_one_line_error(rc, out, err)
