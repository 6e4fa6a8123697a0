"""R2–R9 and R12: the game engine (one hand as a state machine, events, replay, match)."""

from fujian_mahjong.engine.actions import ACTION_TYPES, Action
from fujian_mahjong.engine.game import Game, break_rotation, seed_commitment

__all__ = ["ACTION_TYPES", "Action", "Game", "break_rotation", "seed_commitment"]
