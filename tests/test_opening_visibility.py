"""``visibility.opening``: the opening's 补花 and 开金 as a seat may see them (R4, R5, R12) —
every flower event of the deal in order, the replacement tiles of the seat's own only, none
for a spectator — as sent in the ``state`` messages of a fresh hand (docs/protocol.md)."""

from __future__ import annotations

from fujian_mahjong.server import visibility as vis
from tests.inproc import game_of_wall
from tests.test_web_table import TABLE_WALL


def test_opening_names_only_the_seats_own_replacements() -> None:
    g = game_of_wall(TABLE_WALL)
    flowers = [e for e in g.events if e["type"] == "flower"]
    for seat in (0, 1, 2, 3, None):
        got = vis.opening(g.events, seat)
        assert got[-1] == {"gold": "7p", "to_dealer": ""}
        steps = got[:-1]
        assert [(x["seat"], x["round"], x["flowers"]) for x in steps] == [
            (e["seat"], e["round"], e["flowers"]) for e in flowers
        ]
        for x, e in zip(steps, flowers, strict=True):
            assert ("drawn" in x) == (seat is not None and e["seat"] == seat)
            if "drawn" in x:
                assert x["drawn"] == e["drawn"]
    assert vis.opening(g.events, 0)[0] == {"seat": 0, "round": 1, "flowers": "47z", "drawn": "7p6z"}
    # the public flowers are what the view shows: nothing more is told about other seats
    view = g.view(1)
    assert "".join(x["flowers"] for x in vis.opening(g.events, 1) if x.get("seat") == 2) == "235z7z"
    assert view["flowers"][2] == "2357z"
