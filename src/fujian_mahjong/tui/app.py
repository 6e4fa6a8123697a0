"""``fjmj play``: a whole match against bots in the terminal (Textual).

The human is seat 0. Keys: ←/→ or 1–9/0 select a tile, Enter/Space discards it (a click
selects, a second click discards); letters a, b, c… choose the offered options (胡 / 杠 /
碰 / 吃 … / 过, 暗杠, 加杠, 三金倒, 抢金, 天胡, 金坎); h shows the heuristic bot's hint;
n starts the next hand; q quits (with confirmation).
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from fujian_mahjong.bots import HeuristicBot, make_bot
from fujian_mahjong.engine import Action, Game, Match
from fujian_mahjong.engine.narrate import describe
from fujian_mahjong.tui.render import (
    OPTION_KEYS,
    SLOT,
    L,
    fit,
    hand_bar,
    hand_order,
    option_label,
    seat_lines,
    status_line,
    tiles_text,
)

HUMAN = 0


class Panel(Static):
    """A text panel that remembers its plain text (for tests and R12 checks)."""

    plain: str = ""

    def show(self, content: str | Text) -> None:
        self.plain = content.plain if isinstance(content, Text) else content
        self.update(content)


class HandPanel(Panel):
    def on_click(self, event: events.Click) -> None:
        app = self.app
        if isinstance(app, PlayApp):
            app.click_tile(event.x // SLOT)


class OptionsPanel(Panel):
    spans: list[tuple[int, int, int]] = []  # noqa: RUF012  (start, end, option index)

    def on_click(self, event: events.Click) -> None:
        app = self.app
        if isinstance(app, PlayApp):
            for a, b, i in self.spans:
                if a <= event.x < b:
                    app.choose_option(i)


class PlayApp(App[None]):
    CSS = """
    Screen { layout: vertical; }
    #status { height: 1; background: $boost; }
    #seats { height: 8; }
    #hand { height: 1; }
    #options { height: 2; }
    #log { height: 1fr; }
    """

    def __init__(
        self,
        profile: str = "fuzhou-tcy",
        seed: int | str = 0,
        lang: str = "zh",
        bots: str = "heuristic",
        hands: int = 0,
    ) -> None:
        super().__init__()
        self.lang = lang
        self.match = Match(profile, seed=seed, players=4)
        self.bot_kind = bots
        self.max_hands = hands
        self.bots = [make_bot(bots, f"{seed}:{s}") for s in range(4)]
        self.helper = HeuristicBot()
        self.game: Game = self.match.next_hand()
        self.selected = 0
        self.options: list[Action] = []
        self.confirm_quit = False
        self.message = ""
        self.hand_over_text = ""
        self.match_over = False

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Panel(id="status")
        yield Panel(id="seats")
        yield HandPanel(id="hand")
        yield OptionsPanel(id="options")
        yield Panel(id="log")

    def on_mount(self) -> None:
        self.title = "fujian-mahjong"
        self.advance()

    def panel(self, pid: str) -> Panel:
        return self.query_one(f"#{pid}", Panel)

    def screen_text(self) -> str:
        """Everything the panels show, as plain text."""
        return "\n".join(self.panel(p).plain for p in ("status", "seats", "hand", "options", "log"))

    # ------------------------------------------------------------------ game flow

    def advance(self) -> None:
        """Let the bots act until the human must answer or the hand ends."""
        g = self.game
        while not g.is_over():
            seats = g.to_act()
            if HUMAN in seats:
                break
            s = seats[0]
            g.apply(s, self.bots[s].act(g.seat_view(s)).action)
        if g.is_over() and not self.hand_over_text:
            self.match.record(g)
            self.hand_over_text = self.result_text()
            if self.max_hands and self.match.hands_played >= self.max_hands:
                self.match_over = True
        self.refresh_view()

    def human_act(self, action: Action) -> None:
        self.message = ""
        self.game.apply(HUMAN, action)
        self.selected = min(self.selected, max(0, self.game.hand_size(HUMAN) - 1))
        self.advance()

    def next_hand(self) -> None:
        if not self.game.is_over() or self.match_over:
            return
        self.game = self.match.next_hand()
        self.hand_over_text = ""
        self.selected = 0
        self.message = ""
        self.advance()

    # ------------------------------------------------------------------ options

    def compute_options(self) -> list[Action]:
        g = self.game
        if g.is_over() or HUMAN not in g.to_act():
            return []
        legal = g.legal_actions(HUMAN)
        if g.phase != "turn" or g.last_group:
            return legal  # a claim prompt: exactly the engine's legal actions
        out: list[Action] = []
        grouped: set[str] = set()
        for a in legal:
            if a.type == "discard":
                continue
            if a.type in ("rob_gold", "jin_kan") and a.tile >= 0:
                if a.type not in grouped:
                    grouped.add(a.type)
                    out.append(Action(a.type, -2))  # applies to the selected tile
                continue
            out.append(a)
        return out

    def choose_option(self, i: int) -> None:
        if i >= len(self.options):
            return
        a = self.options[i]
        if a.tile == -2:
            tile = self.selected_tile()
            real = Action(a.type, tile)
            if real not in self.game.legal_actions(HUMAN):
                self.message = L(
                    self.lang, "选中的牌不能这样打", "not possible with the selected tile"
                )
                self.refresh_view()
                return
            a = real
        self.human_act(a)

    def selected_tile(self) -> int:
        order = hand_order(self.game.view(HUMAN))
        return order[self.selected] if order else -1

    def click_tile(self, i: int) -> None:
        order = hand_order(self.game.view(HUMAN))
        if not 0 <= i < len(order):
            return
        if i == self.selected:
            self.discard_selected()
        else:
            self.selected = i
            self.refresh_view()

    def discard_selected(self) -> None:
        g = self.game
        if g.is_over() or g.phase != "turn" or g.turn != HUMAN:
            return
        a = Action("discard", self.selected_tile())
        if a in g.legal_actions(HUMAN):
            self.human_act(a)
        else:
            self.message = L(self.lang, "这张牌现在不能打", "that tile cannot be discarded now")
            self.refresh_view()

    # ------------------------------------------------------------------ keys

    def on_key(self, event: events.Key) -> None:
        key = event.key
        if self.confirm_quit:
            if key in ("y", "Y"):
                self.exit()
            else:
                self.confirm_quit = False
                self.refresh_view()
            return
        if key == "q":
            self.confirm_quit = True
            self.refresh_view()
            return
        if key == "h":
            self.show_hint()
            return
        if self.game.is_over():
            if key in ("n", "enter", "space"):
                self.next_hand()
            return
        n = len(hand_order(self.game.view(HUMAN)))
        if key == "left":
            self.selected = (self.selected - 1) % max(1, n)
        elif key == "right":
            self.selected = (self.selected + 1) % max(1, n)
        elif key.isdigit():
            i = (int(key) - 1) % 10
            if i < n:
                self.selected = i
        elif key in ("enter", "space"):
            self.discard_selected()
            return
        elif len(key) == 1 and key in OPTION_KEYS:
            self.choose_option(OPTION_KEYS.index(key))
            return
        else:
            return
        self.refresh_view()

    def show_hint(self) -> None:
        g = self.game
        if g.is_over() or HUMAN not in g.to_act():
            return
        d = self.helper.act(g.seat_view(HUMAN))
        self.message = L(self.lang, "提示: ", "Hint: ") + d.explain(self.lang)
        if d.action.type == "discard":
            order = hand_order(g.view(HUMAN))
            if d.action.tile in order:
                self.selected = order.index(d.action.tile)
        self.refresh_view()

    # ------------------------------------------------------------------ rendering

    def result_text(self) -> str:
        g = self.game
        v = g.view(HUMAN)
        lang = self.lang
        lines = []
        sc = g.score()
        if g.win:
            ev = next(e for e in reversed(g.events) if e["type"] == "win")
            lines.append(describe(ev, lang) or "")
            if ev.get("discarder") is not None:
                lines[-1] += L(
                    lang, f" (放胡: {ev['discarder']}号)", f" (discarded by P{ev['discarder']})"
                )
        else:
            lines.append(L(lang, "荒庄 (和局)", "Draw: no winner"))
        hands = v.get("hands", {})
        for s in range(g.n):
            melds = " ".join(
                f"[{tiles_text(m['tiles'], lang)}]" for m in v["melds"][s] if m["tiles"]
            )
            lines.append(
                f"{L(lang, f'{s}号', f'P{s}')}: {tiles_text(hands.get(str(s), ''), lang)} {melds}"
            )
        if sc is not None:
            terms = [f"{(t.zh if lang == 'zh' else t.en)} {t.value}" for t in sc.breakdown]
            row = ""
            for term in terms:
                if cell_len(row) + cell_len(term) + 3 > 78:
                    lines.append(row)
                    row = ""
                row += ("  " if row else "") + term
            if row:
                lines.append(row)
            lines.append(
                L(lang, "本盘: ", "This hand: ")
                + "  ".join(f"{s}:{p:+d}" for s, p in enumerate(sc.payments))
            )
        lines.append(
            L(lang, "总分: ", "Match: ")
            + "  ".join(f"{s}:{p:+d}" for s, p in enumerate(self.match.totals))
        )
        return "\n".join(fit(x) for x in lines)

    def log_lines(self, limit: int) -> list[str]:
        out = []
        for e in self.game.events:
            line = describe(e, self.lang, viewer=HUMAN)
            if line and e.get("type") not in ("end",):
                out.append(fit(line))
        return out[-limit:]

    def refresh_view(self) -> None:
        g = self.game
        lang = self.lang
        v = g.view(HUMAN)
        self.panel("status").show(
            status_line(v, self.match.hands_played + (0 if g.is_over() else 1), lang)
        )
        self.panel("seats").show("\n".join(seat_lines(v, lang)))
        n = len(hand_order(v))
        self.selected = min(self.selected, max(0, n - 1))
        self.panel("hand").show(hand_bar(v, self.selected, lang))
        self.options = self.compute_options()
        opt = self.query_one("#options", OptionsPanel)
        text = Text()
        spans: list[tuple[int, int, int]] = []
        if self.confirm_quit:
            text.append(L(lang, "确定退出? (y/n)", "Quit the match? (y/n)"), style="bold red")
        elif g.is_over():
            msg = (
                L(lang, "比赛结束 (q 退出)", "Match over (q to quit)")
                if self.match_over
                else L(lang, "n 下一盘  q 退出", "n: next hand  q: quit")
            )
            text.append(msg, style="bold")
        else:
            if g.phase == "turn" and g.turn == HUMAN and not g.last_group:
                text.append(L(lang, "出牌: 选牌后回车 ", "Discard: select, Enter "), style="dim")
            elif HUMAN in g.to_act():
                text.append(L(lang, "选择: ", "Choose: "), style="bold")
            else:
                text.append(L(lang, "等待…", "waiting…"), style="dim")
            for i, a in enumerate(self.options):
                label = f"[{OPTION_KEYS[i]}]{option_label(a, lang, g.phase)}"
                start = text.cell_len
                text.append(label, style="bold cyan")
                spans.append((start, text.cell_len, i))
                text.append(" ")
        if self.message:
            text.append("\n" + self.message)
        opt.spans = spans
        opt.show(text)
        if g.is_over():
            self.panel("log").show(self.hand_over_text)
        else:
            self.panel("log").show("\n".join(self.log_lines(8)))


def run_app(**kw: Any) -> None:
    PlayApp(**kw).run()
