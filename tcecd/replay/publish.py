"""Re-streaming a replayed event over MQTT, in exactly the live topic schema.

:func:`replay_events` turns the event back into the domain events the daemon
emitted while it ran (EventStarted, StandingsUpdated, RoundPaired,
GameStarted, MovePlayed, GameFinished, ..., EventFinished), each with the
delay that preceded it live: a move waits its recorded move time (``mt``).
:func:`publish_replay` feeds them to the live stream's own
:class:`~tcecd.bus.publisher.Publisher`, dividing the delays by ``speed``
(0: as fast as the broker takes them), so viewers and dashboards can be
exercised without engines. Games are read from the PGN one at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import chess.pgn

from tcecd.bus.settings import MqttSettings
from tcecd.domain import Color, GameId
from tcecd.errors import BusError, PgnError
from tcecd.events import (
    DomainEvent,
    EventFinished,
    EventStarted,
    GameFinished,
    GameStarted,
    MovePlayed,
    RoundPaired,
    StandingsUpdated,
)
from tcecd.pairing.base import RoundRecord, Standing
from tcecd.pgn.reader import iter_games
from tcecd.replay.event import ReplayedEvent
from tcecd.replay.moves import game_record, parse_time_control_ms

if TYPE_CHECKING:
    from tcecd.bus.publisher import Publisher

#: Standings after the given complete rounds (the caller binds players,
#: double and tiebreaks).
StandingsFn = Callable[[Sequence[RoundRecord]], tuple[Standing, ...]]

#: The pacing sleep (a module attribute so tests can record the delays).
_sleep = asyncio.sleep

#: Wait for the broker once this many messages are queued (--speed 0 must
#: not overflow the publisher's queue, which would drop move updates).
_BACKLOG = 500


def _advance(
    games: Iterator[tuple[int, chess.pgn.Game]], number: int, replayed: ReplayedEvent
) -> chess.pgn.Game:
    """Read on to game ``number`` of the PGN (skipping an unfinished game)."""
    for n, game in games:
        if n == number:
            return game
    raise PgnError(f"{replayed.path.name}: game {number} vanished while reading")


def replay_events(
    replayed: ReplayedEvent, standings_of: StandingsFn, *, rounds_total: int | None = None
) -> Iterator[tuple[int, DomainEvent]]:
    """``(delay_ms, event)`` in the order the live event emitted them.

    ``rounds_total`` is the event's planned number of rounds (from its
    config); by default the number of rounds the PGN has.
    """
    first_tc = "-"
    if rounds_total is None:
        rounds_total = len(replayed.rounds) + (1 if replayed.partial is not None else 0)
    numbers = {g.number: g.game_id for g in replayed.games}
    games = iter_games(replayed.path)
    started = False
    for pairing in replayed.pairings():
        r = pairing.round
        round_games = [g for g in replayed.games if g.round == r]
        for summary in round_games:
            game = _advance(games, summary.number, replayed)
            gid: GameId = numbers[summary.number]
            try:
                record = game_record(game, gid)
            except ValueError as exc:
                raise PgnError(f"{replayed.path.name}: game {summary.number}: {exc}") from None
            if not started:
                first_tc = record.time_control
                yield 0, EventStarted(
                    event=replayed.event,
                    site=replayed.site,
                    system=replayed.system,
                    double=replayed.double,
                    rounds=rounds_total,
                    time_control=first_tc,
                    players=replayed.players,
                    variant="chess960" if record.opening.chess960 else "standard",
                )
                yield 0, StandingsUpdated(0, standings_of(()))
                started = True
            if summary.index == 1:
                yield 0, RoundPaired(pairing)
            base = parse_time_control_ms(record.time_control)
            clocks: dict[Color, int | None] = {Color.WHITE: base, Color.BLACK: base}
            yield 0, GameStarted(
                game_id=gid,
                white=record.white,
                black=record.black,
                opening=record.opening,
                time_control=record.time_control,
                start_time=record.start_time,
                white_clock_ms=base,
                black_clock_ms=base,
            )
            for move in record.moves:
                if move.clock_left_ms is not None:
                    clocks[move.color] = move.clock_left_ms
                yield move.move_time_ms or 0, MovePlayed(
                    gid, move, clocks[Color.WHITE], clocks[Color.BLACK]
                )
            yield 0, GameFinished(record, str(game))
        if r <= len(replayed.rounds):
            yield 0, StandingsUpdated(r, standings_of(replayed.rounds[:r]))
    if started and replayed.partial is None:
        yield 0, EventFinished(standings_of(replayed.rounds))


def _crosstable(replayed: ReplayedEvent, update: StandingsUpdated) -> dict[str, Any]:
    """The TCEC-format crosstable after ``update.after_round`` rounds."""
    from tcecd.outputs.tcec_json import CrossGame, crosstable_json

    games = [
        CrossGame(ordinal, g.white, g.black, g.result, g.played)
        for ordinal, g in enumerate(replayed.games, start=1)
        if g.round <= update.after_round
    ]
    return crosstable_json(replayed.event, replayed.players, games, update.standings)


async def publish_replay(
    replayed: ReplayedEvent,
    settings: MqttSettings,
    standings_of: StandingsFn,
    *,
    speed: float,
    rounds_total: int | None = None,
    flush_timeout_s: float = 30.0,
    on_event: Callable[[DomainEvent], None] | None = None,
) -> int:
    """Publish the replayed event; returns the number of domain events sent.

    ``speed`` divides every recorded delay (2: twice as fast); 0 sends
    without waiting. After each standings update the TCEC crosstable is
    published too, as the daemon does. The publisher's queue is drained whenever it grows past
    a few hundred messages so that no move update is dropped. Reading the PGN
    (blocking file I/O, python-chess parsing) runs in a worker thread, one
    game's events at a time, so the loop stays free to talk to the broker.
    """
    from tcecd.bus.publisher import Publisher  # imported here: only when publishing

    if speed < 0:
        raise PgnError(f"invalid speed: {speed!r} (must be >= 0)")
    events = replay_events(replayed, standings_of, rounds_total=rounds_total)
    sentinel = object()

    def next_event() -> tuple[int, DomainEvent] | object:
        return next(events, sentinel)

    count = 0
    async with Publisher(settings, event=replayed.event) as pub:
        while True:
            item = await asyncio.to_thread(next_event)
            if item is sentinel:
                break
            assert isinstance(item, tuple)
            delay_ms, event = item
            if speed > 0 and delay_ms > 0:
                await _sleep(delay_ms / 1000 / speed)
            pub.publish(event)
            if isinstance(event, StandingsUpdated):
                # As the daemon does: the TCEC crosstable follows the standings.
                pub.publish_crosstable(_crosstable(replayed, event))
            count += 1
            if on_event is not None:
                on_event(event)
            if pub.pending > _BACKLOG:
                await _drain(pub, settings, flush_timeout_s)
        await _drain(pub, settings, flush_timeout_s)
    return count


async def _drain(pub: Publisher, settings: MqttSettings, timeout_s: float) -> None:
    """Wait for the broker to take the queue. Unlike the daemon, whose events
    go on without a broker, a replay exists to publish: a broker that takes
    nothing for ``timeout_s`` ends it with an error."""
    if not await pub.flush(timeout_s):
        raise BusError(
            f"MQTT broker {settings.redacted_url()} did not take the replay within "
            f"{timeout_s:g} s ({pub.pending} messages not delivered; is it running?)"
        )
