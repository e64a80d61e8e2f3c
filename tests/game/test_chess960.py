"""Chess960 start positions: the standard numbering, EPD and PGN books read with
Chess960 castling, and the variant's names. Pure (no engines)."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from tcecd.errors import OpeningsError
from tcecd.game.chess960 import (
    PGN_VARIANT,
    all_openings,
    numbered_opening,
    parse_variant,
)
from tcecd.game.openings import load_openings, select_opening
from tcecd.game.record import Opening
from tcecd.game.rules import GameRules, game_opening
from tcecd.game.timecontrol import TimeControl

#: Back ranks (White's, a-file first) written out by hand from Scharnagl's
#: numbering, N = 0..959: N % 4 puts the light-squared bishop on b, d, f or h;
#: (N // 4) % 4 the dark-squared one on a, c, e or g; (N // 16) % 6 the queen on
#: that (0-based) free square; N // 96 the knights on the free squares of
#: pattern NN---, N-N--, N--N-, N---N, -NN--, -N-N-, -N--N, --NN-, --N-N, ---NN;
#: the last three free squares get rook, king, rook.
HAND_DECODED = {
    # 518 % 4 = 2: B f; 129 % 4 = 1: B c; 32 % 6 = 2: Q on d (a b [d] e g h);
    # 518 // 96 = 5: -N-N- on a b e g h: N b, g; R a, K e, R h. The standard position.
    518: "RNBQKBNR",
    # B b; B a; Q on the first free square, c; NN--- on d e f g h: N d, e; R f K g R h.
    0: "BBQNNRKR",
    # 959 % 4 = 3: B h; 239 % 4 = 3: B g; 59 % 6 = 5: Q on f (a..f free); 9: ---NN on
    # a b c d e: N d, e; R a K b R c.
    959: "RKRNNQBB",
    # 74 % 4 = 2: B f; 18 % 4 = 2: B e; 4 % 6 = 4: Q on g (a b c d [g] h); 0: NN---
    # on a b c d h: N a, b; R c K d R h. King beside its rook: O-O-O is legal at once.
    74: "NNRKBBQR",
    # 7 % 4 = 3: B h; 1 % 4 = 1: B c; 0: Q on a; 0: NN--- on b d e f g: N b, d;
    # R e K f R g. King beside its rook: O-O is legal at once.
    7: "QNBNRKRB",
    # 284 % 4 = 0: B b; 71 % 4 = 3: B g; 17 % 6 = 5: Q on h (a c d e f [h]); 17 // 6 = 2:
    # N--N- on a c d e f: N a, e; R c K d R f.
    284: "NBRKNRBQ",
}


@pytest.mark.parametrize("number", sorted(HAND_DECODED))
def test_positions_by_number_follow_the_standard_numbering(number: int) -> None:
    rank = HAND_DECODED[number]
    opening = numbered_opening(number)
    assert opening.fen == f"{rank.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{rank} w KQkq - 0 1"
    assert opening.chess960
    assert opening.name == f"Chess960 #{number}"
    assert opening.start_board().chess960


def test_518_is_the_standard_position_with_chess960_castling() -> None:
    opening = numbered_opening(518)
    assert opening.fen == chess.STARTING_FEN
    board = opening.start_board()
    board.push_san("e4"), board.push_san("e5"), board.push_san("Nf3"), board.push_san("Nc6")
    board.push_san("Bc4"), board.push_san("Bc5")
    castle = board.parse_san("O-O")
    # Chess960 writes castling king-takes-rook: e1h1, not e1g1.
    assert board.uci(castle) == "e1h1"


def test_castling_is_legal_at_once_in_the_test_positions() -> None:
    """The positions the event tests play (74: O-O-O, 7: O-O for the side to
    move at once, both colours; the double-Chess960 line mixes them)."""
    for number, san, uci in ((74, "O-O-O", "d1c1"), (7, "O-O", "f1g1")):
        board = numbered_opening(number).start_board()
        assert board.uci(board.parse_san(san)) == uci
    double = chess.Board(DOUBLE_FEN, chess960=True)
    assert double.uci(double.parse_san("O-O-O")) == "d1c1"
    double.push_san("a3")
    assert double.uci(double.parse_san("O-O")) == "f8g8"


def test_all_positions_and_their_seeded_random_order() -> None:
    every = all_openings()
    assert [o.name for o in every[:2]] == ["Chess960 #0", "Chess960 #1"]
    assert len({o.fen for o in every}) == 960

    def drawn(seed: int) -> list[str | None]:
        return [select_opening(every, i, order="random", seed=seed).name for i in range(12)]

    # A seeded permutation of the 960: no position twice, the same seed the same draw.
    assert len(set(drawn(5))) == 12
    assert drawn(5) == drawn(5) != drawn(6)


def test_variant_names() -> None:
    assert parse_variant("chess960") == parse_variant("FischeRandom") == "chess960"
    assert parse_variant("standard") == "standard"
    with pytest.raises(ValueError, match="unknown variant 'atomic'"):
        parse_variant("atomic")
    assert PGN_VARIANT == "fischerandom"


#: White's back rank of position 74 (king d1 beside the rook c1), Black's of
#: position 7 (king f8 beside the rook g8): each side its own back rank.
DOUBLE_FEN = "qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w KQkq - 0 1"


def test_epd_in_shredder_or_x_fen_castling(tmp_path: Path) -> None:
    """TCEC's FRC books write Shredder-FEN castling (HAha), others X-FEN
    (KQkq): both read as the same Chess960 position, kept as X-FEN (cutechess's
    FEN tag); a start position without a name is named after its number."""
    epd = tmp_path / "frc.epd"
    epd.write_text(
        "nnrkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w HChc -\n"
        "nnrkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w KQkq - 0 1\n"
        # Double Chess960: White's rooks c1/h1 (HC), Black's e8/g8 (ge).
        'qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w HCge - id "dfrc-1";\n',
        encoding="utf-8",
    )
    first, second, double = load_openings(epd, chess960=True)
    assert first.fen == second.fen == numbered_opening(74).fen
    assert (first.name, second.name, double.name) == ("Chess960 #74", "Chess960 #74", "dfrc-1")
    assert double.fen == DOUBLE_FEN
    assert first.chess960
    assert double.chess960
    bad = tmp_path / "bad.epd"
    # Black's castling rooks named on files where none stands.
    bad.write_text("qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w HCcg -\n", encoding="utf-8")
    with pytest.raises(OpeningsError, match=r"bad.epd:1: illegal position \(BAD_CASTLING_RIGHTS\)"):
        load_openings(bad, chess960=True)


def test_pgn_book_moves_are_read_as_chess960(tmp_path: Path) -> None:
    """A PGN book for a Chess960 event, with or without a Variant tag: its
    castling moves are Chess960 castling (king takes rook in UCI)."""
    pgn = tmp_path / "frc.pgn"
    pgn.write_text(
        f'[FEN "{numbered_opening(74).fen}"]\n\n1. O-O-O O-O-O *\n\n'
        f'[Variant "fischerandom"]\n[FEN "{numbered_opening(7).fen}"]\n\n1. O-O O-O *\n',
        encoding="utf-8",
    )
    queenside, kingside = load_openings(pgn, chess960=True)
    assert queenside.moves == ("d1c1", "d8c8")
    assert kingside.moves == ("f1g1", "f8g8")
    assert queenside.chess960
    assert kingside.chess960
    board = queenside.start_board(2)
    assert board.board_fen() == "nnkrbbqr/pppppppp/8/8/8/8/PPPPPPPP/NNKRBBQR"
    with pytest.raises(OpeningsError, match=r"a Chess960 game .* in a standard-chess event"):
        load_openings(pgn)


def test_polyglot_books_are_for_standard_chess(tmp_path: Path) -> None:
    book = tmp_path / "book.bin"
    book.write_bytes(b"")
    with pytest.raises(OpeningsError, match="a Polyglot book holds standard-chess positions"):
        load_openings(book, chess960=True)


def test_rules_carry_the_variant_to_the_game() -> None:
    rules = GameRules(time_control=TimeControl.parse("60+1"), variant="chess960")
    assert GameRules.from_dict(rules.to_dict()) == rules
    # A standard opening played under Chess960 rules is a Chess960 opening.
    opening = game_opening(rules, Opening(name=None, fen=None))
    assert opening.chess960
    assert opening.start_board().chess960
    standard = GameRules(time_control=TimeControl.parse("60+1"))
    assert GameRules.from_dict({**standard.to_dict(), "variant": "standard"}) == standard
    with pytest.raises(ValueError, match="invalid variant: 'atomic'"):
        GameRules.from_dict({**standard.to_dict(), "variant": "atomic"})
