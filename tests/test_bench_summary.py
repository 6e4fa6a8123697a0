"""bench/bench_server.py's summary of an A/B run (docs/architecture.md, "Measured limits"):
every run's figures per build and cell, the targets counted only at 200 human tables on one
process and for bot-only tables, and a run that measured nothing (nan) printed, not fatal."""

from __future__ import annotations

import math
from typing import Any

import pytest

from bench import bench_server as bs


def _human(cpu: float, p99: float, procs: int = 1) -> dict[str, Any]:
    return {
        "cpu_ms": cpu,
        "notice_p99": p99,
        "lag_p99": math.nan if math.isnan(p99) else 4.0,
        "gc_max_ms": [20.0, 41.5, 0.0],
        "kib_per_table": 280.0,
        "load": "0.9 1.0 1.1",
        "procs": procs,
    }


def test_the_summary_counts_the_targets_where_they_apply(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen = {
        (" (previous build)", "sqlite bot-only"): [
            {"rate": 3600.0, "cpu_ms": 0.3},
            {"rate": 2000.0, "cpu_ms": 0.5},
        ],
        (" (previous build)", "sqlite 200"): [_human(0.9, 40.0), _human(1.2, math.nan)],
        ("", "sqlite 100"): [_human(0.5, 10.0)],
        ("", "pg+redis x2 200"): [_human(0.5, 10.0, procs=2)],
    }
    bs._summary(seen)
    out = capsys.readouterr().out.splitlines()
    assert out[1] == (
        "  previous build, sqlite bot-only: decisions/s [3600, 2000] (>= 3,500 in 1 of 2); "
        "CPU ms/decision [0.3, 0.5]"
    )
    # a run that timed no discard: None, and it misses the p99 target
    assert out[2].startswith(
        "  previous build, sqlite 200 tables (CPU <= 1.0 ms in 1 of 2, p99 < 50 ms in 1 of 2):"
        " CPU ms/decision [0.9, 1.2]; notice p99 ms [40, None]; lag p99 [4, None] ms;"
        " longest GC pause [41.5, 41.5] ms"
    )
    # other cells: their figures, no target counted
    assert out[3].startswith("  this build, sqlite 100 tables: CPU ms/decision [0.5]")
    assert out[4].startswith("  this build, pg+redis x2 200 tables: CPU ms/decision [0.5]")


def test_runs_below_one_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as e:
        bs.main(["--runs", "0"])
    assert e.value.code == 2
    assert "--runs must be at least 1, got 0" in capsys.readouterr().err
