"""R12 event logs: JSON Lines, replay and verification.

One replay API for every caller (``replay``, ``fjmj replay``, the server's crash restore and
its web replay endpoints):

- :func:`fresh_game` — the hand as dealt, from the log's ``start`` event and the seed (revealed
  in the ``end`` event, or given for a hand still in progress), after checking it against the
  SHA-256 committed at the start;
- :func:`apply_decisions` — the logged decisions (``act`` events) applied again, every event the
  engine produces checked equal to the logged one;
- :func:`replay` — both, on a finished hand's log.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.game import EVENT_VERSION, Game, seed_commitment
from fujian_mahjong.errors import MahjongError, ReplayError
from fujian_mahjong.fileio import excerpt
from fujian_mahjong.rules import Profile
from fujian_mahjong.tiles import parse


def to_jsonl(events: Iterable[Mapping[str, Any]]) -> str:
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


def replay(events: Sequence[Mapping[str, Any]], profile: Profile | None = None) -> Game:
    """Rebuild a finished hand from its log and verify every event (R12).

    The commitment in the first event must be the SHA-256 of the hand's start — version,
    profile, players, dealer, streak and the seed revealed in the last event — so an edited
    dealer or streak fails here; then the decisions (``act`` events) are replayed and every
    produced event must equal the logged one. Raises :class:`ReplayError` with the first
    bad line (1-based). ``profile``: the user profile (a TOML file's) the log names, where
    it names no built-in one."""
    return apply_decisions(fresh_game(events, profile=profile), events)


def fresh_game(
    events: Sequence[Mapping[str, Any]], *, seed: str | None = None, profile: Profile | None = None
) -> Game:
    """The hand of a log as dealt, before its first decision (R3–R5, R12).

    It starts from the ``start`` event (profile, players, dealer, streak) and the hand's seed:
    ``seed`` when given (a hand still in progress, whose log has no ``end`` yet), else the seed
    revealed by the ``end`` event. The seed must hash to the SHA-256 committed on line 1, so an
    edited start or seed fails here. A stacked hand (test tooling) reveals its wall as
    ``stacked:…`` and takes its dice from line 2. Raises :class:`ReplayError` naming the line.
    """
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
    revealed = end.get("seed") if end.get("type") == "end" else None
    if seed is None:
        if not isinstance(revealed, str):
            raise ReplayError(
                f"line {len(events)}: the last event must be 'end' revealing the seed (R12)"
            )
        seed = revealed
    elif revealed is not None and revealed != seed:
        raise ReplayError(f"line {len(events)}: the log reveals another seed than the one given")
    where, what = (
        (f"line {len(events)}", "the revealed seed")
        if revealed is not None
        else ("line 1", "the given seed")
    )
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
            f"{where}: {what} and the start on line 1 (profile, players, "
            "dealer, streak) do not match the SHA-256 committed on line 1"
        )
    rules: Profile | str = str(start["profile"])
    if profile is not None:
        if start["profile"] != profile.name:
            raise ReplayError(
                f"line 1: the log's profile is {excerpt(start['profile'])!r}, "
                f"not {profile.name!r} (the profile file given)"
            )
        rules = profile
    try:
        if start.get("stacked"):
            if not seed.startswith("stacked:"):
                raise ReplayError(f"{where}: a stacked hand reveals its wall")
            dice = events[1].get("dice") if len(events) > 1 else None
            if not isinstance(dice, list) or len(dice) != 2:
                raise ReplayError("line 2: expected the dice event")
            return Game.from_wall(
                rules,
                parse(seed[len("stacked:") :]),
                dice=(int(dice[0]), int(dice[1])),
                players=int(start["players"]),
                dealer=int(start["dealer"]),
                streak=int(start.get("streak", 0)),
            )
        return Game.new(
            rules,
            seed=seed,
            players=int(start["players"]),
            dealer=int(start["dealer"]),
            streak=int(start.get("streak", 0)),
        )
    except ReplayError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise ReplayError(f"line 1: cannot start the hand: {err}") from None


def _line(i: int) -> str:
    return f"line {i + 1}"


def apply_decisions(
    game: Game,
    events: Sequence[Mapping[str, Any]],
    *,
    where: Callable[[int], str] = _line,
    on_decision: Callable[[Game, int], None] | None = None,
    cut: bool = False,
) -> Game:
    """Apply the logged decisions again to ``game``, the hand as dealt (:func:`fresh_game`, or
    a match's ``next_hand()``), and check that every event the engine produces equals the
    logged one (R12). Returns ``game``, now at the end of the log.

    ``events`` may be a finished hand or one still in progress, but must not stop inside a
    decision (between an ``act`` and the events it causes). ``where(i)`` names event ``i``
    (0-based) in the messages: by default ``line {i + 1}`` of a JSON Lines log.
    ``on_decision(game, i)`` is called right after the decision ``events[i]`` is applied
    (``game.events[i:]`` are that decision and what it caused). ``cut``: ``events`` may
    stop inside what its last decision caused (a table's store: a claim pause's notice is
    stored before the events after it, docs/architecture.md); the game then holds them all
    (they are the seed's and the decisions', nothing else). Raises
    :class:`ReplayError` at the first event that differs, is not a decision where one is
    due, or is an illegal decision."""
    g = game
    for i, e in enumerate(events):
        if i < len(g.events):
            if g.events[i] != e:
                raise ReplayError(
                    f"{where(i)}: logged {_short(e)} but the replay gives {_short(g.events[i])}"
                )
            continue
        if e.get("type") != "act":
            raise ReplayError(f"{where(i)}: logged {_short(e)} but the replay expected a decision")
        try:
            g.apply(int(e["seat"]), Action.from_json(e["action"]))
        except (MahjongError, KeyError, TypeError, ValueError) as err:
            raise ReplayError(f"{where(i)}: {err}") from None
        if g.events[i] != e:
            raise ReplayError(
                f"{where(i)}: logged {_short(e)} but the replay gives {_short(g.events[i])}"
            )
        if on_decision is not None:
            on_decision(g, i)
    if len(g.events) != len(events) and not (cut and len(g.events) > len(events)):
        raise ReplayError(
            f"{where(len(events))}: the log ends early; the replay continues with "
            f"{_short(g.events[len(events)])}"
        )
    return g


def _short(e: Mapping[str, Any]) -> str:
    s = json.dumps(e, ensure_ascii=False, separators=(",", ":"))
    return s if len(s) <= 120 else s[:117] + "..."
