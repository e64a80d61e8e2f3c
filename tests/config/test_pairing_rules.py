"""The event config's rules: ``pairing.forbidden_pairs``, ``pairing.points``
and ``pairing.acceleration`` become the context every round is paired with
(``EventConfig.pairing_context``), the standings' point system, part of the
resume fingerprint, and lines of ``tcecd validate``. (Bad values:
tests/config/test_bad_configs.py.)"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.config.event import EventConfig
from tcecd.config.fingerprint import config_fingerprint
from tcecd.pairing.base import Player
from tcecd.pairing.points import STANDARD, parse_points
from tcecd.replay.session import players_from_config
from tests.fixtures.event_config import write_event

FOUR = ["ab-d1", "ab-d2", "ab-d3", {"ref": "ab-d1", "name": "ab-x", "rating": 900}]


def test_no_rules_is_the_plain_context(event_config: Callable[..., EventConfig]) -> None:
    config = event_config(pairing={"system": "dutch", "rounds": 3})
    context = config.pairing_context(players_from_config(config))
    assert context.total_rounds == 3
    assert (context.forbidden_pairs, context.points, bool(context.acceleration)) == (
        frozenset(),
        STANDARD,
        False,
    )
    assert "forbidden_pairs" not in config_fingerprint(config)["pairing"]  # type: ignore[operator]


def test_rules_become_the_pairing_context(event_config: Callable[..., EventConfig]) -> None:
    config = event_config(
        pairing={
            "system": "dutch",
            "rounds": 5,
            "forbidden_pairs": [["ab-d1", "ab-x"]],
            "points": "3-1-0",
            "acceleration": {"ab-d3": [1, 0.5]},
        },
        engines=FOUR,
    )
    players = players_from_config(config)
    context = config.pairing_context(players)
    assert context.forbidden_pairs == {frozenset(("ab-d1", "ab-x"))}
    # 3-1-0 counts in whole points; the half virtual point needs halves.
    assert context.points.unit == 2
    assert context.points.values() == parse_points("3-1-0").values()
    assert context.acceleration.by_player() == {"ab-d3": (2, 1)}
    assert config.point_system() == context.points  # the standings' system
    pairing = config_fingerprint(config)["pairing"]
    assert isinstance(pairing, dict)
    assert pairing["forbidden_pairs"] == [["ab-d1", "ab-x"]]
    assert pairing["points"] == "3-1-0"
    assert pairing["acceleration"] == {"ab-d3": [1, 0.5]}


def test_baku_follows_the_seeds(event_config: Callable[..., EventConfig]) -> None:
    """Rating seeding (the Dutch default): ab-d3 (1800), ab-d2 (1400), ab-d1
    (1000), ab-x (900); GA = 2 * (4 / 4) = the first two by seed."""
    config = event_config(pairing={"system": "dutch", "rounds": 3, "acceleration": "baku"},
                          engines=FOUR)
    players = players_from_config(config)
    assert [p.id for p in sorted(players, key=lambda p: p.seed)][:2] == ["ab-d3", "ab-d2"]
    # Three rounds: two accelerated, one point in the first, half in the second.
    assert config.pairing_context(players).acceleration.by_player() == {
        "ab-d3": (2, 1),
        "ab-d2": (2, 1),
    }


def test_validate_lists_the_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_event(
        tmp_path,
        pairing={
            "system": "dubov",
            "rounds": 3,
            "points": {"win": 3, "draw": 1, "pairing_bye": 1},
            "acceleration": "baku",
            "forbidden_pairs": [["ab-d1", "ab-d2"]],
        },
    )
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.endswith(
        "pairing.acceleration: 'baku' (FIDE C.04.5.1) applies only to the standard point "
        "system (win 1, draw 0.5), not {'win': 3, 'draw': 1, 'pairing_bye': 1}\n"
    )
    path = write_event(
        tmp_path,
        pairing={
            "system": "dubov",
            "rounds": 3,
            "points": {"win": 3, "draw": 1, "pairing_bye": 1},
            "forbidden_pairs": [["ab-d1", "ab-d2"]],
        },
    )
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  points:       win 3, draw 1, loss 0, pairing_bye 1" in out
    assert "  forbidden:    ab-d1 - ab-d2" in out


async def test_the_daemon_pairs_and_ranks_with_the_rules(tmp_path: Path) -> None:
    """A Dutch event with a forbidden pair and 3-1-0 points, played by the
    daemon (a scripted player: White wins every game): the forbidden pair never
    meets in two rounds (a third is impossible: four players, one pair
    forbidden), and the standings count 3 points a win."""
    import io

    from tcecd.config.event_file import load_event
    from tcecd.daemon import run_event_async
    from tcecd.daemon.settings import from_config
    from tcecd.store import EventStore
    from tests.daemon.test_runner_logic import ScriptedPlayer, _game, _record

    path = write_event(
        tmp_path,
        engines=FOUR,
        pairing={"system": "dutch", "rounds": 2, "points": "3-1-0",
                 "forbidden_pairs": [["ab-d1", "ab-d2"]]},
    )  # fmt: skip
    settings = from_config(load_event(path))

    async def play(job: object) -> object:
        from tcecd.execution.job import GameResult

        return GameResult(_record(job.game_id, _game(job)))  # type: ignore[attr-defined]

    done = await run_event_async(settings, out=io.StringIO(), install_signals=False,
                                 player=ScriptedPlayer(play))  # type: ignore[arg-type]
    assert done
    with EventStore(settings.state_dir) as store:
        games = store.games()
    assert len(games) == 4
    assert all({g.white, g.black} != {"ab-d1", "ab-d2"} for g in games)
    wins: dict[str, int] = {}
    for g in games:
        wins[g.white] = wins.get(g.white, 0) + 1
    table = (settings.state_dir / "tcec" / "crosstable.json").read_text(encoding="utf-8")
    import json

    scores = {n: row["Score"] for n, row in json.loads(table)["Table"].items()}
    assert scores == {n: 3 * wins.get(n, 0) for n in scores}


def test_pairing_context_of_players_without_seeds_recorded(
    event_config: Callable[..., EventConfig],
) -> None:
    config = event_config(pairing={"system": "dutch", "rounds": 3, "points": "2-1-0"})
    players = (Player("ab-d1", "ab-d1", 1), Player("ab-d2", "ab-d2", 2))
    assert config.pairing_context(players).points.values()["win_white"] == Fraction(2)
