"""Bad event configs: each is one exact line on stderr, exit code 2, no traceback.

Every row is a YAML snippet whose top-level sections replace those of a good
base config (``tests/fixtures/event_config.py``: two bundled demo engines,
three rounds, 10+0.1), or a whole raw file, and the exact message a user sees.
Each message was checked by hand against the rule it enforces: it names the
file, the key path, quotes the bad value and says what was expected.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tcecd.cli import main
from tcecd.config.load import DEFAULT_ENGINES_DIR
from tests.fixtures.event_config import BASE_EVENT


@dataclass(frozen=True)
class Row:
    id: str
    snippet: str  # YAML: top-level sections replacing the base config's
    message: str  # after "tcecd: error: "; {dir} = the config's directory
    raw: bool = False  # the snippet is the whole file
    drop: tuple[str, ...] = ()  # base sections to remove


ROWS = [
    Row(
        "unknown-top-level-key",
        "pairng: {rounds: 3}",
        "event.yaml: unknown key 'pairng' (expected one of: event, variant, pairing, engines, "
        "engines_dir, kibitzers, time_control, adjudication, openings, concurrency, execution, "
        "strikes, outputs, mqtt, logging, shutdown, forecast)",
    ),
    Row(
        "unknown-nested-key",
        "pairing: {rounds: 3, dobule: true}",
        "event.yaml: pairing: unknown key 'dobule' (expected one of: system, rounds, double, "
        "seeding, tiebreaks, time_limit_s, forbidden_pairs, points, acceleration, games, "
        "tiebreak)",
    ),
    Row(
        "missing-section",
        "",
        "event.yaml: missing required key 'time_control'",
        drop=("time_control",),
    ),
    Row(
        "missing-rounds",
        "pairing: {double: true}",
        "event.yaml: pairing: missing required key 'rounds'",
    ),
    Row(
        "rounds-not-a-number",
        "pairing: {rounds: five}",
        "event.yaml: pairing.rounds: expected an integer, got 'five'",
    ),
    Row(
        "zero-rounds",
        "pairing: {rounds: 0}",
        "event.yaml: pairing.rounds: 0 is out of range; expected a number >= 1",
    ),
    Row(
        "other-pairing-system",
        "pairing: {rounds: 3, system: swiss-dutch}",
        "event.yaml: pairing.system: unknown pairing system: 'swiss-dutch' (known: tcec-swiss, "
        "dutch-2017, dutch, dutch-2012, dubov, integer-program, round-robin, knockout)",
    ),
    Row(
        "odd-number-of-groups",
        "pairing: {rounds: 3, seeding: {method: group, groups: 3}}",
        "event.yaml: pairing.seeding.groups: 3 is odd; group seeding needs an even number "
        "of groups",
    ),
    Row(
        "groups-without-group-seeding",
        "pairing: {rounds: 3, seeding: {method: random, groups: 2}}",
        "event.yaml: pairing.seeding.groups: 2 is only used by method 'group', not 'random'",
    ),
    Row(
        "more-groups-than-engines",
        "pairing: {rounds: 3, seeding: {method: group, groups: 4}}",
        "event.yaml: pairing.seeding.groups: 4 groups for 2 engines; expected at most one "
        "group per engine",
    ),
    Row(
        "rating-seeding-without-rating",
        "pairing: {rounds: 3, seeding: {method: rating}}\n"
        "engines: [ab-d1, {name: bare, command: ['{python}', '-c', 'pass']}]",
        "event.yaml: engines[1]: engine 'bare' has no rating; seeding method 'rating' needs "
        "one for every engine",
    ),
    Row(
        "unknown-tiebreak",
        "pairing: {rounds: 3, tiebreaks: [wins, elo]}",
        "event.yaml: pairing.tiebreaks[1]: expected 'black-games', 'sonneborn-berger', "
        "'buchholz', 'buchholz-cut1', 'wins' or 'direct-encounter', got 'elo'",
    ),
    Row(
        "repeated-tiebreak",
        "pairing: {rounds: 3, tiebreaks: [wins, buchholz, wins]}",
        "event.yaml: pairing.tiebreaks: 'wins' is listed twice",
    ),
    # The event's rules (docs/pairing.md, "Forbidden pairs", "Accelerated rounds",
    # "Point systems").
    Row(
        "forbidden-pair-with-unknown-engine",
        "pairing: {rounds: 3, system: dutch, forbidden_pairs: [[ab-d1, sf]]}",
        "event.yaml: pairing.forbidden_pairs[0][1]: unknown engine 'sf' (engines: ab-d1, ab-d2)",
    ),
    Row(
        "forbidden-pair-of-one",
        "pairing: {rounds: 3, system: dutch, forbidden_pairs: [[ab-d1]]}",
        "event.yaml: pairing.forbidden_pairs: expected pairs of two engine names [a, b], "
        "got ['ab-d1']",
    ),
    Row(
        "forbidden-pair-with-itself",
        "pairing: {rounds: 3, system: dutch, forbidden_pairs: [[ab-d2, ab-d2]]}",
        "event.yaml: pairing.forbidden_pairs[0]: 'ab-d2' is paired with itself",
    ),
    Row(
        "forbidden-pairs-under-tcec-swiss",
        "pairing: {rounds: 3, forbidden_pairs: [[ab-d1, ab-d2]]}",
        "event.yaml: pairing.forbidden_pairs: the tcec-swiss system cannot honour forbidden "
        "pairs (TRF XXP, pairing.forbidden_pairs)",
    ),
    Row(
        "acceleration-under-round-robin",
        "pairing: {system: round-robin, acceleration: baku}",
        "event.yaml: pairing.acceleration: the round-robin system cannot honour accelerated "
        "rounds (TRF XXA, pairing.acceleration)",
    ),
    Row(
        "points-under-tcec-swiss",
        "pairing: {rounds: 3, points: 3-1-0}",
        "event.yaml: pairing.points: the tcec-swiss system cannot honour a point system other "
        "than the standard one (TRF XXS/BB?, pairing.points)",
    ),
    Row(
        "points-not-w-d-l",
        "pairing: {rounds: 3, system: dutch, points: 3-1}",
        "event.yaml: pairing.points: expected 'WIN-DRAW-LOSS' (such as '3-1-0') or a mapping, "
        "got '3-1'",
    ),
    Row(
        "points-unknown-outcome",
        "pairing: {rounds: 3, system: dutch, points: {win: 3, tie: 1}}",
        "event.yaml: pairing.points: unknown outcome 'tie' (known: win, draw, loss, win_white, "
        "win_black, draw_white, draw_black, loss_white, loss_black, forfeit_win, forfeit_loss, "
        "pairing_bye, full_bye, half_bye, zero_bye)",
    ),
    Row(
        "points-finer-than-tenths",
        "pairing: {rounds: 3, system: dutch, points: {draw: 0.45}}",
        "event.yaml: pairing.points.draw: points are multiples of 0.1, got 0.45",
    ),
    Row(
        "baku-with-other-points",
        "pairing: {rounds: 3, system: dutch, points: 3-1-0, acceleration: baku}",
        "event.yaml: pairing.acceleration: 'baku' (FIDE C.04.5.1) applies only to the standard "
        "point system (win 1, draw 0.5), not '3-1-0'",
    ),
    Row(
        "acceleration-unknown-method",
        "pairing: {rounds: 3, system: dutch, acceleration: fast}",
        "event.yaml: pairing.acceleration: expected 'baku' or a mapping of engines to virtual "
        "points per round, got 'fast'",
    ),
    Row(
        "acceleration-of-unknown-engine",
        "pairing: {rounds: 3, system: dutch, acceleration: {sf: [1, 1]}}",
        "event.yaml: pairing.acceleration.sf: unknown engine 'sf' (engines: ab-d1, ab-d2)",
    ),
    Row(
        "acceleration-beyond-the-event",
        "pairing: {rounds: 3, system: dutch, acceleration: {ab-d1: [1, 1, 0.5, 0.5]}}",
        "event.yaml: pairing.acceleration.ab-d1: virtual points for 4 rounds, but the event "
        "has 3",
    ),
    Row(
        "one-engine",
        "engines: [ab-d1]",
        "event.yaml: engines: 1 engine given; an event needs at least two",
    ),
    Row(
        "same-engine-twice",
        "engines: [ab-d1, ab-d2, ab-d1]",
        "event.yaml: engines[2]: duplicate engine name 'ab-d1' (also engines[0]); give one "
        "of them another 'name'",
    ),
    Row(
        "renamed-to-a-taken-name",
        "engines: [ab-d1, {ref: ab-d2, name: ab-d1}]",
        "event.yaml: engines[1]: duplicate engine name 'ab-d1' (also engines[0]); give one "
        "of them another 'name'",
    ),
    # Engine names are the players' identity in the PGN tags: replay and
    # run --from-pgn find players by them, so a name must read back as written.
    # python-chess keeps the backslash of \" in a tag value, and tcecd's writer
    # turns a newline into a space: both names came back as another player.
    Row(
        "engine-name-with-a-quote",
        """engines: [ab-d1, {ref: ab-d2, name: 'ab "2"'}]""",
        "event.yaml: engines[1].name: engine name 'ab \"2\"' contains '\"', which a PGN tag "
        "cannot carry (use letters, digits, spaces and punctuation other than \" and \\)",
    ),
    Row(
        "engine-name-with-a-newline",
        'engines: [ab-d1, {name: "sf\\nx", command: [\'{python}\']}]',
        "event.yaml: engines[1].name: engine name 'sf\\nx' contains '\\n', which a PGN tag "
        "cannot carry (use letters, digits, spaces and punctuation other than \" and \\)",
    ),
    Row(
        "engine-name-with-surrounding-spaces",
        "engines: [ab-d1, {ref: ab-d2, name: ' ab '}]",
        "event.yaml: engines[1].name: engine name ' ab ' would not read back from a PGN tag "
        "(no leading or trailing spaces, and not '?')",
    ),
    Row(
        "unknown-engine",
        "engines: [ab-d1, stokfish]",
        "event.yaml: engines[1]: unknown engine 'stokfish' (looked in engines/, {engines}/)",
    ),
    Row(
        "engines-not-a-list",
        "engines: ab-d1",
        "event.yaml: engines: expected a list of engines, got 'ab-d1'",
    ),
    Row(
        "ref-with-unknown-override",
        "engines: [ab-d1, {ref: ab-d2, threads: 4}]",
        "event.yaml: engines[1]: unknown key 'threads' (expected one of: ref, name, options, "
        "rating, tc, nodes, depth, movetime_ms)",
    ),
    Row(
        "inline-shell-string",
        "engines: [ab-d1, {name: sf, command: 'stockfish -x'}]",
        "event.yaml: engines[1].command: expected a list of arguments (argv, never a shell "
        "string), got 'stockfish -x'",
    ),
    Row(
        "inline-bad-protocol",
        "engines: [ab-d1, {name: sf, command: ['{python}'], protocol: ucci}]",
        "event.yaml: engines[1].protocol: expected 'uci' or 'xboard', got 'ucci'",
    ),
    Row(
        "inline-without-name",
        "engines: [ab-d1, {command: ['{python}']}]",
        "event.yaml: engines[1]: missing required key 'name'",
    ),
    Row(
        "option-of-wrong-type",
        "engines: [ab-d1, {ref: ab-d2, options: {Hash: [16]}}]",
        "event.yaml: engines[1].options.Hash: expected a string, an integer, a number or a "
        "boolean, got [16]",
    ),
    Row(
        "missing-program",
        "engines: [ab-d1, {name: ghost, command: [no-such-engine-xyz]}]",
        "event.yaml: engines[1].command: program 'no-such-engine-xyz' of engine 'ghost' not "
        "found or not executable (searched PATH, /usr/games, /usr/local/games, /usr/sbin)",
    ),
    Row(
        "bad-time-control",
        "time_control: {tc: '60++1'}",
        "event.yaml: time_control.tc: invalid time control: '60++1' (bad stage '60++1', "
        "expected [moves/]seconds[+increment])",
    ),
    Row(
        "no-time-limit",
        "time_control: {margin_ms: 100}",
        "event.yaml: time_control: no limit given; expected 'tc' (e.g. '60+0.6') or nodes, "
        "depth or movetime_ms",
    ),
    Row(
        "limit-given-twice",
        "time_control: {tc: '60+1 nodes=5000', nodes: 300}",
        "event.yaml: time_control.nodes: 300 given twice (tc '60+1 nodes=5000' already sets it)",
    ),
    Row(
        "missing-tablebases",
        "adjudication: {tablebases: {path: no-tables, max_pieces: 5}}",
        "event.yaml: adjudication.tablebases.path[0]: '{dir}/no-tables' does not exist or is "
        "not a directory",
    ),
    Row(
        "too-many-tablebase-pieces",
        "adjudication: {tablebases: {path: /tmp, max_pieces: 8}}",
        "event.yaml: adjudication.tablebases.max_pieces: 8 is out of range; expected a number <= 7",
    ),
    Row(
        "win-inside-draw-band",
        "adjudication: {draw: {score: 0.5}, win: {score: 0.25}}",
        "event.yaml: adjudication.win.score: 0.25 must be above draw.score (0.5)",
    ),
    Row(
        "negative-draw-score",
        "adjudication: {draw: {score: -0.1}}",
        "event.yaml: adjudication.draw.score: -0.1 is out of range; expected a number >= 0.0",
    ),
    Row(
        "missing-openings-file",
        "openings: {file: book.epd}",
        "event.yaml: openings.file: '{dir}/book.epd' does not exist or is not a file",
    ),
    Row(
        "openings-format-unknown",
        "openings: {file: book.txt}",
        "event.yaml: openings.file: cannot tell the format of 'book.txt'; expected a .epd or "
        ".pgn file, or set 'format'",
    ),
    Row(
        "openings-seed-without-random",
        "openings: {file: book.epd, seed: 7}",
        "event.yaml: openings.seed: 7 is only used with order 'random'",
    ),
    Row(
        "unknown-variant",
        "variant: atomic",
        "event.yaml: variant: expected 'standard' or 'chess960', got 'atomic'",
    ),
    Row(
        "chess960-without-positions",
        "variant: chess960",
        "event.yaml: openings: variant 'chess960' needs its start positions: openings.file (EPD "
        "or PGN Chess960 positions) or openings.positions (numbers 0-959, or 'all')",
    ),
    Row(
        "chess960-position-out-of-range",
        "{variant: fischerandom, openings: {positions: [518, 960]}}",
        "event.yaml: openings.positions: item 1: 960 is not a Chess960 position number (0-959)",
    ),
    Row(
        "chess960-positions-random",
        "{variant: chess960, openings: {positions: random}}",
        "event.yaml: openings.positions: 'random': expected 'all' or a list of Chess960 "
        "position numbers (0-959)",
    ),
    Row(
        "positions-in-a-standard-event",
        "openings: {positions: all}",
        "event.yaml: openings.positions: Chess960 position numbers need variant: chess960 (the "
        "variant is 'standard')",
    ),
    Row(
        "chess960-polyglot-book",
        "{variant: chess960, openings: {file: book.bin}}",
        "event.yaml: openings.file: a Polyglot book holds standard-chess positions; variant "
        "'chess960' takes EPD or PGN openings, or openings.positions",
    ),
    Row(
        "openings-file-and-positions",
        "{variant: chess960, openings: {file: frc.epd, positions: all}}",
        "event.yaml: openings: give either file (an EPD, PGN or Polyglot book) or positions "
        "(Chess960 position numbers, or 'all'), not both",
    ),
    Row(
        "zero-concurrency",
        "concurrency: 0",
        "event.yaml: concurrency: 0 is out of range; expected a number >= 1",
    ),
    Row(
        "unknown-fault-policy",
        "strikes: {on_fault: ignore}",
        "event.yaml: strikes.on_fault: expected 'lose' or 'replay', got 'ignore'",
    ),
    Row(
        "mqtt-not-mqtt-url",
        "mqtt: 'http://broker:1883'",
        "event.yaml: mqtt: invalid MQTT URL: 'http://broker:1883' (expected mqtt://host[:port] "
        "or mqtts://...)",
    ),
    Row(
        "mqtt-qos-3",
        "mqtt: {url: 'mqtt://broker', qos: 3}",
        "event.yaml: mqtt.qos: 3 is out of range; expected a number <= 2",
    ),
    Row(
        "mqtt-two-passwords",
        "mqtt: {url: 'mqtt://broker', password: s3cret, password_file: secret.txt}",
        "event.yaml: mqtt: give either password or password_file, not both",
    ),
    Row(
        "log-level",
        "logging: {level: loud}",
        "event.yaml: logging.level: expected 'debug', 'info', 'warning' or 'error', got 'loud'",
    ),
    Row(
        "section-not-a-mapping",
        "event: Test event",
        "event.yaml: event: expected a mapping of keys to values, got 'Test event'",
    ),
    Row(
        "empty-event-name",
        "event: {name: ''}",
        "event.yaml: event.name: expected a non-empty string, got ''",
    ),
    Row(
        "empty-file",
        "",
        "event.yaml: the file is empty; expected an event config mapping",
        raw=True,
    ),
    Row(
        "list-instead-of-mapping",
        "- ab-d1\n- ab-d2\n",
        "event.yaml: expected a mapping of event keys, got ['ab-d1', 'ab-d2']",
        raw=True,
    ),
    Row(
        "invalid-yaml",
        "event: {name: x\npairing: {rounds: 3}\n",
        "event.yaml: line 2: invalid YAML: expected ',' or '}', but got ':'",
        raw=True,
    ),
    Row(
        "duplicate-key",
        "event: {name: x}\npairing: {rounds: 3}\nengines: [ab-d1, ab-d2]\n"
        "time_control: {tc: '1+1'}\npairing: {rounds: 5}\n",
        "event.yaml: line 5: invalid YAML: duplicate key 'pairing'",
        raw=True,
    ),
    Row(
        "tab-indentation",
        "event:\n\tname: x\n",
        "event.yaml: line 2: invalid YAML: found character '\\t' that cannot start any token",
        raw=True,
    ),
]


def _write(row: Row, directory: Path) -> Path:
    path = directory / "event.yaml"
    if row.raw:
        path.write_text(row.snippet, encoding="utf-8")
        return path
    data = {k: v for k, v in BASE_EVENT.items() if k not in row.drop}
    data.update(yaml.safe_load(row.snippet) or {})
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_the_table_is_big_enough() -> None:
    assert len(ROWS) >= 20
    assert len({row.id for row in ROWS}) == len(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_bad_config_is_one_exact_line(
    row: Row, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(row, tmp_path)
    code = main(["validate", "event.yaml"])
    out, err = capsys.readouterr()
    expected = row.message.replace("{dir}", str(tmp_path.resolve())).replace(
        "{engines}", str(DEFAULT_ENGINES_DIR)
    )
    assert code == 2
    assert err == f"tcecd: error: {expected}\n"
    assert out == ""


def test_bad_config_in_a_real_process(tmp_path: Path) -> None:
    """The installed entry point: exit code 2, one stderr line, no traceback."""
    row = next(r for r in ROWS if r.id == "odd-number-of-groups")
    _write(row, tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "tcecd", "validate", "event.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr == f"tcecd: error: {row.message}\n"
    assert proc.stdout == ""


def test_missing_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "nowhere.yaml"]) == 2
    assert capsys.readouterr().err == "tcecd: error: nowhere.yaml: no such file\n"


def test_broken_engine_definition_names_its_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A definition in <config dir>/engines/ with a bad key: the message names that file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "mine.yaml").write_text(
        "command: ['{python}', 'x.py']\nprotocl: uci\n", encoding="utf-8"
    )
    _write(Row("x", "engines: [ab-d1, mine]", ""), tmp_path)
    assert main(["validate", "event.yaml"]) == 2
    assert capsys.readouterr().err == (
        "tcecd: error: engines/mine.yaml: unknown key 'protocl' (expected one of: name, "
        "command, protocol, workdir, options, env, startup_timeout_ms, restart, rating, "
        "remote, tc, nodes, depth, movetime_ms)\n"
    )
