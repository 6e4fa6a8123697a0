"""Terminal client (Textual pilot; docs/terminal.md): full hands by keys, claim prompts
naming tile and discarder, only n starts the next hand, totals always visible, standings,
cursor on the drawn tile, gold confirmation, hints pointing at option letters, layout at
80×24 and 140×45, refusal below 80×24, ? help, ctrl+q through the confirmation,
--players 3, --log-dir, and R12 on screen."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from rich.cells import cell_len

from fujian_mahjong.cli.replay import parse_log, verify
from fujian_mahjong.engine.tenpai import seat_ready_discards
from fujian_mahjong.tiles import KIND_STR, parse, parse_kind
from fujian_mahjong.tui.app import HUMAN, PlayApp
from fujian_mahjong.tui.render import (
    OPTION_KEYS,
    SAME_STYLE,
    _waits_text,
    hand_bar,
    hand_order,
    ready_kinds,
    seat_lines,
    seat_name,
    slot_starts,
    start_cursor,
    tile,
    wrap,
)


def _hide_shuffle(app: PlayApp, seed: int) -> None:
    """Redistribute the other seats' concealed tiles (same sizes): hidden information only."""
    g = app.game
    rng = random.Random(seed)
    pool: list[int] = []
    sizes = {}
    for s in range(g.n):
        if s == HUMAN:
            continue
        sizes[s] = g.hand_size(s)
        for k in g.hand(s):
            pool.append(k)
            g._remove(s, k)
    rng.shuffle(pool)
    for s, n in sizes.items():
        for _ in range(n):
            g._add(s, pool.pop())


async def _drive(
    app: PlayApp, pilot: object, hands: int, stats: dict[str, int], shuffle: bool = True
) -> None:
    """Play ``hands`` hands by keys, checking prompts, widths, R12 and the end screens."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    width = app.size.width
    steps = 0
    while steps < 400:
        steps += 1
        g = app.game
        if g.is_over():
            text = app.panel("log").plain
            assert ("Match:" in text or "总分" in text) and ("Seed:" in text or "种子" in text)
            stats["ends"] += 1
            if app.match_over:
                return
            # Enter and Space do nothing on the result screen; only n goes on
            await pilot.press("enter", "space")
            assert app.game is g and app.panel("log").plain == text
            await pilot.press("n")
            assert app.game is not g
            continue
        assert HUMAN in g.to_act()
        status = app.panel("status").plain
        assert "Match:" in status or "总分" in status  # totals always visible
        if shuffle and steps % 4 == 0:
            assert all(cell_len(x) <= width for x in app.screen_text().splitlines()), [
                x for x in app.screen_text().splitlines() if cell_len(x) > width
            ]
            # R12: the screen does not change when only hidden information changes
            shown = app.screen_text()
            _hide_shuffle(app, steps)
            app.refresh_view()
            assert app.screen_text() == shown
        legal = g.legal_actions(HUMAN)
        if g.phase in ("claims", "window_a") or g.last_group:
            assert app.options == legal
            shown = app.panel("options").plain
            if g.phase == "claims":  # no cursor on a tile that Enter would do nothing with
                assert all(s.style != "reverse" for s in app.panel("hand").text.spans)
            for i, _ in enumerate(legal):
                assert f"[{OPTION_KEYS[i]}]" in shown
            if g.phase == "claims":
                # the prompt names who discarded which tile
                ld = app.view()["last_discard"]
                assert seat_name(HUMAN, ld["seat"], g.n, app.lang) in shown
                assert tile(parse_kind(ld["tile"]), app.lang) in shown
                if stats["hints"] < 2:
                    await pilot.press("h")
                    assert any(
                        f"[{k}]" in app.panel("options").plain.split("\n", 1)[-1]
                        for k in OPTION_KEYS
                    )
                    stats["hints"] += 1
            stats["prompts"] += 1
            pick = len(legal) - 1  # pass (always last) on every other prompt
            if stats["prompts"] % 2:
                claim = [i for i, a in enumerate(legal) if a.type in ("pong", "chow")]
                pick = claim[0] if claim else pick
            chosen = legal[pick]
            n_events = len(g.events)
            await pilot.press(OPTION_KEYS[pick])
            assert g.events[n_events] == {"type": "act", "seat": HUMAN, "action": chosen.to_json()}
            stats["claims" if chosen.type != "pass" else "passes"] += 1
            continue
        wins = [i for i, a in enumerate(app.options) if a.type == "win"]
        if wins:
            await pilot.press(OPTION_KEYS[wins[0]])
            continue
        # the cursor starts on the drawn tile (or the first non-gold)
        v = app.view()
        assert app.selected == start_cursor(v)
        if v.get("drawn") and hand_order(v)[-1] != g.gold:
            assert app.selected == len(hand_order(v)) - 1
        assert app.selected_tile() != g.gold or all(k == g.gold for k in g.hand(HUMAN))
        before = len(g.discards[HUMAN])
        await pilot.press("enter")
        if app.confirm_gold is not None:
            await pilot.press("x")  # anything but y cancels
            await pilot.press("right", "enter")
        if not g.is_over() and g.phase == "turn" and g.turn == HUMAN:
            await pilot.press("right", "enter")
            if app.confirm_gold is not None:
                assert any(len(x) > 0 for x in app.panel("options").plain.splitlines())
                await pilot.press("y")  # a confirmed gold discard goes through
        stats["discards"] += len(g.discards[HUMAN]) > before


def test_full_hands_by_keyboard_prompts_results_and_standings() -> None:
    async def main() -> dict[str, int]:
        stats = {"ends": 0, "prompts": 0, "claims": 0, "passes": 0, "discards": 0, "hints": 0}
        for seed in range(4):
            app = PlayApp(profile="fuzhou-tcy", seed=seed, lang="en", hands=2)
            async with app.run_test(size=(80, 24)) as pilot:
                await _drive(app, pilot, 2, stats)
                assert app.match.hands_played == 2 and app.match_over
                assert "Match over" in app.panel("options").plain
                text = app.panel("log").plain
                # final standings with ranks and per-hand history
                assert "Final standings" in text and "1. " in text
                assert "hand 1:" in text and "hand 2:" in text
                await pilot.press("n")  # the match is over: n does nothing
                assert app.match.hands_played == 2
                await pilot.press("q", "y")
            summary = app.summary_text()
            assert "Final standings" in summary and f"--seed {seed}" in summary
            if stats["claims"] and stats["passes"]:
                break
        return stats

    stats = asyncio.run(main())
    assert stats["ends"] >= 2 and stats["discards"] > 0
    assert stats["prompts"] > 0 and stats["claims"] > 0 and stats["passes"] > 0


def _seed_with_gold_on_turn() -> tuple[str, PlayApp]:
    """A seed whose first human turn has a gold in hand (found headless: no UI needed)."""
    for i in range(200):
        app = PlayApp(profile="fuzhou-tcy", seed=f"gold-{i}", lang="zh", hands=1)
        g = app.game
        app.advance()
        if not g.is_over() and g.phase == "turn" and g.turn == HUMAN and g.golds(HUMAN):
            return f"gold-{i}", app
    raise AssertionError("no seed with a gold on the first turn")


def test_gold_discard_asks_first_and_explains_self_draw_only() -> None:
    seed, _ = _seed_with_gold_on_turn()

    async def main() -> None:
        app = PlayApp(profile="fuzhou-tcy", seed=seed, lang="zh", hands=1)
        async with app.run_test(size=(80, 24)) as pilot:
            g = app.game
            assert g.phase == "turn" and g.turn == HUMAN
            assert app.selected_tile() != g.gold  # the cursor never starts on a gold
            order = hand_order(app.view())
            app.selected = order.index(g.gold)
            n_disc = len(g.discards[HUMAN])
            await pilot.press("enter")
            shown = app.panel("options").plain
            assert "确定打金" in shown and "只能自摸" in shown
            assert len(g.discards[HUMAN]) == n_disc  # nothing happened yet
            await pilot.press("n")  # cancel
            assert app.confirm_gold is None and len(g.discards[HUMAN]) == n_disc
            # a second Enter (the key that asked) cancels too: "any other key"
            await pilot.press("enter", "enter")
            assert app.confirm_gold is None and len(g.discards[HUMAN]) == n_disc
            await pilot.press("enter", "y")
            assert g.discards[HUMAN][n_disc] == g.gold
            if not g.is_over():
                # the restriction is shown at the human's seat
                assert "打过金：本盘只能自摸" in app.panel("seats").plain

    asyncio.run(main())


def test_turn_hint_selects_the_tile_and_help_and_quit_keys() -> None:
    async def main() -> None:
        app = PlayApp(profile="sanming", seed=4, lang="zh", hands=1)
        async with app.run_test(size=(80, 24)) as pilot:
            while HUMAN not in app.game.to_act() or app.game.phase != "turn":
                await pilot.press(OPTION_KEYS[len(app.options) - 1])
            app.selected = 0
            await pilot.press("h")
            msg = app.panel("options").plain
            assert "提示" in msg and "（回车）" in msg
            d = app.helper.act(app.game.seat_view(HUMAN))
            assert app.selected_tile() == d.action.tile
            # a click selects a tile, a second click on it discards it
            g = app.game
            n_ev = len(g.events)
            order = hand_order(app.view())
            i = next(j for j, k in enumerate(order) if j != app.selected and k != g.gold)
            x = slot_starts(app.view())[i] + 1
            await pilot.click("#hand", offset=(x, 0))
            assert app.selected == i
            tile_k = app.selected_tile()
            await pilot.click("#hand", offset=(x, 0))
            # (the river may have lost it to a claim since: look at the events)
            mine = [e for e in g.events[n_ev:] if e["type"] == "discard" and e["seat"] == HUMAN]
            assert mine and parse_kind(mine[0]["tile"]) == tile_k
            # ? shows every key; any key closes it
            await pilot.press("question_mark")
            assert app.show_help and "ctrl+q" in app.screen_text()
            await pilot.press("x")
            assert not app.show_help
            # ctrl+q goes through the game's confirmation, in the UI language
            await pilot.press("ctrl+q")
            assert "确定退出" in app.panel("options").plain and app.is_running
            await pilot.press("x")
            assert "确定退出" not in app.panel("options").plain
            await pilot.press("q", "y")
        assert not app.is_running
        assert "种子：4" in app.summary_text()

    asyncio.run(main())


def test_layout_grows_at_140x45_and_refuses_below_80x24() -> None:
    async def main() -> None:
        app = PlayApp(profile="fuzhou-doudou", seed=2, lang="zh", hands=1)
        async with app.run_test(size=(140, 45)) as pilot:
            text = app.screen_text()
            assert "🀄" not in text and all(not (0x1F000 <= ord(c) <= 0x1F02F) for c in text)
            assert all(cell_len(x) <= 140 for x in text.splitlines())
            assert len(app.panel("status").plain.splitlines()) == 1  # one line when it fits
            assert app.panel("hand").plain.strip()
            await pilot.resize_terminal(79, 24)
            await pilot.pause()
            assert app.too_small() and "至少需要 80×24" in app.screen_text()
            assert not app.panel("hand").display
            await pilot.press("enter", "question_mark")  # ignored while too small
            await pilot.press("q")  # asks, where it can be read
            assert "确定退出？" in app.panel("small").plain
            assert app.confirm_quit
            await pilot.press("n")  # cancels
            assert not app.confirm_quit
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert not app.too_small() and app.panel("hand").display
            assert not app.show_help  # the ? pressed while too small opened nothing
            assert all(cell_len(x) <= 80 for x in app.screen_text().splitlines())
        small = PlayApp(profile="fuzhou-tcy", seed=1, lang="en", hands=1)
        async with small.run_test(size=(100, 20)):
            assert "Terminal too small (100×20)" in small.screen_text()

    asyncio.run(main())


def test_three_players_sanming_and_log_dir(tmp_path: Path) -> None:
    async def main() -> PlayApp:
        stats = {"ends": 0, "prompts": 0, "claims": 0, "passes": 0, "discards": 0, "hints": 9}
        app = PlayApp(
            profile="sanming", seed=7, lang="zh", hands=1, players=3, log_dir=str(tmp_path)
        )
        async with app.run_test(size=(80, 24)) as pilot:
            assert app.game.n == 3
            seats = app.panel("seats").plain
            assert "下家1号" in seats and "上家2号" in seats and "对家" not in seats
            await _drive(app, pilot, 1, stats, shuffle=False)  # the log must replay
            await pilot.press("q", "y")
        return app

    app = asyncio.run(main())
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert [p.name for p in logs] == ["hand-001.jsonl"] and app.log_files == [str(logs[0])]
    assert not list(tmp_path.glob(".tmp-*"))
    events = parse_log(logs[0].read_text(encoding="utf-8"), "log")
    assert verify(events) is None and events[0]["players"] == 3


def test_seat_panel_shows_flowers_count_jin_kan_and_wraps() -> None:
    view = {
        "seat": 0,
        "players": 4,
        "dealer": 1,
        "hand_sizes": [16, 16, 13, 16],
        "xian_jin": [3],
        "jin_kan": {"2": "45m"},
        "gold_discarded": [1],
        "gold_discard_rule": "self_draw_only",
        "flowers": ["1f2f3f4f5f6f7f8f1z1z1z1z2z", "", "", ""],
        "melds": [
            [],
            [{"type": "pong", "tiles": "222m"}],
            [{"type": "kong_concealed", "tiles": None}],
            [],
        ],
        "discards": ["", "123456789m123456789p123456789s", "", "5p"],
    }
    lines = seat_lines(view, "zh", 80, last_discard=3)
    text = "\n".join(lines)
    assert all(cell_len(x) <= 80 for x in lines)
    assert "花（13）：" in text and "白" not in text and "菊" in text  # all 13, never cut
    assert "金坎（已锁定）亮：4万 5万" in text and "闲金" in text
    assert "打过金：本盘只能自摸" in text and "碰 2万2万2万" in text and "暗杠（未亮）" in text
    assert "‹5饼›" in text and text.count("9条") == 1  # a long river wraps, nothing lost
    en = "\n".join(seat_lines(view, "en", 80, last_discard=3))
    assert "flowers(13):" in en and "jin-kan (locked) shows: 4m 5m" in en
    assert "P1 right [dealer]" in en and "n16" not in en and "CK" not in en
    assert wrap(["a" * 100], 80)[0] == "a" * 80  # an over-long word is split, not dropped


def test_the_kind_under_the_cursor_is_marked_where_it_lies_face_up() -> None:
    """同牌提示 as in the web client (docs/terminal.md): the face-up copies (rivers, melds) of
    the kind under the hand's cursor are marked in the seats panel, public tiles only, and
    the marks follow the cursor; the lines wrap as without them."""
    app = PlayApp(profile="fuzhou-tcy", seed=1, lang="zh", hands=1)

    def face_up(v: dict[str, Any], k: int) -> int:
        melds = [m["tiles"] for ms in v["melds"] for m in ms if m["tiles"]]
        return sum(parse(x).count(k) for x in [*v["discards"], *melds])

    def marks(app: PlayApp) -> list[str]:
        seats = app.panel("seats").text
        return [seats.plain[sp.start : sp.end] for sp in seats.spans if sp.style == SAME_STYLE]

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            g = app.game
            # seed 1: we deal; our discard, then (passing any claim) our next turn
            await pilot.press("enter")
            while HUMAN in g.to_act() and g.phase != "turn":
                await pilot.press(OPTION_KEYS[len(app.options) - 1])
            assert g.phase == "turn" and g.turn == HUMAN, "seed 1: not our turn again"
            v = app.view()
            order = hand_order(v)
            shown = [j for j, k in enumerate(order) if face_up(v, k)]
            hidden = [j for j, k in enumerate(order) if not face_up(v, k)]
            assert shown and hidden, "seed 1: no tile of our hand face up (or all are)"
            for j in (shown[0], hidden[0], shown[-1]):
                await pilot.click("#hand", offset=(slot_starts(v)[j] + 1, 0))
                assert app.selected == j
                k = order[j]
                assert marks(app) == [tile(k, "zh")] * face_up(v, k)
                plain = "\n".join(seat_lines(v, "zh", app.size.width, app.last_discarder()))
                assert app.panel("seats").plain == plain
            await pilot.press("q", "y")

    asyncio.run(main())


def test_view_ignores_hidden_information_r12() -> None:
    app = PlayApp(profile="fuzhou-tcy", seed=1, lang="en", hands=1)
    g = app.game
    v = g.view(HUMAN)
    _hide_shuffle(app, 1)
    assert g.view(HUMAN) == v


def test_rob_gold_option_says_it_discards_hint_selects_and_errors_name_tiles() -> None:
    """庄家抢金 on a stacked wall: the option says it discards the selected tile, the hint
    selects the tile and points at the letter, a wrong tile names the tiles that work."""
    from fujian_mahjong.engine import Game, build_wall
    from fujian_mahjong.tiles import parse

    deal = {
        0: parse("123m456m789m123p45p99s1s"),  # the dealer is ready after the deal
        1: parse("147m258p369s147m258p3s"),
        2: parse("258m369p147s258m369p4s"),
        3: parse("369m147p258s369m147p2s"),
    }
    g = Game.from_wall("fuzhou-tcy", build_wall(deal, (), parse("9p"), 4, 0), (3, 4), 4, 0, 0)

    async def main() -> None:
        app = PlayApp(profile="fuzhou-tcy", seed="rob", lang="zh", hands=1)
        app.game = app.match.current = g
        async with app.run_test(size=(80, 24)) as pilot:
            labels = [a.type for a in app.options]
            assert "rob_gold" in labels
            i = labels.index("rob_gold")
            assert f"[{OPTION_KEYS[i]}]抢金（并打出选中的牌）" in app.panel("options").plain
            works = app.tiles_for("rob_gold")
            order = hand_order(app.view())
            app.selected = next(j for j, k in enumerate(order) if k not in works)
            await pilot.press(OPTION_KEYS[i])
            msg = app.panel("options").plain
            assert "可以打" in msg and all(tile(k, "zh") in msg for k in works)
            assert not g.is_over()
            await pilot.press("h")
            assert f"[{OPTION_KEYS[i]}]" in app.panel("options").plain
            assert app.selected_tile() in works
            await pilot.press(OPTION_KEYS[i])
            assert g.is_over() and g.win is not None and g.win["winner"] == HUMAN
            assert "你 抢金" in app.panel("log").plain

    asyncio.run(main())


def test_tenpai_hint_names_the_ready_discards_and_then_the_waits() -> None:
    """听牌提示 as in the web client (docs/terminal.md): on our turn the tiles whose discard
    leaves the hand ready are green in the hand row and named under the options; with one
    selected, the line says what the hand would wait on, each wait with how many are unseen
    (R7 waits with the golds, R12 counted from our own view); once discarded, the waits."""
    # seed "ready-7": our first turn can make the hand ready (checked below, not assumed)
    app = PlayApp(profile="fuzhou-tcy", seed="ready-7", lang="zh", hands=1)

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            g = app.game
            assert g.phase == "turn" and g.turn == HUMAN
            v = app.view()
            ready = seat_ready_discards(v)
            assert ready, "seed ready-7: no discard leaves our first hand ready"
            order = hand_order(v)
            # the hand row: as many green tiles as there are tiles of the ready kinds (bar
            # the selected one)
            bar = hand_bar(v, app.selected, "zh", ready_kinds(v))
            green = sum(1 for span in bar.spans if span.style == "bold green")
            want = sum(1 for j, k in enumerate(order) if KIND_STR[k] in ready and j != app.selected)
            assert green == want and green + (KIND_STR[order[app.selected]] in ready) > 0
            # a tile that leaves the hand short selected: the line names the ready discards
            short = next(j for j, k in enumerate(order) if KIND_STR[k] not in ready)
            await pilot.click("#hand", offset=(slot_starts(v)[short] + 1, 0))
            assert app.selected == short
            names = " ".join(tile(parse_kind(k), "zh") for k in sorted(ready, key=parse_kind))
            assert f"听牌提示：打 {names} 可听牌" in app.panel("options").plain
            # a ready discard selected: what the hand would wait on, with the unseen counts
            i = next(j for j, k in enumerate(order) if KIND_STR[k] in ready)
            await pilot.click("#hand", offset=(slot_starts(v)[i] + 1, 0))
            k = order[i]
            seen = g.seat_view(HUMAN).visible_counts()
            gold = parse_kind(v["gold"])
            waits = " ".join(  # the gold's kind marked * (seed ready-7 waits on it)
                f"{'*' * (parse_kind(w) == gold)}{tile(parse_kind(w), 'zh')}"
                f"（剩{4 - seen[parse_kind(w)]}）"
                for w in ready[KIND_STR[k]]
            )
            assert f"打{tile(k, 'zh')}后听：{waits}" in app.panel("options").plain
            # discarded (a second click): while the hand waits, its waits are shown
            await pilot.click("#hand", offset=(slot_starts(v)[i] + 1, 0))
            mine = [e for e in g.events if e["type"] == "discard" and e["seat"] == HUMAN]
            assert mine and parse_kind(mine[0]["tile"]) == k
            if not g.is_over() and g.turn != HUMAN:
                assert "听牌：" in app.panel("options").plain
            await pilot.press("q", "y")

    asyncio.run(main())


def _headless_match(seed: int, hands: int) -> PlayApp:
    """A match played headless by a plain policy for the human seat: a win when offered,
    else the engine's first legal action (a discard of the first tile, or a claim)."""
    app = PlayApp(profile="fuzhou-tcy", seed=seed, lang="en", hands=hands)
    app.advance()
    while True:
        g = app.game
        while not g.is_over():
            legal = g.legal_actions(HUMAN)
            pick = next((a for a in legal if a.type == "win"), None)
            pick = pick or next((a for a in legal if a.type == "pass"), legal[0])
            app.human_act(pick)
        if app.match_over:
            return app
        app.next_hand()


def test_english_win_lines_say_you_win_and_the_standings_name_no_missing_tile() -> None:
    """English names the player's own seat "You": "You win on 4p (P3 left dealt in)", not
    "You wins on"; the standings' per-hand lines have no tile to name, so a discard's win
    reads "wins", not "wins on" with nothing after it."""
    mine = theirs = 0
    for seed in range(60):
        app = _headless_match(seed, 3)
        text = app.summary_text()
        assert "You wins" not in text and "You self-draws" not in text, text
        assert "wins on (" not in text and "wins on)" not in text, text
        for h in app.match.history:
            if h.get("win") == "discard":
                mine += h.get("winner") == HUMAN
                theirs += h.get("winner") != HUMAN
        if mine and theirs:
            break
    assert mine and theirs, "no seed gave a discard win to us and to another seat"
    g = app.game
    line = app.win_line()
    if g.win and g.win.get("winner") == HUMAN and g.win.get("win") == "discard":
        assert line.startswith("You win on "), line


def test_two_golds_side_by_side_stay_apart_and_a_gold_wait_is_marked() -> None:
    """Chinese tile names fill a slot: ``*3条*3条`` ran two golds together. A gold takes a
    cell more; clicks still land on each tile. The gold's kind among the waits is marked
    ``*`` as in the hand."""
    view = {
        "hand": "33s2m2m5m6m7m",
        "gold": "3s",
        "drawn": None,
        "seat": 0,
    }
    bar = hand_bar(view, -1, "zh").plain
    assert "*3条 *3条" in bar, bar
    # the second gold starts where the clicks find it (cells, not characters)
    assert cell_len(bar[: bar.index("*3条", 1)]) == slot_starts(view)[1]
    assert cell_len(bar[: bar.index(" 2万")]) == slot_starts(view)[2]  # its mark's cell
    seen = [0] * 34
    assert _waits_text(seen, ["3s", "2m"], "zh", parse_kind("3s")) == "*3条（剩4） 2万（剩4）"


def test_sigterm_gives_the_terminal_back_and_prints_the_summary() -> None:
    """A kill by pid (SIGTERM) ends the game as quitting does: the real program in a real
    pseudo-terminal leaves the alternate screen, shows the cursor again and prints the
    summary with the seed. It died at once, the terminal left on the alternate screen with
    the cursor hidden (a player had to type ``reset`` blind)."""
    import fcntl
    import os
    import pty
    import select
    import signal
    import struct
    import subprocess
    import sys
    import termios

    main, sub = pty.openpty()
    fcntl.ioctl(sub, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    cmd = [sys.executable, "-m", "fujian_mahjong", "play", "--seed", "7", "--lang", "en"]
    p = subprocess.Popen(cmd, stdin=sub, stdout=sub, stderr=sub, env=env, start_new_session=True)
    os.close(sub)
    out = b""

    def read_until(done: Any) -> None:
        nonlocal out
        while not done(out):
            ready, _, _ = select.select([main], [], [], 30)  # a bound against a hang only
            if not ready:
                raise AssertionError(f"the game said nothing for 30 s: {out[-300:]!r}")
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the program closed the terminal
                return
            if not chunk:
                return
            out += chunk

    try:
        read_until(lambda b: b"Match:" in b)  # the table is drawn: the app runs
        p.send_signal(signal.SIGTERM)
        read_until(lambda b: b"--seed 7" in b[b.rfind(b"\x1b[?1049l") :] and b"\x1b[?1049l" in b)
        assert p.wait(timeout=30) == 0
    finally:
        if p.poll() is None:
            p.kill()
        os.close(main)
    tail = out[out.rfind(b"\x1b[?1049l") :]
    assert b"\x1b[?25h" in tail  # the cursor shown again


def test_a_long_match_result_scrolls_at_80x24() -> None:
    """The match's end (standings, every hand's line, the last hand's reveal, the totals,
    the seed) runs past a 24-line terminal: it scrolls (↑↓, PgUp/PgDn, Home/End) to its
    last line, the seed. Its end was cut off."""

    async def main() -> None:
        app = PlayApp(profile="fuzhou-tcy", seed=5, lang="zh", hands=3)
        async with app.run_test(size=(80, 24)) as pilot:
            while not app.match_over:
                g = app.game
                if g.is_over():
                    await pilot.press("n")
                    continue
                legal = g.legal_actions(HUMAN)
                pick = next((a for a in legal if a.type in ("win", "pass")), legal[0])
                app.human_act(pick)
                await pilot.pause()
            await pilot.pause()
            log = app.log_box()
            assert log.virtual_size.height > log.size.height, "fits: choose a longer match"
            assert "种子" in app.panel("log").plain.splitlines()[-1]
            assert log.scroll_y == 0
            await pilot.press("end")
            assert log.scroll_y == log.max_scroll_y > 0
            await pilot.press("pageup", "up")
            assert log.scroll_y < log.max_scroll_y
            await pilot.press("home")
            assert log.scroll_y == 0
            assert "↑↓ 翻看" in app.panel("options").plain

    asyncio.run(main())
