"""Who may do what (issue 26): the config's operators, the embedded broker's
password file and ACL, and an embedded broker that cannot enforce one."""

from __future__ import annotations

import base64
import hashlib
import stat
from pathlib import Path

import pytest
import yaml

from tcecd.bus import embedded
from tcecd.bus.embedded import embedded_broker
from tcecd.bus.settings import MqttSettings
from tcecd.cli import main
from tcecd.config.event_file import load_event
from tcecd.control.acl import acl_text, password_hash, password_line
from tcecd.errors import BusError
from tcecd.event.state import EventState
from tcecd.formats.base import FormatSettings, get_format
from tcecd.pairing.base import Player
from tests.bus.helpers import bus_log
from tests.fixtures.event_config import BASE_EVENT

SECRET = "correct horse"


def _event(tmp_path: Path, mqtt: object) -> Path:
    path = tmp_path / "event.yaml"
    path.write_text(yaml.safe_dump({**BASE_EVENT, "mqtt": mqtt}), encoding="utf-8")
    return path


def _secret(tmp_path: Path, name: str = "alice.pass") -> Path:
    path = tmp_path / name
    path.write_text(SECRET + "\nignored\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def test_operators_are_read_with_their_password_files(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    _secret(tmp_path)
    cfg = _event(tmp_path, {"embedded": True, "operators": [
        {"username": "alice", "password_file": "alice.pass"}]})
    settings = load_event(cfg).mqtt_settings()
    assert settings is not None
    assert settings.operators == (("alice", SECRET),)
    assert settings.console
    assert SECRET not in repr(settings)
    assert main(["validate", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "console:      on, operators alice (tcecd ctl)" in out
    assert SECRET not in out


@pytest.mark.parametrize(("operators", "message"), [
    ([{"username": "alice"}], "'alice' needs a password_file with embedded"),
    ([{"username": "tcecd-daemon", "password_file": "alice.pass"}], "tcecd's own account"),
    ([{"username": "a", "password_file": "alice.pass"},
      {"username": "a", "password_file": "alice.pass"}], "'a' is given twice"),
    ([{"username": "a b", "password_file": "alice.pass"}], "username"),
])
def test_bad_operators_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    operators: object, message: str) -> None:
    _secret(tmp_path)
    assert main(["validate", "-q", str(_event(tmp_path, {"embedded": True,
                                                          "operators": operators}))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert message in err[0]


def test_an_operator_password_file_others_can_read_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _secret(tmp_path).chmod(0o644)
    cfg = _event(tmp_path, {"embedded": True, "operators": [
        {"username": "alice", "password_file": "alice.pass"}]})
    assert main(["validate", "-q", str(cfg)]) == 2
    assert "mqtt.operators[0].password_file" in capsys.readouterr().err


def test_password_hash_is_mosquittos_pbkdf2_form() -> None:
    """``$7$``: PBKDF2-HMAC-SHA512, 101 iterations, 12-byte salt, 64-byte key,
    standard base64 (mosquitto_passwd's format; the embedded broker's tests
    log in with it against a real Mosquitto)."""
    salt = bytes(range(12))
    text = password_hash("pw", salt=salt)
    kind, iterations, b64_salt, b64_key = text.split("$")[1:]
    assert (kind, iterations) == ("7", "101")
    assert base64.b64decode(b64_salt) == salt
    assert base64.b64decode(b64_key) == hashlib.pbkdf2_hmac("sha512", b"pw", salt, 101, 64)
    assert password_line("alice", "pw").startswith("alice:$7$101$")
    with pytest.raises(ValueError, match="password file"):
        password_line("a:b", "pw")


def test_acl_lets_anonymous_clients_only_read() -> None:
    text = acl_text("tcecd/ev", "tcecd-daemon", ["alice"])
    sections = text.split("\n\n")
    assert [ln for ln in sections[0].splitlines() if not ln.startswith("#")] == ["topic read #"]
    assert sections[1].splitlines() == ["user tcecd-daemon", "topic readwrite tcecd/ev/#"]
    assert sections[2].splitlines() == ["user alice", "topic read #",
                                        "topic write tcecd/ev/control"]


@pytest.mark.mosquitto
async def test_embedded_files_are_private_and_hold_no_password(tmp_path: Path) -> None:
    wanted = MqttSettings(url="mqtt://127.0.0.1:0", embedded=True, embedded_ws_port=None,
                          operators=(("alice", SECRET),))
    async with embedded_broker(wanted, tmp_path, log=bus_log(), event="E v") as got:
        assert got.username == "tcecd-daemon"
        assert got.password is not None
        modes, text = _files(tmp_path)
        assert modes == {"passwd": 0o600, "acl": 0o600}
        assert SECRET not in text
        assert got.password not in text
        assert "topic write tcecd/e-v/control" in text


def _files(directory: Path) -> tuple[dict[str, int], str]:
    """The password file's and the ACL's modes, and every file's text."""
    modes = {n: stat.S_IMODE((directory / n).stat().st_mode) for n in ("passwd", "acl")}
    return modes, "".join(p.read_text() for p in directory.iterdir() if p.is_file())


async def test_operators_refuse_an_embedded_broker_without_acls(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded, "find_mosquitto", lambda: None)
    wanted = MqttSettings(url="mqtt://127.0.0.1:0", embedded=True, operators=(("a", "pw"),))
    with pytest.raises(BusError, match="amqtt cannot restrict who publishes"):
        async with embedded_broker(wanted, tmp_path, log=bus_log()):
            pass
    amqtt = MqttSettings(url="mqtt://127.0.0.1:0", embedded=True, embedded_broker="amqtt",
                         operators=(("a", "pw"),))
    with pytest.raises(BusError, match="amqtt cannot restrict who publishes"):
        async with embedded_broker(amqtt, tmp_path, log=bus_log()):
            pass


def _players(n: int) -> tuple[Player, ...]:
    return tuple(Player(f"p{i}", f"p{i}", i, 2000 - i) for i in range(1, n + 1))


@pytest.mark.parametrize(("system", "absent"), [
    ("dutch-2017", ("p2",)), ("dutch-2012", ("p2",)), ("dubov", ("p2",)),
    ("tcec-swiss", ()), ("round-robin", ()),
])
def test_which_formats_leave_a_withdrawn_engine_out(system: str, absent: tuple[str, ...]) -> None:
    """FIDE's Swiss systems no longer pair a withdrawn engine (an absence);
    TCEC Swiss and the round-robin pair it and forfeit its games."""
    fmt = get_format(FormatSettings(system=system, rounds=3))
    state = EventState(players=_players(4), withdrawn={"p2": (2, "gone")})
    assert fmt.absent(state) == absent  # type: ignore[attr-defined]
    byes = fmt.context(state).requested_byes  # type: ignore[attr-defined]
    assert [b.player for b in byes] == list(absent)


def test_a_withdrawn_engine_loses_its_cup_encounter() -> None:
    fmt = get_format(FormatSettings(system="knockout", extra={"games": 2}))
    state = EventState(players=_players(4), withdrawn={"p1": (1, "gone")})
    cup = fmt.cup(state)  # type: ignore[attr-defined]
    assert dict(cup.disqualified) == {"p1": 1}
