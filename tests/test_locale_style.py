"""The Chinese catalogue's punctuation (``web/locale/zh/<part>.json``): Chinese prose takes
the full-width ，：；！？ and （）, with no space beside them, as 同城游 and 边锋 write it
("你打过金：本盘只能自摸", never "你打过金: 本盘只能自摸"). Half-width marks stay only where
the text is not Chinese prose: numbers (1,000), times (10:30), key names, command lines.
(The same keys and placeholders in zh and en: ``tests/test_vocabulary.py``.)"""

from __future__ import annotations

import re

from fujian_mahjong import i18n

CJK = "\u3400-\u4dbf\u4e00-\u9fff"
FULL = "，：；！？（）"
# Exceptions, each a half-width mark that is not Chinese punctuation:
# - a "?" standing alone, then a space: the terminal client's help key ("? 帮助" in
#   tui.prompt.turn and tui.hand_over_keys), a key name like q, y, h beside it
KEY_NAME = re.compile(r"(?:^|(?<=[\s，（]))\?(?=\s)")
# a half-width mark with Chinese on either side (spaces between skipped); a placeholder
# before it is Chinese too ("{tile}: " in a Chinese prompt is "{tile}：")
HALF = re.compile(rf"[{CJK}{FULL}}}]\s*[,:;!?]|[,:;!?]\s*[{CJK}{FULL}]")
PAREN = re.compile(rf"[{CJK}]\s*[()]|[()]\s*[{CJK}]")
# a space beside a full-width mark, except at the very end of a text: tui.prompt.turn ends
# in a space that parts it from the option labels the terminal client puts after it
SPACED = re.compile(rf"\s[{FULL}]|[{FULL}]\s(?!$)")


def zh_texts() -> list[tuple[str, str]]:
    return [(k, v) for p in i18n.PARTS for k, v in i18n.part("zh", p).items()]


def test_the_zh_catalogue_is_not_empty() -> None:
    assert len(zh_texts()) > 400


def test_chinese_prose_takes_full_width_commas_colons_and_question_marks() -> None:
    bad = [(k, v) for k, v in zh_texts() if HALF.search(KEY_NAME.sub("", v))]
    assert not bad, bad


def test_parentheses_around_or_after_chinese_are_full_width() -> None:
    bad = [(k, v) for k, v in zh_texts() if PAREN.search(v)]
    assert not bad, bad


def test_no_space_beside_full_width_punctuation() -> None:
    bad = [(k, v) for k, v in zh_texts() if SPACED.search(v)]
    assert not bad, bad


def test_the_checks_catch_what_they_are_for() -> None:
    """The patterns on the old texts: each flagged, and the kept half-width marks not."""
    for old in (
        "乙乙 银子不足本桌最低限额, 牌局结束",
        "你打过金: 本盘只能自摸",
        "建议: {action} — {reason}",
        "{seat} 加杠 {tile}: ",
        "要退出吗?",
    ):
        assert HALF.search(KEY_NAME.sub("", old)), old
    for old in ("手握三张金即可胡牌 (算自摸)", "{tile}(剩{n})", "记录 (12)"):
        assert PAREN.search(old), old
    assert SPACED.search("胡 {tile} （点炮）") and SPACED.search("你打过金： 本盘只能自摸")
    for kept in ("n 下一盘  q 退出  ? 帮助", "入场 1,000–10,000 银子", "10:30 开局", "（y 确定）"):
        assert not HALF.search(KEY_NAME.sub("", kept)) and not SPACED.search(kept), kept
