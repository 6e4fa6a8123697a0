"""Hand review (复盘): one seat's decisions in a hand log beside a bot's (the heuristic bot,
or the 高手 ``StrongBot`` with ``bot="strong"``, what ``fjmj review`` uses).

``review(events, seat)`` takes the events of a finished hand (a log from ``fjmj play``,
``fjmj simulate`` or the server — all the same JSON Lines format, R12), verifies it, replays
it, and for every decision of ``seat`` where there was a choice (more than one legal action)
returns, as plain JSON-ready data:

- what was played and what :class:`~fujian_mahjong.bots.HeuristicBot` would have played, with
  the bot's reason (en and zh) and whether they agree;
- shanten (向听) and ukeire (有效牌: unseen copies of the kinds that lower the shanten, counted
  from what the seat could see) before the decision and after each of the two actions;
- the estimated **cost in points** of the played action against the bot's choice, from
  rollouts (:func:`~fujian_mahjong.bots.strong.compare_actions`: the same sampled worlds for
  both actions, each played out by heuristic-v1 at every seat): ``cost`` (points the
  played action is expected to lose against the bot's; 0 when they agree, negative when the
  play looked better, None where it was not estimated), ``cost_se``, ``cost_worlds``;
- a summary: agreement rate, tiles lost in total, ``points_lost_per_hand`` (the sum of the
  positive costs: the points this hand's decisions are estimated to have given away), and
  the decisions that lost the most.

The function has no I/O and no unseeded randomness: the rollouts are seeded from the seat's
view, so a review is the same every time — unless its wall-clock safety net (``deadline_s``)
cuts in on an overloaded machine, which stops the cost estimates (and the 高手's search)
early. It sees only what the seat saw at each moment (its
:class:`~fujian_mahjong.engine.view.SeatView`) plus the log itself.

Definitions: the hand after an action is the seat's concealed tiles once the action is
applied (a discard removes the tile, a pong/chow removes the two tiles and adds a meld, a
kong removes its tiles and adds a meld); a winning action (胡, 三金倒, 抢金) has shanten −1.
Ukeire is given for hands of 3k+1 tiles (after a discard or a pass); a hand of 3k+2 tiles
(after a pong or chow, before the discard that follows) has its best-discard shanten and no
ukeire. A decision *loses tiles* when the played action's hand is worse than the bot's:
``shanten_lost`` = played shanten − bot shanten, ``tiles_lost`` = bot ukeire − played ukeire
when both have the same shanten (both non-negative, 0 when the play was as good).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from fujian_mahjong import analysis
from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.bots.base import Bot
from fujian_mahjong.bots.strong import StrongBot, compare_actions
from fujian_mahjong.engine import Action, Game, fresh_game, replay
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.errors import MahjongError, ReplayError
from fujian_mahjong.rules import Profile
from fujian_mahjong.tiles import KIND_STR, fmt_sorted

__all__ = ["REVIEW_BOTS", "review"]

# The bots a review can compare with (``bot=``); "strong" is the 高手 on a review's budget
REVIEW_BOTS = ("heuristic", "strong")

_WINS = ("win", "three_golds", "rob_gold")


def _honours(g: Game) -> bool:
    return getattr(g.profile, "honours", "flowers") == "playable"


def _measure(
    counts: list[int], exposed: int, gold: int, honours: bool, visible: Sequence[int]
) -> dict[str, int | None]:
    """Shanten of a concealed hand, and its ukeire when it has 3k+1 tiles."""
    kinds = 34 if honours else 27
    c = counts[:kinds]
    n = sum(c)
    if n % 3 == 0 or exposed > 5 or exposed < 0:
        return {"shanten": None, "ukeire": None}
    g = gold if 0 <= gold < kinds else None
    s = analysis.shanten(c, g, exposed, honours=honours)
    if n % 3 == 2:
        return {"shanten": s, "ukeire": None}
    uke = 0
    for k in range(kinds):
        if c[k] >= 4:
            continue
        c[k] += 1
        if analysis.shanten(c, g, exposed, honours=honours) < s:
            # as the bot counts: the gold kind has one copy fewer to draw (R5)
            uke += max(0, 4 - visible[k] - (1 if k == gold else 0))
        c[k] -= 1
    return {"shanten": s, "ukeire": uke}


def _after(
    g: Game, seat: int, a: Action, view: SeatView, visible: Sequence[int]
) -> dict[str, int | None]:
    """Shanten/ukeire of the seat's hand once ``a`` is applied (without applying it)."""
    if a.type in _WINS:  # 胡, 三金倒, 抢金 (the dealer's too) end the hand as a win
        return {"shanten": -1, "ukeire": None}
    c = view.counts
    exposed = view.exposed(seat)
    claim_tile = view.claim[1]
    t = a.type
    if t in ("discard", "jin_kan"):
        c[a.tile] -= 1
    elif t == "pong":
        c[claim_tile] -= 2
        exposed += 1
    elif t == "chow":
        for k in a.tiles:
            c[k] -= 1
        exposed += 1
    elif t == "kong":
        c[claim_tile] -= 3
        exposed += 1
    elif t == "concealed_kong":
        c[a.tile] -= 4
        exposed += 1
    elif t == "added_kong":
        c[a.tile] -= 1
    # pass: unchanged
    if min(c) < 0:
        return {"shanten": None, "ukeire": None}
    return _measure(c, exposed, g.gold, _honours(g), visible)


def _action_text(a: Action) -> str:
    """The action in notation: ``discard 5p``, ``chow 46p``, ``pass``."""
    if a.tiles:
        return f"{a.type} {''.join(KIND_STR[k] for k in a.tiles)}"
    if a.tile >= 0:
        return f"{a.type} {KIND_STR[a.tile]}"
    return a.type


def _review_bot(bot: str | Bot, seat: int) -> Bot:
    if not isinstance(bot, str):
        return bot
    if bot == "heuristic":
        return HeuristicBot()
    if bot == "strong":
        # the 高手 on a review's budget: a quarter of the table's search per decision
        return StrongBot(f"review:{seat}", max_rollouts=160, deadline_s=0.25)
    raise MahjongError(f"--bot: expected one of {', '.join(REVIEW_BOTS)}, got {bot!r}")


def review(
    events: Sequence[dict[str, Any]],
    seat: int,
    *,
    bot: str | Bot = "heuristic",
    worlds: int = 24,
    max_rollouts: int = 2400,
    deadline_s: float | None = 8.0,
    clock: Callable[[], float] = time.perf_counter,
    profile: Profile | None = None,
) -> dict[str, Any]:
    """Review ``seat``'s decisions in a finished hand's event log (see the module docstring).

    ``bot``: ``"heuristic"`` (the default), ``"strong"`` (the 高手) or any bot object.
    The cost of a decision that departs from the bot's is estimated in ``worlds`` sampled
    worlds (2 rollouts each) while the review has rollouts left (``max_rollouts`` in all)
    and time (``deadline_s`` by ``clock``); after that, ``cost`` is None. ``profile``: the
    user profile of a log that names no built-in one.

    Raises :class:`ReplayError` if the log does not verify, :class:`MahjongError` if the
    seat is not at the table or the bot is unknown."""
    replay(events, profile)  # verify first: a review of a forged log would mean nothing
    g = fresh_game(events, profile=profile)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < g.n:
        raise MahjongError(f"--seat: the table has seats 0-{g.n - 1}, got {seat!r}")
    judge = _review_bot(bot, seat)
    honours = _honours(g)
    decisions: list[dict[str, Any]] = []
    t0 = clock()
    left = max_rollouts
    for line, e in enumerate(events, 1):
        if e.get("type") != "act":
            continue
        s = int(e["seat"])
        played = Action.from_json(e["action"])
        if s == seat:
            view = g.seat_view(seat)
            if len(view.legal) > 1:
                late = deadline_s is not None and clock() - t0 > deadline_s
                d = _decision(
                    g, seat, line, view, played, HeuristicBot() if late else judge, honours
                )
                d["bot_kind"] = "heuristic" if late else judge.name
                cost: tuple[float, float, int] | None = None
                if d["agree"]:
                    cost = (0.0, 0.0, 0)
                elif not late and left >= 2 * worlds:
                    best = Action.from_json(d["bot"])
                    cost = compare_actions(view, played, best, worlds=worlds, seed=f"review:{line}")
                    if cost is not None:
                        left -= 2 * cost[2]
                d["cost"] = round(cost[0], 2) if cost is not None else None
                d["cost_se"] = round(cost[1], 2) if cost is not None else None
                d["cost_worlds"] = cost[2] if cost is not None else 0
                decisions.append(d)
        try:
            g.apply(s, played)
        except MahjongError as err:  # replay() verified the log: cannot happen
            raise ReplayError(f"line {line}: {err}") from None
    return {
        "seat": seat,
        "profile": g.profile.name,
        "players": g.n,
        "bot": judge.name,
        "result": dict(g.win) if g.win else {"draw": True},
        "decisions": decisions,
        "summary": _summary(decisions),
    }


def _decision(
    g: Game,
    seat: int,
    line: int,
    view: SeatView,
    played: Action,
    bot: Bot,
    honours: bool,
) -> dict[str, Any]:
    d = bot.act(view)
    visible = view.visible_counts()
    before = _measure(view.counts, view.exposed(seat), g.gold, honours, visible)
    after_played = _after(g, seat, played, view, visible)
    after_bot = after_played if d.action == played else _after(g, seat, d.action, view, visible)
    shanten_lost = tiles_lost = 0
    sp, sb = after_played["shanten"], after_bot["shanten"]
    if sp is not None and sb is not None:
        shanten_lost = max(0, sp - sb)
        up, ub = after_played["ukeire"], after_bot["ukeire"]
        if sp == sb and up is not None and ub is not None:
            tiles_lost = max(0, ub - up)
    frm, tile = view.claim
    drawn = view.drawn
    return {
        "line": line,
        "phase": g.phase,
        "hand": fmt_sorted(g.hand(seat)),
        "drawn": KIND_STR[drawn] if drawn >= 0 else None,
        "claim": {"tile": KIND_STR[tile], "from": frm} if tile >= 0 else None,
        "legal": len(view.legal),
        "played": played.to_json(),
        "played_text": _action_text(played),
        "bot": d.action.to_json(),
        "bot_text": _action_text(d.action),
        "agree": d.action == played,
        "reason": d.reason,
        "reason_zh": d.reason_zh or d.reason,
        "before": before,
        "after_played": after_played,
        "after_bot": after_bot,
        "shanten_lost": shanten_lost,
        "tiles_lost": tiles_lost,
    }


def _summary(decisions: list[dict[str, Any]], worst: int = 3) -> dict[str, Any]:
    n = len(decisions)
    agreed = sum(1 for d in decisions if d["agree"])
    costed = [d for d in decisions if d.get("cost") is not None]
    lost = [d for d in costed if d["cost"] > 0]
    costly = [
        d for d in decisions if d["shanten_lost"] or d["tiles_lost"] or (d.get("cost") or 0) > 0
    ]
    costly.sort(
        key=lambda d: (-(d.get("cost") or 0.0), -d["shanten_lost"], -d["tiles_lost"], d["line"])
    )
    return {
        "decisions": n,
        "agreed": agreed,
        "agreement_rate": round(agreed / n, 4) if n else None,
        "shanten_lost": sum(d["shanten_lost"] for d in decisions),
        "tiles_lost": sum(d["tiles_lost"] for d in decisions),
        # points: the positive estimated costs of this hand's decisions (one hand, so the
        # figure to average over hands), its standard error, and how many were estimated
        "points_lost_per_hand": round(sum(d["cost"] for d in lost), 2),
        "points_lost_se": round(math.sqrt(sum(d["cost_se"] ** 2 for d in lost)), 2),
        "costs_estimated": len(costed),
        "costs_missing": n - len(costed),
        "worst": [
            {
                "line": d["line"],
                "played": d["played_text"],
                "bot": d["bot_text"],
                "shanten_lost": d["shanten_lost"],
                "tiles_lost": d["tiles_lost"],
                "cost": d.get("cost"),
            }
            for d in costly[:worst]
        ],
    }
