"""StrongBot's ``self_draw`` option (bots/strong.py, docs/strong-bot.md): a discard win is
passed when waiting for a self-draw (R10 fuzhou-tcy: each other seat pays X) is worth more
than ``self_draw`` times the win now (R6: a win may be declined; D-7: no 过水)."""

from __future__ import annotations

from pathlib import Path

from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.bots.strong import StrongBot, wait_value
from fujian_mahjong.engine import Action, Game, build_wall
from fujian_mahjong.rules import load_profile_file
from fujian_mahjong.tiles import parse


def _offer(profile: str = "fuzhou-tcy") -> Game:
    """Seat 1 is dealt 123m 456m 789m 234p 56p 7s 1s, draws a gold (9s; indicator 9s at the
    tail, R5) and throws 1s: ready on 4p/7p/7s with a gold, no flowers (平胡). Seat 2 then
    discards 4p early in the hand: seat 1 is offered the win (X = (1 + 5)·2 + 30 = 42)."""
    deal = {
        0: parse("123456789m 11p 88p 9p 258s"),
        1: parse("123m 456m 789m 234p 56p 7s 1s"),
        2: parse("111s 222s 333s 444s 9p9p 3s 6s"),
        3: parse("555s 666s 888s 1p 2p 3p 6p 7p 7p 7s"),
    }
    wall = build_wall(deal, draws=parse("9s 4p"), tail=parse("9s"))
    g = Game.from_wall(profile, wall, dealer=0)

    def answer() -> None:
        while g.phase == "claims":
            g.apply(g.to_act()[0], Action("pass"))

    g.apply(0, Action("discard", parse("8s")[0]))
    answer()
    g.apply(1, Action("discard", parse("1s")[0]))
    answer()
    g.apply(2, Action("discard", parse("4p")[0]))
    return g


def test_wait_value_of_an_early_wide_wait() -> None:
    g = _offer()
    v = g.seat_view(1)
    assert Action("win") in v.legal
    wv = wait_value(v)
    assert wv is not None
    assert wv.now == 42.0  # R10 tcy: (F 0 + G 1 + L 0 + 5) x 2 + 平胡 30
    assert 0.05 < wv.p < 0.3
    assert wv.draws >= 5
    assert wv.wait > 1.2 * wv.now  # three payers, many draws left, nobody threatening


def test_option_passes_the_win_only_when_waiting_is_worth_more() -> None:
    g = _offer()
    v = g.seat_view(1)
    wv = wait_value(v)
    assert wv is not None
    ratio = wv.wait / wv.now
    d = StrongBot(0, screen=1e9, self_draw=1.1).act(v)
    assert d.action == Action("pass")
    assert "self-draw" in d.reason and "自摸" in d.reason_zh
    # a margin above what waiting is worth: the win is taken
    assert StrongBot(0, screen=1e9, self_draw=ratio + 0.1).act(v).action.type == "win"
    # off (0): the fast bot's win, unchanged; the 高手 (kind strong) passes by default
    assert StrongBot(0, screen=1e9, self_draw=0).act(v).action == HeuristicBot(0).act(v).action
    assert StrongBot(0, self_draw=0).act(v).action.type == "win"
    assert StrongBot(0).act(v).action == Action("pass")


def test_passing_keeps_the_hand_playable() -> None:
    g = _offer()
    bot = StrongBot(0, screen=1e9, self_draw=1.1)
    g.apply(1, bot.act(g.seat_view(1)).action)
    while g.phase == "claims":
        g.apply(g.to_act()[0], Action("pass"))
    assert not g.is_over()
    assert g.hand_size(1) == 16  # R6, D-7: the ready hand is kept and may still win


def test_only_the_seat_offered_a_win() -> None:
    g = _offer()
    assert wait_value(g.seat_view(0)) is None  # no win offered to that seat
    assert StrongBot(0, screen=1e9, self_draw=1.1).act(g.seat_view(3)).action.type != "win"


def test_a_users_own_profile_file(tmp_path: Path) -> None:
    """A user's TOML profile (its name is no built-in's): the 高手 reads the rules from the
    view, never by name — it plays whole hands, win offers and searches included."""
    src = Path(__file__).resolve().parents[1] / "src/fujian_mahjong/rules/profiles"
    f = tmp_path / "mine.toml"
    f.write_text(
        (src / "fuzhou-tcy.toml").read_text().replace('name = "fuzhou-tcy"', 'name = "mine"')
    )
    prof = load_profile_file(f)
    offers = 0
    for seed in range(6):
        g = Game.new(prof, seed=seed)
        bots = [StrongBot(s, max_rollouts=16) for s in range(4)]
        while not g.is_over():
            for s in g.to_act():
                v = g.seat_view(s)
                offers += g.phase == "claims" and Action("win") in v.legal
                g.apply(s, bots[s].act(v).action)
                break
    assert offers > 0


def test_not_where_other_rules_decide_the_offers() -> None:
    """R6 拦胡 (the highest score wins a discard) and R8.4 闲金 (no discard wins) change the
    offers the model counts on: decided by those fields, not by a profile's name."""
    import dataclasses

    from fujian_mahjong.bots.strong import _other_offers
    from fujian_mahjong.rules import get_profile

    assert _other_offers(get_profile("sanming"))
    for name in ("fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou"):
        tcy = get_profile(name)
        assert not _other_offers(tcy)
        assert _other_offers(dataclasses.replace(tcy, discard_winner="highest_score"))
        assert _other_offers(dataclasses.replace(tcy, xian_jin=True))
    g = _offer()
    v = g.seat_view(1)
    assert wait_value(v) is not None
