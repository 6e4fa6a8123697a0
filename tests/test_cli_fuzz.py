"""Hostile input never gives a traceback (README, "Commands"): seeded hypothesis fuzzing of
``fjmj replay``, ``fjmj scenario`` and ``fjmj simulate``. Every bad input exits 2 with one
line on stderr and writes nothing.

The examples run in-process through ``main()`` (which is what the console script calls),
so hundreds of inputs cost seconds; a few of them also run as real processes to check that
no traceback reaches the terminal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from fujian_mahjong.cli.main import main

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
EXE = [sys.executable, "-m", "fujian_mahjong"]
ROOT = Path(__file__).resolve().parent.parent

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)

HOSTILE_TEXT = [
    "",
    "\n\n",
    "[" * 100_000,
    '{"a":' * 50_000,
    "9" * 10_000,
    '{"type":"start","players":Infinity}\n{"type":"end","seed":"x"}',
    '{"type":"start","players":NaN}',
    '{"type":"start","players":1e999}',
    "-" + "1" * 5000,
    '"\\ud800"',
    "x" * 200_000,
]
HOSTILE_BYTES = [b"\xff\xfe\x00", b"\x80abc", bytes(range(256)), b'{"type": "\xc3\x28"}']


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_bad_input(code: int, out: str, err: str, limit: int = 400) -> None:
    assert code == 2, (code, err[:300])
    assert "Traceback" not in err and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fjmj: error: "), err[:300]
    assert len(err) <= limit  # a short excerpt, never the whole input


def _files(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}


# ---------------------------------------------------------------------------- replay


replay_input = st.one_of(
    st.sampled_from(HOSTILE_TEXT).map(str.encode),
    st.sampled_from(HOSTILE_BYTES),
    st.binary(max_size=200),
    st.lists(json_value, max_size=5).map(lambda xs: "\n".join(json.dumps(x) for x in xs).encode()),
    st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
)


@seed(14)
@SETTINGS
@given(data=replay_input)
def test_fuzz_replay(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "in.jsonl"
    f.write_bytes(data)
    before = _files(tmp_path)
    code, out, err = _run(["replay", str(f)], capsys)
    _assert_bad_input(code, out, err)
    assert _files(tmp_path) == before


# ---------------------------------------------------------------------------- scenario

BASE = json.loads((ROOT / "scenarios/r6-chow-next-seat-only.json").read_text(encoding="utf-8"))
BAD_VALUES = st.one_of(
    st.booleans(),
    st.just(10**40),
    st.just(-1),
    st.just(1.5),
    st.dictionaries(st.text(max_size=3), json_leaf, min_size=1, max_size=2),
    st.lists(json_leaf, min_size=1, max_size=3).filter(
        lambda x: (
            not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in x)
            or len(x) != 2
        )
    ),
    st.text(min_size=1, max_size=5).filter(lambda s: not s.isascii()),
)


@st.composite
def bad_scenario(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["field", "deal_key", "specials", "raw", "bytes", "action_seat"]))
    sc = json.loads(json.dumps(BASE))
    if kind == "field":
        fld = draw(st.sampled_from(["players", "dealer", "streak", "dice"]))
        sc[fld] = draw(BAD_VALUES)
    elif kind == "deal_key":
        k = draw(st.sampled_from(["²", "٣", "-1", "9", "01x", "", "0 "]))
        sc["deal"][k] = sc["deal"].pop("3")
    elif kind == "specials":
        sc["expect"]["score"] = {
            "specials": draw(
                st.lists(json_value, min_size=1, max_size=3).filter(
                    lambda xs: not all(isinstance(x, str) for x in xs)
                )
            )
        }
    elif kind == "action_seat":
        sc["actions"][0]["seat"] = draw(st.sampled_from([True, False, 7, -1, "0", 0.0, None]))
    elif kind == "raw":
        return draw(st.sampled_from(HOSTILE_TEXT)).encode()
    else:
        return draw(st.sampled_from(HOSTILE_BYTES))
    return json.dumps(sc, ensure_ascii=False).encode()


@seed(14)
@SETTINGS
@given(data=bad_scenario())
def test_fuzz_scenario(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "sc.json"
    f.write_bytes(data)
    before = _files(tmp_path)
    code, out, err = _run(["scenario", str(f)], capsys)
    _assert_bad_input(code, out, err)
    assert _files(tmp_path) == before


# ---------------------------------------------------------------------------- simulate


@st.composite
def bad_simulate_args(draw: st.DrawFn) -> list[str]:
    opt = draw(
        st.sampled_from(["--hands", "--workers", "--seed", "--players", "--profile", "--log-dir"])
    )
    if opt == "--hands":
        v = draw(
            st.one_of(
                st.integers(max_value=0).map(str),
                st.integers(min_value=10**12 + 1).map(str),
                st.sampled_from(["1e13", "inf", "nan", "1.5", "", "9" * 5000, "0x10", "１０"]),
                st.text(max_size=6).filter(lambda s: not s.strip().isdigit()),
            )
        )
    elif opt == "--workers":
        v = draw(
            st.one_of(
                st.integers(max_value=0).map(str),
                st.integers(min_value=257).map(str),
                st.sampled_from(["two", "1e400", "-0.5"]),
            )
        )
    elif opt == "--seed":
        v = draw(st.sampled_from(["\udcff", "ab\udc80cd", "x" * 201]))
    elif opt == "--players":
        v = draw(
            st.one_of(
                st.sampled_from(
                    ["", ",,,", "random", "random," * 5, "wizard,random,random,random", "\udcff"]
                ),
                st.text(min_size=1, max_size=10).filter(
                    lambda s: s.strip(", ") not in ("random", "heuristic")
                ),
            )
        )
    elif opt == "--profile":
        v = draw(st.sampled_from(["nope", "", "x.toml", "/proc/x.toml", "\udcff.toml", "fuzhou"]))
    else:
        v = "FILE"  # replaced by a path to an existing file below
    return ["simulate", "--hands", "1", "--no-progress", opt, v]


@seed(14)
@SETTINGS
@given(args=bad_simulate_args())
def test_fuzz_simulate(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    args = [str(blocker / "logs") if a == "FILE" else a for a in args]
    if "--log-dir" not in args:
        args += ["--log-dir", str(tmp_path / "logs")]
    before = _files(tmp_path)
    code, out, err = _run(args, capsys)
    _assert_bad_input(code, out, err)
    assert _files(tmp_path) == before  # nothing written: not even the log directory


def test_hostile_input_through_real_processes(tmp_path: Path) -> None:
    """No traceback reaches the terminal, and memory stays small for absurd sizes."""
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\xfa")
    for args in (
        ["replay", str(deep)],
        ["scenario", str(binary)],
        ["simulate", "--seed", "\udcff", "--hands", "1"],
        ["simulate", "--hands", "1e12", "--workers", "2", "--log-dir", str(binary)],
    ):
        p = subprocess.run([*EXE, *args], capture_output=True, check=False, timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        assert p.returncode == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
