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
    """Both players' clocks under one time control. Immutable: every move
    returns a new :class:`Clock` (:meth:`after_move`)."""

    tc: TimeControl
    margin_ms: int
    white: SideClock | None
    black: SideClock | None

    @classmethod
    def start(cls, tc: TimeControl, margin_ms: int = 0) -> Clock:
        """Both clocks at the start of a game."""
        if margin_ms < 0:
            raise ValueError(f"invalid time margin: {margin_ms!r} ms (must be >= 0)")
        if not tc.stages:
            return cls(tc, margin_ms, None, None)
        side = SideClock(tc.stages[0].base_ms)
        return cls(tc, margin_ms, side, side)

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
        return self.tc.stages[side.stage].increment_ms

    def moves_to_go(self, color: Color) -> int | None:
        """Moves ``color`` must still make before its next time control; None
        when the current stage runs to the end of the game (or no clock)."""
        side = self._side(color)
        if side is None:
            return None
        stage = self.tc.stages[side.stage]
        if stage.moves is None:
            return None
        return stage.moves - side.moves_in_stage

    def limits(self, side_to_move: Color) -> GoLimits:
        """The ``go`` limits for the side to move (both clocks, as UCI wants)."""
        return GoLimits(
            wtime_ms=self.remaining_ms(Color.WHITE),
            btime_ms=self.remaining_ms(Color.BLACK),
            winc_ms=self.increment_ms(Color.WHITE),
            binc_ms=self.increment_ms(Color.BLACK),
            movestogo=self.moves_to_go(side_to_move),
            movetime_ms=self.tc.movetime_ms,
            nodes=self.tc.nodes,
            depth=self.tc.depth,
        )

    def deadline_ms(self, color: Color) -> int | None:
        """How long ``color`` may think before its flag falls, margin included;
        None when neither a clock nor a move time limits it."""
        bounds: list[int] = []
        side = self._side(color)
        if side is not None:
            bounds.append(side.left_ms + self.margin_ms)
        if self.tc.movetime_ms is not None:
            bounds.append(self.tc.movetime_ms + self.margin_ms)
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
        stages = self.tc.stages
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
