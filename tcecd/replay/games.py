"""Reading an event's PGN into rounds of games: one compact
:class:`ReplayedGame` per game (its tags checked, its moves played on a board
by :func:`tcecd.pgn.reader.iter_checked_headers`), the Round tags in playing
order, the operator's replays and withdrawals read from their tags
(:class:`OperatorFacts`). :mod:`tcecd.replay.event` rebuilds the event from
them."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tcecd.domain import GameId, PlayerId, Result, Termination
from tcecd.errors import PgnError
from tcecd.pairing.base import PlayedGame
from tcecd.pgn.event_tags import EventTags
from tcecd.pgn.reader import HeaderEntry, ProgressCallback, iter_checked_headers


@dataclass(frozen=True, slots=True)
class ReplayedGame:
    """One game of the PGN as the tables need it (tags only, kept small: the
    event holds one per game; everything else is re-read from the PGN)."""

    number: int  # position in the file, 1-based
    round: int  # the Round tag "r.g" as two small ints (no GameId object each)
    index: int
    white: PlayerId
    black: PlayerId
    result: Result
    termination: str  # the Termination tag ("" when absent)
    detail: str  # the TerminationDetails tag
    plies: int | None  # PlyCount

    @property
    def game_id(self) -> GameId:
        return GameId(self.round, self.index)

    @property
    def played(self) -> bool:
        """False for a game forfeited without being played (it gives no colour)."""
        return self.termination.strip().lower() != Termination.FORFEIT.value

    def as_played_game(self) -> PlayedGame:
        return PlayedGame(self.white, self.black, self.result, self.played)


@dataclass
class OperatorFacts:
    """What the operator's console did, as the PGN records it (tags written
    by the daemon: docs/running.md, "The console"), for ``--verify`` to accept
    as facts instead of deviations: ``notes`` say each one; ``absent`` maps a
    round to the engines withdrawn from it (``[Withdrawn "A, B"]``: under the
    FIDE Swiss systems a withdrawn engine is no longer paired)."""

    notes: list[str] = field(default_factory=list)
    absent: dict[int, tuple[PlayerId, ...]] = field(default_factory=dict)

    def read(self, game: ReplayedGame, headers: Mapping[str, str], known: Collection[str],
             *, replaces: ReplayedGame | None) -> None:
        """Note what ``game``'s tags say the operator did."""
        gid = game.game_id
        reason = headers.get("ManualAdjudication")
        if reason is not None:
            self.notes.append(f"game {gid}: {game.result.value} by manual adjudication "
                              f"(the operator: {reason.strip()})")  # fmt: skip
        reason = headers.get("Restarted")
        if reason is not None:
            if replaces is not None:
                self.notes.append(
                    f"game {gid}: restarted by the operator ({reason.strip()}); its earlier "
                    f"result {replaces.result.value} ({replaces.detail or replaces.termination}) "
                    "is void"
                )
            else:
                self.notes.append(f"game {gid}: restarted by the operator ({reason.strip()})")
        for side in ("White", "Black"):
            command = headers.get(f"{side}Engine")
            if command is not None:
                who = game.white if side == "White" else game.black
                self.notes.append(f"game {gid}: {who} played by {command.strip()} "
                                  "(replaced by the operator)")  # fmt: skip
        if game.termination.strip().lower() == Termination.FORFEIT.value and \
                game.detail.strip().endswith(" withdrew"):
            self.notes.append(f"game {gid}: forfeit, {game.detail.strip()} (the operator)")
        gone = headers.get("Withdrawn")
        if gone is not None and gid.round not in self.absent:
            names = _names(gone, known)
            self.absent[gid.round] = names
            self.notes.append(f"round {gid.round}: {', '.join(names)} withdrawn by the "
                              "operator, not paired")  # fmt: skip


def _names(text: str, known: Collection[str]) -> tuple[PlayerId, ...]:
    """The engine names of a ``Withdrawn`` tag (``", "``-separated; a name may
    itself hold ", ": the longest known name is taken first)."""
    out: list[PlayerId] = []
    rest = text.strip()
    while rest:
        match = max((k for k in known if rest == k or rest.startswith(k + ", ")),
                    key=len, default=None)  # fmt: skip
        if match is None:
            head, _, rest = rest.partition(", ")
            out.append(head)
            continue
        out.append(match)
        rest = rest[len(match) + 2:]
    return tuple(out)


def game_error(path: Path, number: int, message: str) -> PgnError:
    """The one-line error about game ``number`` (1-based, in file order) of ``path``."""
    return PgnError(f"{path.name}: game {number}: {message}")


def _tag(path: Path, entry: HeaderEntry, tag: str) -> str:
    value = entry.headers.get(tag)
    if value is None or not value.strip() or value.strip() == "?":
        raise game_error(path, entry.number, f"missing {tag} tag")
    return value.strip()


def _read_game(path: Path, entry: HeaderEntry, names: dict[str, str]) -> ReplayedGame:
    """Validate one game's tags and summarise it."""
    if not entry.headers:
        raise game_error(path, entry.number, "no PGN tags (is this a PGN file?)")
    round_text = entry.headers.get("Round")
    if round_text is None or round_text.strip() in ("", "?"):
        raise game_error(path, entry.number, "missing Round tag (expected \"r.g\")")
    try:
        game_id = GameId.parse(round_text.strip())
    except ValueError:
        raise game_error(path, entry.number, f'Round tag {round_text!r} is not "r.g"') from None
    # Intern the names: thousands of games share a few dozen player strings.
    white = names.setdefault(_tag(path, entry, "White"), _tag(path, entry, "White"))
    black = names.setdefault(_tag(path, entry, "Black"), _tag(path, entry, "Black"))
    if white == black:
        raise game_error(path, entry.number, f"{white!r} plays against itself")
    result_text = entry.headers.get("Result", "*")
    try:
        result = Result.from_pgn(result_text.strip())
    except ValueError as exc:
        raise game_error(path, entry.number, str(exc)) from None
    plies_text = entry.headers.get("PlyCount", "")
    h = entry.headers
    return ReplayedGame(
        number=entry.number,
        round=game_id.round,
        index=game_id.number,
        white=white,
        black=black,
        result=result,
        # A handful of distinct values over thousands of games: share them.
        termination=names.setdefault(h.get("Termination", ""), h.get("Termination", "")),
        detail=names.setdefault(h.get("TerminationDetails", ""), h.get("TerminationDetails", "")),
        plies=int(plies_text) if plies_text.strip().isdigit() else None,
    )


def read_rounds(
    path: str | os.PathLike[str],
    *,
    progress: ProgressCallback | None = None,
    tags: EventTags | None = None,
    facts: OperatorFacts | None = None,
    known: Collection[str] = (),
) -> tuple[str, str, list[list[ReplayedGame]]]:
    """Stream the PGN's tags into rounds of games: ``(event, site, rounds)``;
    ``tags`` gathers what the games say of their event (:mod:`tcecd.pgn.event_tags`).

    Checks the Round tags run ``1.1, 1.2, ..., 2.1, ...`` with no gap, and
    that only the very last game may be unfinished (``*``; it is dropped).
    A game already read that comes again with a ``Restarted`` tag is the
    operator's replay of it (of the current round, or of an earlier one in a
    round-robin): it takes the earlier one's place (whose result the operator
    voided). ``facts`` collects what the operator did
    (``known``: the players' names, to read a ``Withdrawn`` tag).
    """
    p = Path(path)
    names: dict[str, str] = {}
    rounds: list[list[ReplayedGame]] = []
    event = site = "?"
    unfinished: ReplayedGame | None = None
    for entry in iter_checked_headers(p, progress=progress):
        game = _read_game(p, entry, names)
        if tags is not None:
            tags.add(entry.number, entry.headers, game.white, game.black)
        if entry.problem is not None:
            # After the tags: an illegal move, or a game cut short (tcecd.pgn.check).
            raise game_error(p, entry.number, entry.problem)
        if unfinished is not None:
            raise game_error(
                p, unfinished.number, "unfinished game (Result '*') before the end of the PGN"
            )
        if entry.number == 1:
            event = entry.headers.get("Event", "?")
            site = entry.headers.get("Site", "?")
        gid = game.game_id
        earlier = _restarted_place(rounds, game, entry.headers)
        replaced = None if earlier is None else rounds[earlier[0]][earlier[1]]
        if facts is not None:
            facts.read(game, entry.headers, known or names, replaces=replaced)
        if earlier is not None:
            if game.result is Result.UNFINISHED:
                unfinished = game
                continue
            rounds[earlier[0]][earlier[1]] = game
            continue
        if rounds:
            last = max(rounds[-1], key=lambda g: (g.round, g.index)).game_id
            expect_same = GameId(last.round, last.number + 1)
            expect_next = GameId(last.round + 1, 1)
            if gid not in (expect_same, expect_next):
                raise game_error(
                    p,
                    entry.number,
                    f"Round tag '{gid}' out of order (expected '{expect_same}' or "
                    f"'{expect_next}': games must be in playing order)",
                )
        elif gid != GameId(1, 1):
            raise game_error(p, entry.number, f"Round tag '{gid}' out of order (expected '1.1')")
        if game.result is Result.UNFINISHED:
            unfinished = game
            continue
        if rounds and gid.number > 1:
            rounds[-1].append(game)
        else:
            rounds.append([game])
    return event, site, rounds


def _restarted_place(
    rounds: Sequence[Sequence[ReplayedGame]], game: ReplayedGame, headers: Mapping[str, str]
) -> tuple[int, int] | None:
    """Where (round index, position) the game ``game`` replays sits, when it
    is the operator's replay of a game already read (``Restarted`` tag): in
    the current round, or (round-robin: the console re-opens a round while
    later ones are played) an earlier one."""
    r = game.game_id.round - 1
    if "Restarted" not in headers or not 0 <= r < len(rounds):
        return None
    place = next((i for i, g in enumerate(rounds[r]) if g.game_id == game.game_id), None)
    return None if place is None else (r, place)
