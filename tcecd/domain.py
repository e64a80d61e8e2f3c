"""Small frozen value types shared by every layer.

Scores are kept in half-points (``int``) inside; they become floats only at the
edges (JSON, tables). Times are integer milliseconds everywhere inside.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: A player's stable identifier inside an event (the engine's name).
PlayerId = str


class Color(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


class Result(enum.Enum):
    """A game's result as written in PGN."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    UNFINISHED = "*"

    @classmethod
    def from_pgn(cls, text: str) -> Result:
        """Parse a PGN result token; raises ``ValueError`` naming the bad token."""
        for member in cls:
            if member.value == text:
                return member
        raise ValueError(f"invalid result: {text!r} (expected 1-0, 0-1, 1/2-1/2 or *)")

    @property
    def winner(self) -> Color | None:
        if self is Result.WHITE_WINS:
            return Color.WHITE
        if self is Result.BLACK_WINS:
            return Color.BLACK
        return None

    def half_points(self, color: Color) -> int:
        """Half-points this result gives the player of ``color`` (2, 1 or 0)."""
        if self is Result.UNFINISHED:
            raise ValueError("an unfinished game scores no points")
        if self is Result.DRAW:
            return 1
        return 2 if self.winner is color else 0

    @classmethod
    def win_for(cls, color: Color) -> Result:
        return cls.WHITE_WINS if color is Color.WHITE else cls.BLACK_WINS


class Termination(enum.Enum):
    """Why a game ended. Values are what the PGN ``Termination`` tag carries
    (cutechess/TCEC vocabulary); the human detail goes in ``TerminationDetails``."""

    NORMAL = "normal"  # checkmate, stalemate, repetition, 50 moves, insufficient material
    ADJUDICATION = "adjudication"  # TCEC draw/win/max-moves rules, tablebases
    TIME_FORFEIT = "time forfeit"
    ILLEGAL_MOVE = "illegal move"
    ABANDONED = "abandoned"  # engine crashed or failed to start
    STALLED = "stalled connection"  # engine stopped answering
    FORFEIT = "forfeit"  # not played: a disqualified engine
    UNTERMINATED = "unterminated"


@dataclass(frozen=True, slots=True)
class GameId:
    """A game's place in the event: round number and its 1-based position in
    the round's playing order (PGN Round tag ``"r.g"``)."""

    round: int
    number: int

    def __str__(self) -> str:
        return f"{self.round}.{self.number}"

    @classmethod
    def parse(cls, text: str) -> GameId:
        try:
            r, g = text.split(".")
            gid = cls(int(r), int(g))
        except ValueError:
            raise ValueError(f"invalid round tag: {text!r} (expected \"r.g\")") from None
        if gid.round < 1 or gid.number < 1:
            raise ValueError(f"invalid round tag: {text!r} (numbers start at 1)")
        return gid
