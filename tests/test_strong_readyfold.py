"""StrongBot's ``ready_fold`` and ``stay_ready`` options (bots/strong.py): with a ready hand
at its turn (R6/R7: one more tile completes it), the discard worth most by
:func:`ready_choices` (the model of ``wait_value``: own self-draws paid by each other seat,
R10, later discard wins, other seats winning first, deal-ins) replaces the fast bot's when
it is worth more by the option's margin: ``ready_fold`` when the fast bot keeps the hand
ready (a safer discard, or breaking it), ``stay_ready`` when the fast bot breaks it."""

from __future__ import annotations

from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.bots.heuristic import THREAT
from fujian_mahjong.bots.strong import StrongBot, ready_choices
from fujian_mahjong.engine import Action, Game, build_wall
from fujian_mahjong.tiles import parse

# two positions of 1 v 3 hands (fuzhou-tcy, dealer 0): the wall (head to tail, as dealt, R3)
# and the dice, then the decisions up to the ready seat's turn ("seat:type[:tile][:tiles]")
_BREAKS = (
    "9m2z8m6z6m6z2m4z9s9m4s2f8m4p7z3m4s5m98s4m6s7f99p1m3p8m4s6p6f81p5s6p2z96s5p5z321s3z76p41z"
    "15f6s1z5p466m7p38m74s4m3s12p7s4f9s9731m5z4p2s5p13z3m2p5z3s8f45p2s3z5s4m7z52m9p29m1s4z1p"
    "67z1s3p7m3z3f3p71m8s16z7m7s2m3s876p8s14p6m7z2s2z1m38p5m1s7p6s2p5z5m2z9p5s8p87s2p4z5s",
    (1, 5),
    "0:discard:4 1:pass 1:discard:26 2:discard:17 1:pong 3:chow:15,16 1:discard:23 "
    "2:discard:15 3:pong 3:discard:9 0:discard:14 3:pass 1:discard:1 2:chow:0,2 2:discard:0 "
    "3:discard:7 2:pass 0:discard:0 1:discard:13 2:discard:24 3:discard:23 0:chow:21,22 "
    "0:discard:22 1:chow:23,24 1:discard:22 2:chow:20,21 2:discard:18",
)
_KEEPS = (
    "6p6m5f1z2s9p7s76f931m9p6s1f7s5z1s2472z7p35m77z82m2f4s7p5s6p3s1p6m9s38p5m4p88s6z94s4354p"
    "1m21s4z4s4m8f9m5s1z21p4f15s2z13m8s3m1p29m48s6p3z4p67s5z2p8m2p7m2p4z4m4z33s6p3s11z725m9p"
    "2s5p2s7p6m9s3f1m8p3z7692m5s58m7p335z5p7m1s2z6s9p76z6s8m8p4m6z9s4m5z83p7s3p6z15p",
    (6, 1),
    "0:discard:0 1:discard:26 2:discard:18 0:pong 0:discard:5 1:discard:0 2:discard:12 "
    "3:discard:1 0:discard:2 2:pong 2:discard:0 3:discard:6 0:discard:1 1:chow:2,3 "
    "1:discard:5 2:pass 2:discard:26 3:pass 3:discard:10 0:pass 0:discard:14 1:chow:15,16 "
    "1:discard:18 2:discard:22 3:pass 3:discard:17 0:discard:14 1:pass",
)


def _game(pos: tuple[str, tuple[int, int], str]) -> Game:
    text, dice, moves = pos
    wall = parse(text)
    # R3: four rounds of four tiles a seat from the dealer, then the dealer's 17th
    deal = {
        s: [k for r in range(4) for k in wall[16 * r + 4 * s : 16 * r + 4 * s + 4]]
        for s in range(4)
    }
    deal[0].append(wall[64])
    stacked = build_wall(deal, draws=wall[65:])
    assert stacked == wall
    g = Game.from_wall("fuzhou-tcy", stacked, dice=dice, dealer=0)
    for m in moves.split():
        seat, kind, *rest = m.split(":")
        tile = int(rest[0]) if rest and "," not in rest[0] else -1
        tiles = tuple(int(x) for x in rest[-1].split(",")) if rest and "," in rest[-1] else ()
        if tiles:
            g.apply(int(seat), Action(kind, tiles=tiles))
        elif tile >= 0:
            g.apply(int(seat), Action(kind, tile))
        else:
            g.apply(int(seat), Action(kind))
    return g


def test_staying_ready_when_the_fast_bot_breaks_the_hand() -> None:
    """Seat 3 holds 3345m 45668p 12344s (gold 2s), ready by throwing 3m; the fast bot
    folds with 1s against seat 1's two melds. Staying ready is worth more."""
    v = _game(_BREAKS).seat_view(3)
    assert v.phase == "turn"
    fast = HeuristicBot(3).act(v).action
    assert fast == Action("discard", parse("1s")[0])
    ch = ready_choices(v, fast.tile)
    assert ch is not None
    m3, s1 = parse("3m")[0], parse("1s")[0]
    assert ch[m3].ready and not ch[s1].ready
    assert ch[m3].risk > ch[s1].risk > 0
    gain = ch[m3].value - ch[s1].value
    assert gain > 1.0
    # off (0): the fast bot's discard; the 高手 stays ready by default (STAY_READY_MARGIN)
    assert StrongBot(3, screen=1e9, stay_ready=0).act(v).action == fast
    assert StrongBot(3, screen=1e9).act(v).action == Action("discard", m3)
    d = StrongBot(3, screen=1e9, stay_ready=0.01).act(v)
    assert d.action == Action("discard", m3)
    assert "keeps the hand ready" in d.reason and "保持听牌" in d.reason_zh
    assert StrongBot(3, screen=1e9, stay_ready=gain + 0.1).act(v).action == fast
    # ready_fold is for the fast bot's ready discards only
    assert StrongBot(3, screen=1e9, ready_fold=0.01, stay_ready=0).act(v).action == fast


def test_a_safer_ready_discard() -> None:
    """Seat 1 holds 33789p 224567s (gold 8m, two chows shown) late in the hand; the fast bot
    throws 7s (ready, 6 effective tiles), 2s keeps it ready and is safer."""
    v = _game(_KEEPS).seat_view(1)
    fast = HeuristicBot(1).act(v).action
    s2, s7, p9 = parse("2s")[0], parse("7s")[0], parse("9p")[0]
    assert fast == Action("discard", s7)
    ch = ready_choices(v, fast.tile)
    assert ch is not None
    assert ch[s7].ready and ch[s2].ready and not ch[p9].ready  # 9p: the safest, breaking it
    assert ch[s2].risk < ch[s7].risk
    gain = ch[s2].value - ch[s7].value
    assert gain > 2.0
    assert max(ch.values(), key=lambda r: r.value).tile == s2
    # with the 普通's defence threshold the fast bot's 7s stands unless ready_fold is on
    old = {"screen": 1e9, "threat": THREAT}
    assert StrongBot(1, **old).act(v).action == fast
    d = StrongBot(1, **old, ready_fold=2.0).act(v)
    assert d.action == Action("discard", s2)
    assert StrongBot(1, **old, ready_fold=gain + 0.1).act(v).action == fast
    assert StrongBot(1, **old, stay_ready=0.01).act(v).action == fast
    # the 高手's own fast bot (STRONG_THREAT) already defends here, to the same 2s
    d = StrongBot(1, screen=1e9).act(v)
    assert d.action == Action("discard", s2) and d.reason.startswith("defence:")


def test_no_choices_off_turn() -> None:
    for pos, seat in ((_KEEPS, 1), (_BREAKS, 3)):
        g = _game(pos)
        for s in range(4):
            if s != seat:
                assert ready_choices(g.seat_view(s)) is None  # not its turn
