"""Configs are hostile input (issue 28): the password file a config names, and the
secrets a config holds, never leave tcecd except as the broker password.

Each case is ``tcecd validate``: one line naming the key and the file, exit 2,
and never the file's content."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
import yaml

from tcecd.cli import main
from tcecd.commands.mqtt_password import command_line_password
from tcecd.config.event_file import load_event
from tcecd.errors import ConfigError
from tests.fixtures.event_config import BASE_EVENT

SHADOW = "root:$6$saltsalt$hashhashhash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"


def _event(tmp_path: Path, **sections: object) -> Path:
    path = tmp_path / "event.yaml"
    path.write_text(yaml.safe_dump({**BASE_EVENT, **sections}, sort_keys=False),
                    encoding="utf-8")
    return path


def _validate(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["validate", "-q", str(path)])
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


def _secret(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "mqtt.pass"
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def test_only_the_first_line_of_the_password_file_is_sent(tmp_path: Path) -> None:
    """A config naming a file of several lines (``tcecd web evil.yaml`` sent a
    shadow-like file whole to the broker the config names) sends its first line."""
    _secret(tmp_path, SHADOW)
    config = load_event(_event(tmp_path, mqtt={"url": "mqtt://u@127.0.0.1",
                                                "password_file": "mqtt.pass"}))
    settings = config.mqtt_settings()
    assert settings is not None
    assert settings.password == "root:$6$saltsalt$hashhashhash:19000:0:99999:7:::"


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o620, 0o601])
def test_a_password_file_others_can_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    secret = _secret(tmp_path, SHADOW, mode)
    path = _event(tmp_path, mqtt={"url": "mqtt://u@127.0.0.1", "password_file": "mqtt.pass"})
    code, err = _validate(path, capsys)
    assert code == 2
    assert err == (
        f"tcecd: error: {path}: mqtt.password_file: {str(secret.resolve())!r} can be read by "
        f"other users (mode {mode:04o}); make it readable by its owner only: "
        f"chmod 600 {secret.resolve()}\n"
    )
    assert "$6$" not in err


@pytest.mark.parametrize("kind", ["directory", "fifo", "device"])
def test_a_password_file_that_is_not_a_regular_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A FIFO would block the daemon on open (it is opened without waiting), a
    device such as /dev/zero or /dev/urandom sends what it reads."""
    if kind == "directory":
        target = tmp_path / "dir"
        target.mkdir(mode=0o700)
    elif kind == "fifo":
        target = tmp_path / "fifo"
        os.mkfifo(target, 0o600)
    else:
        target = Path("/dev/zero")
    path = _event(tmp_path, mqtt={"url": "mqtt://u@127.0.0.1", "password_file": str(target)})
    code, err = _validate(path, capsys)
    assert code == 2
    assert err == (
        f"tcecd: error: {path}: mqtt.password_file: {str(target)!r} is not a regular file\n"
    )


def test_the_command_line_password_file_obeys_the_same_rules(tmp_path: Path) -> None:
    secret = _secret(tmp_path, "pw\nsecond line\n")
    args = argparse.Namespace(mqtt_password_file=secret)
    assert command_line_password(args, {}) == "pw"
    secret.chmod(0o644)
    with pytest.raises(ConfigError, match=r"^--mqtt-password-file: .* can be read by other users"):
        command_line_password(args, {})


# -- a broker URL's password is never shown ---------------------------------------------------

PW = "S3cretPW"


@pytest.mark.parametrize(
    ("mqtt", "message"),
    [
        ({"url": f"mqtt://alice:{PW}@broker/x"},
         "mqtt: invalid MQTT URL: 'mqtt://alice:***@broker/x' (unexpected path or query)"),
        (f"http://alice:{PW}@broker",
         "mqtt: invalid MQTT URL: 'http://alice:***@broker' (expected mqtt://host[:port] or "
         "mqtts://...)"),
        # An unescaped '/' in the password: urllib reads part of it as the port.
        ({"url": f"mqtt://alice:{PW[:3]}/{PW[3:]}@broker"},
         "mqtt: invalid MQTT URL: 'mqtt://alice:***@broker' (invalid port)"),
        ({"url": f"mqtt://alice:{PW}@broker:99999"},
         "mqtt: invalid MQTT URL: 'mqtt://alice:***@broker:99999' (invalid port)"),
        # A password of the wrong type is still a password.
        ({"url": "mqtt://broker", "password": 31415926},
         "mqtt.password: expected a string, got '***'"),
        ({"url": "mqtt://broker", "password": [PW]},
         "mqtt.password: expected a string, got '***'"),
        # A mapping shown whole hides its password key's value and its URL's password.
        ([{"url": f"mqtt://alice:{PW}@broker", "password": PW}],
         "mqtt: expected a mapping of keys to values, got "
         "[{'url': 'mqtt://alice:***@broker', 'password': '***'}]"),
    ],
)
def test_config_errors_never_show_the_broker_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mqtt: object, message: str
) -> None:
    path = _event(tmp_path, mqtt=mqtt)
    code, err = _validate(path, capsys)
    assert (code, err) == (2, f"tcecd: error: {path}: {message}\n")
    assert PW not in err
    assert PW[:3] + "/" not in err


def test_the_command_lines_broker_url_is_redacted_in_its_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["watch", "--once", "--mqtt", f"mqtt://viewer:{PW}@broker/path"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        "tcecd: error: invalid MQTT URL: 'mqtt://viewer:***@broker/path' "
        "(unexpected path or query)\n"
    )


def test_validate_summary_and_reprs_hide_the_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _event(tmp_path, mqtt={"url": f"mqtt://alice:{PW}@127.0.0.1:1883"})
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "mqtt://alice@127.0.0.1:1883" in out
    assert PW not in out
    config = load_event(path)
    settings = config.mqtt_settings()
    assert settings is not None
    assert settings.password == PW
    for text in (repr(config), repr(config.mqtt), repr(settings), str(settings)):
        assert PW not in text
    assert "mqtt://alice:***@127.0.0.1:1883" in repr(settings)


# -- the broker's address ---------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "[::]", "broker.example.org"])
def test_an_embedded_broker_others_reach_needs_the_explicit_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    """The embedded broker takes anonymous clients: on an address other machines
    reach, anyone could publish what the viewers show."""
    path = _event(tmp_path, mqtt={"embedded": True, "url": f"mqtt://{host}:1883"})
    code, err = _validate(path, capsys)
    assert code == 2
    assert err == (
        f"tcecd: error: {path}: mqtt: the embedded broker would listen on "
        f"{host.strip('[]')!r}, which other machines reach, and it lets anyone publish and "
        "subscribe without a password; use a loopback address (127.0.0.1), or set "
        "mqtt.embedded_public: true to allow it\n"
    )
    allowed = _event(tmp_path, mqtt={"embedded": True, "embedded_public": True,
                                      "url": f"mqtt://{host}:1883"})
    assert main(["validate", "-q", str(allowed)]) == 0


@pytest.mark.parametrize("url", ["mqtt://127.0.0.1:1883", "mqtt://127.0.0.2", "mqtt://[::1]:0",
                                 "mqtt://localhost", None])
def test_an_embedded_broker_on_loopback_is_fine(tmp_path: Path, url: str | None) -> None:
    mqtt: dict[str, object] = {"embedded": True}
    if url is not None:
        mqtt["url"] = url
    assert main(["validate", "-q", str(_event(tmp_path, mqtt=mqtt))]) == 0


def test_validate_warns_of_a_password_sent_in_clear_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for url, warned in (("mqtt://alice@broker.example.org", True),
                        ("mqtt://alice@10.0.0.5:1883", True),
                        ("mqtts://alice@broker.example.org", False),
                        ("mqtt://alice@127.0.0.1", False)):
        path = _event(tmp_path, mqtt={"url": url, "password": PW})
        assert main(["validate", str(path)]) == 0
        out = capsys.readouterr().out
        assert ("note: mqtt: the MQTT password for" in out) is warned, url
        assert PW not in out


# -- the cluster ----------------------------------------------------------------------------


def test_a_plain_tcp_scheduler_elsewhere_needs_the_explicit_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whoever reaches the scheduler runs code on the workers, and the daemon
    unpickles what comes back: plain TCP to another host is refused without
    ``execution.insecure_tcp`` (checked without connecting anywhere)."""
    path = _event(tmp_path, execution={"backend": "dask", "scheduler": "tcp://10.0.0.1:8786"})
    code, err = _validate(path, capsys)
    assert code == 2
    assert err == (
        f"tcecd: error: {path}: execution.scheduler: 'tcp://10.0.0.1:8786' is plain TCP to a "
        "host that is not loopback: whoever reaches the scheduler runs code on the workers, and "
        "the daemon unpickles what comes back; use tls:// with execution.tls, or set "
        "execution.insecure_tcp: true for a network only the cluster reaches\n"
    )
    allowed = _event(tmp_path, execution={"backend": "dask", "scheduler": "tcp://10.0.0.1:8786",
                                           "insecure_tcp": True})
    assert main(["validate", "-q", str(allowed)]) == 0
    for fine in ("tcp://127.0.0.1:8786", "tcp://localhost:8786", "tcp://[::1]:8786",
                 "tls://10.0.0.1:8786"):
        path = _event(tmp_path, execution={"backend": "dask", "scheduler": fine})
        assert main(["validate", "-q", str(path)]) == 0, fine
    # tcecd run --scheduler goes through the same check (before any connection).
    with pytest.raises(ConfigError, match=r"^--scheduler: 'tcp://sched\.example:8786' is plain"):
        load_event(_event(tmp_path), scheduler="tcp://sched.example:8786")
