"""Engine definitions: ``engines/*.yaml`` files or inline in an event config.

Parsed once into frozen pydantic models (``extra="forbid"``: an unknown key is
an error naming it). The runner consumes :class:`EngineConfig` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator, model_validator

if TYPE_CHECKING:
    from tcecd.game.timecontrol import TimeControl

OptionValue = str | int | float | bool

#: Options python-chess sets itself on every search (``chess.engine.MANAGED_OPTIONS``):
#: configuring one makes python-chess refuse the engine when it starts ("cannot set
#: MultiPV which is automatically managed"), so a config naming one is refused at load.
MANAGED_OPTIONS = ("UCI_Chess960", "UCI_Variant", "MultiPV", "Ponder")


class Frozen(BaseModel):
    """Base of every config model: immutable, unknown keys are errors."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=False)


class RemoteConfig(Frozen):
    """Run the engine on another host over SSH (as TCEC runs its engines)."""

    host: str
    user: str | None = None
    port: Annotated[StrictInt, Field(ge=1, le=65535)] = 22
    identity_file: str | None = None
    ssh_options: tuple[str, ...] = ()
    # Added to the engine's think time allowance per move: network round trip.
    latency_ms: Annotated[StrictInt, Field(ge=0)] = 0


class EngineConfig(Frozen):
    """One engine: how to start it, speak to it and configure it."""

    name: Annotated[str, Field(min_length=1, max_length=64)]
    command: Annotated[tuple[str, ...], Field(min_length=1)]  # argv, never a shell string
    protocol: Literal["uci", "xboard"] = "uci"
    workdir: str | None = None
    options: dict[str, OptionValue] = Field(default_factory=dict)
    env: dict[str, str] = Field(default_factory=dict)
    startup_timeout_ms: Annotated[StrictInt, Field(ge=1)] = 10_000
    # "per-game": a fresh process for every game (the default, as TCEC does);
    # "keep-alive": one process, `ucinewgame` between games, restarted after a fault.
    restart: Literal["per-game", "keep-alive"] = "per-game"
    rating: StrictInt | None = None
    remote: RemoteConfig | None = None
    # The engine's own limits (cutechess-cli's and fastchess's per-engine tc=,
    # nodes=, depth=, st=): any of them replaces the event's time control for
    # this engine's moves (the margin stays the event's). None: the event's.
    tc: str | None = None
    nodes: Annotated[int, Field(ge=1)] | None = None
    depth: Annotated[int, Field(ge=1)] | None = None
    movetime_ms: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="after")
    def _limits_are_a_time_control(self) -> EngineConfig:
        if self.has_own_limits:
            self.own_time_control()  # raises ValueError with a readable message
        return self

    @property
    def has_own_limits(self) -> bool:
        """True when the engine replaces the event's time control with its own."""
        return any(v is not None for v in (self.tc, self.nodes, self.depth, self.movetime_ms))

    def own_time_control(self) -> TimeControl | None:
        """The engine's own time control, or None when it plays the event's
        (``ValueError`` when invalid)."""
        if not self.has_own_limits:
            return None
        return time_control_of(self.tc, self.nodes, self.depth, self.movetime_ms)

    def time_control(self, event: TimeControl) -> TimeControl:
        """The time control this engine plays under in an event with ``event``'s."""
        own = self.own_time_control()
        return event if own is None else own

    @field_validator("name")
    @classmethod
    def _name_survives_a_pgn(cls, name: str) -> str:
        return check_engine_name(name)

    @field_validator("options")
    @classmethod
    def _not_managed(cls, value: dict[str, OptionValue]) -> dict[str, OptionValue]:
        managed = {name.lower(): name for name in MANAGED_OPTIONS}
        for name in value:
            if name.lower() in managed:
                raise ValueError(
                    f"{name!r} is set by tcecd's engine layer (python-chess) for every "
                    f"search and cannot be configured; remove it"
                )
        return value



def check_engine_name(name: str) -> str:
    """``name`` if it reads back from a PGN tag as written, else ``ValueError``.

    The name is the player's identity in the PGN tags (White, Black): ``replay``
    and ``run --from-pgn`` find the players by it. python-chess keeps a tag
    value's backslashes (so ``\\"`` does not read back as ``"``), the writer
    turns a newline into a space, readers strip the value, and ``?`` is PGN's
    "unknown" (PGN standard 8.1.1)."""
    bad = next((c for c in name if c in '"\\' or not c.isprintable()), None)
    if bad is not None:
        raise ValueError(
            f"engine name {name!r} contains {bad!r}, which a PGN tag cannot carry "
            "(use letters, digits, spaces and punctuation other than \" and \\)"
        )
    if name != name.strip() or name == "?":
        raise ValueError(
            f"engine name {name!r} would not read back from a PGN tag "
            "(no leading or trailing spaces, and not '?')"
        )
    return name


def time_control_of(
    tc: str | None, nodes: int | None, depth: int | None, movetime_ms: int | None
) -> TimeControl:
    """A :class:`TimeControl` from a cutechess-style ``tc`` text and/or per-move
    limits, as the event's ``time_control`` and an engine entry write them.
    ``ValueError`` (a readable message) when there is no limit at all, the
    text is invalid, or a limit is given both in ``tc`` and beside it."""
    from tcecd.game.timecontrol import TimeControl

    if tc is None:
        if nodes is None and depth is None and movetime_ms is None:
            raise ValueError(
                "no limit given; expected 'tc' (e.g. '60+0.6') or nodes, depth or movetime_ms"
            )
        return TimeControl((), movetime_ms, nodes, depth)
    try:
        parsed = TimeControl.parse(tc)
    except ValueError as exc:
        raise ValueError(f"tc: {exc}") from None
    extra = {"movetime_ms": movetime_ms, "nodes": nodes, "depth": depth}
    merged: dict[str, int | None] = {}
    for name, value in extra.items():
        inside = getattr(parsed, name)
        if value is not None and inside is not None:
            raise ValueError(f"{name}: {value!r} given twice (tc {tc!r} already sets it)")
        merged[name] = value if value is not None else inside
    return TimeControl(parsed.stages, merged["movetime_ms"], merged["nodes"], merged["depth"])
