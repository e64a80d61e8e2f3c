"""The chess clock tcecd keeps for both engines (pure: the runner measures).

The runner measures think time with a monotonic clock from sending ``go`` to
receiving ``bestmove`` and feeds it here; this module decides what the engine
is told (:meth:`Clock.limits`), how long it may think (:meth:`Clock.deadline_ms`),
whether its flag fell and what is left afterwards.

Rules (cutechess-cli semantics, tcecd choices documented in docs/game-rules.md):

- The flag falls when the think time exceeds the time left *plus the margin*
  (``margin_ms`` absorbs process/pipe latency, as cutechess's ``timemargin``).
- A move that arrives within the margin leaves the clock at zero, never below:
  the time left is ``max(0, left - used) + increment``.
- The increment of the stage in which the move was played is added after it.
- When the moves of a stage are done, the next stage's base time is added; the
  last stage, if it has a move count, repeats (``40/7200``: +7200 s every 40
  moves).
- ``movetime``: each move may take at most ``movetime + margin``.
- ``nodes``/``depth`` only: no deadline at all (the runner still applies its
  own stall timeout).
- Each side may have its own time control (an engine entry's own ``tc``,
  ``nodes``... as cutechess-cli's per-engine ``tc=``): each clock then runs,
  and each engine is limited, by its own. A side to move with a clock is told
  both clocks (``wtime``/``btime``, and the increments) where the other side
  has one; a side without a clock is told only its own limits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tcecd.domain import Color
from tcecd.game.timecontrol import TimeControl


@dataclass(frozen=True)
class GoLimits:
    """What one ``go`` command carries (UCI names; None: not sent)."""

    wtime_ms: int | None = None
    btime_ms: int | None = None
    winc_ms: int | None = None
    binc_ms: int | None = None
    movestogo: int | None = None
    movetime_ms: int | None = None
    nodes: int | None = None
    depth: int | None = None


@dataclass(frozen=True)
class SideClock:
    """One player's clock: time left, current stage and moves made in it."""

    left_ms: int
    stage: int = 0
    moves_in_stage: int = 0


@dataclass(frozen=True)
class Clock:
    """Both players' clocks, under one time control or one each (``tc`` is
    White's, ``black_tc`` Black's when it differs). Immutable: every move
    returns a new :class:`Clock` (:meth:`after_move`)."""

    tc: TimeControl
    margin_ms: int
    white: SideClock | None
    black: SideClock | None
    black_tc: TimeControl | None = None

    @classmethod
    def start(
        cls, tc: TimeControl, margin_ms: int = 0, *, black_tc: TimeControl | None = None
    ) -> Clock:
        """Both clocks at the start of a game (``black_tc``: Black's own time
        control, None when it is ``tc``)."""
        if margin_ms < 0:
            raise ValueError(f"invalid time margin: {margin_ms!r} ms (must be >= 0)")
        black_tc = None if black_tc == tc else black_tc

        def side(control: TimeControl) -> SideClock | None:
            return SideClock(control.stages[0].base_ms) if control.stages else None

        return cls(tc, margin_ms, side(tc), side(black_tc or tc), black_tc)

    def time_control(self, color: Color) -> TimeControl:
        """The time control ``color`` plays under."""
        if color is Color.BLACK and self.black_tc is not None:
            return self.black_tc
        return self.tc

    def _side(self, color: Color) -> SideClock | None:
        return self.white if color is Color.WHITE else self.black

    def remaining_ms(self, color: Color) -> int | None:
        """Time left on ``color``'s clock; None when there is no clock."""
        side = self._side(color)
        return None if side is None else side.left_ms

    def increment_ms(self, color: Color) -> int | None:
        """The increment ``color`` gets after its next move; None without a clock."""
        side = self._side(color)
        if side is None:
            return None
        return self.time_control(color).stages[side.stage].increment_ms

    def moves_to_go(self, color: Color) -> int | None:
        """Moves ``color`` must still make before its next time control; None
        when the current stage runs to the end of the game (or no clock)."""
        side = self._side(color)
        if side is None:
            return None
        stage = self.time_control(color).stages[side.stage]
        if stage.moves is None:
            return None
        return stage.moves - side.moves_in_stage

    def limits(self, side_to_move: Color) -> GoLimits:
        """The ``go`` limits for the side to move: both clocks, as UCI wants,
        when it has a clock (none when it has not), and its own per-move limits."""
        own = self.time_control(side_to_move)
        clocked = self._side(side_to_move) is not None
        return GoLimits(
            wtime_ms=self.remaining_ms(Color.WHITE) if clocked else None,
            btime_ms=self.remaining_ms(Color.BLACK) if clocked else None,
            winc_ms=self.increment_ms(Color.WHITE) if clocked else None,
            binc_ms=self.increment_ms(Color.BLACK) if clocked else None,
            movestogo=self.moves_to_go(side_to_move),
            movetime_ms=own.movetime_ms,
            nodes=own.nodes,
            depth=own.depth,
        )

    def deadline_ms(self, color: Color) -> int | None:
        """How long ``color`` may think before its flag falls, margin included;
        None when neither a clock nor a move time limits it."""
        bounds: list[int] = []
        side = self._side(color)
        if side is not None:
            bounds.append(side.left_ms + self.margin_ms)
        movetime_ms = self.time_control(color).movetime_ms
        if movetime_ms is not None:
            bounds.append(movetime_ms + self.margin_ms)
        return min(bounds) if bounds else None

    def flag_fell(self, color: Color, used_ms: int) -> bool:
        """True when thinking ``used_ms`` loses ``color`` the game on time."""
        deadline = self.deadline_ms(color)
        return deadline is not None and used_ms > deadline

    def after_move(self, color: Color, used_ms: int) -> Clock:
        """The clocks after ``color`` moved having thought ``used_ms``.

        The caller checks :meth:`flag_fell` first; a move within the margin
        leaves zero (plus the increment), never a negative time.
        """
        if used_ms < 0:
            raise ValueError(f"invalid think time: {used_ms!r} ms")
        side = self._side(color)
        if side is None:
            return self
        stages = self.time_control(color).stages
        stage = stages[side.stage]
        left = max(0, side.left_ms - used_ms) + stage.increment_ms
        index, done = side.stage, side.moves_in_stage + 1
        if stage.moves is not None and done >= stage.moves:
            # Time control reached: the next stage's time is added, or the
            # last (repeating) stage starts again.
            index = min(index + 1, len(stages) - 1)
            done = 0
            left += stages[index].base_ms
        new = SideClock(left, index, done)
        if color is Color.WHITE:
            return replace(self, white=new)
        return replace(self, black=new)
