"""The square table of docs/web.md at every size, measured from the DOM on a stacked deal
(TABLE_WALL of tests/test_web_table.py: we deal, 上家's 2p comes to us as a chow that 对家
pongs): at 1280×800, on a phone in landscape (844×390, touch) and upright (390×844, touch)
each seat's `data-rel` panel lies on its edge of `[data-role=table]` (left/right panels'
centres in the outer fifth of its width, the top one in the top fifth of its height), each
river between its panel and the centre, no two of (the four panels, the four rivers, the
centre, the hand, the decisions) overlap, your tiles are at least 32 px wide in landscape
and the rivers' at least half of them, every tap target is at least 40 px high, nothing
scrolls during play, and the end of the hand is inside the viewport. While the opening card
is shown no decision is in the page. `/manifest.webmanifest` is served with its icons.

Same machinery as tests/test_web.py (the real app through tests/serve_test_server.py,
Debian's Chromium, waits on DOM state only, any console error fails)."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Browser, expect

from tests.test_web import (
    ACTIONS,
    HAND_END,
    MAIN_WALL,
    SHORT_OPENING_MS,
    Server,
    Watched,
    browser,  # noqa: F401 (the fixture)
    hand_under_tuoguan,
    serving,
    stacked,
)
from tests.test_web_table import TABLE_WALL, discard_rightmost

DECISIONS = (
    "[data-action=pass], [data-action=discard], [data-action=win], [data-action=chow],"
    " [data-action=pong], [data-action=kong], [data-role=claim-prompt]"
)

# what each panel, river, the centre, the hand and the decisions occupy (CSS px)
GEOMETRY = """() => {
  const r = e => { if (!e) return null; const b = e.getBoundingClientRect();
    return b.width * b.height > 0 ? {x: b.x, y: b.y, w: b.width, h: b.height} : null; };
  const seats = {};
  for (const s of document.querySelectorAll('section.seat[data-seat]'))
    seats[s.dataset.rel] = {panel: r(s.querySelector('.seat-box')), river: r(s.querySelector('[data-role=river]'))};
  const w = sel => [...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect().width);
  const act = document.querySelector('.dock-act');
  return {
    table: r(document.querySelector('[data-role=table]')),
    center: r(document.querySelector('[data-role=center]')),
    hand: r(document.querySelector('[data-role=hand]')),
    actions: act && act.children.length ? r(act) : null,
    seats,
    // the header's links and buttons (over the table's top corners in landscape)
    header: [...document.querySelectorAll('#app.table-page > .bar > :not(.grow)')].map(r).filter(Boolean),
    social: r(document.querySelector('.table-grid > .social-wrap')),
    // the log (open or folded) and, open, the whole lines its list shows
    log: r(document.querySelector('.table-grid > .action-log')),
    log_lines: (l => l ? l.clientHeight / parseFloat(getComputedStyle(l).lineHeight) : 0)(
      document.querySelector('.table-grid > .action-log.open .log-list')),
    grid_scroll: (e => [e.scrollHeight, e.clientHeight])(document.querySelector('#app > .table-grid')),
    // your tiles, or a spectator's backs of the watched seat there
    hand_w: w('[data-role=hand] [data-tile], [data-role=hand] [data-back]'),
    river_w: w('[data-role=river] [data-tile]'),
    meld_w: w('section.seat:not([data-rel=self]) [data-role=melds] [data-tile]'),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    view: [innerWidth, innerHeight],
  };
}"""


# 对家's 碰 callout once its entrance is over (measured in the frame that finds it, so its
# 2.6 s life cannot end between finding and measuring), with every seat's name line and
# flower line; and, in the same frame, three copies of it worded ``word`` at every seat (a
# pong, its kong and the flower drawn for it come within a second), measured and taken away:
# {seat's rel: [each copy's box]}, and the height of the one they copy
BUBBLE = """word => {
  const b = document.querySelector("[data-role=bubble][data-kind=pong][data-seat='2']");
  if (!b || b.getAnimations().some(a => a.playState !== 'finished')) return null;
  const r = e => { const x = e.getBoundingClientRect(); return {x: x.x, y: x.y, w: x.width, h: x.height}; };
  const heads = [...document.querySelectorAll('section.seat .seat-head > *, section.seat .seat-info > *')]
    .filter(e => e.getBoundingClientRect().width > 0).map(e => ({...r(e), what: e.textContent}));
  const seats = {};
  for (const sec of document.querySelectorAll('section.seat[data-seat]')) {
    const made = [0, 1, 2].map(() => {
      const c = b.cloneNode(true);
      c.style.animation = 'none';
      [...c.childNodes].find(n => n.nodeType === Node.TEXT_NODE).textContent = word;
      sec.querySelector('.bubbles').append(c);
      return c;
    });
    seats[sec.dataset.rel] = made.map(r);
    made.forEach(c => c.remove());
  }
  return {bubble: r(b), heads, view: [innerWidth, innerHeight], seats, one: r(b).h};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """TABLE_WALL with a short opening (SHORT_OPENING_MS): these journeys are about the
    table's geometry, so the page shows only the opening's last few hundred milliseconds
    (the full opening is timed by test_a_hand_over_at_its_opening_shows_its_table_first and
    by the conformance check-table)."""
    with serving(
        tmp_path_factory.mktemp("websquare"), [TABLE_WALL], opening_ms=SHORT_OPENING_MS
    ) as s:
        yield s


# records each toast the page shows (window.fjmjToasts) from the moment it runs
TOASTS = """() => { window.fjmjToasts = []; const el = document.getElementById('toast');
  new MutationObserver(() => { if (el.classList.contains('show'))
    window.fjmjToasts.push(el.textContent); })
  .observe(el, {attributes: true, childList: true, characterData: true, subtree: true}); }"""


def at_a_new_table(
    server: Server, br: Browser, name: str, width: int, height: int, touch: bool
) -> tuple[Watched, Any]:
    """A guest's page (zh-CN) at a new one-hand table of three bots, in its waiting room:
    (the watched page, its 准备 button, shown)."""
    tok = server.guest(name)
    tid = server.table(tok)
    w = Watched(br, "zh-CN", width, height, mobile=touch)
    w.page.goto(f"{server.base}/?token={tok}&table={tid}")
    ready = w.page.locator("[data-action=ready]")
    ready.wait_for()
    return w, ready


def overlap(a: dict[str, float] | None, b: dict[str, float] | None) -> float:
    if not a or not b:
        return 0.0
    x = max(0.0, min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]))
    y = max(0.0, min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]))
    return x * y


def centre(b: dict[str, float]) -> tuple[float, float]:
    return b["x"] + b["w"] / 2, b["y"] + b["h"] / 2


def check_square(g: dict[str, Any], landscape: bool) -> None:
    """The square table's geometry (docs/web.md, the DOM contract)."""
    seats, t = g["seats"], g["table"]
    assert set(seats) == {"self", "left", "top", "right"}, seats
    assert t, "no [data-role=table]"
    cx, cy = centre(t)
    left, right, top = (seats[k]["panel"] for k in ("left", "right", "top"))
    assert centre(left)[0] < t["x"] + t["w"] * 0.2, ("left panel", left, t)
    assert centre(right)[0] > t["x"] + t["w"] * 0.8, ("right panel", right, t)
    assert centre(top)[1] < t["y"] + t["h"] * 0.2, ("top panel", top, t)
    for rel, axis in (("left", 0), ("right", 0), ("top", 1)):
        lo, hi = sorted((centre(seats[rel]["panel"])[axis], (cx, cy)[axis]))
        river = seats[rel]["river"]
        assert river and lo <= centre(river)[axis] <= hi, f"the {rel} river is not in front of it"
    boxes = {f"{k}-panel": seats[k]["panel"] for k in seats}
    boxes.update({f"{k}-river": seats[k]["river"] for k in seats})
    boxes.update(centre=g["center"], hand=g["hand"], actions=g["actions"])
    boxes.update({f"header-{i}": b for i, b in enumerate(g["header"])})
    boxes["stakes-and-chat"] = g["social"]
    names = sorted(boxes)
    clashes = [
        (a, b, round(overlap(boxes[a], boxes[b])))
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if overlap(boxes[a], boxes[b]) > 16
    ]
    assert clashes == [], f"overlapping: {clashes}"
    # nothing scrolls sideways, and in landscape nothing scrolls at all
    vw, vh = g["view"]
    assert g["scroll"][0] <= vw, g["scroll"]
    if landscape:
        assert g["scroll"][1] <= vh, g["scroll"]
        # 32 px tiles where the screen is 390 px high or more; a 360-375 px high phone
        # (740×360, 667×375) fits the whole table with a little less
        least = 32 if vh >= 390 else 28
        assert min(g["hand_w"]) >= least, f"hand tiles {min(g['hand_w'])} px wide"
        hand = g["hand"]
        # whole, and a few pixels off the lower edge (a phone's frame, the thumbs)
        assert hand["y"] + hand["h"] <= vh - 4, ("the hand is on the screen's edge", hand, vh)
    if g["river_w"]:
        assert min(g["river_w"]) >= min(g["hand_w"]) / 2 - 0.01, "river tiles under half the hand's"
        if not landscape and vw >= 600:
            # a tablet upright: rivers about as on a desktop, not a phone's half
            ratio = min(g["river_w"]) / min(g["hand_w"])
            assert ratio >= 0.65, f"a tablet's river tiles at {ratio:.2f} of the hand's"


def small_targets(pg: Any, tiles: bool) -> list[str]:
    """Tap targets under 40 px high: every button, and in landscape your tiles too (36 px
    on a phone under 390 px high: 17 tiles across 667 px cannot be taller)."""
    tile_min = 40 if pg.viewport_size["height"] >= 390 else 36
    return pg.eval_on_selector_all(  # type: ignore[no-any-return]
        "button:visible, [data-role=hand] [data-tile]" if tiles else "button:visible",
        "(els, tileMin) => els.filter(e => { const r = e.getBoundingClientRect();"
        " const least = e.matches('[data-tile]') ? tileMin : 40;"
        " return r.height < least && r.width > 0; }).map(e => e.outerHTML.slice(0, 80))",
        tile_min,
    )


def play_to_the_chow(pg: Any) -> None:
    """From the first decision to 上家's 2p offered as a chow (TABLE_WALL), by clicks."""
    for _ in range(12):
        pg.locator(f"{ACTIONS}, {HAND_END}").first.wait_for()
        assert pg.locator(HAND_END).count() == 0, "TABLE_WALL: the hand ended before the chow"
        chow = pg.locator(f"{ACTIONS}[data-action=chow]")
        if chow.count() and pg.get_attribute("[data-role=last-discard]", "data-from") == "3":
            return
        if pg.locator(f"{ACTIONS}[data-action=discard]").count():
            discard_rightmost(pg)
        else:
            pg.locator(f"{ACTIONS}[data-action=pass]").click()
    raise AssertionError("TABLE_WALL no longer offers us 上家's discard to chow")


@pytest.mark.parametrize(
    ("width", "height", "touch"),
    [
        (1280, 800, False),
        (1920, 1080, False),
        (844, 390, True),
        (915, 412, True),
        (740, 360, True),
        (667, 375, True),
        (390, 844, True),
        (375, 667, True),
        (768, 1024, True),
    ],
    ids=[
        "desktop",
        "desktop-1080",
        "landscape",
        "landscape-915",
        "landscape-740",
        "landscape-667",
        "portrait",
        "portrait-667",
        "tablet-upright",
    ],
)
def test_the_square_table(
    server: Server,
    browser: Browser,  # noqa: F811
    width: int,
    height: int,
    touch: bool,
) -> None:
    landscape = width > height
    w, ready = at_a_new_table(server, browser, "方桌", width, height, touch)
    pg = w.page
    # the waiting room: 准备 on the first screen, nothing scrolls (at 844×390 its four seats
    # one under another ran it off the foot), and the table's 练习 note under it is light on
    # the felt (it was dark green on green)
    note = pg.locator("[data-role=table-stakes]")
    note.wait_for()
    box = ready.bounding_box()
    assert box and box["y"] + box["height"] <= height, f"准备 under the fold: {box}"
    assert pg.evaluate("document.documentElement.scrollHeight") <= height + 1
    # found and measured in one step in the page: the social box draws the note again when
    # the table's terms come (a locator's element, replaced in between, has no style)
    light = pg.wait_for_function(
        """() => { const e = document.querySelector('[data-role=table-stakes]');
          const c = e && getComputedStyle(e).color.match(/\\d+/g);
          return c && {l: (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255}; }"""
    ).json_value()["l"]
    assert light >= 0.6, f"the stakes note is dark on the felt ({light:.2f})"
    # while the opening card is shown, no decision is in the page (it is polled as the
    # conformance check does: every state the page goes through is looked at)
    pg.evaluate(
        """sel => { window.__underOpening = 0; window.__sawOpening = false;
        new MutationObserver(() => {
          if (!document.querySelector('[data-role=opening]')) return;
          window.__sawOpening = true;
          if (document.querySelector(sel)) window.__underOpening += 1;
        }).observe(document.body, {subtree: true, childList: true, attributes: true}); }""",
        DECISIONS,
    )
    if touch:
        ready.tap()
    else:
        ready.click()
    # our first turn (we deal): the table with our hand and the discard button, once the
    # opening card has gone
    expect(pg.locator("[data-action=discard]")).to_be_visible()
    expect(pg.locator("[data-role=opening]")).to_have_count(0)
    assert pg.evaluate("window.__sawOpening"), "no opening card was shown"
    assert pg.evaluate("window.__underOpening") == 0, "a decision under the opening card"
    # the centre's edge toward us is lit (our turn), as a table's compass points
    assert pg.get_attribute("[data-role=center]", "data-turn") == "self"
    g = pg.evaluate(GEOMETRY)
    check_square(g, landscape)
    hand_at_turn = g["hand"]
    if not landscape:
        # upright, the spare height goes above your seat: your hand sits in the lower part
        # of the screen, where the thumbs are
        bottom = hand_at_turn["y"] + hand_at_turn["h"]
        assert bottom >= g["view"][1] * 0.7, ("the hand floats mid-screen", hand_at_turn)
    if touch:
        assert small_targets(pg, landscape) == [], small_targets(pg, landscape)
    # the hint and its reason beside our river: still nothing overlaps or scrolls
    pg.click("[data-role=hint-button]")
    expect(pg.locator("[data-role=hint]")).to_contain_text("建议")
    check_square(pg.evaluate(GEOMETRY), landscape)
    pg.keyboard.press("Enter")  # the hinted tile goes
    expect(pg.locator("section.seat[data-rel=self] [data-role=river] [data-tile]")).to_have_count(1)
    # the claim prompt with its buttons beside our river: still nothing overlaps
    play_to_the_chow(pg)
    # each 吃 button shows the run it makes, in rank order, 上家's 2p ringed in it, the
    # lowest run first (R6): 1-2-3 before 2-3-4 when both are offered
    runs = pg.eval_on_selector_all(
        f"{ACTIONS}[data-action=chow]",
        "bs => bs.map(b => [...b.querySelectorAll('[data-tile]')].map("
        "t => t.dataset.tile + (t.dataset.claimed ? '*' : '')))",
    )
    assert runs and all(r.count("2p*") == 1 and len(r) == 3 for r in runs), runs
    ranks = [[int(t[0]) for t in r] for r in runs]
    assert all(r == [r[0], r[0] + 1, r[0] + 2] for r in ranks), runs
    assert ranks == sorted(ranks), runs
    # 上家's discard open to claims: the centre points at 上家 until the next seat draws
    assert pg.get_attribute("[data-role=center]", "data-turn") == "left"
    # the log, where it is open and has scrolled to its newest entry, shows whole lines:
    # none cut in half at its top
    cut = pg.evaluate(
        """() => { const l = document.querySelector('.action-log.open .log-list');
          if (!l || l.scrollHeight <= l.clientHeight) return null;
          const top = l.getBoundingClientRect().top + l.clientTop;
          const e = [...l.children].find(e => e.getBoundingClientRect().bottom > top + 0.5);
          return top - e.getBoundingClientRect().top; }"""
    )
    assert cut is None or cut <= 0.5, f"the log's top line is cut by {cut:.1f} px"
    # 快捷语's phrases open inside the screen, wherever its button stands (upright it is at
    # the foot, and they opened below it, under the fold)
    pg.locator("[data-action=chat]").click()
    pg.locator("[data-role=phrase-list]").wait_for()
    # measured against the table's own box (it clips what runs out of it), in one step
    inside = pg.evaluate(
        """() => { const p = document.querySelector('[data-role=phrase-list]').getBoundingClientRect();
          const t = document.querySelector('#app > .table-grid').getBoundingClientRect();
          return {p: [p.top, p.bottom], t: [t.top, t.bottom],
                  ok: p.top >= t.top - 0.5 && p.bottom <= t.bottom + 0.5}; }"""
    )
    assert inside["ok"], f"the phrases are off the table: {inside}"
    pg.locator("[data-action=chat]").click()
    expect(pg.locator("[data-role=phrase-list]")).to_have_count(0)
    g = pg.evaluate(GEOMETRY)
    assert g["actions"], "the decisions are not shown"
    if not landscape and width < 700:
        # a phone upright: nothing scrolls (at 375×667 the foot, the stakes note over
        # 快捷语, ran 37 px under the fold), and on a tall one (390×844) the height to spare
        # between the table and your seat holds the log, open, six whole lines of it (that
        # height was empty felt, the log folded at the foot)
        assert g["grid_scroll"][0] <= g["grid_scroll"][1] + 1, (
            f"the table scrolls {g['grid_scroll']}"
        )
        if height >= 840:
            log, river = g["log"], g["seats"]["self"]["river"]
            panel = g["seats"]["self"]["panel"]
            assert log["y"] >= river["y"] + river["h"] - 0.5, ("the log over your river", log)
            assert log["y"] + log["h"] <= panel["y"] + 0.5, ("the log over your seat", log)
            assert g["log_lines"] >= 5.95, f"the log shows {g['log_lines']:.1f} lines"
            # the tightest tall phone (360×800: four lines) and a larger one (412×915: nine)
            # keep it so, without scrolling
            for w2, h2, least in ((360, 800, 3.95), (412, 915, 8.95)):
                pg.set_viewport_size({"width": w2, "height": h2})
                g2 = pg.evaluate(GEOMETRY)
                at = f"{w2}×{h2}"
                assert g2["grid_scroll"][0] <= g2["grid_scroll"][1] + 1, (at, g2["grid_scroll"])
                log2, panel2 = g2["log"], g2["seats"]["self"]["panel"]
                assert log2["y"] + log2["h"] <= panel2["y"] + 0.5, (at, log2, panel2)
                assert g2["log_lines"] >= least, f"the log shows {g2['log_lines']:.1f} lines ({at})"
            pg.set_viewport_size({"width": width, "height": height})
    hand_w, river_w = min(g["hand_w"]), min(g["river_w"])
    print(f"{width}x{height}: hand tiles {hand_w:.1f} px, river tiles {river_w:.1f} px")  # -s
    # 上家's chow and 对家's pong face up, readable where the screen has room for it: on a
    # desktop at 0.75 of a river's tile or more, on a tablet upright 14 px or more (a
    # phone's 7 px side melds there before)
    if height >= 1080:
        # a large desktop's table grows with it (it kept 1280×800's 48 and 28 px before)
        assert hand_w >= 60 and river_w >= 36, (hand_w, river_w)
    assert g["meld_w"], "TABLE_WALL: no opponent has melded by the chow"
    meld_w = min(g["meld_w"])
    if landscape and width > 900 and height > 500:
        assert meld_w >= 0.75 * river_w, f"meld tiles {meld_w:.1f} px, the river's {river_w:.1f}"
    elif width >= 600 and height >= 600:
        assert meld_w >= 14, f"meld tiles {meld_w:.1f} px wide on a tablet"
    elif not landscape:
        # a phone upright: the side seats' melds 11 px (9 before), as wide as the top one's
        assert meld_w >= 10.5, f"meld tiles {meld_w:.1f} px wide on a phone upright"
    check_square(g, landscape)
    # a claim prompt comes without moving your hand under your thumb
    assert abs(g["hand"]["y"] - hand_at_turn["y"]) < 1, ("the hand moved", hand_at_turn, g["hand"])
    if touch:
        assert small_targets(pg, landscape) == [], small_targets(pg, landscape)
    # in English (longer words: Dealer, Flowers 3, Bot · Standard) nothing overlaps either,
    # and the chow button keeps its tiles and words on one line
    pg.click("[data-role=lang]")
    expect(pg.locator("[data-role=lang]")).to_have_text("中文")
    g = pg.evaluate(GEOMETRY)
    check_square(g, landscape)
    if not landscape and width < 700:
        # the English stakes note beside Quick chat: still nothing scrolls upright
        assert g["grid_scroll"][0] <= g["grid_scroll"][1] + 1, (
            f"scrolls in English {g['grid_scroll']}"
        )
    chow = pg.locator(f"{ACTIONS}[data-action=chow]").first
    lines = chow.evaluate(
        "b => { const m = b.querySelector('.act-main'); const r = m.getBoundingClientRect();"
        " return Math.round(r.height / parseFloat(getComputedStyle(m).lineHeight || 20)); }"
    )
    tiles = chow.locator("[data-tile]")
    tops = {round(t.bounding_box()["y"]) for t in tiles.all()}  # type: ignore[index]
    assert len(tops) == 1, f"the chow button's tiles wrap ({tops}, {lines} lines)"
    pg.click("[data-role=lang]")
    # our chow loses to 对家's pong (TABLE_WALL): its 碰 callout stands on the side of its
    # panel that faces the centre, inside the screen, over no seat's name, level or flowers
    if touch:
        chow.tap()
    else:
        chow.click()
    callout = pg.wait_for_function(BUBBLE, arg="补花").json_value()
    vw, vh = callout["view"]
    b = callout["bubble"]
    assert b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["w"] <= vw and b["y"] + b["h"] <= vh, b
    covered = [h for h in callout["heads"] if overlap(b, h) > 16]
    assert covered == [], f"the 碰 callout {b} covers {covered}"
    # three at each seat, worded 补花 (two characters: beside a side panel it stood as two
    # lines, and in a row the three ran across the river into the centre): each one line,
    # inside the screen, over no seat's name, level or flowers (yours stood over your name)
    assert sorted(callout["seats"]) == ["left", "right", "self", "top"], callout["seats"]
    for rel, boxes in callout["seats"].items():
        for c in boxes:
            assert c["h"] <= callout["one"] + 0.5, f"{rel}'s 补花 callout wraps: {c}"
            assert c["x"] >= 0 and c["y"] >= 0, (rel, c)
            assert c["x"] + c["w"] <= vw and c["y"] + c["h"] <= vh, (rel, c)
            covered = [h for h in callout["heads"] if overlap(c, h) > 16]
            assert covered == [], f"{rel}'s callouts {c} cover {covered}"
    # every toast from here on, as it shows (one lasts 4 s: longer than the end's hold)
    pg.evaluate(TOASTS)
    # 托管 to the end: the end of the hand inside the viewport, above nothing
    pg.click("[data-role=tuoguan] input")
    end = pg.locator(HAND_END)
    expect(end).to_be_visible()
    # a one-hand match: the end screen is whole once the standings and the 算分 are in
    end.locator("[data-role=breakdown]").wait_for()
    end.locator("[data-role=match-end]").wait_for()
    expect(end.locator("[data-role=open-replay]")).to_be_visible()
    # the table's close (table_closed follows match_end) puts no toast over the end screen's
    # title: the standings and the way back to the lobby say it already
    end.and_(pg.locator("[data-closed]")).wait_for()
    assert pg.evaluate("() => window.fjmjToasts") == []
    # found and measured in one step in the page: the end screen may be drawn again when the
    # table's close follows the match's end, and a locator's evaluate resolves its element in
    # one step and runs in another (a node replaced between the two measures nothing)
    box = pg.evaluate(
        "sel => { const r = document.querySelector(sel).getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height}; }",
        HAND_END,
    )
    assert box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
    if landscape:
        host = pg.evaluate(
            "() => { const e = document.querySelector('.end-host');"
            " return [e.scrollHeight, e.clientHeight]; }"
        )
        # every line of it shown without scrolling, on the 360 px of most Android phones
        # sideways too (there the 算分 runs on as a line of terms)
        assert host[0] <= host[1] + 1, f"the end of the hand scrolls ({host})"
        assert box["y"] + box["height"] <= height + 0.5, (box, height)
    w.close()


# the first frame that shows the 托管 banner (window.__auto), measured as it is drawn: the
# banner, the lines of its words, the hand, the decisions shown and the table's scroll
AUTO_WATCH = """() => { window.__auto = null;
  const r = e => { const b = e.getBoundingClientRect(); return {x: b.x, y: b.y, w: b.width, h: b.height}; };
  const look = () => {
    const b = document.querySelector('[data-role=auto-banner]');
    if (!b) { requestAnimationFrame(look); return; }
    const words = [...b.querySelectorAll(':scope > span')].find(e => getComputedStyle(e).display !== 'none');
    const range = document.createRange();
    range.selectNodeContents(words);
    const g = document.querySelector('#app > .table-grid');
    window.__auto = {banner: r(b), words: words.textContent, lines: range.getClientRects().length,
      hand: r(document.querySelector('[data-role=hand]')),
      decisions: document.querySelectorAll('[data-role=actions] button, [data-role=claim-prompt]').length,
      scroll: [g.scrollHeight, g.clientHeight]}; };
  requestAnimationFrame(look); }"""


@pytest.mark.parametrize(
    ("width", "height"),
    [(1280, 800), (844, 390), (667, 375), (640, 360), (375, 667)],
    ids=["desktop", "landscape", "landscape-667", "landscape-640", "portrait-667"],
)
def test_tuoguan_stands_in_for_your_decisions(
    server: Server,
    browser: Browser,  # noqa: F811
    width: int,
    height: int,
) -> None:
    """In English (the longer words), at our first turn (we deal, TABLE_WALL): 托管 ticked,
    the first frame with its banner shows no decision (the server decides; 取消托管 stands in
    their place), the banner as high as its button with its words beside it, and the hand on the screen
    without scrolling. English's sentence stood over the button, the discard button under
    it, and on a phone held sideways the hand went under the fold."""
    tok = server.guest("Auto")
    tid = server.table(tok)
    w = Watched(browser, "en-US", width, height, mobile=width < 1000)
    pg = w.page
    pg.goto(f"{server.base}/?token={tok}&table={tid}")
    pg.locator("[data-action=ready]").click()
    expect(pg.locator("[data-action=discard]")).to_be_visible()
    pg.evaluate(AUTO_WATCH)
    pg.click("[data-role=tuoguan] input")
    auto = pg.wait_for_function("() => window.__auto").json_value()
    at = f"{width}×{height}"
    assert auto["decisions"] == 0, f"{auto['decisions']} decisions under 托管 ({at})"
    # no higher than 取消托管 makes it (40 px and the padding), its words in two lines at
    # most beside the button (three and over it before)
    assert auto["banner"]["h"] <= 50, f"the 托管 banner is {auto['banner']['h']:.0f} px high ({at})"
    assert auto["lines"] <= 2, f"the banner's words in {auto['lines']} lines ({at}): {auto}"
    if width < 700 or height <= 500:
        assert auto["words"] == "Auto\u2011play on", auto["words"]
    assert auto["scroll"][0] <= auto["scroll"][1] + 1, f"the table scrolls under 托管 ({at})"
    hand = auto["hand"]
    assert hand["y"] >= 0 and hand["y"] + hand["h"] <= height + 0.5, (at, hand)
    w.close()


def test_a_phone_notch_and_home_bar_cover_nothing(
    server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """index.html takes the whole screen (viewport-fit=cover); on a phone in landscape with a
    notch on each side and a home bar (Chromium's safe-area override, as an iPhone reports
    them) the header, the seats, the hand and the decisions stay inside the safe area."""
    inset = {"top": 0, "left": 47, "right": 47, "bottom": 21}
    w, ready = at_a_new_table(server, browser, "刘海屏", 844, 390, True)
    pg = w.page
    w.ctx.new_cdp_session(pg).send("Emulation.setSafeAreaInsetsOverride", {"insets": inset})
    ready.tap()
    expect(pg.locator("[data-action=discard]")).to_be_visible()
    expect(pg.locator("[data-role=opening]")).to_have_count(0)
    outside = pg.evaluate(
        """([t, l, r, b]) => [...document.querySelectorAll(
            '.bar > *, .seat-box, [data-role=hand] [data-tile], [data-role=river], button')]
          .filter(e => { const x = e.getBoundingClientRect();
            return x.width > 0 && (x.left < l - 0.5 || x.right > innerWidth - r + 0.5
              || x.top < t - 0.5 || x.bottom > innerHeight - b + 0.5); })
          .map(e => e.outerHTML.slice(0, 60))""",
        [inset["top"], inset["left"], inset["right"], inset["bottom"]],
    )
    assert outside == [], outside
    w.close()


def test_bot_levels_practice_and_no_silver_for_spectators(
    server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """Each bot's seat names its level when the server says it (`bot_level`); a spectator
    sees the table from seat 0 with a countdown when the server gives one, and no silver
    line on the end screen."""
    tok = server.guest("观众桌")
    tid = server.table(tok)
    w = Watched(browser, "zh-CN", 844, 390, mobile=True)
    pg = w.page
    practice: list[bool] = []

    def frames(ws: Any) -> None:
        def seen(payload: Any) -> None:
            try:
                msg = json.loads(payload)
            except (TypeError, ValueError):
                return
            if isinstance(msg, dict) and msg.get("type") == "state" and "practice" in msg:
                practice.append(bool(msg["practice"]))

        ws.on("framereceived", seen)

    pg.on("websocket", frames)
    pg.goto(f"{server.base}/?token={tok}&table={tid}")
    pg.tap("[data-action=ready]")
    pg.locator("[data-role=table]").wait_for()
    pg.locator("[data-role=opening]").wait_for(state="detached")
    # the practice badge exactly when the server says the table is practice
    expect(pg.locator("[data-role=practice]")).to_have_count(1 if practice and practice[-1] else 0)
    seats = server.http("GET", f"/api/tables/{tid}").get("seats") or []
    if any(isinstance(s, dict) and s.get("bot_level") for s in seats):
        levels = pg.locator("section.seat [data-role=bot-level]")
        expect(levels).to_have_count(3)
    spec = Watched(browser, "zh-CN", 844, 390, mobile=True)
    sp = spec.page
    sp.goto(f"{server.base}/?token={server.guest('看客')}&table={tid}&as=spectator")
    sp.locator("[data-role=table]").wait_for()
    rels = sp.eval_on_selector_all("section.seat[data-rel]", "els => els.map(e => e.dataset.rel)")
    assert sorted(rels) == ["left", "right", "self", "top"]
    assert sp.locator("[data-action=discard], [data-action=pass]").count() == 0
    pg.click("[data-role=tuoguan] input")
    expect(sp.locator(HAND_END)).to_be_visible()
    assert sp.locator(f"{HAND_END} [data-role=silver-change]").count() == 0
    spec.close()
    w.close()


def test_a_table_that_does_not_exist(server: Server, browser: Browser) -> None:  # noqa: F811
    """`?table=99`: the error and the way back to the lobby, no waiting room beside it."""
    tok = server.guest("迷路")
    w = Watched(browser, "zh-CN", 844, 390, mobile=True)
    pg = w.page
    # the socket's answer is an error; the page shows it (not as a console error)
    pg.goto(f"{server.base}/?token={tok}&table=99")
    gone = pg.locator("[data-role=table-gone]")
    expect(gone).to_be_visible()
    expect(gone.locator("[data-action=back-to-lobby]")).to_be_visible()
    assert pg.locator("[data-role=waiting-room]").count() == 0
    w.close()


def test_manifest_and_service_worker(server: Server) -> None:
    """The page installs to a home screen full-screen in landscape (manifest and icons) and
    its static files are cached by sw.js."""
    with urllib.request.urlopen(server.base + "/manifest.webmanifest", timeout=10) as r:
        m = json.loads(r.read())
    assert m["display"] in ("fullscreen", "standalone")
    assert m["orientation"] == "landscape"
    assert m["name"] and m["short_name"] and m["start_url"]
    sizes = {i["sizes"]: i["src"] for i in m["icons"]}
    for size in ("192x192", "512x512"):
        with urllib.request.urlopen(f"{server.base}/{sizes[size]}", timeout=10) as r:
            png = r.read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert f"{width}x{height}" == size
    with urllib.request.urlopen(server.base + "/", timeout=10) as r:
        page = r.read().decode()
    assert 'rel="manifest"' in page
    with urllib.request.urlopen(server.base + "/sw.js", timeout=10) as r:
        sw = r.read().decode()
        assert "javascript" in r.headers["content-type"]
    assert "caches" in sw and "/api/" in sw


def two_ready_at_a_private_table(
    srv: Server, br: Browser, wa: Watched, hands: int = 1
) -> tuple[Watched, Watched]:
    """甲 (``wa``'s page: seat 0, the creator) and 乙 (a desktop page) at a new private table
    of ``hands`` hands with two bots, both ready: (甲's, 乙's)."""
    a, b = srv.guest("甲"), srv.guest("乙")
    tid = srv.table(a, bots=2, private=True, hands=hands)
    code = srv.http("GET", f"/api/tables/{tid}", token=a)["code"]
    wb = Watched(br, "zh-CN")
    wa.page.goto(f"{srv.base}/?token={a}&table={tid}")
    wa.page.locator("[data-role=waiting-room]").wait_for()
    wb.page.goto(f"{srv.base}/?token={b}&table={code}")
    wb.page.locator("[data-role=waiting-room] [data-action=ready]").click()
    wa.page.locator("[data-role=waiting-room] [data-action=ready]").click()
    return wa, wb


def test_a_dissolved_table_says_so_and_asks_nothing(server: Server, browser: Browser) -> None:  # noqa: F811
    """解散 agreed at a private table: both players read 房间已解散 · 本盘作废 and no
    decision is left in either page (docs/web.md)."""
    wa, wb = two_ready_at_a_private_table(
        server, browser, Watched(browser, "zh-CN", 844, 390, mobile=True)
    )
    pa, pb = wa.page, wb.page
    for p in (pa, pb):
        p.locator("[data-role=hand] [data-tile]").first.wait_for()
    for p in (pa, pb):
        p.evaluate(TOASTS)
    pa.locator("[data-action=dissolve]").tap()
    pb.locator("[data-role=dissolve-vote] [data-action=dissolve-accept]").click()
    for p in (pa, pb):
        expect(p.locator("[data-role=dissolved]").first).to_contain_text("房间已解散 · 本盘作废")
        assert p.locator(DECISIONS).count() == 0
        # nobody left: no toast names a leaver (the void hand's message has none)
        p.locator("[data-role=hand-end][data-closed]").wait_for()
        assert p.evaluate("() => window.fjmjToasts") == []
        expect(
            p.locator("[data-action=back-to-lobby], [data-role=open-replay]").first
        ).to_be_visible()
    wa.close()
    wb.close()


def test_a_win_before_an_agreed_dissolution_is_shown_settled(
    tmp_path_factory: pytest.TempPathFactory,
    browser: Browser,  # noqa: F811
) -> None:
    """乙 proposes 解散 while 甲 (the dealer) may declare 天胡 at the deal (a stacked wall);
    甲 declares it, then accepts. The win stands (D-24) and is settled: both end screens show
    甲's win with the note 房间已解散 · 本盘在解散前已分胜负, not 本盘作废, and no decision is
    left (docs/protocol.md). Before, the vote alone put 本盘作废 on the screen."""
    from tests.test_audit_server import heaven_wall

    with serving(
        tmp_path_factory.mktemp("webdissolvewin"), [heaven_wall()], opening_ms=SHORT_OPENING_MS
    ) as srv:
        wa, wb = two_ready_at_a_private_table(srv, browser, Watched(browser, "zh-CN"), hands=2)
        pa, pb = wa.page, wb.page
        win = pa.locator(f"{ACTIONS}[data-action=win]")
        expect(win).to_be_visible()  # 天胡, once the opening has played
        # 乙 is shown nothing of the window (R12): the waiting room says the hand is being
        # dealt, not 甲 未准备 with a 准备 button (as it did)
        room = pb.locator("[data-role=waiting-room][data-dealing]")
        expect(room).to_contain_text("开局中")
        assert "未准备" not in room.inner_text()
        assert pb.locator("[data-role=waiting-room] [data-action=ready]").count() == 0
        pb.locator("[data-action=dissolve]").click()
        pa.locator("[data-role=dissolve-vote] [data-action=dissolve-accept]").wait_for()
        win.click()
        pa.locator("[data-role=dissolve-vote] [data-action=dissolve-accept]").click()
        for p in (pa, pb):
            end = p.locator(HAND_END)
            expect(end.locator("[data-role=dissolved-settled]")).to_contain_text("照常结算")
            expect(end.locator("[data-role=winner]")).to_contain_text("甲")
            assert end.locator("[data-role=dissolved]").count() == 0
            assert p.locator("[data-role=dissolved]").count() == 0
            assert p.locator(DECISIONS).count() == 0
        wa.close()
        wb.close()


def two_accounts_ready(
    srv: Server, br: Browser, names: tuple[str, str], locale: str, **table: Any
) -> tuple[Watched, Watched]:
    """Two new accounts (10,000 silver each) at a new private table of two hands with two
    bots (``table``: its stakes), both ready: (the first's page, a phone held sideways in
    ``locale``; the second's, a desktop in English)."""
    a, b = (
        srv.http("POST", "/api/accounts", {"name": n, "password": "long enough"})["token"]
        for n in names
    )
    tid = srv.table(a, bots=2, private=True, hands=2, **table)
    code = srv.http("GET", f"/api/tables/{tid}", token=a)["code"]
    wa, wb = Watched(br, locale, 844, 390, mobile=True), Watched(br, "en-US")
    return both_ready(srv, (wa, a, str(tid)), (wb, b, code))


def both_ready(
    srv: Server, first: tuple[Watched, str, str], second: tuple[Watched, str, str]
) -> tuple[Watched, Watched]:
    """Each page (its token, the table's id or code) at the table, the first seated first;
    both press 准备: (the two pages)."""
    (wa, a, ref_a), (wb, b, ref_b) = first, second
    wa.page.goto(f"{srv.base}/?token={a}&table={ref_a}")
    wa.page.locator("[data-role=waiting-room]").wait_for()
    wb.page.goto(f"{srv.base}/?token={b}&table={ref_b}")
    for p in (wb.page, wa.page):
        p.locator("[data-role=waiting-room] [data-action=ready]").click()
    return wa, wb


def test_the_discarder_is_not_told_it_is_its_turn_while_others_may_claim(
    tmp_path_factory: pytest.TempPathFactory,
    browser: Browser,  # noqa: F811
) -> None:
    """甲 (the dealer) discards the 5p that 乙 may chow: while 乙 decides, 甲's centre says
    等待其他玩家… beside the discard, not 轮到你出牌 (its own turn's state is the last it may
    be shown, R12, and that turn is answered)."""
    from tests.test_audit_server import wall

    with serving(
        tmp_path_factory.mktemp("webdiscarder"), [wall(True, False)], opening_ms=SHORT_OPENING_MS
    ) as srv:
        wa, wb = two_ready_at_a_private_table(srv, browser, Watched(browser, "zh-CN"))
        pa, pb = wa.page, wb.page
        expect(pa.locator(".turn-line").last).to_contain_text("轮到你出牌")  # the opening over
        five = pa.locator("[data-role=hand] [data-tile='5p']:not(.disabled)").first
        five.click()
        expect(pa.locator("[data-role=hand] .selected")).to_have_count(1)
        five.click()
        expect(pb.locator(f"{ACTIONS}[data-action=chow]").first).to_be_visible()
        line = pa.locator(".turn-line").last
        expect(line).to_contain_text("等待其他玩家")
        assert "轮到你" not in line.inner_text()
        pb.locator(f"{ACTIONS}[data-action=pass]").click()
        expect(pa.locator(".turn-line").last).not_to_contain_text("等待其他玩家")
        wa.close()
        wb.close()


def test_a_table_for_silver_fits_a_phone_held_sideways_in_english(
    tmp_path_factory: pytest.TempPathFactory,
    browser: Browser,  # noqa: F811
) -> None:
    """Two accounts at a table for silver, in English at 844×390 and 667×375: the stakes
    note ("1 silver/point · fee 0 · escape penalty 8", the lobby's words: it said "leaving
    costs 8" where the lobby says "escape penalty") keeps to two lines in the corner (three
    short ones at 667×375), its escape penalty shown, and the whole table — your hand at the
    foot — is on the screen. It took three lines there, and
    the table ran 19 px past the foot, the hand cut off (the practice table's note is short,
    and fitted)."""
    with serving(
        tmp_path_factory.mktemp("webstakesen"), [MAIN_WALL], opening_ms=SHORT_OPENING_MS
    ) as srv:
        wa, wb = two_accounts_ready(srv, browser, ("Afu", "Lin"), "en-US", stake=1)
        pa = wa.page
        pa.locator("[data-role=hand] [data-tile]").first.wait_for()
        stakes = pa.locator("[data-role=table-stakes]")
        expect(stakes).to_contain_text("escape penalty 8")
        assert "escape penalty 8" in (stakes.get_attribute("title") or "")
        for width, height in ((844, 390), (667, 375)):
            pa.set_viewport_size({"width": width, "height": height})
            g = pa.evaluate(
                """() => { const s = document.querySelector('[data-role=table-stakes]');
                const tiles = [...document.querySelectorAll('[data-role=hand] [data-tile]')];
                const cs = getComputedStyle(s);
                return { scroll: document.documentElement.scrollHeight, inner: innerHeight,
                  align: cs.textAlign, rule: cs.borderTopStyle,
                  lineH: parseFloat(cs.lineHeight) || 14,
                  stakesH: s.getBoundingClientRect().height,
                  stakesBottom: s.getBoundingClientRect().bottom,
                  penaltyBottom: [...s.querySelectorAll('.term')].pop().getBoundingClientRect().bottom,
                  handBottom: Math.max(...tiles.map(t => t.getBoundingClientRect().bottom)) }; }"""
            )
            where = f"{width}×{height}: {g}"
            # the escape penalty is read at the table (it was clipped under the corner's two
            # lines, the note as narrow as 快捷语)
            assert g["penaltyBottom"] <= g["stakesBottom"] + 1, where
            assert g["scroll"] <= g["inner"] + 1, where
            assert g["handBottom"] <= g["inner"] + 0.5, where
            # two lines at most where the note has its corner's width, three in the smaller
            # type where it is as narrow as 快捷语
            lines = 2.6 if width >= 800 else 3.6
            assert g["stakesH"] <= lines * g["lineH"], where
            # in its corner, to the right, on no rule (the log's divider once took its
            # style: centred under a thin line)
            assert g["align"] == "right" and g["rule"] == "none", where
        wa.close()
        wb.close()


def test_a_match_ended_by_a_seat_short_of_silver_says_who(
    tmp_path_factory: pytest.TempPathFactory,
    browser: Browser,  # noqa: F811
) -> None:
    """Two accounts sit with exactly the table's minimum (their grant); 甲, the dealer,
    declares 天胡 (a stacked wall) and 乙 pays: below the minimum, 乙 cannot play on, so the
    match ends after the hand (docs/economy.md, "Between hands"). Both end screens name 乙
    under the standings, in a phone held sideways and on a desktop, and offer no next hand."""
    from tests.test_audit_server import heaven_wall

    with serving(
        tmp_path_factory.mktemp("webshort"), [heaven_wall()], opening_ms=SHORT_OPENING_MS
    ) as srv:
        stakes = {"stake": 1000, "cap": 10, "min_balance": 10_000}  # the grant, exactly
        wa, wb = two_accounts_ready(srv, browser, ("甲甲", "乙乙"), "zh-CN", **stakes)
        pa, pb = wa.page, wb.page
        pa.locator(f"{ACTIONS}[data-action=win]").click()
        for p, line in ((pa, "乙乙 银子不足本桌最低限额，牌局结束"), (pb, "乙乙: less silver")):
            end = p.locator(HAND_END)
            expect(end.locator("[data-role=short-of-silver]")).to_contain_text(line)
            expect(end.locator("[data-role=winner]")).to_contain_text("甲甲")
            assert end.locator("[data-action=ready]").count() == 0
            expect(end.locator("[data-action=back-to-lobby]")).to_be_visible()
            # the table is closed: nothing left to dissolve, nobody to chat with
            p.locator("[data-role=hand-end][data-closed]").wait_for()
            expect(p.locator("[data-action=dissolve], [data-action=chat]")).to_have_count(0)
        # under the standings, each player's own silver over the match (match_end's silver)
        won, lost = (p.locator(f"{HAND_END} [data-role=match-silver]") for p in (pa, pb))
        expect(won).to_have_count(1)
        expect(won).to_have_text(re.compile(r"^本场银子 \+[\d,]+（服务费 [\d,]+）$"))
        expect(lost).to_have_text(re.compile(r"^Silver this match [−-][\d,]+ \(fees [\d,]+\)$"))
        assert int(won.get_attribute("data-change") or 0) > 0
        assert int(lost.get_attribute("data-change") or 0) < 0
        wa.close()
        wb.close()


def test_service_worker_caches_the_static_files(server: Server, browser: Browser) -> None:  # noqa: F811
    """sw.js takes over the page and keeps the static files (css, js, the tile font) in its
    versioned cache; the API is never cached."""
    w = Watched(browser, "zh-CN", 844, 390, mobile=True)
    pg = w.page
    pg.goto(server.base + "/")
    pg.wait_for_function(
        "() => navigator.serviceWorker && navigator.serviceWorker.controller"
        " || navigator.serviceWorker.ready.then(() => true)"
    )
    pg.reload()
    pg.wait_for_function("() => !!navigator.serviceWorker.controller")
    cached = pg.evaluate(
        """async () => { const out = [];
        for (const k of await caches.keys()) for (const r of await (await caches.open(k)).keys())
          out.push(k + ' ' + new URL(r.url).pathname);
        return out; }"""
    )
    names = {c.split(" ")[0] for c in cached}
    paths = {c.split(" ")[1] for c in cached}
    assert len(names) == 1 and next(iter(names)).startswith("fjmj-static-v"), names
    assert {"/css/style.css", "/js/app.js", "/js/table.js"} <= paths, paths
    assert not any(p.startswith("/api/") for p in paths), paths
    w.close()


# Seat 2 (a bot) is dealt three of the gold (5m: the tail's first tile is the indicator) and
# declares 三金倒 in opening window A (RULES.md R7, "the opening windows"), before anybody
# discards: the hand is over at its opening. The rest is tests/test_web.py's MAIN_WALL.
THREE_GOLDS_WALL = stacked(
    {
        0: "2344677899m 1258p 234s",
        1: "23689m 13378p 111579s",
        2: "13555m 2255679p 3466s",
        3: "34679m 1234889p 2389s",
    },
    "2s 5s 7p 2m 1m 6p 5s 1m 9p 7m 4p 5s 6p 7p 1p 1m 6p 6s 3p 4p 2m 8s 1s 8s",
    "5m 3s 6s 4m",
)


@pytest.mark.parametrize(("width", "height"), [(844, 390)], ids=["landscape"])
def test_a_hand_over_at_its_opening_shows_its_table_first(
    tmp_path_factory: pytest.TempPathFactory,
    browser: Browser,  # noqa: F811
    width: int,
    height: int,
) -> None:
    """A bot's 三金倒 in opening window A ends the hand before any discard (and, the window
    being private, R12, the others are shown the hand only once it is over): the page still
    plays the hand's opening, then shows the square table — four seats on their edges, the
    gold, our tiles, the win named in the centre — for a while (END_HOLD_MS, 2.5 s, in
    table.js) before the result covers it, as the tables players know show a win on the table
    first. Timed in the page: when the table was first in view without the opening card, and
    when the result came."""
    with serving(tmp_path_factory.mktemp("webthreegolds"), [THREE_GOLDS_WALL]) as srv:
        w, ready = at_a_new_table(srv, browser, "三金", width, height, True)
        pg = w.page
        pg.evaluate(
            """() => { window.__marks = {};
            const look = () => {
              const m = window.__marks, t = performance.now();
              const table = document.querySelector('[data-role=table]');
              if (document.querySelector('[data-role=opening]') && !m.opening) m.opening = t;
              if (table && !document.querySelector('[data-role=opening]') && !m.table) {
                m.table = t;
                m.rels = [...document.querySelectorAll('section.seat[data-seat]')].map(s => s.dataset.rel).sort();
              }
              if (table && table.dataset.phase === 'over' && !m.over) m.over = t;
              if (m.table && m.outcome === undefined) {
                const o = document.querySelector('[data-role=center-outcome]');
                m.outcome = o ? o.textContent : null;
              }
              if (document.querySelector('.end-host') && !m.end) m.end = t;
            };
            new MutationObserver(look).observe(document.body, {subtree: true, childList: true, attributes: true});
            setInterval(look, 20); }"""
        )
        ready.tap()
        pg.locator(HAND_END).wait_for()
        marks = pg.evaluate("window.__marks")
        assert marks.get("opening") and marks.get("table") and marks.get("over"), marks
        assert marks["opening"] < marks["table"], marks  # the deal's opening, shown first
        assert marks["rels"] == ["left", "right", "self", "top"], marks
        # the table stayed in view, the hand over on it, before the result came
        assert marks["end"] - marks["table"] >= 2300, marks
        assert marks["end"] > marks["over"], marks
        assert "三金倒" in (marks["outcome"] or ""), marks  # the win, named on the table
        expect(pg.locator(HAND_END)).to_contain_text("三金倒")
        w.close()


@pytest.fixture(scope="module")
def main_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """MAIN_WALL (tests/test_web.py: seat 0 deals, holds two of the gold, 4m, and its first
    discard, 4s, is claimed by nobody) with a short opening, for the journeys below."""
    with serving(
        tmp_path_factory.mktemp("websquaremain"), [MAIN_WALL], opening_ms=SHORT_OPENING_MS
    ) as s:
        yield s


def a_table_for_silver(
    srv: Server,
    br: Browser,
    names: tuple[str, str],
    locale: str,
    size: tuple[int, int],
    phrases: bool = True,
) -> tuple[Watched, Watched]:
    """Two new accounts at a new table for silver (每分 50 · 服务费 20: the escape penalty
    420) with two bots, both ready: (the first's page, seat 0 and the dealer, a
    desktop in Chinese; the second's, seat 1, a phone held sideways at ``size`` in
    ``locale``; ``phrases``: whether its server offers 快捷语's phrases)."""
    a, b = (
        srv.http("POST", "/api/accounts", {"name": n, "password": "long enough"})["token"]
        for n in names
    )
    tid = srv.table(a, bots=2, hands=2, stake=50, fee=20)
    wa, wb = Watched(br, "zh-CN"), Watched(br, locale, *size, mobile=True)
    if not phrases:
        wb.page.route("**/api/phrases", lambda r: r.fulfill(json=[]))
    return both_ready(srv, (wa, a, str(tid)), (wb, b, str(tid)))


def test_a_long_dealers_name_leaves_the_rivers_in_front_of_their_seats(
    main_server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """Held sideways in English, the centre says "Dealer Left (prev) WidePlayerOfFuzhou" (上家
    deals): the centre stays within the room between the side rivers (its lines wrap), and
    上家's river, a discard in it, stays in front of its panel, as 下家's does, at 740×360,
    667×375 and 844×390. The centre grew with that line, and pushed both rivers under their
    panels (by 30 px at 740×360)."""
    wa, wb = a_table_for_silver(
        main_server, browser, ("WidePlayerOfFuzhou", "Lin"), "en-US", (740, 360)
    )
    pa, pb = wa.page, wb.page
    expect(pa.locator("[data-action=discard]")).to_be_visible()
    discard_rightmost(pa)  # MAIN_WALL: 4s, which nobody claims
    # our turn: 上家's river holds its discard
    expect(pb.locator("[data-action=discard]")).to_be_visible()
    left = pb.locator("section.seat[data-rel=left]")
    expect(left.locator("[data-role=river] [data-tile]")).to_have_count(1)
    expect(left.locator(".badge.dealer")).to_have_count(1)
    expect(pb.locator("[data-role=dealer]")).to_have_text("Dealer Left (prev) WidePlayerOfFuzhou")
    for width, height in ((740, 360), (667, 375), (844, 390)):
        pb.set_viewport_size({"width": width, "height": height})
        g = pb.evaluate(GEOMETRY)
        at = f"{width}×{height}"
        for rel in ("left", "right"):
            s = g["seats"][rel]
            assert overlap(s["panel"], s["river"]) <= 16, (at, rel, s)
            assert overlap(g["center"], s["river"]) <= 16, (at, rel, g["center"], s["river"])
        hand = g["hand"]
        assert hand["y"] + hand["h"] <= height - 4, (at, "the hand is on the screen's edge", hand)
        assert g["scroll"] == [width, height], (at, g["scroll"])
    wa.close()
    wb.close()


def test_the_stakes_note_shows_the_escape_penalty_without_buttons_under_it(
    main_server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """A table for silver (每分 50 银子 · 服务费 20 · 逃跑扣 420) held sideways in Chinese at
    740×360 and 667×375, from a server that offers no 快捷语 phrases (nothing under the note
    in its corner): the note keeps each term whole, in three lines at most, the escape
    penalty read, and the hand on the screen. The note took the width of the buttons under
    it, none: a term to a line or less ("每分 50" / "银子"), the penalty cut off after the
    third."""
    wa, wb = a_table_for_silver(
        main_server, browser, ("甲甲甲", "乙乙乙"), "zh-CN", (740, 360), phrases=False
    )
    pb = wb.page
    pb.locator("[data-role=hand] [data-tile]").first.wait_for()
    stakes = pb.locator("[data-role=table-stakes]")
    expect(stakes).to_contain_text("逃跑扣 420")
    assert pb.locator("[data-action=chat]").count() == 0
    for width, height in ((740, 360), (667, 375)):
        pb.set_viewport_size({"width": width, "height": height})
        g = pb.evaluate(
            """() => { const s = document.querySelector('[data-role=table-stakes]');
            const b = s.getBoundingClientRect(), lh = parseFloat(getComputedStyle(s).lineHeight);
            const terms = [...s.querySelectorAll('.term')].map(t => {
              const r = document.createRange(); r.selectNodeContents(t);
              return {lines: r.getClientRects().length, bottom: t.getBoundingClientRect().bottom}; });
            const tiles = [...document.querySelectorAll('[data-role=hand] [data-tile]')];
            return {bottom: b.bottom, lines: b.height / lh, terms,
              hand: Math.max(...tiles.map(t => t.getBoundingClientRect().bottom))}; }"""
        )
        at = f"{width}×{height}: {g}"
        assert all(t["lines"] == 1 for t in g["terms"]), at
        assert g["terms"][-1]["bottom"] <= g["bottom"] + 0.5, at  # the penalty, not clipped
        assert g["lines"] <= 3.05, at
        assert g["hand"] <= height - 4, at
    wa.close()
    wb.close()


def test_a_hand_over_after_a_gold_discarded_keeps_your_hand_and_standings_whole(
    main_server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """At 844×390 we (WidePlayerFromFuzhou, the dealer) discard a gold (4m, MAIN_WALL), so the
    status says 你打过金 and our panel 打过金, and hand the rest to 托管: the finished table,
    held before the result (END_HOLD_MS; the page's clock stopped, so it stays), shows our
    hand whole above the screen's foot — the scores shown at the end put ours on a third
    line of our panel, and the hand's foot went 3 px under the screen. Then the one-hand
    match's standings at 667×375: each entry on one line inside its column and its card
    (the name cut with …, the points whole); "WidePlayerFromFuzhou：0" ran past both."""
    tok = main_server.guest("WidePlayerFromFuzhou")
    tid = main_server.table(tok)
    w = Watched(browser, "zh-CN", 844, 390, mobile=True)
    pg = w.page
    pg.clock.install()
    pg.goto(f"{main_server.base}/?token={tok}&table={tid}")
    pg.locator("[data-action=ready]").tap()
    expect(pg.locator("[data-action=discard]")).to_be_visible()
    expect(pg.locator("[data-role=opening]")).to_have_count(0)
    # the page's time stops a moment after its table came into view: the end's hold (2.5 s
    # from then) never runs out until it goes on (the waits below poll from outside)
    pg.clock.pause_at((pg.evaluate("Date.now()") + 50) / 1000)
    gold = pg.locator("[data-role=hand] [data-tile='4m']").first
    gold.tap()
    expect(pg.locator("[data-role=hand] .selected")).to_have_count(1)
    gold.tap()
    expect(pg.locator("[data-role=status]")).to_contain_text("你打过金")
    pg.click("[data-role=tuoguan] input")
    expect(pg.locator("[data-role=table]")).to_have_attribute("data-phase", "over")
    expect(pg.locator("[data-role=seat-total]")).to_have_count(4)  # the scores are in
    g = pg.evaluate(
        """() => { const tiles = [...document.querySelectorAll('[data-role=hand] [data-tile]')];
        const grid = document.querySelector('#app > .table-grid');
        return {hand: Math.max(...tiles.map(t => t.getBoundingClientRect().bottom)),
          grid: [grid.scrollHeight, grid.clientHeight], status: document.querySelector('[data-role=status]').textContent}; }"""
    )
    assert "你打过金" in g["status"], g
    assert g["hand"] <= 390 - 4, f"the finished table cuts your hand's foot: {g}"
    assert g["grid"][0] <= g["grid"][1] + 1, g
    pg.clock.resume()
    end = pg.locator(HAND_END)
    end.locator("[data-role=match-end] li").first.wait_for()
    pg.locator("[data-role=hand-end][data-closed]").wait_for()
    pg.set_viewport_size({"width": 667, "height": 375})
    entries = pg.evaluate(
        """() => { const card = document.querySelector('[data-role=hand-end]').getBoundingClientRect();
        return [...document.querySelectorAll('[data-role=match-end] li')].map(li => {
          const b = li.getBoundingClientRect(), em = parseFloat(getComputedStyle(li).fontSize);
          return {text: li.textContent, lines: b.height / em, over: li.scrollWidth - li.clientWidth,
            left: b.left, right: b.right, top: b.top, card: card.right,
            // where its number ("2.") begins, left of it
            marker: b.left - 1.2 * em}; }); }"""
    )
    assert len(entries) == 4, entries
    for e in entries:
        # one line (a line is about 1.4 of the type's size), inside its column and the card
        assert e["lines"] < 1.8 and e["over"] <= 0 and e["right"] <= e["card"] + 0.5, entries
        # clear of the number of the entry beside it, in the next column
        for f in entries:
            if f["left"] > e["right"] and abs(f["top"] - e["top"]) < 2:
                assert e["right"] <= f["marker"], (e, f)
    w.close()


def test_a_private_tables_corner_leaves_your_hand_and_the_stakes_note_whole(
    main_server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """A private table for silver (每分 50 银子 · 服务费 20 · 逃跑扣 420: 快捷语 and 解散 in
    the top-right corner under the stakes note), 上家 the dealer with a long name, held
    sideways at 740×360 and 844×390, in Chinese and then, by the 中文/English button, in
    English: your hand's foot is on the screen, the page does not scroll, and the note shows
    its last term (the escape penalty). 快捷语 and 解散 stood one above the other there, the
    top rows grew, and the hand went under the foot of the screen (at 740×360 wholly); at
    844×390 the note lost its penalty. The language switch redraws the note at once: it
    stayed in Chinese until the next message."""
    a, b = (
        main_server.http("POST", "/api/accounts", {"name": n, "password": "long enough"})["token"]
        for n in ("WidePlayerOfQuanzhou", "Chen")
    )
    tid = main_server.table(a, bots=2, private=True, hands=2, stake=50, fee=20)
    code = main_server.http("GET", f"/api/tables/{tid}", token=a)["code"]
    wa, wb = Watched(browser, "zh-CN"), Watched(browser, "zh-CN", 740, 360, mobile=True)
    pa, pb = wa.page, wb.page
    pa.goto(f"{main_server.base}/?token={a}&table={tid}")
    pa.locator("[data-role=waiting-room]").wait_for()
    pb.goto(f"{main_server.base}/?token={b}&table={code}")
    for p in (pb, pa):
        p.locator("[data-role=waiting-room] [data-action=ready]").click()
    expect(pa.locator("[data-action=discard]")).to_be_visible()
    discard_rightmost(pa)  # MAIN_WALL: 4s, which nobody claims
    # our turn (nothing more comes from the server until we discard)
    expect(pb.locator("[data-action=discard]")).to_be_visible()
    expect(pb.locator("[data-role=dealer]")).to_contain_text("WidePlayerOfQuanzhou")
    for action in ("chat", "dissolve"):
        expect(pb.locator(f".social-wrap [data-action={action}]")).to_be_visible()
    stakes = pb.locator("[data-role=table-stakes]")
    expect(stakes).to_contain_text("逃跑扣 420")
    for lang, last in (("zh", "逃跑扣 420"), ("en", "escape penalty 420")):
        if lang == "en":
            pb.set_viewport_size({"width": 740, "height": 360})
            pb.locator("#app .bar [data-role=lang]").click()
            # at once, not at the next message (none comes while we think)
            assert last in (stakes.text_content() or ""), stakes.text_content()
            assert (
                pb.locator(".social-wrap [data-action=dissolve]").text_content() or ""
            ) != "解散"
        for width, height in ((740, 360), (844, 390)):
            pb.set_viewport_size({"width": width, "height": height})
            g = pb.evaluate(
                """() => { const s = document.querySelector('[data-role=table-stakes]');
                const b = s.getBoundingClientRect();
                const terms = [...s.querySelectorAll('.term')];
                const tiles = [...document.querySelectorAll('[data-role=hand] [data-tile]')];
                return {note: [b.top, b.bottom], fill: [s.scrollHeight, s.clientHeight],
                  last: terms[terms.length - 1].getBoundingClientRect().bottom,
                  lastText: terms[terms.length - 1].textContent,
                  hand: Math.max(document.querySelector('[data-role=hand]').getBoundingClientRect().bottom,
                    ...tiles.map(t => t.getBoundingClientRect().bottom)),
                  scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight]}; }"""
            )
            at = f"{lang} {width}×{height}: {g}"
            assert g["lastText"] == last.split(" · ")[-1], at
            assert g["hand"] <= height, at  # your hand's foot on the screen
            assert g["scroll"] == [width, height], at
            assert g["fill"][0] <= g["fill"][1] + 1, at  # the note is not cut
            assert g["last"] <= g["note"][1] + 0.5, at  # its escape penalty read
    wa.close()
    wb.close()


# the replay's verdict at this step, measured in the frame it is drawn in: whether its words
# are cut (each part's and the whole line's scroll width over its box), its box, the header's
# other items, and the board's top and the page's scroll
VERDICT = """() => { const v = document.querySelector('[data-role=decision-verdict]');
  const r = e => { const b = e.getBoundingClientRect(); return {x: b.x, y: b.y, w: b.width, h: b.height}; };
  const board = document.querySelector('[data-role=replay-board]');
  return {frame: document.querySelector('[data-role=replay]').dataset.frame,
    verdict: v && {box: r(v), text: v.textContent, agree: v.dataset.agree,
      cut: Math.max(...[v, ...v.querySelectorAll('.vpart')].map(e => e.scrollWidth - e.clientWidth)),
      cutY: v.scrollHeight - v.clientHeight},
    others: [...document.querySelectorAll('.bar > :not(.grow):not([data-role=decision-verdict])')].map(r),
    bar: r(document.querySelector('.bar')), board: r(board),
    scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    view: [innerWidth, innerHeight]}; }"""


def test_the_replays_verdict_is_whole_on_a_phone_held_sideways(
    main_server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """The replay of a hand of MAIN_WALL played by 托管, reviewed from seat 0, held sideways
    at 844×390, 740×360 and 667×375 in both languages: at every step with a decision of
    seat 0 its verdict ("✗ 机器人：碰 · 实际：过", "✓ Played: Discard 2 Characters") is
    whole — no word cut — inside the screen, over none of the header's links and buttons,
    the header one row above the board, which still ends at the screen's foot. It stood in the board's
    centre, as narrow as the gold's box, cut with …: by 20 px in Chinese at 740×360 and up
    to 95 px in English at 667×375 (16 px at 844×390)."""
    hid = hand_under_tuoguan(main_server, browser)
    review = main_server.http("GET", f"/api/hands/{hid}/review?seat=0")
    frames = {d["frame"] for d in review["decisions"]}
    last = len(main_server.http("GET", f"/api/hands/{hid}/replay")["frames"]) - 1
    for locale in ("en-US", "zh-CN"):
        w = Watched(browser, locale, 844, 390, mobile=True)
        pg = w.page
        pg.goto(f"{main_server.base}/?replay={hid}&seat=0")
        pg.locator("[data-role=replay-board]").wait_for()
        step = pg.locator("[data-role=replay]")
        for width, height in ((844, 390), (740, 360), (667, 375)):
            pg.set_viewport_size({"width": width, "height": height})
            if step.get_attribute("data-frame") != "0":
                pg.click("[data-role=replay-first]")
            seen, cut, placed = set(), [], []
            for i in range(last + 1):
                if i:
                    pg.keyboard.press("ArrowRight")
                expect(step).to_have_attribute("data-frame", str(i))
                g = pg.evaluate(VERDICT)
                at = f"{locale} {width}×{height} step {i}: {g}"
                v = g["verdict"]
                assert (v is not None) == (i in frames), at
                # the header one row: the board under it still ends at the screen's foot
                # (the review and the narration are below it, by scrolling)
                assert g["scroll"][0] == width, at
                board = g["board"]
                assert board["y"] >= g["bar"]["y"] + g["bar"]["h"] - 0.5, at
                assert board["y"] + board["h"] <= height + 0.5, at
                if not v:
                    continue
                seen.add(v["agree"])
                b = v["box"]
                if v["cut"] > 0 or v["cutY"] > 0:  # every word of it shown
                    cut.append((i, v["text"], v["cut"], v["cutY"]))
                # inside the screen, over none of the header's other items, above the board
                # (the review below it is off the screen)
                if not (
                    b["x"] >= 0
                    and b["x"] + b["w"] <= width + 0.5
                    and all(overlap(b, o) == 0 for o in g["others"])
                    and b["y"] >= 0
                    and b["y"] + b["h"] <= board["y"] + 0.5
                ):
                    placed.append((i, b, g["others"]))
            where = f"{locale} {width}×{height}"
            assert cut == [], f"{where}: the verdict cut (step, text, px): {cut}"
            assert placed == [], f"{where}: the verdict out of place: {placed}"
            # MAIN_WALL's hand under 托管: seat 0 both agrees with the bot and differs
            assert seen == {"0", "1"}, (locale, width, seen)
        w.close()


def test_a_spectator_sees_the_table_as_large_as_a_player_does(
    server: Server,
    browser: Browser,  # noqa: F811
) -> None:
    """A spectator at a phone held sideways (844×390, 740×360, 667×375) watches the player's
    table of TABLE_WALL, at the chow 上家's 2p offers: the same square as the player's page at
    the same size (check_square: seats on the edges, rivers in front of them, nothing over
    anything or scrolling), the watched seat's concealed tiles along the bottom as backs as
    wide as the player's hand tiles, and river and meld tiles as wide as the player's; in
    English too. The spectator's bottom row was the watched seat's panel with 10 px backs
    over empty felt where a hand stands (33 px at 844×390): the table looked a size smaller."""
    w, ready = at_a_new_table(server, browser, "被看者", 844, 390, True)
    pg = w.page
    tid = int(parse_qs(urlparse(pg.url).query)["table"][0])
    ready.tap()
    expect(pg.locator("[data-action=discard]")).to_be_visible()
    spec = Watched(browser, "zh-CN", 844, 390, mobile=True)
    sp = spec.page
    sp.goto(f"{server.base}/?token={server.guest('看客')}&table={tid}&as=spectator")
    sp.locator("[data-role=table]").wait_for()
    play_to_the_chow(pg)
    # the spectator has the table as it was before 上家's discard was open to claims (R12):
    # every seat's discards so far in the rivers, and an opponent's meld face up
    expect(
        sp.locator("section.seat:not([data-rel=self]) [data-role=melds] [data-tile]")
    ).not_to_have_count(0)
    expect(
        sp.locator("section.seat[data-rel=self] [data-role=river] [data-tile]")
    ).not_to_have_count(0)
    count = "document.querySelector('section.seat[data-rel=self] [data-role=concealed-count]')"
    for width, height in ((844, 390), (740, 360), (667, 375)):
        for p in (pg, sp):
            p.set_viewport_size({"width": width, "height": height})
        mine = pg.evaluate(GEOMETRY)
        # the backs and the count they stand for, read together (the hand may move on)
        theirs, concealed = sp.evaluate(f"() => [({GEOMETRY})(), {count}.textContent]")
        at = f"{width}×{height}: player {mine['hand_w'][:1]} {mine['river_w'][:1]}, spectator {theirs}"
        backs = theirs["hand_w"]
        assert backs, f"no backs where a player's hand stands ({at})"
        check_square(theirs, True)
        assert backs and len(backs) == int(re.findall(r"\d+", concealed or "")[0]), at
        assert min(backs) >= min(mine["hand_w"]) - 0.5, at
        assert min(theirs["river_w"]) >= min(mine["river_w"]) - 0.5, at
        assert min(theirs["meld_w"]) >= min(mine["meld_w"]) - 0.5, at
    sp.click("[data-role=lang]")
    expect(sp.locator("[data-role=lang]")).to_have_text("中文")
    for width, height in ((844, 390), (667, 375)):
        sp.set_viewport_size({"width": width, "height": height})
        check_square(sp.evaluate(GEOMETRY), True)
    spec.close()
    w.close()
