"""The single process's fast paths (docs/architecture.md, "Measured limits") keep their
meaning: a message sent to several connections at once is exactly what one send per
connection gave; the orjson encoding is the text ``json.dumps`` wrote; the event-loop lag
monitor's figures; and a hand's ``hand_end`` built from the settlement the process just
wrote equals the one read back from the database. No test here waits for real time."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from fujian_mahjong.server import economy
from fujian_mahjong.server.conn import Conn, RecordingTransport, encode, send_all
from fujian_mahjong.server.looplag import BUCKETS_MS, LoopLag, histogram_percentile, percentile
from tests.inproc import StackedDeals, running
from tests.test_audit_server import PAUSE, TURN, _bearer, heaven_wall


def _state(seat: int) -> dict[str, Any]:
    return {
        "type": "state",
        "table": 3,
        "hand": 9,
        "view": {"seat": seat, "phase": "discard", "hand": ["1m", "东"], "legal_actions": []},
        "deadline_ms": None,
        "seats": [],
        "me": {"player_id": 7, "name": "张三", "seat": seat},
        "waits": None,
        "number": 0,
        "seed_sha256": None,
    }


def test_send_all_is_one_send_per_connection() -> None:
    """Same text (so the same size on the wire), each connection's own ``seq`` last, the
    ``state`` bookkeeping, and nothing to a closed connection."""
    one = [Conn(transport=RecordingTransport()) for _ in range(4)]
    many = [Conn(transport=RecordingTransport()) for _ in range(4)]
    for conns in (one, many):
        conns[1].send(_state(1))  # connections at different points of the stream
        conns[3].close("gone")
    msgs: list[dict[str, Any]] = [
        {"type": "discard", "table": 3, "hand": 9, "seat": 2, "tile": "东"},
        _state(0),
        {"type": "table_closed", "table": 3, "reason": "对局结束 (1.5)"},
    ]
    for m in msgs:
        for c in one:
            c.send(dict(m))
        send_all(many, m)
    for a, b in zip(one, many, strict=True):
        ra, rb = a.transport, b.transport
        assert isinstance(ra, RecordingTransport) and isinstance(rb, RecordingTransport)
        assert ra.messages == rb.messages and ra.sizes == rb.sizes
        assert (a.seq, a.state_seq) == (b.seq, b.state_seq)
    rec = many[1].transport
    assert isinstance(rec, RecordingTransport)
    assert [m["seq"] for m in rec.messages] == [1, 2, 3, 4]
    assert list(rec.messages[1]) == ["type", "table", "hand", "seat", "tile", "seq"]
    assert many[1].state_seq == 3
    assert not many[3].transport.messages  # type: ignore[attr-defined]
    assert all("seq" not in m for m in msgs)  # the caller's message is left alone


def test_encode_writes_what_json_dumps_wrote() -> None:
    def old(m: dict[str, Any]) -> str:
        return json.dumps(m, ensure_ascii=False, separators=(",", ":"))

    for m in (
        {"type": "x", "name": "张三 🀄", "f": 0.1, "big": 2**62, "none": None, "l": [1.5, -2]},
        {"type": "y", "nested": {"a": [{"b": True}], "c": -0.0}, "tuple": (1, 2)},
        {"type": "z", "ints": {1: "a"}, "huge": 2**70},  # orjson refuses the last: json
    ):
        assert encode(m) == old(m)
    # a float in exponent notation is written 1.5e-7 (json: 1.5e-07): the same number
    m = {"type": "e", "l": [1.5e-7, 1e22]}
    assert json.loads(encode(m)) == json.loads(old(m))


def test_loop_lag_figures() -> None:
    lag = LoopLag(interval_s=0.02, window=100)
    for ms in [0.2] * 90 + [3.0] * 9 + [120.0]:
        lag.record(ms)
    snap = lag.snapshot()
    assert snap["loop_lag_samples"] == 100 and snap["loop_lag_window_s"] == 2.0
    assert snap["loop_lag_p50_ms"] == 0.2 and snap["loop_lag_p99_ms"] == 120.0
    assert snap["loop_lag_max_ms"] == 120.0 == snap["loop_lag_max_ever_ms"]
    counts = snap["loop_lag_counts"]
    assert sum(counts) == 100 and len(counts) == len(BUCKETS_MS) + 1
    assert histogram_percentile(counts, 50) == 0.5  # the bucket's upper edge
    assert histogram_percentile(counts, 95) == 3
    assert histogram_percentile(counts, 100) == 125
    for ms in [0.2] * 200:  # the window keeps the last 100 samples only
        lag.record(ms)
    assert lag.snapshot()["loop_lag_max_ms"] == 0.2
    assert lag.snapshot()["loop_lag_max_ever_ms"] == 120.0
    assert percentile([], 99) == 0.0 and histogram_percentile([0] * 31, 99) == 0.0


def test_hand_end_from_the_settlement_just_written_equals_the_stored_one(
    tmp_path: Path,
) -> None:
    """Two accounts play for silver; the dealer wins 天胡 at once. The ``hand_end`` (built
    without reading the settlement back) carries exactly what the database holds (seat 1
    reads its own balance, not seat 0's: docs/economy.md)."""

    async def main() -> tuple[dict[str, Any], dict[str, Any], int]:
        deals = StackedDeals([heaven_wall()], dealer=0)
        async with running(tmp_path, deals=deals) as h:
            a, p = await h.guest("winner"), await h.guest("payer")
            for c in (a, p):
                body = {"name": c.name, "password": f"pw-{c.name}-1"}
                r = await h.http.post("/api/accounts", json=body, headers=_bearer(c))
                assert r.status_code == 201, r.text
            tid = await h.table(a, bots=2, hands=2, turn_seconds=TURN)
            await h.seat(a, tid)
            await h.seat(p, tid)
            await h.ready(a, p)
            hid = int(a.of_type("hand_start")[0]["hand"])
            await a.act({"type": "win"})
            await h.advance(PAUSE)
            end = p.of_type("hand_end")[0]
            async with h.store.sessions() as s:
                stored = await economy.hand_end_fields(s, hid)
            left = len(h.store.settlement._settled)
            return end, stored, left

    end, stored, left = asyncio.run(main())
    assert stored["silver"][0]["change"] > 0 > stored["silver"][1]["change"]
    del stored["silver"][0]["balance"]
    for k, v in stored.items():
        assert end[k] == v, k
    assert left == 0  # taken once by the table that ended the hand
