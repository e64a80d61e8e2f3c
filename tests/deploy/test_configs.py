"""The example events in configs/ and the Debian engine definitions they use.

The loader checks that engine programs exist, so these tests need Debian's
stockfish, ethereal-chess, glaurung and toga2 (deploy/install.sh installs
them) and skip, saying which, when one is missing.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.config.load import find_executable, load_engine
from tcecd.game.rules import GameRules
from tests.deploy.helpers import ROOT, load_event_or_skip

CONFIGS = ("fast-test.yaml", "tcec-swiss-long.yaml")


@pytest.mark.parametrize("name", CONFIGS)
def test_tcecd_validate_accepts_the_example(name: str) -> None:
    load_event_or_skip(ROOT / "configs" / name)  # skips when an engine is missing
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["validate", str(ROOT / "configs" / name)])
    assert (code, err.getvalue()) == (0, "")
    assert f"{name}: ok" in out.getvalue()
    # The rule text's recommendations hold, so validate has nothing to note.
    assert "note:" not in out.getvalue()


def test_the_long_event_is_tcec_like() -> None:
    config = load_event_or_skip(ROOT / "configs" / "tcec-swiss-long.yaml")
    players = len(config.engines)
    assert config.pairing.system == "tcec-swiss"
    assert config.pairing.double
    assert players % 2 == 0  # "Even number of players"
    assert config.pairing.rounds <= players // 2  # "at most players / 2 rounds"
    assert config.concurrency == 1  # one game at a time, as TCEC plays
    tc = config.time_control_value()
    assert tc.has_clock
    assert tc.stages[0].base_ms >= 30 * 60 * 1000  # a long time control
    rules = config.adjudication_rules()
    assert rules.draw is not None
    assert (rules.draw.from_move, rules.draw.score_cp, rules.draw.moves) == (35, 15, 5)
    assert rules.win is not None
    assert (rules.win.score_cp, rules.win.moves) == (1000, 5)
    # A game of half an hour or more cannot finish inside a service stop timeout.
    assert config.shutdown.on_signal == "abort"
    names = {engine.name for engine in config.engines}
    assert {"stockfish", "ethereal", "toga2", "glaurung"} <= names


def test_the_fast_event_is_quick_and_has_byes() -> None:
    config = load_event_or_skip(ROOT / "configs" / "fast-test.yaml")
    assert not config.pairing.double
    assert config.pairing.rounds % 2 == 1  # odd number of single rounds
    assert len(config.engines) % 2 == 1  # a BYE every round
    tc = config.time_control_value()
    assert tc.stages[0].base_ms <= 10_000
    assert config.concurrency >= 2
    assert config.adjudication.max_moves is not None


@pytest.mark.parametrize(
    ("definition", "program", "thread_option"),
    [
        ("ethereal", "ethereal-chess", "Threads"),
        ("glaurung", "glaurung", "Threads"),
        ("toga2", "toga2", "Number of Threads"),
    ],
)
def test_engine_definitions_resolve_to_debian_programs(
    definition: str, program: str, thread_option: str
) -> None:
    if find_executable(program) is None:
        pytest.skip(f"{program} is not installed (Debian package; deploy/install.sh)")
    engine = load_engine(definition)
    assert engine.name == definition
    assert Path(engine.command[0]).name == program
    assert engine.options[thread_option] == 1
    assert engine.rating is not None
    if definition != "ethereal":  # Ethereal has no book option
        assert engine.options["OwnBook"] is False  # the event's openings only


@pytest.mark.stockfish
async def test_the_new_definitions_play_a_clocked_game_without_faults() -> None:
    """Each definition starts (every option it sets exists: a typo would be a
    start-up fault), plays under a clock and ends without a fault."""
    from tcecd.domain import GameId
    from tcecd.game.adjudication import AdjudicationRules
    from tcecd.game.timecontrol import TimeControl
    from tcecd.runner.game import GameSetup, play_game
    from tcecd.runner.session import EngineSession

    for program in ("ethereal-chess", "glaurung", "toga2"):
        if find_executable(program) is None:
            pytest.skip(f"{program} is not installed (Debian package; deploy/install.sh)")
    setup = GameSetup(
        game_id=GameId(1, 1),
        event="definitions",
        site="localhost",
        rules=GameRules(
            # A clock, but a depth limit keeps every move far inside it: a loaded
            # test machine must not turn this into a time-forfeit test.
            time_control=TimeControl.parse("60+1 depth=6"),
            margin_ms=1000,
            adjudication=AdjudicationRules(max_moves=15),
        ),
    )
    for white_name, black_name in (("ethereal", "glaurung"), ("glaurung", "toga2")):
        white_cfg, black_cfg = load_engine(white_name), load_engine(black_name)
        async with EngineSession(white_cfg) as white, EngineSession(black_cfg) as black:
            outcome = await play_game(setup, white, black)
        assert outcome.faults == ()
        assert len(outcome.record.moves) >= 10
        assert dict(outcome.record.white_options)["Threads"] == "1"
