"""The systemd units in deploy/: ``systemd-analyze verify`` passes, and they say
what an operator relies on (unprivileged user, state directory, restart on
failure but not on a user error, graceful SIGTERM stop, journald)."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tcecd.cli import build_parser

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNITS = ("tcecd.service", "tcecd@.service")
INSTALL_ROOT = "/opt/tcecd/"

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze not installed (Debian package systemd, in install.sh --dev)",
)


def _service(unit: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DEPLOY / unit)
    return parser["Service"]


def _verify_copy(tmp_path: Path, unit: str, *, edit: tuple[str, str] | None = None) -> Path:
    """Copy ``unit`` into ``tmp_path`` with the install root moved there, so
    that ExecStart's program exists (verify checks it) without installing."""
    root = tmp_path / "root"
    program = root / ".venv" / "bin" / "tcecd"
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    text = (DEPLOY / unit).read_text().replace(INSTALL_ROOT, f"{root}/")
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit)
    (tmp_path / unit).write_text(text)
    return tmp_path / unit


def _analyze(path: Path) -> subprocess.CompletedProcess[str]:
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None
    return subprocess.run(
        [analyze, "verify", "--man=no", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@needs_analyze
@pytest.mark.parametrize(
    ("unit", "instance"),
    [("tcecd.service", "tcecd.service"), ("tcecd@.service", "tcecd@swiss1.service"),
     ("tcecd-web.service", "tcecd-web.service")],
)
def test_systemd_analyze_verify_is_clean(tmp_path: Path, unit: str, instance: str) -> None:
    _verify_copy(tmp_path, unit)
    result = _analyze(tmp_path / instance)
    # verify exits 0 even for unknown keys; it warns on stderr. Clean means silent.
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@needs_analyze
def test_verify_really_reads_the_template(tmp_path: Path) -> None:
    """The negative control for the test above: a typo in the template is
    reported when its instance is verified."""
    _verify_copy(tmp_path, "tcecd@.service", edit=("Restart=on-failure", "Restart=sometimes"))
    result = _analyze(tmp_path / "tcecd@swiss1.service")
    assert "Failed to parse service restart specifier" in result.stderr
    assert "sometimes" in result.stderr


@pytest.mark.parametrize("unit", UNITS)
def test_runs_unprivileged_with_its_state_directory(unit: str) -> None:
    service = _service(unit)
    assert service["User"] == "tcecd"
    assert service["Group"] == "tcecd"
    assert service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] == "strict"
    state = "/var/lib/" + service["StateDirectory"]
    argv = shlex.split(service["ExecStart"])
    assert argv[0] == "/opt/tcecd/.venv/bin/tcecd"
    args = build_parser("run").parse_args(argv[1:])  # the real CLI accepts it
    assert args.command == "run"
    assert argv[argv.index("--state-dir") + 1] == state
    assert service["WorkingDirectory"] == state


def test_the_template_gives_each_instance_its_config_and_state() -> None:
    service = _service("tcecd@.service")
    assert service["StateDirectory"] == "tcecd/%i"
    argv = shlex.split(service["ExecStart"])
    assert argv[1:] == ["run", "/etc/tcecd/%i.yaml", "--state-dir", "/var/lib/tcecd/%i"]
    single = shlex.split(_service("tcecd.service")["ExecStart"])
    assert single[1:] == ["run", "/etc/tcecd/event.yaml", "--state-dir", "/var/lib/tcecd/event"]


@pytest.mark.parametrize("unit", UNITS)
def test_restart_resumes_but_a_user_error_is_not_retried(unit: str) -> None:
    service = _service(unit)
    assert service["Restart"] == "on-failure"
    # Exit 2 is every TcecdError (bad config, refused resume): restarting cannot help.
    from tcecd.errors import TcecdError

    assert service["RestartPreventExitStatus"] == str(TcecdError.exit_code)


@pytest.mark.parametrize("unit", UNITS)
def test_stops_with_sigterm_then_a_timeout_and_logs_to_the_journal(unit: str) -> None:
    service = _service(unit)
    assert service["KillSignal"] == "SIGTERM"
    assert service["KillMode"] == "mixed"  # SIGTERM to tcecd; SIGKILL to leftovers
    assert service["TimeoutStopSec"] == "120s"
    assert service["StandardOutput"] == "journal"
    assert service["StandardError"] == "journal"


def test_sysusers_entry_matches_the_units() -> None:
    lines = [
        line
        for line in (DEPLOY / "tcecd.sysusers").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    fields = shlex.split(lines[0])
    assert fields[:2] == ["u", "tcecd"]
    assert fields[4] == "/var/lib/tcecd"  # home: the units' state root
    assert fields[5] == "/usr/sbin/nologin"


def test_the_web_unit_serves_loopback_within_its_file_limit() -> None:
    """tcecd-web.service (issue 28): `tcecd web` for the public behind a reverse
    proxy, with a LimitNOFILE its connection cap fits in."""
    from tcecd.web.http import FD_RESERVE

    service = _service("tcecd-web.service")
    assert (service["User"], service["Group"]) == ("tcecd", "tcecd")
    assert service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] == "strict"
    argv = shlex.split(service["ExecStart"])
    assert argv[0] == "/opt/tcecd/.venv/bin/tcecd"
    args = build_parser("web").parse_args(argv[1:])  # the real CLI accepts it
    assert args.command == "web"
    assert str(args.config) == "/etc/tcecd/event.yaml"
    assert args.listen.startswith("127.0.0.1:")  # the proxy faces the public
    assert int(service["LimitNOFILE"]) >= args.max_connections + FD_RESERVE
    assert service["Restart"] == "on-failure"
    from tcecd.errors import TcecdError

    assert service["RestartPreventExitStatus"] == str(TcecdError.exit_code)
    assert service["StandardError"] == "journal"
