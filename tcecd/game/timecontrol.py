"""Time controls: parsing cutechess-style ``tc=`` text and describing it.

The reference syntax is cutechess-cli's ``tc=``: ``[moves/]time[+increment]``,
time and increment in seconds (fractions allowed), ``inf`` for no clock. TCEC
events use several stages (e.g. 120 minutes for 40 moves, then 60 minutes + 30 s
increment for the rest); tcecd writes them joined by ``:`` as the PGN
``TimeControl`` tag does: ``"40/7200:3600+30"``. A stage with a move count that
is the last one repeats (``40/7200`` gives 7200 s for every 40 moves).

Limits without a clock combine with it as extra words: ``"60+0.6 nodes=20000"``,
``"st=5"`` (5 s per move, cutechess's name), ``"movetime=5"``, ``"depth=12"``.
Everything is integer milliseconds inside; this module is pure.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

_STAGE_RE = re.compile(
    r"^(?:(?P<moves>\d+)/)?(?P<base>\d+(?:\.\d*)?|\.\d+)(?:\+(?P<inc>\d+(?:\.\d*)?|\.\d+))?$"
)
_NO_CLOCK = frozenset({"inf", "infinite", "-", "none"})

#: The longest time any part of a time control may give: a stage's base time, its
#: increment, a fixed move time. 24 hours is far beyond any engine event's clock
#: (TCEC's longest is a few hours); a larger value is a typo, and an absurd one
#: (``99999999999999999999+0``) would make the first move never come.
MAX_TIME_MS = 24 * 3_600_000
#: The most moves a stage may cover, and the largest node or depth limit. Engines read
#: these as machine integers; no game is longer than a few hundred moves.
MAX_STAGE_MOVES = 1_000
MAX_LIMIT = 2**63 - 1
#: Longer numbers are refused before they are converted (a config is hostile input).
_MAX_DIGITS = 30


def _seconds_to_ms(text: str) -> int:
    """Seconds (decimal text) to whole milliseconds, rounding half up."""
    return int((Decimal(text) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def _ms_to_seconds(ms: int) -> str:
    """Milliseconds as the shortest decimal seconds text (``600`` -> ``"0.6"``)."""
    if ms % 1000 == 0:
        return str(ms // 1000)
    return f"{ms / 1000:.3f}".rstrip("0").rstrip(".")


def _human(ms: int) -> str:
    """Milliseconds as a short human duration: ``"2h"``, ``"90min"``, ``"0.6s"``."""
    if ms >= 3_600_000 and ms % 3_600_000 == 0:
        return f"{ms // 3_600_000}h"
    if ms >= 60_000 and ms % 60_000 == 0:
        return f"{ms // 60_000}min"
    return f"{_ms_to_seconds(ms)}s"


@dataclass(frozen=True)
class Stage:
    """One period of a clock: ``base_ms`` for ``moves`` moves (``None``: the
    rest of the game), plus ``increment_ms`` after every move in the stage."""

    moves: int | None
    base_ms: int
    increment_ms: int = 0

    def __post_init__(self) -> None:
        if self.moves is not None and self.moves < 1:
            raise ValueError(f"invalid stage: moves must be at least 1, got {self.moves!r}")
        if self.base_ms < 0 or self.increment_ms < 0:
            raise ValueError(
                f"invalid stage: negative time ({self.base_ms!r} ms + {self.increment_ms!r} ms)"
            )
        if self.base_ms == 0 and self.increment_ms == 0:
            raise ValueError("invalid stage: no time at all (base and increment are 0)")
        if self.moves is not None and self.moves > MAX_STAGE_MOVES:
            raise ValueError(
                f"invalid stage: {self.moves!r} moves, more than the limit of {MAX_STAGE_MOVES}"
            )
        for ms in (self.base_ms, self.increment_ms):
            _check_time(ms)

    def pgn(self) -> str:
        """The stage in PGN ``TimeControl`` / cutechess syntax."""
        text = _ms_to_seconds(self.base_ms)
        if self.moves is not None:
            text = f"{self.moves}/{text}"
        if self.increment_ms:
            text += f"+{_ms_to_seconds(self.increment_ms)}"
        return text

    def describe(self) -> str:
        text = _human(self.base_ms)
        if self.increment_ms:
            text += f" + {_ms_to_seconds(self.increment_ms)}s/move"
        if self.moves is not None:
            text += f" for {self.moves} moves"
        return text


@dataclass(frozen=True)
class TimeControl:
    """A game's time control: clock stages and/or per-move limits.

    ``stages`` empty means no clock. ``movetime_ms`` is a fixed think time per
    move (the flag falls when it is exceeded, see :mod:`tcecd.game.clock`);
    ``nodes`` and ``depth`` are search limits passed to the engine and do not
    make anyone lose on time. All four combine.
    """

    stages: tuple[Stage, ...] = ()
    movetime_ms: int | None = None
    nodes: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        if self.movetime_ms is not None:
            _check_time(self.movetime_ms)
        for stage in self.stages[:-1]:
            if stage.moves is None:
                raise ValueError(
                    "invalid time control: only the last stage may run to the end of the game"
                )
        for name in ("movetime_ms", "nodes", "depth"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"invalid time control: {name} must be positive, got {value!r}")
            if value is not None and value > MAX_LIMIT:
                raise ValueError(f"invalid time control: {name} {value!r} is too large")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Parse ``tc`` text; raises ``ValueError`` quoting the bad text.

        Examples: ``"40/7200"``, ``"60+0.6"``, ``"40/7200:3600+30"``, ``"inf"``,
        ``"st=5"``, ``"60+0.6 nodes=20000"``, ``"inf depth=10"``.
        """
        words = text.replace(",", " ").split()
        if not words:
            raise ValueError(f"invalid time control: {text!r} (empty)")
        stages: tuple[Stage, ...] = ()
        movetime_ms: int | None = None
        nodes: int | None = None
        depth: int | None = None
        clock_seen = False
        try:
            for word in words:
                key, sep, value = word.partition("=")
                key = key.lower()
                if sep:
                    if key in ("st", "movetime"):
                        movetime_ms = _positive_ms(value, word)
                    elif key == "nodes":
                        nodes = _positive_int(value, word)
                    elif key == "depth":
                        depth = _positive_int(value, word)
                    elif key == "tc" and not clock_seen:
                        stages = _parse_stages(value)
                        clock_seen = True
                    else:
                        raise ValueError(f"unknown limit {word!r}")
                elif not clock_seen:
                    stages = _parse_stages(word)
                    clock_seen = True
                else:
                    raise ValueError(f"second clock {word!r}")
            tc = cls(stages, movetime_ms, nodes, depth)
        except ValueError as exc:
            raise ValueError(f"invalid time control: {text!r} ({exc})") from None
        return tc

    @property
    def has_clock(self) -> bool:
        """True when each side has a running clock (stages)."""
        return bool(self.stages)

    def pgn_tag(self) -> str:
        """The PGN ``TimeControl`` tag: ``"40/7200"``, ``"60+0.6"``, stages
        joined by ``":"``, ``"-"`` when there is no clock."""
        if not self.stages:
            return "-"
        return ":".join(stage.pgn() for stage in self.stages)

    def text(self) -> str:
        """Round-trippable text: ``TimeControl.parse(tc.text()) == tc``."""
        words = [self.pgn_tag() if self.stages else "inf"]
        if self.movetime_ms is not None:
            words.append(f"st={_ms_to_seconds(self.movetime_ms)}")
        if self.nodes is not None:
            words.append(f"nodes={self.nodes}")
        if self.depth is not None:
            words.append(f"depth={self.depth}")
        return " ".join(words)

    def describe(self) -> str:
        """A one-line human description, e.g. ``"2h for 40 moves, then 1h + 30s/move"``."""
        parts: list[str] = []
        if self.stages:
            text = ", then ".join(stage.describe() for stage in self.stages)
            last = self.stages[-1]
            if last.moves is not None:
                text += ", repeating"
            parts.append(text)
        if self.movetime_ms is not None:
            parts.append(f"{_ms_to_seconds(self.movetime_ms)}s per move")
        if self.nodes is not None:
            parts.append(f"{self.nodes} nodes per move")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        return "; ".join(parts) if parts else "no limit"


def _check_time(ms: int) -> None:
    if ms > MAX_TIME_MS:
        raise ValueError(
            f"{_ms_to_seconds(ms)} s is more than the limit of {MAX_TIME_MS // 1000} s (24 h)"
        )


def _parse_stages(text: str) -> tuple[Stage, ...]:
    if text.lower() in _NO_CLOCK:
        return ()
    stages: list[Stage] = []
    for part in text.split(":"):
        match = _STAGE_RE.match(part)
        if match is not None and any(len(n or "") > _MAX_DIGITS for n in match.groups()):
            raise ValueError(f"number too long in stage {part[:40]!r}")
        if match is None:
            raise ValueError(f"bad stage {part!r}, expected [moves/]seconds[+increment]")
        moves = int(match["moves"]) if match["moves"] is not None else None
        inc = _seconds_to_ms(match["inc"]) if match["inc"] is not None else 0
        stages.append(Stage(moves, _seconds_to_ms(match["base"]), inc))
    return tuple(stages)


def _positive_int(value: str, word: str) -> int:
    if len(value) > _MAX_DIGITS:
        raise ValueError(f"{word[:40]!r} has too many digits")
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{word!r} needs a positive whole number")
    return int(value)


def _positive_ms(value: str, word: str) -> int:
    if len(value) > _MAX_DIGITS:
        raise ValueError(f"{word[:40]!r} has too many digits")
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"{word!r} needs a number of seconds") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"{word!r} needs a positive number of seconds")
    if seconds > MAX_TIME_MS / 1000:
        raise ValueError(f"{word!r} is more than the limit of {MAX_TIME_MS // 1000} s (24 h)")
    ms = _seconds_to_ms(value)
    if ms < 1:
        raise ValueError(f"{word!r} is shorter than a millisecond")
    return ms
