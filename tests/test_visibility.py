"""The claim-pause rules (R12 rev 2) and the table's timers, without sockets: the pure
visibility module and the scheduler on a fake clock."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.engine import Game, Phase
from fujian_mahjong.engine.tenpai import seat_ready_discards, seat_waits
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.clock import FakeClock
from fujian_mahjong.server.scheduler import Scheduler
from fujian_mahjong.tiles import KIND_STR, parse, parse_kind


@given(
    seat=st.one_of(st.none(), st.integers(0, 3)),
    phase=st.sampled_from(list(Phase)),
    asked=st.frozensets(st.integers(0, 3)),
    legal=st.booleans(),
    held=st.booleans(),
    rejoining=st.booleans(),
    has_last=st.booleans(),
)
def test_a_seat_not_asked_sees_nothing_new_in_a_pause_or_window(
    seat: int | None,
    phase: Phase,
    asked: frozenset[int],
    legal: bool,
    held: bool,
    rejoining: bool,
    has_last: bool,
) -> None:
    """R12 rev 2: only a seat still to answer sees an open window; during the pause nobody
    else gets a new view (a rejoining client gets what it saw last, nothing newer)."""
    is_asked = vis.still_asked(seat, phase, asked, legal)
    show = vis.what_to_show(is_asked, held, vis.in_window(phase), rejoining, has_last)
    if is_asked:
        assert seat is not None and seat in asked and legal and vis.in_window(phase)
        assert show == "new"
    elif held or vis.in_window(phase):
        assert show != "new"
        assert show == ("last" if rejoining and has_last else "nothing")
    else:
        assert show == "new"
    # the seat list stays still for everyone during a pause or an open window
    assert vis.quiet(True, 1.0, 2.0 if held else 0.0, phase) == (held or vis.in_window(phase))


def test_notices_of_a_discard_and_an_added_kong_are_public_and_carry_no_hand() -> None:
    events = [
        {"type": "draw", "seat": 0, "tile": "3p"},
        {"type": "discard", "seat": 0, "tile": "5m"},
        {"type": "add_kong_declared", "seat": 2, "tile": "7s"},
    ]
    assert vis.opens_window(events)
    assert not vis.opens_window(events[:1])
    assert vis.notices(events, 7, 12) == [
        {"type": "discard", "table": 7, "hand": 12, "seat": 0, "tile": "5m"},
        {"type": "added_kong", "table": 7, "hand": 12, "seat": 2, "tile": "7s"},
    ]


def test_every_added_kong_is_announced_where_a_kong_may_be_robbed() -> None:
    """R6 (抢杠, sanming), R12: where a kong may be robbed, an added kong nobody may rob
    (the engine completes it at once, after its owner's own act) is announced like one that
    may be (the engine's ``add_kong_declared``), so the notice and its pause say nothing of
    the other hands. The kong that completes after its window (after the others' answers)
    is not announced again; where no kong may be robbed, none is announced."""
    at_once = [
        {"type": "act", "seat": 1, "action": {"type": "added_kong", "tile": "5m"}},
        {"type": "kong", "seat": 1, "kind": "added", "tile": "5m"},
        {"type": "draw", "seat": 1, "tile": "3p"},
    ]
    assert vis.opens_window(at_once, rob_kong=True)
    assert vis.notices(at_once, 7, 12, rob_kong=True) == [
        {"type": "added_kong", "table": 7, "hand": 12, "seat": 1, "tile": "5m"}
    ]
    assert not vis.opens_window(at_once) and vis.notices(at_once, 7, 12) == []
    after_window = [
        {"type": "act", "seat": 3, "action": {"type": "pass"}},
        {"type": "kong", "seat": 1, "kind": "added", "tile": "5m"},
        {"type": "draw", "seat": 1, "tile": "3p"},
    ]
    assert not vis.opens_window(after_window, rob_kong=True)
    concealed = [
        {"type": "act", "seat": 1, "action": {"type": "concealed_kong", "tile": "5m"}},
        {"type": "kong", "seat": 1, "kind": "concealed", "tile": "5m"},
    ]
    assert not vis.opens_window(concealed, rob_kong=True)


def test_seat_waits_from_a_ready_hand() -> None:
    g = Game.new("fuzhou-tcy", seed=5)
    v: dict[str, Any] = dict(g.view(0))
    v["hand"] = "1m2m3m4p5p6p7s8s9s1m2m3m1p1p2s3s"  # five sets and a pair but for 1s/4s
    v["gold"] = "9p"
    v["melds"] = [[], [], [], []]
    w = seat_waits(v)
    assert w is not None and "1s" in w and "4s" in w and "5m" not in w
    v["hand"] = "1m"  # a hand of the wrong size is not ready
    assert seat_waits({**v, "hand": "1m2m"}) is None


def test_ready_discards_name_each_discard_that_leaves_the_hand_ready() -> None:
    """R7 (waits with the golds): on the seat's own turn, 听牌提示 lists every discard that
    leaves its concealed hand ready, with the waits it would have then."""
    g = Game.new("fuzhou-tcy", seed=5)
    v: dict[str, Any] = dict(g.view(0))
    v["melds"] = [[], [], [], []]
    v["gold"] = "9p"
    # four sets, a pair, 2s3s and a loose 7m: discarding 7m leaves the hand waiting on 1s
    # or 4s; any other discard leaves it short
    v["hand"] = "1m2m3m4p5p6p7s8s9s1m2m3m1p1p2s3s7m"
    v["legal_actions"] = [{"type": "discard", "tile": k} for k in ("7m", "2s", "3s", "1p")]
    ready = seat_ready_discards(v)
    assert ready is not None and set(ready) == {"7m"}
    assert {"1s", "4s"} <= set(ready["7m"])
    assert ready["7m"] == seat_waits({**v, "hand": "1m2m3m4p5p6p7s8s9s1m2m3m1p1p2s3s"})
    # no discard to make (a claim prompt, another seat's turn): nothing
    assert seat_ready_discards({**v, "legal_actions": [{"type": "pass"}]}) is None
    # a hand far from ready: nothing, found at once (its shanten above 0)
    far = {**v, "hand": "1m4m7m1p4p7p1s4s7s2m5m8m2p5p8p2s5s"}
    far["legal_actions"] = [{"type": "discard", "tile": "1m"}]
    assert seat_ready_discards(far) is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), profile=st.sampled_from(["fuzhou-tcy", "fuzhou-doudou"]))
def test_ready_discards_equal_the_waits_after_each_discard(seed: int, profile: str) -> None:
    """On every own turn of a played hand, ``seat_ready_discards`` (with its shanten
    shortcut) names exactly the legal discards after which ``seat_waits`` finds waits."""
    from fujian_mahjong.bots import HeuristicBot

    g = Game.new(profile, str(seed))
    bot = HeuristicBot()
    while not g.is_over():
        seat = g.to_act()[0]
        v = g.view(seat)
        kinds = sorted({a["tile"] for a in v["legal_actions"] if a["type"] == "discard"})
        expected = {}
        for k in kinds:
            rest = parse(v["hand"])
            rest.remove(parse_kind(k))
            w = seat_waits({**v, "hand": "".join(KIND_STR[x] for x in rest)})
            if w:
                expected[k] = w
        assert seat_ready_discards(v) == (expected or None)
        g.apply(seat, bot.act(g.seat_view(seat)).action)


class _Seat:
    def __init__(self, bot: bool = False, auto: bool = False) -> None:
        self.bot = bot
        self.auto = auto

    @property
    def human(self) -> bool:
        return not self.bot

    away = False


def test_scheduler_deadlines_bots_and_the_pause_on_a_fake_clock() -> None:
    clock = FakeClock()
    posted: list[tuple[int, int]] = []
    sched = Scheduler(clock, lambda fn: posted.append(fn()))  # type: ignore[arg-type, func-returns-value]

    def cmd(seat: int, key: int) -> Any:
        return lambda: (seat, key)

    seats = [_Seat(), _Seat(bot=True), _Seat(auto=True), _Seat()]
    # seat 0's own turn: a deadline turn_seconds away; nothing fires before it
    timers = sched.plan([0], seats, 10, Phase.TURN, -1, frozenset(), False, 0.3, 15.0, cmd)
    # the scheduler decides; nothing is set until the table sets it (TableActor._plan)
    assert clock.pending() == [] and [(k, d) for k, d, _c in timers] == [(("act", 0), 15.0)]
    sched.set(timers)
    assert sched.deadline_ms(0, 10) == 15_000
    clock.advance(14.9)
    assert posted == []
    clock.advance(0.2)
    assert posted == [(0, 10)]
    # a bot and a 托管 seat act after the bot delay on their turn, at once inside a window
    sched.set(sched.plan([1], seats, 11, Phase.TURN, -1, frozenset(), False, 0.3, 15.0, cmd))
    assert posted == [(0, 10)]
    clock.advance(0.3)
    assert posted[-1] == (1, 11)
    sched.set(
        sched.plan([2, 3], seats, 12, Phase.CLAIMS, 12, frozenset({2, 3}), True, 0.3, 15.0, cmd)
    )
    assert posted[-1] == (2, 12)  # at once: hidden by the pause
    assert sched.deadline_ms(3, 12) == 15_000
    # another seat answered: the same window keeps the same deadline for seat 3
    clock.advance(1.0)
    sched.forget(2)
    sched.set(sched.plan([3], seats, 13, Phase.CLAIMS, 12, frozenset({2, 3}), True, 0.3, 15.0, cmd))
    assert sched.deadline_ms(3, 13) == 14_000
    # during the pause a seat that was not asked is not planned
    n = len(posted)
    sched.set(sched.plan([0], seats, 14, Phase.TURN, -1, frozenset(), True, 0.3, 15.0, cmd))
    assert sched.deadline_ms(0, 14) is None and sched.scheduled.get(0) != 14
    clock.advance(60)
    assert len(posted) == n + 1 and posted[-1] == (3, 13)  # only seat 3's deadline fired
    sched.clear_acts()
    assert clock.pending() == [] and not sched.scheduled
