"""Our pairing reproduces TCEC's reference implementation on real events.

The two PGNs in ../shared/data/tcec-swiss-samples/ were written by TCEC's
cutechess fork in its ``swiss-tcec`` mode. Only the headers are read: Round
"r.g" (g = position in the playing order), White, Black, Result; the seed is
the number after "P" in the engine name. Pairing round r from the results of
rounds < r must give exactly the round's games: pairs, colours and order.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import chess.pgn
import pytest

from tcecd.domain import Result
from tcecd.pairing.base import PlayedGame, Player, RoundRecord
from tcecd.pairing.tcec_swiss import TcecSwiss


def _samples_dir() -> Path:
    env = os.environ.get("TCECD_SAMPLES_PATH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "tcec-swiss-samples"


def _read(path: Path) -> tuple[list[Player], list[list[tuple[str, str, str]]]]:
    rounds: dict[int, dict[int, tuple[str, str, str]]] = {}
    with path.open(encoding="utf-8") as f:
        while (headers := chess.pgn.read_headers(f)) is not None:
            r, g = (int(x) for x in headers["Round"].split("."))
            assert g not in rounds.setdefault(r, {}), f"game {r}.{g} twice"
            rounds[r][g] = (headers["White"], headers["Black"], headers["Result"])
    assert sorted(rounds) == list(range(1, len(rounds) + 1))
    names = {name for games in rounds.values() for w, b, _ in games.values() for name in (w, b)}
    players = []
    for name in sorted(names):
        m = re.match(r"P(\d+)", name)
        assert m, f"engine name without a seed: {name!r}"
        players.append(Player(id=name, name=name, seed=int(m.group(1))))
    ordered = [[games[g] for g in sorted(games)] for _, games in sorted(rounds.items())]
    for games in ordered:
        assert len(games) == max(len(gs) for gs in ordered)
    return players, ordered


@pytest.mark.parametrize(
    ("filename", "double", "rounds"),
    [("a_10p_7r_single.pgn", False, 7), ("c_8p_5r_double.pgn", True, 5)],
)
def test_reproduces_tcec_reference_rounds(filename: str, double: bool, rounds: int) -> None:
    path = _samples_dir() / filename
    if not path.exists():
        pytest.skip(f"TCEC sample {path} not found (set TCECD_SAMPLES_PATH)")
    players, played = _read(path)
    assert len(played) == rounds
    history: list[RoundRecord] = []
    for number, games in enumerate(played, start=1):
        pairing = TcecSwiss().pair(players, history, double=double)
        assert pairing.round == number
        assert pairing.bye is None
        ours = [(g.white, g.black) for g in pairing.games]
        theirs = [(w, b) for w, b, _ in games]
        assert ours == theirs, f"{filename}: round {number} differs"
        history.append(
            RoundRecord(
                round=number,
                bye=None,
                removed_history_rounds=pairing.removed_history_rounds,
                games=tuple(PlayedGame(w, b, Result.from_pgn(res)) for w, b, res in games),
            )
        )
