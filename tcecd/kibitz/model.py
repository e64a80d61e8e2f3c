"""What a kibitzer analyses, and what it reports. Pure.

* :class:`RunningGames` follows the event stream's games (``GameStarted``,
  ``MovePlayed``, ``GameFinished``) and answers which position the kibitzer of
  board N analyses: the current position of the N-th game of the playing
  order still running (:meth:`RunningGames.position`), or None between games.
* :func:`kibitzer_report` turns a search report (python-chess's ``info``
  dictionary for the analysed board) into a
  :class:`~tcecd.events.KibitzerReport`: the score and WDL from White's point
  of view, the PV in SAN (legal moves only).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import chess

from tcecd.config.engines import OptionValue
from tcecd.domain import GameId
from tcecd.events import GameStarted, KibitzerReport, MovePlayed
from tcecd.game.fen import fen
from tcecd.game.record import Opening
from tcecd.runner.game import score_white
from tcecd.runner.pv import pv_san


@dataclass(frozen=True, slots=True)
class Position:
    """A position of a running game: its start and the moves made since."""

    game_id: GameId
    opening: Opening
    #: UCI moves from the opening's start position, its book moves included.
    moves: tuple[str, ...] = ()

    @property
    def ply(self) -> int:
        """Plies made from the opening's start position (:attr:`MoveRecord.ply`
        of the last one)."""
        return len(self.moves)

    def board(self) -> chess.Board:
        """The position, with its moves on the board's stack (an engine is sent
        the start position and the moves, and sees repetitions)."""
        board = self.opening.start_board()
        for uci in self.moves:
            board.push_uci(uci)
        return board


@dataclass
class _Game:
    opening: Opening
    moves: list[str]


class RunningGames:
    """The games being played and their moves (see the module docstring)."""

    def __init__(self) -> None:
        self._games: dict[GameId, _Game] = {}

    def started(self, event: GameStarted) -> None:
        """A game (re)starts from its opening's start position."""
        self._games[event.game_id] = _Game(event.opening, [])

    def moved(self, event: MovePlayed) -> None:
        """One ply of a running game (book plies the stream left out are taken
        from the opening, as the live files take them)."""
        game = self._games.get(event.game_id)
        if game is None:
            return
        ply = event.move.ply
        book = game.opening.moves
        while len(game.moves) < ply - 1 and len(game.moves) < len(book):
            game.moves.append(book[len(game.moves)])
        if len(game.moves) < ply - 1:
            return  # a gap the opening does not fill: never the runner's stream
        del game.moves[ply - 1 :]
        game.moves.append(event.move.uci)

    def finished(self, game_id: GameId) -> None:
        self._games.pop(game_id, None)

    def running(self) -> list[GameId]:
        """The running games in playing order."""
        return sorted(self._games, key=lambda gid: (gid.round, gid.number))

    def position(self, board: int = 1) -> Position | None:
        """The current position of the ``board``-th running game of the playing
        order (1: the first), None when fewer games run."""
        running = self.running()
        if not 1 <= board <= len(running):
            return None
        gid = running[board - 1]
        game = self._games[gid]
        return Position(gid, game.opening, tuple(game.moves))


def describe(options: Mapping[str, OptionValue]) -> str:
    """The kibitzer's settings as TCEC's viewer shows them beside its name
    (``desc``): its threads and hash, ``"Threads 4, Hash 1024"``; ``""`` when
    its definition sets neither."""
    return ", ".join(f"{name} {options[name]}" for name in ("Threads", "Hash") if name in options)


def _int(info: Mapping[str, Any], key: str) -> int | None:
    value = info.get(key)
    return None if value is None else int(value)


def kibitzer_report(
    index: int, engine: str, desc: str, position: Position, board: chess.Board,
    info: Mapping[str, Any],
) -> KibitzerReport | None:  # fmt: skip
    """The report of kibitzer ``index`` for its search of ``board`` (the
    ``position``'s board), from python-chess's merged ``info``; None before the
    engine gave a score."""
    if info.get("score") is None:
        return None
    moves: list[chess.Move] = list(info.get("pv") or ())
    pv = pv_san(board, moves[0], [m.uci() for m in moves]) if moves else ()
    wdl = info.get("wdl")
    white_wdl = None
    if wdl is not None:
        w = wdl.white()
        white_wdl = (int(w.wins), int(w.draws), int(w.losses))
    elapsed = info.get("time")
    return KibitzerReport(
        kibitzer=index,
        engine=engine,
        desc=desc,
        game_id=position.game_id,
        ply=position.ply,
        fen=fen(board),
        score=score_white(info, board.turn),
        depth=_int(info, "depth"),
        seldepth=_int(info, "seldepth"),
        nodes=_int(info, "nodes"),
        nps=_int(info, "nps"),
        tbhits=_int(info, "tbhits"),
        hashfull=_int(info, "hashfull"),
        time_ms=None if elapsed is None else round(float(elapsed) * 1000),
        wdl=white_wdl,
        pv_san=pv,
        pv_uci=tuple(m.uci() for m in moves[: len(pv)]),
    )
