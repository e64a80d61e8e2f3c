"""The rules of one game, as one value from the config to the game.

:class:`GameRules` is everything that decides how a game is played and judged
besides who plays it and from which position: the time control and its
margin, the adjudication rules, what an engine fault does, the tablebases'
location, how long a silent engine is waited for, and the variant (standard
chess or Chess960). An event config
(:func:`tcecd.daemon.settings.from_config`) and ``tcecd play`` build one; the
game job carries it unchanged to wherever the game is played (this process
or a Dask worker: :mod:`tcecd.execution.job` encodes it), and the game loop
(:mod:`tcecd.runner.game`) reads it. No layer copies it field by field, so a
setting added here reaches every game of every command.

Also here, as the one home of each: the clock a game starts with
(:func:`game_clock`: each side under its engine's own limits, if any) and the
``WhiteTimeControl``/``BlackTimeControl`` tags that say so
(:func:`side_time_control_tags`). Pure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tcecd.domain import Color
from tcecd.game.adjudication import AdjudicationRules, DrawRule, TablebaseRule, WinRule
from tcecd.game.clock import Clock
from tcecd.game.timecontrol import TimeControl

if TYPE_CHECKING:
    from tcecd.config.engines import EngineConfig
    from tcecd.game.chess960 import Variant
    from tcecd.game.record import Opening

#: What an engine fault (crash, stall, illegal or malformed move, failed start)
#: does: the offender loses, or the game is played again.
FaultPolicy = Literal["lose", "replay"]

#: Extra wait after a clocked move's deadline before a silent engine counts as stalled.
STALL_GRACE_MS = 2_000
#: Per-move wait when there is no clock and no move time (nodes/depth only).
STALL_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class GameRules:
    """How one game is played and judged (see the module docstring)."""

    time_control: TimeControl
    #: Tolerance before a flag falls (engine I/O, process scheduling), ms.
    margin_ms: int = 200
    adjudication: AdjudicationRules = field(default_factory=AdjudicationRules)
    fault_policy: FaultPolicy = "lose"
    #: Syzygy directories joined by ``os.pathsep`` (a path where the game is played).
    tablebase_path: str | None = None
    stall_grace_ms: int = STALL_GRACE_MS
    stall_timeout_ms: int = STALL_TIMEOUT_MS
    #: Standard chess or Chess960: a Chess960 game is played from a Chess960
    #: opening (:func:`game_opening`), and the engines are told (UCI
    #: ``UCI_Chess960``, xboard ``variant fischerandom``: python-chess sets both
    #: from the board, tcecd.runner.session).
    variant: Variant = "standard"

    def with_time_control(self, tc: TimeControl) -> GameRules:
        """The same rules under another time control (a cup's tiebreak games)."""
        return dataclasses.replace(self, time_control=tc)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready encoding (a game job crossing the network)."""
        return {
            "time_control": self.time_control.text(),
            "margin_ms": self.margin_ms,
            "adjudication": dataclasses.asdict(self.adjudication),
            "fault_policy": self.fault_policy,
            "tablebase_path": self.tablebase_path,
            "stall_grace_ms": self.stall_grace_ms,
            "stall_timeout_ms": self.stall_timeout_ms,
            "variant": self.variant,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRules:
        """Inverse of :meth:`to_dict` (``KeyError``/``TypeError``/``ValueError``
        on a malformed value: the caller names what it was reading)."""
        adj = d["adjudication"]
        draw, win, tb = adj.get("draw"), adj.get("win"), adj.get("tablebase")
        policy = d["fault_policy"]
        if policy not in ("lose", "replay"):
            raise ValueError(f"invalid fault policy: {policy!r}")
        variant = d.get("variant", "standard")
        if variant not in ("standard", "chess960"):
            raise ValueError(f"invalid variant: {variant!r}")
        return cls(
            time_control=TimeControl.parse(d["time_control"]),
            margin_ms=int(d["margin_ms"]),
            adjudication=AdjudicationRules(
                draw=None if draw is None else DrawRule(**draw),
                win=None if win is None else WinRule(**win),
                tablebase=None if tb is None else TablebaseRule(**tb),
                max_moves=adj.get("max_moves"),
            ),
            fault_policy=policy,
            tablebase_path=d.get("tablebase_path"),
            stall_grace_ms=int(d.get("stall_grace_ms", STALL_GRACE_MS)),
            stall_timeout_ms=int(d.get("stall_timeout_ms", STALL_TIMEOUT_MS)),
            variant=variant,
        )


def game_opening(rules: GameRules, opening: Opening) -> Opening:
    """The opening as a game under ``rules`` plays it: a Chess960 game's start
    position has Chess960 castling (the openings of a Chess960 event are loaded
    so; this is the one place a game makes sure of it)."""
    if rules.variant == "chess960" and not opening.chess960:
        return dataclasses.replace(opening, chess960=True)
    return opening


def game_clock(rules: GameRules, white: EngineConfig, black: EngineConfig) -> Clock:
    """The clock a game starts with: each side under its engine's own limits,
    if it has any (an engine entry's ``tc``, ``nodes``...), else the rules'
    time control."""
    return Clock.start(
        white.time_control(rules.time_control),
        rules.margin_ms,
        black_tc=black.time_control(rules.time_control),
    )


def side_time_control_tags(clock: Clock, event: TimeControl) -> tuple[tuple[str, str], ...]:
    """``WhiteTimeControl``/``BlackTimeControl`` PGN tags (the names TCEC's
    viewer reads) when a side plays under other limits than the event's
    ``TimeControl`` tag says: an engine's own ``tc``, ``nodes``, ``depth`` or
    ``movetime_ms``. Written as the config writes them (``60+0.6``, ``inf
    nodes=5000``). None when both sides play the event's."""
    white, black = clock.time_control(Color.WHITE), clock.time_control(Color.BLACK)
    if white == event and black == event:
        return ()
    return (("WhiteTimeControl", white.text()), ("BlackTimeControl", black.text()))
