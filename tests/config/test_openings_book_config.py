"""An EPD/PGN openings file plus a Polyglot book in one event config
(cutechess's ``-openings ... -book ... -bookdepth ...``): the keys, their
one-line errors, what the daemon's settings receive, the `tcecd validate`
summary, and the resume fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.config.event_file import load_event
from tcecd.config.fingerprint import config_fingerprint, diff_fingerprints
from tcecd.daemon.settings import from_config
from tests.fixtures.event_config import write_event
from tests.game.test_polyglot import START_BOOK, write_book

#: 1.e4, black to move.
E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path with a one-line EPD file and START_BOOK (8 entries) in books/."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "books").mkdir()
    (tmp_path / "books" / "a.epd").write_text(E4 + "\n", encoding="utf-8")
    write_book(tmp_path / "books" / "book.bin", START_BOOK)
    return tmp_path


def validate_error(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["validate", "event.yaml"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    return err


def test_an_epd_file_with_a_book_validates_and_reaches_the_settings(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = {"file": "books/book.bin", "depth": 8, "selection": "best", "seed": 5}
    path = write_event(folder, openings={"file": "books/a.epd", "book": book})
    assert main(["validate", "event.yaml"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    root = folder.resolve()
    assert (
        f"  openings:     {root / 'books' / 'a.epd'} (epd, sequential)"
        f" + Polyglot book {root / 'books' / 'book.bin'}\n" in out
    )
    # 8 entries of 16 bytes in START_BOOK; 'best' takes no seed, so none is shown.
    assert (
        "  book:         1 opening in the book, extended by Polyglot book book.bin: "
        "8 entries, depth 8, best\n" in out
    )

    settings = from_config(load_event(path))
    # Relative to the config file, like the openings file.
    assert settings.openings_book_file == root / "books" / "book.bin"
    assert settings.openings_book_depth == 8
    assert settings.openings_book_selection == "best"
    assert settings.openings_book_seed == 5


def test_book_defaults_and_a_weighted_seed_in_the_summary(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_event(folder, openings={"file": "books/a.epd", "book": {"file": "books/book.bin"}})
    assert main(["validate", "event.yaml"]) == 0
    assert "8 entries, while in book, weighted\n" in capsys.readouterr().out
    settings = from_config(load_event(folder / "event.yaml"))
    assert (settings.openings_book_depth, settings.openings_book_selection) == (None, "weighted")
    assert settings.openings_book_seed is None

    write_event(
        folder, openings={"file": "books/a.epd", "book": {"file": "books/book.bin", "seed": 9}}
    )
    assert main(["validate", "event.yaml"]) == 0
    assert "8 entries, while in book, weighted, seed 9\n" in capsys.readouterr().out


def test_a_polyglot_openings_file_is_summarised_as_a_book(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_event(folder, openings={"file": "books/book.bin", "plies": 4})
    assert main(["validate", "event.yaml"]) == 0
    out = capsys.readouterr().out
    assert "  book:         Polyglot book book.bin: 8 entries, depth 4, weighted\n" in out
    assert "opening in the book" not in out


@pytest.mark.parametrize(
    ("book", "message"),
    [
        (
            {"file": "books/none.bin"},
            "openings.book.file: '{dir}/books/none.bin' does not exist or is not a file",
        ),
        ({"file": "books/book.bin", "depth": 0}, "openings.book.depth: 0 is out of range"),
        ({"file": "books/book.bin", "selection": "top"}, "openings.book.selection: "),
        ({"depth": 3}, "openings.book: missing required key 'file'"),
        ({"file": "books/a.epd"}, "openings.book.file: "),  # a.epd: not a Polyglot book
    ],
)
def test_bad_book_keys_are_one_line_errors_naming_the_key(
    folder: Path, capsys: pytest.CaptureFixture[str], book: dict[str, object], message: str
) -> None:
    # 110 bytes: not a whole number of 16-byte Polyglot entries.
    (folder / "books" / "a.epd").write_text(E4 + "\n" + E4 + "\n", encoding="utf-8")
    write_event(folder, openings={"file": "books/a.epd", "book": book})
    err = validate_error(capsys)
    assert err.startswith("tcecd: error: event.yaml: " + message.format(dir=folder.resolve()))


def test_a_polyglot_openings_file_takes_no_book(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_event(folder, openings={"file": "books/book.bin", "book": {"file": "books/book.bin"}})
    err = validate_error(capsys)
    assert err.startswith("tcecd: error: event.yaml: openings.book: use either ")


def test_the_book_is_part_of_the_resume_fingerprint(folder: Path) -> None:
    def fingerprint(book: dict[str, object] | None) -> dict[str, object]:
        openings: dict[str, object] = {"file": "books/a.epd"}
        if book is not None:
            openings["book"] = book
        return config_fingerprint(load_event(write_event(folder, openings=openings)))

    plain = fingerprint(None)
    # No book, no "book" key: events stored before books existed still resume.
    assert isinstance(plain["openings"], dict)
    assert "book" not in plain["openings"]
    base = {"file": "books/book.bin", "depth": 8}
    with_book = fingerprint(base)
    assert diff_fingerprints(with_book, fingerprint(base)) == []
    assert diff_fingerprints(with_book, fingerprint({**base, "depth": 6})) == [
        "openings.book.depth: 8 -> 6"
    ]
    assert diff_fingerprints(with_book, fingerprint({**base, "selection": "best"})) == [
        'openings.book.selection: "weighted" -> "best"'
    ]
    assert diff_fingerprints(with_book, fingerprint({**base, "seed": 2})) == [
        "openings.book.seed: null -> 2"
    ]
    write_book(folder / "books" / "other.bin", START_BOOK)
    root = folder.resolve() / "books"
    assert diff_fingerprints(with_book, fingerprint({**base, "file": "books/other.bin"})) == [
        f'openings.book.file: "{root / "book.bin"}" -> "{root / "other.bin"}"'
    ]
    assert diff_fingerprints(plain, with_book) == [
        "openings.book: (absent) -> "
        f'{{"depth": 8, "file": "{root / "book.bin"}", "seed": null, "selection": "weighted"}}'
    ]
