"""R12: a hand's seed is revealed when it ends — a void one too. A leaver's void hand (and
a dissolved one, 解散) reveals its seed in ``hand_void`` and in ``GET /api/hands/{id}``, its
log (cut short, without ``end``) is served, and ``fjmj replay --seed`` verifies the two
against the commitment published at the hand's start. Before the end: nothing."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

from fujian_mahjong.cli.main import main as cli
from fujian_mahjong.engine.game import seed_commitment
from fujian_mahjong.server.protocol import server_message
from tests.inproc import running
from tests.test_dissolve import two_humans_two_bots, until_closed


def test_a_void_hands_seed_is_revealed_and_its_log_verifies(tmp_path: Path) -> None:
    got: dict[str, object] = {}

    async def main() -> None:
        async with running(tmp_path) as h:
            a, b = await h.guest("甲"), await h.guest("乙")
            tid = await h.table(a, bots=2, hands=4)
            await h.seat(a, tid)
            await h.seat(b, tid)
            await h.ready(a, b)
            await h.advance(2.0)
            start = b.of_type("hand_start")[-1]
            hand = start["hand"]
            # while it is played: no seed, no log
            info = (await h.http.get(f"/api/hands/{hand}")).json()
            assert "seed" not in info and info["status"] == "playing"
            assert (await h.http.get(f"/api/hands/{hand}/log")).status_code == 404
            await a.send({"type": "leave"})
            await h.advance(1.0)
            void = b.last("hand_void")
            assert void is not None and void["leaver"] == 0, b.messages[-5:]
            server_message.validate_python(void)
            info = (await h.http.get(f"/api/hands/{hand}")).json()
            assert info["status"] == "void" and info["seed"] == void["seed"]
            r = await h.http.get(info["log_url"])
            assert r.status_code == 200
            events = (await h.http.get(f"/api/hands/{hand}/log?format=json")).json()
            first = events[0]
            assert first["seed_sha256"] == start["seed_sha256"] == info["seed_sha256"]
            assert (
                seed_commitment(
                    void["seed"],
                    profile=first["profile"],
                    players=first["players"],
                    dealer=first["dealer"],
                    streak=first["streak"],
                    version=first["version"],
                )
                == first["seed_sha256"]
            )
            assert events[-1]["type"] != "end"  # cut short by the leave
            # the replay, summary and review are of finished hands only
            assert (await h.http.get(f"/api/hands/{hand}/replay")).status_code == 404
            got.update(log=r.text, seed=void["seed"])

    asyncio.run(main())
    log = tmp_path / "void.jsonl"
    log.write_text(str(got["log"]), encoding="utf-8")
    seed = str(got["seed"])
    assert cli(["replay", str(log), "--quiet", "--seed", seed]) == 0
    # another seed fails the commitment; without one the log is incomplete (bad input)
    wrong = hashlib.sha256(seed.encode()).hexdigest()[:32]
    assert cli(["replay", str(log), "--quiet", "--seed", wrong]) == 1
    assert cli(["replay", str(log), "--quiet"]) == 2


def test_a_dissolved_hand_reveals_its_seed(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await two_humans_two_bots(h)
            hand = h.lobby.find(tid).hand.id
            await a.send({"type": "dissolve", "accept": True})
            await b.send({"type": "dissolve", "accept": True})
            await until_closed(h, a, b, s)
            seeds = {c.last("hand_void")["seed"] for c in (a, b, s)}
            info = (
                await h.http.get(
                    f"/api/hands/{hand}", headers={"Authorization": f"Bearer {a.token}"}
                )
            ).json()
            assert seeds == {info["seed"]} and info["status"] == "void"

    asyncio.run(main())
