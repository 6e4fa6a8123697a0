"""Table chat by preset phrases and reactions (快捷语, 表情; docs/protocol.md, server/social.py).

In-process (tests/inproc.py: the real app and dispatcher, a fake clock): a phrase reaches
every seat (the sender's too) and every spectator at once — inside a claim pause too, which
it neither waits for nor changes (R12); spectators cannot send; a flood is rate-limited per
player on the table's clock; an unknown phrase is refused and changes nothing. The list
itself names no tile."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from fujian_mahjong import tiles
from fujian_mahjong.server.protocol import server_message
from fujian_mahjong.server.social import CHAT_LIMIT, CHAT_WINDOW_S, PHRASES
from tests.inproc import Client, Harness, running


async def table_of_three(h: Harness, private: bool = False) -> tuple[int, Client, Client, Client]:
    """Two guests seated (seats 0 and 1) at a 4-seat table, a third watching."""
    a, b, s = await h.guest("阿明"), await h.guest("Bea"), await h.guest("看客")
    tid = await h.table(a, private=private)
    code = h.lobby.find(tid).cfg.code
    await h.seat(a, tid)
    await h.seat(b, code if private else tid)
    await h.seat(s, code if private else tid, as_="spectator")
    for c in (a, b, s):
        assert c.last("seated") is not None, c.messages
        c.new()
    return tid, a, b, s


def chats(c: Client) -> list[dict[str, Any]]:
    return [m for m in c.new() if m["type"] == "chat"]


# ---------------------------------------------------------------------------- the list


def test_phrases_listed_with_zh_en_and_no_tile_names(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            r = await h.http.get("/api/phrases")
            assert r.status_code == 200
            got = r.json()
            assert got == [p.to_json() for p in PHRASES]
            assert len({p["id"] for p in got}) == len(got)
            for p in got:
                assert set(p) == {"id", "zh", "en", "kind", "emoji"}
                assert p["kind"] in ("phrase", "reaction")
                assert p["zh"] and p["en"] and re.fullmatch(r"[a-z_]{1,40}", p["id"])
                assert (p["emoji"] is not None) == (p["kind"] == "reaction")
            zh = {p["zh"] for p in got}
            assert {"快点吧", "你的牌打得太好了", "不好意思，掉线了"} <= zh
            assert {p["kind"] for p in got} == {"phrase", "reaction"}

    asyncio.run(main())


def test_no_phrase_names_a_tile_or_a_decision() -> None:
    """Nothing in a phrase can carry game information beyond what it says: no tile (by any
    of its names), no meld, no wait, no 'let me think' (which would tell that a seat was
    asked to answer a discard, R12)."""
    zh_bad = set()
    en_bad = {"gold", "kong", "pung", "chow", "win", "wait", "ready", "tile", "discard"}
    en_bad |= {"claim", "think", "pass", "dragon", "wind", "flower", "season"}
    for k in range(42):
        # a number names no tile without its suit: the suits, honours and flowers do
        zh_bad |= set(re.sub(r"[\d一二三四五六七八九]", "", tiles.name(k, "zh")))
        zh_bad |= set(re.sub(r"[\d一二三四五六七八九]", "", tiles.long_name(k, "zh")))
        en_bad |= {w.lower() for w in re.findall(r"[A-Za-z]+", tiles.long_name(k, "en"))}
        en_bad.add(tiles.name(k, "en").lower())
    zh_bad |= set("金花杠碰吃胡听等想")
    for p in PHRASES:
        assert not set(p.zh) & zh_bad, (p.id, p.zh, set(p.zh) & zh_bad)
        words = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", p.en)}
        assert not words & en_bad, (p.id, p.en, words & en_bad)


# ---------------------------------------------------------------------------- relaying


def test_a_phrase_reaches_every_seat_and_spectator_at_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            tid, a, b, s = await table_of_three(h)
            await a.send({"type": "chat", "phrase": "hello"})
            for c in (a, b, s):
                got = chats(c)
                assert [(m["table"], m["seat"], m["phrase"]) for m in got] == [(tid, 0, "hello")]
                server_message.validate_python(got[0])
                assert "seq" in got[0]  # in the table stream
            await b.send({"type": "chat", "phrase": "thumbs_up"})
            for c in (a, b, s):
                assert [(m["seat"], m["phrase"]) for m in chats(c)] == [(1, "thumbs_up")]

            # during a hand, inside the claim pause after the deal: relayed at once, and
            # nothing else goes out with it (no state, no seat list: R12)
            t = h.lobby.find(tid)
            owner_bots = {"Authorization": f"Bearer {a.token}"}
            for _ in range(2):
                r = await h.http.post(f"/api/tables/{tid}/bots", headers=owner_bots)
                assert r.status_code == 200, r.text
            await h.ready(a, b)
            assert t.hand is not None and h.clock.now() < t.hand.hold_until
            for c in (a, b, s):
                c.new()
            before = h.clock.now()
            await b.send({"type": "chat", "phrase": "good_luck"})
            assert h.clock.now() == before
            for c in (a, b, s):
                got = c.new()
                assert [m["type"] for m in got] == ["chat"], got
                assert got[0]["seat"] == 1 and got[0]["phrase"] == "good_luck"
            assert h.clock.now() < t.hand.hold_until  # the pause is untouched

    asyncio.run(main())


def test_spectators_cannot_send(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            _, a, b, s = await table_of_three(h, private=True)
            await s.send({"type": "chat", "phrase": "hello"})
            assert s.errors() == ["not_seated"]
            for c in (a, b, s):
                assert chats(c) == []
            # nor can a connection that joined no table
            lone = await h.guest("路人")
            await lone.send({"type": "chat", "phrase": "hello"})
            assert lone.errors() == ["not_joined"]

    asyncio.run(main())


def test_a_flood_is_rate_limited_per_player_on_the_table_clock(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            _, a, b, s = await table_of_three(h)
            for _ in range(CHAT_LIMIT):
                await a.send({"type": "chat", "phrase": "hurry"})
            assert len(chats(b)) == CHAT_LIMIT and len(chats(s)) == CHAT_LIMIT
            # the flood: refused, nothing relayed, and the connection stays open (a refused
            # phrase is not one of the 20 bad messages a minute that close it)
            for _ in range(30):
                await a.send({"type": "chat", "phrase": "hurry"})
            assert a.errors() == ["rate_limited"] * 30
            assert "try again in" in a.of_type("error")[-1]["message"]
            assert not a.conn.closed
            for c in (b, s):
                assert chats(c) == []
            # another player is not limited by it
            await b.send({"type": "chat", "phrase": "smile"})
            assert [m["seat"] for m in chats(s)] == [1]
            # the window slides on the table's (fake) clock: refusals did not extend it
            await h.advance(CHAT_WINDOW_S - 0.5)
            await a.send({"type": "chat", "phrase": "hurry"})
            assert a.errors()[-1] == "rate_limited" and chats(s) == []
            await h.advance(0.5)
            await a.send({"type": "chat", "phrase": "thanks"})
            assert [m["phrase"] for m in chats(s)] == ["thanks"]

    asyncio.run(main())


def test_a_bad_phrase_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            _, a, b, s = await table_of_three(h)
            bad: list[Any] = ["no_such_phrase", "快点吧", "x" * 41, "", 7, None, ["hello"]]
            for phrase in bad:
                await a.send({"type": "chat", "phrase": phrase})
            await a.send({"type": "chat"})
            assert a.errors() == ["bad_phrase", "bad_phrase"] + ["bad_message"] * 6
            for c in (a, b, s):
                assert chats(c) == []
            # the refused ones did not count towards the rate limit
            for _ in range(CHAT_LIMIT):
                await a.send({"type": "chat", "phrase": "clap"})
            assert len(chats(s)) == CHAT_LIMIT and len(a.errors()) == 8

    asyncio.run(main())
