"""Rebuilding a Swiss event from its PGN: players, seeds, rounds, BYEs, results.

The PGN is read once (:func:`tcecd.pgn.reader.iter_checked_headers`: each
game's moves are played on a board, so an illegal move or a game cut short is
an error naming the game and the ply) into one compact :class:`ReplayedGame`
per game; everything else is worked out from those in memory, which grows with
the number of games but never with the size of the movetext.

What the PGN must look like (ours, or TCEC's cutechess fork in ``swiss-tcec``
mode): Round tags ``"r.g"``, games in playing order (``1.1, 1.2, ..., 2.1``),
BYEs absent. What is inferred when not given:

- seeds, from round 1: by the rules (tcec-swiss-system.txt, "Seeding") round 1
  pairs seed2-seed1, seed4-seed3, ..., the worst pair plays first, and in
  round 1 the second-of-pair (even seed) has White (STEP 5, rounds 1, 4, 5,
  ...; in a double round the first-of-pair has Black in the first game). So
  game ``k`` of ``n`` has seed ``2(n-k)+2`` as White and ``2(n-k)+1`` as
  Black; with an odd field the player missing from round 1 is the last seed.
- single or double rounds: double when a player plays twice in round 1.

For another pairing system (``system``, a registry name) the seeds must be
given (the event config's): only TCEC Swiss fixes round 1 so that the seeds
can be read back from it.

Every round is then re-paired with the event's pairing system from the results
before it; the rules' removed history rounds go into the rebuilt records (the
PGN cannot show them) and every difference becomes a
:class:`~tcecd.replay.verify.Deviation`.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tcecd.domain import PlayerId
from tcecd.errors import PairingError, PgnError
from tcecd.pairing.base import (
    Bye,
    ByeKind,
    Pair,
    PairingSystem,
    PlayedGame,
    Player,
    RoundContext,
    RoundPairing,
    RoundRecord,
    ScheduledGame,
)
from tcecd.pgn.event_tags import SYSTEM_TAG, EventTags
from tcecd.pgn.reader import ProgressCallback
from tcecd.replay.games import OperatorFacts, ReplayedGame, game_error, read_rounds
from tcecd.replay.verify import Deviation, compare_round, unpairable

if TYPE_CHECKING:
    from tcecd.pairing.registry import SystemOptions


@dataclass(frozen=True, slots=True)
class PartialRound:
    """The last round when the PGN stops in the middle of it."""

    round: int
    games: tuple[PlayedGame, ...]  # the games played so far, in playing order
    pairing: RoundPairing | None  # what the rules give for the whole round


@dataclass(frozen=True, slots=True)
class ReplayedEvent:
    """An event rebuilt from its PGN.

    ``rounds`` are the complete rounds, ready to be the pairing history of the
    next round (removed history rounds as the rules give them); ``partial`` is
    an unfinished last round; ``deviations`` lists every difference between
    the PGN and the rules (empty: the event followed the rules).
    """

    path: Path
    event: str
    site: str
    players: tuple[Player, ...]  # in seed order
    double: bool
    rounds: tuple[RoundRecord, ...]
    partial: PartialRound | None
    expected: tuple[RoundPairing | None, ...]  # per round: the rules' pairing (if verified)
    games: tuple[ReplayedGame, ...]
    deviations: tuple[Deviation, ...]
    seeds_inferred: bool
    double_inferred: bool
    verified: bool  # False: rounds were not re-paired (see rebuild_from_pgn)
    system: str = "tcec-swiss"  # the pairing system's registry name
    #: Where the system came from: "given" (--system, the config), "pgn" (the games'
    #: PairingSystem tag) or "default" (nothing said: TCEC Swiss assumed).
    system_from: str = "given"
    #: Where the seeds came from: "round 1" (inferred), "config" or "pgn" (seed tags).
    seeds_from: str = "config"
    #: The event's number of rounds, as given or as the games' EventRounds tag says.
    total_rounds: int | None = None
    #: What the operator's console did, as the PGN says (accepted as facts).
    operator_notes: tuple[str, ...] = ()

    def pairings(self) -> tuple[RoundPairing, ...]:
        """Every round as the PGN played it (see :func:`played_pairing`);
        built on demand, as only the schedule and re-streaming need them."""
        by_round: list[list[PlayedGame]] = [[] for _ in self.expected]
        for g in self.games:
            by_round[g.round - 1].append(g.as_played_game())
        out = []
        for index, games in enumerate(by_round):
            record = self.rounds[index] if index < len(self.rounds) else None
            out.append(
                played_pairing(
                    index + 1,
                    games,
                    record.byes if record is not None else (),
                    record.removed_history_rounds if record is not None else (),
                    self.expected[index],
                    self.players,
                    self.double,
                )
            )
        return tuple(out)

    @property
    def ok(self) -> bool:
        """True when the rounds were re-paired and every one follows the rules."""
        return self.verified and not self.deviations

    def check(self) -> None:
        """Raise :class:`PgnError` naming the first deviation and the count
        (or saying the event was not verified)."""
        if not self.verified:
            raise PgnError(f"{self.path.name}: the event was rebuilt without verification")
        if self.deviations:
            more = len(self.deviations) - 1
            extra = f" (and {more} more deviation{'s' if more != 1 else ''})" if more else ""
            raise PgnError(
                f"{self.path.name}: does not follow the {system_title(self.system)} rules: "
                f"{self.deviations[0]}{extra}"
            )


def system_title(name: str) -> str:
    """How messages name a system's rules ("the TCEC Swiss rules", "the dutch-2017 rules")."""
    return "TCEC Swiss" if name == "tcec-swiss" else name


def _infer_double(rounds: Sequence[Sequence[ReplayedGame]]) -> bool:
    seen: set[PlayerId] = set()
    for g in rounds[0]:
        if g.white in seen or g.black in seen:
            return True
        seen.update((g.white, g.black))
    return False


def _infer_players(
    path: Path, rounds: Sequence[Sequence[ReplayedGame]], double: bool
) -> tuple[Player, ...]:
    """Seeds from round 1 (see the module docstring for the rule)."""
    first = list(rounds[0])
    if double:
        plays: dict[PlayerId, int] = {}
        for g in first:
            for name in (g.white, g.black):
                plays[name] = plays.get(name, 0) + 1
        once = [name for name, n in plays.items() if n != 2]
        if once:
            raise game_error(
                path,
                first[-1].number,
                f"round 1 has {len(first)} games and {once[0]!r} plays {plays[once[0]]} of "
                "them: not a complete double round (seeds cannot be inferred; give --config)",
            )
        first = first[: len(first) // 2]
    n = len(first)
    seeds: dict[PlayerId, int] = {}
    for k, g in enumerate(first, start=1):
        for name, seed in ((g.white, 2 * (n - k) + 2), (g.black, 2 * (n - k) + 1)):
            if name in seeds:
                raise game_error(path, g.number, f"{name!r} plays twice in round 1")
            seeds[name] = seed
    bye: PlayerId | None = None
    for rnd in rounds[1:]:
        for g in rnd:
            for name in (g.white, g.black):
                if name in seeds or name == bye:
                    continue
                if bye is not None:
                    raise game_error(
                        path,
                        g.number,
                        f"unknown player {name!r}: not in round 1, whose BYE went to "
                        f"{bye!r} (give --config to name the players)",
                    )
                bye = name
    players = [Player(id=name, name=name, seed=seed) for name, seed in seeds.items()]
    if bye is not None:
        players.append(Player(id=bye, name=bye, seed=2 * n + 1))
    return tuple(sorted(players, key=lambda p: p.seed))


def _games_per_round(players: int, double: bool) -> int:
    return (players // 2) * (2 if double else 1)


def _check_round(
    path: Path,
    games: Sequence[ReplayedGame],
    known: dict[PlayerId, Player],
    double: bool,
) -> None:
    limit = 2 if double else 1
    count: dict[PlayerId, int] = {}
    for g in games:
        for name in (g.white, g.black):
            if name not in known:
                raise game_error(path, g.number, f"unknown player {name!r} (not in the config)")
            count[name] = count.get(name, 0) + 1
            if count[name] > limit:
                kind = "double" if double else "single"
                raise game_error(
                    path,
                    g.number,
                    f"{name!r} plays game {count[name]} of {kind} round {g.game_id.round}",
                )


def _pair(
    system: PairingSystem,
    players: Sequence[Player],
    history: Sequence[RoundRecord],
    double: bool,
    context: RoundContext,
) -> RoundPairing:
    return system.pair(players, history, double=double, context=context)


def played_pairing(
    round_: int,
    games: Sequence[PlayedGame],
    byes: Collection[PlayerId],
    removed: tuple[int, ...],
    expected: RoundPairing | None,
    players: Sequence[Player],
    double: bool,
) -> RoundPairing:
    """The round as the PGN played it, as a :class:`RoundPairing`.

    When the played games are the rules' games (or, in an unfinished round,
    their beginning) this is the rules' pairing itself, so first-of-pair and
    the games still to play are known. Otherwise the pairs are rebuilt from
    the games: one pair per single-round game, or per first-leg game of a
    double round (the first-of-pair is the better seed).
    """
    played = [(g.white, g.black) for g in games]
    if expected is not None:
        rules = [(g.white, g.black) for g in expected.games]
        if rules[: len(played)] == played:
            return expected
    seed = {p.id: p.seed for p in players}
    pairs: list[Pair] = []
    index: dict[frozenset[PlayerId], int] = {}
    scheduled: list[ScheduledGame] = []
    for number, (white, black) in enumerate(played, start=1):
        key = frozenset((white, black))
        leg = 1
        if key in index and double:
            leg = 2
        else:
            first, second = sorted((white, black), key=lambda pid: seed.get(pid, 0))
            index[key] = len(pairs)
            pairs.append(Pair(first, second))
        scheduled.append(ScheduledGame(number, white, black, index[key], leg))
    return RoundPairing(round_, frozenset(byes), removed, tuple(pairs), tuple(scheduled))


def rebuild_from_pgn(
    path: str | os.PathLike[str],
    *,
    players: Sequence[Player] | None = None,
    double: bool | None = None,
    progress: ProgressCallback | None = None,
    verify: bool = True,
    round_progress: ProgressCallback | None = None,
    system: str | None = None,
    options: SystemOptions | None = None,
    total_rounds: int | None = None,
    rules: RoundContext | None = None,
) -> ReplayedEvent:
    """Rebuild and verify the event in ``path``.

    ``players`` (with their seeds, e.g. from the event config) and ``double``
    are inferred from the PGN when None. Raises :class:`PgnError` for a
    malformed PGN, unknown players or impossible rounds (one line naming the
    game); deviations from the pairing rules are not errors: they are listed
    in :attr:`ReplayedEvent.deviations`.

    ``system``, ``players`` and ``total_rounds`` not given: what the games' tags
    say (:mod:`tcecd.pgn.event_tags`: tcecd writes them on every game), else TCEC
    Swiss with seeds inferred from round 1, and no number of rounds.

    ``progress`` is called as the file is read, ``round_progress`` with
    ``(round, rounds)`` as rounds are re-paired (both for progress bars).
    ``verify=False`` skips re-pairing the rounds (tables and files only): no
    deviations are looked for, and the records carry no removed history
    rounds, so such an event must not be used to pair further rounds.
    ``rules`` is the event's context (forbidden pairs, point system, virtual
    points: the event config's ``pairing.*``), every round paired with it.

    A complete round leaves out only its pairing-allocated BYEs (a tcecd
    event has no requested byes): one in an odd field, or, under the integer
    program, any number (it may leave several players unpaired), so that a
    round of that system is complete when it is not the last one, or when it
    has the games the rules give it.
    """
    p = Path(path)
    # Imported here: the pairing core is only needed once the PGN has been read.
    from tcecd.pairing.registry import NAMES, canonical_name, get_system

    tags = EventTags(p.name)
    facts = OperatorFacts()
    names = [pl.id for pl in players] if players is not None else ()
    event, site, rounds = read_rounds(p, progress=progress, tags=tags, facts=facts, known=names)
    if not rounds:
        raise PgnError(f"{p.name}: no finished game")
    system_from = "given"
    if system is None:
        if tags.system is None:
            system, system_from = "tcec-swiss", "default"
        elif tags.system in NAMES:
            system, system_from = tags.system, "pgn"
        elif tags.system == "knockout":
            raise PgnError(
                f"{p.name}: {SYSTEM_TAG} 'knockout': replaying a knockout cup needs its "
                "config (--config EVENT.yaml: the seeds and the encounters' rules)"
            )
        else:
            raise PgnError(
                f"{p.name}: {SYSTEM_TAG} {tags.system!r} is not a pairing system tcecd knows "
                f"({', '.join(NAMES)}); give one with --system"
            )
    system = canonical_name(system)
    if total_rounds is None:
        total_rounds = tags.rounds
    double_inferred = double is None
    is_double = _infer_double(rounds) if double is None else double
    seeds_inferred = False
    seeds_from = "config"
    if players is None:
        in_pgn = {name for rnd in rounds for g in rnd for name in (g.white, g.black)}
        if tags.seeded(in_pgn):
            players = [
                Player(id=name, name=name, seed=seed, rating=tags.ratings.get(name))
                for name, seed in tags.seeds.items()
            ]
            seeds_from = "pgn"
        elif system != "tcec-swiss":
            raise PgnError(
                f"{p.name}: the seeds of a {system} event cannot be inferred from its round 1 "
                "and its games do not name them; give the event config (--config)"
            )
    if players is None:
        # The field is whoever plays round 1 (plus the BYE): a round 1 that the
        # PGN cuts short cannot be told from a smaller field (docs/replay.md).
        field = _infer_players(p, rounds, is_double)
        seeds_inferred, seeds_from = True, "round 1"
    else:
        field = tuple(sorted(players, key=lambda pl: pl.seed))
        seeds = [pl.seed for pl in field]
        if seeds != list(range(1, len(field) + 1)):
            raise PgnError(f"{p.name}: player seeds must be 1..{len(field)}, got {seeds}")
    known = {pl.id: pl for pl in field}
    per_round = _games_per_round(len(field), is_double)
    # The integer program may leave any number of players unpaired.
    short_rounds = system == "integer-program"
    context = replace(rules or RoundContext(), total_rounds=total_rounds)

    pairer: PairingSystem | None = None
    history: list[RoundRecord] = []
    expected_pairings: list[RoundPairing | None] = []
    deviations: list[Deviation] = []
    partial: PartialRound | None = None
    for index, games in enumerate(rounds):
        r = index + 1
        _check_round(p, games, known, is_double)
        last = index == len(rounds) - 1
        # Engines the operator withdrew (FIDE Swiss systems: no longer paired),
        # as the round's games say: the round is paired without them.
        gone = tuple(e for e in facts.absent.get(r, ()) if e in known)
        absences = tuple(Bye(e, ByeKind.ZERO) for e in gone)
        per_round = _games_per_round(len(field) - len(gone), is_double)
        complete = len(games) == per_round or (short_rounds and not last)
        if len(games) > per_round or (not complete and not last):
            raise game_error(
                p,
                games[-1].number,
                f"round {r} has {len(games)} games where {len(field)} players play "
                f"{per_round} in a {'double' if is_double else 'single'} round",
            )
        played = tuple(g.as_played_game() for g in games)
        in_games = {name for g in games for name in (g.white, g.black)}
        absent = [pl.id for pl in field if pl.id not in in_games and pl.id not in gone]
        expected: RoundPairing | None = None
        if verify:
            try:
                if pairer is None:
                    pairer = get_system(system, options)
                round_context = context
                if absences:
                    round_context = replace(
                        context, requested_byes=(*context.requested_byes, *absences)
                    )
                expected = _pair(pairer, field, history, is_double, round_context)
            except PairingError as exc:
                deviations.append(unpairable(r, str(exc)))
            if round_progress is not None:
                round_progress(r, len(rounds))
        if short_rounds and last and expected is not None:
            complete = complete or len(games) == len(expected.games)
        byes = absent if complete else []
        removed = expected.removed_history_rounds if expected is not None else ()
        if expected is not None:
            deviations.extend(compare_round(expected, played, byes, complete=complete))
        expected_pairings.append(expected)
        if complete:
            history.append(RoundRecord(r, byes, removed, played, absences))
        else:
            partial = PartialRound(r, played, expected)
    return ReplayedEvent(
        path=p,
        event=event,
        site=site,
        players=field,
        double=is_double,
        rounds=tuple(history),
        partial=partial,
        expected=tuple(expected_pairings),
        games=tuple(g for rnd in rounds for g in rnd),
        deviations=tuple(deviations),
        seeds_inferred=seeds_inferred,
        double_inferred=double_inferred,
        verified=verify,
        system=system,
        system_from=system_from,
        seeds_from=seeds_from,
        total_rounds=total_rounds,
        operator_notes=tuple(facts.notes),
    )
