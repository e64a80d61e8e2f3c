"""Chess960 (Fischer Random Chess): the variant's names and its start positions. Pure.

An event plays standard chess or Chess960 (``variant: chess960``; cutechess-cli's
and fastchess's word ``fischerandom`` is accepted too: :func:`parse_variant`).
In Chess960 the pieces of the back rank stand in one of 960 arrangements
(bishops on squares of both colours, the king between the rooks) and castling
puts king and rook on their usual squares whatever their start squares. Double
Chess960 (each side its own arrangement) is Chess960 from a position the
960 numbers do not name: its positions come from an EPD file.

The 960 positions are numbered as Reinhard Scharnagl numbered them (518 is the
standard position); python-chess's ``chess.Board.from_chess960_pos`` is the
numbering's one implementation here (:func:`numbered_opening`).

What changes in a Chess960 game is carried by its opening
(:attr:`tcecd.game.record.Opening.chess960`: every board of the game is a
python-chess ``chess960=True`` board) and by its rules
(:attr:`tcecd.game.rules.GameRules.variant`: the engines are told).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import chess

from tcecd.game.record import Opening

#: The variants an event plays.
Variant = Literal["standard", "chess960"]

#: The names a config or ``tcecd play --variant`` may give each variant
#: (lower case): ours, and cutechess-cli's and fastchess's ``fischerandom``.
VARIANT_NAMES: dict[str, Variant] = {
    "standard": "standard",
    "chess960": "chess960",
    "fischerandom": "chess960",
}

#: The PGN ``Variant`` tag of a Chess960 game: cutechess-cli's name, which TCEC's
#: cutechess and fastchess's cutechess-compatible build write too. cutechess-cli
#: reads no other (it names the board by it), python-chess reads it as Chess960
#: (``chess.pgn.Headers.is_chess960``), pgn-extract replays the castling moves
#: from the FEN's castling rights whatever the tag says (docs/events.md, "PGN").
PGN_VARIANT = "fischerandom"

#: How many Chess960 start positions there are, numbered 0..959.
POSITIONS = 960
#: The number of the standard start position.
STANDARD_POSITION = 518


def parse_variant(text: str) -> Variant:
    """The variant a name stands for (case-insensitive); ``ValueError`` naming
    the accepted names otherwise."""
    variant = VARIANT_NAMES.get(text.strip().lower())
    if variant is None:
        names = ", ".join(VARIANT_NAMES)
        raise ValueError(f"unknown variant {text!r} (expected one of: {names})")
    return variant


def position_name(board: chess.Board) -> str | None:
    """``Chess960 #N`` when ``board`` is the N-th Chess960 start position
    (both sides' back ranks the same arrangement, every pawn home, all four
    castling rights), else None (a double-Chess960 position, or one after moves)."""
    number = board.chess960_pos(ignore_turn=False, ignore_castling=False, ignore_counters=True)
    return None if number is None else f"Chess960 #{number}"


def numbered_opening(number: int, *, index: int | None = None) -> Opening:
    """The Chess960 start position number ``number`` (0-959) as an opening
    (``ValueError`` for another number). ``index``: its place in the event's
    list of positions."""
    if not 0 <= number < POSITIONS:
        raise ValueError(
            f"invalid Chess960 position number {number!r} (expected 0-{POSITIONS - 1})"
        )
    board = chess.Board.from_chess960_pos(number)
    return Opening(name=f"Chess960 #{number}", fen=board.fen(), index=index, chess960=True)


def numbered_openings(numbers: Iterable[int]) -> tuple[Opening, ...]:
    """The openings of the given Chess960 position numbers, in the given order."""
    return tuple(numbered_opening(n, index=i) for i, n in enumerate(numbers))


def all_openings() -> tuple[Opening, ...]:
    """The 960 start positions, numbers 0 to 959 in order."""
    return numbered_openings(range(POSITIONS))
