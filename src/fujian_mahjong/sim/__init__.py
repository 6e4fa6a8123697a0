"""Simulation: play many hands with bots (optionally in worker processes) and summarise."""

from fujian_mahjong.sim.simulate import HandRecord, SimulationError, Summary, play_hand, simulate

__all__ = ["HandRecord", "SimulationError", "Summary", "play_hand", "simulate"]
