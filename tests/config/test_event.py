"""Good event configs: typed, frozen, resolved values; conversions into the game
and bus layers; command-line overrides; the resume fingerprint."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from tcecd.config.event_file import load_event
from tcecd.config.fingerprint import config_fingerprint, diff_fingerprints
from tcecd.config.load import DEFAULT_ENGINES_DIR
from tcecd.config.overrides import apply_overrides
from tcecd.errors import ConfigError
from tcecd.game.adjudication import AdjudicationRules, DrawRule, TablebaseRule, WinRule
from tcecd.game.timecontrol import Stage, TimeControl
from tests.fixtures.event_config import write_event

SYZYGY = Path(
    os.environ.get(
        "TCECD_SYZYGY_PATH",
        Path(__file__).resolve().parents[2].parent / "shared" / "data" / "syzygy-3-4",
    )
)


def _full_config(tmp_path: Path) -> Path:
    """Every section used, with files that exist."""
    (tmp_path / "book.epd").write_text(
        'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id "1. e4";\n',
        encoding="utf-8",
    )
    (tmp_path / "mqtt.pass").write_text("s3cret\n", encoding="utf-8")
    (tmp_path / "mqtt.pass").chmod(0o600)  # a password file others can read is refused
    (tmp_path / "mine").mkdir()
    return write_event(
        tmp_path,
        event={"name": "Config test", "site": "lab"},
        pairing={
            "rounds": 5,
            "double": True,
            "seeding": {"method": "random", "seed": 42},
            "tiebreaks": ["buchholz", "wins"],
        },
        engines=[
            "ab-d1",
            {"ref": "ab-d2", "name": "ab-two", "options": {"Threads": 1}, "rating": 1555},
            {
                "name": "inline",
                "command": ["{python}", "{here}/mine/engine.py", "--x"],
                "workdir": "mine",
                "protocol": "xboard",
            },
        ],
        time_control={"tc": "60+0.6", "nodes": 20000, "margin_ms": 50},
        adjudication={
            "draw": {"from_move": 40, "score": 0.15, "moves": 6},
            "win": {"score": 10.0, "moves": 5},
            "tablebases": {"path": str(SYZYGY), "max_pieces": 4},
            "max_moves": 200,
        },
        openings={"file": "book.epd", "order": "random", "seed": 3},
        concurrency=2,
        strikes={"max": 2, "on_fault": "replay"},
        outputs={"state_dir": "run/state", "pgn": "games.pgn", "tcec_json": False},
        mqtt={
            "url": "mqtts://operator@broker.example:8884",
            "client_id": "tcecd-test",
            "password_file": "mqtt.pass",
            "topic_prefix": "tcec/swiss",
            "qos": 2,
        },
        logging={"level": "debug", "format": "json"},
        shutdown={"on_signal": "abort"},
    )


@pytest.mark.skipif(not SYZYGY.is_dir(), reason="Syzygy test tables not found")
def test_full_config_is_typed_and_resolved(tmp_path: Path) -> None:
    config = load_event(_full_config(tmp_path))
    base = tmp_path.resolve()
    assert config.event.name == "Config test"
    assert config.event.site == "lab"
    assert config.pairing.rounds == 5
    assert config.pairing.double is True
    assert config.pairing.seeding.method == "random"
    assert config.pairing.seeding.seed == 42
    assert config.pairing.tiebreaks == ("buchholz", "wins")

    names = [e.name for e in config.engines]
    assert names == ["ab-d1", "ab-two", "inline"]
    ab1, ab2, inline = config.engines
    # {python} is this interpreter, {here} the definition file's folder.
    assert ab1.command[:2] == (sys.executable, str(DEFAULT_ENGINES_DIR / "abengine.py"))
    assert ab1.rating == 1000
    assert ab2.options == {"Threads": 1}
    assert ab2.rating == 1555
    assert "--depth" in ab2.command
    assert "2" in ab2.command
    assert inline.command == (sys.executable, f"{base}/mine/engine.py", "--x")
    assert inline.workdir == str(base / "mine")
    assert inline.protocol == "xboard"

    assert config.time_control_value() == TimeControl(
        stages=(Stage(moves=None, base_ms=60_000, increment_ms=600),), nodes=20000
    )
    assert config.time_control.margin_ms == 50
    # Pawns in the YAML, centipawns in the rules.
    assert config.adjudication_rules() == AdjudicationRules(
        draw=DrawRule(from_move=40, score_cp=15, moves=6),
        win=WinRule(score_cp=1000, moves=5),
        tablebase=TablebaseRule(max_pieces=4),
        max_moves=200,
    )
    assert config.adjudication.tablebases is not None
    assert config.adjudication.tablebases.path == (SYZYGY,)
    assert config.openings is not None
    assert config.openings.file == base / "book.epd"
    assert config.openings.format == "epd"
    assert config.concurrency == 2
    assert config.strikes.max == 2
    assert config.strikes.on_fault == "replay"

    assert config.state_dir == base / "run" / "state"
    assert config.pgn_path == base / "run" / "state" / "games.pgn"
    assert config.tcec_json_dir is None

    mqtt = config.mqtt_settings()
    assert mqtt is not None
    assert (mqtt.host, mqtt.port, mqtt.tls) == ("broker.example", 8884, True)
    assert mqtt.username == "operator"
    assert mqtt.password == "s3cret"  # from password_file, newline stripped
    assert mqtt.client_id == "tcecd-test"
    assert mqtt.topic_prefix == "tcec/swiss"
    assert mqtt.qos == 2
    assert "s3cret" not in repr(config)
    assert config.logging.level == "debug"
    assert config.logging.format == "json"
    assert config.shutdown.on_signal == "abort"


def test_defaults_of_a_minimal_config(tmp_path: Path) -> None:
    config = load_event(write_event(tmp_path, outputs=None))
    base = tmp_path.resolve()
    assert config.pairing.system == "tcec-swiss"
    assert config.pairing.double is False
    assert config.pairing.seeding.method is None  # not given: the system's default
    assert config.seeding_method == "explicit"  # TCEC Swiss: the order of `engines`
    assert config.pairing.tiebreaks == ("black-games", "sonneborn-berger", "wins")
    assert config.concurrency == 1  # as TCEC plays
    assert config.mqtt is None
    assert config.mqtt_settings() is None
    assert config.openings is None
    # TCEC's usual draw rule is on by default, the win rule off.
    assert config.adjudication_rules() == AdjudicationRules(
        draw=DrawRule(from_move=35, score_cp=15, moves=5)
    )
    # No state_dir: state/<config stem> beside the config; outputs under it.
    assert config.state_dir == base / "state" / "event"
    assert config.pgn_path == base / "state" / "event" / "event.pgn"
    assert config.tcec_json_dir == base / "state" / "event" / "tcec"
    assert config.source == tmp_path / "event.yaml"


def test_config_is_frozen(tmp_path: Path) -> None:
    config = load_event(write_event(tmp_path))
    with pytest.raises(ValidationError):
        config.concurrency = 4  # type: ignore[misc]
    with pytest.raises(ValidationError):
        config.pairing.rounds = 9  # type: ignore[misc]


def test_absolute_output_paths_stay_absolute(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.pgn"
    config = load_event(write_event(tmp_path, outputs={"pgn": str(elsewhere)}))
    assert config.pgn_path == elsewhere


def test_mqtt_shorthands(tmp_path: Path) -> None:
    embedded = load_event(write_event(tmp_path, mqtt="embedded")).mqtt_settings()
    assert embedded is not None
    assert embedded.embedded is True
    # No URL given: 127.0.0.1 and port 0, the embedded broker picks a free port (and
    # a free websockets port); Mosquitto if installed, else amqtt.
    assert (embedded.host, embedded.port) == ("127.0.0.1", 0)
    assert (embedded.embedded_ws_port, embedded.embedded_broker) == (0, "auto")
    plain = load_event(write_event(tmp_path, mqtt={"qos": 1})).mqtt_settings()
    assert plain is not None
    assert (plain.host, plain.port, plain.embedded) == ("127.0.0.1", 1883, False)
    url = load_event(write_event(tmp_path, mqtt="mqtt://user:pw@localhost:1999")).mqtt_settings()
    assert url is not None
    assert (url.host, url.port, url.username, url.password) == ("localhost", 1999, "user", "pw")
    assert url.embedded is False


def test_engines_dir_and_config_engines_folder(tmp_path: Path) -> None:
    """engines_dir (relative to the config) wins over <config dir>/engines, which
    wins over the bundled definitions."""
    (tmp_path / "defs").mkdir()
    (tmp_path / "engines").mkdir()
    (tmp_path / "defs" / "ab-d1.yaml").write_text(
        "name: from-defs\ncommand: ['{python}', '{here}/e.py']\n", encoding="utf-8"
    )
    (tmp_path / "engines" / "ab-d1.yaml").write_text(
        "name: from-engines\ncommand: ['{python}']\n", encoding="utf-8"
    )
    (tmp_path / "engines" / "local.yaml").write_text("command: ['{python}']\n", encoding="utf-8")
    config = load_event(
        write_event(tmp_path, engines_dir="defs", engines=["ab-d1", "local", "ab-d2"])
    )
    assert [e.name for e in config.engines] == ["from-defs", "local", "ab-d2"]
    assert config.engines[0].command == (sys.executable, str(tmp_path.resolve() / "defs" / "e.py"))


def test_overrides_state_dir_and_mqtt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_event(
        write_event(tmp_path, mqtt={"url": "mqtt://a:b@old:1883", "topic_prefix": "evt", "qos": 0})
    )
    monkeypatch.chdir(tmp_path)
    changed = apply_overrides(config, state_dir=Path("ops/state"), mqtt_url="mqtt://new:1884")
    assert changed.state_dir == tmp_path / "ops" / "state"
    assert changed.pgn_path == tmp_path / "ops" / "state" / "event.pgn"
    mqtt = changed.mqtt_settings()
    assert mqtt is not None
    assert (mqtt.host, mqtt.port, mqtt.topic_prefix, mqtt.qos) == ("new", 1884, "evt", 0)
    assert mqtt.username is None
    assert mqtt.password is None
    assert apply_overrides(config) == config
    # Overrides change nothing that matters for a resume.
    assert diff_fingerprints(config_fingerprint(config), config_fingerprint(changed)) == []


def test_override_with_a_bad_mqtt_url(tmp_path: Path) -> None:
    config = load_event(write_event(tmp_path))
    with pytest.raises(ConfigError) as info:
        apply_overrides(config, mqtt_url="tcp://broker")
    assert str(info.value) == (
        "--mqtt: invalid MQTT URL: 'tcp://broker' (expected mqtt://host[:port] or mqtts://...)"
    )


def test_fingerprint_is_json_and_stable(tmp_path: Path) -> None:
    config = load_event(write_event(tmp_path))
    fingerprint = config_fingerprint(config)
    assert json.loads(json.dumps(fingerprint)) == fingerprint
    again = load_event(write_event(tmp_path))
    assert diff_fingerprints(fingerprint, config_fingerprint(again)) == []


def test_fingerprint_ignores_operational_settings(tmp_path: Path) -> None:
    old = config_fingerprint(load_event(write_event(tmp_path)))
    new = config_fingerprint(
        load_event(
            write_event(
                tmp_path,
                mqtt="mqtt://broker:1883",
                logging={"level": "debug"},
                outputs={"state_dir": "elsewhere", "pgn": "x.pgn"},
                concurrency=2,
                shutdown={"on_signal": "abort"},
                event={"name": "Renamed", "site": "elsewhere"},
            )
        )
    )
    assert diff_fingerprints(old, new) == []


def test_fingerprint_lists_history_changes(tmp_path: Path) -> None:
    old = config_fingerprint(load_event(write_event(tmp_path)))
    new = config_fingerprint(
        load_event(
            write_event(
                tmp_path,
                pairing={"rounds": 5, "seeding": {"method": "random", "seed": 9}},
                engines=["ab-d1", {"ref": "ab-d2", "options": {"Threads": 2}}],
                time_control={"tc": "10+0.2"},
                adjudication={"draw": None, "max_moves": 150},
            )
        )
    )
    assert diff_fingerprints(old, new) == [
        "engines[1].options.Threads: (absent) -> 2",
        "pairing.rounds: 3 -> 5",
        'pairing.seeding.method: "explicit" -> "random"',
        "pairing.seeding.seed: null -> 9",
        'time_control.tc: "10+0.1" -> "10+0.2"',
        'adjudication.draw: {"from_move": 35, "moves": 5, "score": 0.15} -> null',
        "adjudication.max_moves: null -> 150",
    ]


def test_fingerprint_sees_an_added_engine(tmp_path: Path) -> None:
    old = config_fingerprint(load_event(write_event(tmp_path)))
    new = config_fingerprint(load_event(write_event(tmp_path, engines=["ab-d1", "ab-d2", "ab-d3"])))
    diff = diff_fingerprints(old, new)
    assert len(diff) == 1
    assert diff[0].startswith('engines[2]: (absent) -> {"command": [')
    assert '"name": "ab-d3"' in diff[0]


def test_tiebreak_names_match_the_standings_module() -> None:
    """The config accepts exactly the tiebreaks the standings can compute."""
    from typing import get_args

    from tcecd.config.event import DEFAULT_TIEBREAKS, Tiebreak
    from tcecd.pairing import standings

    assert set(get_args(Tiebreak)) == set(standings.TIEBREAKS)
    assert DEFAULT_TIEBREAKS == standings.DEFAULT_TIEBREAKS


def test_command_line_password_fills_in_but_never_overrides_the_config(tmp_path: Path) -> None:
    """`tcecd run --mqtt URL` with the password from $TCECD_MQTT_PASSWORD or
    --mqtt-password-file: it goes with the new URL; without --mqtt it fills in a
    config broker that has no password, and never replaces the config's own."""
    config = load_event(write_event(tmp_path, outputs=None))
    url = apply_overrides(config, mqtt_url="mqtt://u@broker:1884", mqtt_password="pw")
    settings = url.mqtt_settings()
    assert settings is not None
    assert (settings.username, settings.password) == ("u", "pw")
    assert apply_overrides(config, mqtt_password="pw") == config  # no broker configured
