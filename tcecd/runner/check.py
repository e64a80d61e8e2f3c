"""Starting every engine once before an event or a match: ``validate --engines``.

A typo in an engine option, a value out of range, a program that does not
speak its protocol: each would make every game of that engine a start-up
fault and a strike. :func:`check_engines` starts each engine once through the
ordinary :class:`~tcecd.runner.session.EngineSession` (same start-up timeout,
own process group, killed and reaped on the way out), lets it check the
configured options against what the engine declares
(:func:`tcecd.runner.options.option_problems`), and reports what it found:
the engine's own name, its protocol, how long it took to be ready, or the
problems, all of them, in one line per engine.

``tcecd validate EVENT.yaml --engines``, ``tcecd run`` (before round 1, before
the state is touched) and ``tcecd play`` use it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tcecd.config.engines import EngineConfig, OptionValue
from tcecd.errors import ConfigError
from tcecd.runner.options import option_problems
from tcecd.runner.session import EngineFault, EngineSession, chess960_problem

#: Engines started at the same time (a game runs two).
PARALLEL = 2


@dataclass(frozen=True)
class EngineReport:
    """One engine started once: who it says it is, or what went wrong.

    ``declared`` holds the lower-cased names of the engine's options (UCI
    compares them case-insensitively), so a caller can tell an option no
    engine has from one only some engines have.
    """

    name: str
    protocol: str
    id_name: str | None
    startup_ms: int
    problem: str | None = None
    declared: frozenset[str] = frozenset()
    #: Whether the engine plays Chess960 (UCI_Chess960, or xboard's fischerandom).
    chess960: bool = False

    def describe(self) -> str:
        """``sf: Stockfish 16 (uci), ready in 412 ms``."""
        who = self.id_name or "(no name given)"
        return f"{self.name}: {who} ({self.protocol}), ready in {self.startup_ms} ms"


class EngineCheckError(ConfigError):
    """Engines failed their check: one line per engine (the CLI prints each)."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = tuple(lines)


async def check_engine(
    config: EngineConfig, *, soft_options: Mapping[str, OptionValue] | None = None
) -> EngineReport:
    """Start ``config``'s engine once, with its options, and stop it again."""
    session = EngineSession(config, soft_options=soft_options)
    started = time.monotonic_ns()
    try:
        async with session:
            ready_ms = (time.monotonic_ns() - started) // 1_000_000
            return EngineReport(
                name=config.name,
                protocol=config.protocol,
                id_name=session.engine_id,
                startup_ms=ready_ms,
                declared=frozenset(n.lower() for n in session.declared_options),
                chess960=session.offers_chess960,
            )
    except EngineFault as fault:
        return EngineReport(
            name=config.name,
            protocol=config.protocol,
            id_name=None,
            startup_ms=(time.monotonic_ns() - started) // 1_000_000,
            problem=fault.detail,
        )


async def check_engines(
    configs: Sequence[EngineConfig], *, soft_options: Mapping[str, OptionValue] | None = None
) -> tuple[EngineReport, ...]:
    """:func:`check_engine` for each, :data:`PARALLEL` at a time, in the given order."""
    gate = asyncio.Semaphore(PARALLEL)

    async def one(config: EngineConfig) -> EngineReport:
        async with gate:
            return await check_engine(config, soft_options=soft_options)

    return tuple(await asyncio.gather(*(one(c) for c in configs)))


def failures(
    reports: Sequence[EngineReport],
    *,
    where: Sequence[str] | None = None,
    soft_options: Mapping[str, OptionValue] | None = None,
    chess960: bool = False,
) -> list[str]:
    """One line per engine that failed, ``{where}engine 'sf': {problem}``
    (``where[i]`` names the i-th engine's place, e.g. ``event.yaml: engines[1]: ``).

    ``soft_options`` (``tcecd play --option``) are set on the engines that
    declare them; one that no engine declares is a typo, reported on every
    engine's line. ``chess960``: the event plays Chess960, and an engine that
    does not offer it (no ``UCI_Chess960``; xboard: no ``fischerandom`` among
    its ``variants``) fails."""
    soft = dict(soft_options or {})
    healthy = [r for r in reports if r.problem is None]
    orphans = {n: v for n, v in soft.items() if not any(n.lower() in r.declared for r in healthy)}
    # An option no engine declares: "no such option" (python-chess's map knows none).
    orphan_problems = option_problems({}, orphans, origin=" (--option)")
    lines: list[str] = []
    for i, report in enumerate(reports):
        prefix = where[i] if where is not None else ""
        problems = [report.problem] if report.problem is not None else list(orphan_problems)
        if chess960 and report.problem is None and not report.chess960:
            problems.append(chess960_problem(report.protocol))
        if problems:
            lines.append(f"{prefix}engine {report.name!r}: {'; '.join(problems)}")
    return lines
