"""Configured engine options against what the engine declares (pure checks).

The declared options are built as python-chess builds them from ``option name
... type ...`` lines, in python-chess's own option map (case-insensitive for
UCI, as the UCI protocol compares names)."""

from __future__ import annotations

import chess.engine

from tcecd.runner.options import option_problems


def _uci(*options: chess.engine.Option) -> chess.engine.UciOptionMap[chess.engine.Option]:
    declared: chess.engine.UciOptionMap[chess.engine.Option] = chess.engine.UciOptionMap()
    for option in options:
        declared[option.name] = option
    return declared


SKILL = chess.engine.Option("Skill Level", "spin", 20, 0, 20, None)
HASH = chess.engine.Option("Hash", "spin", 16, 1, 33554432, None)
PONDER_LIKE = chess.engine.Option("UCI_ShowWDL", "check", False, None, None, None)
STYLE = chess.engine.Option("Style", "combo", "Normal", None, None, ["Solid", "Normal", "Risky"])
LOG = chess.engine.Option("Debug Log File", "string", "", None, None, None)
CLEAR = chess.engine.Option("Clear Hash", "button", None, None, None, None)
MULTIPV = chess.engine.Option("MultiPV", "spin", 1, 1, 500, None)
DECLARED = _uci(SKILL, HASH, PONDER_LIKE, STYLE, LOG, CLEAR, MULTIPV)


def test_good_values_pass_and_names_compare_without_case() -> None:
    # UCI option names are case-insensitive: "hash" is the engine's "Hash".
    wanted = {
        "hash": 64,
        "Skill Level": "7",  # a spin value may be written as text
        "UCI_ShowWDL": True,
        "Style": "Risky",
        "Debug Log File": "/tmp/x.log",
        "Clear Hash": True,  # a button takes no value: anything goes
    }
    assert option_problems(DECLARED, wanted) == []


def test_a_typo_is_named_with_the_nearest_declared_option() -> None:
    assert option_problems(DECLARED, {"Skil Level": 10}) == [
        "option 'Skil Level': no such option (did you mean 'Skill Level'?)"
    ]
    assert option_problems(DECLARED, {"Contempt": 10}) == ["option 'Contempt': no such option"]


def test_spin_values_must_be_whole_numbers_within_min_max() -> None:
    # Skill Level is declared "min 0 max 20": 21 is one too many, -1 one too few.
    assert option_problems(DECLARED, {"Skill Level": 21}) == [
        "option 'Skill Level': 21 is above the maximum 20 (spin 0..20)"
    ]
    assert option_problems(DECLARED, {"Skill Level": -1}) == [
        "option 'Skill Level': -1 is below the minimum 0 (spin 0..20)"
    ]
    # python-chess would truncate 1.5 to 1 and take True for 1: both are mistakes.
    assert option_problems(DECLARED, {"Hash": 1.5, "Skill Level": True}) == [
        "option 'Hash': expected an integer (spin 1..33554432), got 1.5",
        "option 'Skill Level': expected an integer (spin 0..20), got True",
    ]


def test_combo_check_and_string_values() -> None:
    assert option_problems(DECLARED, {"Style": "risky"}) == [
        "option 'Style': 'risky' is not one of: Solid, Normal, Risky (did you mean 'Risky'?)"
    ]
    assert option_problems(DECLARED, {"Style": "Wild"}) == [
        "option 'Style': 'Wild' is not one of: Solid, Normal, Risky"
    ]
    # python-chess reads any text but "false" as true: "yes" must not pass unseen.
    assert option_problems(DECLARED, {"UCI_ShowWDL": "yes", "Debug Log File": "a\nb"}) == [
        "option 'UCI_ShowWDL': expected true or false (check), got 'yes'",
        "option 'Debug Log File': a line break in the value",
    ]
    assert option_problems(DECLARED, {"UCI_ShowWDL": "FALSE"}) == []


def test_managed_options_are_refused_even_when_declared() -> None:
    # python-chess sets MultiPV before every search and refuses a configured one.
    assert option_problems(DECLARED, {"multipv": 3}, origin=" (--option)") == [
        "option 'multipv' (--option): set by tcecd's engine layer (python-chess) for every "
        "search; remove it"
    ]


def test_xboard_names_compare_exactly() -> None:
    # python-chess keeps xboard options in a plain dict: names are case-sensitive there.
    declared = {"memory": chess.engine.Option("memory", "spin", 16, 1, 1024, None)}
    assert option_problems(declared, {"memory": 32}) == []
    assert option_problems(declared, {"Memory": 32}) == [
        "option 'Memory': no such option (did you mean 'memory'?)"
    ]
