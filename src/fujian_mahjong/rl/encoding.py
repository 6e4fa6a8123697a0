"""Observation and action encodings for the RL environments (docs/rl.md has the tables).

Everything here is built from one seat's :class:`~fujian_mahjong.engine.view.SeatView`
(R12): the seat's own concealed tiles and drawn tile, and the public table (melds with
other seats' concealed kongs hidden, discards, flowers, the gold, counts, declarations).
Never another seat's concealed tiles, never the wall order, never who else was asked to
answer a discard.

Encodings cover all 34 playable kinds (``1m``..``7z``) from the start: in ``fuzhou-doudou``
the honours are playable (R1, revision 2); elsewhere their slots simply stay zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.errors import IllegalAction
from fujian_mahjong.rules import BUILTIN, Profile
from fujian_mahjong.tiles import KIND_STR

N_KINDS: Final = 34  # 27 suited + 7 honours (R1)
MAX_SEATS: Final = 4

# ---------------------------------------------------------------------------------- actions
# One fixed Discrete space. Tile-carrying actions get one index per kind (34 each).
A_DISCARD: Final = 0  # discard k
A_ROB_GOLD_DISCARD: Final = A_DISCARD + N_KINDS  # R8.2 庄家抢金: discard k and rob
A_JIN_KAN: Final = A_ROB_GOLD_DISCARD + N_KINDS  # R8.5 金坎: discard k and declare
A_CONCEALED_KONG: Final = A_JIN_KAN + N_KINDS  # R6 暗杠 of k
A_ADDED_KONG: Final = A_CONCEALED_KONG + N_KINDS  # R6 加杠 of k
A_CHOW: Final = A_ADDED_KONG + N_KINDS  # R6 chow: +0 claimed tile lowest, +1 middle, +2 highest
A_PONG: Final = A_CHOW + 3
A_KONG: Final = A_PONG + 1  # exposed kong on a discard (明杠)
A_WIN: Final = A_KONG + 1  # 自摸 / 点炮胡 (on a discard) / 抢杠 / 天胡
A_THREE_GOLDS: Final = A_WIN + 1  # R7 三金倒
A_ROB_GOLD: Final = A_THREE_GOLDS + 1  # R8.2 闲家抢金 (no tile)
A_PASS: Final = A_ROB_GOLD + 1
N_ACTIONS: Final = A_PASS + 1

_TILE_BASE: Final = {
    "discard": A_DISCARD,
    "jin_kan": A_JIN_KAN,
    "concealed_kong": A_CONCEALED_KONG,
    "added_kong": A_ADDED_KONG,
}
_FIXED: Final = {
    "pong": A_PONG,
    "kong": A_KONG,
    "win": A_WIN,
    "three_golds": A_THREE_GOLDS,
    "pass": A_PASS,
}
CHOW_SHAPES: Final = ("chow_low", "chow_mid", "chow_high")


def _build_index() -> dict[Action, int]:
    idx: dict[Action, int] = {}
    for typ, base in _TILE_BASE.items():
        for k in range(N_KINDS):
            idx[Action(typ, k)] = base + k
    for k in range(N_KINDS):
        idx[Action("rob_gold", k)] = A_ROB_GOLD_DISCARD + k
    idx[Action("rob_gold")] = A_ROB_GOLD
    for typ, i in _FIXED.items():
        idx[Action(typ)] = i
    return idx


ACTION_INDEX: Final = _build_index()  # every non-chow Action -> its index
# the same keyed by (type, tile): hashing a plain tuple is cheaper (legal masks are hot)
_KEY_INDEX: Final = {(a.type, a.tile): i for a, i in ACTION_INDEX.items()}


def _names() -> tuple[str, ...]:
    out = [""] * N_ACTIONS
    for k in range(N_KINDS):
        t = KIND_STR[k]
        out[A_DISCARD + k] = f"discard {t}"
        out[A_ROB_GOLD_DISCARD + k] = f"rob_gold+discard {t}"
        out[A_JIN_KAN + k] = f"jin_kan+discard {t}"
        out[A_CONCEALED_KONG + k] = f"concealed_kong {t}"
        out[A_ADDED_KONG + k] = f"added_kong {t}"
    for j, s in enumerate(CHOW_SHAPES):
        out[A_CHOW + j] = s
    for typ, i in _FIXED.items():
        out[i] = typ
    out[A_ROB_GOLD] = "rob_gold"
    return tuple(out)


ACTION_NAMES: Final = _names()


def action_index(a: Action, claim_tile: int) -> int:
    """The Discrete index of an engine action; ``claim_tile`` places a chow's shape."""
    if a.type == "chow":
        lo, hi = a.tiles
        if claim_tile < lo:
            return A_CHOW
        if claim_tile < hi:
            return A_CHOW + 1
        return A_CHOW + 2
    return ACTION_INDEX[a]


def legal_map(legal: list[Action], claim_tile: int) -> dict[int, Action]:
    """index -> engine action, for the actions legal now."""
    out: dict[int, Action] = {}
    get = _KEY_INDEX.get
    for a in legal:
        i = get((a.type, a.tile))
        out[action_index(a, claim_tile) if i is None else i] = a
    return out


def mask_of(indices: object) -> npt.NDArray[np.int8]:
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    m[list(indices)] = 1  # type: ignore[call-overload]
    return m


def to_engine_action(index: object, legal: dict[int, Action]) -> Action:
    """Decode an action index; raises IllegalAction (one line) when it is not legal now."""
    if isinstance(index, np.ndarray) and index.shape == ():
        index = index.item()
    if isinstance(index, bool) or not isinstance(index, int | np.integer):
        raise IllegalAction(f"an action must be an integer 0-{N_ACTIONS - 1}, got {index!r}")
    i = int(index)
    a = legal.get(i)
    if a is None:
        what = ACTION_NAMES[i] if 0 <= i < N_ACTIONS else "out of range"
        ok = ", ".join(f"{j} ({ACTION_NAMES[j]})" for j in sorted(legal)) or "none"
        raise IllegalAction(f"action {i} ({what}) is not legal now; legal: {ok}")
    return a


# ---------------------------------------------------------------------------- observation
# A flat float32 vector; slices below (docs/rl.md). Seats are relative: slot 0 is the
# observing seat, slot 1 its next player (下家), and so on; slots past the table size are 0.
# hand, gold, discards and melds are adjacent: every tile this seat sees, one block
O_HAND: Final = 0  # own concealed counts per kind
O_GOLD: Final = O_HAND + N_KINDS  # one-hot: the gold kind (R5)
O_DISCARDS: Final = O_GOLD + N_KINDS  # 4 x 34: discards per relative seat
O_MELDS: Final = O_DISCARDS + MAX_SEATS * N_KINDS  # 4 x 34: visible meld tiles per seat
O_DRAWN: Final = O_MELDS + MAX_SEATS * N_KINDS  # one-hot: the tile just drawn by this seat
O_CLAIM: Final = O_DRAWN + N_KINDS  # one-hot: the tile this seat is asked to answer
O_UNSEEN: Final = O_CLAIM + N_KINDS  # copies this seat cannot see, per playable kind
O_SEATS: Final = O_UNSEEN + N_KINDS  # 4 x SEAT_FEATURES
SEAT_FEATURES: Final = (
    "present",
    "dealer",
    "hand_size",
    "flowers",
    "melds",
    "concealed_kongs",
    "xian_jin",
    "gold_discarded",
    "jin_kan",
    "claim_from",
)
NSF: Final = len(SEAT_FEATURES)
O_LIVE: Final = O_SEATS + MAX_SEATS * NSF  # live tiles left (R5)
O_PHASE: Final = O_LIVE + 1  # one-hot: turn, claims, window_a (only when this seat acts)
O_MUST_ACT: Final = O_PHASE + 3  # 1 when this seat has legal actions
O_STREAK: Final = O_MUST_ACT + 1  # dealer streak counter (R9)
O_PLAYERS: Final = O_STREAK + 1  # one-hot: 2, 3, 4 players
O_PROFILE: Final = O_PLAYERS + 3  # one-hot over the built-in profiles
OBS_SIZE: Final = O_PROFILE + len(BUILTIN)

_PHASES: Final = {Phase.TURN: 0, Phase.CLAIMS: 1, Phase.WINDOW_A: 2}


def _obs_high() -> npt.NDArray[np.float32]:
    h = np.ones(OBS_SIZE, dtype=np.float32)
    h[O_HAND : O_HAND + N_KINDS] = 4
    h[O_UNSEEN : O_UNSEEN + N_KINDS] = 4
    h[O_DISCARDS:O_DRAWN] = 4  # discards and melds
    per_seat = dict.fromkeys(SEAT_FEATURES, 1.0)
    per_seat.update(hand_size=17, flowers=36, melds=5, concealed_kongs=5)
    for p in range(MAX_SEATS):
        for j, f in enumerate(SEAT_FEATURES):
            h[O_SEATS + p * NSF + j] = per_seat[f]
    h[O_LIVE] = 144
    h[O_STREAK] = 1000
    return h


OBS_HIGH: Final = _obs_high()


class Encoder:
    """Builds observations and masks for one table (profile and size fixed)."""

    __slots__ = ("_const", "_n", "_playable4", "_scalar_pos", "_xian_jin", "profile")

    def __init__(self, profile: Profile, players: int) -> None:
        self.profile = profile
        self._n = players
        self._xian_jin = bool(profile.xian_jin)  # R8.4: only these profiles announce 闲金
        playable = 34 if getattr(profile, "honours", "flowers") == "playable" else 27
        p4 = np.zeros(N_KINDS, dtype=np.float32)
        p4[:playable] = 4
        self._playable4 = p4
        c = [O_SEATS + p * NSF for p in range(players)]  # present
        c.append(O_PLAYERS + players - 2)
        if profile.name in BUILTIN:
            c.append(O_PROFILE + BUILTIN.index(profile.name))
        self._const = c  # positions that are 1 in every observation of this table
        # where the per-seat counts (hand size, flowers, melds, concealed kongs), the live
        # tiles and the streak go, in the order observe() lists them
        pos = [O_SEATS + p * NSF + j for p in range(players) for j in (2, 3, 4, 5)]
        self._scalar_pos = np.array([*pos, O_LIVE, O_STREAK], dtype=np.intp)

    def observe(
        self, v: SeatView, streak: int, jin_kan: Sequence[bool]
    ) -> tuple[npt.NDArray[np.float32], dict[int, Action]]:
        """(observation, legal index map) for the seat of ``v`` — from that view only, plus
        the public facts the caller saw announced (the dealer streak, 金坎 declarations)."""
        n = self._n
        me = v.seat
        ones = self._const.copy()  # positions that get +1 (one-hots, tile counts): a bincount
        add = ones.extend
        one = ones.append
        drawn = v.drawn
        if drawn >= 0:
            one(O_DRAWN + drawn)
        gold = v.gold
        if gold >= 0:
            one(O_GOLD + gold)
        legal_actions = v.legal
        # R12: whether a claim window is open (and on which tile) is shown only to a seat
        # that must answer it — to the others it would reveal that somebody may claim
        cfrom, ctile = v.claim if legal_actions else (-1, -1)
        if ctile >= 0:
            one(O_CLAIM + ctile)
        dealer = v.dealer
        xian_jin = self._xian_jin
        scalars: list[int] = []
        for p in range(n):
            s = (me + p) % n
            add(map((O_DISCARDS + p * N_KINDS).__add__, v.discards(s)))
            nm = v.exposed(s)
            ck = 0
            if nm:
                mb = (O_MELDS + p * N_KINDS).__add__
                for t, tiles in v.melds(s):
                    # another seat's concealed kong comes without tiles: its kind is hidden
                    add(map(mb, tiles))
                    if t == "kong_concealed":
                        ck += 1
            sb = O_SEATS + p * NSF
            if s == dealer:
                one(sb + 1)
            if xian_jin and v.xian_jin(s):
                one(sb + 6)
            if v.gold_discarded(s):
                one(sb + 7)
            if jin_kan[s]:
                one(sb + 8)
            if s == cfrom:
                one(sb + 9)
            scalars += (v.hand_size(s), len(v.flowers(s)), nm, ck)
        legal = legal_map(legal_actions, ctile)
        if legal:
            ph = _PHASES.get(v.phase)
            if ph is not None:
                one(O_PHASE + ph)
            one(O_MUST_ACT)
        obs = np.bincount(ones, minlength=OBS_SIZE).astype(np.float32)
        scalars += (v.live, streak)
        obs[self._scalar_pos] = scalars
        c = v.counts
        obs[O_HAND : O_HAND + len(c)] = c
        # R12: unseen = 4 − what this seat sees (own hand, the gold indicator — one copy of
        # the gold kind, out of play — and all visible discards and melds), playable kinds
        seen = obs[O_HAND:O_DRAWN].reshape(2 + 2 * MAX_SEATS, N_KINDS).sum(axis=0)
        np.maximum(self._playable4 - seen, 0, out=obs[O_UNSEEN : O_UNSEEN + N_KINDS])
        return obs, legal


# ------------------------------------------------------------------------ documentation
_KINDS_NOTE = "per kind 1m..9m, 1p..9p, 1s..9s, 1z..7z"
OBS_DOC: Final = (
    (O_HAND, O_GOLD, "hand", f"own concealed tiles, count {_KINDS_NOTE}"),
    (O_GOLD, O_DISCARDS, "gold", "one-hot: the gold kind (R5)"),
    (
        O_DISCARDS,
        O_MELDS,
        "discards",
        "4 × 34: discards of seat slot 0 (self), 1 (下家, next), 2, 3 (上家 at 4 players)",
    ),
    (
        O_MELDS,
        O_DRAWN,
        "melds",
        "4 × 34: visible meld tiles per seat slot (another seat's concealed kong is hidden)",
    ),
    (O_DRAWN, O_CLAIM, "drawn", "one-hot: the tile this seat just drew (its own turn only)"),
    (
        O_CLAIM,
        O_UNSEEN,
        "claim",
        "one-hot: the discard (or added-kong tile) this seat is asked to answer; "
        "zero for seats not asked (R12)",
    ),
    (
        O_UNSEEN,
        O_SEATS,
        "unseen",
        "4 − copies this seat can see (own hand, melds, discards, gold indicator), "
        "playable kinds only",
    ),
    (
        O_SEATS,
        O_LIVE,
        "seats",
        f"4 × {NSF} per seat slot: " + ", ".join(SEAT_FEATURES),
    ),
    (O_LIVE, O_PHASE, "live", "live tiles left in the wall (R5)"),
    (
        O_PHASE,
        O_MUST_ACT,
        "phase",
        "one-hot turn / claims / window_a — set only when this seat must act (R12)",
    ),
    (O_MUST_ACT, O_STREAK, "must_act", "1 when this seat has legal actions"),
    (O_STREAK, O_PLAYERS, "streak", "the dealer streak counter given to the hand (R9)"),
    (O_PLAYERS, O_PROFILE, "players", "one-hot 2 / 3 / 4 players"),
    (O_PROFILE, OBS_SIZE, "profile", "one-hot " + " / ".join(BUILTIN)),
)
ACTION_DOC: Final = (
    (A_DISCARD, A_ROB_GOLD_DISCARD, "discard k", '`{"type": "discard", "tile": k}`'),
    (
        A_ROB_GOLD_DISCARD,
        A_JIN_KAN,
        "rob_gold+discard k",
        '`{"type": "rob_gold", "tile": k}`: 庄家抢金 with the first discard k (R8.2)',
    ),
    (
        A_JIN_KAN,
        A_CONCEALED_KONG,
        "jin_kan+discard k",
        '`{"type": "jin_kan", "tile": k}`: discard k and declare 金坎 (R8.5)',
    ),
    (A_CONCEALED_KONG, A_ADDED_KONG, "concealed_kong k", "暗杠 of k (R6)"),
    (A_ADDED_KONG, A_CHOW, "added_kong k", "加杠 of k (R6)"),
    (A_CHOW, A_CHOW + 1, "chow_low", "chow with the claimed tile lowest (hand holds t+1, t+2)"),
    (A_CHOW + 1, A_CHOW + 2, "chow_mid", "chow with the claimed tile in the middle (t−1, t+1)"),
    (A_CHOW + 2, A_PONG, "chow_high", "chow with the claimed tile highest (t−2, t−1)"),
    (A_PONG, A_KONG, "pong", "pong the discard"),
    (A_KONG, A_WIN, "kong", "exposed kong on the discard (明杠)"),
    (
        A_WIN,
        A_THREE_GOLDS,
        "win",
        "自摸 / 点炮胡 (on a discard) / 抢杠 / 天胡, whichever the moment offers",
    ),
    (A_THREE_GOLDS, A_ROB_GOLD, "three_golds", "三金倒 (R7)"),
    (A_ROB_GOLD, A_PASS, "rob_gold", "闲家抢金 in window B (R8.2)"),
    (A_PASS, N_ACTIONS, "pass", "decline what is offered"),
)


def markdown_tables() -> str:
    """The observation and action tables of docs/rl.md (a test keeps them in sync)."""

    def span(a: int, b: int) -> str:
        return f"{a}" if b == a + 1 else f"{a}–{b - 1}"

    lines = ["| index | size | name | content |", "|---|---|---|---|"]
    for a, b, name, text in OBS_DOC:
        lines.append(f"| {span(a, b)} | {b - a} | `{name}` | {text} |")
    lines += ["", "| index | action | engine action |", "|---|---|---|"]
    for a, b, name, text in ACTION_DOC:
        lines.append(f"| {span(a, b)} | `{name}` | {text} |")
    return "\n".join(lines) + "\n"
