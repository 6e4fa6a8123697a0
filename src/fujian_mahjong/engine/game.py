"""R2–R9, R12: one hand of Fujian gold mahjong as a deterministic, event-sourced state machine.

``Game.new(profile, seed, players=4, dealer=0)`` builds the wall from the seed (R3), deals,
replaces flowers (R4), opens the gold (R5) and stops at the first decision. Then
``to_act()`` names the seats that must answer, ``legal_actions(seat)`` lists what each may
do, and ``apply(seat, action)`` plays one decision (illegal ones raise ``IllegalAction``
and change nothing). Draws, replacements and automatic wins happen inside ``apply``.
Every state change is appended to ``events`` (plain JSON-ready dicts).
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, cast

from fujian_mahjong.analysis import (
    decompositions,
    is_win_keys,
    waits_keys,
)
from fujian_mahjong.analysis.tables import POW5
from fujian_mahjong.engine.actions import (
    KONG,
    PASS,
    PONG,
    ROB_GOLD,
    THREE_GOLDS,
    WIN,
    Action,
    _short,
)
from fujian_mahjong.engine.events import ActionJSON, Event, Phase, WinKind
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.rules import Profile, get_profile
from fujian_mahjong.scoring import MeldIn, Score, Situation, score
from fujian_mahjong.tiles import (
    KIND_STR,
    NUM_TILES,
    flower_sets,
    is_flower,
    physical_set,
    rank_of,
    suit_of,
)

# Version 2 (rules revision 2): the commitment binds the whole start of the hand (R12)
EVENT_VERSION = 2
MAX_STREAK = 100  # a sane bound for a streak counter (R9); more is an input error
_K = KIND_STR
_NK = 34  # per-seat counts cover the 34 suited and honour kinds in every profile (R1)
# The phases as module constants: compiled, a Final is a C static and ``phase is _TURN`` a
# pointer comparison; ``Phase.TURN`` would look the class up and read its attribute at
# every use (Phase is defined in events.py, which is not compiled)
_DEAL: Final = Phase.DEAL
_WINDOW_A: Final = Phase.WINDOW_A
_TURN: Final = Phase.TURN
_CLAIMS: Final = Phase.CLAIMS
_LAST_GROUP: Final = Phase.LAST_GROUP
_OVER: Final = Phase.OVER
# Shared action values (hot path: legal actions are rebuilt at every decision)
_DISCARD = tuple(Action("discard", k) for k in range(_NK))
_CONCEALED_KONG = tuple(Action("concealed_kong", k) for k in range(_NK))
_ADDED_KONG = tuple(Action("added_kong", k) for k in range(_NK))
_ROB_WITH = tuple(Action("rob_gold", k) for k in range(_NK))
# every chow a seat may offer (R5): the two tiles from hand, same suit, within 2 ranks
_CHOW = {
    (a, b): Action("chow", -1, (a, b))
    for a in range(27)
    for b in range(a + 1, min(a + 3, (a // 9 + 1) * 9))
}


def _typ(a: Action | None) -> str:
    """An answer's type ("" for none). The engine compares answers by type: each was
    checked equal to one of the seat's legal actions, and the legal win/三金倒/抢金 options
    carry no tile (comparing dataclasses is slow Python code)."""
    return "" if a is None else a.type


_SUIT = tuple(suit_of(k) for k in range(len(KIND_STR)))
_DIGIT = tuple(str(rank_of(k)) for k in range(len(KIND_STR)))
_PHYSICAL = tuple(physical_set())
# R1: which of the 42 kinds are flowers, without and with playable honours (built once)
_FLOWER_KINDS = {hon: tuple(is_flower(k, hon) for k in range(42)) for hon in (False, True)}
_BIT_LENGTH = tuple(n.bit_length() for n in range(len(_PHYSICAL) + 1))


def shuffle(rng: random.Random, x: list[int]) -> None:
    """``rng.shuffle(x)`` (the same permutation and the same generator state after it) with
    its per-element method calls inlined: the wall is shuffled for every hand.
    This is CPython's algorithm (``_randbelow_with_getrandbits``: ``k = n.bit_length()``,
    draw k bits until below n); a test compares it with ``random.shuffle``."""
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTH
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = bits[n] if n < len(bits) else n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def fmt(kinds: Sequence[int]) -> str:
    """``tiles.fmt`` (the same text) on table lookups: the engine formats every event's
    tiles (hot path); most flower events carry none or one."""
    n = len(kinds)
    if n < 2:
        return _K[kinds[0]] if n else ""
    out: list[str] = []
    run = ""
    for k in kinds:
        s = _SUIT[k]
        if s != run:
            if run:
                out.append(run)
            run = s
        out.append(_DIGIT[k])
    if run:
        out.append(run)
    return "".join(out)


def seed_commitment(
    seed: str,
    *,
    profile: str,
    players: int,
    dealer: int,
    streak: int,
    version: int = EVENT_VERSION,
) -> str:
    """R12: the SHA-256 published at the start of a hand.

    It hashes a canonical encoding (JSON, sorted keys, no spaces, ASCII) of the event
    version, profile, players, dealer, streak and seed, so the commitment binds the whole
    start of the hand: a log whose dealer or streak was edited no longer verifies. An
    explicit seed (tests, reproducible runs) is not secret; without one the engine draws
    128 random bits from :mod:`secrets`, which makes the commitment unguessable."""
    canon = json.dumps(
        {
            "dealer": dealer,
            "players": players,
            "profile": profile,
            "seed": seed,
            "streak": streak,
            "version": version,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(canon.encode("ascii")).hexdigest()


def random_seed() -> str:
    """R12: a fresh 128-bit seed from the OS's secure generator (hex)."""
    return secrets.token_hex(16)


def _check_int(what: str, v: object, lo: int, hi: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise MahjongError(f"{what} must be a whole number {lo}-{hi}, got {_short(v)}")
    return v


def break_rotation(dealer: int, d: int) -> int:
    """R3: the wall is rotated left by ``2 * (18 * ((dealer + d - 1) mod 4) + d)`` tiles."""
    return 2 * (18 * ((dealer + d - 1) % 4) + d)


class Meld:
    """A meld on the table (mutable only for pong -> added kong)."""

    __slots__ = ("claimed_from", "tiles", "type")

    def __init__(self, type: str, tiles: tuple[int, ...], claimed_from: int | None) -> None:
        self.type = type
        self.tiles = tiles
        self.claimed_from = claimed_from

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle/copy also when compiled with mypyc
        return (Meld, (self.type, self.tiles, self.claimed_from))

    def to_json(self, hidden: bool = False) -> dict[str, Any]:
        if hidden and self.type == "kong_concealed":
            return {"type": self.type, "tiles": None}
        return {"type": self.type, "tiles": fmt(self.tiles), "from": self.claimed_from}


class Game:
    """One hand (一盘). Create with :meth:`new` or :meth:`from_wall`."""

    # ------------------------------------------------------------------ construction

    # Parameters a caller may get wrong are typed ``object`` and checked here: compiled with
    # mypyc, an ``int`` parameter would raise TypeError before the check.
    def __init__(self, profile: Profile, players: object, dealer: object, streak: object) -> None:
        players = _check_int("players", players, 2, 4)
        dealer = _check_int("dealer", dealer, -(2**31), 2**31)
        # R9: never negative (the winner would pay)
        streak = _check_int("streak", streak, 0, MAX_STREAK)
        if not profile.players_min <= players <= profile.players_max:
            raise MahjongError(
                f"profile {profile.name} plays with {profile.players_min}-{profile.players_max} "
                f"players, not {players}"
            )
        if not 0 <= dealer < players:
            raise MahjongError(f"dealer must be a seat 0-{players - 1}, got {dealer}")
        self.profile = profile
        # R1: which kinds are flowers (honours too, unless the profile plays them)
        self._hon = profile.honours_playable
        self._nk = profile.playable_kinds
        self._fl = _FLOWER_KINDS[bool(self._hon)]
        self._reserve_terms = (
            profile.reserve_base,
            profile.reserve_exposed_kong,
            profile.reserve_concealed_kong,
            profile.reserve_flower_set,
        )
        self.n = players
        self.dealer = dealer
        self.streak = streak
        self.events: list[Event] = []
        self.seed = ""
        self.stacked: list[int] | None = None
        self.dice: tuple[int, int] = (1, 1)
        self.wall: list[int] = []
        self.head = 0
        self.tail = 0  # index of the tail tile (inclusive)
        # concealed tiles as 34 counts (honours stay 0 where they are flowers) and the
        # per-suit analysis keys of the natural (non-gold) tiles: m, p, s and honours (R7)
        self.counts = [[0] * _NK for _ in range(players)]
        self.keys = [[0, 0, 0, 0] for _ in range(players)]
        # R7 readiness per seat (hand + one gold wins): 1/0, -1 unknown; reset whenever the
        # seat's tiles or the gold change. A seat that is not ready cannot win on any tile,
        # so most claim checks stop here
        self._ready = [-1] * players
        self.flowers: list[list[int]] = [[] for _ in range(players)]
        self.sets = [0] * players
        self.melds: list[list[Meld]] = [[] for _ in range(players)]
        self.discards: list[list[int]] = [[] for _ in range(players)]
        self.gold = -1
        self.indicator = -1
        self.exposed_kongs = 0
        self.concealed_kongs = 0
        self.phase: Phase = _DEAL
        self.turn = dealer
        self.first_discard_pending = True
        self.last_group = False
        self.pending: dict[int, list[Action]] = {}
        self.answers: dict[int, Action] = {}
        self.claim_tile = -1
        self.claim_from = -1
        self.claim_kind = ""  # "discard" | "rob_kong" | "window_a" | "window_b"
        # the last discard while a rob-the-kong window offers the added tile (R6, sanming)
        self.kong_window_prev = (-1, -1)
        self.dealer_rob_discard = False
        self.last_drawn = -1
        self.gold_discarded = [False] * players
        self.xian_jin = [False] * players
        self.xian_jin_draws = [0] * players
        self.jin_kan = [False] * players
        self.jin_kan_tiles: list[tuple[int, ...]] = [() for _ in range(players)]
        self.drew_this_turn = False
        self.win: dict[str, Any] | None = None
        self._score: Score | None = None
        self._situation: Situation | None = None
        self._legal_stamp = -1
        self._legal_cache: list[Action] = []

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and ``copy.deepcopy`` support (search code copies games). Compiled with
        mypyc a Game has no ``__dict__``; its attributes are listed in
        ``__mypyc_attrs__``, so both forms are restored attribute by attribute."""
        names: tuple[str, ...] = getattr(type(self), "__mypyc_attrs__", None) or tuple(
            self.__dict__
        )
        state = {k: getattr(self, k) for k in names if k != "__dict__"}
        return (_restore_game, (self.profile, self.n, self.dealer, self.streak, state))

    @classmethod
    def new(
        cls,
        profile: Profile | str = "fuzhou-tcy",
        seed: int | str | None = None,
        players: object = 4,
        dealer: object = 0,
        streak: object = 0,
    ) -> Game:
        """A hand whose wall and dice come from the seed (R3, R12).

        Without a seed, 128 bits from :mod:`secrets` (R12: the wall is unpredictable). An
        explicit seed makes the hand reproducible and is not secret."""
        prof = get_profile(profile) if isinstance(profile, str) else profile
        g = cls(prof, players, dealer, streak)
        g.seed = random_seed() if seed is None else str(seed)
        rng = random.Random(g.seed)
        wall = list(_PHYSICAL)
        shuffle(rng, wall)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        r = break_rotation(g.dealer, dice[0] + dice[1])
        wall = wall[r:] + wall[:r]
        g._start(wall, dice)
        return g

    @classmethod
    def from_wall(
        cls,
        profile: Profile | str,
        wall: Sequence[int],
        dice: tuple[int, int] = (1, 1),
        players: object = 4,
        dealer: object = 0,
        streak: object = 0,
    ) -> Game:
        """Test tooling: a hand on a stacked wall (kinds from head to tail, after the break;
        no rotation). The wall must be exactly the 144-tile set."""
        prof = get_profile(profile) if isinstance(profile, str) else profile
        wall = list(wall)
        if sorted(wall) != sorted(physical_set()):
            have = [0] * 42
            for k in wall:
                have[k] += 1
            want = [0] * 42
            for k in physical_set():
                want[k] += 1
            bad = [
                f"{_K[k]} x{have[k]} (set has {want[k]})" for k in range(42) if have[k] != want[k]
            ]
            raise MahjongError(
                f"a stacked wall must be the 144-tile set; got {len(wall)} tiles: "
                + ", ".join(bad[:4])
            )
        for d in dice:
            if not 1 <= d <= 6:
                raise MahjongError(f"dice must be 1-6, got {list(dice)}")
        g = cls(prof, players, dealer, streak)
        g.stacked = wall
        g.seed = "stacked:" + fmt(wall)
        g._start(wall, dice)
        return g

    @staticmethod
    def replay(events: Sequence[Mapping[str, Any]]) -> Game:
        """Rebuild a hand from its event log and verify it (R12); raises ReplayError."""
        from fujian_mahjong.engine.replay import replay

        return replay(events)

    # ------------------------------------------------------------------ small helpers

    def _ev(self, e: Event) -> None:
        self.events.append(e)

    def _add(self, s: int, k: int) -> None:
        self._ready[s] = -1
        self.counts[s][k] += 1
        if k != self.gold:
            self.keys[s][k // 9] += POW5[k % 9]

    def _remove(self, s: int, k: int) -> None:
        self._ready[s] = -1
        self.counts[s][k] -= 1
        if k != self.gold:
            self.keys[s][k // 9] -= POW5[k % 9]

    @property
    def reserve(self) -> int:
        """R5: the tail tiles never drawn from the head."""
        # = self.profile.reserve(...), on the profile's numbers copied at construction
        # (a frozen profile; reading them here is a native sum when compiled)
        rb, rek, rck, rfs = self._reserve_terms
        return rb + rek * self.exposed_kongs + rck * self.concealed_kongs + rfs * sum(self.sets)

    @property
    def wall_left(self) -> int:
        return self.tail - self.head + 1

    @property
    def live(self) -> int:
        """R5: live tiles = len(wall) - R, never below 0."""
        return max(0, self.wall_left - self.reserve)

    def hand_size(self, s: int) -> int:
        return sum(self.counts[s])

    def hand(self, s: int) -> list[int]:
        """Seat s's concealed tiles, sorted (not for other seats' views: R12)."""
        c = self.counts[s]
        return [k for k in range(_NK) for _ in range(c[k])]

    def golds(self, s: int) -> int:
        return self.counts[s][self.gold] if self.gold >= 0 else 0

    def _win4(self, k0: int, k1: int, k2: int, kh: int, w: int) -> bool:
        """R7 win check on suit keys; the honour key only where honours are playable."""
        if self._hon:
            return is_win_keys(k0, k1, k2, w, kh=kh)
        return is_win_keys(k0, k1, k2, w)

    def _waits4(self, k0: int, k1: int, k2: int, kh: int, w: int) -> list[int]:
        if self._hon:
            return waits_keys(k0, k1, k2, w, self.gold, kh=kh, honours=True)
        return waits_keys(k0, k1, k2, w, self.gold)

    def _wins_with(self, s: int, k: int) -> bool:
        """Seat s's 3k+1 hand plus tile k is a winning hand (R7)."""
        k0, k1, k2, kh = self.keys[s]
        w = self.counts[s][self.gold]
        if k == self.gold:
            return self._win4(k0, k1, k2, kh, w + 1)
        if self.counts[s][k] >= 4:
            return k in self._waits4(k0, k1, k2, kh, w)
        su = k // 9
        if su == 0:
            k0 += POW5[k % 9]
        elif su == 1:
            k1 += POW5[k % 9]
        elif su == 2:
            k2 += POW5[k % 9]
        else:
            kh += POW5[k % 9]
        return self._win4(k0, k1, k2, kh, w)

    def _is_win(self, s: int) -> bool:
        k = self.keys[s]
        return self._win4(k[0], k[1], k[2], k[3], self.counts[s][self.gold])

    def _is_ready(self, s: int) -> bool:
        r = self._ready[s]
        if r < 0:
            k = self.keys[s]
            r = int(self._win4(k[0], k[1], k[2], k[3], self.counts[s][self.gold] + 1))
            self._ready[s] = r
        return r == 1

    def _xian_jin_barred(self, s: int) -> bool:
        """R8.4: a 闲金 player's first draw after the announcement never wins (the last
        group included)."""
        return self.xian_jin[s] and self.xian_jin_draws[s] < 2

    def _exposed(self, s: int) -> int:
        return len(self.melds[s])

    # ------------------------------------------------------------------ setup: R3 R4 R5 R8

    def _start(self, wall: list[int], dice: tuple[int, int]) -> None:
        p = self.profile
        self.wall = wall
        self.head = 0
        self.tail = len(wall) - 1
        self.dice = dice
        commitment = seed_commitment(
            self.seed, profile=p.name, players=self.n, dealer=self.dealer, streak=self.streak
        )
        self._ev(
            {
                "type": "start",
                "version": EVENT_VERSION,
                "profile": p.name,
                "players": self.n,
                "dealer": self.dealer,
                "streak": self.streak,
                "seed_sha256": commitment,
                "stacked": self.stacked is not None,
            }
        )
        self._ev({"type": "dice", "dice": list(dice)})
        # R3: dealer first, 4 tiles each, four rounds; then the dealer's 17th (坎门)
        hands: list[list[int]] = [[] for _ in range(self.n)]
        for _ in range(4):
            for i in range(self.n):
                s = (self.dealer + i) % self.n
                hands[s].extend(wall[self.head : self.head + 4])
                self.head += 4
        hands[self.dealer].append(wall[self.head])
        self.head += 1
        self.last_drawn = hands[self.dealer][-1]
        self._ev({"type": "deal", "hands": {str(s): fmt(h) for s, h in enumerate(hands)}})
        # R4 initial flower replacement, in rounds from the dealer in play order
        fl_kind = self._fl
        in_hand_flowers = [[k for k in h if fl_kind[k]] for h in hands]
        for s in range(self.n):  # self._add for each tile (no gold yet), inlined
            c = self.counts[s]
            keys = self.keys[s]
            for k in hands[s]:
                if not fl_kind[k]:
                    c[k] += 1
                    keys[k // 9] += POW5[k % 9]
        todo = [(self.dealer + i) % self.n for i in range(self.n)]
        rnd = 1
        while True:
            nxt = []
            for s in todo:
                fl = in_hand_flowers[s]
                if not fl:
                    continue
                in_hand_flowers[s] = []
                drawn = []
                for _ in fl:
                    drawn.append(self._take_tail())
                self.flowers[s].extend(fl)
                self._ev(
                    {
                        "type": "flower",
                        "seat": s,
                        "round": rnd,
                        "flowers": fmt(fl),
                        "drawn": fmt(drawn),
                    }
                )
                for k in drawn:
                    if fl_kind[k]:
                        in_hand_flowers[s].append(k)
                    else:
                        self._add(s, k)
                if s == self.dealer and drawn:
                    self.last_drawn = drawn[-1]
                if in_hand_flowers[s]:
                    nxt.append(s)
            if not nxt:
                break
            todo = nxt
            rnd += 1
        for s in range(self.n):
            self.sets[s] = flower_sets(self.flowers[s], self._hon)
        self._open_gold()
        self._window_a()

    def _take_tail(self) -> int:
        k = self.wall[self.tail]
        self.tail -= 1
        return k

    def _open_gold(self) -> None:
        """R5: open the gold; flipped flowers go to the dealer (no replacement)."""
        p = self.profile
        to_dealer: list[int] = []
        if p.gold_open == "tail":
            while True:
                k = self._take_tail()
                if not self._fl[k]:
                    break
                to_dealer.append(k)
        else:  # D-3: 2·d positions from the tail, then toward the tail
            d = self.dice[0] + self.dice[1]
            pos = min(2 * d, self.wall_left)  # position from the tail, 1-based
            idx = self.tail - pos + 1
            while True:
                k = self.wall.pop(idx)
                self.tail -= 1
                if not self._fl[k]:
                    break
                to_dealer.append(k)
                if idx > self.tail:
                    idx = self.tail
        self.indicator = k
        self.gold = k
        self.flowers[self.dealer].extend(to_dealer)
        self.sets[self.dealer] = flower_sets(self.flowers[self.dealer], self._hon)
        # golds leave the natural keys
        for s in range(self.n):
            c = self.counts[s][k]
            if c:
                self.keys[s][k // 9] -= c * POW5[k % 9]
        self._ready = [-1] * self.n
        self._ev({"type": "gold", "indicator": _K[k], "gold": _K[k], "to_dealer": fmt(to_dealer)})

    def _window_a(self) -> None:
        """R8.1 opening window A: 天胡 (dealer) and 三金倒 (anyone with three golds)."""
        opts: dict[int, list[Action]] = {}
        if self._is_win(self.dealer):
            opts.setdefault(self.dealer, []).append(WIN)
        for i in range(self.n):
            s = (self.dealer + i) % self.n
            if self.golds(s) == 3:
                opts.setdefault(s, []).append(THREE_GOLDS)
        if opts:
            self.phase = _WINDOW_A
            self.claim_kind = "window_a"
            self.pending = {s: [*a, PASS] for s, a in opts.items()}
            self.answers = {}
        else:
            self._begin_turn(self.dealer, drew=False)

    # ------------------------------------------------------------------ public API

    def to_act(self) -> list[int]:
        """The seats that must answer now (empty when the hand is over)."""
        if self.phase is _TURN:
            return [self.turn]
        if self.phase is _CLAIMS or self.phase is _WINDOW_A:
            return [s for s in sorted(self.pending) if s not in self.answers]
        return []

    def is_over(self) -> bool:
        return self.phase is _OVER

    def legal_actions(self, seat: int) -> list[Action]:
        """Everything ``seat`` may do now (R5–R8); empty if it need not act."""
        return list(self._legal(seat))

    def _legal(self, seat: int) -> list[Action]:
        """The legal actions, built once per decision and shared (never mutate)."""
        if self.phase is _TURN:
            if seat != self.turn:
                return []
            stamp = len(self.events)
            if self._legal_stamp != stamp:
                self._legal_cache = self._turn_actions(seat)
                self._legal_stamp = stamp
            return self._legal_cache
        if self.phase is _CLAIMS or self.phase is _WINDOW_A:
            if seat in self.pending and seat not in self.answers:
                return self.pending[seat]
        return []

    def apply(self, seat: object, action: object) -> None:
        """Play one decision; raises :class:`IllegalAction` (state untouched) if not legal.

        ``seat`` is a seat number and ``action`` an :class:`Action` (typed ``object``: both
        are checked here, with IllegalAction, also when compiled)."""
        if self.phase is _OVER:
            raise IllegalAction(f"seat {_short(seat)}: the hand is over")
        s = self._check_seat(seat)
        if not isinstance(action, Action):
            raise IllegalAction(
                f"seat {s}: {_short(action)} is not an Action (use Action.from_json)"
            )
        legal = self._legal(s)
        for a in legal:
            if a is action:
                break  # one of the engine's own (validated) values, so legal
        else:
            # not one of the engine's own values: check its fields first
            action.validate()  # malformed fields (wrong types, kinds out of range) -> IllegalAction
            if not legal:
                raise IllegalAction(
                    f"seat {s} may not act now (waiting for seat(s) {self.to_act()})"
                )
            if action not in legal:
                raise IllegalAction(
                    f"seat {s}: {action} is not legal now; legal: "
                    + ", ".join(str(a) for a in legal)
                )
        self._ev({"type": "act", "seat": s, "action": cast(ActionJSON, action.to_json())})
        if self.phase is _TURN:
            self._do_turn(s, action)
        else:
            self.answers[s] = action
            if len(self.answers) == len(self.pending):
                self._resolve()

    # ------------------------------------------------------------------ turns

    def _begin_turn(self, s: int, drew: bool) -> None:
        self.phase = _TURN
        self.turn = s
        self.drew_this_turn = drew
        self.pending = {}
        self.answers = {}

    def _turn_actions(self, s: int) -> list[Action]:
        p = self.profile
        c = self.counts[s]
        out: list[Action] = []
        if self.last_group:
            # R5: sanming may kong in the last group; nothing else is decided there
            out.extend(self._kong_actions(s))
            out.append(PASS)
            return out
        window_b = self.first_discard_pending and s == self.dealer
        locked = self.jin_kan[s]
        # R8.4 闲金: no self-draw (三金倒 included) on the first draw after the announcement
        barred = self._xian_jin_barred(s)
        if self.drew_this_turn and not barred and self._is_win(s):
            out.append(WIN)
        if self.golds(s) == 3 and self.drew_this_turn and not barred:
            out.append(THREE_GOLDS)
        if locked:
            # R8.5 金坎 lock: each later draw is discarded unless it wins
            k = self.last_drawn
            if not (k == self.gold and p.gold_discard == "forbidden"):
                out.append(_DISCARD[k])
            return out
        if self.drew_this_turn or window_b:
            # R6 (revision 2): kongs only on a turn that began with a draw (a replacement
            # draw included) or on the dealer's first turn — never right after a chow/pong
            out.extend(self._kong_actions(s))
        gold = self.gold
        nk = self._nk
        forbid_gold = p.gold_discard == "forbidden" and self.hand_size(s) > c[gold]
        # (if only golds are left, discarding one is the only way on: rule-silent fallback)
        discard = _DISCARD
        if forbid_gold:
            out += [discard[k] for k in range(nk) if c[k] and k != gold]
        else:
            out += [discard[k] for k in range(nk) if c[k]]
        if window_b:
            # R8.2 庄家抢金: discard t and rob if the 16 tiles left are ready
            k0, k1, k2, kh = self.keys[s]
            w = c[gold]
            for k in range(nk):
                if not c[k] or (k == gold and forbid_gold):
                    continue
                if k == gold:
                    ok = self._win4(k0, k1, k2, kh, w)
                else:
                    kk = [k0, k1, k2, kh]
                    kk[k // 9] -= POW5[k % 9]
                    ok = self._win4(kk[0], kk[1], kk[2], kk[3], w + 1)
                if ok:
                    out.append(_ROB_WITH[k])
        if p.jin_kan and not locked:
            out.extend(self._jin_kan_actions(s))
        return out

    def _kong_actions(self, s: int) -> list[Action]:
        if self.last_group and not self.profile.last_group_kongs:
            return []  # D-17
        if self.wall_left <= 0:
            return []
        c = self.counts[s]
        out = []
        if 4 in c:  # most hands hold no four of a kind
            for k in range(self._nk):
                if c[k] == 4 and k != self.gold:
                    out.append(_CONCEALED_KONG[k])
        for m in self.melds[s]:
            if m.type == "pong" and c[m.tiles[0]]:
                out.append(_ADDED_KONG[m.tiles[0]])
        return out

    def _jin_kan_actions(self, s: int) -> list[Action]:
        """R8.5: gold X of rank 2–8; X−1 and X+1 in hand, no gold, the rest complete."""
        g = self.gold
        r = g % 9
        if g >= 27 or not 1 <= r <= 7:
            return []  # (an honour gold has no neighbours)
        c = self.counts[s]
        if c[g] or not c[g - 1] or not c[g + 1]:
            return []
        out = []
        for t in range(27):
            if not c[t]:
                continue
            c2 = list(c)
            c2[t] -= 1
            if not c2[g - 1] or not c2[g + 1]:
                continue
            c2[g - 1] -= 1
            c2[g + 1] -= 1
            kk = [0, 0, 0]
            for k in range(27):
                if c2[k]:
                    kk[k // 9] += c2[k] * POW5[k % 9]
            if is_win_keys(kk[0], kk[1], kk[2], 0):
                out.append(Action("jin_kan", t))
        return out

    def _do_turn(self, s: int, a: Action) -> None:
        t = a.type
        if self.last_group:
            if t == "pass":
                self._next_last_group(s)
            else:
                self._do_kong(s, a)
            return
        if t == "win":
            self._finish(s, "self_draw", None, self.last_drawn)
        elif t == "three_golds":
            self._finish(s, "three_golds", None, None)
        elif t in ("concealed_kong", "added_kong"):
            self._do_kong(s, a)
        elif t == "discard":
            self._discard(s, a.tile, rob=False)
        elif t == "rob_gold":
            self._discard(s, a.tile, rob=True)
        elif t == "jin_kan":
            g = self.gold
            self.jin_kan[s] = True  # R8.5: declared with this discard; the hand is locked
            self.jin_kan_tiles[s] = (g - 1, g + 1)
            self._discard(s, a.tile, rob=False, jin_kan=True)

    def _do_kong(self, s: int, a: Action) -> None:
        k = a.tile
        if a.type == "concealed_kong":
            for _ in range(4):
                self._remove(s, k)
            self.melds[s].append(Meld("kong_concealed", (k,) * 4, None))
            self.concealed_kongs += 1
            self._ev({"type": "kong", "seat": s, "kind": "concealed", "tile": _K[k]})
            self._replacement(s)
            return
        # added kong (加杠): R6 rob-the-kong window first (sanming)
        if self.profile.rob_kong:
            opts = {}
            for i in range(1, self.n):
                o = (s + i) % self.n
                if self._may_win_on(o, k, discard=False):
                    opts[o] = [WIN, PASS]
            if opts:
                self._remove(s, k)
                self._ev({"type": "add_kong_declared", "seat": s, "tile": _K[k]})
                self.phase = _CLAIMS
                self.claim_kind = "rob_kong"
                self.kong_window_prev = (self.claim_tile, self.claim_from)
                self.claim_tile = k
                self.claim_from = s
                self.pending = opts
                self.answers = {}
                return
            self._remove(s, k)
        else:
            self._remove(s, k)
        self._complete_added_kong(s, k)

    def _complete_added_kong(self, s: int, k: int) -> None:
        for m in self.melds[s]:
            if m.type == "pong" and m.tiles[0] == k:
                m.type = "kong_added"
                m.tiles = (k,) * 4
                break
        self.exposed_kongs += 1
        self._ev({"type": "kong", "seat": s, "kind": "added", "tile": _K[k]})
        self._replacement(s)

    def _replacement(self, s: int) -> None:
        """R6: after a kong, a replacement draw from the tail; then act again."""
        if self.wall_left <= 0:
            self._draw_game()
            return
        k = self._draw(s, tail=True)
        if k == -1:
            return
        if self.last_group:
            barred = self._xian_jin_barred(s)  # R8.4, as in _last_group_draw
            if k >= 0 and not barred and self._is_win(s):
                self._finish(s, "last_group", None, k)
            elif k >= 0 and not barred and self.golds(s) == 3:
                self._finish(s, "three_golds", None, None)
            elif k >= 0 and self._kong_actions(s):
                self._begin_turn(s, drew=True)
            else:
                self._next_last_group(s)
            return
        self._begin_turn(s, drew=True)

    def _draw(self, s: int, tail: bool) -> int:
        """Draw for seat s (R4: flowers set aside and replaced from the tail).

        Returns the kind kept, or -1 if the hand ended (wall exhausted)."""
        from_: Literal["head", "tail"] = "tail" if tail else "head"
        while True:
            if self.wall_left <= 0:
                self._draw_game()
                return -1
            if tail:
                k = self._take_tail()
            else:
                k = self.wall[self.head]
                self.head += 1
            self._ev({"type": "draw", "seat": s, "tile": _K[k], "source": from_})
            if not self._fl[k]:
                break
            self.flowers[s].append(k)
            self.sets[s] = flower_sets(self.flowers[s], self._hon)
            self._ev({"type": "flower", "seat": s, "flowers": _K[k]})
            if self.last_group:
                return -2  # R4/D-2: in the last group the draw is spent
            tail = True
            from_ = "tail"
        self._add(s, k)
        self.last_drawn = k
        if self.xian_jin[s]:
            self.xian_jin_draws[s] += 1
        return k

    def _discard(self, s: int, k: int, rob: bool, jin_kan: bool = False) -> None:
        self._remove(s, k)
        self.discards[s].append(k)
        self._ev({"type": "discard", "seat": s, "tile": _K[k], "rob_gold": rob})
        if jin_kan:
            self._ev({"type": "jin_kan", "seat": s, "shown": fmt(self.jin_kan_tiles[s])})
        if k == self.gold:
            self.gold_discarded[s] = True  # R5/D-4: from now on only self-draw
        window_b = self.first_discard_pending and s == self.dealer
        self.first_discard_pending = False
        if self.profile.xian_jin:
            self._update_xian_jin(s)
        self.claim_tile = k
        self.claim_from = s
        self.dealer_rob_discard = rob
        opts: dict[int, list[Action]] = {}
        n = self.n
        quick = not window_b and k != self.gold  # most seats cannot claim at all
        three_rule = self.profile.three_golds_on_discard
        for i in range(1, n):
            o = (s + i) % n
            if (
                quick
                and self.counts[o][k] < 2  # no kong or pong
                and (i != 1 or k >= 27)  # not the chow seat (the next one), or no chow on k
                and not (three_rule and i == n - 1 and self.golds(o) == 3)  # 斗斗 三金倒
                and not self._is_ready(o)  # not ready: no win on k (see _may_win_on)
            ):
                continue  # _claim_options would return nothing
            acts = self._claim_options(o, s, k, window_b)
            if acts:
                opts[o] = [*acts, PASS]
        if rob and not any(ROB_GOLD in a or THREE_GOLDS in a for a in opts.values()):
            # 庄家抢金 beats every claim on t: nobody can outrank it (R8: 闲家抢金 and, in
            # 斗斗, 三金倒 on this discard can — those seats are asked first)
            self._finish(s, "rob_gold", None, self.indicator)
            return
        if not opts:
            self._next_draw((s + 1) % self.n)
            return
        self.phase = _CLAIMS
        self.claim_kind = "window_b" if window_b else "discard"
        self.pending = opts
        self.answers = {}

    def _update_xian_jin(self, s: int) -> None:
        """R8.4 闲金: announced when the hand after a discard wins with ANY playable kind."""
        k0, k1, k2, kh = self.keys[s]
        any_ready = len(self._waits4(k0, k1, k2, kh, self.golds(s))) == self._nk
        if any_ready and not self.xian_jin[s]:
            self.xian_jin[s] = True
            self.xian_jin_draws[s] = 0
            self._ev({"type": "xian_jin", "seat": s})
        elif not any_ready and self.xian_jin[s]:
            self.xian_jin[s] = False
            self._ev({"type": "xian_jin_end", "seat": s})

    def _may_win_on(self, s: int, k: int, discard: bool) -> bool:
        """May seat s win on tile k given by another seat (R5, R6, R8 bars)?"""
        if k == self.gold:
            return False  # R5: a discarded gold can never be won on
        if self.gold_discarded[s] or self.xian_jin[s]:
            return False  # R5 gold-discard restriction; R8.4 闲金
        if self.jin_kan[s]:
            return False
        if not self._is_ready(s):
            return False  # hand + k wins => hand + a gold (standing for k) wins
        return self._wins_with(s, k)

    def _claim_options(self, o: int, d: int, k: int, window_b: bool) -> list[Action]:
        out: list[Action] = []
        if window_b and self._is_ready(o):
            # R8.2: a ready non-dealer may rob the gold (a win on t becomes 抢金); this
            # takes the indicator, not t, so it holds even when t is a gold
            out.append(ROB_GOLD)
        # R7 斗斗: 三金倒 on the discard of one's 下家 (it claims nothing, so a discarded
        # gold does not prevent it)
        three = self.profile.three_golds_on_discard and (o + 1) % self.n == d and self.golds(o) == 3
        if k == self.gold:
            if three:
                out.append(THREE_GOLDS)
            return out  # R5: a discarded gold can never be claimed
        if window_b:
            pass
        elif self._may_win_on(o, k, discard=True):
            out.append(WIN)
        if three:
            out.append(THREE_GOLDS)
        if self.jin_kan[o]:
            return out
        c = self.counts[o]
        chow_seat = o == (d + 1) % self.n and k < 27
        if c[k] < 2 and not chow_seat:
            return out  # no kong, pong or chow on k (most seats stop here)
        if c[k] == 3 and self.wall_left > 0:
            out.append(KONG)
        # R5 sanming forbids discarding a gold: a pong/chow must leave a tile to discard
        spare = (
            self.profile.gold_discard != "forbidden" or self.hand_size(o) - c[self.gold] - 2 >= 1
        )
        if c[k] >= 2 and spare:
            out.append(PONG)
        if chow_seat and spare:  # R7: no honour chows
            r = k % 9
            g = self.gold
            for a, b in ((r - 2, r - 1), (r - 1, r + 1), (r + 1, r + 2)):
                if a >= 0 and b <= 8:
                    ka = k - r + a
                    kb = k - r + b
                    if c[ka] and c[kb] and ka != g and kb != g:
                        out.append(_CHOW[ka, kb])
        return out

    # ------------------------------------------------------------------ claim resolution

    def _resolve(self) -> None:
        ans = self.answers
        kind = self.claim_kind
        if kind == "window_a":
            self._resolve_window_a()
            return
        d = self.claim_from
        k = self.claim_tile
        order = [(d + i) % self.n for i in range(1, self.n)]  # nearest first
        if kind == "rob_kong":
            winners = [s for s in order if _typ(ans.get(s)) == "win"]
            if winners:
                w = self._pick_winner(winners, k, "rob_kong")
                self._finish(w, "rob_kong", None, k)
            else:
                # nobody robbed it: the view's last discard is the last discard again, as
                # after an added kong nobody could rob (R12: that a window was open, and so
                # that a seat was ready on the tile, shows in nothing)
                self.claim_tile, self.claim_from = self.kong_window_prev
                self._complete_added_kong(d, k)
            return
        if kind == "window_b":
            if self.profile.three_golds_on_discard:
                # R8 (revision 2, 斗斗): 三金倒 > 闲家抢金 > 庄家抢金 on the dealer's first discard
                three = [s for s in order if _typ(ans.get(s)) == "three_golds"]
                if three:
                    self._finish(three[0], "three_golds", None, None)
                    return
            robbers = [s for s in order if _typ(ans.get(s)) == "rob_gold"]
            if robbers:
                self._finish(robbers[0], "rob_gold", None, self.indicator)  # nearest first
                return
            if self.dealer_rob_discard:
                self._finish(d, "rob_gold", None, self.indicator)
                return
        wins = [s for s in order if _typ(ans.get(s)) in ("win", "three_golds")]
        if wins:
            w = self._pick_winner(wins, k, "discard")
            if ans[w].type == "three_golds":
                self._finish(w, "three_golds", None, None)
            else:
                self._finish(w, "discard", d, k)
            return
        for s in order:
            a = ans.get(s)
            if a is not None and a.type in ("kong", "pong"):
                self._claim_meld(s, a, d, k)
                return
        for s in order:
            a = ans.get(s)
            if a is not None and a.type == "chow":
                self._claim_meld(s, a, d, k)
                return
        self._next_draw((d + 1) % self.n)

    def _resolve_window_a(self) -> None:
        ans = self.answers
        order = [(self.dealer + i) % self.n for i in range(self.n)]
        for what in self.profile.opening_priority:  # R8.1
            for s in order:
                a = ans.get(s)
                if what == "tian_hu" and _typ(a) == "win":
                    self._finish(s, "heavenly", None, self.last_drawn)
                    return
                if what == "san_jin_dao" and _typ(a) == "three_golds":
                    self._finish(s, "three_golds", None, None)
                    return
        self._begin_turn(self.dealer, drew=False)

    def _pick_winner(self, cands: list[int], k: int, how: str) -> int:
        """R6: only one player wins a discard."""
        if len(cands) == 1:
            return cands[0]
        rule = self.profile.discard_winner
        if rule == "jin_que_then_nearest":
            for s in cands:  # nearest first
                if _typ(self.answers.get(s)) == "three_golds" or self._jin_que_with(s, k):
                    return s
            return cands[0]
        if rule == "highest_score":  # sanming 拦胡: higher score, ties to the nearest
            best, best_pts = cands[0], -1
            for s in cands:
                if _typ(self.answers.get(s)) == "three_golds":
                    sit = self._situation_for(s, "three_golds", None, None)
                else:
                    win = "rob_kong" if how == "rob_kong" else "discard"
                    sit = self._situation_for(
                        s, win, self.claim_from if win == "discard" else None, k
                    )
                pts = score(sit).points
                if pts > best_pts:
                    best, best_pts = s, pts
            return best
        return cands[0]

    def _jin_que_with(self, s: int, k: int) -> bool:
        c = list(self.counts[s])
        c[k] += 1
        if self._hon:
            decs = decompositions(c, self.gold, self._exposed(s), honours=True)
        else:
            decs = decompositions(c[:27], self.gold, self._exposed(s))
        return any(d.gold_pair for d in decs)

    def _claim_meld(self, s: int, a: Action, d: int, k: int) -> None:
        self.discards[d].pop()
        if a.type == "chow":
            for t in a.tiles:
                self._remove(s, t)
            tiles = tuple(sorted((*a.tiles, k)))
            self.melds[s].append(Meld("chow", tiles, d))
            self._ev({"type": "claim", "seat": s, "meld": "chow", "tiles": fmt(tiles), "from": d})
            self._begin_turn(s, drew=False)
        elif a.type == "pong":
            self._remove(s, k)
            self._remove(s, k)
            self.melds[s].append(Meld("pong", (k,) * 3, d))
            self._ev(
                {"type": "claim", "seat": s, "meld": "pong", "tiles": fmt((k,) * 3), "from": d}
            )
            self._begin_turn(s, drew=False)
        else:
            for _ in range(3):
                self._remove(s, k)
            self.melds[s].append(Meld("kong_exposed", (k,) * 4, d))
            self.exposed_kongs += 1
            self._ev(
                {"type": "claim", "seat": s, "meld": "kong", "tiles": fmt((k,) * 4), "from": d}
            )
            self._replacement(s)

    # ------------------------------------------------------------------ draws, last group

    def _next_draw(self, s: int) -> None:
        """Seat s is due to draw from the head (R5: or the last group starts)."""
        if self.live <= self.n:
            if not self.last_group:
                self.last_group = True
                self._ev({"type": "last_group", "live": self.live})
            self._last_group_draw(s)
            return
        k = self._draw(s, tail=False)
        if k >= 0:
            self._begin_turn(s, drew=True)

    def _last_group_draw(self, s: int) -> None:
        """R5: one draw per player in play order; no discards; wins are automatic."""
        while True:
            if self.live <= 0:
                self._draw_game()
                return
            k = self._draw(s, tail=False)
            if k == -1:
                return
            if k >= 0:
                # R8.4 (revision 2): a 闲金 player's first draw after the announcement
                # never wins, not even here; that draw is simply spent
                if not self._xian_jin_barred(s):
                    if self._is_win(s):
                        self._finish(s, "last_group", None, k)
                        return
                    if self.golds(s) == 3:
                        # R5/R7: wins are automatic in the last group; three golds is a win
                        self._finish(s, "three_golds", None, None)
                        return
                if self._kong_actions(s):
                    self._begin_turn(s, drew=True)
                    return
            s = (s + 1) % self.n

    def _next_last_group(self, s: int) -> None:
        self.phase = _LAST_GROUP
        self._last_group_draw((s + 1) % self.n)

    def _draw_game(self) -> None:
        self.phase = _OVER
        self.win = None
        self._situation = Situation(
            profile=self.profile, seats=self.n, dealer=self.dealer, win="draw", streak=self.streak
        )
        self._score = score(self._situation)
        self._ev({"type": "draw_game", "payments": list(self._score.payments)})
        self._end()

    # ------------------------------------------------------------------ end of hand

    def _situation_for(
        self, s: int, win: str, discarder: int | None, tile: int | None
    ) -> Situation:
        hand = self.hand(s)
        if tile is not None and win in ("discard", "rob_kong", "rob_gold"):
            hand = sorted([*hand, tile])
        melds = tuple(MeldIn(m.type, m.tiles) for m in self.melds[s])
        return Situation(
            profile=self.profile,
            seats=self.n,
            dealer=self.dealer,
            win=win,
            gold=self.gold,
            winner=s,
            discarder=discarder,
            hand=tuple(hand),
            winning_tile=tile,
            melds=melds,
            flowers=tuple(self.flowers[s]),
            streak=self.streak,
            jinkan_declared=self.jin_kan[s],
        )

    def _finish(self, s: int, win: WinKind, discarder: int | None, tile: int | None) -> None:
        sit = self._situation_for(s, win, discarder, tile)
        if win == "discard" and tile is not None and discarder is not None:
            self.discards[discarder].pop()
            self._add(s, tile)
        elif win == "rob_kong" and tile is not None:
            self._add(s, tile)
        elif win == "rob_gold":
            self._add(s, self.indicator)  # D-15: the winner takes the indicator
        self._situation = sit
        self._score = score(sit)
        self.win = {"winner": s, "win": win, "discarder": discarder}
        self.phase = _OVER
        self._ev(
            {
                "type": "win",
                "seat": s,
                "win": win,
                "discarder": discarder,
                "tile": _K[tile] if tile is not None and tile >= 0 else None,
                "points": self._score.points,
                "payments": list(self._score.payments),
                "specials": list(self._score.specials),
            }
        )
        self._end()

    def _end(self) -> None:
        self._ev(
            {
                "type": "end",
                "seed": self.seed,
                "hands": {str(s): fmt(self.hand(s)) for s in range(self.n)},
            }
        )

    def result(self) -> Situation | None:
        """The win (or draw) situation ready for scoring; None while the hand runs."""
        return self._situation

    def score(self) -> Score | None:
        """The R10 score of the finished hand."""
        return self._score

    # ------------------------------------------------------------------ views (R12)

    def _check_seat(self, seat: object) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise IllegalAction(f"there is no seat {_short(seat)} (players 0-{self.n - 1})")
        return seat

    def seat_view(self, seat: object) -> SeatView:
        """R12: the seat's view as an object with cheap accessors (for bots)."""
        return SeatView(self, self._check_seat(seat))

    def view(self, seat: object) -> dict[str, Any]:
        """Everything seat ``seat`` may see (R12) — never another seat's concealed tiles or
        the wall order until the hand is over.

        ``to_act`` is ``[seat]`` when this seat must act or answer now, else ``[]``: who else
        was asked to answer a discard (or to declare in an opening window), and who has
        answered, is private (R12, revision 2). ``phase`` ("claims", "window_a", "turn",
        "over") is public. The referee's :meth:`to_act` still lists every seat."""
        seat = self._check_seat(seat)
        over = self.phase is _OVER
        v: dict[str, Any] = {
            "seat": seat,
            "profile": self.profile.name,
            "players": self.n,
            "dealer": self.dealer,
            "streak": self.streak,
            "dice": list(self.dice),
            "gold": _K[self.gold] if self.gold >= 0 else None,
            "indicator": _K[self.indicator] if self.indicator >= 0 else None,
            "phase": self.phase,
            "turn": self.turn,
            "to_act": [seat] if seat in self.to_act() else [],
            "hand": fmt(self.hand(seat)),
            "hand_sizes": [self.hand_size(s) for s in range(self.n)],
            "melds": [
                [m.to_json(hidden=(s != seat and not over)) for m in self.melds[s]]
                for s in range(self.n)
            ],
            "flowers": [fmt(f) for f in self.flowers],
            "discards": [fmt(d) for d in self.discards],
            "live": self.live,
            "reserve": self.reserve,
            "wall": self.wall_left,
            "last_group": self.last_group,
            "last_discard": (
                {"seat": self.claim_from, "tile": _K[self.claim_tile]}
                if self.claim_tile >= 0
                else None
            ),
            "xian_jin": [s for s in range(self.n) if self.xian_jin[s]],
            "jin_kan": {
                str(s): fmt(self.jin_kan_tiles[s]) for s in range(self.n) if self.jin_kan[s]
            },
            "gold_discarded": [s for s in range(self.n) if self.gold_discarded[s]],
            "legal_actions": [a.to_json() for a in self.legal_actions(seat)],
            "drawn": _K[self.last_drawn]
            if self.phase is _TURN
            and self.turn == seat
            and self.drew_this_turn
            and self.last_drawn >= 0
            else None,
        }
        if over:
            v["hands"] = {str(s): fmt(self.hand(s)) for s in range(self.n)}
            v["result"] = self.win
            v["score"] = self._score.to_json() if self._score else None
        return v

    # ------------------------------------------------------------------ misc

    def tiles_accounted(self) -> list[int]:
        """Counts of every kind over wall, hands, melds, discards, flowers and indicator."""
        c = [0] * 42
        for k in self.wall[self.head : self.tail + 1]:
            c[k] += 1
        if self.phase is _CLAIMS and self.claim_kind == "rob_kong":
            c[self.claim_tile] += 1  # R6: the added tile, offered to rob, is in no hand yet
        for s in range(self.n):
            for k in range(_NK):
                c[k] += self.counts[s][k]
            for m in self.melds[s]:
                for k in m.tiles:
                    c[k] += 1
            for k in self.discards[s]:
                c[k] += 1
            for k in self.flowers[s]:
                c[k] += 1
        if self.indicator >= 0 and not (self.win and self.win["win"] == "rob_gold"):
            c[self.indicator] += 1
        return c


assert NUM_TILES == 144


def _restore_game(
    profile: Profile, players: int, dealer: int, streak: int, state: dict[str, Any]
) -> Game:
    """The inverse of ``Game.__reduce__``."""
    g = Game(profile, players, dealer, streak)
    for k, v in state.items():
        setattr(g, k, v)
    return g
