"""``tcecd watch``: the view-model fed with payload sequences, the frame, and the
command end-to-end (``--once``) against a real Mosquitto."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from tcecd.bus.payloads import Projection
from tcecd.bus.publisher import Publisher
from tcecd.bus.settings import MqttSettings
from tcecd.events import RoundPaired
from tcecd.watch.model import Watcher
from tcecd.watch.render import board_lines, clock, render
from tests.bus.sample import GAMES, all_events, game_events, pairing, round_events, start_events
from tests.fixtures.mosquitto import MosquittoBroker

TS = "2026-11-22T05:00:00.000Z"


def feed(events: list, watcher: Watcher | None = None) -> Watcher:  # type: ignore[type-arg]
    p = Projection("tcecd/bus-test", "Bus Test")
    w = watcher or Watcher("tcecd")
    for e in events:
        for m in p.messages_for(e, TS):
            w.apply(m.topic, m.payload)
    return w


def mid_round_two() -> list:  # type: ignore[type-arg]
    """Round 1 done, round 2 paired, game 2.1 (Gamma 2 - Alpha) after 2... Nc6."""
    return [*start_events(), *round_events(1), RoundPaired(pairing(2)),
            *game_events(*GAMES[2])[:-1]]


def test_view_follows_a_running_game() -> None:
    view = feed(mid_round_two()).selected
    assert view is not None
    assert (view.slug, view.name, view.status) == ("bus-test", "Bus Test", None)
    assert view.current_round == 2
    g = view.current_game
    assert g is not None
    assert (g.game, g.white, g.black, g.result) == ("2.1", "C", "A", None)
    assert g.moves == ["e4", "e5", "Nf3", "Nc6"]
    assert g.fen == "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    # sample.py: ply 4 (Black) leaves Black 60000 - 4000 ms; White's clock is 59000.
    assert (g.white_clock_ms, g.black_clock_ms) == (59000, 56000)
    assert g.last is not None
    assert g.last["eval"]["cp"] == 24
    assert view.result_of("1.1") == "1-0"
    assert view.standings is not None
    assert view.standings["after_round"] == 1


def test_late_joiner_sees_the_same_game_from_retained_snapshot() -> None:
    """A viewer that only gets the retained messages (no move stream) shows the same."""
    p = Projection("tcecd/bus-test", "Bus Test")
    retained: dict[str, bytes] = {}
    for e in mid_round_two():
        for m in p.messages_for(e, TS):
            if m.retain:
                if m.payload:
                    retained[m.topic] = m.payload
                else:
                    retained.pop(m.topic, None)
    w = Watcher("tcecd")
    for topic, payload in retained.items():
        w.apply(topic, payload)
    full = feed(mid_round_two()).selected
    late = w.selected
    assert late is not None
    assert full is not None
    assert late.current_game is not None
    assert full.current_game is not None
    assert late.current_game.moves == full.current_game.moves
    assert late.current_game.fen == full.current_game.fen
    assert render(late) == render(full)


def test_finished_event_frame() -> None:
    view = feed(all_events()).selected
    assert view is not None
    assert view.finished is not None
    frame = render(view)
    assert "Final standings" in frame
    assert "Event finished. Winner: Alpha" in frame
    assert "Round 2/2 pairings" in frame
    assert "2.2    Beta               - Delta/x            1-0" in frame
    assert "Delta/x: crash segfault (game 2.2)" in frame
    lines = frame.splitlines()
    first = lines.index("Final standings")
    names = [ln.split()[1] for ln in lines[first + 1:first + 5]]
    assert names == ["Alpha", "Beta", "Gamma", "Delta/x"]


def test_tolerates_garbage_and_other_events() -> None:
    w = Watcher("tcecd", event="bus-test")
    assert not w.apply("tcecd/bus-test/standings", b"{not json")
    assert not w.apply("tcecd/bus-test/standings", json.dumps({"schema": 99}).encode())
    assert not w.apply("tcecd/other-event/status", b'{"schema":1,"state":"online"}')
    assert not w.apply("elsewhere/bus-test/status", b'{"schema":1,"state":"online"}')
    assert not w.apply("tcecd/bus-test/unknown/topic", b'{"schema":1}')
    assert w.apply("tcecd/bus-test/status", b'{"schema":1,"type":"status","state":"online"}')
    view = w.selected
    assert view is not None
    assert view.status == "online"
    assert view.ignored == 2  # another schema version, a topic outside the schema
    assert view.rejected == 1  # not JSON on a topic of the schema (issue 28: counted, shown)
    assert view.last_rejected == "standings: not JSON"
    assert render(None, source="mqtt://h:1").startswith("tcecd watch: waiting")


def test_board_and_clock_helpers() -> None:
    lines = board_lines(None)
    assert lines[0] == "8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜"
    assert lines[7] == "1 ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖"
    assert lines[8] == "  a b c d e f g h"
    assert clock(3_725_000) == "1:02:05"
    assert clock(600_000) == "0:10:00"  # ten minutes and more: h:mm:ss
    # Under ten minutes mm:ss.t, tenths cut (never more time shown than is left):
    assert clock(599_999) == "09:59.9"
    assert clock(83_450) == "01:23.4"  # 1 min 23.45 s
    assert clock(999) == "00:00.9"
    assert clock(-5) == "00:00.0"  # a flag fall shows zero
    assert clock(None) == "-:--:--"


def test_standings_during_round_one_say_before_round_one() -> None:
    """The daemon publishes the standings after round 0 at the start: during round 1
    the frame says "before round 1", not "after round 0"."""
    view = feed([*start_events(), RoundPaired(pairing(1))]).selected
    assert view is not None
    frame = render(view)
    assert "Standings before round 1" in frame
    assert "after round 0" not in frame


def test_draws_show_their_reason() -> None:
    """Game 1.2 (C - D) is a draw adjudicated with detail "test" (sample.py)."""
    view = feed([*start_events(), *round_events(1)]).selected
    assert view is not None
    assert view.reason_of("1.2") == "test"
    frame = render(view)
    assert "1.2    Gamma 2            - Delta/x            1/2-1/2 (test)" in frame
    # Decisive games say why too (1.1: A wins).
    assert "1.1    Alpha              - Beta               1-0 (test)" in frame


def test_the_side_to_move_clock_ticks() -> None:
    """Mid round 2, game 2.1 after 2... Nc6: White to move with 59000 ms, Black
    56000 ms (sample.py). 12.34 s after that report White shows 59.00 - 12.34 =
    46.66 s -> "00:46.6"; Black's clock stands still. Offline: no ticking."""
    w = Watcher("tcecd")
    p = Projection("tcecd/bus-test", "Bus Test")
    t0 = 1_000_000.0
    for e in mid_round_two():
        for m in p.messages_for(e, TS):
            w.apply(m.topic, m.payload, at=t0)
    w.apply("tcecd/bus-test/status", b'{"schema":1,"type":"status","state":"online"}', at=t0)
    view = w.selected
    assert view is not None
    frame = render(view, now=t0 + 12.34)
    assert "White Gamma 2          00:46.6" in frame
    assert "Black Alpha            00:56.0" in frame
    assert "00:59.0" in render(view)  # without a time: as reported
    w.apply("tcecd/bus-test/status", b'{"schema":1,"type":"status","state":"offline"}', at=t0)
    assert "White Gamma 2          00:59.0" in render(view, now=t0 + 12.34)


def test_a_retained_clock_ticks_from_its_timestamp() -> None:
    """A late joiner gets the live snapshot retained: its clocks were true at the
    payload's ``ts`` (TS = 05:00:00Z), not when it arrived 100 s later."""
    from datetime import datetime

    ts = datetime.fromisoformat(TS.replace("Z", "+00:00")).timestamp()
    p = Projection("tcecd/bus-test", "Bus Test")
    w = Watcher("tcecd")
    for e in mid_round_two():
        for m in p.messages_for(e, TS):
            if m.retain:
                w.apply(m.topic, m.payload, at=ts + 100, retained=True)
    g = w.selected.current_game if w.selected is not None else None
    assert g is not None
    assert g.clock_at == ts


def test_prefix_found_from_the_event_document() -> None:
    """No prefix given: ``lab/tcec/bus-test/event`` marks the root; what arrived
    before it under that root is replayed, other topics are ignored."""
    p = Projection("lab/tcec/bus-test", "Bus Test")
    msgs = [m for e in mid_round_two() for m in p.messages_for(e, TS)]
    event_first = [m for m in msgs if m.topic.endswith("/event")]
    rest = [m for m in msgs if not m.topic.endswith("/event")]
    w = Watcher(None)
    assert not w.apply("other/thing/event", b'{"schema":1,"type":"status"}')
    for m in rest:  # all before the event document: kept aside
        assert not w.apply(m.topic, m.payload)
    assert w.selected is None
    for m in event_first:
        assert w.apply(m.topic, m.payload)
    assert w.prefix_of("bus-test") == "lab/tcec"
    fixed = Watcher("lab/tcec")
    for m in msgs:
        fixed.apply(m.topic, m.payload)
    assert w.selected is not None
    assert fixed.selected is not None
    assert render(w.selected) == render(fixed.selected)


@pytest.mark.mosquitto
async def test_watch_once_end_to_end(mosquitto: MosquittoBroker) -> None:
    settings = MqttSettings.from_url(mosquitto.url)
    async with Publisher(settings, event="Bus Test") as pub:
        for e in mid_round_two():
            pub.publish(e)
        assert await pub.flush(30)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tcecd", "watch", "--mqtt", mosquitto.url, "--once",
            "--event", "bus-test", stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(60):
            out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    frame = out.decode()
    assert frame.startswith("Bus Test  [online]")
    assert "Game 2.1: Gamma 2 - Alpha  [playing]" in frame
    assert "6 · · ♞ · · · · ·" in frame  # the knight on c6 after 2... Nc6
    assert "Last: 2... Nc6  eval +0.24" in frame
    assert "Standings after round 1" in frame
    assert "2.1    Gamma 2            - Alpha              ..." in frame


@pytest.mark.mosquitto
async def test_watch_once_finds_another_prefix(mosquitto: MosquittoBroker) -> None:
    """No --prefix needed: the daemon's prefix comes from its retained event document."""
    settings = MqttSettings.from_url(mosquitto.url, topic_prefix="lab/tcec")
    async with Publisher(settings, event="Bus Test") as pub:
        for e in mid_round_two():
            pub.publish(e)
        assert await pub.flush(30)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tcecd", "watch", "--mqtt", mosquitto.url, "--once",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    frame = out.decode()
    assert frame.startswith("Bus Test  [offline]")
    assert "Game 2.1: Gamma 2 - Alpha  [playing]" in frame


@pytest.mark.mosquitto
async def test_watch_once_unreachable_broker_is_one_line_error(
        mosquitto: MosquittoBroker) -> None:
    url = mosquitto.url
    mosquitto.stop()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tcecd", "watch", "--mqtt", url, "--once",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 2
    assert out == b""
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"tcecd: error: cannot watch {url}")


@pytest.mark.mosquitto
async def test_watch_live_follows_the_event_across_a_broker_restart(
        mosquitto: MosquittoBroker) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tcecd", "watch", "--mqtt", mosquitto.url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    seen = bytearray()

    async def wait_for(text: str) -> None:
        async with asyncio.timeout(60):
            while text.encode() not in seen:
                chunk = await proc.stdout.read(65536)  # type: ignore[union-attr]
                assert chunk, f"watch exited early: {seen.decode()[-2000:]}"
                seen.extend(chunk)

    try:
        await wait_for("waiting for an event")
        settings = MqttSettings.from_url(mosquitto.url)
        async with Publisher(settings, event="Bus Test", backoff_initial_s=0.05,
                             backoff_max_s=0.3) as pub:
            for e in [*start_events(), *round_events(1)]:
                pub.publish(e)
            await wait_for("Standings after round 1")
            mosquitto.kill()
            await wait_for("unreachable")
            mosquitto.start()
            for e in all_events()[len(start_events()) + len(round_events(1)):]:
                pub.publish(e)
            assert await pub.flush(30)
            await wait_for("Event finished. Winner: Alpha")
    finally:
        proc.send_signal(2)  # SIGINT, as Ctrl-C
        async with asyncio.timeout(30):
            await proc.wait()
    assert proc.returncode == 130


def test_move_numbers_follow_the_start_position() -> None:
    from tcecd.watch.render import _moves_text, move_number

    # Black to move at move 12 (an opening position): the list starts "12... ".
    start = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12"
    assert _moves_text(["a6", "Bb5", "b5"], start, 80, 3) == ["12... a6 13. Bb5 b5"]
    assert _moves_text(["e4", "e5", "Nf3"], None, 80, 3) == ["1. e4 e5 2. Nf3"]
    # After 1. e4 Black is to move at full move 1; after 1... e5 White at move 2.
    assert move_number("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                       "e4") == "1. e4"
    assert move_number("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                       "e5") == "1... e5"


@pytest.mark.mosquitto
async def test_watch_once_as_read_only_viewer(mosquitto_factory: Any) -> None:
    """A viewer account may not publish the --once barrier: the frame still comes."""
    acl = "user tcecd\ntopic readwrite tcecd/#\n\nuser viewer\ntopic read tcecd/#\n"
    broker = mosquitto_factory(users={"tcecd": "pub-pw", "viewer": "view-pw"}, acl=acl)
    daemon = MqttSettings.from_url(f"mqtt://tcecd:pub-pw@127.0.0.1:{broker.port}")
    async with Publisher(daemon, event="Bus Test") as pub:
        for e in mid_round_two():
            pub.publish(e)
        assert await pub.flush(30)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tcecd", "watch", "--once", "--wait", "60",
            "--mqtt", f"mqtt://viewer:view-pw@127.0.0.1:{broker.port}",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(90):
            out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert "Game 2.1: Gamma 2 - Alpha  [playing]" in out.decode()


@pytest.mark.parametrize("source", ["file", "env"])
async def test_watch_password_from_file_or_environment(
    mosquitto_factory: Any, tmp_path: Any, source: str
) -> None:
    """The viewer's password stays out of the process list: --mqtt-password-file
    or $TCECD_MQTT_PASSWORD with a URL that names only the user."""
    import os

    broker = mosquitto_factory(users={"tcecd": "pub-pw", "viewer": "view-pw"})
    daemon = MqttSettings.from_url(f"mqtt://tcecd:pub-pw@127.0.0.1:{broker.port}")
    args = ["--mqtt", f"mqtt://viewer@127.0.0.1:{broker.port}"]
    env = {k: v for k, v in os.environ.items() if k != "TCECD_MQTT_PASSWORD"}
    if source == "file":
        secret = tmp_path / "viewer.pass"
        secret.write_text("view-pw\n", encoding="utf-8")
        secret.chmod(0o600)
        args += ["--mqtt-password-file", str(secret)]
    else:
        env["TCECD_MQTT_PASSWORD"] = "view-pw"
    async with Publisher(daemon, event="Bus Test") as pub:
        for e in mid_round_two():
            pub.publish(e)
        assert await pub.flush(30)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tcecd", "watch", "--once", "--wait", "60", *args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
        async with asyncio.timeout(90):
            out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert "Game 2.1: Gamma 2 - Alpha  [playing]" in out.decode()
    assert "view-pw" not in " ".join(args)


@pytest.mark.mosquitto
async def test_watch_once_skips_a_bad_retained_message(mosquitto: MosquittoBroker) -> None:
    """Issue 28: a stranger's retained ``standings`` with ``"rank": "x"`` and a name
    carrying an OSC title change made ``tcecd watch --once`` exit 1 with a traceback;
    now the frame is drawn, the message counted, and no escape reaches stdout."""
    import aiomqtt

    settings = MqttSettings.from_url(mosquitto.url)
    async with Publisher(settings, event="Bus Test") as pub:
        for e in mid_round_two():
            pub.publish(e)
        assert await pub.flush(30)
    bad = {"schema": 1, "type": "standings", "event": "Bus Test", "ts": TS, "after_round": 2,
           "final": False, "rows": [{"rank": "x", "id": "A", "score": 1, "games": 1,
                                     "tiebreaks": {"SB": "x"}}]}
    fault = {"schema": 1, "type": "fault", "event": "Bus Test", "ts": TS,
             "engine": "A", "game": None, "kind": "crash\x1b]0;pwned\x07", "detail": "d",
             "strikes": 1}
    async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
        await client.publish("tcecd/bus-test/standings", json.dumps(bad), qos=1, retain=True)
        await client.publish("tcecd/bus-test/engine/A/fault", json.dumps(fault), qos=1,
                             retain=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tcecd", "watch", "--mqtt", mosquitto.url, "--once",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    frame = out.decode()
    assert "Game 2.1: Gamma 2 - Alpha" in frame
    assert "\x1b" not in frame
    assert "crash\ufffd]0;pwned\ufffd" in frame
    assert frame.endswith("1 malformed message skipped (last: standings: rows.0.rank: Input "
                          "should be a valid integer)\n")
