"""Test tooling: stacked walls that force exact situations (used by ``fjmj scenario``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fujian_mahjong.errors import MahjongError
from fujian_mahjong.tiles import KIND_STR, NUM_TILES, physical_set


def build_wall(
    deal: Mapping[int, Sequence[int]],
    draws: Sequence[int] = (),
    tail: Sequence[int] = (),
    players: int = 4,
    dealer: int = 0,
) -> list[int]:
    """A 144-tile wall (head to tail) whose deal, head draws and tail draws are given.

    The head holds the dealt tiles in R3 order (dealer first, 4 at a time, four rounds,
    then the dealer's 17th), then ``draws``; the tail end holds ``tail`` so that its first
    tile is taken first; every other tile fills the middle in ascending kind order.
    Hands are as dealt, before flower replacement: dealer 17 tiles, others 16."""
    for s in range(players):
        want = 17 if s == dealer else 16
        got = len(deal.get(s, ()))
        if got != want:
            raise MahjongError(f"deal: seat {s} must be dealt {want} tiles, got {got}")
    for s in deal:
        if not 0 <= s < players:
            raise MahjongError(f"deal: there is no seat {s} with {players} players")
    head: list[int] = []
    for r in range(4):
        for i in range(players):
            s = (dealer + i) % players
            head.extend(deal[s][4 * r : 4 * r + 4])
    head.append(deal[dealer][16])
    head.extend(draws)
    tail_part = list(reversed(tail))
    used = [0] * 42
    for k in [*head, *tail_part]:
        used[k] += 1
    avail = [0] * 42
    for k in physical_set():
        avail[k] += 1
    for k in range(42):
        if used[k] > avail[k]:
            raise MahjongError(
                f"too many copies of {KIND_STR[k]}: the scenario uses {used[k]}, the set has {avail[k]}"
            )
    middle = [k for k in range(42) for _ in range(avail[k] - used[k])]
    wall = head + middle + tail_part
    assert len(wall) == NUM_TILES
    return wall
