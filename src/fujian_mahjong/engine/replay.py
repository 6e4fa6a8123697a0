"""R12 event logs: JSON Lines, replay and verification."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.game import EVENT_VERSION, Game, seed_commitment
from fujian_mahjong.errors import MahjongError, ReplayError
from fujian_mahjong.tiles import parse


def to_jsonl(events: Iterable[dict[str, Any]]) -> str:
    """One compact JSON object per line (tiles as ``"3p"``)."""
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)


def from_jsonl(text: str) -> list[dict[str, Any]]:
    """Parse a JSON Lines log; raises ReplayError naming the bad line."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except json.JSONDecodeError as err:
            raise ReplayError(f"line {i}: not valid JSON ({err.msg})") from None
        if not isinstance(e, dict) or "type" not in e:
            raise ReplayError(f"line {i}: an event must be a JSON object with a 'type'")
        out.append(e)
    return out


def replay(events: Sequence[dict[str, Any]]) -> Game:
    """Rebuild a hand from its log and verify every event (R12).

    The commitment in the first event must be the SHA-256 of the hand's start — version,
    profile, players, dealer, streak and the seed revealed in the last event — so an edited
    dealer or streak fails here; then the decisions (``act`` events) are replayed and every
    produced event must equal the logged one. Raises :class:`ReplayError` with the first
    bad line (1-based)."""
    if not events:
        raise ReplayError("line 1: the log is empty")
    start = events[0]
    if start.get("type") != "start":
        raise ReplayError("line 1: the first event must be 'start'")
    if start.get("version") != EVENT_VERSION:
        raise ReplayError(
            f"line 1: unsupported log version {start.get('version')!r} (expected {EVENT_VERSION})"
        )
    end = events[-1]
    if end.get("type") != "end" or not isinstance(end.get("seed"), str):
        raise ReplayError(
            f"line {len(events)}: the last event must be 'end' revealing the seed (R12)"
        )
    seed = end["seed"]
    try:
        committed = seed_commitment(
            seed,
            profile=start["profile"],
            players=start["players"],
            dealer=start["dealer"],
            streak=start["streak"],
            version=start["version"],
        )
    except (KeyError, TypeError, ValueError) as err:
        raise ReplayError(
            f"line 1: the start event lacks a field of the commitment: {err}"
        ) from None
    if committed != start.get("seed_sha256"):
        raise ReplayError(
            f"line {len(events)}: the revealed seed and the start on line 1 (profile, players, "
            "dealer, streak) do not match the SHA-256 committed on line 1"
        )
    try:
        if start.get("stacked"):
            if not seed.startswith("stacked:"):
                raise ReplayError(f"line {len(events)}: a stacked hand reveals its wall")
            dice = events[1].get("dice") if len(events) > 1 else None
            if not isinstance(dice, list) or len(dice) != 2:
                raise ReplayError("line 2: expected the dice event")
            g = Game.from_wall(
                str(start["profile"]),
                parse(seed[len("stacked:") :]),
                dice=(int(dice[0]), int(dice[1])),
                players=int(start["players"]),
                dealer=int(start["dealer"]),
                streak=int(start.get("streak", 0)),
            )
        else:
            g = Game.new(
                str(start["profile"]),
                seed=seed,
                players=int(start["players"]),
                dealer=int(start["dealer"]),
                streak=int(start.get("streak", 0)),
            )
    except ReplayError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise ReplayError(f"line 1: cannot start the hand: {err}") from None
    for i, ev in enumerate(events):
        e = ev
        if i < len(g.events):
            if g.events[i] != e:
                raise ReplayError(
                    f"line {i + 1}: logged {_short(e)} but the replay gives {_short(g.events[i])}"
                )
            continue
        if e.get("type") != "act":
            raise ReplayError(
                f"line {i + 1}: logged {_short(e)} but the replay expected a decision"
            )
        try:
            g.apply(int(e["seat"]), Action.from_json(e["action"]))
        except (MahjongError, KeyError, TypeError, ValueError) as err:
            raise ReplayError(f"line {i + 1}: {err}") from None
        if g.events[i] != e:
            raise ReplayError(
                f"line {i + 1}: logged {_short(e)} but the replay gives {_short(g.events[i])}"
            )
    if len(g.events) != len(events):
        raise ReplayError(
            f"line {len(events) + 1}: the log ends early; the replay continues with {_short(g.events[len(events)])}"
        )
    return g


def _short(e: dict[str, Any]) -> str:
    s = json.dumps(e, ensure_ascii=False, separators=(",", ":"))
    return s if len(s) <= 120 else s[:117] + "..."
