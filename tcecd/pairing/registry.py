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
from tcecd.pairing.base import PairingSystem


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
    ),
    SystemInfo(
        "dutch-2017",
        "tcecd.pairing.dutch.system",
        "Dutch2017",
        "FIDE Dutch system, C.04.3 as of 2017 (JaVaFo, bbpPairings)",
        aliases=("dutch",),
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
