"""``render_mode="ansi"``: the table as text, from one seat's JSON view (R12)."""

from __future__ import annotations

from typing import Any


def render_table(view: dict[str, Any], label: str = "") -> str:
    """The table as the viewing seat sees it: its own hand, everyone's public tiles."""
    me = view["seat"]
    n = view["players"]
    head = (
        f"{view['profile']}  gold {view['gold'] or '-'}  dealer P{view['dealer']}"
        f"  streak {view['streak']}  live {view['live']}  reserve {view['reserve']}"
        f"  phase {view['phase']}"
    )
    lines = [head]
    ld = view.get("last_discard")
    if ld:
        lines.append(f"last discard: {ld['tile']} by P{ld['seat']}")
    for s in range(n):
        melds = " ".join(
            (m["tiles"] or "????") + ("" if m["type"] != "kong_concealed" else "(concealed)")
            for m in view["melds"][s]
        )
        flags = []
        if s == view["dealer"]:
            flags.append("dealer")
        if s in view.get("xian_jin", []):
            flags.append("xian_jin")
        if str(s) in view.get("jin_kan", {}):
            flags.append("jin_kan")
        if s in view.get("gold_discarded", []):
            flags.append("gold_discarded")
        mark = "*" if s == me else " "
        hand = view["hand"] if s == me else f"{view['hand_sizes'][s]} tiles"
        if "hands" in view:  # the hand is over: all hands are revealed (R12)
            hand = view["hands"][str(s)]
        lines.append(
            f"{mark}P{s} {','.join(flags) or '-'}  hand {hand or '-'}  melds {melds or '-'}"
            f"  flowers {view['flowers'][s] or '-'}"
        )
        lines.append(f"     discards {view['discards'][s] or '-'}")
    if view.get("drawn"):
        lines.append(f"drawn: {view['drawn']}")
    if view.get("result"):
        r = view["result"]
        sc = view.get("score") or {}
        lines.append(f"result: {r}  payments {sc.get('payments')}")
    elif view.get("legal_actions"):
        acts = ", ".join(" ".join(str(v) for v in a.values()) for a in view["legal_actions"])
        lines.append(f"{label or f'P{me}'} may: {acts}")
    return "\n".join(lines)
