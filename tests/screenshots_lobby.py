"""Screenshots of the lobby with its rooms, a profile page and a leaderboard (docs/web.md,
"Lobby, profile and table chat"), written to docs/screenshots/: ``lobby-tiers.png``,
``profile.png``, ``leaderboard.png``, and the lobby and the profile on a phone
(``{lobby,profile}-{landscape,phone}.png``).

    .venv/bin/python -m tests.screenshots_lobby [--out DIR]

Starts the test server (tests/serve_test_server.py, a fixed seed, the rooms of
tests/test_web_lobby.py), lets a few registered players play short matches with 托管 on (the
server plays them) so the profile and the boards have something to show, then drives
Debian's Chromium. Not a test: run by hand or by the `screenshots` make target."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.test_web import ROOT
from tests.test_web_lobby import Server, launch, serve

# (name, profile, hands in the match): a small, fixed field
PLAYERS = [
    ("阿明", "fuzhou-tcy", 8),
    ("小芳", "fuzhou-tcy", 6),
    ("老陈", "fuzhou-tcy", 5),
    ("Lin", "fuzhou-tcy", 4),
    ("阿强", "fuzhou-tcy", 3),
    ("美玲", "sanming", 3),
]


def play_hints(server: Server, token: str, table: int) -> None:
    """Play a whole match at ``table`` over /ws as the server's heuristic bot would: every
    decision asks for the hint and plays it (so the field wins and loses like the bots)."""
    from websockets.sync.client import connect

    url = server.base.replace("http://", "ws://") + "/ws"
    with connect(url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "join", "table": table, "as": "player"}))
        seat = None
        pending = None
        while True:
            msg = json.loads(ws.recv(timeout=60))
            kind = msg["type"]
            if kind == "seated":
                seat = msg["seat"]
                ws.send(json.dumps({"type": "ready"}))
            elif kind == "state":
                v = msg.get("view") or {}
                if seat in (v.get("to_act") or []) and v.get("legal_actions"):
                    pending = msg["seq"]
                    ws.send(json.dumps({"type": "hint"}))
            elif kind == "hint" and pending is not None and msg.get("action"):
                ws.send(json.dumps({"type": "act", "seq": pending, "action": msg["action"]}))
                pending = None
            elif kind == "hand_end" and not msg.get("match_over"):
                ws.send(json.dumps({"type": "next"}))
            elif kind in ("match_end", "table_closed"):
                return


def populate(server: Server) -> list[dict[str, object]]:
    accounts = [server.account(name) for name, _, _ in PLAYERS]

    def play(i: int) -> None:
        _, profile, hands = PLAYERS[i]
        tid = server.table(str(accounts[i]["token"]), profile=profile, hands=hands, stake=5, fee=1)
        play_hints(server, str(accounts[i]["token"]), tid)

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(play, range(len(PLAYERS))))
    return accounts


def shoot(server: Server, accounts: list[dict[str, object]], out: Path) -> None:
    # the screenshots show the best player of the skill board (with their own token)
    top = server.http("GET", "/api/leaderboard?profile=fuzhou-tcy&by=skill")["players"][0]
    me = next(a for a in accounts if a["player_id"] == top["player_id"])
    # a few guests waiting in rooms, so the lobby shows people playing
    for i, room in enumerate(("novice", "novice", "junior", "middle")):
        guest = server.guest_json(f"客{i}")
        server.http("POST", "/api/quickmatch", {"room": f"fuzhou-tcy:{room}"}, str(guest["token"]))
    with sync_playwright() as p:
        b = launch(p)
        ctx = b.new_context(viewport={"width": 1100, "height": 860}, locale="zh-CN")
        pg = ctx.new_page()
        errors: list[str] = []
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.goto(f"{server.base}/?token={me['token']}")
        pg.locator("[data-role=room]").first.wait_for()
        pg.locator("[data-role=identity] [data-role=silver]").wait_for()
        pg.locator("[data-role=rooms]").scroll_into_view_if_needed()
        pg.evaluate("window.scrollTo(0, 0)")
        pg.screenshot(path=str(out / "lobby-tiers.png"))
        pg.goto(f"{server.base}/?player={me['player_id']}")
        pg.locator("[data-role=recent-hands]").wait_for()
        pg.screenshot(path=str(out / "profile.png"), full_page=True)
        pg.goto(f"{server.base}/?leaderboard=fuzhou-tcy&by=skill")
        pg.locator("[data-role=leader]").first.wait_for()
        pg.screenshot(path=str(out / "leaderboard.png"), full_page=True)
        # the same pages on a phone, sideways and upright (the screen as first seen)
        for tag, (w, h) in (("landscape", (844, 390)), ("phone", (390, 844))):
            phone = b.new_context(
                viewport={"width": w, "height": h},
                locale="zh-CN",
                is_mobile=True,
                has_touch=True,
                device_scale_factor=2,
            )
            pp = phone.new_page()
            pp.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            pp.goto(f"{server.base}/?token={me['token']}")
            pp.locator("[data-role=room]").first.wait_for()
            pp.locator("[data-role=identity] [data-role=silver]").wait_for()
            pp.screenshot(path=str(out / f"lobby-{tag}.png"))
            pp.goto(f"{server.base}/?player={me['player_id']}")
            pp.locator("[data-role=recent-hands]").wait_for()
            pp.screenshot(path=str(out / f"profile-{tag}.png"))
            phone.close()
        b.close()
    if errors:
        raise SystemExit(f"screenshots_lobby: console errors: {errors[:3]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.screenshots_lobby", description=__doc__)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fjmj-shots-") as tmp:
        server = serve(Path(tmp), seed="lobby-screenshots")
        try:
            shoot(server, populate(server), args.out)
        finally:
            server.stop()
    for name in ("lobby-tiers.png", "profile.png", "leaderboard.png", "lobby-landscape.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
