"""Events in words (zh/en): the play-by-play for replay, scenario traces and clients.

The text comes from the message catalogue's ``engine`` part
(``web/locale/<lang>/engine.json``, :mod:`fujian_mahjong.i18n`), shared with the browser
client. Seats are named by ``names`` (the table's names — players, ``Bot 2``… — or a
client's own scheme, 上家/对家/下家); without names, ``N号位`` / ``seat N``. One vocabulary
everywhere: 放胡 (点炮, "dealt in") is said of the **discarder**, never of the winner.

Tiles are named in the player's language, honours included (``东``/``E``; playable in
``fuzhou-doudou``, flowers elsewhere — R1): by default in the short notation of the
developer tools (``5饼``/``5p``); a client passes ``tile_name`` to name them as its table
does (the browser's replay: :func:`fujian_mahjong.i18n.tile_name`, ``五饼``/``5 Dots``; the
terminal its own cells). The hand's start names the profile by its title (``福州麻将（同城游）``),
the dice are numbers (``掷骰 1 和 6``) and payments are per named seat (``Bot 1 +32, Bot 3
-32``). With a ``viewer`` the text is what that seat may know (R12): other seats' draws,
their answers in a claim window and the kind of their concealed kongs are not named until
the hand is over.

Claims that lost (R6: several seats answer one discard, the highest claim is taken): the log
holds every answer (``act``) of a window and then its one outcome (a ``claim`` or ``win``).
:func:`narrate` says the answers that lost as such (kind ``claim-lost``: "2号位 碰未成 (被
3号位 胡抢先)") at the outcome, instead of narrating them as if they had happened."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fujian_mahjong.i18n import has, msg
from fujian_mahjong.tiles import fmt, name, parse

TileName = Callable[[int, str], str]

# the answers that claim something: when another outcome follows, they lost (R6, R8)
CLAIM_ACTIONS = ("chow", "pong", "kong", "win", "three_golds", "rob_gold")
# the events a window's answers resolve into (a claim, a win)
OUTCOMES = ("claim", "win")


def tiles_text(notation: str, lang: str, tile_name: TileName = name) -> str:
    """Tiles in a row: ``5饼 6饼`` in notation; in words a list (``5 Dots, 6 Dots``)."""
    sep = " " if tile_name is name or lang == "zh" else ", "
    return sep.join(tile_name(k, lang) for k in parse(notation)) if notation else ""


def seat_name(s: int, lang: str, names: Sequence[str | None] | None = None) -> str:
    """The seat's name: ``names[s]`` when given, else ``N号位`` / ``seat N``."""
    if names is not None and 0 <= s < len(names) and names[s]:
        return str(names[s])
    return msg("engine.seat", lang, n=s)


def profile_title(profile: str, lang: str) -> str:
    """The profile's title as the rules give it (``rules/profiles/*.toml``: ``title_zh``,
    ``title_en``); a profile that is not installed keeps its name."""
    from fujian_mahjong.errors import MahjongError
    from fujian_mahjong.rules import get_profile

    try:
        p = get_profile(profile)
    except (MahjongError, OSError, ValueError):
        return profile
    return p.title_zh if lang == "zh" else p.title_en


def dice_text(dice: Sequence[int], lang: str) -> str:
    """``1 和 6`` / ``1 and 6`` (R3: the dice as the table shows them)."""
    return msg("engine.and", lang).join(str(int(d)) for d in dice)


def payments_text(
    payments: Sequence[int] | None, lang: str, names: Sequence[str | None] | None = None
) -> str:
    """What each seat gained or paid, by name: ``Bot 1 +32, Bot 3 -32`` (R11); seats that
    neither paid nor gained are left out; empty when nobody paid."""
    if not payments:
        return ""
    parts = [
        f"{seat_name(s, lang, names)} {'+' if p > 0 else '-'}{abs(int(p))}"
        for s, p in enumerate(payments)
        if p
    ]
    return msg("engine.list_sep", lang).join(parts)


def describe(
    e: Mapping[str, Any],
    lang: str = "zh",
    viewer: int | None = None,
    hand_over: bool = False,
    names: Sequence[str | None] | None = None,
    tile_name: TileName = name,
) -> str | None:
    """One line for an event, or None for events not worth a line.

    With ``viewer`` set (R12): tiles drawn or dealt to other seats are not named; other
    seats' decisions (``act`` events) are not shown at all — who was asked to answer a
    discard and what they answered is private, and the outcome has its own event (claim,
    kong, win); another seat's concealed kong is shown without its tiles unless
    ``hand_over`` (the hand has ended and everything is revealed). ``names``: the seats'
    names (see :func:`seat_name`); ``tile_name``: how tiles are named (the module
    docstring). A decision is said as a call ("2号位 选择碰"), never as what it may lead to:
    a call can lose to a higher one (see :func:`narrate`)."""
    t = e.get("type")
    s = e.get("seat")
    who = seat_name(s, lang, names) if isinstance(s, int) else ""
    hide = viewer is not None and s != viewer

    def m(key: str, **kw: object) -> str:
        return msg("engine." + key, lang, **kw)

    def _tile(t: str, lang: str) -> str:
        return tile_name(parse(t)[0], lang)

    if t == "start":
        dealer = seat_name(int(e["dealer"]), lang, names)
        title = profile_title(str(e["profile"]), lang)
        return m("start", profile=title, players=e["players"], dealer=dealer)
    if t == "dice":
        return m("dice", dice=dice_text(e["dice"], lang))
    if t == "deal":
        if viewer is not None:
            return m(
                "deal.mine", tiles=tiles_text(e["hands"].get(str(viewer), ""), lang, tile_name)
            )
        return m("deal")
    if t == "flower":
        return m("flower", seat=who, tiles=tiles_text(e["flowers"], lang, tile_name))
    if t == "gold":
        txt = m("gold", tile=tiles_text(e["gold"], lang, tile_name))
        extra = tiles_text(e.get("to_dealer", ""), lang, tile_name)
        if extra:
            txt += m("gold.to_dealer", tiles=extra)
        return txt
    if t == "draw":
        return None if hide else m("draw", seat=who, tile=_tile(e["tile"], lang))
    if t == "discard":
        key = "discard.rob_gold" if e.get("rob_gold") else "discard"
        return m(key, seat=who, tile=_tile(e["tile"], lang))
    if t == "claim":
        tiles = e["tiles"]
        if tile_name is not name and e["meld"] != "chow":
            tiles = fmt(parse(tiles)[:1])  # in words a pong or kong names its tile once: 碰 五饼
        return m("claim." + e["meld"], seat=who, tiles=tiles_text(tiles, lang, tile_name))
    if t == "kong":
        if e["kind"] == "concealed" and hide and not hand_over:
            # R12: a concealed kong's kind stays hidden from the other seats
            return m("kong.concealed.hidden", seat=who)
        return m("kong." + e["kind"], seat=who, tile=_tile(e["tile"], lang))
    if t == "add_kong_declared":
        return m("add_kong_declared", seat=who, tile=_tile(e["tile"], lang))
    if t == "act":
        a = e["action"]["type"]
        if a == "discard" or (a == "pass" and viewer is None) or hide:
            return None  # R12: other seats' decisions are private; outcomes have events
        key = "engine.act." + a
        return msg(key, lang, seat=who) if has(key, lang) else f"{who} {a}"
    if t in ("xian_jin", "xian_jin_end"):
        return m(t, seat=who)
    if t == "jin_kan":
        return m("jin_kan", seat=who, tiles=tiles_text(e["shown"], lang, tile_name))
    if t == "last_group":
        return m("last_group", live=e["live"])
    if t == "win":
        txt = m("win." + e["win"], seat=who)
        if e.get("tile"):
            txt += m("win.tile", tile=_tile(e["tile"], lang))
        d = e.get("discarder")
        if isinstance(d, int) and d != s:
            # 放胡 / 点炮: the discarder dealt in (for 抢杠, the kong robbed)
            key = "win.robbed" if e["win"] == "rob_kong" else "win.dealt_in"
            txt += m(key, discarder=seat_name(d, lang, names))
        pay = payments_text(e.get("payments"), lang, names)
        txt += m("win.points", points=e.get("points"), payments=pay)
        return txt
    if t == "draw_game":
        pay = payments_text(e.get("payments"), lang, names)
        return m("draw_game", payments=pay) if pay else m("draw_game.none")
    if t == "end":
        hands = ", ".join(
            f"{seat_name(int(k), lang, names)}: {tiles_text(v, lang, tile_name)}"
            for k, v in e["hands"].items()
        )
        return m("end", hands=hands)
    return None


def lost_claims(events: Sequence[Mapping[str, Any]], i: int) -> list[tuple[int, str]]:
    """The answers that lost to the outcome ``events[i]``: ``(seat, action type)`` of every
    claiming ``act`` in the run of answers just before it, by a seat other than the one
    the outcome is for (R6: one outcome per window, the highest claim)."""
    e = events[i]
    if e.get("type") == "act":
        return []
    j = i
    while j > 0 and events[j - 1].get("type") == "act":
        j -= 1
    out = []
    for a in events[j:i]:
        kind = (a.get("action") or {}).get("type")
        if kind in CLAIM_ACTIONS and a.get("seat") != e.get("seat"):
            out.append((int(a["seat"]), str(kind)))
    return out


def outcome_word(e: Mapping[str, Any], lang: str) -> str:
    """What an outcome event took: 吃/碰/杠 (a claim), 胡 (a win)…"""
    t = e.get("type")
    if t == "claim":
        return msg("engine.action." + str(e["meld"]), lang)
    if t == "win":
        kind = str(e.get("win"))
        return msg(
            "engine.action." + (kind if kind in ("three_golds", "rob_gold") else "win"), lang
        )
    return msg("engine.action." + str(t), lang) if t in CLAIM_ACTIONS else ""


def narrate(
    events: Sequence[Mapping[str, Any]],
    lang: str = "zh",
    viewer: int | None = None,
    names: Sequence[str | None] | None = None,
    hand_over: bool = False,
    start: int = 0,
    stop: int | None = None,
    tile_name: TileName = name,
) -> list[dict[str, Any]]:
    """The lines of ``events[start:stop]`` (the events before ``start`` give the context:
    a window's answers before its outcome). Each line: ``index`` (the event's), ``seat``
    (absolute, or None), ``kind`` (the event's type, or ``claim-lost``) and ``text``;
    a lost claim also has ``lost: true``, ``by`` (the seat that took the tile) and
    ``claim`` (the action that lost).

    Unlike :func:`describe`, a seat's decisions are not narrated as if they had happened:
    the outcome event says what happened, and answers that lost to it are said as lost,
    just before it. With a ``viewer``, only that seat's own lost claims are said (R12).
    ``tile_name``: how tiles are named (the module docstring)."""
    out: list[dict[str, Any]] = []
    end = len(events) if stop is None else stop
    for i in range(start, end):
        e = events[i]
        t = e.get("type")
        seat = e.get("seat") if isinstance(e.get("seat"), int) else None
        if t == "act":
            a = (e.get("action") or {}).get("type")
            if a != "pass":
                continue  # its outcome (or its loss) is narrated when the window closes
        if t in OUTCOMES:
            by = seat_name(int(e["seat"]), lang, names) if isinstance(e.get("seat"), int) else ""
            for s, kind in lost_claims(events, i):
                if viewer is not None and s != viewer:
                    continue  # R12: another seat's answers stay private
                text = msg(
                    "engine.claim_lost",
                    lang,
                    seat=seat_name(s, lang, names),
                    claim=msg("engine.action." + kind, lang),
                    by=by,
                    outcome=outcome_word(e, lang),
                )
                out.append(
                    {
                        "index": i,
                        "seat": s,
                        "kind": "claim-lost",
                        "text": text,
                        "lost": True,
                        "by": seat,
                        "claim": kind,
                    }
                )
        line = describe(
            e, lang, viewer=viewer, hand_over=hand_over, names=names, tile_name=tile_name
        )
        if line:
            out.append({"index": i, "seat": seat, "kind": str(t), "text": line})
    return out
