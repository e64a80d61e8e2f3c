"""``tcecd replay EVENT.pgn --trf OUT.trf``: the event as FIDE's TRF-2016."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.pairing.base import PlayedGame
from tcecd.trf import parse_trf
from tests.fixtures.replay_pgn import simulate_event, tcecd_pgn


def test_replay_exports_trf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every finished round reads back from the TRF as the PGN played it:
    pairing numbers are the seeds, names the engines', the BYE a
    pairing-allocated bye, and `tcecd pair --check` finds the TCEC Swiss
    rounds paired by the rules."""
    players, games, history = simulate_event(5, 3)
    pgn = tmp_path / "event.pgn"
    pgn.write_text(tcecd_pgn(games))
    out = tmp_path / "event.trf"
    assert main(["replay", str(pgn), "--quiet", "--trf", str(out)]) == 0
    event = parse_trf(out.read_text(), "event.trf")
    assert event.name == "tcecd-sim"
    by_seed = {str(p.seed): p.id for p in players}
    assert [p.name for p in event.players] == [p.id for p in players]
    assert len(event.rounds) == len(history) == 3
    for read, played in zip(event.rounds, history, strict=True):
        assert read.bye is not None
        assert by_seed[read.bye] == played.bye
        games = {
            PlayedGame(by_seed[g.white], by_seed[g.black], g.result, g.played) for g in read.games
        }
        assert games == set(played.games)
    capsys.readouterr()
    assert main(["pair", "--system", "tcec-swiss", "--check", str(out)]) == 0
    assert capsys.readouterr().out == "OK: all 3 round(s) agree with the tcec-swiss pairing\n"


def test_replay_trf_of_a_double_round_event_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgn = tmp_path / "double.pgn"
    pgn.write_text(tcecd_pgn(simulate_event(4, 2, double=True)[1]))
    out = tmp_path / "double.trf"
    assert main(["replay", str(pgn), "--quiet", "--trf", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"tcecd: error: --trf {out}: a TRF-2016 file holds one game per round; "
        "double.pgn has double rounds\n"
    )
    assert not out.exists()
