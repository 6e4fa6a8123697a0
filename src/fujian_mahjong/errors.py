"""One exception hierarchy for the whole package (STYLE.md).

Every error subclasses :class:`MahjongError`, itself a :class:`ValueError`, and its
message says what was wrong and where.
"""

from __future__ import annotations


class MahjongError(ValueError):
    """Base class of every error raised by fujian_mahjong."""


class NotationError(MahjongError):
    """Malformed tile notation (R1). The message names the bad character and position."""


class HandError(MahjongError):
    """A hand that cannot be analysed (wrong size, flowers, too many copies)."""


class IllegalAction(MahjongError):
    """An action that is not legal now; the game state is left untouched."""


class ProfileError(MahjongError):
    """A rule profile that does not validate; the message names the field."""


class ScoreInputError(MahjongError):
    """A win situation that cannot be scored; the message names the field."""


class ReplayError(MahjongError):
    """An event log that does not verify; the message names the first bad line."""


class ScenarioError(MahjongError):
    """An invalid scenario file; the message names the file, scenario and field."""


class InputError(MahjongError):
    """An input file refused by :mod:`fujian_mahjong.fileio`: unreadable, not a regular file,
    too large, not UTF-8 or not acceptable JSON. The message is one line."""
