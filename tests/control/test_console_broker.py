"""The console on a broker of your own (issue 26): the Mosquitto config and ACL
lines of docs/operations.md ("Operators: who may change the event"), run
against a real Mosquitto, keep anonymous clients (and an operator) from
forging the stream, and let only operators send commands."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tcecd.bus.settings import MqttSettings
from tests.control.scripted import OPERATOR, OPERATOR_PASSWORD, Board, running_event, settings
from tests.control.test_console_run import anonymous, ctl, listening
from tests.fixtures.mosquitto import MosquittoBroker, _user_name

pytestmark = pytest.mark.mosquitto
DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def doc_block(first_line: str) -> str:
    """The fenced block of docs/operations.md that starts with ``first_line``."""
    for block in re.findall(r"```conf\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S):
        if block.startswith(first_line):
            return str(block)
    raise AssertionError(f"no block starting {first_line!r} in {DOCS}")


class DocumentedBroker(MosquittoBroker):
    """Mosquitto with the documented ``tcecd.conf`` (paths moved to a temp dir)."""

    def _write_config(self) -> None:
        super()._write_config()  # the password file (users) and the ACL (acl)
        conf = doc_block("# tcecd.conf")
        conf = conf.replace("/etc/mosquitto/passwd", str(self.workdir / "passwd"))
        conf = conf.replace("/etc/mosquitto/tcecd.acl", str(self.workdir / "acl"))
        assert "allow_anonymous true" in conf
        lines = [conf, f"listener {self.port} {self.host}", "persistence false",
                 f"log_dest file {self.log_path}"]
        if os.geteuid() == 0:
            lines.append(f"user {_user_name()}")
        self.conf_path.write_text("\n".join(lines) + "\n")


async def test_the_documented_acl_guards_an_external_broker(tmp_path: Path) -> None:
    acl = doc_block("# tcecd.acl")
    assert f"user {OPERATOR}" in acl
    with DocumentedBroker(tmp_path / "broker", users={"tcecd": "daemon-secret",
                                                      OPERATOR: OPERATOR_PASSWORD},
                          acl=acl) as broker:  # fmt: skip
        mqtt = MqttSettings.from_url(broker.url, username="tcecd", password="daemon-secret",
                                     operators=((OPERATOR, None),))  # fmt: skip
        async with running_event(settings(tmp_path, mqtt=mqtt), Board()) as r:
            await listening(r)
            reply = await ctl(r, "pause", {"reason": "checking the ACL"})
            assert reply["ok"] is True
            await anonymous(r, paused=True)
            # An operator may send commands, not forge the stream.
            await anonymous(r, paused=True, as_operator=True)
