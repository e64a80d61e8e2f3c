"""Writing then reading a TRF gives back the same event (hypothesis)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.domain import Color, Result
from tcecd.pairing.base import Bye, ByeKind, PlayedGame, Player, RoundContext, RoundRecord
from tcecd.pairing.points import (
    STANDARD,
    acceleration_from_points,
    forbidden_pairs,
    parse_points,
)
from tcecd.trf import TrfEvent, format_trf, parse_trf

# Printable ASCII with inner spaces ("Carlsen, Magnus"); the reader strips the field.
_NAME = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=33).filter(
    lambda s: s.strip() == s and s != ""
)
_REQUESTED = st.sampled_from([ByeKind.HALF, ByeKind.FULL, ByeKind.ZERO])
#: Point systems: the XXS line says each exactly; BB? lines too for the first four.
_POINTS = ("3-1-0", "2-1-0", {"draw": 0.4}, "3-2-1", {"win_black": 1.5}, {"pairing_bye": 0.5})


@st.composite
def events(draw: st.DrawFn) -> TrfEvent:
    """Random events in the reader's canonical form: ids = pairing numbers,
    every player once per finished round (a game, a pairing-allocated bye --
    several in some rounds, as the integer program allocates them -- or a
    requested bye), games ordered by the pair's lower pairing number, byes by
    pairing number; every finished round has a game or a pairing-allocated
    bye (a round of requested byes only would read as the round to pair).
    Half of them have rules: forbidden pairs, a point system and virtual
    points (``XXP``, ``XXS``/``BB?``, ``XXA``)."""
    count = draw(st.integers(2, 10))
    players = tuple(
        Player(
            str(n),
            draw(_NAME),
            n,
            draw(st.none() | st.integers(1, 3999)),
            draw(st.none() | st.sampled_from(["GM", "IM", "FM", "WGM", "CM"])),
        )
        for n in range(1, count + 1)
    )
    rounds: list[RoundRecord] = []
    for rnd in range(1, draw(st.integers(0, 5)) + 1):
        order = draw(st.permutations(range(1, count + 1)))
        byes_count = draw(st.integers(0, count - 2))
        requested = sorted(order[:byes_count])
        rest = list(order[byes_count:])
        allocated = [rest.pop() for _ in range(len(rest) % 2)]
        if draw(st.booleans()) and len(rest) >= 2:
            # The integer program may leave more players unpaired.
            allocated += [rest.pop(), rest.pop()]
        games = []
        for a, b in zip(rest[::2], rest[1::2], strict=True):
            played = draw(st.booleans())
            results = [Result.WHITE_WINS, Result.BLACK_WINS]
            if played:
                results.append(Result.DRAW)
            games.append(PlayedGame(str(a), str(b), draw(st.sampled_from(results)), played=played))
        games.sort(key=lambda g: min(int(g.white), int(g.black)))
        rounds.append(
            RoundRecord(
                round=rnd,
                byes=[str(n) for n in allocated],
                removed_history_rounds=(),
                games=tuple(games),
                requested_byes=tuple(Bye(str(n), draw(_REQUESTED)) for n in requested),
            )
        )
    total = draw(st.none() | st.integers(len(rounds) + 1, len(rounds) + 3))
    upcoming = draw(st.lists(st.integers(1, count), unique=True, max_size=count))
    rules = draw(st.booleans())
    points = parse_points(draw(st.sampled_from(_POINTS))) if rules else STANDARD
    virtual: dict[str, list[Fraction]] = {}
    pairs: list[tuple[str, str]] = []
    if rules and count >= 2:
        for n in draw(st.lists(st.integers(1, count), unique=True, max_size=3)):
            length = draw(st.integers(1, total or 3))
            virtual[str(n)] = [Fraction(draw(st.integers(0, 20)), 10) for _ in range(length)]
        for _ in range(draw(st.integers(0, 3))):
            a, b = draw(st.lists(st.integers(1, count), min_size=2, max_size=2, unique=True))
            pairs.append((str(a), str(b)))
    points, acceleration = acceleration_from_points(virtual, points)
    context = RoundContext(
        total_rounds=total,
        requested_byes=tuple(Bye(str(n), draw(_REQUESTED)) for n in sorted(upcoming)),
        first_colour=draw(st.sampled_from(Color)),
        forbidden_pairs=forbidden_pairs(pairs),
        points=points,
        acceleration=acceleration,
    )
    name = draw(st.none() | _NAME)
    return TrfEvent(name, players, tuple(rounds), context)


@settings(max_examples=40, deadline=None)
@given(events())
def test_write_then_read_is_the_same_event(event: TrfEvent) -> None:
    text = format_trf(event)
    assert parse_trf(text, "roundtrip.trf") == event
    # And the text is stable: writing what was read gives the same bytes.
    assert format_trf(parse_trf(text, "again.trf")) == text
