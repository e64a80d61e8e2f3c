"""`tcecd web`'s command line: bad input is one line and exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tcecd.commands.web import parse_listen
from tcecd.errors import ConfigError
from tests.daemon.helpers import ROOT


def test_listen_address() -> None:
    assert parse_listen("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_listen("[::1]:9000") == ("::1", 9000)
    assert parse_listen(":80") == ("127.0.0.1", 80)
    for bad in ("8080", "host:", "host:http", "host:70000"):
        with pytest.raises(ConfigError, match="--listen"):
            parse_listen(bad)


@pytest.mark.parametrize(("args", "message"), [
    (["--listen", "nowhere"], "--listen: expected HOST:PORT, got 'nowhere'"),
    (["--viewer", "/nonexistent"], "--viewer: no index.html in '/nonexistent'"),
    (["--mqtt", "http://x"], "invalid MQTT URL"),
])
def test_bad_arguments_are_one_line_exit_2(args: list[str], message: str,
                                           tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "tcecd", "web", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 2
    assert r.stderr.startswith("tcecd: error: ")
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_taken_port_is_one_line_exit_2() -> None:
    """Also: as `tcecd watch` does, a password that would go over plain mqtt:// to a
    host that is not loopback is warned of at start (the broker is never reached)."""
    import os
    import socket

    env = {**os.environ, "TCECD_MQTT_PASSWORD": "S3cretPW"}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "tcecd", "web", "--listen",
                            f"127.0.0.1:{port}", "--mqtt", "mqtt://viewer@192.0.2.1:1883"],
                           cwd=ROOT, capture_output=True, text=True, timeout=30, check=False,
                           env=env)
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1].startswith(f"tcecd: error: --listen 127.0.0.1:{port}: ")
    warned = [line for line in r.stderr.splitlines() if "warning" in line]
    assert warned == [
        "tcecd web: warning: the MQTT password for mqtt://viewer@192.0.2.1:1883 goes over "
        "the network unencrypted (plain mqtt:// to a host that is not loopback); use mqtts:// "
        "(docs/operations.md, 'Secure the broker')"]
    assert "S3cretPW" not in r.stderr


def test_an_event_without_mqtt_is_one_line_exit_2(tmp_path: Path) -> None:
    from tests.daemon.helpers import write_config

    cfg = write_config(tmp_path / "ev", rounds=1)  # no `mqtt:`
    r = subprocess.run([sys.executable, "-m", "tcecd", "web", str(cfg)], cwd=ROOT,
                       capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"tcecd: error: {cfg}: mqtt: the event publishes nothing (no `mqtt:`), so there is "
        "no stream to follow"]


def test_a_dead_broker_is_said_on_the_terminal() -> None:
    """Issue 27: `tcecd web` against a dead broker said nothing on its terminal."""
    from tests.web.helpers import get_json, wait_for, web_server

    err: list[str] = []
    with web_server("mqtt://127.0.0.1:9", stderr=err) as base:
        wait_for(lambda: get_json(f"{base}/state.json")["mqtt"]["error"], 10, "the error")
    lines = err[0].splitlines()
    assert lines[0].endswith("following mqtt://127.0.0.1:9")
    said = [line for line in lines if "unreachable" in line]
    assert len(said) == 1  # once per outage, not once per retry
    assert said[0].startswith("tcecd web: broker mqtt://127.0.0.1:9 unreachable (")
    assert said[0].endswith("); retrying")

