"""An engine's environment is an allowlist, never the daemon's whole environment
(issue 28): a third-party engine must not read the broker password or any other
secret the daemon was started with."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pytest

from tcecd.commands.mqtt_password import PASSWORD_ENV, command_line_password
from tcecd.config.engines import EngineConfig, RemoteConfig
from tcecd.runner.process import ENGINE_ENV_PASSED, engine_env
from tcecd.runner.reaper import ENV_MARK, EngineGroups
from tcecd.runner.session import EngineSession

ABENGINE = Path(__file__).resolve().parents[2] / "engines" / "abengine.py"

#: A UCI engine that first writes the environment it was started with (read from
#: /proc/self/environ: what exec gave it, before the interpreter adds anything,
#: such as PEP 538's LC_CTYPE) to the file named by its first argument, then
#: becomes abengine (exec keeps that environment).
DUMPER = f"""
import json, os, sys
raw = open("/proc/self/environ", "rb").read().split(b"\\0")
env = dict(item.decode().split("=", 1) for item in raw if item)
with open(sys.argv[1], "w") as out:
    json.dump(env, out)
os.execv(sys.executable, [sys.executable, {str(ABENGINE)!r}, "--depth", "1"])
"""


async def test_an_engine_sees_only_the_allowlisted_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "S3cretPW")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "also-secret")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("HOME", str(tmp_path))
    script = tmp_path / "dump_env.py"
    script.write_text(DUMPER, encoding="utf-8")
    dump = tmp_path / "env.json"
    config = EngineConfig(
        name="dumper",
        command=(sys.executable, str(script), str(dump)),
        env={"ENGINE_THREADS_HINT": "2"},
    )
    groups = EngineGroups(tmp_path)
    async with EngineSession(config, groups=groups) as session:
        assert session.alive
    env = json.loads(dump.read_text(encoding="utf-8"))
    assert set(env) == {"PATH", "HOME", "LANG", "TZ", "ENGINE_THREADS_HINT", ENV_MARK}
    assert env["PATH"] == os.environ["PATH"]
    assert env["HOME"] == str(tmp_path)
    assert env["ENGINE_THREADS_HINT"] == "2"
    assert env[ENV_MARK] == groups.token  # the reaper's mark still reaches the engine
    assert "S3cretPW" not in json.dumps(env)


def test_allowlist_is_what_the_issue_names() -> None:
    assert ENGINE_ENV_PASSED == ("PATH", "HOME", "LANG", "TZ")


def test_a_remote_engines_ssh_client_gets_the_agent_but_not_the_engine_env() -> None:
    """The local process of a remote engine is the ssh client: it needs the
    agent's socket; the definition's ``env`` is set on the far host (by the
    remote command), not in the client's environment."""
    config = EngineConfig(name="far", command=("/usr/games/stockfish",), env={"X": "1"},
                          remote=RemoteConfig(host="engines1"))
    environ = {"PATH": "/usr/bin", "SSH_AUTH_SOCK": "/run/agent", PASSWORD_ENV: "pw",
               "LD_PRELOAD": "/tmp/evil.so"}
    assert engine_env(config, {ENV_MARK: "t"}, environ) == {
        "PATH": "/usr/bin", "SSH_AUTH_SOCK": "/run/agent", ENV_MARK: "t"}
    local = config.model_copy(update={"remote": None})
    assert engine_env(local, None, environ) == {"PATH": "/usr/bin", "X": "1"}


def test_the_password_variable_is_dropped_once_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the daemon starts later (an engine, ssh, Mosquitto, a shell of a
    hook) does not inherit the broker password from it."""
    monkeypatch.setenv(PASSWORD_ENV, "S3cretPW")
    args = argparse.Namespace(mqtt_password_file=None)
    assert command_line_password(args, os.environ) == "S3cretPW"
    assert PASSWORD_ENV not in os.environ
