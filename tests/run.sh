#!/usr/bin/env bash
# The whole test command: install (idempotent), lint, type-check, test.
# This is the README's test command, and what CI runs verbatim.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash deploy/install.sh --dev
export PATH="$PWD/.venv/bin:$PATH:/usr/games:/usr/sbin"
echo "== ruff"; ruff check tcecd tests bench engines
echo "== mypy --strict tcecd"; mypy --strict tcecd
# loadgroup: tests marked xdist_group(NAME) share one xdist worker (e.g. the Dask
# cluster tests share one cluster); the others are spread as with the default "load".
echo "== pytest"; pytest -n 2 --dist loadgroup -q -m "not solo" "$@" || [ $? -eq 5 ]
# Timing-sensitive tests (marked solo) alone, with the machine to themselves;
# exit 5 (none selected, e.g. when "$@" names other tests) is not a failure.
echo "== pytest (solo)"; pytest -q -m solo "$@" || [ $? -eq 5 ]
