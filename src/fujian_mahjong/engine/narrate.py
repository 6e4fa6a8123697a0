"""Events in words (zh/en): the play-by-play for replay, scenario traces and clients.

Tiles are named in the player's language, honours included (``东``/``E``; playable in
``fuzhou-doudou``, flowers elsewhere — R1). With a ``viewer`` the text is what that seat may
know (R12): other seats' draws, their answers in a claim window and the kind of their
concealed kongs are not named until the hand is over."""

from __future__ import annotations

from typing import Any

from fujian_mahjong.tiles import name, parse

_WIN = {
    "discard": ("放胡", "wins on a discard"),
    "self_draw": ("自摸", "wins by self-draw"),
    "rob_gold": ("抢金", "robs the gold"),
    "heavenly": ("天胡", "wins with a heavenly hand"),
    "three_golds": ("三金倒", "wins with three golds"),
    "rob_kong": ("抢杠", "robs the kong"),
    "last_group": ("最后一组胡", "wins in the last group"),
}
_MELD = {"chow": ("吃", "chows"), "pong": ("碰", "pongs"), "kong": ("明杠", "kongs")}
_ACT = {
    "pass": ("过", "passes"),
    "win": ("胡", "declares a win"),
    "three_golds": ("三金倒", "declares three golds"),
    "rob_gold": ("抢金", "robs the gold"),
    "pong": ("碰", "pongs"),
    "kong": ("杠", "kongs"),
    "chow": ("吃", "chows"),
    "concealed_kong": ("暗杠", "declares a concealed kong"),
    "added_kong": ("加杠", "adds a kong"),
    "jin_kan": ("金坎", "declares jin kan"),
}


def tiles_text(notation: str, lang: str) -> str:
    return " ".join(name(k, lang) for k in parse(notation)) if notation else ""


def seat_name(s: int, lang: str) -> str:
    return f"{s}号位" if lang == "zh" else f"seat {s}"


def describe(
    e: dict[str, Any], lang: str = "zh", viewer: int | None = None, hand_over: bool = False
) -> str | None:
    """One line for an event, or None for events not worth a line.

    With ``viewer`` set (R12): tiles drawn or dealt to other seats are not named; other
    seats' decisions (``act`` events) are not shown at all — who was asked to answer a
    discard and what they answered is private, and the outcome has its own event (claim,
    kong, win); another seat's concealed kong is shown without its tiles unless
    ``hand_over`` (the hand has ended and everything is revealed)."""
    zh = lang == "zh"
    t = e.get("type")
    s = e.get("seat")
    who = seat_name(s, lang) if isinstance(s, int) else ""
    hide = viewer is not None and s != viewer
    if t == "start":
        return (
            f"开局: {e['profile']}, {e['players']}人, 庄家 {e['dealer']}号位"
            if zh
            else f"Hand starts: {e['profile']}, {e['players']} players, dealer seat {e['dealer']}"
        )
    if t == "dice":
        return f"掷骰 {e['dice']}" if zh else f"Dice {e['dice']}"
    if t == "deal":
        if viewer is not None:
            mine = e["hands"].get(str(viewer), "")
            return (
                f"发牌, 你的牌: {tiles_text(mine, lang)}"
                if zh
                else f"Dealt; your tiles: {tiles_text(mine, lang)}"
            )
        return "发牌" if zh else "Deal"
    if t == "flower":
        fl = tiles_text(e["flowers"], lang)
        return f"{who} 补花 {fl}" if zh else f"{who} sets aside flower(s) {fl}"
    if t == "gold":
        g = tiles_text(e["gold"], lang)
        extra = tiles_text(e.get("to_dealer", ""), lang)
        txt = f"开金: {g}" if zh else f"Gold opened: {g}"
        if extra:
            txt += (
                f" (翻到花 {extra} 归庄家)"
                if zh
                else f" (flipped flowers {extra} go to the dealer)"
            )
        return txt
    if t == "draw":
        if hide:
            return None
        return (
            f"{who} 摸 {name(parse(e['tile'])[0], lang)}"
            if zh
            else f"{who} draws {name(parse(e['tile'])[0], lang)}"
        )
    if t == "discard":
        tile = name(parse(e["tile"])[0], lang)
        txt = f"{who} 打 {tile}" if zh else f"{who} discards {tile}"
        if e.get("rob_gold"):
            txt += " 并抢金" if zh else " and robs the gold"
        return txt
    if t == "claim":
        m = _MELD[e["meld"]]
        tl = tiles_text(e["tiles"], lang)
        return f"{who} {m[0]} {tl}" if zh else f"{who} {m[1]} {tl}"
    if t == "kong":
        kind = {"concealed": ("暗杠", "concealed kong"), "added": ("加杠", "added kong")}[e["kind"]]
        if e["kind"] == "concealed" and hide and not hand_over:
            # R12: a concealed kong's kind stays hidden from the other seats
            return f"{who} {kind[0]}" if zh else f"{who} declares a {kind[1]}"
        tl = name(parse(e["tile"])[0], lang)
        return f"{who} {kind[0]} {tl}" if zh else f"{who} {kind[1]} of {tl}"
    if t == "add_kong_declared":
        tl = name(parse(e["tile"])[0], lang)
        return (
            f"{who} 加杠 {tl} (可抢杠)" if zh else f"{who} adds a kong of {tl} (it may be robbed)"
        )
    if t == "act":
        a = e["action"]["type"]
        if a in ("discard",):
            return None
        if a == "pass" and viewer is None:
            return None
        if hide:
            return None  # R12: other seats' decisions are private; outcomes have events
        words = _ACT.get(a, (a, a))
        return f"{who} {words[0]}" if zh else f"{who} {words[1]}"
    if t == "xian_jin":
        return f"{who} 闲金" if zh else f"{who} is announced 闲金 (ready on any tile)"
    if t == "xian_jin_end":
        return f"{who} 闲金解除" if zh else f"{who} is no longer 闲金"
    if t == "jin_kan":
        return (
            f"{who} 金坎, 亮 {tiles_text(e['shown'], lang)}"
            if zh
            else f"{who} declares 金坎, showing {tiles_text(e['shown'], lang)}"
        )
    if t == "last_group":
        return f"最后一组 (剩 {e['live']} 张)" if zh else f"Last group ({e['live']} live tiles)"
    if t == "win":
        w = _WIN[e["win"]]
        txt = f"{who} {w[0]}" if zh else f"{who} {w[1]}"
        if e.get("tile"):
            txt += f" {name(parse(e['tile'])[0], lang)}"
        pts = e.get("points")
        txt += f", {pts} 分 {e.get('payments')}" if zh else f", {pts} points {e.get('payments')}"
        return txt
    if t == "draw_game":
        return f"荒庄 (和局) {e.get('payments')}" if zh else f"Draw (no winner) {e.get('payments')}"
    if t == "end":
        hands = ", ".join(f"{k}: {tiles_text(v, lang)}" for k, v in e["hands"].items())
        return f"亮牌: {hands}" if zh else f"Hands: {hands}"
    return None
