"""Terminal client (Textual pilot): a full hand by keys, claim prompts, end-of-hand
breakdown, next hand, quit confirmation, and R12 on screen."""

from __future__ import annotations

import asyncio
import random

from rich.cells import cell_len

from fujian_mahjong.tui.app import HUMAN, PlayApp
from fujian_mahjong.tui.render import OPTION_KEYS


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


async def _drive(app: PlayApp, pilot: object, hands: int, stats: dict[str, int]) -> None:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    steps = 0
    while app.match.hands_played < hands and steps < 400:
        steps += 1
        g = app.game
        if g.is_over():
            text = app.panel("log").plain
            assert "each payer pays" in text or "the discarder pays" in text or "Draw" in text
            assert "Match:" in text
            stats["ends"] += 1
            before = app.match.hands_played
            await pilot.press("n")
            if before < hands:
                # the next hand started (bots may even finish it before we must act)
                assert app.game is not g
                assert app.match.hands_played >= before
            continue
        assert HUMAN in g.to_act()
        if steps % 5 == 0:
            assert all(cell_len(x) <= 80 for x in app.screen_text().splitlines())
            # R12: the screen does not change when only hidden information changes
            shown = app.screen_text()
            _hide_shuffle(app, steps)
            app.refresh_view()
            assert app.screen_text() == shown
        legal = g.legal_actions(HUMAN)
        if g.phase in ("claims", "window_a") or g.last_group:
            # a claim prompt lists exactly the engine's legal actions
            assert app.options == legal
            shown = app.panel("options").plain
            for i, _ in enumerate(legal):
                assert f"[{OPTION_KEYS[i]}]" in shown
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
        # our turn: a win is taken by its letter, else discard by number key + Enter
        wins = [i for i, a in enumerate(app.options) if a.type == "win"]
        if wins:
            await pilot.press(OPTION_KEYS[wins[0]])
            continue
        before = len(g.discards[HUMAN])
        for k in ("1", "enter"):
            await pilot.press(k)
        if g.is_over():
            continue
        if len(g.discards[HUMAN]) == before and g.phase == "turn" and g.turn == HUMAN:
            # the first tile was not discardable (a gold in sanming): use the arrow key
            await pilot.press("right", "enter")
        stats["discards"] += 1


def test_full_hands_by_keyboard_with_prompts_breakdown_and_next_hand() -> None:
    async def main() -> dict[str, int]:
        stats = {"ends": 0, "prompts": 0, "claims": 0, "passes": 0, "discards": 0}
        for seed in range(6):
            app = PlayApp(profile="fuzhou-tcy", seed=seed, lang="en", bots="heuristic", hands=3)
            async with app.run_test(size=(80, 24)) as pilot:
                await _drive(app, pilot, 3, stats)
                assert app.match.hands_played == 3 and app.match_over
                assert "Match over" in app.panel("options").plain
            if stats["claims"] and stats["passes"]:
                break
        return stats

    stats = asyncio.run(main())
    assert stats["ends"] >= 2 and stats["discards"] > 0
    assert stats["prompts"] > 0 and stats["claims"] > 0 and stats["passes"] > 0


def test_hint_quit_confirmation_and_click() -> None:
    async def main() -> None:
        app = PlayApp(profile="sanming", seed=4, lang="zh", hands=1)
        async with app.run_test(size=(80, 24)) as pilot:
            while HUMAN not in app.game.to_act() or app.game.phase != "turn":
                legal = app.game.legal_actions(HUMAN)
                await pilot.press(OPTION_KEYS[len(legal) - 1])
            await pilot.press("h")
            assert "提示" in app.panel("options").plain
            # a click selects a tile, a second click on it discards it
            before = len(app.game.discards[HUMAN])
            await pilot.click("#hand", offset=(2 + 4 * 1, 0))
            assert app.selected == 1
            tile = app.selected_tile()
            await pilot.click("#hand", offset=(2 + 4 * 1, 0))
            g = app.game
            assert g.is_over() or len(g.discards[HUMAN]) == before + 1 or tile == g.gold
            await pilot.press("q")
            assert "确定退出" in app.panel("options").plain
            await pilot.press("x")  # anything but y cancels
            assert "确定退出" not in app.panel("options").plain
            await pilot.press("q", "y")
        assert app.return_code is not None or not app.is_running

    asyncio.run(main())


def test_tiles_are_text_and_fit_80_columns() -> None:
    async def main() -> None:
        app = PlayApp(profile="fuzhou-doudou", seed=2, lang="zh", hands=1)
        async with app.run_test(size=(80, 24)):
            text = app.screen_text()
            assert "🀄" not in text and all(not (0x1F000 <= ord(c) <= 0x1F02F) for c in text)
            from rich.cells import cell_len

            assert all(cell_len(line) <= 80 for line in text.splitlines())
            assert app.panel("hand").plain.strip()

    asyncio.run(main())


def test_view_ignores_hidden_information_r12() -> None:
    app = PlayApp(profile="fuzhou-tcy", seed=1, lang="en", hands=1)
    g = app.game
    v = g.view(HUMAN)
    _hide_shuffle(app, 1)
    assert g.view(HUMAN) == v
