"""Every pairing system by name: the one place that turns a name into a system.

The event config (``pairing.system``), ``tcecd simulate --system``, ``tcecd
pair --system`` and ``tcecd replay --verify`` all go through :func:`get_system`,
so a system added here is available everywhere at once. A system module is
imported only when it is asked for (the Dutch matcher and the integer-program
solver have heavy imports that an event on another system never pays for).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from tcecd.errors import PairingError
from tcecd.pairing.base import PairingSystem, RoundContext

#: The event rules beyond C.04.1 a system may honour (``RoundContext`` fields;
#: the event config's ``pairing.*`` keys of the same names; TRF ``XXP``,
#: ``XXA``, ``XXS``/``BB?``), with what a refusal calls them.
RULES: dict[str, str] = {
    "forbidden_pairs": "forbidden pairs (TRF XXP, pairing.forbidden_pairs)",
    "acceleration": "accelerated rounds (TRF XXA, pairing.acceleration)",
    "points": "a point system other than the standard one (TRF XXS/BB?, pairing.points)",
}


@dataclass(frozen=True, slots=True)
class SystemOptions:
    """Parameters some systems take (the rest ignore them).

    ``time_limit_s``: the integer-program model's solver limit per round; a
    round not proven optimal within it is an error, never a worse pairing.
    """

    time_limit_s: float = 10.0


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """One registered system: its name, aliases, where its class lives and a
    one-line summary for help texts and docs."""

    name: str
    module: str
    cls: str
    summary: str
    aliases: tuple[str, ...] = ()
    #: How an event config seeds the field when ``pairing.seeding.method`` is not
    #: given: FIDE's systems rank the field by rating (C.04.2 / the systems' own
    #: "initial ranking"), TCEC Swiss takes the order the config gives.
    default_seeding: str = "explicit"
    #: The :data:`RULES` the system honours; a round asking for any other is
    #: refused (:func:`check_rules`), and so is an event config naming it.
    rules: tuple[str, ...] = tuple(RULES)

    def build(self, options: SystemOptions) -> PairingSystem:
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as exc:  # registered, but its module is not installed
            raise PairingError(f"pairing system {self.name!r} is not available: {exc}") from None
        system: PairingSystem = getattr(module, self.cls)(options)
        return system


#: The registered systems, in the order help texts list them.
SYSTEMS: tuple[SystemInfo, ...] = (
    SystemInfo(
        "tcec-swiss",
        "tcecd.pairing.tcec_swiss",
        "TcecSwiss",
        "TCEC Swiss (../shared/seeds/tcec-swiss-system.txt), the default",
        # Its rules (STEP 1-5) know neither forbidden pairs nor virtual points,
        # and count 1 / 0.5 / 0 (tcec-swiss.md, "Players, seeds, scores").
        rules=(),
    ),
    SystemInfo(
        "dutch-2017",
        "tcecd.pairing.dutch.system",
        "Dutch2017",
        "FIDE Dutch system, C.04.3 as of 2017 (JaVaFo, bbpPairings)",
        aliases=("dutch",),
        default_seeding="rating",
    ),
    SystemInfo(
        "dutch-2012",
        "tcecd.pairing.dutch2012.system",
        "Dutch2012",
        "FIDE Dutch system, rules of 2012 (procedural)",
        default_seeding="rating",
    ),
    SystemInfo(
        "dubov",
        "tcecd.pairing.dubov.system",
        "Dubov",
        "FIDE Dubov system, C.04.4.1",
        default_seeding="rating",
    ),
    SystemInfo(
        "integer-program",
        "tcecd.pairing.integer_program",
        "IntegerProgram",
        "Swiss integer-program model solved by HiGHS (../shared/specs/integer-program.md)",
    ),
    SystemInfo(
        "round-robin",
        "tcecd.pairing.round_robin",
        "RoundRobin",
        "Round-robin by the Berger tables (FIDE C.05 Annex 1), single or multiple cycles",
        # The Berger tables fix every pairing: scores never pair anybody, so
        # only the standings follow a point system.
        rules=("points",),
    ),
)

_BY_NAME: dict[str, SystemInfo] = {
    key: info for info in SYSTEMS for key in (info.name, *info.aliases)
}

#: Every accepted name, aliases included (for argparse choices and the config schema).
NAMES: tuple[str, ...] = tuple(_BY_NAME)


def system_info(name: str) -> SystemInfo:
    """The registered system called ``name`` (or one of its aliases)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        known = ", ".join(NAMES)
        raise PairingError(f"unknown pairing system: {name!r} (known: {known})") from None


def canonical_name(name: str) -> str:
    """The system's own name for ``name`` (an alias maps to its system)."""
    return system_info(name).name


def get_system(name: str, options: SystemOptions | None = None) -> PairingSystem:
    """Build the system called ``name``; :class:`PairingError` for an unknown one."""
    return system_info(name).build(options or SystemOptions())


def rules_used(context: RoundContext) -> tuple[str, ...]:
    """The :data:`RULES` a round's context asks for (non-default values)."""
    used: list[str] = []
    if context.forbidden_pairs:
        used.append("forbidden_pairs")
    if context.acceleration:
        used.append("acceleration")
    if not context.points.is_standard:
        used.append("points")
    return tuple(used)


def unsupported_rule(name: str, rules: tuple[str, ...]) -> str | None:
    """The first of ``rules`` (:data:`RULES` names) the system called ``name``
    does not honour, as a one-line reason; None when it honours them all."""
    info = system_info(name)
    for rule in rules:
        if rule not in info.rules:
            return f"the {info.name} system cannot honour {RULES[rule]}"
    return None


def check_rules(name: str, context: RoundContext) -> None:
    """:class:`PairingError` when the system called ``name`` cannot honour the
    event rules ``context`` asks for (a system that ignored them would pair
    a forbidden pair, or score groups without their virtual points)."""
    reason = unsupported_rule(name, rules_used(context))
    if reason is not None:
        raise PairingError(reason)
