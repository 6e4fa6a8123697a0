"""Terminal client layout (docs/terminal.md): flowers sorted by kind in the seats panel and
the result, each seat's melds beside its hand at the reveal (a concealed kong shown once the
hand is over), the other seats side by side at a wide terminal (the narrow layout as it
was), and one English spelling of the honours per place — short only in the hand row's
fixed slots, full everywhere else — with the Chinese names unchanged."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from rich.cells import cell_len

from fujian_mahjong.engine import Action, Game, build_wall
from fujian_mahjong.tiles import name, parse
from fujian_mahjong.tui.app import HUMAN, PlayApp
from fujian_mahjong.tui.render import (
    COL_SEP,
    MIN_W,
    SAME_STYLE,
    WIDE_COL,
    compact_tiles,
    hand_bar,
    marked,
    option_label,
    reveal_lines,
    seat_lines,
    slot_tile,
    tenpai_line,
    tile,
)


def _view(players: int = 4, **over: Any) -> dict[str, Any]:
    """A seat view as ``Game.view`` gives it, with only what the seats panel reads."""
    v: dict[str, Any] = {
        "seat": 0,
        "players": players,
        "dealer": 1,
        "hand_sizes": [16] * players,
        "gold": "3m",
        "flowers": ["8f1z5f", "7z3f1z6z", "", "2f"][:players],
        "melds": [
            [{"type": "pong", "tiles": "555z"}],
            [{"type": "chow", "tiles": "234s"}],
            [{"type": "kong_concealed", "tiles": None}],
            [],
        ][:players],
        "discards": [
            "1m9p",
            "123456789m123456789p12s",
            "4s5s6z",
            "7s8s9s1m1m",
        ][:players],
    }
    v.update(over)
    return v


# ---------------------------------------------------------------------------- 1: flowers


def test_flowers_are_sorted_by_kind_in_the_seat_lines_and_the_result() -> None:
    """Flowers came in draw order (菊 东 梅); they are listed by kind as the hand row sorts
    tiles: the honours (东 南 西 北 中 发 白) before the bonus tiles (春 … 菊)."""
    v = _view()
    text = "\n".join(seat_lines(v, "zh", MIN_W))
    assert "花（3）：东 梅 菊" in text  # drawn 8f 1z 5f
    assert "花（4）：东 发 白 秋" in text  # drawn 7z 3f 1z 6z
    en = "\n".join(seat_lines(v, "en", MIN_W))
    assert "flowers(3): E Plum Chrysanthemum" in en
    assert "flowers(4): E Green White Autumn" in en
    over = _view(hands={"0": "12m", "1": "34m", "2": "56m", "3": "78m"})
    reveal = "\n".join(reveal_lines(over, "zh", MIN_W, ["你", "下家1号", "对家2号", "上家3号"]))
    assert "花（3）：东 梅 菊" in reveal and "花（4）：东 发 白 秋" in reveal


def _kong_hand() -> tuple[PlayApp, Game]:
    """A stacked wall: 下家1号 deals with 9999p and its flowers drawn 菊 东 梅; it declares a
    concealed kong, draws 4s from the tail and wins by self-draw."""
    deal = {
        1: parse("9999p123m456m789m11s23s"),
        2: parse("8f1z5f147m258p369s147m2p"),
        3: parse("258m36p1p58s258m36p1p5s7s"),
        0: parse("369m47p678s36m47p68s5s2s"),
    }
    # the tail: the three flowers' replacements, the gold's indicator, the kong's replacement
    wall = build_wall(deal, (), parse("1p2p3p5p4s"), 4, 1)
    g = Game.from_wall("fuzhou-tcy", wall, (3, 4), 4, 1, 0)
    app = PlayApp(profile="fuzhou-tcy", seed="kong", lang="zh", hands=1)
    app.game = app.match.current = g
    return app, g


def test_a_real_hand_lists_flowers_sorted_and_reveals_melds_beside_each_hand() -> None:
    """During play the other seat's concealed kong is hidden and its flowers sorted; at the
    result its kong is shown with its tiles beside its hand, as the seats panel shows melds
    (``副露：暗杠 9饼9饼9饼9饼``), then its flowers in the same sorted order."""
    app, g = _kong_hand()
    assert g.view(HUMAN)["flowers"][2] == "8f1z5f"  # draw order
    g.apply(1, Action("concealed_kong", parse("9p")[0]))
    playing = "\n".join(seat_lines(app.view(), "zh", MIN_W))
    assert "副露：暗杠（未亮）" in playing and "9饼" not in playing  # R12 during play
    assert "对家2号 16张 花（3）：东 梅 菊" in playing
    g.apply(1, Action("win"))
    app.advance()  # the hand is over: the result is built (headless)
    lines = app.hand_over_text.splitlines()
    start = lines.index("亮牌：")
    reveal = lines[start + 1 : start + 1 + 2 * g.n]
    seat1 = next(i for i, x in enumerate(reveal) if x.startswith("下家1号："))
    seat1_text = " ".join(reveal[seat1 : seat1 + 2])
    assert "‹4条›" in seat1_text and "副露：暗杠 9饼9饼9饼9饼" in seat1_text
    assert seat1_text.index("‹4条›") < seat1_text.index("副露：")  # beside the hand
    assert "对家2号：" in "\n".join(reveal) and "花（3）：东 梅 菊" in "\n".join(reveal)
    assert all(cell_len(x) <= MIN_W - 1 for x in lines)


def test_the_reveal_shows_each_seats_melds_as_the_table_does() -> None:
    """Every kind of meld, a concealed kong with its tiles once the hand is over; in English
    with spaces (``pong 2m 2m 2m``) as the seats panel writes them."""
    over = _view(
        hands={"0": "3m3m45m", "1": "9p", "2": "1s", "3": "2s"},
        melds=[
            [{"type": "pong", "tiles": "222m"}],
            [{"type": "kong_concealed", "tiles": "7777p"}],
            [{"type": "chow", "tiles": "345s"}, {"type": "kong_added", "tiles": "6666s"}],
            [],
        ],
    )
    names = ["你", "下家1号", "对家2号", "上家3号"]
    zh = reveal_lines(over, "zh", MIN_W, names, winner=0, win_tile=parse("5m")[0])
    assert zh[1] == "你：*3万 *3万 4万 ‹5万› 副露：碰 2万2万2万 花（3）：东 梅 菊"
    assert zh[2].startswith("下家1号：9饼 副露：暗杠 7饼7饼7饼7饼 花（4）：")
    assert "副露：吃 3条4条5条 加杠 6条6条6条6条" in zh[3]
    assert "副露" not in zh[4]  # no melds: no label
    en = reveal_lines(over, "en", MIN_W, ["You", "P1 right", "P2 across", "P3 left"])
    assert en[1] == "You: *3m *3m 4m 5m melds: pong 2m 2m 2m flowers(3): E Plum Chrysanthemum"
    assert "melds: concealed kong 7p 7p 7p 7p" in en[2]


# ---------------------------------------------------------------------------- 3: wide


def test_a_wide_terminal_shows_the_other_seats_side_by_side() -> None:
    """From :data:`WIDE_COL` cells a column, the other seats stand side by side as they sit
    (上家 left, 对家 across, 下家 right) and your seat under them at full width: fewer rows,
    nothing lost, nothing past the width. Narrower, the layout is the list it was."""
    v = _view()
    narrow = seat_lines(v, "zh", MIN_W)
    assert [x.split(" ")[0] for x in narrow if not x.startswith(" ")] == [
        "下家1号[庄]",
        "对家2号",
        "上家3号",
        "你",
    ]
    sep = cell_len(COL_SEP)
    first_wide = 3 * WIDE_COL + 2 * sep
    assert COL_SEP not in "\n".join(seat_lines(v, "zh", first_wide - 1))
    for width in (first_wide, 200):
        wide = seat_lines(v, "zh", width)
        assert all(cell_len(x) <= width for x in wide)
        top = wide[0]
        assert top.index("上家3号") < top.index("对家2号") < top.index("下家1号[庄]")
        assert top.count(COL_SEP) == 2
        # a column holds only its own seat: the seats' words are all there, none twice
        words = sorted(w for x in wide for w in x.split() if w != "│")
        assert words == sorted(w for x in narrow for w in x.split())
        assert len(wide) < len(narrow)
        mine = [i for i, x in enumerate(wide) if x.startswith("你 ")]
        assert mine and COL_SEP not in "\n".join(wide[mine[0] :])  # full width, below
    # a 3-player table: two columns from a narrower terminal; 2 players: one list
    v3 = _view(players=3)
    w3 = 2 * WIDE_COL + sep
    assert COL_SEP in seat_lines(v3, "zh", w3)[0]
    assert COL_SEP not in "\n".join(seat_lines(v3, "zh", w3 - 1))
    assert COL_SEP not in "\n".join(seat_lines(_view(players=2), "zh", 300))


def test_marks_in_the_wide_layout_keep_the_columns_aligned() -> None:
    """同牌提示's marks take no cells: the wide layout pads the columns as without them."""
    v = _view()
    k = parse("1m")[0]
    plain = seat_lines(v, "zh", 200)
    shown = marked(seat_lines(v, "zh", 200, same=k))
    assert shown.plain == "\n".join(plain)
    spans = [shown.plain[s.start : s.end] for s in shown.spans if s.style == SAME_STYLE]
    assert spans == ["1万"] * 4  # 上家's river twice, 下家's once, yours once
    at = [cell_len(x[: x.index(COL_SEP)]) for x in plain[:2]]  # by cells, not characters
    assert at == [(200 - 2 * len(COL_SEP)) // 3] * 2


def test_the_table_at_200_columns_and_at_80x24() -> None:
    """The app at 200×50 lays the other seats side by side and fits; at 80×24 the list it
    always was, and everything still fits."""

    async def main() -> None:
        app = PlayApp(profile="fuzhou-tcy", seed="demo", lang="zh", hands=1)
        async with app.run_test(size=(200, 50)) as pilot:
            seats = app.panel("seats").plain.splitlines()
            top = seats[0]
            assert top.index("上家3号") < top.index("对家2号") < top.index("下家1号")
            assert all(cell_len(x) <= 200 for x in app.screen_text().splitlines())
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            seats = app.panel("seats").plain.splitlines()
            assert COL_SEP not in "\n".join(seats) and seats[0].startswith("下家1号")
            assert all(cell_len(x) <= 80 for x in app.screen_text().splitlines())
            await pilot.press("q", "y")

    asyncio.run(main())


# ---------------------------------------------------------------------------- 4: honours


_SHORT = re.compile(r"\b(Rd|Gn|Wh)\b")


def test_english_dragons_are_short_only_in_the_hand_row() -> None:
    """``Rd``/``Gn``/``Wh`` only where a slot needs them (the hand row); the seats panel,
    prompts, options, hints, 听牌 lines and the result say ``Red``/``Green``/``White`` as
    the log does. Chinese names are one spelling everywhere, unchanged."""
    red, green, white = 31, 32, 33
    hand = {"hand": "1z5z6z7z7z", "gold": "1m", "drawn": None, "seat": 0}
    bar = hand_bar(hand, -1, "en").plain
    assert bar.split() == ["E", "Rd", "Gn", "Wh", "Wh"]
    assert cell_len(bar) == 5 * 4  # each in its slot
    assert [tile(k, "en") for k in (red, green, white)] == ["Red", "Green", "White"]
    assert option_label(Action("discard", red), "en") == "discard Red"
    assert option_label(Action("concealed_kong", green), "en") == "concealed kong Green"
    assert compact_tiles("discard Red dragon, keep East wind and 5 Dots", "en") == (
        "discard Red, keep E and 5p"
    )
    v = _view(
        melds=[[{"type": "pong", "tiles": "555z"}], [], [], []],
        discards=["6z", "7z", "", ""],
    )
    panel = "\n".join(seat_lines(v, "en", MIN_W))
    assert "pong Red Red Red" in panel and "river: Green" in panel and "White" in panel
    assert not _SHORT.search(panel)
    # a 听牌 line (fuzhou-doudou: honours play): waits named in full
    ready: dict[str, Any] = {
        "hand": "123m456m789m123p7z7z5z5z",
        "gold": "9s",
        "drawn": None,
        "seat": 0,
        "players": 4,
        "melds": [[], [], [], []],
        "profile": "fuzhou-doudou",
    }
    line = tenpai_line(ready, None, "en", [0] * 42)
    assert line is not None and "Red" in line and "White" in line, line
    assert not _SHORT.search(line)
    # Chinese: the hand row and the prose spell every tile alike, as before
    for k in range(42):
        assert slot_tile(k, "zh") == tile(k, "zh") == name(k, "zh")
        if not 31 <= k <= 33:
            assert slot_tile(k, "en") == tile(k, "en") == name(k, "en")
    assert hand_bar(hand, -1, "zh").plain.split() == ["东", "中", "发", "白", "白"]
    assert compact_tiles("打五饼，留东", "zh") == "打5饼，留东"


def test_an_english_table_spells_the_flowers_as_its_log_does() -> None:
    """Seed ``demo`` (Fuzhou, the honours are flowers): the seats panel and the log both
    write Red/Green/White; no ``Rd``/``Gn``/``Wh`` anywhere on screen, nor in the result."""

    async def main() -> None:
        app = PlayApp(profile="fuzhou-tcy", seed="demo", lang="en", hands=1)
        async with app.run_test(size=(80, 24)) as pilot:
            seats = app.panel("seats").plain
            assert all(w in seats for w in ("Red", "Green", "White")), seats
            assert not _SHORT.search(app.screen_text())
            while not app.game.is_over():
                g = app.game
                legal = g.legal_actions(HUMAN)
                pick = next((a for a in legal if a.type in ("win", "pass")), legal[0])
                app.human_act(pick)
                await pilot.pause()
            result = app.panel("log").plain
            assert "Hands:" in result and "flowers(" in result
            assert not _SHORT.search(result) and "Red" in result, result
            await pilot.press("q", "y")

    asyncio.run(main())
