"""R7 specials and R10 scoring: worked examples derived by hand from RULES.md.

Each case carries its arithmetic (the ``why`` string) next to the expected numbers.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fujian_mahjong.errors import ScoreInputError
from fujian_mahjong.rules import get_profile
from fujian_mahjong.scoring import score, situation_from_json

STD = "234m567m345p678p789s99s"  # a plain 17-tile winning hand, no golds when the gold is 1s
SPARROW = "234m567m345s678s789s5p5p"  # two golds (gold 5p) as the pair
DRAGON = "234m567m345s678s99s5p5p5p"  # three golds (gold 5p) as a pong of 5p
NOSHAPE3 = "12467m239p134789s5p5p5p"  # three golds, no complete shape


def sit(profile: str, **kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "profile": profile,
        "gold": "1s",
        "seats": 4,
        "dealer": 0,
        "winner": 1,
        "discarder": None,
        "win": "self_draw",
        "hand": STD,
        "winning_tile": "9s",
        "melds": [],
        "flowers": "",
        "streak": 0,
    }
    d.update(kw)
    return d


def each(x: int, winner: int, seats: int = 4) -> list[int]:
    return [x * (seats - 1) if s == winner else -x for s in range(seats)]


def disc(x: int, winner: int, discarder: int, seats: int = 4) -> list[int]:
    out = [0] * seats
    out[winner] = x
    out[discarder] = -x
    return out


D = {"win": "discard", "winner": 2, "discarder": 1}

CASES: list[tuple[str, dict[str, Any], int, list[int], list[str], str]] = [
    # ---------------------------------------------------------------- fuzhou-tcy
    (
        "tcy self-draw",
        sit("fuzhou-tcy", winner=3, flowers="5z6z7z"),
        16,
        each(16, 3),
        [],
        "F=3; (3+0+0+5)*2 = 16; each of 3 pays 16",
    ),
    (
        "tcy discard",
        sit("fuzhou-tcy", flowers="1f2f", **D),
        14,
        disc(14, 2, 1),
        [],
        "F=2; (2+5)*2 = 14; the discarder pays",
    ),
    (
        "tcy ping hu discard",
        sit("fuzhou-tcy", **D),
        40,
        disc(40, 2, 1),
        ["ping_hu"],
        "no flowers no kongs: (0+5)*2 + 30 = 40",
    ),
    (
        "tcy ping hu one flower",
        sit("fuzhou-tcy", flowers="3f"),
        27,
        each(27, 1),
        ["ping_hu_one_flower"],
        "F=1: (1+5)*2 + 15 = 27",
    ),
    (
        "tcy flower set counts 6",
        sit("fuzhou-tcy", winner=0, flowers="1z1z1z1z"),
        22,
        each(22, 0),
        [],
        "fl=4, sets=1: F = 4+2 = 6; (6+5)*2 = 22",
    ),
    (
        "tcy dealer streak",
        sit("fuzhou-tcy", winner=0, flowers="1f", streak=2),
        31,
        each(31, 0),
        ["ping_hu_one_flower"],
        "F=1, L=2: (1+2+5)*2 + 15 = 31",
    ),
    (
        "tcy catching the dealer",
        sit("fuzhou-tcy", winner=1, win="discard", discarder=0, flowers="1f2f", streak=3),
        20,
        disc(20, 1, 0),
        [],
        "F=2, L=3: (2+3+5)*2 = 20",
    ),
    (
        "tcy kongs as flowers",
        sit(
            "fuzhou-tcy",
            hand="234m345p789s99s",
            melds=[
                {"type": "kong_exposed", "tiles": "5555m"},
                {"type": "kong_concealed", "tiles": "7777p"},
            ],
            flowers="1f",
        ),
        18,
        each(18, 1),
        [],
        "F = 1 + mk 1 + 2*ak 2 = 4: (4+5)*2 = 18",
    ),
    (
        "tcy added kong is exposed",
        sit(
            "fuzhou-tcy",
            hand="234m567m345p678p99s",
            melds=[{"type": "kong_added", "tiles": "6666s"}],
        ),
        12,
        each(12, 1),
        [],
        "F = mk 1: (1+5)*2 = 12; a kong: no ping hu",
    ),
    (
        "tcy gold sparrow",
        sit("fuzhou-tcy", gold="5p", hand=SPARROW, winning_tile="9s", flowers="1f2f"),
        78,
        each(78, 1),
        ["jin_que"],
        "F=2, G=2: (2+2+5)*2 + 60 = 78",
    ),
    (
        "tcy gold dragon",
        sit("fuzhou-tcy", gold="5p", hand=DRAGON, flowers="1f2f"),
        140,
        each(140, 1),
        ["san_jin_dao", "jin_long"],
        "F=2 G=3: (2+3+5)*2 + max(40,120) = 140",
    ),
    (
        "tcy three golds declared",
        sit(
            "fuzhou-tcy",
            gold="5p",
            hand=NOSHAPE3,
            win="three_golds",
            winning_tile=None,
            flowers="1f",
        ),
        58,
        each(58, 1),
        ["san_jin_dao", "ping_hu_one_flower"],
        "F=1 G=3: (1+3+5)*2 + max(40, 15) = 58",
    ),
    (
        "tcy heavenly",
        sit("fuzhou-tcy", winner=0, win="heavenly", flowers="1f2f"),
        44,
        each(44, 0),
        ["tian_hu"],
        "F=2: (2+5)*2 + 30 = 44",
    ),
    (
        "tcy rob gold",
        sit(
            "fuzhou-tcy",
            winner=2,
            gold="5p",
            win="rob_gold",
            hand="234m567m345s678s789s9s5p",
            winning_tile="5p",
            flowers="1f2f3f",
        ),
        48,
        each(48, 2),
        ["qiang_jin"],
        "F=3, G=1 (robbed gold counts, D-15): (3+1+5)*2 + 30 = 48",
    ),
    (
        "tcy robbed gold not three golds",
        sit(
            "fuzhou-tcy",
            winner=2,
            gold="5p",
            win="rob_gold",
            hand=DRAGON,
            winning_tile="5p",
            flowers="1f",
        ),
        138,
        each(138, 2),
        ["qiang_jin", "jin_long", "ping_hu_one_flower"],
        "G=3 but the robbed one never counts for 三金倒 (D-15); 金龙: (1+3+5)*2 + 120 = 138",
    ),
    (
        "tcy last group win is self-draw",
        sit("fuzhou-tcy", win="last_group", flowers="1f2f"),
        14,
        each(14, 1),
        [],
        "F=2: (2+5)*2 = 14, each pays",
    ),
    (
        "tcy three golds on a 16-tile hand (window A)",
        sit(
            "fuzhou-tcy",
            gold="5p",
            hand="1246m239p134789s5p5p5p",
            win="three_golds",
            winning_tile=None,
            flowers="1f",
        ),
        58,
        each(58, 1),
        ["san_jin_dao", "ping_hu_one_flower"],
        "a non-dealer's 16 tiles: F=1 G=3: (1+3+5)*2 + max(40, 15) = 58",
    ),
    # ---------------------------------------------------------------- fuzhou-bianfeng
    (
        "bianfeng conformance",
        sit(
            "fuzhou-bianfeng",
            gold="3s",
            dealer=1,
            winner=1,
            hand="123p456p789p11s789s",
            winning_tile="1s",
            melds=[{"type": "kong_exposed", "tiles": "5555m"}],
            flowers="4z",
            streak=1,
        ),
        8,
        each(8, 1),
        [],
        "H = 1+1 = 2, L=1: 2*(1*(1+1) + 2) = 8",
    ),
    (
        "bianfeng discard",
        sit("fuzhou-bianfeng", flowers="1f2f3f", **D),
        8,
        disc(8, 2, 1),
        [],
        "H=3: 2*(1 + 3) = 8, the discarder pays",
    ),
    (
        "bianfeng ping hu on a discard costs 2P",
        sit("fuzhou-bianfeng", **D),
        60,
        disc(60, 2, 1),
        ["ping_hu"],
        "R10 rev. 2: special m=30, H=0: P = 1*(30+0) + 0 = 30; the discarder pays 2P = 60",
    ),
    (
        "bianfeng ping hu self-drawn pays P each",
        sit("fuzhou-bianfeng"),
        30,
        each(30, 1),
        ["ping_hu"],
        "R10: self-drawn special unchanged: P = 30 from each",
    ),
    (
        "bianfeng gold sparrow on a discard costs 2P",
        sit("fuzhou-bianfeng", gold="5p", hand=SPARROW, flowers="1f", streak=2, **D),
        136,
        disc(136, 2, 1),
        ["jin_que"],
        "R10 rev. 2: H = 1 + G 2 = 3, L=2: P = (60+2) + 2*3 = 68; the discarder pays 136",
    ),
    (
        "bianfeng gold sparrow on a discard, base 3",
        sit("fuzhou-bianfeng", gold="5p", hand=SPARROW, base=3, **D),
        2 * (3 * 60 + 2 * 3 * 2),
        disc(2 * (3 * 60 + 2 * 3 * 2), 2, 1),
        ["jin_que", "ping_hu"],
        "b=3, H = G 2, L=0, max(金雀 60, 平胡 30): P = 3*60 + 2*3*2 = 192; the discarder pays 384",
    ),
    (
        "bianfeng gold sparrow",
        sit("fuzhou-bianfeng", gold="5p", hand=SPARROW, flowers="1f"),
        66,
        each(66, 1),
        ["jin_que"],
        "H = 1 + G 2 = 3: (60 + 0) + 2*3 = 66",
    ),
    (
        "bianfeng heavenly as rob gold",
        sit("fuzhou-bianfeng", winner=0, win="heavenly", flowers="1f2f", streak=1),
        35,
        each(35, 0),
        ["qiang_jin"],
        "H=2, L=1: (30+1) + 2*2 = 35",
    ),
    (
        "bianfeng base 2",
        sit("fuzhou-bianfeng", flowers="1f", base=2),
        8,
        each(8, 1),
        [],
        "b=2 H=1: 2*(2*1 + 2*1) = 8",
    ),
    (
        "bianfeng three golds",
        sit("fuzhou-bianfeng", gold="5p", hand=NOSHAPE3, win="three_golds", winning_tile=None),
        46,
        each(46, 1),
        ["san_jin_dao", "ping_hu"],
        "H=G=3: max(40,30) + 2*3 = 46",
    ),
    (
        "bianfeng flower set",
        sit("fuzhou-bianfeng", flowers="5f6f7f8f", **D),
        14,
        disc(14, 2, 1),
        [],
        "fl=4 sets=1: H=6: 2*(1+6) = 14",
    ),
    (
        "bianfeng one flower no ping hu",
        sit("fuzhou-bianfeng", flowers="1f", **D),
        4,
        disc(4, 2, 1),
        [],
        "平胡(一张花) is tcy only: H=1: 2*(1+1) = 4",
    ),
    # ---------------------------------------------------------------- fuzhou-doudou
    (
        "doudou discard",
        sit("fuzhou-doudou", flowers="1f2f", **D),
        6,
        disc(6, 2, 1),
        [],
        "B = 1+2 = 3; T = B = 3; discarder pays 2*T*n = 6",
    ),
    (
        "doudou self-draw",
        sit("fuzhou-doudou", flowers="1f2f"),
        6,
        each(6, 1),
        [],
        "B=3; T = 2B = 6; each pays 6",
    ),
    ("doudou ping hu", sit("fuzhou-doudou"), 32, each(32, 1), ["ping_hu"], "B=1; T = 2+30 = 32"),
    (
        "doudou rob gold + ping hu",
        sit(
            "fuzhou-doudou",
            winner=2,
            gold="5p",
            win="rob_gold",
            hand="234m567m345s678s789s9s5p",
            winning_tile="5p",
        ),
        44,
        each(44, 2),
        ["qiang_jin", "ping_hu"],
        "B = 1+G1 = 2; T = 4 + 30 + 10 = 44",
    ),
    (
        "doudou sparrow + ping hu on discard",
        sit("fuzhou-doudou", gold="5p", hand=SPARROW, **D),
        152,
        disc(152, 2, 1),
        ["jin_que", "ping_hu"],
        "B = 1+2 = 3; T = 6+60+10 = 76; discarder pays 2*76",
    ),
    (
        "doudou dealer streak",
        sit("fuzhou-doudou", winner=0, flowers="1f", streak=3),
        8,
        each(8, 0),
        [],
        "B=2, T=4, k=3: +2*(3-1) = 8",
    ),
    (
        "doudou catching the dealer",
        sit("fuzhou-doudou", win="discard", winner=1, discarder=0, flowers="1f", streak=2),
        8,
        disc(8, 1, 0),
        [],
        "B=2, T=2, k=2: +2 = 4; discarder pays 2*4",
    ),
    (
        "doudou heavenly as rob gold",
        sit("fuzhou-doudou", winner=0, win="heavenly"),
        42,
        each(42, 0),
        ["qiang_jin", "ping_hu"],
        "B=1; T = 2 + 30 + 10 = 42",
    ),
    (
        "doudou three golds",
        sit(
            "fuzhou-doudou",
            gold="5p",
            hand=NOSHAPE3,
            win="three_golds",
            winning_tile=None,
            flowers="1f",
        ),
        50,
        each(50, 1),
        ["san_jin_dao"],
        "B = 1+3+1 = 5; T = 10+40",
    ),
    (
        "doudou base 2",
        sit("fuzhou-doudou", flowers="1f2f", base=2),
        12,
        each(12, 1),
        [],
        "B=3, T=6, n=2: 12 each",
    ),
    (
        "doudou all flowers and kongs below cap",
        sit(
            "fuzhou-doudou",
            gold="5p",
            hand="5p5p",
            melds=[
                {"type": "kong_concealed", "tiles": t} for t in ("1111m", "2222m", "3333m", "4444m")
            ]
            + [{"type": "kong_exposed", "tiles": "6666m"}],
            winning_tile="5p",
            flowers="1f2f3f4f5f6f7f8f",
        ),
        108,
        each(108, 1),
        ["jin_que"],
        "R1 rev. 2: only 1f-8f are flowers here. B = 1+G2+fl8+mk1+2*ak4+2*sets2 = 24; "
        "T = 48+60 = 108 (<= 202)",
    ),
    # ------------------------------------------- fuzhou-doudou with playable honours (R1 rev. 2)
    (
        "doudou honour pong and pair, won on a discarded honour",
        sit("fuzhou-doudou", gold="5p", hand="234m567m345s678s1z1z1z7z7z", winning_tile="7z", **D),
        64,
        disc(64, 2, 1),
        ["ping_hu"],
        "R7: honour pong + honour pair; B = 1; 平胡 T = 2B + 30 = 32; discard: 2T = 64",
    ),
    (
        "doudou gold stands for an honour",
        sit(
            "fuzhou-doudou",
            gold="5p",
            hand="234m567m345s678s1z1z5p7z7z",
            winning_tile="7z",
            flowers="1f",
        ),
        6,
        each(6, 1),
        [],
        "the gold completes 1z1z (R5); B = 1 + G1 + fl1 = 3; self-draw T = 2B = 6 each",
    ),
    (
        "doudou gold sparrow beside an honour pong",
        sit("fuzhou-doudou", gold="5p", hand="1z1z1z234m567m345s678s5p5p", winning_tile="4m"),
        76,
        each(76, 1),
        ["jin_que", "ping_hu"],
        "B = 1 + G2 = 3; 金雀 T = 6 + 60, + 10 with 平胡 = 76 each",
    ),
    (
        "doudou gold kind is an honour",
        sit("fuzhou-doudou", gold="7z", hand="234m567m345s678s789s7z7z", flowers="5f"),
        68,
        each(68, 1),
        ["jin_que"],
        "R5: the indicator was 7z, so 7z are golds; B = 1 + G2 + fl1 = 4; 金雀 T = 8 + 60 = 68",
    ),
    (
        "doudou exposed honour kong and pong",
        sit(
            "fuzhou-doudou",
            gold="5p",
            hand="234m567m345s99s",
            winning_tile="9s",
            melds=[
                {"type": "kong_exposed", "tiles": "1111z"},
                {"type": "pong", "tiles": "666z"},
            ],
            **D,
        ),
        4,
        disc(4, 2, 1),
        [],
        "B = 1 + mk1 = 2, a kong: no 平胡; discard T = B = 2, the discarder pays 2T = 4",
    ),
    (
        "doudou seasons are a flower set",
        sit("fuzhou-doudou", flowers="1f2f3f4f"),
        14,
        each(14, 1),
        [],
        "R1: fl4 + 2*sets1: B = 1 + 4 + 2 = 7; self-draw T = 2B = 14 each",
    ),
    # ---------------------------------------------------------------- sanming
    (
        "sanming conformance",
        sit(
            "sanming",
            gold="2p",
            winner=2,
            discarder=1,
            win="discard",
            hand="123m789m456p345s2p9s",
            winning_tile="9s",
            melds=[{"type": "pong", "tiles": "666s"}],
            flowers="1f2f",
            streak=1,
        ),
        9,
        disc(9, 2, 1),
        [],
        "F=2, L=1, G=1: 2+1+1+5 = 9",
    ),
    (
        "sanming self-draw",
        sit("sanming", flowers="1f2f3f"),
        16,
        each(16, 1),
        [],
        "F=3: (3+0+0+5)*2 = 16",
    ),
    (
        "sanming clean discard",
        sit("sanming", **D),
        25,
        disc(25, 2, 1),
        ["wu_shui_hu"],
        "无水胡: 0+5 + 20 = 25",
    ),
    ("sanming clean self-draw", sit("sanming"), 30, each(30, 1), ["wu_shui_hu"], "(5)*2 + 20 = 30"),
    (
        "sanming gold sparrow",
        sit("sanming", gold="5p", hand=SPARROW, flowers="1f"),
        66,
        each(66, 1),
        ["jin_que"],
        "F=1 G=2: (1+2+5)*2 + 50 = 66",
    ),
    (
        "sanming three golds not a pure sparrow",
        sit(
            "sanming", gold="5p", hand="234m567m345s678s78s5p5p5p", winning_tile="8s", flowers="1f"
        ),
        48,
        each(48, 1),
        ["san_jin_dao"],
        "G=3, one gold completes 78s: no 金雀 (needs G=2): (1+3+5)*2 + 30 = 48",
    ),
    (
        "sanming gold dragon sums",
        sit("sanming", gold="5p", hand=DRAGON, flowers="1f"),
        118,
        each(118, 1),
        ["san_jin_dao", "jin_long"],
        "(1+3+5)*2 + 30 + 70 = 118 (D-12 sum)",
    ),
    (
        "sanming one suit",
        sit("sanming", hand="123m456m789m234m678m55m", winning_tile="5m", flowers="1f", **D),
        106,
        disc(106, 2, 1),
        ["qing_yi_se"],
        "F=1: 1+5 + 100 = 106",
    ),
    (
        "sanming one suit + clean",
        sit("sanming", hand="123m456m789m234m678m55m", winning_tile="5m"),
        130,
        each(130, 1),
        ["wu_shui_hu", "qing_yi_se"],
        "(5)*2 + 20 + 100 = 130",
    ),
    (
        "sanming gold of another suit breaks one suit",
        sit("sanming", gold="5p", hand="123m456m789m234m678m5m5p", winning_tile="5m", flowers="1f"),
        14,
        each(14, 1),
        [],
        "golds count as their own kind (5p): not 清一色; (1+1+5)*2 = 14",
    ),
    (
        "sanming gold gap",
        sit(
            "sanming",
            gold="5m",
            hand="123m46m5m789p234s678s99s",
            winning_tile="5m",
            flowers="1f",
            jinkan_declared=True,
        ),
        84,
        each(84, 1),
        ["jin_kan"],
        "F=1 G=1: (1+1+5)*2 + 70 = 84",
    ),
    (
        "sanming heavenly",
        sit("sanming", winner=0, win="heavenly"),
        80,
        each(80, 0),
        ["tian_hu", "wu_shui_hu"],
        "(5)*2 + 50 + 20 = 80",
    ),
    (
        "sanming rob gold",
        sit(
            "sanming",
            gold="5p",
            win="rob_gold",
            hand="234m567m345s678s789s9s5p",
            winning_tile="5p",
            flowers="1f",
        ),
        34,
        each(34, 1),
        ["qiang_jin"],
        "(1+1+5)*2 + 20 = 34",
    ),
    (
        "sanming two players",
        sit("sanming", seats=2, winner=1, flowers="1f2f", streak=2),
        18,
        each(18, 1, 2),
        [],
        "F=2 L=2: (2+2+5)*2 = 18",
    ),
    (
        "sanming three players discard",
        sit("sanming", seats=3, winner=0, win="discard", discarder=2, flowers="1f"),
        6,
        [6, 0, -6],
        [],
        "1+5 = 6",
    ),
    (
        "sanming rob kong is self-draw",
        sit("sanming", win="rob_kong", flowers="1f"),
        12,
        each(12, 1),
        [],
        "(1+5)*2 = 12",
    ),
    (
        "sanming kongs and streak",
        sit(
            "sanming",
            hand="234m345p789s99s",
            melds=[
                {"type": "kong_exposed", "tiles": "5555m"},
                {"type": "kong_concealed", "tiles": "7777p"},
            ],
            flowers="1f",
            streak=3,
            **D,
        ),
        12,
        disc(12, 2, 1),
        [],
        "F = 1+1+2 = 4: 4+3+0+5 = 12",
    ),
]


@pytest.mark.parametrize(
    ("name", "data", "points", "payments", "specials", "why"), CASES, ids=[c[0] for c in CASES]
)
def test_worked_examples_r10(
    name: str, data: dict[str, Any], points: int, payments: list[int], specials: list[str], why: str
) -> None:
    """R7/R10 worked examples; the arithmetic is in each case's ``why``."""
    sc = score(situation_from_json(data))
    assert sc.points == points, why
    assert list(sc.payments) == payments, why
    assert sorted(sc.specials) == sorted(specials), why
    assert sum(sc.payments) == 0
    assert sc.breakdown[-1].value == points
    assert all(t.zh and t.en for t in sc.breakdown)


def test_enough_worked_examples() -> None:
    assert len(CASES) >= 50


@pytest.mark.parametrize(
    ("seats", "dealer", "payments"), [(4, 0, [-15, 5, 5, 5]), (3, 1, [5, -10, 5]), (2, 1, [5, -5])]
)
def test_sanming_draw_payment_r10(seats: int, dealer: int, payments: list[int]) -> None:
    """R10 黄庄: the dealer pays each other player 5."""
    sc = score(
        situation_from_json({"profile": "sanming", "win": "draw", "dealer": dealer, "seats": seats})
    )
    assert list(sc.payments) == payments and sc.points == 5


def test_fuzhou_draw_pays_nothing() -> None:
    sc = score(
        situation_from_json({"profile": "fuzhou-tcy", "win": "draw", "dealer": 2, "seats": 4})
    )
    assert list(sc.payments) == [0, 0, 0, 0]


def test_doudou_cap_applies_before_streak(tmp_path: Path) -> None:
    """R10 doudou: T <= cap, then + 2*max(k-1, 0). The real cap (202) cannot bind with
    R10's terms (revision 2: only 8 flowers, B <= 26, so T <= 122), so a user profile with cap 40 shows the mechanism."""
    src = Path(get_profile("fuzhou-doudou").name + ".toml")
    text = (
        Path(__file__).resolve().parents[1] / "src/fujian_mahjong/rules/profiles" / src
    ).read_text()
    prof = tmp_path / "doudou-cap40.toml"
    prof.write_text(
        text.replace("cap = 202", "cap = 40").replace('name = "fuzhou-doudou"', 'name = "cap40"')
    )
    data = sit(str(prof), gold="5p", hand=SPARROW, streak=3)
    sc = score(situation_from_json(data))
    # B = 1+2 = 3; T = 6 + 60 + 10 = 76 -> capped 40; + 2*(3-1) = 44 each
    assert sc.points == 44
    assert [t.key for t in sc.breakdown].count("cap") == 1
    assert get_profile("fuzhou-doudou").cap == 202


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"profile": "fuzhou-tcy", "win": "nonsense"}, "win"),
        (sit("nope"), "profile"),
        (sit("fuzhou-tcy", gold="1z"), "gold"),
        (sit("fuzhou-tcy", hand="234m567m345p678p789s9s8s"), "hand"),
        (sit("fuzhou-tcy", hand="234m567m"), "hand"),
        (sit("fuzhou-tcy", winner=7), "winner"),
        (sit("fuzhou-tcy", win="discard", discarder=None), "discarder"),
        (sit("fuzhou-tcy", discarder=2), "discarder"),
        (sit("fuzhou-tcy", flowers="1m"), "flowers"),
        (sit("fuzhou-tcy", melds=[{"type": "pong", "tiles": "123m"}]), "melds[0].tiles"),
        (sit("fuzhou-tcy", winning_tile="1m"), "winning_tile"),
        (sit("sanming", seats=5), "seats"),
        # R1: honours are flowers outside fuzhou-doudou, playable tiles (not flowers) in it
        (sit("fuzhou-tcy", hand="234m567m345s678s1z1z1z7z7z", winning_tile="7z"), "hand"),
        (sit("fuzhou-doudou", flowers="1z"), "flowers"),
        (sit("fuzhou-doudou", gold="2f"), "gold"),
        (
            sit("fuzhou-doudou", hand="234m567m345s99s", melds=[{"type": "chow", "tiles": "123z"}]),
            "melds[0].tiles",
        ),
        (
            sit(
                "fuzhou-doudou", hand="234m567m345s99s", melds=[{"type": "pong", "tiles": "5f5f5f"}]
            ),
            "melds[0].tiles",
        ),
        # impossible situations
        (sit("fuzhou-tcy", win="heavenly", dealer=0, winner=2), "winner"),
        (sit("fuzhou-tcy", gold="9s", **D), "winning_tile"),
        (sit("fuzhou-tcy", gold="5p", hand=SPARROW, win="three_golds"), "hand"),
        (sit("fuzhou-tcy", win="rob_kong"), "win"),
        (sit("fuzhou-doudou", win="rob_kong"), "win"),
        (
            sit("fuzhou-tcy", gold="5p", hand=SPARROW, win="rob_gold", winning_tile="9s"),
            "winning_tile",
        ),
        # the field actually at fault
        (sit("fuzhou-tcy", melds=[{"type": "pong", "tiles": "1z1z1z"}]), "melds[0].tiles"),
        (sit("fuzhou-tcy", melds=[{"type": "pong"}]), "melds[0].tiles"),
        (sit("fuzhou-tcy", base=10**12), "base"),
        (sit("fuzhou-tcy", streak=-1), "streak"),
        (sit("fuzhou-tcy", hand="1m" * 100), "hand"),
    ],
)
def test_invalid_situations_name_the_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ScoreInputError, match=re.escape(f"'{field}'")):
        score(situation_from_json(data))


def test_copies_error_names_every_field_holding_them() -> None:
    """R1: four copies of a kind; a fifth in a meld is that meld's fault as much as the hand's."""
    data = sit(
        "fuzhou-tcy",
        hand="55m567m345p678p99s",
        winning_tile="9s",
        melds=[{"type": "kong_concealed", "tiles": "5555m"}],
    )
    with pytest.raises(
        ScoreInputError, match=r"fields 'hand', 'melds\[0\]\.tiles': 7 copies of 5m"
    ):
        situation_from_json(data)


def test_library_score_refuses_impossible_situations() -> None:
    """``score()`` itself checks a hand-made Situation (the engine and the
    server build them directly), not only ``fjmj score``'s JSON."""
    import dataclasses

    good = situation_from_json(sit("fuzhou-tcy", gold="5p", hand=SPARROW))
    for change, field in (
        ({"win": "heavenly", "winner": 1, "dealer": 0}, "winner"),
        ({"win": "discard", "discarder": 0, "winning_tile": 13}, "winning_tile"),  # 5p
        ({"win": "three_golds"}, "hand"),
        ({"win": "rob_kong"}, "win"),
        ({"win": "rob_gold", "winning_tile": 26}, "winning_tile"),  # 9s
    ):
        bad = dataclasses.replace(good, **change)
        with pytest.raises(ScoreInputError, match=re.escape(f"field '{field}'")):
            score(bad)
    assert score(good).points == 74  # G=2: (2+5)*2 + 金雀 60


def test_cli_score_json_and_errors() -> None:
    exe = [sys.executable, "-m", "fujian_mahjong", "score", "--json", "-"]
    p = subprocess.run(
        exe, input=json.dumps(CASES[0][1]), capture_output=True, text=True, check=False
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["points"] == 16 and out["payments"] == [-16, -16, -16, 48]
    assert {"key", "zh", "en", "value"} <= set(out["breakdown"][0])
    p = subprocess.run(exe, input="{bad json", capture_output=True, text=True, check=False)
    assert p.returncode == 2 and "not valid JSON" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run(
        [*exe[:-2], "-"], input=json.dumps(CASES[0][1]), capture_output=True, text=True, check=False
    )
    assert p.returncode == 0 and "16" in p.stdout


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, len(CASES) - 1),
    st.integers(0, 5),
    st.integers(0, 3),
    st.sampled_from(["fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming"]),
)
def test_payments_zero_sum_and_winner_gain(i: int, streak: int, winner: int, profile: str) -> None:
    data = dict(CASES[i][1])
    data.update(profile=profile, streak=streak, seats=4)
    honour_hand = "z" in data["hand"] + data["gold"] + json.dumps(data.get("melds", []))
    assume(get_profile(profile).honours == "playable" or not honour_hand)  # R1
    if get_profile(profile).honours == "playable":
        # R1 rev. 2: 1z-7z are not flowers there
        data["flowers"] = "".join(re.findall(r"\df", data.get("flowers", "")))
    if data.get("win") == "rob_kong" and not get_profile(profile).rob_kong:
        data["win"] = "self_draw"  # R6/D-16: 抢杠 only where the profile has it
    if data.get("win") == "heavenly":
        data["dealer"] = winner  # R7: 天胡 is the dealer's
    if data.get("win") == "discard":
        data["winner"] = winner
        data["discarder"] = (winner + 1) % 4
    else:
        data["winner"] = winner
    sc = score(situation_from_json(data))
    assert sum(sc.payments) == 0
    assert sc.payments[winner] == -sum(p for s, p in enumerate(sc.payments) if s != winner)
    assert sc.points > 0


def _json_blocks(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(b.split("```", 1)[0]) for b in text.split("```json\n")[1:]]


def test_docs_scoring_examples_round_trip() -> None:
    """Every example in docs/scoring.md: `fjmj score` gives the documented result, and the
    documented text output (``--lang``) is exactly what the command prints."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "scoring.md").read_text(encoding="utf-8")
    sections = doc.split("\n## ")[1:]
    assert len(sections) >= 6
    profiles = set()
    texts = rows_checked = 0
    exe = [sys.executable, "-m", "fujian_mahjong", "score"]
    for sec in sections:
        blocks = [json.loads(b.split("```", 1)[0]) for b in sec.split("```json\n")[1:]]
        sit, want = blocks
        profiles.add(sit["profile"])
        p = subprocess.run(
            [*exe, "--json", "-"],
            input=json.dumps(sit),
            capture_output=True,
            text=True,
            check=False,
        )
        assert p.returncode == 0, p.stderr
        got = json.loads(p.stdout)
        assert {k: got[k] for k in want} == want, sec.splitlines()[0]
        rows = {t["key"]: t["value"] for t in got["breakdown"]}
        for line in sec.splitlines():
            m = re.match(r"\| `(\w+)` \| .* \| (-?\d+) \|$", line)
            if m:
                assert rows[m[1]] == int(m[2]), line
                rows_checked += 1
        m = re.search(r"`fjmj score --lang (zh|en)` prints.*?```text\n(.*?)```", sec, re.S)
        if m:
            texts += 1
            p = subprocess.run(
                [*exe, "--lang", m[1], "-"],
                input=json.dumps(sit),
                capture_output=True,
                text=True,
                check=False,
            )
            assert p.stdout == m[2], (p.stdout, m[2])
    assert profiles == {"fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming"}
    assert texts == 2 and rows_checked >= 60


@st.composite
def winning_hands(draw: st.DrawFn, honours: bool) -> tuple[str, str, str]:
    """(hand, gold, winning tile): five groups and a pair over the playable kinds (34 with
    playable honours: honour pongs and pairs, never chows, R7), at most four copies each."""
    from fujian_mahjong.tiles import KIND_STR, fmt

    kinds = 34 if honours else 27
    counts = [0] * kinds
    tiles: list[int] = []
    for g in range(6):
        for _ in range(50):
            k = draw(st.integers(0, kinds - 1))
            pair = g == 5
            if not pair and k < 27 and k % 9 <= 6 and draw(st.booleans()):
                group = [k, k + 1, k + 2]
            else:
                group = [k] * (2 if pair else 3)
            if all(counts[x] + group.count(x) <= 4 for x in group):
                break
        else:
            continue
        for x in group:
            counts[x] += 1
        tiles += group
    assume(len(tiles) == 17)
    gold = draw(st.integers(0, kinds - 1))
    assume(counts[gold] < 4)  # R5: the indicator is the fourth copy
    winning = draw(st.sampled_from(sorted(set(tiles))))
    return fmt(sorted(tiles)), KIND_STR[gold], KIND_STR[winning]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(winning_hands(honours=True), st.sampled_from(["", "1f", "1f2f3f4f", "5f"]), st.data())
def test_doudou_honour_hands_score_zero_sum(
    hw: tuple[str, str, str], flowers: str, data: st.DataObject
) -> None:
    """R1/R7/R10 rev. 2: any fuzhou-doudou winning hand with honours scores (golds may stand
    for honours), zero-sum, the winner gains; only the specials the profile has."""
    hand, gold, winning = hw
    discard = winning != gold and data.draw(st.booleans())  # R5: never won on a gold
    d = sit("fuzhou-doudou", gold=gold, hand=hand, winning_tile=winning, flowers=flowers)
    if discard:
        d.update(D)
    sc = score(situation_from_json(d))
    assert sum(sc.payments) == 0 and sc.points > 0
    assert sc.payments[d["winner"]] > 0
    assert set(sc.specials) <= set(get_profile("fuzhou-doudou").specials)
    b = {t.key: t.value for t in sc.breakdown}
    assert b["flowers"] == len(flowers) // 2  # only 1f-8f count (R1)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(winning_hands(honours=False), st.sampled_from(["", "1f", "3z", "1f2f"]), st.integers(0, 4))
def test_bianfeng_discard_special_costs_twice_the_self_draw(
    hw: tuple[str, str, str], flowers: str, streak: int
) -> None:
    """R10 rev. 2: for the same hand, a special won on a discard costs the discarder 2P where
    each payer of the self-draw pays P; a normal hand costs X both ways."""
    hand, gold, winning = hw
    assume(winning != gold)
    base = sit("fuzhou-bianfeng", gold=gold, hand=hand, winning_tile=winning, flowers=flowers)
    base["streak"] = streak
    own = score(situation_from_json(base))
    off = score(situation_from_json({**base, **D}))
    assert own.specials == off.specials
    if off.specials:
        assert off.points == 2 * own.points
        assert [t.key for t in off.breakdown][-2:] == ["discard_doubled", "total_discard"]
    else:
        assert off.points == own.points


def test_gold_dragon_of_an_honour_gold_in_a_user_profile(tmp_path: Path) -> None:
    """R7 金龙 with an honour gold: a user profile with playable honours and 金龙 (data, not
    code) scores three 白 golds as a pong of 白 itself, and 金雀 as two 白 in the pair."""
    src = Path(__file__).resolve().parents[1] / "src/fujian_mahjong/rules/profiles"
    text = (src / "fuzhou-doudou.toml").read_text(encoding="utf-8")
    text = text.replace('name = "fuzhou-doudou"', 'name = "doudou-jinlong"')
    text = text.replace(
        'specials = ["qiang_jin", "san_jin_dao", "jin_que", "ping_hu"]',
        'specials = ["qiang_jin", "san_jin_dao", "jin_que", "ping_hu", "jin_long"]',
    )
    text = text.replace("[special_values]\n", "[special_values]\njin_long = 120\n")
    prof = tmp_path / "doudou-jinlong.toml"
    prof.write_text(text, encoding="utf-8")
    hand = "234m567m345s1z1z1z7z7z7z4z4z"  # gold 白: 7z7z7z are three golds
    sc = score(situation_from_json(sit(str(prof), gold="7z", hand=hand, winning_tile="4z")))
    assert "jin_long" in sc.specials and "san_jin_dao" in sc.specials
    assert sc.decomposition is not None and sc.decomposition.gold_pong_of_gold
    # B = 1 + G3 = 4; max special 金龙 120: T = 2B + 120 = 128 (<= 202) each
    assert sc.points == 128
