"""``tcecd pair`` with the FIDE Dutch system against bbpPairings' output.

bbpPairings v5.0.1 implements the Dutch rules of 2017 (C.04.3). On tournaments
it generated and paired itself: tcecd's checker agrees with every round, and
tcecd pairs the next round byte for byte as bbpPairings' ``-p`` does. A
tournament simulated by tcecd with the Dutch system passes bbpPairings'
checker. Skipped until the ``dutch-2017`` system is installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcecd.cli import main
from tcecd.errors import PairingError
from tcecd.pairing.registry import get_system
from tests.trf.oracle import bbp, discrepancies, generate


def _dutch_available() -> bool:
    try:
        get_system("dutch-2017")
    except PairingError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not _dutch_available(), reason="the dutch-2017 system is not installed"
)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_check_and_next_round_match_bbppairings(
    tmp_path: Path, seed: int, capsys: pytest.CaptureFixture[str]
) -> None:
    source = generate(tmp_path, seed)
    assert main(["pair", "--check", str(source)]) == 0
    assert capsys.readouterr().out == "OK: all 6 round(s) agree with the dutch-2017 pairing\n"
    # Two more rounds to go: both programs pair round 7.
    longer = tmp_path / "longer.trf"
    longer.write_text(source.read_text().replace("\r", "\n") + "XXR 8\n")
    expected = tmp_path / "bbp.txt"
    done = bbp("--dutch", longer, "-p", expected)
    assert done.returncode == 0, done.stderr
    ours = tmp_path / "tcecd.txt"
    assert main(["pair", str(longer), "-p", str(ours)]) == 0
    assert ours.read_bytes() == expected.read_bytes()


def test_simulated_dutch_event_passes_bbppairings_checker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trf = tmp_path / "sim.trf"
    argv = ["simulate", "--system", "dutch-2017", "--players", "10", "--rounds", "5"]
    assert main([*argv, "--seed", "4", "--trf", str(trf)]) == 0
    checked = bbp("--dutch", trf, "-c")
    assert checked.returncode == 0, checked.stderr
    assert discrepancies(checked.stdout) == 0, checked.stdout
    capsys.readouterr()
    assert main(["pair", "--check", str(trf)]) == 0
