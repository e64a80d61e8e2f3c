"""Engine definitions: ``engines/*.yaml`` files or inline in an event config.

Parsed once into frozen pydantic models (``extra="forbid"``: an unknown key is
an error naming it). The runner consumes :class:`EngineConfig` directly.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

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
