"""Faults with small real processes and signals: SIGTERM and Ctrl-C stop
``simulate``'s workers, a killed worker is named, a full disk or a removed log directory is
one line with no partial log files, FIFOs are refused, errors echo only a short excerpt,
and memory stays bounded for ``--hands 1e12``."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fujian_mahjong.cli.replay import parse_log, verify
from tests.serving import START_CEILING_S

EXE = [sys.executable, "-m", "fujian_mahjong"]
ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_simulate(*extra: str) -> tuple[subprocess.Popen[bytes], list[int]]:
    p = subprocess.Popen(
        [*EXE, "simulate", "--hands", "1e12", "--workers", "2", "--no-progress", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        start_new_session=True,
        # as from a terminal: a shell that starts a job in the background (`cmd &` without
        # job control, as some CI runners do) passes SIGINT on ignored, and Python then
        # keeps it ignored — Ctrl-C would not reach the simulator at all
        preexec_fn=_sigint_default,
    )
    deadline = time.monotonic() + START_CEILING_S  # bounds a hung start-up only
    kids: list[int] = []
    while time.monotonic() < deadline:
        kids = _children(p.pid)
        if len(kids) >= 2:
            break
        time.sleep(0.1)
    assert len(kids) >= 2, "the workers did not start"
    time.sleep(0.5)  # let them play a little
    return p, kids


def _one_line(p: subprocess.Popen[bytes], code: int) -> str:
    _, err_b = p.communicate(timeout=30)
    err = err_b.decode()
    assert p.returncode == code, (p.returncode, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("how", "code", "words"),
    [("term", 143, "SIGTERM"), ("int", 130, "Ctrl-C")],
)
def test_signal_stops_the_workers(how: str, code: int, words: str) -> None:
    p, kids = _start_simulate()
    if how == "term":
        p.send_signal(signal.SIGTERM)
    else:
        os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    err = _one_line(p, code)
    assert words in err and "worker processes stopped" in err
    deadline = time.monotonic() + 5
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(k) for k in kids), "orphaned workers"


def test_a_killed_worker_is_named_and_memory_stays_bounded() -> None:
    p, kids = _start_simulate()
    rss_kb = int(
        next(
            x
            for x in Path(f"/proc/{p.pid}/status").read_text().splitlines()
            if x.startswith("VmRSS")
        ).split()[1]
    )
    assert rss_kb < 200_000  # --hands 1e12: nothing is allocated per hand
    os.kill(kids[0], signal.SIGKILL)
    err = _one_line(p, 1)
    assert f"worker process {kids[0]} was killed by SIGKILL" in err
    time.sleep(0.3)
    assert not any(_alive(k) for k in kids)


def test_workers_exit_when_the_simulator_is_killed() -> None:
    p, kids = _start_simulate()
    try:
        p.kill()  # SIGKILL: no cleanup runs, nothing tells the workers (fujian_mahjong/procs.py)
        p.communicate(timeout=10)
        deadline = time.monotonic() + 20
        while any(_alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(k) for k in kids), "workers outlived their killed simulator"
    finally:
        for k in kids:  # a failed run leaves nothing behind
            with contextlib.suppress(OSError):
                os.kill(k, signal.SIGKILL)


def test_log_dir_removed_mid_run(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    p = subprocess.Popen(
        [*EXE, "simulate", "--hands", "100000", "--no-progress", "--log-dir", str(logs)],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=ENV,
    )
    deadline = time.monotonic() + START_CEILING_S  # bounds a hung start-up only
    while time.monotonic() < deadline and len(list(logs.glob("*.jsonl"))) < 3:
        time.sleep(0.05)
    assert len(list(logs.glob("*.jsonl"))) >= 3, "the simulator wrote no logs"
    # one atomic step (rmtree unlinks file by file and can lose its race with a fast writer
    # for ever): from now on the directory is gone for the simulator
    os.rename(logs, tmp_path / "gone")
    err = _one_line(p, 1)
    assert "cannot write" in err and str(logs) in err
    assert not logs.exists()


def _limit_file_size() -> None:
    # a "full disk" for this process: writing past 6 KB (a hand log is 2-10 KB) fails with
    # EFBIG instead of a signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (6_000, 6_000))


def test_full_disk_leaves_no_partial_log(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    p = subprocess.Popen(
        [
            *EXE,
            "simulate",
            "--hands",
            "300",
            "--players",
            "random,random,random,random",
            "--no-progress",
            "--log-dir",
            str(logs),
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=ENV,
        preexec_fn=_limit_file_size,
    )
    err = _one_line(p, 1)
    assert "cannot write" in err and "File too large" in err
    assert not [f for f in logs.iterdir() if not f.name.endswith(".jsonl")]  # no temp files
    written = sorted(logs.glob("*.jsonl"))
    for f in written:  # every log that exists is whole and verifies
        assert verify(parse_log(f.read_text(encoding="utf-8"), f.name)) is None


def test_fifo_is_refused_and_errors_echo_a_short_excerpt(tmp_path: Path) -> None:
    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)
    for args in (
        ["replay", str(fifo)],
        ["scenario", str(fifo)],
        ["simulate", "--profile", str(fifo), "--hands", "1"],
        ["review", str(fifo), "--seat", "0"],
    ):
        p = subprocess.run([*EXE, *args], capture_output=True, text=True, timeout=20, check=False)
        assert p.returncode == 2 and "not a regular file" in p.stderr, (args, p.stderr)
        assert len(p.stderr.splitlines()) == 1
    big = tmp_path / "big.jsonl"
    big.write_text("Q" * 5_000_000 + "\n")
    p = subprocess.run([*EXE, "replay", str(big)], capture_output=True, text=True, check=False)
    assert p.returncode == 2 and len(p.stderr) < 300 and "QQQQQQQQQQ" not in p.stderr
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as f:
        f.truncate(11 * 1024 * 1024)
    p = subprocess.run([*EXE, "replay", str(huge)], capture_output=True, text=True, check=False)
    assert p.returncode == 2 and "too large" in p.stderr


def test_json_booleans_are_not_numbers_in_scenarios(tmp_path: Path) -> None:
    f = tmp_path / "b.json"
    f.write_text(
        '{"deal": {"0": "123m456m789m123p45p99s1s"}, "dealer": true, "players": 4}',
        encoding="utf-8",
    )
    p = subprocess.run([*EXE, "scenario", str(f)], capture_output=True, text=True, check=False)
    assert p.returncode == 2 and "field 'dealer'" in p.stderr


def test_a_profile_file_is_read_as_every_other_input(tmp_path: Path) -> None:
    """A profile named inside a scenario or given to ``analyze``, that is a FIFO (it hung),
    not UTF-8 (a traceback's "internal error"), a directory (named twice); and standard
    input closed (``<&-``): one line, exit 2."""
    fifo = tmp_path / "p.toml"
    os.mkfifo(fifo)
    binary = tmp_path / "b.toml"
    binary.write_bytes(b"\xff\xfe")
    (tmp_path / "d.toml").mkdir()
    scen = tmp_path / "s.json"
    scen.write_text(json.dumps({"profile": str(fifo)}), encoding="utf-8")
    hand = ["analyze", "123456789m1234p", "--gold", "5p", "--profile"]
    for args, words in (
        (["scenario", str(scen)], "not a regular file"),
        ([*hand, str(binary)], "not UTF-8 text"),
        ([*hand, str(tmp_path / "d.toml")], "d.toml: is a directory"),
    ):
        p = subprocess.run([*EXE, *args], capture_output=True, text=True, timeout=20, check=False)
        assert p.returncode == 2 and words in p.stderr, (args, p.stderr)
        assert len(p.stderr.splitlines()) == 1 and "internal error" not in p.stderr
    for args in (["analyze", "--batch", "--gold", "5p"], ["score", "-"], ["replay", "-"]):
        p = subprocess.run(
            [*EXE, *args],
            stdin=None,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
            preexec_fn=lambda: os.close(0),
        )
        assert p.returncode == 2 and "standard input is closed" in p.stderr, (args, p.stderr)
