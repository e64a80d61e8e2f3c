"""The writer reproduces the PGNs TCEC's own cutechess wrote, game by game.

Each sample game is turned back into a :class:`GameRecord` (engine data taken
from its comments; ``ponder_san``, the reply an engine expected after its move,
is the ``pd`` of that engine's next move) and rendered again;
the text must equal the sample's, apart from what tcecd adds on purpose: the
``TimeControl``/``Termination "normal"`` tags and the ``[%eval]``/``[%clk]``
annotations. ``mb``, ``pd``, ``ph``, the tag order, move numbers, the options
comment and the end-of-game text are all recomputed by the writer, so this
checks them against the reference implementation.

``ph`` (ponder-hit rate) is left out of the comparison: cutechess counts hits
from what the engine said while pondering, which the PGN does not keep (game
2.2 of the first sample shows a predicted reply that was played but not
counted). The first game matches including ``ph``.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import chess
import chess.pgn
import pytest

from tcecd.domain import Color, GameId, Result, Termination
from tcecd.game.record import GameRecord, MoveRecord, Opening, Score
from tcecd.pgn.writer import game_pgn

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "data" / "tcec-swiss-samples"
_FIELD = re.compile(r"(\w+)=([^,]*),")
_ANNOTATION = re.compile(r" \[%(?:eval|clk) [^\]]*\]")
_PH = re.compile(r"ph=[0-9.]+, ")


def _score(text: str) -> Score:
    if "M" in text:
        mate = int(text.replace("M", ""))
        return Score(mate=mate)
    return Score(cp=round(float(text) * 100))


def _options(text: str, label: str) -> tuple[tuple[str, str], ...]:
    match = re.search(label + r": (.*?;)(?:,|$)", text)
    assert match is not None
    pairs = [item.strip() for item in match.group(1).split(";") if item.strip()]
    return tuple((p.split("=", 1)[0], p.split("=", 1)[1]) for p in pairs)


def _record(game: chess.pgn.Game) -> GameRecord:
    headers = game.headers
    board = game.board()
    moves: list[MoveRecord] = []
    nodes = list(game.mainline())
    all_fields = [dict(_FIELD.findall(node.comment)) for node in nodes]
    for index, node in enumerate(nodes):
        fields = all_fields[index]
        later = all_fields[index + 2] if index + 2 < len(nodes) else {}
        pv = tuple(fields["pv"].split()) if "pv" in fields else ()
        color = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        san = board.san(node.move)
        board.push(node.move)
        moves.append(
            MoveRecord(
                ply=len(moves) + 1,
                color=color,
                uci=node.move.uci(),
                san=san,
                fen_after=board.fen(),
                move_time_ms=int(fields["mt"]),
                clock_left_ms=int(fields["tl"]),
                depth=int(fields["d"]),
                seldepth=int(fields["sd"]),
                nodes=int(fields["n"]),
                nps=int(fields["s"]),
                score=_score(fields["wv"]),
                pv_san=pv,
                ponder_san=later.get("pd"),
                tbhits=int(fields["tb"]),
                hashfull=round(float(fields["h"]) * 10),
                r50=int(fields["R50"]),
                rd=int(fields["Rd"]),
                rr=int(fields["Rr"]),
            )
        )
    start = headers["GameStartTime"].replace(" UTC", "Z")
    end = headers["GameEndTime"].replace(" UTC", "Z")
    h, m, s = (int(x) for x in headers["GameDuration"].split(":"))
    extra = tuple(
        (tag, headers[tag]) for tag in ("WhiteTimeControl", "BlackTimeControl") if tag in headers
    )
    return GameRecord(
        game_id=GameId.parse(headers["Round"]),
        event=headers["Event"],
        site=headers["Site"],
        white=headers["White"],
        black=headers["Black"],
        result=Result.from_pgn(headers["Result"]),
        termination=Termination(headers.get("Termination", "normal")),
        termination_detail=headers["TerminationDetails"],
        start_time=start,
        end_time=end,
        duration_ms=((h * 60 + m) * 60 + s) * 1000,
        time_control=headers.get("TimeControl", "inf"),
        opening=Opening(name=None, fen=headers["FEN"]),
        moves=tuple(moves),
        white_options=_options(game.comment, "WhiteEngineOptions"),
        black_options=_options(game.comment, "BlackEngineOptions"),
        extra_tags=extra,
    )


def _games(path: Path) -> list[tuple[str, chess.pgn.Game]]:
    text = path.read_text(encoding="utf-8")
    chunks = ["[Event " + chunk for chunk in text.split("[Event ")[1:]]
    return [(chunk, chess.pgn.read_game(io.StringIO(chunk))) for chunk in chunks]  # type: ignore[misc]


@pytest.mark.parametrize("name", ["a_10p_7r_single.pgn", "c_8p_5r_double.pgn"])
def test_writer_reproduces_tcec_sample_games(name: str) -> None:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"{path} not found")
    games = _games(path)
    assert len(games) > 30
    first_original, first_game = games[0]
    assert (
        _ANNOTATION.sub("", game_pgn(_record(first_game)))
        .replace('[Termination "normal"]\n', "")
        .replace('[TimeControl "inf"]\n', "")
        == first_original.rstrip("\n") + "\n\n"
    )
    for original, game in games:
        ours = game_pgn(_record(game))
        ours = _ANNOTATION.sub("", ours)
        dropped = ['[Termination "normal"]']
        if "TimeControl" not in game.headers:
            dropped.append('[TimeControl "inf"]')
        lines = [line for line in ours.split("\n") if line not in dropped]
        expected = original.rstrip("\n") + "\n\n"
        # ph depends on how the engine reported its ponder move (see module
        # docstring); it is checked by hand in test_writer.py instead.
        assert _PH.sub("", "\n".join(lines)) == _PH.sub("", expected), game.headers["Round"]
