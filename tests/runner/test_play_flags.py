"""``tcecd play``'s flags mapped onto the event config's rules and the engines."""

from __future__ import annotations

import argparse

from tcecd.commands.play import add_arguments, adjudication_rules, apply_each
from tcecd.config.engines import EngineConfig
from tcecd.game.adjudication import AdjudicationRules, DrawRule, TablebaseRule, WinRule


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(["a", "b", *argv])


def test_adjudication_flags_build_the_event_rules() -> None:
    args = parse(
        "--draw", "movenumber=40", "movecount=8", "score=10",
        "--resign", "movecount=3", "score=400", "--maxmoves", "150",
        "--tb", "/tables", "--tbpieces", "6",
    )  # fmt: skip
    # The same values as an event config's adjudication section with draw
    # {from_move: 40, score: 0.10, moves: 8}, win {score: 4.00, moves: 3},
    # max_moves 150, tablebases {max_pieces: 6} (scores in centipawns here).
    assert adjudication_rules(args) == AdjudicationRules(
        draw=DrawRule(from_move=40, score_cp=10, moves=8),
        win=WinRule(score_cp=400, moves=3),
        tablebase=TablebaseRule(6),
        max_moves=150,
    )


def test_no_adjudication_flags_no_rules() -> None:
    assert adjudication_rules(parse()) == AdjudicationRules()


def test_draw_defaults_follow_fastchess() -> None:
    """movenumber defaults to 0 and movecount to 1."""
    rules = adjudication_rules(parse("--draw", "score=5"))
    assert rules.draw == DrawRule(from_move=0, score_cp=5, moves=1)


def test_each_sets_options_restart_and_limits() -> None:
    args = parse("--each", "tc=10+0.1", "option.Hash=16", "restart=off", "plies=3", "st=0.5")
    engine = EngineConfig(name="x", command=("x",), options={"Threads": 2, "Hash": 1})
    [out] = apply_each(args, [engine])
    assert out.options == {"Threads": 2, "Hash": 16}  # --each overrides the definition
    assert out.restart == "keep-alive"
    assert (args.tc, args.depth, args.movetime) == ("10+0.1", 3, 500)
