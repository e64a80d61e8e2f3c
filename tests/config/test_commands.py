"""``tcecd validate`` on good configs and ``tcecd schema``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from tcecd.cli import main
from tcecd.config.load import DEFAULT_ENGINES_DIR
from tcecd.game.timecontrol import TimeControl
from tests.fixtures.event_config import BASE_EVENT, write_event
from tests.fixtures.requirements import require_program

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "config.md"


def test_validate_prints_a_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_event(
        tmp_path,
        pairing={"rounds": 4, "double": True, "seeding": {"method": "rating"}},
        engines=["ab-d1", {"ref": "ab-d2", "name": "two", "options": {"Hash": 16}}],
        adjudication={"win": {"score": 9.5, "moves": 4}, "max_moves": 180},
        mqtt={"url": "mqtt://ops:hunter2@broker:1884", "topic_prefix": "demo"},
    )
    assert main(["validate", "event.yaml"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    base = tmp_path.resolve()
    abengine = f"{sys.executable} {DEFAULT_ENGINES_DIR / 'abengine.py'}"
    assert out.splitlines() == [
        "event.yaml: ok",
        "  event:        Test event @ test",
        "  pairing:      tcec-swiss, 4 double rounds, seeding rating",
        "  tiebreaks:    black-games, sonneborn-berger, wins, seed",
        "  engines:      2",
        f"    1. ab-d1 (uci, rating 1000): {abengine} --depth 1 --noise 0 --seed 0 --name ab-d1",
        f"    2. two (uci, rating 1400): {abengine} --depth 2 --noise 0 --seed 0 --name ab-d2",
        "       options: Hash=16",
        f"  time control: 10+0.1 ({TimeControl.parse('10+0.1').describe()})",
        "  adjudication: draw from move 35 within ±0.15 for 5 moves; win beyond ±9.50 for 4 "
        "moves; draw after 180 moves",
        "  openings:     none (start position)",
        "  play:         1 game at a time; 3 strikes disqualify, a faulty game is lost",
        f"  state:        {base}/state",
        f"  pgn:          {base}/state/event.pgn",
        f"  tcec json:    {base}/state/tcec",
        "  mqtt:         mqtt://ops@broker:1884, topics demo/..., qos 1",
        "  forecast:     off",
        "  logging:      info, auto",
        "  note: 4 rounds for 2 engines: the rules recommend at most about 1 (players / 2); "
        "consider a round robin",
        # A password over plain mqtt:// to a host that is not loopback (issue 28).
        "  note: mqtt: the MQTT password for mqtt://ops@broker:1884 goes over the network "
        "unencrypted (plain mqtt:// to a host that is not loopback); use mqtts:// "
        "(docs/operations.md, 'Secure the broker')",
    ]
    assert "hunter2" not in out


def test_validate_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_event(tmp_path)
    assert main(["validate", "--quiet", "event.yaml"]) == 0
    assert capsys.readouterr() == ("", "")


def test_validate_quiet_engines_says_nothing_of_an_xboard_engines_manners(
    tmp_path: Path,
) -> None:
    """``validate -q --engines`` with an xboard engine (HoiChess asks for ``sigterm=0``,
    which python-chess rejects, and answers with ``tellusererror``): nothing on stdout or
    stderr, exit 0 (python-chess's raw warnings came out on stderr; issue 27). In a
    process of its own: python-chess's logger is process-wide."""
    require_program("hoichess")
    write_event(tmp_path, engines=["hoichess", "ab-d1"])
    done = subprocess.run(
        [sys.executable, "-m", "tcecd", "validate", "-q", "--engines", "event.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_validate_describes_the_forecast_and_a_free_broker_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_event(tmp_path, mqtt="embedded", forecast={"simulations": 500, "top": 2, "workers": 2})
    assert main(["validate", "event.yaml"]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert "mqtt:         embedded broker on 127.0.0.1, a free port chosen at start, topics " \
        "tcecd/..., qos 1" in lines
    assert "forecast:     500 simulations after every game, P(top 2), seed 0, prior sd 100 " \
        "Elo, 2 workers" in lines


def _schema(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["schema"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    schema: dict[str, object] = json.loads(out)
    return schema


def test_schema_is_a_valid_draft_2020_12_schema(capsys: pytest.CaptureFixture[str]) -> None:
    schema = _schema(capsys)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] == "tcecd event config"
    jsonschema.Draft202012Validator.check_schema(schema)
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert list(properties) == [
        "event",
        "variant",
        "pairing",
        "engines",
        "engines_dir",
        "kibitzers",
        "time_control",
        "adjudication",
        "openings",
        "concurrency",
        "execution",
        "strikes",
        "outputs",
        "mqtt",
        "logging",
        "shutdown",
        "forecast",
    ]
    assert schema["required"] == ["event", "pairing", "engines", "time_control"]
    assert schema["additionalProperties"] is False


def test_schema_describes_each_field_with_its_docstring(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Editors show a field's description on hover: it is the docstring written
    below the field in tcecd/config/ (event.py and the section modules it uses;
    checked against the source text)."""
    schema = _schema(capsys)
    properties = schema["properties"]
    defs = schema["$defs"]
    assert isinstance(properties, dict)
    assert isinstance(defs, dict)
    assert properties["pairing"]["description"] == "The pairing system and its parameters."
    assert properties["time_control"]["description"] == "The time control."
    rounds = defs["PairingConfig"]["properties"]["rounds"]["description"]
    assert rounds.startswith("Number of rounds (the TCEC rules suggest an odd number")
    source = "\n".join(
        (ROOT / "tcecd" / "config" / name).read_text(encoding="utf-8")
        for name in ("event.py", "game.py", "runtime.py")
    )
    described = 0
    for name, model in defs.items():
        for field, prop in model.get("properties", {}).items():
            text = prop.get("description")
            if text and name.endswith("Config") and name not in ("EngineConfig", "EngineRef"):
                # the first line of each description is in the source, as written
                assert text.splitlines()[0] in source, (name, field, text)
                described += 1
    assert described > 60, described


def test_schema_accepts_good_files_and_rejects_bad_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    validator = jsonschema.Draft202012Validator(_schema(capsys))
    good = dict(BASE_EVENT)
    good["engines"] = [
        "ab-d1",
        {"ref": "ab-d2", "name": "two", "options": {"Threads": 1}},
        {"name": "inline", "command": ["{python}", "x.py"], "protocol": "xboard"},
    ]
    good["mqtt"] = "embedded"
    good["adjudication"] = {"tablebases": {"path": "/tables"}, "win": None}
    assert list(validator.iter_errors(good)) == []
    assert list(validator.iter_errors({**good, "mqtt": "mqtt://h:1883"})) == []
    kibitzers = ["stockfish", {"ref": "stockfish", "board": 2, "nice": 0,
                               "options": {"Threads": 2}},
                 {"name": "k", "command": ["k"], "board": 1}]
    assert list(validator.iter_errors({**good, "kibitzers": kibitzers})) == []
    bad_cases: list[dict[str, object]] = [
        {**good, "pairng": {}},
        {**good, "pairing": {"rounds": 0}},
        {**good, "engines": ["only-one"]},
        {**good, "engines": ["a", {"name": "x", "command": "sh -c x"}]},
        {**good, "mqtt": {"qos": 3}},
        {**good, "concurrency": "two"},
        {**good, "kibitzers": [{"ref": "stockfish", "board": 0}]},
        {**good, "kibitzers": [{"ref": "stockfish", "nodes": 1000}]},
    ]
    for bad in bad_cases:
        assert list(validator.iter_errors(bad)) != [], bad


def test_the_documented_example_is_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/config.md's full example loads (its files stubbed) and matches the schema."""
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(r"<!-- example -->\n```yaml\n(.*?)```", text, re.S)
    assert match is not None, "docs/config.md lost its example block"
    example = match.group(1)
    data = yaml.safe_load(example)
    jsonschema.Draft202012Validator(_schema(capsys)).validate(data)
    # Stub the files the example points at.
    (tmp_path / "openings").mkdir()
    (tmp_path / "openings" / "tcec-swiss.epd").write_text(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n", encoding="utf-8"
    )
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "mqtt.pass").write_text("pw\n", encoding="utf-8")
    (tmp_path / "secrets" / "mqtt.pass").chmod(0o600)  # readable by its owner only
    syzygy = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "syzygy-3-4"
    if not syzygy.is_dir():
        pytest.skip("Syzygy test tables not found")
    (tmp_path / "syzygy").symlink_to(syzygy)
    (tmp_path / "event.yaml").write_text(example, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "event.yaml"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("event.yaml: ok\n")


def test_validate_reads_the_openings_book(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "book.epd").write_text(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n"
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n",
        encoding="utf-8",
    )
    write_event(tmp_path, openings={"file": "book.epd"})
    assert main(["validate", "event.yaml"]) == 0
    out = capsys.readouterr().out
    assert "  openings:     " + str(tmp_path.resolve() / "book.epd") + " (epd, sequential)\n" in out
    assert "  book:         2 openings in the book\n" in out

    (tmp_path / "book.epd").write_text("this is not a position\n", encoding="utf-8")
    assert main(["validate", "event.yaml"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("tcecd: error: event.yaml: openings.file: ")
    assert "book.epd" in err
    assert err.count("\n") == 1


def test_validate_notes_tablebases_smaller_than_max_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    syzygy = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "syzygy-3-4"
    if not syzygy.is_dir():
        pytest.skip("Syzygy test tables not found")
    monkeypatch.chdir(tmp_path)
    write_event(tmp_path, adjudication={"tablebases": {"path": str(syzygy), "max_pieces": 5}})
    assert main(["validate", "event.yaml"]) == 0
    out = capsys.readouterr().out
    assert (
        "  note: adjudication.tablebases: max_pieces is 5 but the tables cover at most 4 "
        "pieces; larger endings are not adjudicated\n"
    ) in out
    write_event(tmp_path, adjudication={"tablebases": {"path": str(syzygy), "max_pieces": 4}})
    assert main(["validate", "event.yaml"]) == 0
    assert "note: adjudication.tablebases" not in capsys.readouterr().out
