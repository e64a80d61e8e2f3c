"""deploy/mosquitto.conf for real: the shipped config, with only its ports and
container paths moved into a temp dir, started with Debian's mosquitto; MQTT
and WebSockets clients with and without credentials, and the ACL."""

from __future__ import annotations

import asyncio
import getpass
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiomqtt
import pytest

from tests.fixtures.mosquitto import find_binary, free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
USERS = {"tcecd": "publisher-secret", "viewer": "viewer-secret"}

pytestmark = pytest.mark.mosquitto


@dataclass
class Broker:
    mqtt_port: int
    ws_port: int
    log: Path


def _derive(text: str, workdir: Path, mqtt_port: int, ws_port: int) -> str:
    """The shipped config with only what must differ in a test replaced; each
    replaced line must be there exactly once (so the test follows the file)."""
    replacements = {
        "listener 1883\n": f"listener {mqtt_port} 127.0.0.1\n",
        "listener 9001\n": f"listener {ws_port} 127.0.0.1\n",
        "password_file /mosquitto/config/passwd\n": f"password_file {workdir / 'passwd'}\n",
        "acl_file /mosquitto/config/acl\n": f"acl_file {DEPLOY / 'mosquitto.acl'}\n",
        "persistence_location /mosquitto/data/\n": f"persistence_location {workdir}/\n",
        "log_dest stdout\n": f"log_dest file {workdir / 'mosquitto.log'}\n",
    }
    for old, new in replacements.items():
        assert text.count(old) == 1, f"deploy/mosquitto.conf should have {old!r} once"
        text = text.replace(old, new)
    # Started as root, mosquitto switches to the 'mosquitto' user, which cannot
    # read pytest's private temp dir: stay the user running the tests.
    return f"user {getpass.getuser()}\n{text}"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    mosquitto, passwd_tool = find_binary("mosquitto"), find_binary("mosquitto_passwd")
    if mosquitto is None or passwd_tool is None:
        pytest.skip("mosquitto / mosquitto_passwd not installed (packages mosquitto, -clients)")
    passwd = tmp_path / "passwd"
    passwd.write_text("")
    passwd.chmod(0o600)
    for user, password in USERS.items():
        subprocess.run(
            [passwd_tool, "-b", str(passwd), user, password],
            check=True,
            capture_output=True,
            timeout=30,
        )
    mqtt_port, ws_port = free_port(), free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(_derive((DEPLOY / "mosquitto.conf").read_text(), tmp_path, mqtt_port, ws_port))
    proc = subprocess.Popen(
        [mosquitto, "-c", str(conf)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    log = tmp_path / "mosquitto.log"
    try:
        deadline = time.monotonic() + 15
        pending = {mqtt_port, ws_port}
        while pending and time.monotonic() < deadline:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"mosquitto refused deploy/mosquitto.conf: {err}")
            for port in list(pending):
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        pending.discard(port)
                except OSError:
                    time.sleep(0.05)
        assert not pending, f"mosquitto did not listen on {pending}"
        yield Broker(mqtt_port, ws_port, log)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()


def _client(
    broker: Broker, transport: str, user: str | None, password: str | None
) -> aiomqtt.Client:
    port = broker.ws_port if transport == "websockets" else broker.mqtt_port
    return aiomqtt.Client(
        "127.0.0.1",
        port,
        username=user,
        password=password,
        transport=transport,  # type: ignore[arg-type]
        identifier=f"test-{uuid.uuid4().hex[:8]}",
        timeout=10,
    )


@pytest.mark.parametrize("transport", ["tcp", "websockets"])
@pytest.mark.parametrize(
    ("user", "password"),
    [(None, None), ("tcecd", "wrong"), ("nobody", "publisher-secret")],
    ids=["anonymous", "bad-password", "unknown-user"],
)
async def test_no_access_without_valid_credentials(
    broker: Broker, transport: str, user: str | None, password: str | None
) -> None:
    with pytest.raises(aiomqtt.MqttError) as info:
        async with _client(broker, transport, user, password):
            pass
    assert "authori" in str(info.value).lower()  # "Not authorized" (CONNACK code 5)


async def _first_message(client: aiomqtt.Client, topic: str) -> aiomqtt.Message:
    await client.subscribe(topic, qos=1)
    async for message in client.messages:
        return message
    raise AssertionError("no message")


@pytest.mark.parametrize("transport", ["tcp", "websockets"])
async def test_publisher_to_viewer_over_each_listener(broker: Broker, transport: str) -> None:
    """tcecd publishes a retained message over MQTT; a viewer logged in over
    ``transport`` (WebSockets: what a browser uses) receives it."""
    topic = f"tcecd/test/{uuid.uuid4().hex[:8]}"
    async with _client(broker, "tcp", "tcecd", USERS["tcecd"]) as publisher:
        await publisher.publish(topic, b"standings", qos=1, retain=True)
    async with _client(broker, transport, "viewer", USERS["viewer"]) as viewer:
        message = await asyncio.wait_for(_first_message(viewer, topic), timeout=15)
    assert message.payload == b"standings"


async def test_viewers_cannot_publish(broker: Broker) -> None:
    """The ACL makes viewers read-only. The broker drops a forbidden publish
    silently (MQTT 3.1.1), so the check is by order: a retained message from
    the viewer would reach a new subscriber before anything published later."""
    topic = f"tcecd/acl/{uuid.uuid4().hex[:8]}"
    async with _client(broker, "websockets", "viewer", USERS["viewer"]) as viewer:
        await viewer.publish(topic, b"forged", qos=1, retain=True)
    async with _client(broker, "tcp", "tcecd", USERS["tcecd"]) as daemon:
        await daemon.subscribe(topic, qos=1)
        await daemon.publish(topic, b"genuine", qos=1)
        first = await asyncio.wait_for(anext(aiter(daemon.messages)), timeout=15)
    assert first.payload == b"genuine"
