"""``tcecd pair`` on TRF-2016 files, ``--check``, ``simulate --trf`` and the
JSON document's new fields, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.domain import Result
from tcecd.pairing import registry
from tcecd.pairing.base import (
    Bye,
    ByeKind,
    Pair,
    PlayedGame,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    ScheduledGame,
)
from tcecd.pairing.registry import SystemOptions
from tcecd.pairing.state_json import dumps, event_to_json, load_event_state
from tcecd.trf import TrfEvent, format_trf, parse_trf
from tests.trf.helpers import player_line as pl
from tests.trf.test_reader import BAD_CASES


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


class ByNumber:
    """A stub FIDE-style system: the players not on a requested bye, in
    pairing-number order, pair as 1-2, 3-4, ... (the lower number white), the
    last one gets the pairing-allocated bye. Simple enough to check by hand."""

    name = "by-number"

    def __init__(self, options: SystemOptions | None = None) -> None:
        pass

    def pair(
        self,
        players: Sequence[Player],
        history: Sequence[RoundRecord],
        *,
        double: bool,
        context: RoundContext = RoundContext(),  # noqa: B008
    ) -> RoundPairing:
        away = {b.player for b in context.requested_byes}
        field = [p.id for p in sorted(players, key=lambda p: p.seed) if p.id not in away]
        bye = field.pop() if len(field) % 2 else None
        pairs = tuple(Pair(a, b) for a, b in zip(field[::2], field[1::2], strict=True))
        games = tuple(ScheduledGame(i + 1, p.first, p.second, i) for i, p in enumerate(pairs))
        return RoundPairing(len(history) + 1, bye, (), pairs, games, context.requested_byes)

    def rounds_for(self, players: int) -> int | None:
        return None


@pytest.fixture
def by_number(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--system tcec-swiss`` builds the stub (argparse only knows registered names)."""
    monkeypatch.setattr(registry, "get_system", lambda name, options=None: ByNumber())


def test_pair_trf_prints_javafo_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], by_number: None
) -> None:
    # Round 1 done (1-2 draw, 3-4 white wins, 5 the bye); round 2 to pair, and
    # player 3 asked for a half-point bye in round 2's column. The stub pairs
    # the others by number: 1-2, 4-5, and 6 gets the bye -> JaVaFo's -p format:
    # the number of lines that follow (3), "white black" per board, "6 0".
    text = "\n".join(
        [
            pl(1, "A", 2000, "2 w ="),
            pl(2, "B", 1900, "1 b ="),
            pl(3, "C", 1800, "4 w 1", "0000 - H"),
            pl(4, "D", 1700, "3 b 0"),
            pl(5, "E", 1600, "6 w 0"),
            pl(6, "F", 1500, "5 b 1"),
            "XXR 5",
        ]
    )
    path = _write(tmp_path, "event.trf", text + "\n")
    code, out, err = _run(capsys, "pair", "--system", "tcec-swiss", str(path))
    assert (code, err) == (0, "")
    assert out == "3\n1 2\n4 5\n6 0\n"
    # -p FILE: the same bytes in the file, nothing on stdout.
    target = tmp_path / "pairs.txt"
    code, out, err = _run(capsys, "pair", "--system", "tcec-swiss", str(path), "-p", str(target))
    assert (code, out, err) == (0, "", "")
    assert target.read_text() == "3\n1 2\n4 5\n6 0\n"


def test_pair_trf_with_tcec_swiss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Five players, no round yet. TCEC Swiss round 1 (../shared/specs/tcec-swiss.md):
    # the BYE goes to the lowest in the pairing order (5, STEP 1-2); the pairs
    # are 1-2 and 3-4 with the second-of-pair white in round 1 (STEP 5: round
    # mod 4 = 1), played worst pair first (playing order) -> "4 3", "2 1", "5 0".
    text = "\n".join(pl(n, f"P{n}", 3000 - n) for n in range(1, 6)) + "\nXXR 4\n"
    path = _write(tmp_path, "fresh.trf", text)
    code, out, err = _run(capsys, "pair", "--system", "tcec-swiss", str(path))
    assert (code, err) == (0, "")
    assert out == "3\n4 3\n2 1\n5 0\n"


def test_pair_finished_trf_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "\n".join([pl(1, "A", 2000, "2 w 1"), pl(2, "B", 1900, "1 b 0"), "XXR 1"])
    path = _write(tmp_path, "done.trf", text)
    code, _, err = _run(capsys, "pair", "--system", "tcec-swiss", str(path))
    assert code == 2
    assert err == f"tcecd: error: {path}: the event is finished: 1 of 1 rounds played\n"


def _simulated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    trf = tmp_path / "sim.trf"
    code, _, err = _run(
        capsys, "simulate", "--players", "9", "--rounds", "4", "--seed", "3", "--trf", str(trf)
    )
    assert code == 0, err
    return trf


def test_check_simulated_event_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``simulate --trf`` is read back by ``tcecd pair``: every round of a TCEC
    Swiss simulation re-pairs to itself (exit 0)."""
    trf = _simulated(tmp_path, capsys)
    event = parse_trf(trf.read_text(), "sim.trf")
    assert len(event.rounds) == 4
    assert event.context.total_rounds == 4
    code, out, err = _run(capsys, "pair", "--system", "tcec-swiss", "--check", str(trf))
    assert (code, err) == (0, "")
    assert out == "OK: all 4 round(s) agree with the tcec-swiss pairing\n"


def test_check_reports_a_changed_round_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Swap the colours of one game of the last round (4; an earlier round
    would change the colour history of the rounds after it too): the checker
    names round 4 only, with the rules' game white-first and the file's
    reversed."""
    trf = _simulated(tmp_path, capsys)
    event = parse_trf(trf.read_text(), "sim.trf")
    r4 = event.rounds[3]
    g = r4.games[0]
    flipped = {Result.WHITE_WINS: Result.BLACK_WINS, Result.BLACK_WINS: Result.WHITE_WINS}
    swapped = PlayedGame(g.black, g.white, flipped.get(g.result, g.result))
    rounds = list(event.rounds)
    rounds[3] = RoundRecord(4, r4.bye, (), (swapped, *r4.games[1:]), r4.requested_byes)
    tampered = _write(
        tmp_path,
        "tampered.trf",
        format_trf(TrfEvent(None, event.players, tuple(rounds), event.context)),
    )
    code, out, err = _run(capsys, "pair", "--system", "tcec-swiss", "--check", str(tampered))
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert len(lines) == 2
    rules, recorded = lines[0].split("; the event has ")
    assert rules.startswith("round 4: rules give ")
    assert f" {g.white}-{g.black}" in f" {rules.removeprefix('round 4: rules give ')}"
    assert f" {g.black}-{g.white}" in f" {recorded}"
    assert lines[1] == "FAILED: 1 of 4 round(s) differ from the tcec-swiss pairing"


def test_check_with_the_stub(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], by_number: None
) -> None:
    # Round 1 as the stub pairs it (1-2, 3-4, bye 5); round 2 not (1-3 where
    # the stub gives 1-2): exactly round 2 differs.
    text = "\n".join(
        [
            pl(1, "A", 2000, "2 w 1", "3 w 1"),
            pl(2, "B", 1900, "1 b 0", "4 w 1"),
            pl(3, "C", 1800, "4 w 1", "1 b 0"),
            pl(4, "D", 1700, "3 b 0", "2 b 0"),
            pl(5, "E", 1600, "0000 - U", "0000 - U"),
        ]
    )
    path = _write(tmp_path, "e.trf", text)
    code, out, _ = _run(capsys, "pair", "--system", "tcec-swiss", "--check", str(path))
    assert code == 1
    assert out == (
        "round 2: rules give 1-2 3-4, bye 5; the event has 1-3 2-4, bye 5\n"
        "FAILED: 1 of 2 round(s) differ from the tcec-swiss pairing\n"
    )


@pytest.mark.parametrize(("lines", "message"), BAD_CASES)
def test_bad_trf_exits_2_with_one_line(tmp_path: Path, lines: list[str], message: str) -> None:
    """The whole CLI in a subprocess: one line on stderr naming the file, the
    line and the field, exit code 2, no traceback."""
    (tmp_path / "bad.trf").write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "tcecd", "pair", "--system", "tcec-swiss", "bad.trf"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"tcecd: error: {message}\n"


def test_json_new_fields_round_trip_and_old_documents_load() -> None:
    players = (
        Player("A", "Alpha", 1, 2500, "GM"),
        Player("B", "Beta", 2, 2400),
        Player("C", "Gamma", 3, None),
    )
    rounds = (
        RoundRecord(1, None, (), (PlayedGame("A", "B", Result.DRAW),), (Bye("C", ByeKind.HALF),)),
    )
    context = RoundContext(total_rounds=5, requested_byes=(Bye("B", ByeKind.ZERO),))
    doc = event_to_json(players, False, rounds, system="dutch-2017", context=context)
    assert doc["players"][0]["title"] == "GM"
    assert "title" not in doc["players"][1]
    assert doc["rounds"][0]["requested_byes"] == [{"player": "C", "kind": "H"}]
    assert doc["context"] == {
        "total_rounds": 5,
        "first_colour": "white",
        "requested_byes": [{"player": "B", "kind": "Z"}],
    }
    state = load_event_state(dumps(doc), "s.json")
    assert (state.system, state.players, state.rounds, state.context) == (
        "dutch-2017",
        players,
        rounds,
        context,
    )
    # An old document: no system, titles, requested byes or context.
    old = {"players": [{"id": "A", "seed": 1}, {"id": "B", "seed": 2}], "rounds": []}
    state = load_event_state(json.dumps(old), "old.json")
    assert state.system is None
    assert state.context == RoundContext()
    assert state.players[0] == Player("A", "A", 1)


def test_json_check_and_pair_keep_the_json_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "simulate", "--json", "--players", "7", "--rounds", "3")
    assert code == 0
    path = _write(tmp_path, "s.json", out)
    code, out, err = _run(capsys, "pair", "--check", str(path))
    assert (code, err) == (0, "")
    assert out == "OK: all 3 round(s) agree with the tcec-swiss pairing\n"
    code, out, _ = _run(capsys, "pair", str(path))
    assert code == 0
    assert json.loads(out)["round"] == 4


def test_input_kind_by_name_then_content(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.trf` is TRF and `.json` JSON whatever they hold; any other name and
    stdin are TRF when a line starts with 001, else JSON."""
    import io

    trf = "\n".join(pl(n, f"P{n}", 3000 - n) for n in range(1, 5)) + "\n"
    expected = "2\n4 3\n2 1\n"  # TCEC Swiss round 1 (see test_pair_trf_with_tcec_swiss)
    for name in ("event.txt", "event.trf"):
        path = _write(tmp_path, name, trf)
        assert _run(capsys, "pair", "--system", "tcec-swiss", str(path)) == (0, expected, "")
    monkeypatch.setattr("sys.stdin", io.StringIO(trf))
    assert _run(capsys, "pair", "--system", "tcec-swiss", "-") == (0, expected, "")
    path = _write(tmp_path, "event.json", trf)
    code, _, err = _run(capsys, "pair", str(path))
    assert code == 2
    assert err.startswith(f"tcecd: error: {path}: not JSON")
    path = _write(tmp_path, "odd.trf", '{"players": []}\n')
    code, _, err = _run(capsys, "pair", str(path))
    assert code == 2
    assert err == f"tcecd: error: {path}: no player lines (001)\n"
