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


def test_final_table_adds_wins_draws_losses_and_performance() -> None:
    """Alpha (3000) beats Beta (2900) and draws Gamma (2800); Gamma beats Beta by
    forfeit (unplayed, still a win in W/D/L, as in the score). Alpha's performance:
    opponents average 2850, 75 % -> -400 log10(1/0.75 - 1) = +190.8 -> 3041.
    Beta lost to Alpha (the forfeit loss was never played): 0 % is capped at -800
    (FIDE's table) -> 3000 - 800 = 2200."""
    from tcecd.domain import Result
    from tcecd.pairing.base import PlayedGame, RoundRecord
    from tcecd.pairing.standings import standings

    field = (Player("a", "Alpha", 1, 3000), Player("b", "Beta", 2, 2900),
             Player("c", "Gamma", 3, 2800))  # fmt: skip
    records = [
        RoundRecord(1, "c", (), (PlayedGame("a", "b", Result.WHITE_WINS),)),
        RoundRecord(2, "b", (), (PlayedGame("c", "a", Result.DRAW),)),
        RoundRecord(3, "a", (), (PlayedGame("c", "b", Result.WHITE_WINS, played=False),)),
    ]
    table = standings(field, records, double=False, tiebreaks=())
    text = standings_table(table, field, records=records)
    header, _, *rows = text.splitlines()
    assert header.split() == ["Rank", "Player", "Seed", "Score", "BYEs", "Games",
                              "W", "D", "L", "Perf"]  # fmt: skip
    cells = {row.split()[1]: row.split()[6:] for row in rows}
    assert cells["a"] == ["1", "1", "0", "3041"]
    assert cells["b"] == ["0", "0", "2", "2200"]
    # Gamma: a draw with Alpha (3000); the forfeit win over Beta was never played
    # and rates nobody: 50 % of 3000 -> 3000.
    assert cells["c"] == ["1", "1", "0", "3000"]


def test_final_title_says_1_round_not_1_rounds() -> None:
    from types import SimpleNamespace
    from typing import Any

    from tcecd.daemon.table import standings_table as final_table

    rows = (Standing(rank=1, id="a", score_half=2, byes=0, games=1, tiebreaks=()),)
    one: Any = SimpleNamespace(event="Ev", format=SimpleNamespace(rounds=1, double=False))
    seven: Any = SimpleNamespace(event="Ev", format=SimpleNamespace(rounds=7, double=False))
    assert final_table(rows, one).splitlines()[0] == "Final standings: Ev (1 round)"
    assert final_table(rows, seven).splitlines()[0] == "Final standings: Ev (7 rounds)"
