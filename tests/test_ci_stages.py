"""The Makefile's test stages and the serial stage's groups agree (tests/conftest.py,
``SERIAL_GROUPS``): every module of the serial stage is in a group — one left out would be
handed to either worker and could run beside a browser, which starves it on a 2-core
machine — and every grouped module is in the serial stage and exists; the parallel stage's
groups (``PARALLEL_GROUPS``: the Ray tests, one instance at a time) are not."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import PARALLEL_GROUPS, SERIAL_GROUPS

ROOT = Path(__file__).resolve().parent.parent


def _serial() -> list[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    m = re.search(r"^SERIAL := ((?:.*\\\n)*.*)$", text, re.MULTILINE)
    assert m, "the Makefile defines no SERIAL"
    return m.group(1).replace("\\\n", " ").split()


def test_every_serial_module_is_in_a_group_and_every_group_module_is_serial() -> None:
    serial = {Path(p).name for p in _serial()}
    assert serial == set(SERIAL_GROUPS), serial ^ set(SERIAL_GROUPS)
    for name in serial:
        assert (ROOT / "tests" / name).is_file(), name
    assert set(SERIAL_GROUPS.values()) == {"browser", "procs", "outages"}
    assert all(SERIAL_GROUPS[n] == "browser" for n in serial if n.startswith("test_web"))
    assert not serial & set(PARALLEL_GROUPS)
    assert not set(SERIAL_GROUPS.values()) & set(PARALLEL_GROUPS.values())
    for name in PARALLEL_GROUPS:
        assert (ROOT / "tests" / name).is_file(), name


def test_the_serial_stage_runs_its_groups_side_by_side() -> None:
    """One worker a group: with fewer, two groups would run one after the other."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    n = len(set(SERIAL_GROUPS.values()))
    assert re.search(rf"serial \$\(BIN\)/pytest -n {n} --dist loadgroup \$\(SERIAL\)", text)


def test_the_parallel_stage_keeps_its_groups_together() -> None:
    """Without ``--dist loadgroup`` the Ray tests' group would be spread over the workers."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"parallel \$\(BIN\)/pytest -n 3 --dist loadgroup tests ", text)
