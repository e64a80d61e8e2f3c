"""A round's pairing-allocated byes are a set: the integer program may leave
several players unpaired, and every reader, writer, standings table and
checker takes such a round (issue 24, "The integer program reads its own
events").

The event: six players, white wins every game. The integer program pairs
1-2 3-4 5-6, 4-1 2-5 6-3, 1-6 3-2 5-4 (tests/pairing/test_integer_program.py
works these by hand); then its colour rules allow no game at all, so round 4
leaves all six unpaired, each with a pairing-allocated bye.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.domain import Result
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, RoundContext, RoundRecord
from tcecd.pairing.integer_program import IntegerProgram
from tcecd.pairing.standings import standings
from tcecd.pairing.state_json import dumps, event_to_json, load_event_state
from tcecd.replay.verify import DeviationKind, compare_round
from tcecd.store.codec import pairing_from_dict, pairing_to_dict
from tcecd.trf import TrfEvent, format_pairing, format_trf, parse_trf

from .helpers import field

PLAYERS = field(6)
ALL = frozenset(p.id for p in PLAYERS)


def _history() -> list[RoundRecord]:
    system = IntegerProgram()
    history: list[RoundRecord] = []
    for _ in range(4):
        pairing = system.pair(PLAYERS, history, double=False)
        history.append(
            pairing.record([PlayedGame(g.white, g.black, Result.WHITE_WINS) for g in pairing.games])
        )
    return history


HISTORY = _history()


def test_round_four_leaves_everybody_unpaired() -> None:
    fourth = HISTORY[3]
    assert fourth.games == ()
    assert fourth.byes == ALL
    assert fourth.requested_byes == ()
    with pytest.raises(Exception, match="several pairing-allocated byes"):
        _ = fourth.bye  # one bye is not the question to ask of this round
    table = standings(PLAYERS, HISTORY, double=False)
    # Each: one BYE (a win), and the three games' points.
    assert sorted(s.byes for s in table) == [1] * 6
    assert sum(s.score_units for s in table) == 2 * (9 + 6)


def test_trf_with_six_pairing_allocated_byes_in_a_round(tmp_path: Path) -> None:
    event = TrfEvent("blocked", PLAYERS, tuple(HISTORY), RoundContext(total_rounds=5))
    text = format_trf(event)
    assert text.count("0000 - U") == 6
    path = tmp_path / "blocked.trf"
    path.write_text(text)
    read = parse_trf(text, str(path))
    assert read.rounds[3].byes == {str(p.seed) for p in PLAYERS}
    # tcecd pair reads it and pairs round 5; --check agrees with every round.
    assert main(["pair", "--system", "integer-program", "--check", str(path)]) == 0
    assert main(["pair", "--system", "integer-program", str(path), "-p", str(tmp_path / "o")]) == 0
    pairing = IntegerProgram().pair(read.players, read.rounds, double=False, context=read.context)
    assert (tmp_path / "o").read_text() == format_pairing(pairing, read.players)


def test_json_document_keeps_several_byes_and_reads_the_older_form() -> None:
    doc = event_to_json(PLAYERS, False, HISTORY, system="integer-program")
    assert doc["rounds"][0]["bye"] is None  # at most one: written as before
    assert "bye" not in doc["rounds"][3]
    assert doc["rounds"][3]["byes"] == sorted(ALL)
    state = load_event_state(dumps(doc), "doc.json")
    assert state.rounds == tuple(HISTORY)
    # The older form: the lowest as "bye", the others as kind U requested byes.
    old = json.loads(dumps(doc))
    del old["rounds"][3]["byes"]
    old["rounds"][3]["bye"] = "P1"
    old["rounds"][3]["requested_byes"] = [{"player": f"P{i}", "kind": "U"} for i in range(2, 7)]
    assert load_event_state(json.dumps(old), "old.json").rounds == tuple(HISTORY)


def test_store_keeps_several_byes_and_reads_older_rows() -> None:
    pairing = IntegerProgram().pair(PLAYERS, HISTORY[:3], double=False)
    stored = pairing_to_dict(pairing)
    assert stored["byes"] == sorted(ALL)
    assert pairing_from_dict(json.loads(json.dumps(stored))) == pairing
    older = {"round": 1, "bye": "P3", "removed_history_rounds": [], "pairs": [], "games": []}
    assert pairing_from_dict(older).byes == {"P3"}
    assert pairing_to_dict(pairing_from_dict(older)) == older


def test_replay_compares_the_set_of_byes() -> None:
    expected = IntegerProgram().pair(PLAYERS, HISTORY[:3], double=False)
    assert compare_round(expected, [], sorted(ALL), complete=True) == []
    wrong = compare_round(expected, [], ["P1"], complete=True)
    assert [d.kind for d in wrong] == [DeviationKind.WRONG_BYE]
    assert str(wrong[0]) == (
        "round 4: rules give the BYE to P1, P2, P3, P4, P5, P6; PGN has the BYE to P1 [wrong BYE]"
    )


def test_requested_byes_never_hold_an_allocated_one() -> None:
    record = RoundRecord(1, "P1", (), (), (Bye("P2", ByeKind.PAIRING), Bye("P3", ByeKind.HALF)))
    assert record.byes == {"P1", "P2"}
    assert record.requested_byes == (Bye("P3", ByeKind.HALF),)
