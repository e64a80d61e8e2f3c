#!/usr/bin/env bash
# Build the peers that bench/match.py measures tcecd against, fastchess and
# cutechess-cli, from source at pinned commits, into bench/peers/bin. Nothing is
# installed system-wide but the build's Debian packages, and bench/peers/.gitignore
# keeps the sources and programs out of git. Neither peer is packaged for Debian or
# PyPI (PyPI's "fastchess" is an unrelated library).
#
#   bash bench/peers.sh                 # both
#   bash bench/peers.sh fastchess       # one
#
# Missing Debian packages (git, g++, make; for cutechess-cli also CMake and Qt 6)
# are installed with apt-get, as root or through sudo. FASTCHESS_REPO /
# CUTECHESS_REPO may name a local clone or mirror instead of GitHub. Only for
# benchmarks: tcecd never runs either.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/peers"
src="$dest/src"
mkdir -p "$dest/bin" "$src"

FASTCHESS_REPO=${FASTCHESS_REPO:-https://github.com/Disservin/fastchess}
FASTCHESS_COMMIT=74deac23aadc6718fa0f8e24ac95d16392d79444   # v1.8.2-alpha+5, 2026-07-29
CUTECHESS_REPO=${CUTECHESS_REPO:-https://github.com/cutechess/cutechess}
CUTECHESS_COMMIT=5e84232be4546aaedc9d87a96c91867a1da06ada   # v1.5.1+5, 2026-07-14

# quietly CMD...: run CMD with its output in $src/build.log, shown (the end) when it fails.
quietly() {
    "$@" >"$src/build.log" 2>&1 || { tail -n 40 "$src/build.log" >&2; exit 1; }
}

# ensure_packages PKG...: apt-get install the ones that are missing.
ensure_packages() {
    local missing=() p sudo=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    (( ${#missing[@]} )) || return 0
    if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
    echo "peers.sh: installing Debian packages: ${missing[*]}"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# checkout NAME REPO COMMIT: a clean tree of COMMIT in $src/NAME.
checkout() {
    local name=$1 repo=$2 commit=$3 dir="$src/$1"
    if [[ ! -d "$dir/.git" ]]; then
        git clone -q "$repo" "$dir"
    fi
    git -C "$dir" fetch -q "$repo" "$commit" 2>/dev/null || true
    git -C "$dir" checkout -q --force "$commit"
    git -C "$dir" clean -qfdx
}

build_fastchess() {
    ensure_packages git g++ make
    checkout fastchess "$FASTCHESS_REPO" "$FASTCHESS_COMMIT"
    quietly make -C "$src/fastchess" -j"$(nproc)"
    install -m 755 "$src/fastchess/fastchess" "$dest/bin/fastchess"
    echo "peers.sh: built $dest/bin/fastchess ($FASTCHESS_COMMIT)"
}

build_cutechess() {
    ensure_packages git g++ make cmake qt6-base-dev qt6-svg-dev libgl-dev
    checkout cutechess "$CUTECHESS_REPO" "$CUTECHESS_COMMIT"
    quietly cmake -S "$src/cutechess" -B "$src/cutechess/build" -DCMAKE_BUILD_TYPE=Release \
        -DWITH_TESTS=OFF
    quietly cmake --build "$src/cutechess/build" --target cli -j"$(nproc)"
    install -m 755 "$src/cutechess/build/cutechess-cli" "$dest/bin/cutechess-cli"
    echo "peers.sh: built $dest/bin/cutechess-cli ($CUTECHESS_COMMIT)"
}

targets=("$@")
if (( ${#targets[@]} == 0 )); then targets=(fastchess cutechess-cli); fi
for target in "${targets[@]}"; do
    case $target in
        fastchess) build_fastchess ;;
        cutechess|cutechess-cli) build_cutechess ;;
        *) echo "peers.sh: unknown peer $target (fastchess, cutechess-cli)" >&2; exit 2 ;;
    esac
done
