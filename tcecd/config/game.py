"""The event config's game sections: time control, adjudication, openings
and strikes (pure; :mod:`tcecd.config.event` holds them in the event)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BeforeValidator, Field, StrictInt, field_validator, model_validator

from tcecd.config.engines import time_control_of
from tcecd.config.section import ConfigPath, PositiveInt, Section
from tcecd.game.timecontrol import MAX_TIME_MS, TimeControl

if TYPE_CHECKING:
    from tcecd.game.adjudication import AdjudicationRules

class TimeControlConfig(Section):
    """The time control: a cutechess-style ``tc`` text and/or per-move limits.

    ``tc`` is checked with :meth:`tcecd.game.timecontrol.TimeControl.parse`, so
    a bad time control is an error when the config is loaded.
    """

    tc: str | None = None
    """cutechess-style time control: [moves/]seconds[+increment], stages joined by ':', 'inf' for
    no clock; may add 'nodes=N', 'depth=N', 'st=S'."""
    nodes: PositiveInt | None = None
    """Nodes per move (a search limit, not a clock)."""
    depth: PositiveInt | None = None
    """Search depth per move."""
    movetime_ms: Annotated[StrictInt, Field(ge=1, le=MAX_TIME_MS)] | None = None
    """Fixed think time per move, in milliseconds (at most 24 hours)."""
    margin_ms: Annotated[StrictInt, Field(ge=0)] = 200
    """Tolerance before a flag falls (engine I/O and process scheduling), in milliseconds."""
    stall_grace_ms: Annotated[StrictInt, Field(ge=0, le=MAX_TIME_MS)] = 2_000
    """How long after its flag fell a silent engine is still waited for before it counts as
    stalled (a stall is a fault; an answer within it is a loss on time), in milliseconds."""
    stall_timeout_ms: Annotated[StrictInt, Field(ge=1, le=MAX_TIME_MS)] = 60_000
    """Without a clock (nodes or depth only): how long one move is waited for before the engine
    counts as stalled, in milliseconds."""

    @model_validator(mode="after")
    def _is_a_time_control(self) -> TimeControlConfig:
        self.value()  # raises ValueError with a readable message
        return self

    def value(self) -> TimeControl:
        """The game layer's :class:`TimeControl` (``ValueError`` when invalid)."""
        return time_control_of(self.tc, self.nodes, self.depth, self.movetime_ms)


class DrawAdjudication(Section):
    """TCEC draw rule: from move ``from_move``, both evals within ±``score``
    pawns for ``moves`` moves each (tcec-formats.md, "Adjudication")."""

    from_move: Annotated[StrictInt, Field(ge=0)] = 35
    """The rule applies from this move number on."""
    score: Annotated[float, Field(ge=0)] = 0.15
    """Both evaluations within plus or minus this many pawns."""
    moves: PositiveInt = 5
    """For this many consecutive moves of each engine."""


class WinAdjudication(Section):
    """TCEC win rule: both engines agree on ±``score`` pawns for ``moves`` moves each."""

    score: Annotated[float, Field(ge=0.01)] = 10.0
    """Both engines agree one side is ahead by at least this many pawns."""
    moves: PositiveInt = 5
    """For this many consecutive moves of each engine."""


class TablebaseAdjudication(Section):
    """Syzygy adjudication of positions with at most ``max_pieces`` pieces."""

    path: tuple[ConfigPath, ...]
    """A folder of Syzygy tables, or a list of folders (relative to the config file)."""
    max_pieces: Annotated[StrictInt, Field(ge=3, le=7)] = 6
    """Adjudicate positions with at most this many pieces, kings included."""

    @field_validator("path", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str | Path) else value

    @field_validator("path")
    @classmethod
    def _not_empty(cls, value: tuple[Path, ...]) -> tuple[Path, ...]:
        if not value:
            raise ValueError("expected at least one directory of Syzygy tables")
        return value


class AdjudicationConfig(Section):
    """Which adjudication rules apply; ``null`` switches a rule off."""

    draw: DrawAdjudication | None = DrawAdjudication()
    """The draw rule (null: off)."""
    win: WinAdjudication | None = None
    """The win rule (null: off)."""
    tablebases: TablebaseAdjudication | None = None
    """Syzygy tablebase adjudication (null: off)."""
    max_moves: PositiveInt | None = None
    """Draw after this many moves (null: no limit)."""

    @model_validator(mode="after")
    def _win_beyond_draw(self) -> AdjudicationConfig:
        if self.draw is not None and self.win is not None and self.win.score <= self.draw.score:
            raise ValueError(
                f"win.score: {self.win.score!r} must be above draw.score ({self.draw.score!r})"
            )
        return self

    def rules(self) -> AdjudicationRules:
        """The game layer's rules, scores converted from pawns to centipawns."""
        from tcecd.game.adjudication import AdjudicationRules, DrawRule, TablebaseRule, WinRule

        draw = win = tablebase = None
        if self.draw is not None:
            draw = DrawRule(self.draw.from_move, round(self.draw.score * 100), self.draw.moves)
        if self.win is not None:
            win = WinRule(round(self.win.score * 100), self.win.moves)
        if self.tablebases is not None:
            tablebase = TablebaseRule(self.tablebases.max_pieces)
        return AdjudicationRules(draw, win, tablebase, self.max_moves)


class OpeningsBookConfig(Section):
    """A Polyglot book that extends every EPD/PGN opening, as cutechess's
    ``-book FILE -bookdepth N``: from the opening's position the game follows
    the book until ``depth`` plies or the position is out of book."""

    file: ConfigPath
    """The Polyglot .bin book, relative to the config file."""
    depth: Annotated[StrictInt, Field(ge=1)] | None = None
    """At most this many book plies after the opening (null: while in book)."""
    selection: Literal["weighted", "best"] = "weighted"
    """weighted: at random in proportion to the weights (seeded); best: the highest weight."""
    seed: StrictInt | None = None
    """Seed of the weighted choice (null: the openings' seed, else 0)."""



def _positions(value: object) -> object:
    """``positions``: ``all`` (the 960 Chess960 start positions), or a non-empty
    list of position numbers 0-959 (checked here, so a bad one is named)."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip().lower() == "all":
            return "all"
        raise ValueError(
            f"{value!r}: expected 'all' or a list of Chess960 position numbers (0-959)"
        )
    if isinstance(value, list | tuple):
        if not value:
            raise ValueError("an empty list; expected Chess960 position numbers (0-959)")
        for i, number in enumerate(value):
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 959:
                raise ValueError(
                    f"item {i}: {number!r} is not a Chess960 position number (0-959)"
                )
        return tuple(value)
    raise ValueError(
        f"{value!r}: expected 'all' or a list of Chess960 position numbers (0-959)"
    )


class OpeningsConfig(Section):
    """The openings book: each pair (both games of a double round) gets one."""

    file: ConfigPath | None = None
    """The book: an EPD or PGN file, or a Polyglot .bin book, relative to the config file.
    Chess960 (variant chess960): EPD or PGN start positions, castling rights in Shredder-FEN
    (HAha) or X-FEN (KQkq), double Chess960 (each side its own back rank) included."""
    positions: Annotated[Literal["all"] | tuple[int, ...] | None, BeforeValidator(_positions)] = (
        None
    )
    """Chess960 only, instead of a file: start positions by their number (0-959, 518 is the
    standard position), a list played in its order, or 'all' for the 960 positions in
    number order; with order: random (and a seed) they are drawn in a seeded random order."""
    format: Literal["epd", "pgn", "polyglot"] | None = None
    """epd, pgn or polyglot (null: from the file's suffix: .epd, .pgn, .bin)."""
    order: Literal["sequential", "random"] = "sequential"
    """Use the openings in the file's order, or shuffled with `seed` (not used by polyglot)."""
    seed: StrictInt | None = None
    """Random order: the shuffle's seed. Polyglot: the seed of the weighted book choice."""
    plies: Annotated[StrictInt, Field(ge=0)] | None = None
    """PGN books: keep at most this many plies of each opening (null: all).
    Polyglot: the book depth in plies, as cutechess's -bookdepth (null: while in book)."""
    book: OpeningsBookConfig | None = None
    """A Polyglot book that extends each EPD/PGN opening (null: none)."""


    @model_validator(mode="before")
    @classmethod
    def _format_from_suffix(cls, data: object) -> object:
        if isinstance(data, dict) and data.get("format") is None and data.get("file") is not None:
            suffix = Path(str(data["file"])).suffix.lower().lstrip(".")
            formats = {"epd": "epd", "pgn": "pgn", "bin": "polyglot"}
            if suffix not in formats:
                raise ValueError(
                    f"file: cannot tell the format of {str(data['file'])!r}; "
                    # .bin (a Polyglot book) is recognised too; any other name sets 'format'
                    "expected a .epd or .pgn file, or set 'format'"
                )
            data = {**data, "format": formats[suffix]}
        return data

    @model_validator(mode="after")
    def _file_or_positions(self) -> OpeningsConfig:
        if (self.file is None) == (self.positions is None):
            raise ValueError(
                "give either file (an EPD, PGN or Polyglot book) or positions (Chess960 "
                "position numbers, or 'all'), not both"
                if self.file is not None
                else "missing 'file' (an EPD, PGN or Polyglot book) or, in a Chess960 event, "
                "'positions'"
            )
        if self.positions is not None:
            for key in ("format", "plies", "book"):
                if getattr(self, key) is not None:
                    raise ValueError(f"{key}: only an openings file has it (positions are given)")
        return self

    @model_validator(mode="after")
    def _seed_needs_random(self) -> OpeningsConfig:
        if self.seed is not None and self.order != "random" and self.format != "polyglot":
            raise ValueError(f"seed: {self.seed!r} is only used with order 'random'")
        return self

    @model_validator(mode="after")
    def _one_book(self) -> OpeningsConfig:
        if self.book is not None and self.format == "polyglot":
            raise ValueError(
                "book: use either a Polyglot openings file (format 'polyglot') or an EPD/PGN "
                "file with a book, not both"
            )
        return self


class StrikesConfig(Section):
    """Engine faults (crash, stall, illegal move, time loss by a wide margin):
    ``max`` strikes disqualify an engine; each faulty game is lost or replayed."""

    max: PositiveInt = 3
    """Faults that disqualify an engine."""
    on_fault: Literal["lose", "replay"] = "lose"
    """A faulty game is lost by the faulty engine, or replayed."""
