#!/usr/bin/env python3
"""The error cases of the contract test, made from the recorded transcripts.

``.venv/bin/python tests/runner/contract/variants.py`` rewrites these files of
``transcripts/`` from the recordings (``record.py``) next to them:

- ``uci-chunks``: Stockfish's game with each move written whole, in one write, or with
  every line cut in two (the stdout reader's three paths);
- ``uci-illegal``: White's second move a well-formed illegal one (``a1a5``);
- ``uci-garbage``: junk lines, an ``info`` line that does not parse and a malformed
  ``bestmove``, all in one write;
- ``uci-crash``: the engine dies in the middle of its second search, lines cut in two;
- ``uci-timeout``: the second search never ends until ``stop`` (the driver gives up),
  its late ``bestmove`` must not be taken for the next move, which is asked again;
- ``uci-chess960-castling``: from a Chess960 position where White can castle, White
  castles (``g1h1``, king takes rook), then two more moves;
- ``xboard-illegal``, ``xboard-crash``: HoiChess's game with an illegal move, and a
  crash in the middle of a search.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import chess

HERE = Path(__file__).resolve().parent / "transcripts"


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    return doc


def save(name: str, doc: dict[str, Any]) -> None:
    (HERE / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def info(move: str, depth: int) -> str:
    return (f"info depth {depth} seldepth {depth + 1} multipv 1 score cp {10 * depth} "
            f"nodes {100 * depth} nps 50000 hashfull 0 tbhits 0 time {depth} pv {move}")


def main() -> None:
    sf = load("uci-stockfish-standard")
    moves = sf["moves"]

    chunks = copy.deepcopy(sf)
    for i, entry in enumerate(chunks["moves"]):
        entry["write"] = ("joined", "split", "lines", "split")[i % 4]
    save("uci-chunks", chunks)

    illegal = copy.deepcopy(sf)
    third = illegal["moves"][2]["lines"]
    third[-1] = "bestmove a1a5"  # the rook through its own pawn
    illegal["moves"] = illegal["moves"][:3]
    save("uci-illegal", illegal)

    garbage = copy.deepcopy(sf)
    garbage["moves"] = [moves[0], {"write": "joined", "lines": [
        "@@@ this is not UCI @@@", "info depth banana score cp", "bestmove !!garbage!!"]}]
    save("uci-garbage", garbage)

    crash = copy.deepcopy(sf)
    crash["moves"] = [moves[0], {"write": "split", "lines": moves[1]["lines"][:3], "exit": 3}]
    save("uci-crash", crash)

    timeout = copy.deepcopy(sf)
    late = moves[1]["lines"]
    timeout["moves"] = [moves[0], {"lines": late[:2], "hang": late[2:]}, moves[1], moves[2]]
    save("uci-timeout", timeout)

    c960 = load("uci-stockfish-chess960")
    board = chess.Board(c960["fen"], chess960=True)
    castle = chess.Move.from_uci("g1h1")
    assert board.is_castling(castle)
    assert castle in board.legal_moves
    played: list[dict[str, Any]] = []
    for depth in (4, 5, 6):
        move = castle if not played else sorted(board.legal_moves, key=lambda m: m.uci())[0]
        text = board.uci(move)  # Chess960: the king takes its rook
        played.append({"lines": [info(text, depth), f"bestmove {text}"]})
        board.push(move)
    c960 = copy.deepcopy(c960)
    c960["moves"] = played
    save("uci-chess960-castling", c960)

    hoi = load("xboard-hoichess-standard")
    xi = copy.deepcopy(hoi)
    xi["moves"] = [hoi["moves"][0], {"lines": [*hoi["moves"][1]["lines"][:-1], "move a8a3"]}]
    save("xboard-illegal", xi)
    xc = copy.deepcopy(hoi)
    xc["moves"] = [hoi["moves"][0], {"write": "split", "lines": hoi["moves"][1]["lines"][:2],
                                     "exit": 3}]  # fmt: skip
    save("xboard-crash", xc)


if __name__ == "__main__":
    main()
