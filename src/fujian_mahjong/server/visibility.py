"""Who may see what, now (R12 rev 2): pure and synchronous, no sockets, no clock of its own.

After every discard, every added kong where a kong may be robbed (sanming), and at the start
of a hand, at a table with humans, nothing but a public notice (``discard`` / ``added_kong``
/ ``hand_start``) goes out for the claim pause; only the
seats asked to answer receive their ``state`` at once. A seat that was not asked (and every
spectator) receives no view while a claim window is open or the pause lasts, and the seat
list does not change for it either (a seat list changed inside a window could tell that
someone answered). The states that follow look the same whether or not anyone could
claim. The table actor (server/table.py) asks these functions and does what they say."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from fujian_mahjong.engine.events import Phase

WINDOW_PHASES = (Phase.CLAIMS, Phase.WINDOW_A)
# the actions after which a claim window may open (R6 claims, R8 window B, sanming 抢杠)
WINDOW_EVENTS = ("discard", "add_kong_declared")

# the answers to a window that win the hand (a discard win, 三金倒, 抢金)
WIN_ANSWERS = ("win", "three_golds", "rob_gold")

Show = Literal["new", "last", "nothing"]


def in_window(phase: Phase) -> bool:
    """A claim window (R6) or the opening's window A (R8) is open."""
    return phase in WINDOW_PHASES


def still_asked(
    seat: int | None, phase: Phase, window_asked: frozenset[int], has_legal: bool
) -> bool:
    """The seat was asked in the open window and has not answered yet: it alone may see the
    window. A seat that has answered hears nothing more until the window closes and the
    pause ends, whether or not other seats are still to answer (a view of the open window
    would tell it that someone else was asked)."""
    return seat is not None and in_window(phase) and seat in window_asked and has_legal


def what_to_show(asked: bool, held: bool, window: bool, rejoining: bool, has_last: bool) -> Show:
    """A connection's state now: the current view (``new``), the view it saw last (a client
    that (re)joins during a pause or a window), or nothing."""
    if asked or not (held or window):
        return "new"
    if rejoining and has_last:
        return "last"
    return "nothing"


def may_refresh(seat: int | None, asked: bool, held: bool, window: bool) -> bool:
    """After a stale action: may this seat be sent the current state again now?"""
    return seat is not None and (asked or not (held or window))


def quiet(playing: bool, now: float, hold_until: float, phase: Phase) -> bool:
    """The seat list must not change for others now (a pause or an open window)."""
    return playing and (now < hold_until or in_window(phase))


def window_start(events: Sequence[Mapping[str, Any]]) -> int:
    """Where the open window began: after the last event that is not an answer (``act``)
    — its discard, added kong or deal (a restored table's window)."""
    i = len(events)
    while i > 0 and events[i - 1].get("type") == "act":
        i -= 1
    return i


def win_declared(answers: Sequence[Mapping[str, Any]]) -> bool:
    """Some seat has answered the open window with a win (R6: one answer each, binding):
    the hand's end is decided whatever the others answer (D-24). ``answers``: the window's
    events so far (``act`` events, the engine's log)."""
    return any(
        e.get("type") == "act" and (e.get("action") or {}).get("type") in WIN_ANSWERS
        for e in answers
    )


def announced(
    events: Sequence[Mapping[str, Any]], rob_kong: bool = False
) -> list[Mapping[str, Any]]:
    """The events among these that are announced and held by the claim pause: each discard,
    and where the rules let a kong be robbed (R6 抢杠, the profile's ``rob_kong``) each added
    kong, whether or not a seat may rob it. The engine opens a window (``add_kong_declared``)
    only when one may; announced only then, the notice and its pause would tell everyone
    that a seat is ready on that tile (R12). An added kong nobody may rob completes at once:
    its ``kong`` follows its owner's own ``act`` (after a window it follows the answers)."""
    out: list[Mapping[str, Any]] = []
    prev: Mapping[str, Any] | None = None
    for e in events:
        t = e.get("type")
        unrobbable_kong = (
            rob_kong
            and t == "kong"
            and e.get("kind") == "added"
            and prev is not None
            and prev.get("type") == "act"
            and prev.get("seat") == e.get("seat")
        )
        if t in WINDOW_EVENTS or unrobbable_kong:
            out.append(e)
        prev = e
    return out


def opens_window(events: Sequence[Mapping[str, Any]], rob_kong: bool = False) -> bool:
    """These new events start a claim pause: a discard; where a kong may be robbed
    (sanming), every added kong, robbable or not (``announced``)."""
    return bool(announced(events, rob_kong))


def notices(
    events: Sequence[Mapping[str, Any]], table: int, hand: int, rob_kong: bool = False
) -> list[dict[str, Any]]:
    """The public notices of these events (``announced``), sent to everyone at once."""
    out: list[dict[str, Any]] = []
    for e in announced(events, rob_kong):
        t = e.get("type")
        if t == "discard":
            out.append(
                {
                    "type": "discard",
                    "table": table,
                    "hand": hand,
                    "seat": e["seat"],
                    "tile": e["tile"],
                }
            )
        else:  # an added kong: declared (it may be robbed) or complete (nobody may rob it)
            out.append(
                {
                    "type": "added_kong",
                    "table": table,
                    "hand": hand,
                    "seat": e["seat"],
                    "tile": e["tile"],
                }
            )
    return out


def opening(events: Sequence[Mapping[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The hand's opening as ``seat`` may see it (R4, R5, R12): each 补花 of the deal in
    order, ``{"seat", "round", "flowers"}``, with ``"drawn"`` (the tiles that replaced the
    flowers, now in that hand) for the seat's own 补花 only, then the 开金
    ``{"gold", "to_dealer"}`` (the flowers flipped onto the dealer). The flowers are public;
    a spectator (``seat`` None) is given no ``drawn`` at all. Reads the log up to the gold
    only (the deal is at its start)."""
    out: list[dict[str, Any]] = []
    for e in events:
        t = e.get("type")
        if t == "flower" and "round" in e:
            item: dict[str, Any] = {"seat": e["seat"], "round": e["round"], "flowers": e["flowers"]}
            if seat is not None and e["seat"] == seat:
                item["drawn"] = e["drawn"]
            out.append(item)
        elif t == "gold":
            out.append({"gold": e["gold"], "to_dealer": e.get("to_dealer", "")})
            break
    return out


# the claims a seat may answer a discard with (its own answers: R6), for its own
# "claim lost" entries
_CLAIM_ANSWERS = ("chow", "pong", "kong", "win")


def history(events: Sequence[Mapping[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The hand's public actions so far, as ``seat`` may know them (R12), in order — what a
    client that was watching has in its action log, for one that (re)joins
    (docs/protocol.md, ``state``'s ``history``). An allow-list: each 补花 (the deal's with
    its ``round``, and ``drawn``, the replacement tiles, for the seat's own only), the 开金,
    discards, claimed melds, kongs (a concealed kong's tile for its owner only, until the
    hand is over), the win or the draw; and, for the seat itself, a claim of its own that
    lost to another seat's. Never a draw, another seat's replacement tiles or concealed
    tiles, nor anyone's answer to a claim window (who was asked is private, R12 rev 2).
    ``events`` must stop at what the seat has been shown (the table passes the log up to
    the decision point of the seat's last state)."""
    out: list[dict[str, Any]] = []
    dealer = 0
    over = any(e.get("type") == "end" for e in events)
    last: dict[str, Any] | None = None  # the last discard: (seat, tile)
    mine: str | None = None  # the claim this seat answered the open window with
    won = False
    for e in events:
        t = e.get("type")
        if t == "start":
            dealer = int(e.get("dealer", 0))
        elif t == "flower":
            item: dict[str, Any] = {"seat": e["seat"], "kind": "flower", "flowers": e["flowers"]}
            if "round" in e:
                item["round"] = e["round"]
                if seat is not None and e["seat"] == seat:
                    item["drawn"] = e["drawn"]
            out.append(item)
        elif t == "gold":
            out.append(
                {
                    "seat": dealer,
                    "kind": "gold",
                    "indicator": e["indicator"],
                    "gold": e["gold"],
                    "to_dealer": e.get("to_dealer", ""),
                }
            )
        elif t == "discard":
            out.append({"seat": e["seat"], "kind": "discard", "tile": e["tile"]})
            last = {"seat": e["seat"], "tile": e["tile"]}
            mine = None
        elif t == "act":
            a = e.get("action") or {}
            if seat is not None and e.get("seat") == seat and a.get("type") in _CLAIM_ANSWERS:
                mine = a.get("type") if last is not None else None
        elif t == "claim":
            meld = {"chow": "chow", "pong": "pong", "kong": "kong_exposed"}[e["meld"]]
            kind = "kong" if e["meld"] == "kong" else e["meld"]
            tile = last["tile"] if last is not None and last["seat"] == e["from"] else None
            out.append(
                {
                    "seat": e["seat"],
                    "kind": kind,
                    "meld": meld,
                    "tiles": e["tiles"],
                    "from": e["from"],
                    "tile": tile,
                }
            )
            _lost(out, seat, mine, e["seat"], kind, last)
            mine = None
        elif t == "kong":
            item = {"seat": e["seat"], "kind": "kong", "meld": f"kong_{e['kind']}"}
            if e["kind"] != "concealed" or over or e["seat"] == seat:
                item["tile"] = e["tile"]
            out.append(item)
        elif t == "add_kong_declared":
            last = {"seat": e["seat"], "tile": e["tile"]}  # sanming: it may be robbed
            mine = None
        elif t == "draw":
            mine = None  # the window closed without a claim: the next seat draws
        elif t == "win":
            won = True
            out.append(
                {
                    "seat": e["seat"],
                    "kind": "win",
                    "win": e["win"],
                    "tile": e.get("tile"),
                    "from": e.get("discarder"),
                }
            )
            _lost(out, seat, mine, e["seat"], "win", last)
            mine = None
        elif t == "end" and not won:
            out.append({"seat": dealer, "kind": "draw"})
    return out


def _lost(
    out: list[dict[str, Any]],
    seat: int | None,
    mine: str | None,
    taker: int,
    kind: str,
    last: dict[str, Any] | None,
) -> None:
    """This seat's own claim lost to ``taker``'s (R6 priority): said as such."""
    if seat is None or mine is None or taker == seat:
        return
    out.append(
        {
            "seat": seat,
            "kind": "claim_lost",
            "mine": mine,
            "by": taker,
            "by_kind": kind,
            "tile": last["tile"] if last is not None else None,
        }
    )
