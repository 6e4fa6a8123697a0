"""``fjmj play``: a whole match against bots in the terminal (Textual).

The human is seat 0. Keys: ←/→ or 1–9/0 select a tile, Enter/Space discards it (a gold asks
for a confirmation first; a click selects, a second click discards); letters a, b, c… choose
the offered options (胡 / 杠 / 碰 / 吃 … / 过, 暗杠, 加杠, 三金倒, 抢金, 天胡, 金坎); h shows
the heuristic bot's hint; n — and only n — starts the next hand; ? shows every key; q or
ctrl+q quits after a confirmation and prints the match summary.

Every panel is drawn from the human seat's view (R12) and wrapped to the terminal width; a
terminal smaller than 80×24 gets a message instead of a clipped table.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import threading
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from fujian_mahjong.bots import HeuristicBot, make_bot
from fujian_mahjong.engine import Action, Game, Match, Phase, to_jsonl
from fujian_mahjong.engine.narrate import narrate
from fujian_mahjong.tiles import parse_kind
from fujian_mahjong.tui.render import (
    MIN_H,
    MIN_W,
    OPTION_KEYS,
    SLOT,
    OnSelected,
    Option,
    compact_tiles,
    fit,
    hand_bar,
    hand_order,
    help_lines,
    marked,
    option_label,
    ready_kinds,
    reveal_lines,
    seat_lines,
    seat_name,
    slot_starts,
    start_cursor,
    status_lines,
    tenpai_line,
    tile,
    totals_text,
    tr,
    wrap,
    wrap_text,
    you_verbs,
)

HUMAN = 0

# R8/R10 win kinds as the win line says them: tui.win.<kind> in the message catalogue
WIN_KINDS = (
    "discard",
    "self_draw",
    "rob_gold",
    "heavenly",
    "three_golds",
    "rob_kong",
    "last_group",
)


def win_word(kind: str, lang: str) -> str:
    return tr("win." + kind, lang) if kind in WIN_KINDS else kind


def _win_tile(g: Game) -> int:
    """The winning tile of the finished hand (-1 for none: 三金倒, a draw)."""
    for e in reversed(g.events):
        if e["type"] == "win":
            return parse_kind(e["tile"]) if e["tile"] else -1
    return -1


# a hint's reason's first words when they only name its action (js/helpers.js ACTION_HEAD)
ACTION_HEAD = re.compile(
    r"^(?:(?:打|吃|碰|杠|暗杠|加杠) [^,:]+|杠|暗杠|加杠|抢金|过|胡牌|"
    r"(?:discard|chow|pong|kong|concealed kong|added kong) [^,:]+|kong|concealed kong|"
    r"added kong|rob the gold \(抢金\)|pass|win): "
)

# the keys that scroll a finished hand's or match's result (the log panel)
SCROLL_KEYS = ("up", "down", "pageup", "pagedown", "home", "end")


class Panel(Static):
    """A text panel that remembers what it shows, plain and styled (for tests and R12
    checks)."""

    plain: str = ""
    text: Text = Text()

    def show(self, content: str | Text) -> None:
        self.text = content if isinstance(content, Text) else Text(content)
        self.plain = self.text.plain
        self.update(content)


class HandPanel(Panel):
    def on_click(self, event: events.Click) -> None:
        app = self.app
        if isinstance(app, PlayApp):
            app.click_at(event.x)


class OptionsPanel(Panel):
    # (line, start, end, option index) of each clickable option
    spans: list[tuple[int, int, int, int]] = []  # noqa: RUF012

    def on_click(self, event: events.Click) -> None:
        app = self.app
        if isinstance(app, PlayApp):
            for y, a, b, i in self.spans:
                if y == event.y and a <= event.x < b:
                    app.choose_option(i)


class _TableScreen(Screen[Any]):
    """The default screen; it redraws the table when the terminal changes size (the App's
    own resize handler stops the event)."""

    def on_resize(self, event: events.Resize) -> None:
        app = self.app
        if isinstance(app, PlayApp):
            app.call_after_refresh(app.refresh_view)


class PlayApp(App[None]):
    CSS = """
    Screen { layout: vertical; }
    #status { height: auto; background: $boost; }
    #seats { height: auto; }
    #hand { height: 1; margin-top: 1; }
    #options { height: auto; min-height: 2; }
    #logbox { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 1; }
    #log { height: auto; }
    #help { height: auto; display: none; border: round $accent; }
    #small { height: 1fr; display: none; content-align: center middle; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # ctrl+q goes through the game's own confirmation (and prints the summary)
        Binding("ctrl+q", "request_quit", show=False, priority=True),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(
        self,
        profile: str = "fuzhou-tcy",
        seed: int | str | None = None,
        lang: str = "zh",
        bots: str = "heuristic",
        hands: int = 0,
        players: int = 4,
        log_dir: str | None = None,
    ) -> None:
        super().__init__()
        self.lang = lang
        # no seed: the match draws a fresh one (R12); it is shown so the match can be replayed
        self.match = Match(profile, seed=seed, players=players)
        self.seed = self.match.seed
        self.players = players
        self.bot_kind = bots
        self.max_hands = hands
        self.log_dir = log_dir
        self.bots = [make_bot(bots, f"{self.seed}:{s}") for s in range(players)]
        self.helper = HeuristicBot()
        self.game: Game = self.match.next_hand()
        self.selected = 0
        self.options: list[Option] = []
        self.confirm_quit = False
        self.confirm_gold: Action | None = None
        self.show_help = False
        self.message = ""
        self.hand_over_text = ""
        self.match_over = False
        self.log_files: list[str] = []
        self._cursor_key: tuple[int, int] | None = None
        self._panels_ready = False  # set once mounted (panels exist)

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Panel(id="status")
        yield Panel(id="seats")
        yield HandPanel(id="hand")
        yield OptionsPanel(id="options")
        # the log in a box that scrolls: a match's result runs past 24 lines
        yield VerticalScroll(Panel(id="log"), id="logbox")
        yield Panel(id="help")
        yield Panel(id="small")

    def on_mount(self) -> None:
        # the terminal's title names the rules as players know them (福州麻将（同城游）)
        p = self.match.profile
        self.title = p.title_zh if self.lang == "zh" else p.title_en
        self._panels_ready = True
        # SIGTERM (a kill by pid) ends the game as quitting does: the terminal is given back
        # (it stayed on the alternate screen, the cursor hidden) and the summary printed
        # (run_app). asyncio takes signal handlers on POSIX loops in the main thread only
        posix_main = (
            sys.platform != "win32" and threading.current_thread() is threading.main_thread()
        )
        if not self.is_headless and posix_main:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self.exit)
        self.advance()

    def get_default_screen(self) -> Screen[Any]:
        return _TableScreen(id="_default")

    def panel(self, pid: str) -> Panel:
        return self.query_one(f"#{pid}", Panel)

    def log_box(self) -> VerticalScroll:
        return self.query_one("#logbox", VerticalScroll)

    def screen_text(self) -> str:
        """Everything the visible panels show, as plain text."""
        ids = ("small",) if self.too_small() else ("status", "seats", "hand", "options", "log")
        if self.show_help and not self.too_small():
            ids = (*ids, "help")
        return "\n".join(self.panel(p).plain for p in ids if self.panel(p).display)

    def width(self) -> int:
        return max(MIN_W, self.size.width)

    def too_small(self) -> bool:
        w, h = self.size
        return w < MIN_W or h < MIN_H

    # ------------------------------------------------------------------ game flow

    def view(self) -> dict[str, Any]:
        v = self.game.view(HUMAN)
        v["gold_discard_rule"] = self.game.profile.gold_discard  # public profile data
        return v

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
            self.save_log(g)
            if self.max_hands and self.match.hands_played >= self.max_hands:
                self.match_over = True
            self.hand_over_text = self.result_text()
        self.place_cursor()
        self.refresh_view()

    def save_log(self, g: Game) -> None:
        """``--log-dir``: each finished hand's event log (verifiable by ``fjmj replay``)."""
        if not self.log_dir:
            return
        import os

        from fujian_mahjong.fileio import write_atomic

        path = os.path.join(self.log_dir, f"hand-{self.match.hands_played:03d}.jsonl")
        try:
            write_atomic(path, to_jsonl(g.events))
            self.log_files.append(path)
        except OSError as e:
            self.message = tr("log_not_saved", self.lang, why=e.strerror or e)

    def place_cursor(self) -> None:
        """At the start of each of the human's turns: on the drawn tile, else the first
        non-gold (R5: a gold is never discarded by a stray Enter)."""
        g = self.game
        if g.is_over() or g.phase is not Phase.TURN or g.turn != HUMAN:
            return
        key = (self.match.hands_played, len(g.events))
        if key != self._cursor_key:
            self._cursor_key = key
            self.selected = start_cursor(self.view())

    def human_act(self, action: Action) -> None:
        self.message = ""
        self.confirm_gold = None
        self.game.apply(HUMAN, action)
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

    def compute_options(self) -> list[Option]:
        g = self.game
        if g.is_over() or HUMAN not in g.to_act():
            return []
        legal = g.legal_actions(HUMAN)
        if g.phase is not Phase.TURN or g.last_group:
            return list(legal)  # a claim prompt: exactly the engine's legal actions
        out: list[Option] = []
        grouped: set[str] = set()
        for a in legal:
            if a.type == "discard":
                continue
            if a.type in ("rob_gold", "jin_kan") and a.tile >= 0:
                if a.type not in grouped:
                    grouped.add(a.type)
                    out.append(OnSelected(a.type))  # applies to the selected tile
                continue
            out.append(a)
        return out

    def tiles_for(self, typ: str) -> list[int]:
        """The tiles an option that discards (抢金 with a discard, 金坎) accepts."""
        return sorted(
            {a.tile for a in self.game.legal_actions(HUMAN) if a.type == typ and a.tile >= 0}
        )

    def choose_option(self, i: int) -> None:
        if i >= len(self.options):
            return
        a = self.options[i]
        if isinstance(a, OnSelected):
            tile_k = self.selected_tile()
            real = Action(a.type, tile_k)
            if real not in self.game.legal_actions(HUMAN):
                ok = " ".join(tile(k, self.lang) for k in self.tiles_for(a.type))
                self.message = tr("not_with_selected", self.lang, ok=ok)
                self.refresh_view()
                return
            a = real
        self.human_act(a)

    def selected_tile(self) -> int:
        order = hand_order(self.view())
        return order[self.selected] if 0 <= self.selected < len(order) else -1

    def click_at(self, x: int) -> None:
        starts = slot_starts(self.view())
        for i, a in enumerate(starts):
            # to the next tile's start (a gold's slot is a cell wider), else one slot
            end = starts[i + 1] if i + 1 < len(starts) else a + SLOT
            if a <= x < min(end, a + SLOT + 1):
                self.click_tile(i)
                return

    def click_tile(self, i: int) -> None:
        order = hand_order(self.view())
        if not 0 <= i < len(order):
            return
        if i == self.selected:
            self.discard_selected()
        else:
            self.selected = i
            self.refresh_view()

    def discard_selected(self) -> None:
        g = self.game
        if g.is_over() or g.phase is not Phase.TURN or g.turn != HUMAN:
            return
        a = Action("discard", self.selected_tile())
        if a not in g.legal_actions(HUMAN):
            self.message = tr("cannot_discard", self.lang)
            if a.tile == g.gold:
                self.message = tr("gold_not_discardable", self.lang)
            self.refresh_view()
            return
        if a.tile == g.gold:
            self.confirm_gold = a  # R5: ask first
            self.refresh_view()
            return
        self.human_act(a)

    # ------------------------------------------------------------------ keys

    def action_request_quit(self) -> None:
        self.confirm_quit = True
        self.refresh_view()

    async def action_quit(self) -> None:
        self.action_request_quit()

    def action_help_quit(self) -> None:
        # Textual's own hint for ctrl+c, in the UI language
        self.notify(
            tr("quit_keys", self.lang),
            title=tr("quit_title", self.lang),
        )

    def on_key(self, event: events.Key) -> None:
        key = event.key
        if self.confirm_quit:
            if key in ("y", "Y"):
                self.exit()
            else:
                self.confirm_quit = False
                self.refresh_view()
            return
        if self.show_help:
            self.show_help = False
            self.refresh_view()
            return
        if key in ("q",):
            self.action_request_quit()
            return
        if self.too_small():  # (the help too: it opened later, once the window was larger)
            return
        if key in ("question_mark", "?"):
            self.show_help = True
            self.refresh_view()
            return
        if self.confirm_gold is not None:
            a = self.confirm_gold
            self.confirm_gold = None
            # y only, as the prompt says: a second Enter (the key that asked) discarded the
            # gold, which locks the hand to self-draw (R5)
            if key in ("y", "Y"):
                self.human_act(a)
            else:
                self.refresh_view()
            return
        if key == "h":
            self.show_hint()
            return
        if self.game.is_over():
            if key == "n":  # only n: a result is never skipped by a stray Enter
                self.next_hand()
            elif key in SCROLL_KEYS:
                # a result longer than the window (a match's standings, every hand, the
                # winning shape, the seed) is read by scrolling: at 80×24 its end was cut
                log = self.log_box()
                page = max(1, log.size.height - 1)
                step = {"up": -1, "down": 1, "pageup": -page, "pagedown": page}
                if key == "home":
                    log.scroll_home(animate=False)
                elif key == "end":
                    log.scroll_end(animate=False)
                else:
                    log.scroll_relative(y=step[key], animate=False)
            return
        n = len(hand_order(self.view()))
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
        a = d.action
        lang = self.lang
        order = hand_order(self.view())
        pointer = ""
        if a.type == "discard" or (a.type in ("rob_gold", "jin_kan") and a.tile >= 0):
            if a.tile in order:
                # the hint selects that tile (the drawn copy if it is the one)
                last = len(order) - 1
                self.selected = last if order[last] == a.tile else order.index(a.tile)
        if a.type == "discard":
            pointer = tr("hint.discard", lang, tile=tile(a.tile, lang))
        else:
            opts = self.compute_options()
            for i, o in enumerate(opts):
                if o == a or (isinstance(o, OnSelected) and o.type == a.type):
                    pointer = f"[{OPTION_KEYS[i]}] {option_label(a, lang, g.phase)}"
                    break
        # the reason without its first words where they only name the action again (提示：打
        # 7条（回车） — 打后三向听, not "— 打 7条: 打后三向听"), as the browser shows it
        # (js/helpers.js hintReason); the tiles as the hand row names them
        reason = compact_tiles(ACTION_HEAD.sub("", d.explain(lang), count=1), lang)
        self.message = tr("hint", lang, pointer=pointer, reason=reason)
        self.refresh_view()

    # ------------------------------------------------------------------ texts

    def who(self, s: int) -> str:
        return seat_name(HUMAN, s, self.game.n, self.lang)

    def win_line(self) -> str:
        """``上家3号 胡 6条（你 放胡）`` / ``P3 left wins on 6s (You dealt in)`` — never the
        raw payment list."""
        g = self.game
        lang = self.lang
        w = g.win
        if not w:
            return tr("draw_nobody_won", lang)
        winner = int(w["winner"])
        tile_k = _win_tile(g)
        line = f"{self.who(winner)} {win_word(str(w['win']), lang)}"
        if tile_k >= 0:
            line += f" {tile(tile_k, lang)}"
        d = w.get("discarder")
        if d is not None:
            line += tr("dealt_in", lang, seat=self.who(int(d)))  # 放胡: the discarder
        return you_verbs(line, lang)  # "You win on 4p", not "You wins on"

    def reveal_lines(self, width: int) -> list[str]:
        """Every hand, golds marked *, the winning tile marked ‹›, each seat's melds and
        flowers beside it (render.reveal_lines), and the winning decomposition with what
        each gold stands for."""
        g = self.game
        lang = self.lang
        w = g.win
        out = reveal_lines(
            g.view(HUMAN),
            lang,
            width,
            [self.who(s) for s in range(g.n)],
            winner=int(w["winner"]) if w else None,
            win_tile=_win_tile(g) if w else -1,
        )
        sc = g.score()
        dec = getattr(sc, "decomposition", None) if sc else None
        if dec is not None:
            parts = []
            for grp in dec.groups:
                txt = "".join(tile(k, lang) for k in grp.tiles)
                if grp.golds:
                    stands = ",".join(tile(k, lang) for k in grp.golds)
                    txt += tr("gold_as", lang, tiles=stands)
                if grp.type == "pair":
                    txt = tr("pair", lang, tiles=txt)
                parts.append(txt)
            out.extend(wrap([tr("winning_shape", lang), *parts], width, 4))
        return out

    def result_text(self) -> str:
        g = self.game
        lang = self.lang
        # a cell less than the window: the log's box keeps one for its scroll bar
        width = (self.width() if self._panels_ready else MIN_W) - 1
        lines = [self.win_line()]
        sc = g.score()
        if sc is not None and g.win:
            # each term stays whole on a line: "套花（每套2） 0"
            terms = [
                f"{(t.zh if lang == 'zh' else t.en)} {t.value}".replace(" ", "\u00a0")
                for t in sc.breakdown
            ]
            lines.extend(
                x.replace("\u00a0", " ")
                for x in wrap([tr("score", lang), *terms], width, 4, sep="  ")
            )
        if sc is not None and any(sc.payments):
            lines.extend(
                wrap_text(
                    tr("this_hand", lang, totals=totals_text(sc.payments, HUMAN, lang)), width
                )
            )
        lines.extend(self.reveal_lines(width))
        lines.extend(
            wrap_text(
                tr("match_totals", lang, totals=totals_text(self.match.totals, HUMAN, lang)), width
            )
        )
        lines.extend(wrap_text(self.seed_line(), width))
        if self.match_over:  # the standings first: they matter most at the end
            lines = [*self.standings_lines(width), "", *lines]
        return "\n".join(lines)

    def seed_line(self) -> str:
        return tr("seed", self.lang, seed=self.seed)

    def standings_lines(self, width: int = MIN_W) -> list[str]:
        """Final standings with ranks, then every hand's result."""
        lang = self.lang
        n = self.match.players
        totals = self.match.totals
        ranked = sorted(range(n), key=lambda s: (-totals[s], s))
        out = [tr("standings", lang, n=self.match.hands_played)]
        rank = 0  # tied totals share a rank (1, 2, 2, 4)
        for i, s in enumerate(ranked):
            if i == 0 or totals[s] != totals[ranked[i - 1]]:
                rank = i + 1
            out.append(f"  {rank}. {seat_name(HUMAN, s, n, lang)} {totals[s]:+d}")
        out.append(tr("per_hand", lang))
        for h in self.match.history:
            winner = h.get("winner")
            if winner is None:
                res = tr("draw", lang)
            else:
                # a discard's win without its tile: "wins", not "wins on"
                kind = str(h.get("win"))
                word = tr("win.discard_short", lang) if kind == "discard" else win_word(kind, lang)
                res = you_verbs(f"{seat_name(HUMAN, int(winner), n, lang)} {word}", lang)
            pays = h.get("payments", [0] * n)
            mine = f"{seat_name(HUMAN, HUMAN, n, lang)} {pays[HUMAN]:+d}"
            out.extend(
                wrap_text(tr("hand_result", lang, n=h["hand"] + 1, res=res, mine=mine), width, 4)
            )
        return out

    def summary_text(self) -> str:
        """Printed to the terminal when the app exits: standings and the seed."""
        lines = (
            self.standings_lines(MIN_W)
            if self.match.hands_played
            else [tr("no_hand_finished", self.lang)]
        )
        if self.log_files:
            lines.append(tr("logs_saved", self.lang, n=len(self.log_files), dir=self.log_dir))
        lines.append(self.seed_line())
        return "\n".join(lines)

    def log_lines(self, limit: int, width: int) -> list[str]:
        """The play-by-play as this seat may know it (R12), seats named as everywhere in
        the client; a claim of ours that lost to a higher one is said as lost."""
        n = self.game.n
        names = [seat_name(HUMAN, s, n, self.lang) for s in range(n)]
        out = [
            fit(you_verbs(ln["text"], self.lang), width)
            for ln in narrate(self.game.events, self.lang, viewer=HUMAN, names=names)
            if ln["kind"] != "end"
        ]
        return out[-limit:]

    def last_discarder(self) -> int | None:
        """The seat whose river holds the most recent discard (public events only)."""
        for e in reversed(self.game.events):
            if e["type"] == "claim":
                return None  # the last discard was taken
            if e["type"] == "discard":
                return e["seat"]
        return None

    def prompt_prefix(self, v: dict[str, Any]) -> str:
        """``上家3号 打 5饼: `` — a claim prompt names the tile and who discarded it."""
        g = self.game
        lang = self.lang
        if g.phase is Phase.WINDOW_A:
            return tr("prompt.opening", lang)
        ld = v.get("last_discard")
        if g.phase is Phase.CLAIMS and ld:
            t = tile(parse_kind(ld["tile"]), lang)
            robbing = any(e["type"] == "add_kong_declared" for e in g.events[-3:])
            key = "prompt.added_kong" if robbing else "prompt.discard"
            return tr(key, lang, seat=self.who(int(ld["seat"])), tile=t)
        return tr("prompt.choose", lang)

    # ------------------------------------------------------------------ rendering

    def refresh_view(self) -> None:
        if not self._panels_ready:
            return
        small = self.too_small()
        for pid in ("status", "seats", "hand", "options", "log"):
            self.panel(pid).display = not small
        self.log_box().display = not small
        self.panel("small").display = small
        self.panel("help").display = self.show_help and not small
        if self.show_help and not small:
            self.panel("log").display = False  # the help takes the log's rows
            self.log_box().display = False
            self.panel("seats").display = False
        if small:
            w, h = self.size
            msg = tr("too_small", self.lang, w=w, h=h, min_w=MIN_W, min_h=MIN_H)
            if self.confirm_quit:  # q asks here too (it asked out of sight)
                msg += "\n" + tr("confirm_quit", self.lang)
            self.panel("small").show(msg)
            return
        g = self.game
        lang = self.lang
        width = self.width()
        v = self.view()
        over = g.is_over()
        hand_no = self.match.hands_played + (0 if over else 1)
        self.panel("status").show(
            "\n".join(status_lines(v, hand_no, self.match.totals, lang, width))
        )
        self.panel("help").show("\n".join(help_lines(lang)))
        order = hand_order(v)
        self.selected = min(self.selected, max(0, len(order) - 1))
        if over or self.show_help:
            self.panel("seats").display = False
        else:
            # the face-up tiles of the kind under the cursor marked (同牌提示): public only
            same = order[self.selected] if order else None
            lines = seat_lines(v, lang, width, self.last_discarder(), same)
            self.panel("seats").show(marked(lines))
        # the cursor only on our own turn: at a claim prompt it stood on a tile that Enter
        # did nothing with
        mine = not over and g.phase is Phase.TURN and HUMAN in g.to_act()
        self.panel("hand").show(hand_bar(v, self.selected if mine else -1, lang, ready_kinds(v)))
        self.panel("hand").display = not over  # the reveal shows every hand
        self.options = self.compute_options()
        opt = self.query_one("#options", OptionsPanel)
        text = Text()
        spans: list[tuple[int, int, int, int]] = []
        if self.confirm_quit:
            quit_msg = tr("confirm_quit", lang)
            text.append("\n".join(wrap_text(quit_msg, width)), style="bold red")
        elif self.confirm_gold is not None:
            msg = tr("confirm_gold", lang, tile=tile(g.gold, lang))
            if g.profile.gold_discard == "self_draw_only":
                msg += tr("confirm_gold.self_draw_only", lang)
            msg += tr("confirm_gold.keys", lang)
            text.append("\n".join(wrap_text(msg, width)), style="bold red")
        elif over:
            msg = tr("match_over_keys" if self.match_over else "hand_over_keys", lang)
            text.append(msg, style="bold")
        else:
            if g.phase is Phase.TURN and g.turn == HUMAN and not g.last_group:
                text.append(tr("prompt.turn", lang), style="dim")
            elif HUMAN in g.to_act():
                text.append(self.prompt_prefix(v), style="bold")
            else:
                text.append(tr("waiting", lang), style="dim")
            y, x = 0, text.cell_len
            for i, a in enumerate(self.options):
                label = f"[{OPTION_KEYS[i]}]{option_label(a, lang, g.phase)}"
                if x + cell_len(label) > width:  # wrap between options, never inside one
                    text.append("\n  ")
                    y, x = y + 1, 2
                text.append(label, style="bold cyan")
                spans.append((y, x, x + cell_len(label), i))
                text.append(" ")
                x += cell_len(label) + 1
            # 听牌提示 on our turn (what the selected tile's discard would wait on), or our
            # waits while ready: from our own tiles only
            seen = g.seat_view(HUMAN).visible_counts()
            line = tenpai_line(v, order[self.selected] if order else None, lang, seen)
            if line:
                text.append("\n" + "\n".join(wrap_text(line, width)), style="green")
        if self.message:
            text.append("\n" + "\n".join(wrap_text(self.message, width)))
        opt.spans = spans
        opt.show(text)
        # the log gets the rows the other panels leave (the hand row has a margin above it)
        used = sum(
            len(self.panel(pid).plain.splitlines()) if self.panel(pid).display else 0
            for pid in ("status", "seats")
        )
        used += 2 + max(2, len(text.plain.splitlines()))
        log_h = max(1, self.size.height - used)
        if over:
            if self.panel("log").plain != self.hand_over_text:
                self.log_box().scroll_home(animate=False)  # a new result from its top
            self.panel("log").show(self.hand_over_text)
        else:
            self.panel("log").show("\n".join(self.log_lines(log_h, width)))


def run_app(**kw: Any) -> None:
    """Run the game; on exit print the match summary (standings, logs, the seed)."""
    app = PlayApp(**kw)
    try:
        app.run()
    finally:
        print(app.summary_text())


__all__ = ["HUMAN", "PlayApp", "run_app"]
