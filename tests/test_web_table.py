"""The browser table of docs/web.md, end to end on a stacked wall: the opening (补花, 开金),
an opponent's pong announced in the action log and as a bubble, our chow that lost to it
said as such, the winning tile and the seat that dealt in on the end screen, no English
left in the zh table; on a phone in English: the hint selects its tile (Enter discards it),
托管's banner and 取消托管, the mute toggle, no horizontal scrolling.

Same machinery as tests/test_web.py (the real app through tests/serve_test_server.py,
Debian's Chromium, waits on DOM state only, any console error fails). TABLE_WALL is fixed:
seat 0 (the human) deals with three flowers in hand; after our first discard 上家 (seat 3)
discards 2p, which we may chow and 对家 (seat 2, a heuristic bot) pongs; with 托管 from
then on the hand ends on a win on a discard. A server whose bots play otherwise fails with
that said, never by luck."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Page

from fujian_mahjong.tiles import parse
from tests.test_web import (
    ACTIONS,
    HAND_END,
    SHORT_OPENING_MS,
    Server,
    Watched,
    browser,  # noqa: F401 (the fixture)
    expect,
    ready_at_a_new_table,
    serving,
    stacked,
    tuoguan_on,
)

# the seed-51 shuffle of the 144 tiles, head to tail (seat 0 deals; the gold is 7p)
TABLE_WALL = parse(
    "3m 8m 4z 3s 4p 7z 1z 2m 2p 2p 2z 3m 2p 3m 3z 3s 2s 5s 7z 5s 4z 1p 6z 1m 6m 5p 9m 3s"
    " 6z 5s 2s 7m 3m 4p 5m 5m 1z 5p 5z 8m 3z 4p 5m 5z 6m 8p 9m 7s 4p 6s 8m 3p 4z 5m 9m 4s"
    " 4s 1s 1p 2s 1s 5z 7m 5f 9s 6p 1p 8p 4m 1s 2f 8s 2m 9p 5s 2z 4z 8p 4m 7p 2z 3p 9s 6s"
    " 7s 4f 4m 2z 7m 5p 5p 7z 1m 3f 9p 3z 6z 1s 6s 4m 2m 7f 7p 6m 6p 5z 9s 1z 7m 3s 7s 1z"
    " 1f 8s 6p 3p 1p 2s 3p 6m 9s 4s 7p 2m 9m 9p 1m 8m 1m 8s 9p 7s 6s 4s 7z 3z 8s 8p 6p 8f"
    " 2p 6f 6z 7p"
)
assert len(TABLE_WALL) == 144

LOG = "[data-role=log] [data-role=log-entry]"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("webtable"), [TABLE_WALL]) as s:
        yield s


def english_words(text: str, allowed: set[str]) -> list[str]:
    """Words of two or more Latin letters that are not names (tile notation such as 5p and
    numbers are not words, nor the scorer's formula symbols of R10 such as "(fl)")."""
    for a in allowed:
        text = text.replace(a, " ")
    text = re.sub(r"\([A-Za-z]{1,4}\)", " ", text)
    return re.findall(r"[A-Za-z]{2,}", text)


def zh_leftovers(pg, names: set[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """English words in the page but the seats' names (the server's) and the language
    switch, which names the other language."""
    return english_words(pg.inner_text("body"), names | {"English"})


def discard_rightmost(pg) -> None:  # type: ignore[no-untyped-def]
    tile = pg.locator("[data-role=hand] [data-tile]:not(.disabled)").last
    tile.click()
    expect(pg.locator("[data-role=hand] .selected")).to_have_count(1)
    tile.click()


def marks_the_same_tiles(pg) -> bool:  # type: ignore[no-untyped-def]
    """At our turn: selects a hand tile of a kind face up on the table (in a river or a
    meld), if there is one, and checks that exactly the face-up tiles of its kind are marked
    (``data-same``), as 同城游 marks them. False when no hand tile is face up anywhere."""
    up = "[data-role=river] [data-tile], [data-role=melds] [data-tile]"
    hand = "[data-role=hand] [data-tile]:not(.disabled)"
    found = pg.evaluate(
        """([up, hand]) => { const out = new Set([...document.querySelectorAll(up)]
            .map(e => e.dataset.tile));
          return [...document.querySelectorAll(hand)].map((e, i) => [i, e.dataset.tile])
            .filter(([, k]) => out.has(k)); }""",
        [up, hand],
    )
    if not found:
        return False
    i, kind = found[0]
    pg.locator(hand).nth(i).click()
    expect(pg.locator("[data-role=hand] .selected")).to_have_count(1)
    unmarked, wrong, marked = pg.evaluate(
        """([up, k]) => { const tiles = [...document.querySelectorAll(up)];
          const same = e => e.dataset.same === '1';
          return [tiles.filter(e => e.dataset.tile === k && !same(e)).length,
                  tiles.filter(e => same(e) && e.dataset.tile !== k).length,
                  tiles.filter(same).length]; }""",
        [up, kind],
    )
    assert (unmarked, wrong) == (0, 0) and marked >= 1, (kind, unmarked, wrong, marked)
    return True


@contextmanager
def seated_silent(server: Server, token: str, table: int) -> Iterator[None]:
    """A second person at ``table`` over /ws: sits (the first free seat), says ready and
    then never acts, so the hand waits at that seat's first decision for as long as the
    block lasts (the table's turn_seconds) instead of being played out by the bots."""
    from websockets.sync.client import connect

    url = server.base.replace("http://", "ws://") + "/ws"
    # it reads nothing while held: an unbounded queue keeps the client answering pings
    with connect(url, open_timeout=10, max_queue=None) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "join", "table": table, "as": "player"}))
        while (msg := json.loads(ws.recv(timeout=20)))["type"] != "seated":
            assert msg["type"] != "error", msg
        ws.send(json.dumps({"type": "ready"}))
        yield


def step_until(pg: Page, done: Callable[[], bool], limit_ms: int = 3000) -> None:
    """Steps the page's held clock 20 ms at a time until ``done()``: the opening's steps last
    what the reducer gives them (all of it within 2.8 s, docs/web.md), not a fixed pace."""
    for _ in range(limit_ms // 20):
        if done():
            return
        pg.clock.run_for(20)
    assert done(), "the opening did not get there within its budget"


def test_opening_claims_announced_and_the_end_of_hand(server: Server, browser) -> None:  # noqa: F811
    tok = server.guest("新手")
    tid = server.table(tok)
    w = Watched(browser, "zh-CN")
    pg = w.page
    # the page's clock (timers, not the server's) is held during the opening so that each
    # of its steps can be looked at: it moves only by run_for
    pg.clock.install()
    pg.goto(f"{server.base}/?token={tok}&table={tid}")
    ready = pg.locator("[data-action=ready]")
    ready.wait_for()
    pg.clock.pause_at(pg.evaluate("Date.now()") + 1000)
    ready.click()
    # the opening: dice, deal, 补花 per seat from the dealer on, the 开金 flip
    opening = pg.locator("[data-role=opening]")
    expect(opening).to_be_visible()
    expect(opening).to_have_attribute("data-step", "dice")
    expect(opening).to_contain_text("补花")
    expect(opening).to_contain_text("开金")
    # the gold is named only when the opening turns it up (R5: 开金 after the 补花): not in
    # the log, not marked or put first in our hand (7p, our first replacement, is the gold)
    expect(pg.locator(f"{LOG}[data-kind=gold]")).to_have_count(0)
    expect(pg.locator(f"{LOG}[data-kind=flower]")).to_have_count(0)  # nor any 补花 yet
    assert pg.locator("[data-role=hand] [data-gold]").count() == 0
    assert pg.locator("[data-role=center] [data-role=gold] [data-tile]").count() == 0
    # no flower in any seat panel before the opening shows its 补花
    panel_flowers = "section.seat[data-seat='{}'] [data-role=flowers] [data-tile]"
    for seat in range(4):
        expect(pg.locator(panel_flowers.format(seat))).to_have_count(0)

    # 余牌 counts down with the opening (R4, R5): as dealt at the dice; on a wide screen the
    # card, which covers the centre, says the same count
    card_live = opening.locator("[data-role=opening-live]")

    def live() -> int:
        n = int(pg.locator("[data-role=center] [data-role=live]").inner_text().split()[-1])
        if opening.count():
            expect(card_live).to_be_visible()
            assert int(card_live.inner_text().split()[-1]) == n
        return n

    dealt = live()
    now = opening.locator(".o-step.now")
    step_until(pg, lambda: opening.get_attribute("data-step") == "deal")  # after the dice
    assert live() == dealt
    # after the deal: the dealer's (our) first 补花: 4z 7z → 7p 6z
    step_until(pg, lambda: opening.get_attribute("data-step") == "flower")
    expect(now).to_have_attribute("data-seat", "0")
    pairs = now.locator("[data-role=flower-pair]")
    expect(pairs).to_have_count(2)
    # our own replacement tiles, each beside the flower it replaced (7p is the gold)
    assert [p.locator("[data-tile]").first.get_attribute("data-tile") for p in pairs.all()] == [
        "4z",
        "7z",
    ]
    assert [
        p.locator("[data-role=replacement]").get_attribute("data-tile") for p in pairs.all()
    ] == ["7p", "6z"]
    expect(pg.locator(panel_flowers.format(0))).to_have_count(2)
    expect(pg.locator(panel_flowers.format(1))).to_have_count(0)
    assert live() == dealt - 2  # our two replacements came off the wall
    # the log has our 补花 line and no other seat's yet
    expect(pg.locator(f"{LOG}[data-kind=flower]")).to_have_count(1)
    expect(pg.locator(f"{LOG}[data-kind=flower][data-seat='0']")).to_have_count(1)
    # another seat's replacements are tile backs, never named (R12)
    others = opening.locator("[data-step=flower]:not([data-seat='0'])")
    assert others.locator("[data-role=replacement]").count() == 0
    assert others.locator("[data-back]").count() > 0
    assert pairs.locator("[data-gold]").count() == 0  # 7p is not the gold yet
    assert pg.locator("[data-role=hand] [data-gold]").count() == 0
    # the centre says nothing of whose turn it is while the opening plays (we deal, and
    # cannot discard before it ends)
    turn = pg.locator("[data-role=center] .turn-line:not(.outcome)")
    expect(turn).to_have_text("")
    # then 下家's: its flowers join its panel
    step_until(pg, lambda: now.get_attribute("data-seat") == "1")
    expect(pg.locator(panel_flowers.format(1))).not_to_have_count(0)
    # the 开金: from now on the gold is named: the log, our hand's 7p marked and put first
    step_until(pg, lambda: opening.get_attribute("data-step") == "gold")
    expect(pg.locator(f"{LOG}[data-kind=gold]")).to_have_count(1)
    flipped = live()
    assert flipped < dealt - 2
    expect(pg.locator("[data-role=hand] [data-tile]").first).to_have_attribute("data-gold", "1")
    pg.clock.resume()
    expect(pg.locator(f"{LOG}[data-kind=flower][data-seat='0']")).not_to_have_count(0)
    opening.wait_for(state="detached")
    expect(turn).to_contain_text("轮到你")
    assert live() == flipped  # the view's 余牌 once the opening is over
    # keyed rendering (vdom.js): the seat panels, the rivers and the log are patched, never
    # rebuilt; the nodes marked now must still be the page's after the claims below
    kept = "section.seat, [data-role=river], [data-role=log]"
    marked = pg.evaluate(
        "sel => { const els = [...document.querySelectorAll(sel)];"
        " els.forEach(e => { e.__kept = true; }); window.__kept = els; return els.length; }",
        kept,
    )
    assert marked >= 9, marked  # 4 panels, 4 rivers, the log
    # play by clicks until 上家's discard can be chowed: chow it
    chowed = False
    for _ in range(12):
        pg.locator(f"{ACTIONS}, {HAND_END}").first.wait_for()
        assert pg.locator(HAND_END).count() == 0, "TABLE_WALL: the hand ended before the chow"
        chow = pg.locator(f"{ACTIONS}[data-action=chow]")
        if chow.count() and pg.get_attribute("[data-role=last-discard]", "data-from") == "3":
            names = set(pg.locator("[data-role=seat-name]").all_inner_texts())
            assert zh_leftovers(pg, names) == [], "English left in the zh table"
            chow.first.click()
            chowed = True
            break
        if pg.locator(f"{ACTIONS}[data-action=discard]").count():
            discard_rightmost(pg)
        else:
            pg.locator(f"{ACTIONS}[data-action=pass]").click()
    assert chowed, "TABLE_WALL no longer offers us 上家's discard to chow"
    # 对家 pongs it: announced in the log and as a bubble at its seat; our chow lost
    lost = pg.locator(f"{LOG}[data-kind=claim-lost][data-seat='0']")
    expect(lost).to_have_count(1)
    expect(lost).to_contain_text("对家")
    expect(lost).to_contain_text("碰")
    expect(lost).to_contain_text("你的吃未成")
    pong = pg.locator(f"{LOG}[data-kind=pong][data-seat='2']")
    expect(pong).to_have_count(1)
    expect(pong).to_contain_text("碰")
    expect(pg.locator("[data-role=bubble][data-kind=pong][data-seat='2']")).to_be_visible()
    assert pg.locator("section.seat[data-seat='2'] .meld[data-meld=pong]").count() == 1
    still = pg.evaluate(
        "sel => [window.__kept.every(e => e.isConnected),"
        " [...document.querySelectorAll(sel)].every(e => e.__kept === true)]",
        kept,
    )
    assert still == [True, True], "a seat panel, river or the log was rebuilt"
    # our next turn (a claim prompt on the way passed, as 托管 would): a hand tile selected
    # marks its kind's face-up tiles on the table; 托管 then plays the turn as it would have
    for _ in range(6):
        pg.locator(f"{ACTIONS}, {HAND_END}").first.wait_for()
        assert pg.locator(HAND_END).count() == 0, "TABLE_WALL: the hand ended before our turn"
        if pg.locator(f"{ACTIONS}[data-action=discard]").count():
            break
        pg.locator(f"{ACTIONS}[data-action=pass]").click()
    assert marks_the_same_tiles(pg), "TABLE_WALL: no tile of our hand is face up on the table"
    # 托管 for the rest of the hand: the banner says so (drawn by the click, gone with the
    # end of the hand, which the server plays at full speed: recorded, not polled for)
    tuoguan_on(pg)
    expect(pg.locator("[data-same]")).to_have_count(0)  # 托管 discarded: nothing selected
    # the end: the winning tile marked, the seat that dealt in marked, as the server says
    end = pg.locator(HAND_END)
    expect(end).to_be_visible()
    href = end.locator("[data-role=open-replay]").get_attribute("href") or ""
    hid = re.search(r"replay=(\d+)", href).group(1)  # type: ignore[union-attr]
    result = server.http("GET", f"/api/hands/{hid}/summary")["result"]
    assert result and result["discarder"] is not None, f"TABLE_WALL: not a discard win {result}"
    events = server.http("GET", f"/api/hands/{hid}/log?format=json")
    tile = next(e["tile"] for e in events if e["type"] == "win")
    expect(end.locator("[data-winning]")).to_have_count(1)
    assert end.locator("[data-winning]").get_attribute("data-tile") == tile
    dealt = end.locator("[data-dealt-in]")
    expect(dealt).to_have_count(1)
    assert dealt.get_attribute("data-end-seat") == str(result["discarder"])
    expect(end.locator("[data-role=winner]")).to_contain_text("点炮")
    assert pg.locator(f"{LOG}[data-kind=win]").count() == 1
    assert zh_leftovers(pg, names) == [], "English left in the zh end screen"
    w.close()


def test_phone_hint_tuoguan_and_mute_in_english(server: Server, browser) -> None:  # noqa: F811
    """TABLE_WALL with a silent second person at seat 1 (and two bots): after our first
    discard the hand waits for seat 1 for as long as the test runs, so 托管 turned on and
    off again finds the hand where it was. (With three bots 托管 plays the hand out at full
    speed, and its end can take the banner away from under the tap on 取消托管.)"""
    tok = server.guest("Phone")
    tid = server.table(tok, bots=2, turn_seconds=600)
    w = Watched(browser, "en-US", 390, 844, mobile=True)
    pg = w.page
    pg.goto(f"{server.base}/?token={tok}&table={tid}")
    pg.locator("[data-role=waiting-room] [data-action=ready]").wait_for()  # seated: seat 0
    with seated_silent(server, server.guest("Silent"), tid):
        seats = server.http("GET", f"/api/tables/{tid}")["seats"]
        assert [s["name"] for s in seats[:2]] == ["Phone", "Silent"], seats
        phone_hint_tuoguan_and_mute(pg)
        # the situation held: the hand still waits for seat 1
        assert pg.locator(HAND_END).count() == 0
    w.close()


def phone_hint_tuoguan_and_mute(pg: Page) -> None:
    pg.clock.pause_at(pg.evaluate("Date.now()") + 1000)  # the opening held where it is
    pg.tap("[data-action=ready]")
    # the opening is skippable, and no decision is offered under it (docs/protocol.md)
    expect(pg.locator("[data-role=opening]")).to_contain_text("Gold flip")
    assert pg.locator("[data-action=discard]").count() == 0
    # the compact card leaves the centre's wall count in view and does not repeat it
    expect(pg.locator("[data-role=opening-live]")).to_be_hidden()
    expect(pg.locator("[data-role=center] [data-role=live]")).to_be_visible()
    pg.tap("[data-action=skip-opening]")
    expect(pg.locator("[data-role=opening]")).to_have_count(0)
    pg.clock.resume()
    expect(pg.locator("[data-action=discard]")).to_be_visible()  # we deal
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    small = pg.eval_on_selector_all(
        "button:visible",
        "els => els.filter(e => e.getBoundingClientRect().height < 40).map(e => e.outerHTML.slice(0, 80))",
    )
    assert small == [], f"tap targets under 40 px: {small}"
    # the hint selects the tile it suggests, and Enter discards it
    pg.tap("[data-role=hint-button]")
    expect(pg.locator("[data-role=hint]")).to_contain_text("Hint")
    sel = pg.locator("[data-role=hand] .selected")
    expect(sel).to_have_count(1)
    kind = sel.get_attribute("data-tile")
    assert pg.get_attribute("[data-action=discard]", "data-tile") == kind
    # the action named once: "Hint: Discard 9 Bamboo — leaves the hand …", not "…
    # Discard 9 Bamboo — discard 9 Bamboo: leaves the hand …" (a reason whose head says
    # more, "discard 2 Bamboo, not 9 Dots: …", stays whole)
    said = pg.inner_text("[data-role=hint]")
    assert " — " in said and not re.search(r" — discard [^,:]+: ", said), said
    pg.keyboard.press("Enter")
    mine = pg.locator("section.seat[data-seat='0'] [data-role=river] [data-tile]")
    expect(mine).to_have_count(1)
    assert mine.first.get_attribute("data-tile") == kind
    expect(pg.locator(f"{LOG}[data-kind=discard][data-seat='0']")).to_contain_text("You discard")
    # 托管: the banner, and 取消托管 ends it
    pg.tap("[data-role=tuoguan] input")
    banner = pg.locator("[data-role=auto-banner]")
    expect(banner).to_be_visible()
    pg.tap("[data-action=cancel-auto]")
    expect(banner).to_have_count(0)
    expect(pg.locator("[data-role=tuoguan] input")).not_to_be_checked()
    # sound on/off, remembered
    mute = pg.locator("[data-action=mute]")
    before = mute.get_attribute("aria-pressed")
    mute.tap()
    expect(mute).not_to_have_attribute("aria-pressed", before or "")
    assert pg.evaluate("localStorage.getItem('fjmj.mute')") == ("1" if before == "false" else "0")


# fuzhou-tcy, seat 0 deals a hand one tile short of ready: 123456789m 123456p 9s 1s, so
# discarding 9s leaves it waiting on 1s and discarding 1s on 9s (R7); any other discard
# leaves it short. No flowers are dealt; the gold is 5s (seat
# 0 holds none).
READY_WALL = stacked(
    {
        0: "123456789m 123456p 1s 9s",
        1: "123456789m 789p 2345s",
        2: "123456789m 123456p 6s",
        3: "12345m 778899p 67889s",
    },
    "1p 2p 3p 6s 7s 4p 5p 1s",
    "5s 3s 6s 9p",
)


def test_the_discards_that_leave_the_hand_ready_are_marked(
    tmp_path_factory: pytest.TempPathFactory,
    browser,  # noqa: F811
) -> None:
    """听牌提示, as 同城游 shows it: on our turn each tile whose discard leaves the hand ready
    carries 听; selecting one says what the hand would wait on, with how many of each are
    unseen; the marks go with the discard."""
    with serving(
        tmp_path_factory.mktemp("webready"), [READY_WALL], opening_ms=SHORT_OPENING_MS
    ) as srv:
        w = ready_at_a_new_table(srv, browser, "听牌")
        pg = w.page
        expect(pg.locator(f"{ACTIONS}[data-action=discard]")).to_be_visible()
        marked = pg.locator("[data-role=hand] [data-ready]")
        kinds = marked.evaluate_all("ts => ts.map(t => t.dataset.tile)")
        assert sorted(set(kinds)) == ["1s", "9s"], kinds
        assert set(marked.locator(".ready-badge").all_inner_texts()) == {"听"}
        expect(pg.locator("[data-role=ready-hint]")).to_be_visible()
        tile = pg.locator("[data-role=hand] [data-tile='9s']")
        tile.click()
        after = pg.locator("[data-role=ready-after]")
        expect(after).to_have_attribute("data-tile", "9s")
        expect(after).to_contain_text("打出九条后听")
        waits = after.locator("[data-role=wait-count] > [data-tile]")
        assert "1s" in waits.evaluate_all("ws => ws.map(w => w.dataset.tile)")
        # a tile that leaves the hand short: the hint again
        pg.locator("[data-role=hand] [data-tile='5m']").click()
        expect(pg.locator("[data-role=ready-hint]")).to_be_visible()
        expect(after).to_have_count(0)
        # 9s discarded (select, then again): the marks go with the turn
        tile.click()
        tile.click()
        expect(
            pg.locator("section.seat[data-rel=self] [data-role=river] [data-tile='9s']")
        ).to_have_count(1)
        expect(marked).to_have_count(0)
        expect(pg.locator("[data-role=ready-hint], [data-role=ready-after]")).to_have_count(0)
        w.close()


# fuzhou-tcy, seat 0 deals and holds 1112345678999m 123p 5p: discarding 5p, 2m, 5m or 8m
# leaves it ready (the nine gates of 万 wait on every 万 once 5p goes), and the gold turned
# up (9s) lets the dealer rob it with any of those four (R8.2: 庄家抢金). The other seats
# hold scattered tiles, far from ready, and no gold; no flowers are dealt.
ROB_GOLD_WALL = stacked(
    {
        0: "1112345678999m 123p 5p",
        1: "147m 258p 368s 147s 258m 9p",
        2: "369m 147p 258s 369p 147s 5p",
        3: "258m 47m 268p 36s 25s 147s 8s",
    },
    "",
    "9s",
)


@pytest.mark.parametrize(
    ("lang", "width", "height"),
    [
        ("zh-CN", 844, 390),
        ("zh-CN", 667, 375),
        ("zh-CN", 640, 360),
        ("zh-CN", 375, 667),
        ("en", 844, 390),
        ("en", 640, 360),
        ("en", 375, 667),
    ],
)
def test_the_dealers_rob_gold_and_ten_waits_fit_a_phone(
    tmp_path_factory: pytest.TempPathFactory,
    browser,  # noqa: F811
    lang: str,
    width: int,
    height: int,
) -> None:
    """At the opening the dealer may rob the gold with any of four discards, and 5p selected
    shows ten waits. On a phone, either way up, the four 抢金 buttons read as one offer in
    one row: 抢金 on the first, beside the tile it discards, and only the tile on the other
    three (庄家抢金 (打 二万) in full stood one a row, two lines high; "Rob gold" on each
    stood four rows high at 640×360). The waits give their short count (剩3; ×3 in English)
    beside their tiles, and the table does not scroll: it ran 61 px under the fold at
    844×390, 117 px in English at 640×360, and 13 px upright at 375×667."""
    with serving(
        tmp_path_factory.mktemp("webrob"), [ROB_GOLD_WALL], opening_ms=SHORT_OPENING_MS
    ) as srv:
        tok = srv.guest("抢金")
        tid = srv.table(tok)
        w = Watched(browser, lang, width, height, mobile=True)
        pg = w.page
        pg.goto(f"{srv.base}/?token={tok}&table={tid}")
        pg.locator("[data-action=ready]").tap()
        robs = pg.locator(f"{ACTIONS}[data-action=rob_gold]")
        expect(robs).to_have_count(4)
        assert sorted(robs.evaluate_all("bs => bs.map(b => b.dataset.tile)")) == [
            "2m",
            "5m",
            "5p",
            "8m",
        ]
        pg.locator("[data-role=hand] [data-tile='5p']").tap()
        waits = pg.locator("[data-role=ready-after] [data-role=wait-count] > [data-tile]")
        expect(waits).to_have_count(10)  # 1m … 9m and the gold
        g = pg.evaluate(
            """() => { const g = document.querySelector('#app > .table-grid');
              const b = e => e.getBoundingClientRect();
              const vis = e => getComputedStyle(e).display !== 'none';
              return {scroll: [g.scrollHeight, g.clientHeight],
                labels: [...document.querySelectorAll('[data-action=rob_gold]')]
                  .map(e => [...e.querySelectorAll(':is(.act-label, .act-short)')].filter(vis)
                    .map(l => l.textContent).join('')),
                tiles: [...document.querySelectorAll('[data-action=rob_gold]')]
                  .map(e => e.querySelectorAll('.act-main [data-tile]').length),
                rows: new Set([...document.querySelectorAll('[data-action=rob_gold]')]
                  .map(e => Math.round(b(e).top))).size,
                hand: (r => [r.top, r.bottom])(b(document.querySelector('[data-role=hand]'))),
                left: [...document.querySelectorAll('[data-role=ready-after] .wc')]
                  .map(e => [...e.children].filter(vis).map(c => c.className).join(' '))}; }"""
        )
        word = "抢金" if lang == "zh-CN" else "Rob gold"
        assert g["labels"] == [word, "", "", ""], g["labels"]
        assert g["tiles"] == [1, 1, 1, 1], g["tiles"]
        assert g["rows"] == 1, f"the four 抢金 buttons stand in {g['rows']} rows"
        # the short count (×2 in English, 剩2 here), not "2 left"
        assert all(x.split()[-1] == "left-short" for x in g["left"]), g["left"]
        assert g["scroll"][0] <= g["scroll"][1] + 1, f"the table scrolls {g['scroll']}"
        assert g["hand"][0] >= 0 and g["hand"][1] <= height + 0.5, g["hand"]
        w.close()


def test_a_lost_connection_is_said_over_the_table_and_the_hand_comes_back(
    tmp_path_factory: pytest.TempPathFactory,
    browser,  # noqa: F811
) -> None:
    """The server killed at our turn (a crash: SIGKILL) on a phone held sideways: "连接中断，
    正在重连…" stands over the middle of the table (it stood in the header's corner, over
    对家's panel), the decisions and the hand are dimmed and out of reach, and a move made
    by the keyboard is refused in words (it was dropped without a word, the tile left
    raised). The server started again on its database and port restores the table: the
    page reconnects by itself, the same hand and the same decision are back, and the
    discard is made."""
    data = tmp_path_factory.mktemp("webdown")
    srv = Server(data, [TABLE_WALL], opening_ms=SHORT_OPENING_MS).start()
    again: Server | None = None
    try:
        tok = srv.guest("断线")
        tid = srv.table(tok)
        w = Watched(browser, "zh-CN", 844, 390, mobile=True)
        pg = w.page
        pg.goto(f"{srv.base}/?token={tok}&table={tid}")
        pg.locator("[data-action=ready]").tap()
        expect(pg.locator(f"{ACTIONS}[data-action=discard]")).to_be_visible()
        hand = pg.locator("[data-role=hand] [data-tile]").evaluate_all(
            "ts => ts.map(t => t.dataset.tile)"
        )
        srv.kill()
        lost = pg.locator("[data-role=reconnecting]")
        expect(lost).to_have_text("连接中断，正在重连…")
        g = pg.evaluate(
            """() => { const b = e => e.getBoundingClientRect();
              const card = b(document.querySelector('.conn-lost-card'));
              const across = b(document.querySelector('section.seat[data-rel=top]'));
              return {card: [card.left, card.top, card.right, card.bottom], across:
                [across.left, across.top, across.right, across.bottom],
                hand: getComputedStyle(document.querySelector('[data-role=hand]')).pointerEvents,
                acts: getComputedStyle(document.querySelector('.dock-act')).pointerEvents}; }"""
        )
        c = g["card"]
        middle = ((c[0] + c[2]) / 2, (c[1] + c[3]) / 2)
        assert abs(middle[0] - 422) < 60 and abs(middle[1] - 195) < 60, g
        a = g["across"]
        assert c[1] >= a[3] or c[0] >= a[2] or c[2] <= a[0], f"over 对家's panel: {g}"
        assert g["hand"] == g["acts"] == "none", g
        pg.keyboard.press("Enter")  # the discard's key: nothing can be sent now
        expect(pg.locator("#toast")).to_have_text("网络断开，这一步没有发出，重连后再出")
        # the same database on the same port: the table is restored and the page comes back
        again = Server(
            data, [TABLE_WALL], opening_ms=SHORT_OPENING_MS, port=int(srv.base.rsplit(":", 1)[1])
        ).start()
        expect(lost).to_have_count(0)
        # the hand and the decisions of the new connection's first state, no longer dimmed
        expect(pg.locator("#app.offline")).to_have_count(0)
        assert (
            pg.locator("[data-role=hand] [data-tile]").evaluate_all(
                "ts => ts.map(t => t.dataset.tile)"
            )
            == hand
        )
        discard = pg.locator(f"{ACTIONS}[data-action=discard]")
        expect(discard).to_be_visible()
        tile = discard.get_attribute("data-tile")
        discard.tap()
        expect(
            pg.locator(f"section.seat[data-rel=self] [data-role=river] [data-tile='{tile}']")
        ).to_have_count(1)
        # the browser logs the refused connections while the server was down; nothing else
        assert all("ERR_CONNECTION_REFUSED" in e for e in w.errors), w.errors
        w.errors.clear()
        w.close()
    finally:
        srv.stop()
        if again is not None:
            again.stop()


# counts the sockets a page opens (net.js's TableConn opens one a connection)
COUNT_SOCKETS = (
    "window.__sockets = 0; const Real = WebSocket;"
    " window.WebSocket = function (u, p) { window.__sockets += 1; return new Real(u, p); };"
    " window.WebSocket.prototype = Real.prototype; window.WebSocket.OPEN = Real.OPEN;"
)


def test_a_table_opened_in_a_second_window_is_taken_back_with_one_tap(
    server: Server,
    browser,  # noqa: F811
) -> None:
    """The same player opens its table in a second window (a second tab, the phone beside
    the computer): the seat goes to the new window, and the first says so over the table —
    你在另一个窗口打开了这张牌桌 — with 在这里继续 to take it back. It does not reconnect by
    itself: before, the two windows took the seat from each other in turn, 17 and 18
    sockets in 8 s. A tap on 在这里继续 takes the seat back; the other window then says
    so in its turn."""
    tok = server.guest("两个窗口")
    tid = server.table(tok)
    first, second = Watched(browser, "zh-CN", 844, 390, mobile=True), Watched(browser, "zh-CN")
    for w in (first, second):
        w.page.add_init_script(COUNT_SOCKETS)
    p1, p2 = first.page, second.page
    p1.clock.install()  # the first window's timers move only by run_for (its back-off)
    p1.goto(f"{server.base}/?token={tok}&table={tid}")
    p1.locator("[data-action=ready]").wait_for()
    p2.goto(f"{server.base}/?token={tok}&table={tid}")
    p2.locator("[data-action=ready]").wait_for()
    replaced = p1.locator("[data-role=replaced]")
    expect(replaced).to_contain_text("你在另一个窗口打开了这张牌桌")
    expect(replaced.locator("[data-action=take-back]")).to_have_text("在这里继续")
    expect(p1.locator("[data-role=reconnecting]")).to_have_count(0)
    opened = p1.evaluate("window.__sockets")
    p1.clock.run_for(60_000)  # a minute of its back-off: no socket opened again
    assert p1.evaluate("window.__sockets") == opened
    assert p2.evaluate("window.__sockets") == 1
    # 在这里继续: the seat comes back here, and the second window steps back in its turn
    replaced.locator("[data-action=take-back]").tap()
    expect(replaced).to_have_count(0)
    p1.locator("[data-action=ready]").wait_for()
    expect(p2.locator("[data-role=replaced]")).to_be_visible()
    assert p1.evaluate("window.__sockets") == opened + 1
    first.close()
    second.close()
