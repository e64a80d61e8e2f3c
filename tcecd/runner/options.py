"""Checking configured engine options against what the engine declares (pure).

An engine announces its options at start-up (UCI ``option name Hash type spin
default 16 min 1 max 33554432``, xboard ``feature option="..."``); python-chess
collects them as :class:`chess.engine.Option` values, keyed case-insensitively
for UCI (the UCI protocol compares option names without regard to case) and
exactly for xboard. :func:`option_problems` compares a config's options with
them and returns one readable problem per bad option, so a typo (``Skil
Level``) or an out-of-range value is reported before the first game instead of
becoming a start-up fault and a strike in every game of that engine.

The value rules are the protocols' types, a little stricter than python-chess's
own parsing (which truncates ``1.5`` to ``1`` and treats any text but
``false`` as true):

- ``spin``: an integer (YAML ``16`` or the text ``"16"``) within min..max;
- ``check``: ``true``/``false`` (a YAML boolean or that text, any case);
- ``combo``: one of the declared values, exactly as declared;
- ``string``/``file``/``path``: any text without a line break;
- ``button``/``reset``/``save``: no value is sent, any value is accepted.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

import chess.engine

from tcecd.config.engines import OptionValue

#: Options python-chess sets itself before every search (``Option.is_managed``).
MANAGED = frozenset(name.lower() for name in chess.engine.MANAGED_OPTIONS)


def _spin(option: chess.engine.Option, value: OptionValue) -> str | None:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            number = None
    span = f"{option.min}..{option.max}"
    if number is None:
        return f"expected an integer (spin {span}), got {value!r}"
    if option.min is not None and number < option.min:
        return f"{number} is below the minimum {option.min} (spin {span})"
    if option.max is not None and number > option.max:
        return f"{number} is above the maximum {option.max} (spin {span})"
    return None


def _check(value: OptionValue) -> str | None:
    if isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("true", "false")):
        return None
    return f"expected true or false (check), got {value!r}"


def _combo(option: chess.engine.Option, value: OptionValue) -> str | None:
    choices = list(option.var or [])
    text = value if isinstance(value, str) else str(value)
    if text in choices:
        return None
    same = [c for c in choices if c.lower() == text.lower()]
    hint = f" (did you mean {same[0]!r}?)" if same else ""
    return f"{value!r} is not one of: {', '.join(choices) or '(none)'}{hint}"


def _string(value: OptionValue) -> str | None:
    if isinstance(value, bool):
        return f"expected text (string), got {value!r}"
    if "\n" in str(value) or "\r" in str(value):
        return "a line break in the value"
    return None


def value_problem(option: chess.engine.Option, value: OptionValue) -> str | None:
    """Why ``value`` does not fit ``option``'s declared type and range (None: it fits)."""
    kind = option.type
    if kind == "spin":
        return _spin(option, value)
    if kind == "check":
        return _check(value)
    if kind == "combo":
        return _combo(option, value)
    if kind in ("string", "file", "path"):
        return _string(value)
    if kind in ("button", "reset", "save"):
        return None
    return f"the engine declares an unknown option type {kind!r}"


def option_problems(
    declared: Mapping[str, chess.engine.Option],
    wanted: Mapping[str, OptionValue],
    *,
    origin: str = "",
) -> list[str]:
    """One line per option of ``wanted`` that ``declared`` lacks or whose value
    does not fit, e.g. ``option 'Skil Level': no such option (did you mean
    'Skill Level'?)``. ``declared`` is python-chess's option map (its own key
    comparison: case-insensitive for UCI); ``origin`` is added after the name
    (``" (--option)"``)."""
    problems: list[str] = []
    for name, value in wanted.items():
        label = f"option {name!r}{origin}"
        if name.lower() in MANAGED:
            problems.append(
                f"{label}: set by tcecd's engine layer (python-chess) for every search; remove it"
            )
            continue
        if name not in declared:
            names = [option.name for option in declared.values()]
            lowered = {n.lower(): n for n in names}
            close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
            hint = f" (did you mean {lowered[close[0]]!r}?)" if close else ""
            problems.append(f"{label}: no such option{hint}")
            continue
        problem = value_problem(declared[name], value)
        if problem is not None:
            problems.append(f"{label}: {problem}")
    return problems
