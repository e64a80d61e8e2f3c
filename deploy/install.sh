#!/usr/bin/env bash
# Install everything tcecd needs on a Debian machine, idempotently.
#
#   bash deploy/install.sh          # runtime: system packages + .venv with tcecd
#   bash deploy/install.sh --dev    # also the test/lint tools and the test-only packages
#
# Debian packages are installed only when missing (as root, or through sudo);
# the Python environment lives in .venv at the project root and is refreshed
# only when pyproject.toml changed since the last install.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

dev=0
[[ "${1:-}" == "--dev" ]] && dev=1

# Debian packages: the broker (also what `mqtt: embedded` starts; without it tcecd falls
# back to amqtt in-process) and the engines the tests and example configs use.
# Binaries land in /usr/games and /usr/sbin, which tcecd also searches.
pkgs=(mosquitto mosquitto-clients stockfish fairymax)
# The other Debian engines the example configs in configs/ play (binaries in /usr/games).
pkgs+=(ethereal-chess glaurung toga2)
# An xboard engine tcecd can drive from any position (Fairy-Max lacks 'setboard', so it
# plays only from the standard start; GNU Chess 6 answers 'protover 2' late).
pkgs+=(hoichess)
if (( dev )); then
    pkgs+=(pgn-extract openssh-server openssh-client)
    # systemd-analyze, to verify the unit files in deploy/ (tests/deploy).
    pkgs+=(systemd)
    # Headless browser tests of `tcecd web` (Selenium drives Debian's chromium).
    pkgs+=(chromium chromium-driver)
    # Java for JaVaFo, a reference program of the pairing tests (../shared/oracles).
    pkgs+=(default-jre-headless)
    # strace: a test counts the close(2) calls on an engine's pipe ends (each closed once).
    pkgs+=(strace)
fi
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A Java runtime for the JaVaFo reference programs the pairing tests compare with
# (tests/pairing/dutch2012/test_javafo.py; never used by tcecd itself). Any installed
# JRE will do; Debian's default-jre-headless otherwise.
if (( dev )) && ! command -v java >/dev/null 2>&1 \
    && ! dpkg-query -W -f='${Status}' default-jre-headless 2>/dev/null | grep -q "install ok installed"; then
    missing+=(default-jre-headless)
fi
# Python 3.11+ with venv: a minimal Debian may lack python3, and Debian splits
# ensurepip (needed to create a venv) into python3-venv.
if ! command -v python3 >/dev/null 2>&1; then
    missing+=(python3 python3-venv)
elif ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
    missing+=(python3-venv)
fi
if (( ${#missing[@]} )); then
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
    echo "install.sh: installing Debian packages: ${missing[*]}"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Debian starts mosquitto as a system service; tcecd and its tests never rely on it.
fi

# Python environment.
if [[ ! -x .venv/bin/python ]]; then
    python3 -m venv .venv
fi
if ! .venv/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "install.sh: tcecd needs Python 3.11 or newer (.venv has $(.venv/bin/python -V))" >&2
    exit 1
fi
# tcec-viewer: `tcecd web`'s live feed for TCEC's own viewer (python-socketio 4.x);
# dev pulls it in too (its tests).
extra="[tcec-viewer]"
(( dev )) && extra="[dev]"
stamp=".venv/.tcecd-installed${extra}"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [[ ! -f "$stamp" ]] || [[ $(cat "$stamp") != "$want" ]]; then
    # uv (into the venv, from PyPI) installs exactly what pip would, the same
    # versions, in seconds: pip took about 85 s of a clean clone's test run for the
    # dev set on this 2-core machine, uv about 12 s with its own download. pip
    # does it when uv cannot be had. --compile-bytecode: uv writes no .pyc by
    # default (pip does), and where PYTHONDONTWRITEBYTECODE is set (this machine)
    # every process would compile the venv's modules again: `import distributed`
    # took 1.0 s of CPU instead of 0.5, in each Dask worker and scheduler.
    if .venv/bin/python -m pip install -q --disable-pip-version-check uv >/dev/null 2>&1 \
        && .venv/bin/python -m uv --version >/dev/null 2>&1; then
        .venv/bin/python -m uv pip install -q --compile-bytecode --python .venv/bin/python -e ".${extra}"
    else
        .venv/bin/python -m pip install -q --upgrade pip >/dev/null
        .venv/bin/python -m pip install -q -e ".${extra}"
    fi
    echo "$want" > "$stamp"
fi
echo "install.sh: ready (.venv/bin/tcecd)"
