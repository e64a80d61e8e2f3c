"""Solve a round's model with HiGHS, to proven optimality, and break ties as the spec says.

Two stages, one HiGHS instance (``../shared/specs/integer-program.md``,
"Unpaired players, ties, determinism"):

1. *Optimum*: maximise the seed's objective over the allowed directed games
   (:mod:`tcecd.pairing.integer_program.model`), every player in at most one
   game. Its value ``V*`` is unique.
2. *Tie-break*: among the pairings worth ``V*``, the spec wants the
   lexicographically smallest list of (white's, black's pairing number) in
   board order (higher score of the two DESC, lower pairing number ASC; a
   prefix is smaller). Found board by board: with the boards chosen so far
   fixed, and every game that would sort before the last of them forbidden
   (else it would become an earlier board), one MIP keeps the objective at
   ``V*`` and minimises the rank of the next board. "Next board" is the chosen
   game of the smallest board key: ``h_k`` (continuous) is 1 once some game of
   key group ``k`` or an earlier one (after the fixed boards) is chosen,
   ``h_k <= h_(k-1) + g_k``, and ``z_e >= y_e - h_(k(e)-1)`` charges the rank
   of the game in the first chosen group only. Games of one key group share
   their lower-numbered player, so a pairing has at most one of them. No next
   board at all costs 0, which is the prefix rule. A step whose current
   solution already has the smallest rank still open, or no further board,
   skips its MIP.

Every answer of the tie-break is a unique number (``V*``, then a minimum rank),
so the pairing returned does not depend on which of several optimal solutions
HiGHS finds: with one thread and a fixed seed the path is reproducible too, but
the output would be the same on any machine even if it were not.

Proven optimality: every objective is integral (weights in half-units, ranks
and binaries), so a MIP gap below 1 proves the optimum (``mip_abs_gap`` 0.5,
``mip_rel_gap`` 0). Any other end -- the time limit, an interrupt, a numerical
failure -- is reported as not optimal and the system raises, never pairing with
a solution that may be worse. The time limit covers the whole round: each MIP
gets what HiGHS's own run clock says is left.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import highspy
import numpy as np
import numpy.typing as npt

from tcecd.pairing.integer_program.model import Game, RoundModel

#: Proven optimal for an integral objective: no solution can be a whole unit better.
MIP_ABS_GAP = 0.5
#: HiGHS's random seed, fixed so a run repeats exactly (the output is unique anyway).
RANDOM_SEED = 0


class Status(enum.Enum):
    """How the solve of a round ended."""

    OPTIMAL = "optimal (proven)"
    EMPTY = "no game allowed (nothing to solve)"
    TIME_LIMIT = "time limit reached before optimality was proven"
    FAILED = "solver failed"


@dataclass(frozen=True, slots=True)
class Solution:
    """The outcome: status, the chosen games in board order (indices into
    ``model.games``), the optimum in half-units, how many MIPs ran and
    HiGHS's last model status (for ``--explain``)."""

    status: Status
    games: tuple[int, ...]
    objective_half: int
    mips: int
    detail: str


class _Budget(Exception):
    """A MIP ended without a proof of optimality."""

    def __init__(self, status: Status, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def solve(model: RoundModel, time_limit_s: float) -> Solution:
    """Stage 1 and stage 2 (module docstring); never raises for a solver failure:
    the status says what happened."""
    if not model.games:
        return Solution(Status.EMPTY, (), 0, 0, "no allowed game")
    try:
        return _Solver(model, time_limit_s).run()
    except _Budget as stop:
        return Solution(stop.status, (), 0, 0, stop.detail)


class _Solver:
    """The HiGHS model: columns ``y`` (one per game), ``h`` (one per key
    group), ``z`` (one per game); rows: one per player (at most one game), the
    objective floor, the ``h`` chain and the ``z`` links."""

    def __init__(self, model: RoundModel, time_limit_s: float) -> None:
        self.model = model
        self.time_limit_s = time_limit_s
        self.mips = 0
        self.detail = ""
        games = model.games
        n = len(games)
        self.n = n
        self.weights = np.array([g.weight for g in games], dtype=np.float64)
        self.white = np.array([g.white for g in games], dtype=np.intp)
        self.black = np.array([g.black for g in games], dtype=np.intp)

        # Key groups in board order; rank = position in (white seed, black seed) order
        # (model.games is sorted that way, so the rank is the index + 1).
        keys = sorted({model.board_key(g) for g in games})
        self.group_of_key = {k: i for i, k in enumerate(keys)}
        self.group = np.array([self.group_of_key[model.board_key(g)] for g in games], dtype=np.intp)
        self.k = len(keys)
        self.rank = np.arange(1, n + 1, dtype=np.float64)

        h = highspy.Highs()
        for name, value in (
            ("output_flag", False),
            ("threads", 1),
            ("random_seed", RANDOM_SEED),
            ("mip_rel_gap", 0.0),
            ("mip_abs_gap", MIP_ABS_GAP),
        ):
            h.setOptionValue(name, value)
        self.h = h
        inf = highspy.kHighsInf
        # Columns: y 0..n-1 (binary), h n..n+k-1 (continuous [0,1]), z after (binary).
        self.h_base = n
        self.z_base = n + self.k
        total = n + self.k + n
        h.addVars(total, np.zeros(total), np.ones(total))
        integer = np.concatenate([np.arange(n), np.arange(self.z_base, total)]).astype(np.int32)
        h.changeColsIntegrality(
            len(integer), integer, np.full(len(integer), highspy.HighsVarType.kInteger)
        )
        rows = _RowBuilder()
        # Each player in at most one game (spec 1, 3, 4).
        by_player: list[list[int]] = [[] for _ in model.players]
        for e, g in enumerate(games):
            by_player[g.white].append(e)
            by_player[g.black].append(e)
        for cols in by_player:
            if cols:
                rows.add(-inf, 1.0, cols, [1.0] * len(cols))
        # The objective floor (row index kept; bounds set after stage 1).
        self.floor_row = rows.add(-inf, inf, list(range(n)), list(self.weights))
        # h_k - h_(k-1) - sum_{e in k} y_e <= 0.
        members: list[list[int]] = [[] for _ in range(self.k)]
        for e in range(n):
            members[int(self.group[e])].append(e)
        for k in range(self.k):
            cols = [self.h_base + k] + members[k]
            vals = [1.0] + [-1.0] * len(members[k])
            if k > 0:
                cols.append(self.h_base + k - 1)
                vals.append(-1.0)
            rows.add(-inf, 0.0, cols, vals)
        # z_e - y_e + h_(k(e)-1) >= 0.
        for e in range(n):
            k = int(self.group[e])
            cols, vals = [self.z_base + e, e], [1.0, -1.0]
            if k > 0:
                cols.append(self.h_base + k - 1)
                vals.append(1.0)
            rows.add(0.0, inf, cols, vals)
        rows.flush(h)
        self.total = total

    def run(self) -> Solution:
        # Stage 1: maximise the objective (HiGHS minimises: costs are -weights).
        costs = np.zeros(self.total)
        costs[: self.n] = -self.weights
        self._set_costs(costs)
        y = self._mip()
        best = int(round(float(self.weights @ y)))
        self.h.changeRowBounds(self.floor_row, float(best), highspy.kHighsInf)

        # Stage 2: the tie-break, board by board.
        chosen: list[int] = []
        used = np.zeros(len(self.model.players), dtype=bool)
        closed = np.zeros(self.n, dtype=bool)  # fixed to 0 so far
        forbidden_below = -1  # key groups <= this are closed to further boards
        current = y
        while True:
            open_games = np.flatnonzero(
                (self.group > forbidden_below) & ~used[self.white] & ~used[self.black]
            )
            nxt = self._next_board(current, open_games)
            if nxt is None:
                break  # no further board: the smallest continuation (a prefix)
            if nxt != int(open_games[0]):  # a smaller next board may exist: ask HiGHS
                current = self._tie_break_mip(forbidden_below)
                nxt = self._next_board(current, open_games)
                if nxt is None:
                    break
            chosen.append(nxt)
            used[self.white[nxt]] = used[self.black[nxt]] = True
            self.h.changeColBounds(nxt, 1.0, 1.0)
            forbidden_below = int(self.group[nxt])
            # Games sorting before this board may no longer be chosen (they would
            # become earlier boards); its own group shares its lower-numbered player.
            newly = np.flatnonzero((self.group <= forbidden_below) & ~closed)
            newly = newly[newly != nxt]
            closed[newly] = True
            if len(newly):
                self.h.changeColsBounds(
                    len(newly), newly.astype(np.int32), np.zeros(len(newly)), np.zeros(len(newly))
                )
        objective = int(round(float(self.weights[chosen].sum()))) if chosen else 0
        if objective != best:  # pragma: no cover - would be a bug in the tie-break
            raise _Budget(Status.FAILED, f"tie-break lost the optimum ({objective} != {best})")
        return Solution(Status.OPTIMAL, tuple(chosen), best, self.mips, self.detail)

    def _next_board(self, y: npt.NDArray[np.float64], open_games: npt.NDArray[np.intp]) -> (
        int | None
    ):
        """The board that comes next in ``y``: the chosen open game of the smallest
        key (one game per key group at most)."""
        picked = open_games[y[open_games] > 0.5]
        if not len(picked):
            return None
        return int(picked[np.argmin(self.group[picked])])

    def _tie_break_mip(self, forbidden_below: int) -> npt.NDArray[np.float64]:
        """Minimise the rank of the next board, the objective held at its optimum."""
        costs = np.zeros(self.total)
        # Only boards after the fixed ones count: earlier groups cost nothing and
        # their h stays 0, so the chain starts again after the last fixed board.
        costs[self.z_base :] = np.where(self.group > forbidden_below, self.rank, 0.0)
        if forbidden_below >= 0:
            cols = np.arange(self.h_base, self.h_base + forbidden_below + 1, dtype=np.int32)
            self.h.changeColsBounds(len(cols), cols, np.zeros(len(cols)), np.zeros(len(cols)))
        self._set_costs(costs)
        return self._mip()

    def _set_costs(self, costs: npt.NDArray[np.float64]) -> None:
        self.h.changeColsCost(self.total, np.arange(self.total, dtype=np.int32), costs)

    def _mip(self) -> npt.NDArray[np.float64]:
        """Run one MIP within what is left of the round's time limit; the ``y`` part
        of a proven optimal solution, rounded (binaries)."""
        left = self.time_limit_s - float(self.h.getRunTime())
        if left <= 0:
            raise _Budget(Status.TIME_LIMIT, f"time limit {self.time_limit_s:g} s used up")
        self.h.setOptionValue("time_limit", left)
        self.h.clearSolver()
        self.h.run()
        self.mips += 1
        status = self.h.getModelStatus()
        self.detail = self.h.modelStatusToString(status)
        if status == highspy.HighsModelStatus.kTimeLimit:
            raise _Budget(
                Status.TIME_LIMIT,
                f"time limit {self.time_limit_s:g} s reached ({self.mips} MIPs run)",
            )
        info = self.h.getInfo()
        gap = abs(info.objective_function_value - info.mip_dual_bound)
        if status != highspy.HighsModelStatus.kOptimal or not gap < 1.0:
            raise _Budget(Status.FAILED, f"HiGHS: {self.detail} (gap {gap:g})")
        values = np.asarray(self.h.getSolution().col_value[: self.n], dtype=np.float64)
        return np.round(values)


class _RowBuilder:
    """Collects rows in compressed-row form and adds them to HiGHS in one call."""

    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.starts: list[int] = []
        self.index: list[int] = []
        self.value: list[float] = []

    def add(self, lower: float, upper: float, cols: Sequence[int], vals: Sequence[float]) -> int:
        self.lower.append(lower)
        self.upper.append(upper)
        self.starts.append(len(self.index))
        self.index.extend(cols)
        self.value.extend(vals)
        return len(self.lower) - 1

    def flush(self, h: highspy.Highs) -> None:
        h.addRows(
            len(self.lower),
            np.array(self.lower),
            np.array(self.upper),
            len(self.index),
            np.array(self.starts, dtype=np.int32),
            np.array(self.index, dtype=np.int32),
            np.array(self.value),
        )


def games_of(model: RoundModel, solution: Solution) -> list[Game]:
    """The solution's games, in board order."""
    return [model.games[e] for e in solution.games]
