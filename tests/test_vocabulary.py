"""One vocabulary, one catalogue (STYLE.md; docs/protocol.md "Errors").

- the message catalogue ``web/locale/<lang>/<part>.json``: every part exists in zh and en
  with the same keys and the same placeholders, each key starts with its part, and the
  installed package finds the files (``importlib.resources``); ``i18n.t`` reads ``cli``;
- every error code the server can send (found in its source) has a zh and an en text;
- 放胡 (点炮) is said of the discarder everywhere: the narration (``fjmj replay``, the web
  replay) and the terminal client; a claim that lost to a higher one is narrated as lost,
  never as if it had happened; the replay API names seats as the table does (``Bot 2``);
- tied totals share a rank (the terminal client's standings, ``match_end``'s ``ranks``).
"""

from __future__ import annotations

import ast
import asyncio
import json
import re
import string
from importlib import resources
from pathlib import Path
from typing import Any

from fujian_mahjong import i18n
from fujian_mahjong.engine import Action, Game
from fujian_mahjong.engine.narrate import describe, narrate
from fujian_mahjong.server.web_api import build_replay
from tests.inproc import running, stacked
from tests.test_audit_server import FIVE_P, wall

LOCALE = resources.files("fujian_mahjong").joinpath("web", "locale")
SERVER = Path(__file__).resolve().parent.parent / "src" / "fujian_mahjong" / "server"
CODE = re.compile(r"^[a-z][a-z0-9_]*$")
NOT_CODES = ("ValueError", "TypeError", "KeyError", "RuntimeError", "AssertionError")


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}


# ---------------------------------------------------------------------------- the catalogue


def test_every_part_has_the_same_keys_and_placeholders_in_zh_and_en() -> None:
    prefix = {p: ("error." if p == "errors" else p + ".") for p in i18n.PARTS}
    for part in i18n.PARTS:
        data = {}
        for lang in i18n.LANGS:
            f = LOCALE.joinpath(lang, part + ".json")
            assert f.is_file(), f"{lang}/{part}.json is missing from the package"
            d = json.loads(f.read_text(encoding="utf-8"))
            assert isinstance(d, dict) and all(isinstance(v, str) for v in d.values()), f
            data[lang] = d
            # a placeholder is a plain {name}: the browser (js/i18n.js) fills only those, so
            # a format spec ({n:,}), a conversion ({x!r}) or a doubled brace would not read
            # the same there as in Python's str.format
            for k, v in d.items():
                rest = re.sub(r"\{\w+\}", "", v)
                assert "{" not in rest and "}" not in rest, (lang, part, k, v)
            if part in ("engine", "errors", "tui", "cli"):  # the parts of the Python side
                bad = [k for k in d if not k.startswith(prefix[part])]
                assert not bad, f"{lang}/{part}.json: keys outside the part: {bad[:5]}"
        zh, en = data["zh"], data["en"]
        assert set(zh) == set(en), (
            part,
            sorted(set(zh) - set(en))[:10],
            sorted(set(en) - set(zh))[:10],
        )
        for k in zh:
            assert _fields(zh[k]) == _fields(en[k]), (part, k)


def test_the_owned_parts_are_filled_and_the_cli_reads_them() -> None:
    for part in ("engine", "errors", "tui", "cli"):
        assert i18n.part("zh", part) and i18n.part("en", part), part
    assert i18n.t("hand", "zh") == "手牌" and i18n.t("hand", "en") == "Hand"
    assert i18n.t("more", "en", n=3) == "3 more"
    assert i18n.msg("error.table_full", "zh-CN") == "牌桌已满"
    assert i18n.msg("no.such.key", "en") == "no.such.key"  # never a crash in a UI


def test_no_english_left_in_the_chinese_parts() -> None:
    """A zh text is Chinese: it has a CJK character, or is only placeholders and symbols."""
    for part in ("engine", "errors", "tui", "cli"):
        for k, v in i18n.part("zh", part).items():
            bare = re.sub(r"\{[^}]*\}", "", v)
            words = re.findall(r"[A-Za-z]{3,}", bare)
            allowed = {"fjmj", "play", "seed", "Enter", "ctrl"}
            assert re.search(r"[\u4e00-\u9fff]", bare) or not bare.strip(" ,.:()[]-+，"), (k, v)
            assert set(words) <= allowed, (k, v, words)


def server_codes() -> dict[str, str]:
    """Every error code the server's source can send: the string arguments of its error
    classes (``TableError``, ``ApiError``, ``RoomError``, ``EconomyError``,
    ``ProtocolError``…) and ``conn.error``, ``"code": …`` in messages, ``code = …``, and
    the codes by HTTP status (``STATUS_CODES``)."""
    codes: dict[str, str] = {}

    def consts(n: ast.AST) -> list[str]:
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            return [n.value]
        if isinstance(n, ast.IfExp):
            return consts(n.body) + consts(n.orelse)
        return []

    def add(n: ast.AST, where: str) -> None:
        for c in consts(n):
            if CODE.match(c):
                codes.setdefault(c, where)

    for p in sorted(SERVER.rglob("*.py")):
        if "migrations" in p.parts:
            continue
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            where = f"{p.name}:{getattr(n, 'lineno', 0)}"
            if isinstance(n, ast.Call):
                f = n.func
                fn = (
                    f.id
                    if isinstance(f, ast.Name)
                    else f.attr
                    if isinstance(f, ast.Attribute)
                    else ""
                )
                if (fn.endswith("Error") and fn not in NOT_CODES) or fn in (
                    "error",
                    "StoreUnavailable",
                ):
                    for a in n.args:
                        add(a, where)
                for kw in n.keywords:
                    if kw.arg == "code":
                        add(kw.value, where)
            elif isinstance(n, ast.Dict):
                for k, v in zip(n.keys, n.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value == "code":
                        add(v, where)
            elif isinstance(n, ast.Assign | ast.AnnAssign) and n.value is not None:
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    tn = (
                        t.id
                        if isinstance(t, ast.Name)
                        else t.attr
                        if isinstance(t, ast.Attribute)
                        else ""
                    )
                    if tn == "code":
                        add(n.value, where)
                    if tn == "STATUS_CODES" and isinstance(n.value, ast.Dict):
                        for v in n.value.values:
                            add(v, where)
    return codes


def test_every_server_error_code_has_a_zh_and_an_en_text() -> None:
    codes = server_codes()
    # the scan finds the codes of each kind of error (a sanity check of the scan itself)
    assert {"table_full", "stale", "rate_limited", "no_room", "bad_stakes", "unknown_type"} <= set(
        codes
    )
    for lang in i18n.LANGS:
        errors = i18n.part(lang, "errors")
        missing = {c: w for c, w in codes.items() if f"error.{c}" not in errors}
        assert not missing, f"{lang}/errors.json lacks: {missing}"


# ---------------------------------------------------------------------------- 放胡 = the discarder

NAMES: list[str | None] = ["阿明", "Bot 2", "Bot 3", "Bot 4"]
# Seat 1 waits on 5p (4p6p); seat 3 holds 5p5p. The dealer (seat 0) discards 1m (seat 1
# may rob the gold, 9s, in window B: it passes), then 8p, 1p, 1p go round unclaimed and the
# dealer discards 5p: seat 1 may win or chow, seat 3 may pong.
DEAL_IN = {
    0: "5p1m4m7m2p8p3s6s2s5s8s1p7p4s8m3m9p",
    1: "123m456m789m123s4p6p7s7s",
    2: "2m5m8m3p6p9p1s4s7s2m5m8m3p6p9p1s",
    3: "3m6m9m2p4p7p5p5p5s6s8s3m6m9m4p7p",
}


def _discard(g: Game, seat: int, tile: str) -> None:
    g.apply(seat, Action.from_json({"type": "discard", "tile": tile}))


def _deal_in(pong3: bool = True) -> Game:
    """The dealer deals in: seat 1 wins on its 5p (R6); seat 3 answers pong (``pong3``) or
    passes, and its pong loses to the win."""
    g = Game.from_wall("fuzhou-tcy", stacked(DEAL_IN, draws="8p1p1p2p", tail="9s"), dealer=0)
    _discard(g, 0, "1m")
    assert g.to_act() == [1] and "rob_gold" in {a.type for a in g.legal_actions(1)}
    g.apply(1, Action("pass"))
    for seat, tile in ((1, "8p"), (2, "1p"), (3, "1p")):
        _discard(g, seat, tile)
        assert g.phase == "turn", "nobody may claim it"
    _discard(g, 0, "5p")
    assert g.to_act() == [1, 3]
    g.apply(3, Action("pong" if pong3 else "pass"))
    g.apply(1, Action("win"))
    assert g.win is not None and g.win["winner"] == 1 and g.win["discarder"] == 0
    return g


def test_fang_hu_names_the_discarder_in_the_narration() -> None:
    g = _deal_in()
    w = g.win
    assert w is not None and w["win"] == "discard" and w["discarder"] != w["winner"]
    names = NAMES
    win = next(e for e in g.events if e["type"] == "win")
    zh = describe(win, "zh", names=names) or ""
    en = describe(win, "en", names=names) or ""
    winner, dealer_in = str(names[w["winner"]]), str(names[w["discarder"]])
    assert zh.startswith(f"{winner} 胡 ") and f"（{dealer_in} 放胡）" in zh, zh
    assert not zh.startswith(f"{winner} 放胡")
    assert en.startswith(f"{winner} wins on a discard") and f"({dealer_in} dealt in)" in en
    # no seat numbers where names exist
    lines = narrate(g.events, "zh", names=names, hand_over=True)
    assert lines and not any("号位" in ln["text"] for ln in lines)
    assert sum("放胡" in ln["text"] for ln in lines) == 1


def test_the_terminal_client_says_fang_hu_of_the_discarder() -> None:
    from fujian_mahjong.tui.app import HUMAN, PlayApp
    from fujian_mahjong.tui.render import seat_name

    app = PlayApp(profile="fuzhou-tcy", seed="v", lang="zh", hands=1)
    g = _deal_in()
    app.game = g
    w = g.win
    assert w is not None
    line = app.win_line()
    assert line.startswith(seat_name(HUMAN, w["winner"], 4, "zh") + " 胡")
    assert line.endswith(f"（{seat_name(HUMAN, w['discarder'], 4, 'zh')} 放胡）")
    assert line == "下家1号 胡 5饼（你 放胡）"
    log = "\n".join(app.log_lines(200, 200))
    assert "号位" not in log and "下家1号 胡 5饼（你 放胡）" in log
    assert "未成" not in log  # R12: seat 3's pong that lost is not ours to know


# ---------------------------------------------------------------------------- claims that lost


def _chow_beaten_by_pong() -> Game:
    """Seat 0 discards 5p; seat 1 chows it and seat 2 pongs it: the pong is taken (R6)."""
    g = Game.from_wall("fuzhou-tcy", wall(True, True), dealer=0)
    g.apply(0, Action.from_json(FIVE_P))
    chow = next(a for a in g.legal_actions(1) if a.type == "chow")
    g.apply(1, chow)
    g.apply(2, Action("pong"))
    assert g.events[-1]["type"] == "claim" and g.events[-1]["seat"] == 2
    return g


def test_a_claim_that_lost_is_narrated_as_lost() -> None:
    g = _chow_beaten_by_pong()
    names = ["阿明", "Bot 2", "Bot 3", "Bot 4"]
    lines = narrate(g.events, "zh", names=names)
    tail = [(ln["kind"], ln["seat"], ln["text"]) for ln in lines[-2:]]
    assert tail == [
        ("claim-lost", 1, "Bot 2 吃未成（被Bot 3 碰抢先）"),
        ("claim", 2, "Bot 3 碰 5饼 5饼 5饼"),
    ]
    # nothing says seat 1 chowed
    assert not any(ln["kind"] == "claim" and ln["seat"] == 1 for ln in lines)
    en = narrate(g.events, "en", names=names)[-2]
    assert en["text"] == "Bot 2: chow lost to pong by Bot 3" and en["lost"] is True
    # R12: to a viewer, only its own lost claim is said
    assert any(ln["kind"] == "claim-lost" for ln in narrate(g.events, "zh", viewer=1))
    assert not any(ln["kind"] == "claim-lost" for ln in narrate(g.events, "zh", viewer=0))
    assert not any(ln["kind"] == "claim-lost" for ln in narrate(g.events, "zh", viewer=3))


def test_replay_frames_mark_lost_claims_and_name_seats_as_the_table() -> None:
    """ "2号位 碰" right before a 胡 on the same tile used to read as if the pong happened."""
    g = _deal_in()
    out = build_replay(g.events, NAMES)
    lines = [x for f in out["frames"] for x in f["text"]]
    lost = [x for x in lines if x["kind"] == "claim-lost"]
    assert lost == [
        {
            "zh": "Bot 4 碰未成（被Bot 2 胡抢先）",
            "en": "Bot 4: pong lost to win by Bot 2",
            "seat": 3,
            "kind": "claim-lost",
            "lost": True,
            "by": 1,
            "claim": "pong",
        }
    ]
    i = lines.index(lost[0])
    assert lines[i + 1]["kind"] == "win" and lines[i + 1]["seat"] == 1
    # tiles as the table names them, payments per named seat (not a list of numbers)
    assert lines[i + 1]["zh"] == "Bot 2 胡 五饼（阿明 放胡），40 分（阿明 -40，Bot 2 +40）"
    assert lines[i + 1]["en"] == (
        "Bot 2 wins on a discard with 5 Dots (阿明 dealt in), 40 points (阿明 -40, Bot 2 +40)"
    )
    assert not any(x["kind"] == "claim" for x in lines)  # nobody ponged
    assert not any("号位" in x["zh"] or "seat " in x["en"] for x in lines)
    # every line says who and what (for the client's log: data-seat, data-kind)
    kinds = {x["kind"] for x in lines}
    assert {"start", "deal", "gold", "discard", "draw", "win", "claim-lost", "end"} <= kinds
    # a seat that passed: nothing is lost
    quiet = build_replay(_deal_in(pong3=False).events, NAMES)
    assert not any(x["kind"] == "claim-lost" for f in quiet["frames"] for x in f["text"])


def test_the_replay_api_names_bots_as_the_table_does(tmp_path: Path) -> None:
    """A human and three bots; 托管 plays the hand; the replay's names are the seat list's."""

    async def main() -> tuple[list[Any], list[Any], list[str]]:
        async with running(tmp_path) as h:
            me = await h.guest("阿明")
            tid = await h.table(me, bots=3, turn_seconds=60)
            await h.seat(me, tid)
            await h.ready(me)
            await me.send({"type": "auto", "on": True})
            for _ in range(2000):
                if me.of_type("hand_end"):
                    break
                await h.advance(1.0)
            end = me.of_type("hand_end")[0]
            seats = [s["name"] for s in (me.last("seats") or me.state or {})["seats"]]
            r = await h.http.get(
                f"/api/hands/{end['hand']}/replay",
                headers={"Authorization": f"Bearer {me.token}"},
            )
            assert r.status_code == 200, r.text
            body = r.json()
            texts = [x["zh"] for f in body["frames"] for x in f["text"]]
            return seats, body["names"], texts

    seats, names, texts = asyncio.run(main())
    assert seats == names == ["阿明", "Bot 2", "Bot 3", "Bot 4"]
    assert not any("号位" in t for t in texts)


# ---------------------------------------------------------------------------- ties share a rank


def test_tied_totals_share_a_rank_in_the_terminal_standings() -> None:
    from fujian_mahjong.tui.app import PlayApp

    app = PlayApp(profile="fuzhou-tcy", seed="ties", lang="en", hands=1)
    app.match.totals = [10, -5, -5, 0]
    lines = app.standings_lines(80)
    ranks = [ln.strip().split(".")[0] for ln in lines[1:5]]
    assert ranks == ["1", "2", "3", "3"], lines


def test_fjmj_replay_says_lost_claims_and_fang_hu(tmp_path: Path, capsys: Any) -> None:
    from fujian_mahjong.cli.main import main
    from fujian_mahjong.engine import to_jsonl

    f = tmp_path / "hand.jsonl"
    f.write_text(to_jsonl(_deal_in().events), encoding="utf-8")
    assert main(["replay", str(f)]) == 0
    out = capsys.readouterr().out
    assert "3号位 碰未成（被1号位 胡抢先）\n1号位 胡 5饼（0号位 放胡）" in out, out[-800:]
    assert "3号位 碰 " not in out and out.rstrip().endswith("个事件")
    assert main(["replay", str(f), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "seat 3: pong lost to win by seat 1" in out and "(seat 0 dealt in)" in out
