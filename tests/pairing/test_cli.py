"""``tcecd simulate`` and ``tcecd pair``: the public contracts, end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tcecd.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _simulate(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = _run(capsys, "simulate", "--json", *argv)
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_simulate_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _simulate(capsys, "--players", "9", "--rounds", "6", "--seed", "5")
    assert list(doc) == ["system", "double", "players", "rounds", "standings"]
    assert doc["system"] == "tcec-swiss"
    assert doc["double"] is False
    assert len(doc["players"]) == 9
    assert sorted(p["seed"] for p in doc["players"]) == list(range(1, 10))
    assert all(set(p) == {"id", "name", "seed", "rating"} for p in doc["players"])
    ids = {p["id"] for p in doc["players"]}
    assert [r["round"] for r in doc["rounds"]] == [1, 2, 3, 4, 5, 6]
    byes = []
    for rnd in doc["rounds"]:
        assert set(rnd) == {"round", "bye", "removed_history_rounds", "games"}
        assert len(rnd["games"]) == 4
        seen = [pid for g in rnd["games"] for pid in (g["white"], g["black"])]
        assert sorted([*seen, rnd["bye"]]) == sorted(ids)
        assert all(g["result"] in ("1-0", "0-1", "1/2-1/2") for g in rnd["games"])
        byes.append(rnd["bye"])
    assert len(set(byes)) == 6  # nobody gets a second BYE while others have none
    # Standings: ranks 1..9; the total score is one point per game plus one per BYE.
    table = doc["standings"]
    assert [s["rank"] for s in table] == list(range(1, 10))
    assert sum(s["score"] for s in table) == 6 * 4 + 6
    assert list(table[0]["tiebreaks"]) == ["black-games", "sonneborn-berger", "wins"]
    scores = [s["score"] for s in table]
    assert scores == sorted(scores, reverse=True)


def test_simulate_is_byte_identical_for_the_same_arguments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("simulate", "--players", "12", "--rounds", "5", "--seed", "9", "--draw-rate", "0.3")
    outputs = [_run(capsys, *argv, "--json")[1] for _ in range(2)]
    assert outputs[0] == outputs[1]
    texts = [_run(capsys, *argv)[1] for _ in range(2)]
    assert texts[0] == texts[1]
    assert "Final standings" in texts[0]
    assert "Round 5" in texts[0]
    other = _run(capsys, "simulate", "--players", "12", "--rounds", "5", "--seed", "10", "--json")
    assert other[1] != outputs[0]


def test_simulate_double_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _simulate(capsys, "--players", "6", "--rounds", "3", "--double", "--seeding", "rating")
    assert doc["double"] is True
    ratings = [p["rating"] for p in sorted(doc["players"], key=lambda p: p["seed"])]
    assert ratings == sorted(ratings, reverse=True)
    for rnd in doc["rounds"]:
        first, second = rnd["games"][:3], rnd["games"][3:]
        assert [(g["black"], g["white"]) for g in first] == [
            (g["white"], g["black"]) for g in second
        ]


def _without_results(rnd: dict[str, Any]) -> dict[str, Any]:
    return {
        "round": rnd["round"],
        "bye": rnd["bye"],
        "removed_history_rounds": rnd["removed_history_rounds"],
        "games": [{"white": g["white"], "black": g["black"]} for g in rnd["games"]],
    }


@pytest.mark.parametrize("double", [False, True])
def test_pair_reproduces_every_simulated_round(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, double: bool
) -> None:
    # 7 players over 9 rounds: BYEs and history removals included.
    extra = ("--double",) if double else ()
    doc = _simulate(capsys, "--players", "7", "--rounds", "9", "--seed", "3", *extra)
    assert any(r["removed_history_rounds"] for r in doc["rounds"])
    for k, expected in enumerate(doc["rounds"]):
        state = {"system": "tcec-swiss", "double": double, "players": doc["players"]}
        state["rounds"] = doc["rounds"][:k]
        path = tmp_path / f"state{k}.json"
        path.write_text(json.dumps(state))
        code, out, err = _run(capsys, "pair", str(path))
        assert code == 0, err
        got = json.loads(out)
        pairs = got.pop("pairs")
        assert got == _without_results(expected)
        assert len(pairs) == 3
        assert all(set(p) == {"first", "second"} for p in pairs)


def test_pair_accepts_the_whole_simulate_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = _run(capsys, "simulate", "--players", "4", "--rounds", "1", "--json")
    path = tmp_path / "event.json"
    path.write_text(out)
    code, out, err = _run(capsys, "pair", str(path))
    assert code == 0, err
    assert json.loads(out)["round"] == 2


BASE: dict[str, Any] = {
    "players": [
        {"id": "A", "name": "A", "seed": 1, "rating": None},
        {"id": "B", "name": "B", "seed": 2, "rating": 3000},
    ],
    "rounds": [
        {
            "round": 1,
            "bye": None,
            "removed_history_rounds": [],
            "games": [{"white": "B", "black": "A", "result": "1-0"}],
        }
    ],
}


def _bad(path: list[Any], value: Any) -> str:
    doc = json.loads(json.dumps(BASE))
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        ("[]", r"\$: expected an object"),
        (_bad(["players"], KeyError), r"\$: missing key 'players'"),
        (_bad(["system"], "swiss-ish"), r"\$\.system: unsupported system 'swiss-ish'"),
        (_bad(["double"], "yes"), r"\$\.double: expected true or false"),
        (_bad(["players", 1, "seed"], 1), r"\$\.players\[1\]\.seed: duplicate seed 1"),
        (_bad(["players", 1, "seed"], 5), r"\$\.players\[1\]\.seed: seed 5 is not in 1\.\.2"),
        (_bad(["players", 1, "id"], "A"), r"\$\.players\[1\]\.id: duplicate player id 'A'"),
        (_bad(["players", 0, "elo"], 1), r"\$\.players\[0\]\.elo: unknown key 'elo'"),
        (_bad(["rounds", 0, "round"], 2), r"\$\.rounds\[0\]\.round: expected round 1, got 2"),
        (
            _bad(["rounds", 0, "games", 0, "result"], "2-0"),
            r"\$\.rounds\[0\]\.games\[0\]\.result: invalid result '2-0'",
        ),
        (
            _bad(["rounds", 0, "games", 0, "result"], "*"),
            r"\$\.rounds\[0\]\.games\[0\]\.result: invalid result '\*'",
        ),
        (
            _bad(["rounds", 0, "games", 0, "white"], "Z"),
            r"\$\.rounds\[0\]\.games\[0\]\.white: unknown player 'Z'",
        ),
        (_bad(["rounds", 0, "bye"], "A"), r"\$\.rounds\[0\]\.bye: BYE player 'A' also plays"),
        (_bad(["rounds", 0, "games"], []), r"\$\.rounds\[0\]\.games: player 'A' is not paired"),
        (
            _bad(["rounds", 0, "removed_history_rounds"], [1]),
            r"\$\.rounds: round 1: removed history round 1 is not an earlier round",
        ),
    ],
)
def test_pair_rejects_malformed_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "state.json"
    path.write_text(text)
    code, out, err = _run(capsys, "pair", str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"tcecd: error: {path}: ")
    assert re.search(message, err), err


def test_pair_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, "pair", str(tmp_path / "nope.json"))
    assert code == 2
    assert "nope.json: cannot read" in err


def test_double_round_games_must_be_reversed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = json.loads(json.dumps(BASE))
    doc["double"] = True
    doc["rounds"][0]["games"] = [
        {"white": "B", "black": "A", "result": "1-0"},
        {"white": "B", "black": "A", "result": "1-0"},
    ]
    path = tmp_path / "state.json"
    path.write_text(json.dumps(doc))
    code, _, err = _run(capsys, "pair", str(path))
    assert code == 2
    assert "reversed colours" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "0", "--rounds", "1"], "at least two players, not 0"),
        (["--players", "4", "--rounds", "1", "--draw-rate", "1.5"], "--draw-rate"),
        (["--players", "8", "--rounds", "1", "--groups", "3"], "even number of groups"),
        (["--players", "1", "--rounds", "2"], "at least two players, not 1"),
    ],
)
def test_simulate_rejects_bad_arguments(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = _run(capsys, "simulate", *argv)
    assert code == 2
    assert message in err


def test_simulate_tiny_fields(capsys: pytest.CaptureFixture[str]) -> None:
    # Two players: they meet every round, each time after the previous round is
    # removed from the history. (One player is refused: see above.)
    doc = _simulate(capsys, "--players", "2", "--rounds", "3")
    assert [r["removed_history_rounds"] for r in doc["rounds"]] == [[], [1], [2]]
    # Tiebreak values are always floats in the document (0.0, never 0).
    assert all(isinstance(v, float) for s in doc["standings"] for v in s["tiebreaks"].values())


def test_pair_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(BASE)))
    code, out, err = _run(capsys, "pair", "-")
    assert code == 0, err
    # Round 2 of a two-player event: they met in round 1, so round 1 leaves the
    # history. B won with white, so B leads the pairing order (first-of-pair)
    # and has the greater WGD (+1 against -1): B gets black.
    assert json.loads(out) == {
        "round": 2,
        "bye": None,
        "removed_history_rounds": [1],
        "games": [{"white": "A", "black": "B"}],
        "pairs": [{"first": "B", "second": "A"}],
    }
