"""The simulator on Ray (docs/rl.md): ``fjmj simulate --backend ray`` gives exactly the
local backend's summary, on a private local Ray instance and on a two-node cluster on
loopback."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.cli.main import main
from fujian_mahjong.sim import simulate
from fujian_mahjong.sim.ray_backend import batch_size, simulate_ray

if os.environ.get("FJMJ_REQUIRE_RAY") == "1":  # CI: a missing Ray fails, never skips
    import ray  # noqa: F401
else:
    pytest.importorskip("ray")  # the [ray] extra; `make test` installs it

KINDS = ("heuristic", "random", "random", "heuristic")
BIN = Path(sys.executable).parent


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    for d in (a, b):
        d.pop("seconds")
        d.pop("hands_per_s")
    assert a == b


def test_batches_match_the_local_chunking() -> None:
    assert batch_size(10, 2) == 1
    assert batch_size(1000, 2) == 62
    assert batch_size(10**6, 4) == 200


def test_local_ray_equals_local_backend() -> None:
    """A private ``ray.init(num_cpus=2)`` run (2 workers) gives the local summary, and
    the progress callback sees every hand."""
    local = simulate("sanming", 60, "ray-eq", KINDS[:3], workers=1).to_json()
    ticks: list[int] = []
    ray_sm = simulate_ray("sanming", 60, "ray-eq", KINDS[:3], workers=2, progress=ticks.append)
    assert sum(ticks) == 60 and len(ticks) > 1
    _same(local, ray_sm.to_json())
    import ray

    assert not ray.is_initialized()  # the private instance is shut down


def test_address_needs_the_ray_backend(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["simulate", "--hands", "2", "--address", "auto", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "--address needs --backend ray" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("127.0.0.1:PORT", "cannot reach Ray at 127.0.0.1:"),
        ("nohost", "HOST:PORT"),
        ("h:0", "HOST:PORT"),
    ],
)
def test_bad_address_is_one_line_and_fast(
    address: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    address = address.replace("PORT", str(_free_port()))  # nothing listens there
    t0 = time.monotonic()
    rc = main(
        ["simulate", "--hands", "2", "--backend", "ray", "--address", address, "--no-progress"]
    )
    err = capsys.readouterr().err
    # a malformed address is bad input (2); one nobody answers at, the environment (1)
    assert rc == (1 if "cannot reach" in says else 2) and says in err
    assert len(err.splitlines()) == 1
    assert time.monotonic() - t0 < 30  # Ray alone would retry for minutes


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_env(tmp_path: Path) -> dict[str, str]:
    """Environment for the test cluster: Ray ≥ 2.5x clusters started by `ray start` use
    token authentication, and clients must be told so; the token is the test's own file."""
    token = tmp_path / "auth_token"
    token.write_text(secrets.token_hex(32), encoding="ascii")
    env = dict(os.environ)
    env.update(
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN_PATH=str(token),
        RAY_USAGE_STATS_ENABLED="0",
        PYTHONUNBUFFERED="1",
    )
    return env


def _stop(p: subprocess.Popen[bytes]) -> None:
    """Stop one node we started: its own process group (never other Ray instances)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        p.wait(20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, signal.SIGKILL)  # stragglers (raylet, agents) of that node only
    p.wait(10)


def _start_node(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`ray start --block …` in its own process group (so that it can be stopped alone)."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(BIN / "ray"), "start", *args],
            env=env,
            start_new_session=True,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _nodes(addr: str, env: dict[str, str]) -> int:
    r = subprocess.run(
        [str(BIN / "ray"), "status", "--address", addr],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if r.returncode != 0:
        return 0
    return sum(1 for line in r.stdout.splitlines() if line.strip().startswith("1 node_"))


STARTED = "Ray runtime started."  # what `ray start` prints once its node is up
START_CEILING_S = 300.0  # far above a real start-up: only a hung one reaches it


def _wait_started(
    p: subprocess.Popen[bytes], log: Path, addr: str, env: dict[str, str], nodes: int
) -> None:
    """Until the node of ``p`` says it started, then until the cluster counts ``nodes``.
    The node's own line is the signal (each `ray status` is a whole Ray client process:
    polled while the node starts, they would take the CPU the node needs)."""
    end = time.monotonic() + START_CEILING_S
    while STARTED not in log.read_text(errors="replace"):
        assert p.poll() is None, f"ray start exited {p.returncode}: {log.read_text()[-2000:]}"
        assert time.monotonic() < end, f"no {STARTED!r}: {log.read_text()[-2000:]}"
        time.sleep(0.1)
    while _nodes(addr, env) < nodes:
        assert time.monotonic() < end, f"not {nodes} nodes: {log.read_text()[-2000:]}"
        time.sleep(1)


def test_two_node_cluster_on_loopback(tmp_path: Path) -> None:
    """`ray start --head` plus a second `ray start --address` node (own temp dir), then
    `fjmj simulate --backend ray --address HOST:PORT`: the local summary again."""
    env = _ray_env(tmp_path)
    port = _free_port()
    addr = f"127.0.0.1:{port}"
    common = ["--block", "--node-ip-address", "127.0.0.1", "--num-cpus", "1"]
    common += ["--disable-usage-stats"]
    nodes: list[subprocess.Popen[bytes]] = []
    short = Path(f"/tmp/fjmj-ray-{port}")  # Ray's socket paths must stay short
    try:
        head = ["--head", "--port", str(port), "--include-dashboard=false"]
        nodes.append(
            _start_node([*head, *common, "--temp-dir", f"{short}/head"], tmp_path / "head.log", env)
        )
        _wait_started(nodes[-1], tmp_path / "head.log", addr, env, 1)
        second = ["--address", addr, *common, "--temp-dir", f"{short}/worker"]
        nodes.append(_start_node(second, tmp_path / "worker.log", env))
        _wait_started(nodes[-1], tmp_path / "worker.log", addr, env, 2)
        args = ["simulate", "--hands", "40", "--seed", "cluster", "--json"]
        args += ["--players", ",".join(KINDS)]
        r = subprocess.run(
            [str(BIN / "fjmj"), *args, "--backend", "ray", "--address", addr, "--workers", "2"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        local = simulate("fuzhou-tcy", 40, "cluster", KINDS).to_json()
        _same(local, json.loads(r.stdout))
    finally:
        for p in reversed(nodes):
            _stop(p)
        shutil.rmtree(short, ignore_errors=True)
    for p in nodes:
        assert p.poll() is not None
        assert _group_gone(p.pid), "a Ray process of the test cluster is still running"


def _group_gone(pgid: int, wait: float = 20.0) -> bool:
    """True once no process of the group is left (killed ones may linger as zombies
    until init reaps them)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False
