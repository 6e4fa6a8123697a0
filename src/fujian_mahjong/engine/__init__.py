"""R2–R9 and R12: the game engine (one hand as a state machine, events, replay, match)."""

from fujian_mahjong.engine.actions import ACTION_TYPES, Action
from fujian_mahjong.engine.events import EVENT_TYPES, Event, Phase, validate_event
from fujian_mahjong.engine.game import Game, break_rotation, random_seed, seed_commitment
from fujian_mahjong.engine.match import Match, hand_seed
from fujian_mahjong.engine.replay import (
    apply_decisions,
    fresh_game,
    from_jsonl,
    replay,
    to_jsonl,
)
from fujian_mahjong.engine.spectator import spectator_view
from fujian_mahjong.engine.wall import build_wall

__all__ = [
    "ACTION_TYPES",
    "EVENT_TYPES",
    "Action",
    "Event",
    "Game",
    "Match",
    "Phase",
    "apply_decisions",
    "break_rotation",
    "build_wall",
    "fresh_game",
    "from_jsonl",
    "hand_seed",
    "random_seed",
    "replay",
    "seed_commitment",
    "spectator_view",
    "to_jsonl",
    "validate_event",
]
