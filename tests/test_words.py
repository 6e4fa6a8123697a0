"""Words a player reads (STYLE.md: one vocabulary; docs/web.md, docs/terminal.md).

- the hint and review reasons of the 普通 (``heuristic``) and the 高手 (``strong``) name
  other seats by their relation to the seat being advised (上家/对家/下家, "the player on
  your left/opposite/right"), never ``N 号位`` / ``seat N``; name tiles as the table does
  (五饼 / 5 Dots), never in notation (5饼, 5p); never compare a tile with itself; and a
  defence reason says what it fears and by how much;
- the browser's ``tileName`` (web/js/tiles.js) and the Python side (``i18n.tile_name``)
  name every tile alike;
- English second person takes the base verb ("You pong", never "You pongs");
- the replay's narration names the profile by its title, the dice as numbers, payments
  per named seat, and tiles as the table does;
- the 算分 breakdown has no formula symbols ("(fl)", "(mk)", "(G)", "(H)");
- the terminal client names the profile by its title.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fujian_mahjong import i18n
from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.bots.base import Decision
from fujian_mahjong.bots.strong import STRONG_THREAT, StrongBot
from fujian_mahjong.engine import Game
from fujian_mahjong.engine.narrate import narrate
from fujian_mahjong.server.web_api import build_replay
from fujian_mahjong.tiles import KIND_STR, parse

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ("fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming")
ZH_NOTATION = re.compile(r"[1-9][万饼条]")  # 5饼: the terminal's cells, not words
EN_NOTATION = re.compile(r"\b[1-9][mpsz]\b")  # 5p
SEAT_NUMBER = re.compile(r"号位|\b[Ss]eat \d")
# the tile a reason compares with: "不打 X" / "比 X" / "not X" / "than X"
ZH_OTHER = re.compile(r"(?:不打|比) (\S+?)(?=[ ,:;—)]|$)")
TILE_EN = r"(?:[1-9] (?:Characters?|Dots?|Bamboo)|(?:East|South|West|North) wind|(?:Red|Green|White) dragon)"
EN_OTHER = re.compile(rf"(?:not|than) (?:discard )?({TILE_EN})")


def _tile_words(k: int) -> tuple[str, str]:
    return i18n.tile_name(k, "en"), i18n.tile_name(k, "zh")


def check_reason(d: Decision) -> None:
    """One decision's reasons in both languages, as a player reads them."""
    en, zh = d.reason, d.reason_zh
    assert en and zh, d
    for text in (en, zh):
        assert not SEAT_NUMBER.search(text), text
    assert not ZH_NOTATION.search(zh), zh
    assert not EN_NOTATION.search(en), en
    assert not re.search(r"Action\(|discard [1-9][mps]\b", en + zh), (en, zh)
    if d.action.type == "discard":
        me_en, me_zh = _tile_words(d.action.tile)
        # never the chosen tile against itself
        assert me_zh not in ZH_OTHER.findall(zh), zh
        assert me_en not in EN_OTHER.findall(en), en
    if en.startswith(("fold", "defence")):
        # what it fears, by how much
        assert "%" in en or "points" in en, en
        assert "%" in zh or "分" in zh, zh


def _play(profile: str, seed: int, bots: list[HeuristicBot]) -> list[Decision]:
    g = Game.new(profile, seed=seed)
    out = []
    while not g.is_over():
        s = g.to_act()[0]
        d = bots[s].act(g.seat_view(s))
        out.append(d)
        g.apply(s, d.action)
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), profile=st.sampled_from(PROFILES))
def test_the_heuristic_reasons_read_as_a_player_speaks(seed: int, profile: str) -> None:
    """Every decision of whole seeded hands: 普通 at two seats, the 高手's fast bot (which
    defends from a lower threat, so defence reasons are frequent) at the others."""
    bots = [
        HeuristicBot(0),
        HeuristicBot(1, threat=STRONG_THREAT),
        HeuristicBot(2),
        HeuristicBot(3, threat=STRONG_THREAT),
    ]
    for d in _play(profile, seed, bots):
        check_reason(d)


def test_defence_reasons_appear_and_name_no_seat_number() -> None:
    """Over a fixed set of hands the defence and fold reasons do occur (so the checks above
    are not vacuous), each naming the feared seat by relation."""
    seen = 0
    for seed in range(12):
        bots = [HeuristicBot(s, threat=STRONG_THREAT) for s in range(4)]
        for d in _play("fuzhou-tcy", seed, bots):
            check_reason(d)
            if d.reason.startswith(("fold", "defence")):
                seen += 1
                assert re.search(r"上家|对家|下家|有人", d.reason_zh), d.reason_zh
                assert re.search(
                    r"the player (on your left|opposite|on your right)|another player", d.reason
                ), d.reason
    assert seen >= 3


def test_a_defence_reason_names_the_seat_by_relation_and_the_tile_it_avoids() -> None:
    """The stacked position of the bot ladder (tests/test_bot_ladder.py): seat 1, to seat 0's
    right, has three melds and is likely ready; seat 0 folds from 1m to a tile seat 1 threw."""
    from tests.test_bot_ladder import _defence_game

    g = _defence_game()
    d = HeuristicBot().act(g.seat_view(0))
    check_reason(d)
    assert "下家" in d.reason_zh and "the player on your right" in d.reason
    assert "号位" not in d.reason_zh and "seat 1" not in d.reason
    one_m = parse("1m")[0]
    assert d.action.tile != one_m
    # what it avoids, in the table's names, and by how much
    assert f"不打 {i18n.tile_name(one_m, 'zh')}" in d.reason_zh, d.reason_zh
    assert f"not {i18n.tile_name(one_m, 'en')}" in d.reason, d.reason
    assert re.search(r"\d+%", d.reason_zh) and re.search(r"\d+%", d.reason)


def test_the_strong_bot_reasons_read_as_a_player_speaks() -> None:
    """The 高手 (search, ready-hand and self-draw layers) over seeded hands: a small search
    budget and no wall-clock deadline keep it quick and deterministic."""
    for seed in range(2):
        g = Game.new("fuzhou-tcy", seed=f"words-{seed}")
        bots = [
            StrongBot(f"w{seed}:{s}", max_rollouts=64, min_worlds=8, deadline_s=None)
            for s in range(4)
        ]
        while not g.is_over():
            s = g.to_act()[0]
            d = bots[s].act(g.seat_view(s))
            check_reason(d)
            g.apply(s, d.action)


def test_the_strong_bot_search_and_defence_reasons_say_what_they_avoid() -> None:
    """The 高手's search and its defence layer on the position of tests/test_strong_bot.py
    (9p deals in): each says the tile it avoids in the table's words, never itself."""
    from fujian_mahjong.bots.heuristic_v1 import HeuristicV1Bot
    from tests.test_strong_bot import _position

    v = _position().seat_view(0)
    nine_p = parse("9p")[0]
    en9, zh9 = _tile_words(nine_p)
    search = StrongBot(
        "fold", base=HeuristicV1Bot(), alpha=None, screen=0.0, max_rollouts=480, deadline_s=None
    )
    layer = StrongBot("fold", base=HeuristicV1Bot(), alpha=3.0, screen=1e9)
    for bot in (search, layer):
        d = bot.act(v)
        check_reason(d)
        assert d.action.tile != nine_p
        assert f"不打 {zh9}" in d.reason_zh and f"not {en9}" in d.reason, d
        assert "discard 9p" not in d.reason and "9饼" not in d.reason_zh


@pytest.mark.parametrize(
    ("n", "rels"),
    [
        (4, ["下家", "对家", "上家"]),
        (3, ["下家", "上家"]),
        (2, ["对家"]),
    ],
)
def test_seats_by_relation(n: int, rels: list[str]) -> None:
    """R2: 下家 plays after the advised seat, 上家 before it, 对家 across."""
    from fujian_mahjong.bots.heuristic import seat_words

    for me in range(n):
        got = [seat_words(me, (me + d) % n, n)[1] for d in range(1, n)]
        assert got == rels
    assert seat_words(0, 1, 4)[0] == "the player on your right"
    assert seat_words(0, 3, 4)[0] == "the player on your left"
    assert seat_words(0, 2, 4)[0] == "the player opposite"


# ---------------------------------------------------------------------------- tile names


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_browser_and_python_name_every_tile_alike() -> None:
    src = ROOT / "src" / "fujian_mahjong" / "web" / "js" / "tiles.js"
    kinds = json.dumps(list(KIND_STR))
    script = (
        f"import {{ tileName }} from {json.dumps(src.as_uri())};"
        f"const ks = {kinds};"
        "console.log(JSON.stringify(ks.map((k) => [tileName(k, 'zh'), tileName(k, 'en')])));"
    )
    p = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    js = json.loads(p.stdout)
    py = [[i18n.tile_name(k, "zh"), i18n.tile_name(k, "en")] for k in range(len(KIND_STR))]
    assert js == py
    assert i18n.tile_name(parse("4p")[0], "zh") == "四饼"
    assert i18n.tile_name(parse("4p")[0], "en") == "4 Dots"
    assert i18n.tile_name(parse("9p")[0], "en") == "9 Dots"
    assert i18n.tile_name(parse("1p")[0], "en") == "1 Dot"
    assert i18n.tile_name(parse("1m")[0], "zh") == "一万"


# ---------------------------------------------------------------------------- English grammar


def test_english_second_person_takes_the_base_verb() -> None:
    """The browser's log names its own seat "You": the catalogue has a second-person text
    for each of its lines with a verb (engine.you.*), and no English text says "You pongs"."""
    en = i18n.part("en", "engine")
    zh = i18n.part("zh", "engine")
    for kind in ("discard", "chow", "pong", "kong", "kong_concealed", "flower", "win"):
        key = f"engine.you.{kind}"
        assert key in en and key in zh, key
        assert en[key].startswith("You ") and zh[key].startswith("你"), key
    assert en["engine.you.pong"].format(tile="9 Dots") == "You pong 9 Dots"
    for part in i18n.PARTS:
        for k, v in i18n.part("en", part).items():
            for verb in re.findall(r"\bYou (\w+)", v):
                assert not re.fullmatch(r"\w+[^s]s|\w+es", verb) or verb in ("was",), (k, v)


def test_the_terminal_log_says_you_pong() -> None:
    """The terminal's log (narration named as its seats): "You pong", never "You pongs"."""
    from fujian_mahjong.tui.render import seat_name, you_verbs
    from tests.test_vocabulary import _chow_beaten_by_pong

    g = _chow_beaten_by_pong()
    names = [seat_name(2, s, 4, "en") for s in range(4)]
    lines = [you_verbs(x["text"], "en") for x in narrate(g.events, "en", viewer=2, names=names)]
    assert any(ln.startswith("You pong ") for ln in lines), lines
    assert not any(re.search(r"\bYou \w+s\b", ln) for ln in lines), lines


# ---------------------------------------------------------------------------- the replay


def _finished(seed: int = 3, profile: str = "fuzhou-tcy") -> Game:
    g = Game.new(profile, seed=seed)
    bots = [HeuristicBot(s) for s in range(4)]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    return g


@pytest.mark.parametrize("seed", [3, 11])
def test_the_replay_narration_is_in_words(seed: int) -> None:
    g = _finished(seed)
    names: list[str | None] = ["阿明", "Bot 2", "Bot 3", "Bot 4"]
    out = build_replay(g.events, names)
    lines = [x for f in out["frames"] for x in f["text"]]
    start = next(x for x in lines if x["kind"] == "start")
    assert "福州麻将（同城游）" in start["zh"] and "fuzhou-tcy" not in start["zh"]
    assert "Fuzhou mahjong (Tongchengyou)" in start["en"]
    dice = next(x for x in lines if x["kind"] == "dice")
    a, b = g.events[1]["dice"]
    assert dice["zh"] == f"掷骰 {a} 和 {b}" and dice["en"] == f"Dice {a} and {b}"
    for x in lines:
        assert "[" not in x["zh"] and "[" not in x["en"], x  # no raw lists
        assert not ZH_NOTATION.search(x["zh"]), x["zh"]  # 一万, not 1万
        assert not EN_NOTATION.search(x["en"]), x["en"]
        assert "号位" not in x["zh"] and not re.search(r"\bseat \d", x["en"]), x
    end = [x for x in lines if x["kind"] in ("win", "draw_game")][-1]
    pays = [p for p in (g.win or {}).get("payments", []) if p]
    if pays:
        for s, p in enumerate(g.win["payments"]):  # type: ignore[index]
            if p:
                who = str(names[s])
                assert f"{who} {'+' if p > 0 else '-'}{abs(p)}" in end["zh"], end
                assert f"{who} {'+' if p > 0 else '-'}{abs(p)}" in end["en"], end


# ---------------------------------------------------------------------------- 算分 labels


@pytest.mark.parametrize("profile", PROFILES)
def test_the_breakdown_has_no_formula_symbols(profile: str) -> None:
    """Every term of the 算分 breakdown of won hands in each profile: labels a player reads,
    without the scorer's symbols such as "(fl)", "(mk)", "(G)", "(H)"."""
    terms = 0
    for seed in range(12):
        g = _finished(seed, profile)
        sc = g.score()
        if sc is None:
            continue
        for t in sc.breakdown:
            terms += 1
            for label in (t.zh, t.en):
                assert not re.search(r"\([A-Za-z]{1,3}\)", label), (t.key, label)
    assert terms


# ---------------------------------------------------------------------------- the terminal


@pytest.mark.parametrize(
    ("lang", "title"),
    [("zh", "福州麻将（同城游）"), ("en", "Fuzhou mahjong (Tongchengyou)")],
)
def test_the_terminal_names_the_profile_by_its_title(lang: str, title: str) -> None:
    from fujian_mahjong.tui.app import PlayApp
    from fujian_mahjong.tui.render import status_lines

    app = PlayApp(profile="fuzhou-tcy", seed="words", lang=lang, hands=1)
    head = "\n".join(status_lines(app.view(), 1, [0, 0, 0, 0], lang, width=200))
    assert title in head and "fuzhou-tcy" not in head
    log = "\n".join(app.log_lines(200, 200))
    assert title in log and "fuzhou-tcy" not in log


def test_the_terminal_hint_names_tiles_as_its_hand_row() -> None:
    """The terminal's cells name tiles 5饼 / 5p; a hint's reason follows them."""
    from fujian_mahjong.tui.render import compact_tiles

    assert compact_tiles("防守: 打 五饼, 不打 一万 — 下家可能已听; 两向听", "zh") == (
        "防守: 打 5饼, 不打 1万 — 下家可能已听; 两向听"
    )
    assert compact_tiles("discard 5 Dots, not 1 Character, East wind", "en") == (
        "discard 5p, not 1m, E"
    )
