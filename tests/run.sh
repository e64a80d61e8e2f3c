#!/usr/bin/env bash
# The whole test command: install (idempotent), lint, type-check, test.
# This is the README's test command, and what CI runs verbatim.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash deploy/install.sh --dev
export PATH="$PWD/.venv/bin:$PATH:/usr/games:/usr/sbin"
# This machine's environment sets PYTHONDONTWRITEBYTECODE=1: every Python process
# of the run (pytest workers, daemons, engines, Dask workers: about 2,000) would
# then compile tcecd's and the tests' modules from source again, and pytest would
# rewrite every test module's asserts again in each worker (collection took 8 s
# per process instead of 2). The run writes and reuses its bytecode
# (__pycache__/ is git-ignored); install.sh compiles the venv's.
unset PYTHONDONTWRITEBYTECODE
echo "== ruff"; ruff check tcecd tests bench engines
# mypy (about 15 s of one core on a clean clone, no cache) runs beside the first pytest
# phase, which starts its workers meanwhile; its report and status come after that phase.
mypy_log=$(mktemp)
trap 'rm -f "$mypy_log"' EXIT
mypy --strict tcecd >"$mypy_log" 2>&1 & mypy_pid=$!
# loadgroup: tests marked xdist_group(NAME) share one xdist worker (e.g. the Dask
# cluster tests share one cluster); the others are spread as with the default "load".
# Four workers on two cores: most tests wait on engines and brokers in subprocesses
# (two workers kept the cores about 75% busy, three 87%, four 93%); three took 350 s
# against 398-425 s for two, every test passing. Nothing timed runs here: timing is
# the solo phase's.
echo "== pytest"; pytest_status=0
pytest -n 4 --dist loadgroup -q -m "not solo" "$@" || pytest_status=$?
echo "== mypy --strict tcecd"; mypy_status=0; wait "$mypy_pid" || mypy_status=$?
cat "$mypy_log"
[ "$mypy_status" -eq 0 ] || exit "$mypy_status"
[ "$pytest_status" -eq 0 ] || [ "$pytest_status" -eq 5 ] || exit "$pytest_status"
# Timing-sensitive tests (marked solo) alone, with the machine to themselves;
# exit 5 (none selected, e.g. when "$@" names other tests) is not a failure.
echo "== pytest (solo)"; pytest -q -m solo "$@" || [ $? -eq 5 ]
