"""deploy/Dockerfile and deploy/compose.yaml, checked statically.

No Docker engine runs where the tests run (and no compose plugin), so these
tests read the files the way Docker would and check what an operator relies
on: a slim Python base, a non-root user, tini as PID 1, the engines the
example configs need, a command the real CLI accepts, two services with
volumes for state and engines, and mounts that match deploy/mosquitto.conf.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import yaml

from tcecd.cli import build_parser
from tests.deploy.helpers import load_event_or_skip

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of deploy/Dockerfile, continuation lines
    joined and comments dropped, as the Dockerfile parser does."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in (DEPLOY / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        word, _, rest = full.partition(" ")
        out.append((word.upper(), rest.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return out


def _one(kind: str) -> list[str]:
    return [args for word, args in _instructions() if word == kind]


def test_slim_python_311_base() -> None:
    (base,) = _one("FROM")
    assert re.fullmatch(r"python:3\.11-slim(-\w+)?", base)


def test_runs_as_the_unprivileged_tcecd_user_under_tini() -> None:
    instructions = _instructions()
    words = [w for w, _ in instructions]
    (user,) = _one("USER")
    assert user.split(":")[0] not in ("root", "0")
    assert words.index("USER") < words.index("ENTRYPOINT")
    run = " ".join(_one("RUN"))
    assert "useradd --system --uid 10001" in run
    entrypoint = json.loads(_one("ENTRYPOINT")[0])  # exec form: signals reach tini
    assert entrypoint[:2] == ["/usr/bin/tini", "--"]
    assert entrypoint[2] == "/opt/tcecd/.venv/bin/tcecd"
    assert "tini" in run
    assert _one("STOPSIGNAL") == ["SIGTERM"]


def test_the_default_command_is_one_the_cli_accepts() -> None:
    cmd = json.loads(_one("CMD")[0])
    args = build_parser("run").parse_args(cmd)
    assert (args.command, str(args.config)) == ("run", "/etc/tcecd/event.yaml")
    assert str(args.state_dir).startswith("/var/lib/tcecd/")
    assert _one("VOLUME") == ['["/var/lib/tcecd"]']


def test_installs_every_debian_engine_the_example_configs_use() -> None:
    (arg,) = [a for a in _one("ARG") if a.startswith("ENGINES=")]
    packages = set(shlex.split(arg.partition("=")[2])[0].split())
    # Package per program, as Debian ships them (/usr/games/<program>).
    programs = {
        "stockfish": "stockfish",
        "ethereal-chess": "ethereal-chess",
        "glaurung": "glaurung",
        "toga2": "toga2",
        "hoichess": "hoichess",
    }
    used = set()
    for name in ("fast-test.yaml", "tcec-swiss-long.yaml"):
        config = load_event_or_skip(ROOT / "configs" / name)
        used |= {Path(engine.command[0]).name for engine in config.engines}
    assert used <= set(programs)
    assert {programs[p] for p in used} <= packages
    assert "openssh-client" in " ".join(_one("RUN"))  # remote engines


def test_copies_only_what_exists_and_installs_editable_in_opt() -> None:
    for args in _one("COPY"):
        *sources, _dest = args.split()
        for source in sources:
            assert (ROOT / source).exists(), source
    run = " ".join(_one("RUN"))
    # tcecd finds its bundled engines/ beside the package: an editable install.
    assert "/opt/tcecd/.venv/bin/pip install --no-cache-dir -e ." in run
    assert _one("WORKDIR")[0] == "/opt/tcecd"


# -- compose ---------------------------------------------------------------------------------


def _compose() -> dict[str, object]:
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def _mounts(service: dict[str, object]) -> dict[str, str]:
    """container path -> host source (named volume or path) of a service."""
    out = {}
    for entry in service["volumes"]:  # type: ignore[union-attr]
        match = re.fullmatch(r"(\$\{[^}]*\}|[^:]+):([^:]+)(?::(ro|rw))?", str(entry))
        assert match is not None, entry
        out[match[2]] = match[1]
    return out


def test_two_services_mosquitto_and_tcecd() -> None:
    compose = _compose()
    assert set(compose["services"]) == {"mosquitto", "tcecd"}  # type: ignore[arg-type]


def test_mosquitto_publishes_mqtt_and_websockets_with_the_shipped_config() -> None:
    mosquitto = _compose()["services"]["mosquitto"]  # type: ignore[index]
    assert mosquitto["image"].startswith("eclipse-mosquitto:2")
    # Plain MQTT and WebSockets carry passwords in clear: the host's loopback only
    # (issue 28); other hosts get the TLS listeners.
    assert all(str(p).startswith("127.0.0.1:") for p in mosquitto["ports"])
    ports = {str(p).split(":")[1] for p in mosquitto["ports"]}
    conf = (DEPLOY / "mosquitto.conf").read_text()
    listeners = set(re.findall(r"^listener (\d+)$", conf, flags=re.M))
    assert listeners == {"1883", "9001"} == ports
    mounts = _mounts(mosquitto)
    assert mounts["/mosquitto/config/mosquitto.conf"] == "./mosquitto.conf"
    # The paths mosquitto.conf names are the ones compose mounts.
    for path in re.findall(r"^(?:password_file|acl_file) (\S+)$", conf, flags=re.M):
        assert path in mounts
    assert mounts["/mosquitto/config/acl"] == "./mosquitto.acl"
    assert (DEPLOY / "mosquitto.acl").is_file()
    assert mounts["/mosquitto/data"] in _compose()["volumes"]  # type: ignore[operator]
    # The password file is made by the operator and never committed.
    assert mounts["/mosquitto/config/passwd"] == "./mosquitto.passwd"
    assert "mosquitto.passwd" in (DEPLOY / ".gitignore").read_text()


def test_tcecd_service_has_state_and_engine_volumes_and_restarts_on_failure() -> None:
    compose = _compose()
    tcecd = compose["services"]["tcecd"]  # type: ignore[index]
    assert tcecd["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert (DEPLOY / ".." / tcecd["build"]["dockerfile"]).is_file()
    mounts = _mounts(tcecd)
    assert mounts["/var/lib/tcecd"] in compose["volumes"]  # type: ignore[operator]
    assert mounts["/opt/engines"] in compose["volumes"]  # type: ignore[operator]
    # The event: TCECD_EVENT, by default the compose event (tested below).
    assert mounts["/etc/tcecd/event.yaml"] == "${TCECD_EVENT:-./compose-event.yaml}"
    assert tcecd["restart"] == "on-failure"
    assert tcecd["depends_on"] == ["mosquitto"]
    args = build_parser("run").parse_args(tcecd["command"])
    assert (args.command, str(args.config)) == ("run", "/etc/tcecd/event.yaml")
    assert str(args.state_dir).startswith("/var/lib/tcecd/")  # in the state volume
    assert tcecd["secrets"] == ["mqtt_password"]
    assert compose["secrets"]["mqtt_password"]["file"] == "./secrets/mqtt_password"  # type: ignore[index]


def test_the_compose_event_validates_with_container_paths_mapped(tmp_path: Path) -> None:
    """deploy/compose-event.yaml, with /opt/tcecd mapped to this checkout and
    the compose secret to a temp file, is a valid event that logs in to the
    compose broker as the ACL's publisher."""
    secret = tmp_path / "mqtt_password"
    secret.write_text("s3cret\n")
    secret.chmod(0o600)  # as deploy/secrets/README.md says
    text = (DEPLOY / "compose-event.yaml").read_text()
    assert "/opt/tcecd/" in text
    assert "/run/secrets/mqtt_password" in text
    text = text.replace("/opt/tcecd/", f"{ROOT}/").replace(
        "/run/secrets/mqtt_password", str(secret)
    )
    event = tmp_path / "event.yaml"
    event.write_text(text)
    config = load_event_or_skip(event)
    settings = config.mqtt_settings()
    assert settings is not None
    assert (settings.host, settings.port, settings.username) == ("mosquitto", 1883, "tcecd")
    assert settings.password == "s3cret"
    assert settings.topic_prefix == "tcecd"  # the ACL grants tcecd/# only
