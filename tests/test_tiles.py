"""R1: tiles and notation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fujian_mahjong.errors import MahjongError, NotationError
from fujian_mahjong.tiles import (
    KIND_STR,
    NUM_KINDS,
    NUM_TILES,
    copies_of,
    flower_sets,
    fmt,
    is_bonus,
    is_flower,
    is_honour,
    is_suited,
    kind_of_tile,
    long_name,
    name,
    parse,
    parse_kind,
    physical_set,
    rank_of,
    suit_of,
)


def test_kind_and_tile_counts_r1() -> None:
    assert NUM_KINDS == 42
    assert NUM_TILES == 144
    phys = physical_set()
    assert len(phys) == 144
    for k in range(42):
        assert phys.count(k) == copies_of(k)
    assert sum(1 for k in range(42) if is_suited(k)) == 27
    # R1: every honour and every bonus tile is a flower
    assert all(is_flower(k) for k in range(27, 42))
    assert not any(is_flower(k) for k in range(27))
    assert [k for k in range(42) if is_honour(k)] == list(range(27, 34))
    assert [k for k in range(42) if is_bonus(k)] == list(range(34, 42))
    assert kind_of_tile(0) == 0 and kind_of_tile(135) == 33 and kind_of_tile(143) == 41


def test_parse_examples_r1() -> None:
    assert parse("123m 55p 1z1z") == [0, 1, 2, 13, 13, 27, 27]
    assert parse("8f") == [41]
    assert parse("") == []
    assert parse_kind("9s") == 26
    assert suit_of(parse_kind("7z")) == "z" and rank_of(parse_kind("7z")) == 7


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("123x", "'x' at position 3"),
        ("8z", "'8' at position 0"),
        ("0m", "'0' at position 0"),
        ("9f", "'9' at position 0"),
        ("123", "position 0 are not followed"),
        ("m", "'m' at position 0"),
        ("12 3m", "space at position 2"),
        ("5p5", "position 2 are not followed"),
    ],
)
def test_malformed_notation_names_character_and_position(text: str, where: str) -> None:
    with pytest.raises(NotationError) as e:
        parse(text)
    assert where in str(e.value)
    assert isinstance(e.value, MahjongError) and isinstance(e.value, ValueError)


@given(st.lists(st.integers(0, 41), max_size=30))
def test_round_trip_exact(kinds: list[int]) -> None:
    assert parse(fmt(kinds)) == kinds


def test_format_groups_runs() -> None:
    assert fmt(parse("123m55p789s")) == "123m55p789s"
    assert fmt([0, 1, 13, 2]) == "12m5p3m"


def test_names_zh_en() -> None:
    assert name(parse_kind("5p"), "zh") == "5饼"
    assert name(parse_kind("1z"), "zh") == "东"
    assert name(parse_kind("1z"), "en") == "E"
    assert name(parse_kind("5p"), "en") == "5p"
    assert long_name(parse_kind("5p"), "zh") == "五饼"
    assert long_name(parse_kind("3s"), "en") == "3 Bamboo"
    assert long_name(parse_kind("1f"), "zh") == "春"
    assert long_name(parse_kind("8f"), "en") == "Chrysanthemum"
    assert len({name(k, "zh") for k in range(42)}) == 42
    assert KIND_STR[41] == "8f"


def test_flower_sets_r1() -> None:
    assert flower_sets(parse("1z1z1z1z")) == 1
    assert flower_sets(parse("1f2f3f4f")) == 1
    assert flower_sets(parse("5f6f7f8f1f")) == 1
    assert flower_sets(parse("1z1z1z2z1f2f3f")) == 0
    assert flower_sets(parse("5z5z5z5z1f2f3f4f5f6f7f8f")) == 3


def test_playable_honours_are_not_flowers_r1_revision_2() -> None:
    """斗斗 (honours = "playable"): only 1f-8f are flowers; sets only 春夏秋冬 / 梅兰竹菊."""
    assert not any(is_flower(k, playable_honours=True) for k in range(34))
    assert all(is_flower(k, playable_honours=True) for k in range(34, 42))
    assert is_flower(parse_kind("1z")) and not is_flower(parse_kind("1z"), True)
    assert flower_sets(parse("1z1z1z1z"), playable_honours=True) == 0
    assert flower_sets(parse("1f2f3f4f5f6f7f8f"), playable_honours=True) == 2
