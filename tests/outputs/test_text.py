"""The one standings table every command prints."""

from __future__ import annotations

from tcecd.outputs.text import points, standings_table, tiebreak_column
from tcecd.pairing.base import Player, Standing


def test_points_always_have_one_decimal() -> None:
    assert [points(h) for h in (0, 1, 2, 7, 8)] == ["0.0", "0.5", "1.0", "3.5", "4.0"]


def test_a_tiebreak_column_is_formatted_as_a_whole() -> None:
    assert tiebreak_column([3, 2, 0]) == ["3", "2", "0"]
    assert tiebreak_column([8.5, 5.0, 0.25]) == ["8.50", "5.00", "0.25"]


def test_standings_table_layout() -> None:
    tb = (("black-games", 3.0), ("sonneborn-berger", 8.5))
    rows = (
        Standing(rank=2, id="beta", score_half=4, byes=1, games=2, tiebreaks=tb),
        Standing(rank=1, id="alpha", score_half=7, byes=0, games=4,
                 tiebreaks=(("black-games", 2.0), ("sonneborn-berger", 5.0))),
    )  # fmt: skip
    players = (Player("alpha", "Alpha", 2), Player("beta", "Beta", 1))
    assert standings_table(rows, players).splitlines() == [
        "Rank  Player  Seed  Score  BYEs  Games  black-games  sonneborn-berger",
        "----  ------  ----  -----  ----  -----  -----------  ----------------",
        "   1  alpha      2    3.5     0      4            2              5.00",
        "   2  beta       1    2.0     1      2            3              8.50",
    ]
