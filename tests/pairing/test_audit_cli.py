"""Audit of ``tcecd pair`` / ``tcecd simulate`` on edge inputs (in-process
through ``tcecd.cli.main``): sane output, one-line errors, exit code 2."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from tcecd.cli import main


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    stdin: str = "",
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def doc(n: int, rounds: list[dict[str, Any]] | None = None, double: bool = False) -> str:
    players = [{"id": chr(65 + i), "name": f"e{i}", "seed": i + 1} for i in range(n)]
    return json.dumps({"players": players, "double": double, "rounds": rounds or []})


def one_line_error(code: int, err: str) -> str:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "Traceback" not in err
    return lines[0]


def test_pair_two_players_round_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rule text: "The 1st round pairing is: seed2-seed1": B white, A first-of-pair.
    code, out, _ = run(capsys, monkeypatch, ["pair", "-"], doc(2))
    assert code == 0
    got = json.loads(out)
    assert got["round"] == 1
    assert got["bye"] is None
    assert got["games"] == [{"white": "B", "black": "A"}]
    assert got["pairs"] == [{"first": "A", "second": "B"}]


def test_pair_double_odd_field(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three players, double: BYE C (lowest seed, no BYEs); pair (A, B), A black first.
    code, out, _ = run(capsys, monkeypatch, ["pair", "-"], doc(3, double=True))
    assert code == 0
    got = json.loads(out)
    assert got["bye"] == "C"
    assert got["games"] == [{"white": "B", "black": "A"}, {"white": "A", "black": "B"}]


def test_pair_double_round_with_one_game_names_the_missing_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A double round record where A and B played only one of their two games:
    # the error must say so, not that the players were "not paired".
    rounds = [
        {
            "round": 1,
            "bye": "C",
            "removed_history_rounds": [],
            "games": [{"white": "B", "black": "A", "result": "1-0"}],
        }
    ]
    code, _, err = run(capsys, monkeypatch, ["pair", "-"], doc(3, rounds, double=True))
    line = one_line_error(code, err)
    assert "$.rounds[0].games" in line
    assert "'A'" in line
    assert "1 game" in line
    assert "not paired" not in line


@pytest.mark.parametrize(
    ("stdin", "expected"),
    [
        ('{"players": []}', "no players"),
        ("not json", "not JSON"),
        (
            doc(2, [{"round": 2, "bye": None, "removed_history_rounds": [], "games": []}]),
            "expected round 1",
        ),
        (
            doc(2, [{"round": 1, "bye": None, "removed_history_rounds": [], "games": []}]),
            "not paired",
        ),
    ],
)
def test_pair_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: str, expected: str
) -> None:
    code, _, err = run(capsys, monkeypatch, ["pair", "-"], stdin)
    assert expected in one_line_error(code, err)


@pytest.mark.parametrize(
    ("players", "rounds", "double"),
    # (A field of one is refused: tests/pairing/test_cli.py.)
    [(2, 3, False), (3, 1, False), (3, 5, False), (5, 3, True), (4, 9, False)],
)
def test_simulate_edge_fields(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    players: int,
    rounds: int,
    double: bool,
) -> None:
    argv = ["simulate", "--players", str(players), "--rounds", str(rounds), "--json"]
    code, out, _ = run(capsys, monkeypatch, argv + (["--double"] if double else []))
    assert code == 0
    got = json.loads(out)
    assert len(got["rounds"]) == rounds
    per_game = 2 if double else 1
    total = 0.0
    for r in got["rounds"]:
        # Every player is paired or has the BYE; the BYE exactly when P is odd.
        assert (r["bye"] is not None) == (players % 2 == 1)
        assert len(r["games"]) == per_game * (players // 2)
        total += per_game * (players // 2) + (per_game if r["bye"] else 0)
    # Points handed out: one per game plus a win per game of the round for the BYE.
    assert sum(s["score"] for s in got["standings"]) == total


def test_simulate_zero_players_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run(capsys, monkeypatch, ["simulate", "--players", "0", "--rounds", "1"])
    assert "--players" in one_line_error(code, err)
