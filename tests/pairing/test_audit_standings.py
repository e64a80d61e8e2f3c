"""Independent audit of the final ranking (rule text "General structure" and
tcec-swiss.md "Final ranking"): score DESC, received BYEs ASC, then the
configured tiebreaks, then seed. Every figure is worked out by hand below."""

from __future__ import annotations

from tcecd.domain import Result
from tcecd.pairing.base import PlayedGame, Player, RoundRecord
from tcecd.pairing.standings import standings

RESULTS = {"1-0": Result.WHITE_WINS, "0-1": Result.BLACK_WINS, "=": Result.DRAW}


def players(n: int) -> list[Player]:
    return [Player(id=chr(ord("A") + i), name=f"Engine {i + 1}", seed=i + 1) for i in range(n)]


def record(number: int, games: list[str], bye: str | None = None) -> RoundRecord:
    played = []
    for spec in games:
        pairing, result = spec.split()
        white, black = pairing.split("-")
        played.append(PlayedGame(white=white, black=black, result=RESULTS[result]))
    return RoundRecord(round=number, bye=bye, removed_history_rounds=(), games=tuple(played))


ALL = ("black-games", "sonneborn-berger", "buchholz", "buchholz-cut1", "wins", "direct-encounter")


def test_five_player_event_with_byes_every_tiebreak_by_hand() -> None:
    # The five-player event of test_audit_tcec_swiss (BYE test) finished:
    #   R1: D-C 1-0, B-A 1-0, BYE E    R2: A-E 1-0, B-D 1-0, BYE C
    #   R3: C-A =,  E-B 1-0, BYE D
    # Points (BYE = 1): A 0+1+.5 = 1.5; B 1+1+0 = 2; C 0+1+.5 = 1.5;
    #                   D 1+0+1 = 2;   E 1+0+1 = 2.
    # BYEs: A 0, B 0, C 1, D 1, E 1. Games (a BYE is none): A 3, B 3, C 2, D 2, E 2.
    # Buchholz (opponents' final scores, per game):
    #   A: B 2 + E 2 + C 1.5 = 5.5    B: A 1.5 + D 2 + E 2 = 5.5
    #   C: D 2 + A 1.5 = 3.5          D: C 1.5 + B 2 = 3.5      E: A 1.5 + B 2 = 3.5
    # Buchholz cut-1 (drop the lowest): A 4, B 4, C 2, D 2, E 2.
    # Sonneborn-Berger (points x opponent's score):
    #   A: 0*2 + 1*2 + .5*1.5 = 2.75   B: 1*1.5 + 1*2 + 0*2 = 3.5
    #   C: 0*2 + .5*1.5 = 0.75         D: 1*1.5 + 0*2 = 1.5     E: 0*1.5 + 1*2 = 2
    # Black games: A 2 (R1, R3), B 1, C 1, D 1, E 1. Wins: A 1, B 2, C 0, D 1, E 1.
    # Direct encounter (listed last: points against the players level on score,
    # BYEs and every tiebreak before it): D and E are level on score, BYEs and
    # black games but not on SB, so every group is a singleton: 0 each.
    history = [
        record(1, ["D-C 1-0", "B-A 1-0"], bye="E"),
        record(2, ["A-E 1-0", "B-D 1-0"], bye="C"),
        record(3, ["C-A =", "E-B 1-0"], bye="D"),
    ]
    rows = standings(players(5), history, double=False, tiebreaks=ALL)
    # Ranking: 2 points: B (0 BYEs) first, then D and E (1 BYE each), split by
    # black games (1 = 1), then SB: E 2 > D 1.5. 1.5 points: A (0 BYEs), C (1).
    assert [r.id for r in rows] == ["B", "E", "D", "A", "C"]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]
    got = {r.id: (r.score_half, r.byes, r.games, dict(r.tiebreaks)) for r in rows}
    assert got["A"] == (3, 0, 3, dict(zip(ALL, (2, 2.75, 5.5, 4, 1, 0), strict=True)))
    assert got["B"] == (4, 0, 3, dict(zip(ALL, (1, 3.5, 5.5, 4, 2, 0), strict=True)))
    assert got["C"] == (3, 1, 2, dict(zip(ALL, (1, 0.75, 3.5, 2, 0, 0), strict=True)))
    assert got["D"] == (4, 1, 2, dict(zip(ALL, (1, 1.5, 3.5, 2, 1, 0), strict=True)))
    assert got["E"] == (4, 1, 2, dict(zip(ALL, (1, 2, 3.5, 2, 1, 0), strict=True)))


def test_fewer_byes_ranks_before_the_tiebreaks() -> None:
    # Hand-made records (valid input): R1: A-B 0-1, BYE C. R2: A-C 1-0, BYE B.
    # A: 0 + 1 = 1 point, 0 BYEs, black games 0.
    # C: 1 (BYE) + 0 = 1 point, 1 BYE, black games 1.
    # B: 1 + 1 (BYE) = 2 points, first.
    # The default list starts with black games, where C (1) beats A (0); the
    # BYE criterion comes before any tiebreak and puts A ahead of C.
    history = [record(1, ["A-B 0-1"], bye="C"), record(2, ["A-C 1-0"], bye="B")]
    rows = standings(players(3), history, double=False)
    assert [(r.id, r.score_half, r.byes) for r in rows] == [("B", 4, 1), ("A", 2, 0), ("C", 2, 1)]
    black = {r.id: dict(r.tiebreaks)["black-games"] for r in rows}
    assert black == {"A": 0, "B": 1, "C": 1}


def test_direct_encounter_and_sonneborn_berger_order() -> None:
    # A four-player round robin:
    #   R1: B-A 1-0, D-C 0-1   R2: A-C 1-0, B-D =   R3: A-D =, C-B 1-0
    # Points: A 0+1+.5 = 1.5, B 1+.5+0 = 1.5, C 1+0+1 = 2, D 0+.5+.5 = 1.
    # A and B are level (1.5, no BYEs, black games 1 each: A black in R1 only,
    # B black in R3 only). B beat A in R1: direct encounter B 1, A 0.
    # SB: A: 0*1.5 (B) + 1*2 (C) + .5*1 (D) = 2.5; B: 1*1.5 + .5*1 + 0*2 = 2.
    # So SB ranks A first, direct encounter ranks B first; the listed order of
    # the tiebreaks decides.
    history = [
        record(1, ["B-A 1-0", "D-C 0-1"]),
        record(2, ["A-C 1-0", "B-D ="]),
        record(3, ["A-D =", "C-B 1-0"]),
    ]
    field = players(4)
    de_first = standings(
        field, history, double=False, tiebreaks=("direct-encounter", "sonneborn-berger")
    )
    assert [r.id for r in de_first] == ["C", "B", "A", "D"]
    values = {r.id: dict(r.tiebreaks) for r in de_first}
    assert values["A"] == {"direct-encounter": 0, "sonneborn-berger": 2.5}
    assert values["B"] == {"direct-encounter": 1, "sonneborn-berger": 2}
    # C and D are alone on their score: no level opponent, 0.
    assert values["C"]["direct-encounter"] == 0
    assert values["D"]["direct-encounter"] == 0

    sb_first = standings(
        field, history, double=False, tiebreaks=("sonneborn-berger", "direct-encounter")
    )
    assert [r.id for r in sb_first] == ["C", "A", "B", "D"]
    # After SB splits them, A and B are no longer level: direct encounter 0.
    assert {r.id: dict(r.tiebreaks)["direct-encounter"] for r in sb_first} == {
        "A": 0,
        "B": 0,
        "C": 0,
        "D": 0,
    }
    # Default list (black games, SB, wins): black games equal (1, 1; C 1, D 2), SB A.
    assert [r.id for r in standings(field, history, double=False)] == ["C", "A", "B", "D"]
    # Buchholz in a round robin: everyone's opponents are the other three.
    # A: 1.5 + 2 + 1 = 4.5, B 4.5, C 1.5 + 1.5 + 1 = 4, D 1.5 + 1.5 + 2 = 5.
    # Cut-1: A 3.5, B 3.5, C 3, D 3.5. Level A/B by Buchholz: seed decides (A).
    bh = standings(field, history, double=False, tiebreaks=("buchholz", "buchholz-cut1"))
    assert [r.id for r in bh] == ["C", "A", "B", "D"]
    assert {r.id: dict(r.tiebreaks)["buchholz"] for r in bh} == {"A": 4.5, "B": 4.5, "C": 4, "D": 5}
    assert {r.id: dict(r.tiebreaks)["buchholz-cut1"] for r in bh} == {
        "A": 3.5,
        "B": 3.5,
        "C": 3,
        "D": 3.5,
    }


def test_double_round_bye_is_two_points_and_opponents_count_per_game() -> None:
    # Three players, double rounds. R1: B-A 1-0, A-B 1-0, BYE C.
    # A 1, B 1, C 2 (a BYE is a win for each of the round's two games).
    history = [record(1, ["B-A 1-0", "A-B 1-0"], bye="C")]
    rows = standings(players(3), history, double=True, tiebreaks=("buchholz", "sonneborn-berger"))
    assert [(r.id, r.score_half, r.byes, r.games) for r in rows] == [
        ("C", 4, 1, 0),
        ("A", 2, 0, 2),
        ("B", 2, 0, 2),
    ]
    # Buchholz per game: A met B twice: 1 + 1 = 2. SB: A won one game vs B (1 * 1).
    assert dict(rows[1].tiebreaks) == {"buchholz": 2, "sonneborn-berger": 1}
