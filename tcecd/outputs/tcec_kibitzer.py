"""TCEC's kibitzer files, from kibitzer reports. Pure.

TCEC's viewer shows two kibitzers (../shared/specs/tcec-formats.md, "What
TCEC's web viewer reads"): the current search of each in ``data.json`` and
``data1.json`` (socket.io ``liveeval``/``liveeval1``), and its history over
the game in ``liveeval.json`` and ``liveeval1.json`` (``livechart``/
``livechart1``): ``{engine, desc, round, pv, eval, depth, nodes, speed,
tbhits, wdl}``, the history as ``{engine, desc, round, moves: [...]}``. The
viewer (``update_live_eval`` in tcecgui's js/game.js) decides the details:

* ``round`` is the game's ``Round`` tag (``"r.g"``): a document of another
  round is ignored (old data);
* ``pv`` is numbered SAN (``"28. Rb6 Kh7 29. Rb8"``, ``"27...Rd7 28. Rb6"``):
  the viewer reads the analysed ply from its first number and dots;
* ``eval`` is from White's point of view in ``data.json``; in the history it is
  the side to move's, since the viewer turns the entries of positions with
  Black to move around (``if (real & 1) move['eval'] = invert_eval(...)``);
  written as our PGN's ``wv`` (``"0.27"``, ``"M5"``, ``"-M3"``);
* ``depth`` is ``"d/sd"``, ``speed`` a text (``"33kn/s"``), ``wdl``
  ``"W D L"`` in permille (White's point of view), unknown values left out.

:class:`KibitzerDocuments` keeps one kibitzer's two documents: the latest
report, and one history entry per analysed ply of the game (the latest
report of that ply), started afresh when the kibitzer follows another game.
Reports without a PV are not shown (the viewer needs its ply).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tcecd.events import KibitzerReport
from tcecd.game.record import Score

JsonDict = dict[str, Any]

#: The files of kibitzer 0 and 1: (current search, history).
FILES = (("data.json", "liveeval.json"), ("data1.json", "liveeval1.json"))


def numbered_pv(fen: str, sans: Sequence[str]) -> str:
    """The PV as numbered SAN from the position ``fen``: ``"28. Rb6 Kh7 29. Rb8"``,
    or with Black to move ``"27...Rd7 28. Rb6"``."""
    fields = fen.split()
    white = fields[1:2] != ["b"]
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    out: list[str] = []
    for i, san in enumerate(sans):
        if white:
            out.append(f"{number}. {san}")
        else:
            out.append(f"{number}...{san}" if i == 0 else san)
            number += 1
        white = not white
    return " ".join(out)


def speed(nps: int | None) -> str | None:
    """Nodes per second as TCEC shows them: ``"850n/s"``, ``"33kn/s"``, ``"12.3Mn/s"``."""
    if nps is None:
        return None
    if nps < 1000:
        return f"{nps}n/s"
    if nps < 10_000_000:
        return f"{nps // 1000}kn/s"
    return f"{nps / 1_000_000:.1f}Mn/s"


def _side_to_move(score: Score, fen: str) -> Score:
    """``score`` (White's view) from the side to move's view in ``fen``."""
    if fen.split()[1:2] != ["b"]:
        return score
    return Score(cp=None if score.cp is None else -score.cp,
                 mate=None if score.mate is None else -score.mate)  # fmt: skip


def kibitzer_entry(report: KibitzerReport, *, history: bool = False) -> JsonDict | None:
    """One kibitzer document's search fields (``data.json``; with ``history``,
    an entry of ``liveeval.json``'s ``moves``); None without a PV."""
    if not report.pv_san:
        return None
    score = report.score
    if score is not None and history:
        score = _side_to_move(score, report.fen)
    depth = None
    if report.depth is not None:
        depth = f"{report.depth}/{report.seldepth if report.seldepth is not None else report.depth}"
    doc: JsonDict = {
        "engine": report.engine,
        "pv": numbered_pv(report.fen, report.pv_san),
        "eval": None if score is None else score.pgn(),
        "depth": depth,
        "nodes": report.nodes,
        "speed": speed(report.nps),
        "tbhits": report.tbhits,
        "wdl": None if report.wdl is None else " ".join(str(x) for x in report.wdl),
    }
    if not history:
        doc = {"engine": report.engine, "desc": report.desc or None,
               "round": str(report.game_id), **{k: v for k, v in doc.items() if k != "engine"}}
    return {k: v for k, v in doc.items() if v is not None}


class KibitzerDocuments:
    """``data.json`` and ``liveeval.json`` of one kibitzer (module docstring)."""

    def __init__(self) -> None:
        self.last: KibitzerReport | None = None
        self.current: JsonDict | None = None
        #: The history's entries by analysed ply, for :attr:`game`.
        self.moves: dict[int, JsonDict] = {}
        self.game: str | None = None

    def add(self, report: KibitzerReport) -> bool:
        """Take a report; False when it changes neither document (no PV)."""
        current = kibitzer_entry(report)
        entry = kibitzer_entry(report, history=True)
        if current is None or entry is None:
            return False
        game = str(report.game_id)
        if game != self.game:
            self.game, self.moves = game, {}
        self.last, self.current = report, current
        self.moves[report.ply] = entry
        return True

    def data(self) -> JsonDict | None:
        """``data.json`` (None before a report)."""
        return self.current

    def history(self) -> JsonDict | None:
        """``liveeval.json``: the game's entries in ply order (None before a report)."""
        last = self.last
        if last is None:
            return None
        doc: JsonDict = {"engine": last.engine, "desc": last.desc or None, "round": self.game,
                         "moves": [self.moves[ply] for ply in sorted(self.moves)]}  # fmt: skip
        return {k: v for k, v in doc.items() if v is not None}
