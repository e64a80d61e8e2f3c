"""A Polyglot book as the event's openings: the config keys `tcecd validate`
accepts, the schema, and what the daemon's settings receive."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import chess
import chess.polyglot
import pytest

from tcecd.cli import main
from tcecd.config.event_file import load_event
from tcecd.daemon.settings import from_config
from tests.fixtures.event_config import write_event


def write_book(path: Path) -> None:
    """One entry: the start position, 1.e4 (e2 = 12, e4 = 28), weight 1."""
    key = chess.polyglot.zobrist_hash(chess.Board())
    path.write_bytes(struct.pack(">QHHI", key, 28 | 12 << 6, 1, 0))


def test_a_bin_book_validates_and_reaches_the_daemon_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_book(tmp_path / "book.bin")
    # seed without order 'random': a Polyglot book uses it for its weighted choice.
    path = write_event(tmp_path, openings={"file": "book.bin", "plies": 8, "seed": 3})
    assert main(["validate", "event.yaml"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert (
        f"  openings:     {tmp_path.resolve() / 'book.bin'} (polyglot, sequential, seed 3)\n" in out
    )

    settings = from_config(load_event(path))
    assert settings.openings_format == "polyglot"
    assert settings.openings_plies == 8
    assert settings.openings_seed == 3


def test_explicit_format_and_a_bad_book(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "book.dat").write_bytes(b"\x00" * 20)  # not a whole 16-byte entry
    write_event(tmp_path, openings={"file": "book.dat", "format": "polyglot"})
    assert main(["validate", "event.yaml"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("tcecd: error: event.yaml: openings.file: ")
    assert "book.dat: cannot read Polyglot book" in err
    assert err.count("\n") == 1


def test_seed_with_an_epd_book_still_needs_random_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "book.epd").write_text(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n", encoding="utf-8"
    )
    write_event(tmp_path, openings={"file": "book.epd", "seed": 3})
    assert main(["validate", "event.yaml"]) == 2
    assert "is only used with order 'random'" in capsys.readouterr().err


def test_schema_offers_polyglot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    text = json.dumps(schema)
    assert '"polyglot"' in text
