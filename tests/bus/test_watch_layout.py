"""``tcecd watch`` on an 80-column terminal: long engine names (TCEC's are like
``Stockfish 17.1 dev-20250301``), the default tiebreaks and a forecast, and nothing
cut (issue 27: names became ``Stoc…``, headers ``son…``, the pairings ``20250301-av…``)."""

from __future__ import annotations

import dataclasses

import pytest
from rich.console import Console

import tests.bus.sample as sample
from tcecd.events import ForecastUpdated, RoundPaired, StandingsUpdated
from tcecd.forecast.forecast import ForecastSettings, forecast
from tcecd.forecast.montecarlo import EventSnapshot
from tcecd.pairing.base import PlayedGame, RoundRecord, Standing
from tcecd.watch.model import EventView
from tcecd.watch.render import render
from tcecd.watch.screen import screen
from tests.bus.test_watch import feed

NAMES = {"A": "Stockfish 17.1 dev-20250301", "B": "Leela Chess Zero 0.31.2",
         "C": "Berserk 20250301-avx2", "D": "Ethereal 14.25 (PEXT)"}  # fmt: skip
PLAYERS = tuple(dataclasses.replace(p, name=NAMES[p.id]) for p in sample.PLAYERS)
DEFAULT = ("black-games", "sonneborn-berger", "wins")


def _standings() -> tuple[Standing, ...]:
    rows = [("A", 2), ("C", 1), ("D", 1), ("B", 0)]
    return tuple(
        Standing(rank=i + 1, id=pid, score_half=half, byes=0, games=1,
                 tiebreaks=tuple((n, float(half)) for n in DEFAULT))
        for i, (pid, half) in enumerate(rows)
    )  # fmt: skip


def _view(monkeypatch: pytest.MonkeyPatch) -> EventView:
    """Round 1 played (its standings with the default tiebreaks), game 2.1 running, a
    forecast published."""
    monkeypatch.setattr(sample, "PLAYERS", PLAYERS)
    played = tuple(PlayedGame(w, b, r) for rnd, _n, w, b, r in sample.GAMES if rnd == 1)
    rated = tuple(dataclasses.replace(p, rating=3000) for p in PLAYERS)
    snap = EventSnapshot("tcec-swiss", rated, False, (RoundRecord(1, None, (), played),), 2)
    fc = forecast(snap, ForecastSettings(simulations=40, top=2, seed=1))
    events = [*sample.start_events(), *sample.round_events(1), StandingsUpdated(1, _standings()),
              RoundPaired(sample.pairing(2)), *sample.game_events(*sample.GAMES[2])[:-1],
              ForecastUpdated(fc)]  # fmt: skip
    view = feed(events).selected
    assert view is not None
    return view


def test_eighty_columns_cut_no_name_and_no_header(monkeypatch: pytest.MonkeyPatch) -> None:
    view = _view(monkeypatch)
    console = Console(width=80, color_system=None, force_terminal=False, record=True)
    console.print(screen(view, now=None))
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text
    for name in NAMES.values():
        # Whole, on one line: in the game panel (two of them), the pairings, the
        # standings and the forecast.
        assert any(name in line for line in lines), name
    for white, black in (("Berserk 20250301-avx2", "Stockfish 17.1 dev-20250301"),
                         ("Leela Chess Zero 0.31.2", "Ethereal 14.25 (PEXT)")):  # fmt: skip
        assert any(white in line and black in line for line in lines), (white, black)
    header = next(line for line in lines if line.lstrip().startswith("#"))
    assert header.split() == ["#", "engine", "score", "games", "BPG", "SB", "WIN"]
    assert "BPG black-games, SB sonneborn-berger, WIN wins" in text
    forecast_head = next(line for line in lines if line.lstrip().startswith("Player"))
    assert "Top2%" in forecast_head


def test_a_wide_terminal_keeps_pairings_and_standings_side_by_side(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = _view(monkeypatch)
    console = Console(width=160, color_system=None, force_terminal=False, record=True)
    console.print(screen(view, now=None))
    lines = console.export_text().splitlines()
    assert any("pairings" in line and "Standings after round 1" in line for line in lines)


def test_the_plain_frame_labels_tiebreaks_short(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = render(_view(monkeypatch))
    assert "BPG 2  SB 2  WIN 2" in frame
    assert "(BPG black-games, SB sonneborn-berger, WIN wins)" in frame
