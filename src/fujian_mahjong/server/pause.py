"""A table's claim pause (R12 rev 2; docs/architecture.md, "How long the claim pause
lasts"): when it starts (after each action that opens a claim window, and after the deal,
at a table with humans), who was asked in it, how long it holds (``fast`` or ``fixed``:
scheduler.ClaimPace, one per match, its draws keyed by the match seed) and when it ends —
from the moment its notice goes out, a fixed window's lasting the larger of a drawn answer
time and max(pause, the answers), plus jitter. It reads the table's configuration and changes only the hand's pause fields."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.scheduler import ClaimPace, claim_window_mode

if TYPE_CHECKING:
    from fujian_mahjong.engine import Match
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.tablestate import HandState, TableConfig

__all__ = ["DEFAULT_CLAIM_WINDOW", "Pause"]

# the claim window of a table that chooses none when the server's Settings has no
# ``claim_window`` field (the product default there is "auto": fixed with two or more
# humans; test harnesses that time the pause exactly set "fast")
DEFAULT_CLAIM_WINDOW = "auto"


class Pause:
    def __init__(self, cfg: TableConfig, settings: Settings) -> None:
        self.cfg = cfg
        self.settings = settings
        self.pace: ClaimPace | None = None  # the match's (made at its first pause)
        self._match: Match | None = None
        self._restored = ""  # the moment this table was restored, if it was (restarted)

    def restarted(self, now: float) -> None:
        """The table was restored at ``now`` (its match taken on after a restart): the
        pace's draws start over under a key of their own, never the ones its pauses drew
        from the match's start. The pool of answer times starts again from the prior."""
        self._restored = repr(now)
        self.pace = None

    def mode(self, match: Match | None, humans: int) -> str:
        """``fast`` or ``fixed``: the table's ``claim_window`` (default: the server's;
        ``auto`` is fixed with two or more humans), for the match being played if any."""
        if self.pace is not None and self._match is match:
            return self.pace.mode
        setting = self.cfg.claim_window or str(
            getattr(self.settings, "claim_window", DEFAULT_CLAIM_WINDOW)
        )
        return claim_window_mode(setting, humans)

    def _pace(self, match: Match | None, humans: int) -> ClaimPace:
        if self.pace is None or self._match is not match:
            seed = match.seed if match is not None else f"table:{self.cfg.id}"
            mode = self.mode(match, humans)
            pause_s = self.settings.claim_pause_ms / 1000.0
            key = ClaimPace.key_for(seed, self.cfg.id, self._restored)
            self.pace = ClaimPace(mode, pause_s, key)
            self._match = match
        return self.pace

    def check(self, h: HandState, humans: int, now: float) -> None:
        """After an action (or the deal): start the claim pause and note who was asked."""
        g = h.game
        pause_s = self.settings.claim_pause_ms / 1000.0
        if humans and pause_s > 0:
            h.hold_until = now + pause_s
            h.hold_from_send = True
        if vis.in_window(g.phase):
            h.window_key = len(g.events)
            h.window_asked = frozenset(g.to_act())
        else:
            h.window_asked = frozenset()

    def time(self, h: HandState, now: float, match: Match | None, humans: int) -> None:
        """The pause's end, as its notice goes out (``now``) and once its window closes."""
        window = vis.in_window(h.game.phase)
        if h.hold_from_send:
            h.hold_from_send = False
            h.pause_start = now
            pace = self._pace(match, humans)
            hold, h.pause_drawn = pace.begin(window and bool(h.window_asked))
            h.hold_until = now + hold
        if h.pause_drawn is not None and not window:
            pace = self._pace(match, humans)
            h.hold_until = h.pause_start + pace.end(now - h.pause_start, h.pause_drawn)
            h.pause_drawn = None
