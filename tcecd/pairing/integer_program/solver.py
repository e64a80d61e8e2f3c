"""Solve a round's model with HiGHS, to proven optimality, and break ties as the spec says.

The model (:mod:`.model`): one binary ``y_e`` per allowed game, at most one
game per player, maximise the sum of the games' weights. Two stages
(``../shared/specs/integer-program.md``, "Unpaired players, ties, determinism"):

1. *Optimum* ``V*`` (unique). Every solve (:meth:`_Solver._optimum`) starts
   with the LP relaxation, tightened by Edmonds' odd-set inequalities
   (``sum of y_e inside S <= (|S| - 1) / 2``, S an odd set of players) that its
   solution violates, always including S = every player with a game when that
   number is odd. An integral LP optimum is a proof: nothing integral can beat
   the relaxation. Only if the cuts do not make it integral does HiGHS's MIP
   search (branch and bound) run, cuts kept, to a gap below 1.
2. *Tie-break*: among the pairings worth ``V*`` the spec wants the
   lexicographically smallest list of (white's, black's pairing number) in
   board order (the higher score of the two DESC, the lower pairing number
   ASC; a prefix is smaller). It is built board by board. With the boards
   chosen so far fixed, if taking each time the open game of the smallest
   rank (:meth:`_Solver._greedy`) reaches ``V*``, that is the answer: no
   optimal pairing can have a smaller board anywhere. Otherwise the current
   optimal solution proposes the next board (its open game of the smallest
   board key) and every open game of a smaller rank is a *candidate*, tried in
   rank order: with it as the next board (its players taken, every game that
   would sort before it forbidden), is ``V*`` still reachable? A bound from
   the LP duals of stage 1 (:meth:`_Solver._bound`) or the LP answers "no"
   cheaply; a greedy completion reaching ``V*`` answers "yes"; else a full
   solve decides. The first "yes" is the next board, else the proposal is.
   Once a board is fixed, every game sorting before it is closed for good.
   When the current solution has no further board, the pairing is complete:
   nothing is smaller than a prefix.

Every question of the tie-break has one true answer ("is ``V*`` still
reachable"), whichever optimal solution HiGHS happens to find, so the pairing
does not depend on the solver's path: one thread and a fixed seed make the
path reproducible too, but the output would be the same on any machine
without them.

Proven optimality: every objective is integral (weights in half-units), so an
LP or MIP gap below 1 proves the optimum (``mip_abs_gap`` 0.5, ``mip_rel_gap``
0). Any other end -- the time limit, a numerical failure -- is reported as not
optimal and the system raises, never pairing with a solution that may be
worse. The time limit covers the whole round: each HiGHS run gets what is left
by HiGHS's own run clock. Each solve builds a fresh model of the games still
allowed (fixed and forbidden games are left out, not fixed by bounds: HiGHS
1.15 with presolve off mis-solved a MIP with fixed columns while this was
written).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import highspy
import numpy as np
import numpy.typing as npt

from tcecd.pairing.integer_program.model import Game, RoundModel

#: Proven optimal for an integral objective: no solution can be a whole unit better.
MIP_ABS_GAP = 0.5
#: HiGHS's random seed, fixed so a run repeats exactly (the output is unique anyway).
RANDOM_SEED = 0
#: HiGHS presolve for the MIP search (the LPs run without: faster on these models).
PRESOLVE = "on"
#: Slack when comparing a float bound with the integral optimum.
BOUND_TOLERANCE = 1e-3
#: How far from 0 or 1 an LP value may be and still count as integral.
INTEGRAL_TOLERANCE = 1e-6
#: Rounds of odd-set cuts before the MIP search takes over.
MAX_CUT_ROUNDS = 10

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


class Status(enum.Enum):
    """How the solve of a round ended."""

    OPTIMAL = "optimal (proven)"
    EMPTY = "no game allowed (nothing to solve)"
    TIME_LIMIT = "time limit reached before optimality was proven"
    FAILED = "solver failed"


@dataclass(frozen=True, slots=True)
class Solution:
    """The outcome: status, the chosen games in board order (indices into
    ``model.games``), the optimum in half-units, how many LPs and MIP searches
    ran and HiGHS's last word (for ``--explain``)."""

    status: Status
    games: tuple[int, ...]
    objective_half: int
    mips: int
    detail: str
    lps: int = 0


class _Stop(Exception):
    """A MIP ended without a proof of optimality."""

    def __init__(self, status: Status, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def solve(model: RoundModel, time_limit_s: float) -> Solution:
    """Stage 1 and stage 2 (module docstring); a solver failure is not raised:
    the status says what happened."""
    if not model.games:
        return Solution(Status.EMPTY, (), 0, 0, "no allowed game")
    solver = _Solver(model, time_limit_s)
    try:
        return solver.run()
    except _Stop as stop:
        return Solution(stop.status, (), 0, solver.mips, stop.detail, solver.lps)


class _Solver:
    """The round's games as arrays, and the two stages (module docstring); each
    solve is a fresh HiGHS model of the games still allowed."""

    def __init__(self, model: RoundModel, time_limit_s: float) -> None:
        self.model = model
        self.time_limit_s = time_limit_s
        self.spent_s = 0.0
        self.mips = 0
        self.lps = 0
        self.detail = ""
        games = model.games
        self.n = len(games)
        self.players = len(model.players)
        self.weights = np.array([g.weight for g in games], dtype=np.int64)
        self.white = np.array([g.white for g in games], dtype=np.intp)
        self.black = np.array([g.black for g in games], dtype=np.intp)
        keys = sorted({model.board_key(g) for g in games})
        group_of = {k: i for i, k in enumerate(keys)}
        self.group = np.array([group_of[model.board_key(g)] for g in games], dtype=np.intp)
        # Dual values for :meth:`_bound`; zero (a valid, weak choice) until an LP gives some.
        self.u = np.zeros(self.players)
        self.reduced = -self.weights.astype(np.float64)

    def run(self) -> Solution:
        everything = np.ones(self.n, dtype=bool)
        stage_one = self._optimum(everything)
        assert stage_one is not None  # no floor asked: always an answer
        best, current = stage_one
        chosen: list[int] = []
        fixed_weight = 0
        used = np.zeros(self.players, dtype=bool)
        after = -1  # further boards must come from key groups > after
        while True:
            open_mask = (self.group > after) & ~used[self.white] & ~used[self.black]
            greedy = self._greedy(open_mask)
            if fixed_weight + self._weight(greedy) == best:
                chosen += greedy  # the smallest open game each time, and still optimal
                fixed_weight = best
                break
            proposal = self._next_board(current, open_mask)
            if proposal is None:
                break  # the current solution has no further board: a prefix, the smallest
            nxt = proposal
            floor = best - fixed_weight - BOUND_TOLERANCE
            candidates = np.flatnonzero(open_mask[:proposal])  # smaller rank than the proposal
            # A quick bound on all of them at once; survivors get the exact one. The
            # duals may be an earlier step's: if anything survives, sharpen them first.
            survivors = candidates[self._quick_bound(candidates, open_mask, used) >= floor]
            if len(survivors):
                self._lp_duals(open_mask)
                survivors = candidates[self._quick_bound(candidates, open_mask, used) >= floor]
            for candidate in survivors:  # smaller rank first
                c = int(candidate)
                # c as the next board: its players taken, every game sorting before it
                # (or in its key group, which shares its lower-numbered player) out.
                rest = open_mask & (self.group > self.group[c])
                rest &= (self.white != self.white[c]) & (self.white != self.black[c])
                rest &= (self.black != self.white[c]) & (self.black != self.black[c])
                if self._bound(c, rest, used) < floor:
                    continue  # a bound from LP duals shows the optimum is out of reach
                need = best - fixed_weight - int(self.weights[c])
                greedy = self._greedy(rest)
                if self._weight(greedy) == need:
                    nxt, current = c, np.zeros(self.n)
                    current[greedy] = 1.0
                    break
                found = self._optimum(rest, need)
                if found is None or found[0] < need:
                    continue
                nxt, current = c, found[1]
                current[c] = 1.0
                break
            chosen.append(nxt)
            fixed_weight += int(self.weights[nxt])
            used[self.white[nxt]] = used[self.black[nxt]] = True
            after = int(self.group[nxt])
        if fixed_weight != best:  # pragma: no cover - would be a bug in the tie-break
            raise _Stop(Status.FAILED, f"tie-break lost the optimum ({fixed_weight} != {best})")
        return Solution(Status.OPTIMAL, tuple(chosen), best, self.mips, self.detail, self.lps)

    def _greedy(self, allowed: npt.NDArray[np.bool_]) -> list[int]:
        """Boards taken greedily from ``allowed``: each time the open game of the
        smallest rank, then only games of later key groups and free players.
        If this reaches the optimum, it is the tie-break's answer: no optimal
        pairing can have a smaller board at any position (module docstring)."""
        out: list[int] = []
        # A game worth exactly 0 leaves the optimum as it is but can still be a
        # smaller board than the next one; only games worth less never belong.
        mask = allowed & (self.weights >= 0)
        while True:
            idx = np.flatnonzero(mask)
            if not len(idx):
                return out
            g = int(idx[0])
            out.append(g)
            a, b = self.white[g], self.black[g]
            mask &= self.group > self.group[g]
            mask &= (self.white != a) & (self.white != b) & (self.black != a) & (self.black != b)

    def _weight(self, games: list[int]) -> int:
        return int(self.weights[games].sum()) if games else 0

    def _next_board(self, y: FloatArray, open_mask: npt.NDArray[np.bool_]) -> int | None:
        """The board that comes next in ``y``: its open game of the smallest key
        (a solution has at most one game per key group)."""
        picked = np.flatnonzero(open_mask & (y > 0.5))
        if not len(picked):
            return None
        return int(picked[np.argmin(self.group[picked])])

    def _lp_duals(self, allowed: npt.NDArray[np.bool_]) -> None:
        """Dual values of the LP relaxation over ``allowed`` (one per player), for
        :meth:`_bound`. Interior point without crossover: a dual near the centre of
        the optimal face, whose reduced costs vanish on fewer games than a vertex
        dual's."""
        h = self._highs(allowed, integer=False)
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
        self._run(h)
        self.u = np.zeros(self.players)
        if h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
            duals = np.asarray(h.getSolution().row_dual, dtype=np.float64)[: self.players]
            self.u = np.maximum(0.0, -duals)
        self.reduced = self.u[self.white] + self.u[self.black] - self.weights

    def _quick_bound(
        self,
        candidates: IntArray,
        open_mask: npt.NDArray[np.bool_],
        used: npt.NDArray[np.bool_],
    ) -> FloatArray:
        """:meth:`_bound` for many candidates at once, a little weaker: a free
        player's cheapest game is taken among all open games of later key groups,
        also those meeting the candidate's players (a larger set, so a smaller
        loss, so still a bound). ``H[g, p]`` = half the least reduced cost of an
        open game of p in a group after g, by a running minimum over the groups."""
        if not len(candidates):
            return np.zeros(0)
        groups = int(self.group.max()) + 2
        idx = np.flatnonzero(open_mask)
        half = np.full((groups, self.players), np.inf)
        r = self.reduced[idx] / 2.0
        np.minimum.at(half, (self.group[idx], self.white[idx]), r)
        np.minimum.at(half, (self.group[idx], self.black[idx]), r)
        from_group = np.minimum.accumulate(half[::-1], axis=0)[::-1]  # groups >= g
        after = from_group[1:]  # groups > g
        charged = np.minimum(self.u[None, :], after)
        free = ~used
        loss_all = charged[:, free].sum(axis=1)
        g = self.group[candidates]
        a, b = self.white[candidates], self.black[candidates]
        loss = self.reduced[candidates] + loss_all[g] - charged[g, a] - charged[g, b]
        result: FloatArray = float(self.u[free].sum()) - loss
        return result

    def _bound(self, c: int, rest: npt.NDArray[np.bool_], used: npt.NDArray[np.bool_]) -> float:
        """An upper bound on any pairing of the players not ``used`` made of ``c``
        and games from ``rest``, from LP duality. For any values ``u_p`` and
        pairing M: ``w(M) = sum_{p in M} u_p - sum_{e in M} r_e`` with ``r_e = u_a
        + u_b - w_e``. A free player either is unpaired (loses ``u_p`` from ``sum
        u``) or takes a game of ``rest`` (half its ``r_e`` charged to it), so
        ``w(M) <= sum u - r_c - sum_p min(u_p, min r_e / 2)``. It holds for any
        ``u`` (zero for used players); the step's LP duals make it sharp."""
        free = ~used
        free[self.white[c]] = free[self.black[c]] = False
        half = np.full(self.players, np.inf)
        idx = np.flatnonzero(rest)
        r = self.reduced[idx] / 2.0
        np.minimum.at(half, self.white[idx], r)
        np.minimum.at(half, self.black[idx], r)
        loss = float(self.reduced[c]) + float(np.minimum(self.u, half)[free].sum())
        return float(self.u[~used].sum()) - loss

    def _highs(self, allowed: npt.NDArray[np.bool_], *, integer: bool) -> highspy.Highs:
        """A HiGHS model of the ``allowed`` games (all of them, even those worth
        nothing), each player in at most one: maximise the objective."""
        idx = np.flatnonzero(allowed)
        n = len(idx)
        h = highspy.Highs()  # type: ignore[no-untyped-call]  # highspy leaves __init__ untyped
        for name, value in (
            ("output_flag", False),
            ("threads", 1),
            ("random_seed", RANDOM_SEED),
            ("presolve", PRESOLVE),
            ("mip_rel_gap", 0.0),
            ("mip_abs_gap", MIP_ABS_GAP),
        ):
            h.setOptionValue(name, value)
        cols = np.arange(n, dtype=np.int32)
        h.addVars(n, np.zeros(n), np.ones(n))
        if integer:
            h.changeColsIntegrality(n, cols, np.full(n, highspy.HighsVarType.kInteger))
        h.changeColsCost(n, cols, -self.weights[idx].astype(np.float64))  # HiGHS minimises
        # One row per player: at most one game (spec 1, 3, 4), in CSR form.
        ends = np.concatenate([self.white[idx], self.black[idx]])
        col_of = np.concatenate([cols, cols])
        order = np.argsort(ends, kind="stable")
        counts = np.bincount(ends, minlength=self.players)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        h.addRows(
            self.players,
            np.full(self.players, -highspy.kHighsInf),
            np.ones(self.players),
            2 * n,
            starts,
            col_of[order].astype(np.int32),
            np.ones(2 * n),
        )
        # The odd-set inequality of all the players who have a game: no more than
        # floor(|V| / 2) games. Valid for every pairing; it closes the LP's gap at
        # once on an odd field where every game is worth the same (round 1).
        people = int(np.count_nonzero(counts))
        if people % 2:
            h.addRow(-highspy.kHighsInf, float(people // 2), n, cols, np.ones(n))
        return h

    def _optimum(
        self, allowed: npt.NDArray[np.bool_], need: int | None = None
    ) -> tuple[int, FloatArray] | None:
        """The proven optimum (integer, half-units) over the ``allowed`` games and
        an optimal solution (over all games, 0 outside ``allowed``); None as soon as
        a bound shows the optimum is below ``need``.

        The LP relaxation first, tightened by Edmonds' odd-set inequalities
        (``sum of y_e inside S <= (|S| - 1) / 2`` for an odd set S of players) that
        its solution violates: the components of its fractional games are the sets
        tried. An integral LP optimum is the MIP optimum; a fractional one that no
        such cut removes goes to HiGHS's MIP search, cuts included (they are valid
        for every pairing, so they only speed the search up)."""
        y = np.zeros(self.n, dtype=np.float64)
        mask = allowed & (self.weights > 0)  # a game worth <= 0 never helps
        if not mask.any():
            return 0, y
        idx = np.flatnonzero(mask)
        h = self._highs(mask, integer=False)
        h.setOptionValue("presolve", "off")  # faster on these LPs, and gives a vertex
        for _ in range(MAX_CUT_ROUNDS):
            self._run(h)
            self.lps += 1
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                break
            if need is not None and -h.getInfo().objective_function_value < need - BOUND_TOLERANCE:
                return None
            values = np.asarray(h.getSolution().col_value, dtype=np.float64)
            rounded = np.round(values)
            if np.abs(values - rounded).max() <= INTEGRAL_TOLERANCE:
                if not self.mips:
                    self.detail = "integral LP optimum"
                y[idx] = rounded
                return int(self.weights[idx] @ (rounded > 0.5)), y
            cuts = self._odd_set_cuts(idx, values)
            if not cuts:
                break
            for cols in cuts:
                h.addRow(
                    -highspy.kHighsInf,
                    float((self._players_in(idx[cols]) - 1) // 2),
                    len(cols),
                    cols.astype(np.int32),
                    np.ones(len(cols)),
                )
        # The MIP search, cuts kept.
        n = len(idx)
        h.setOptionValue("presolve", PRESOLVE)
        h.changeColsIntegrality(
            n, np.arange(n, dtype=np.int32), np.full(n, highspy.HighsVarType.kInteger)
        )
        self._run(h)
        self.mips += 1
        status = h.getModelStatus()
        self.detail = h.modelStatusToString(status)
        info = h.getInfo()
        gap = abs(info.objective_function_value - info.mip_dual_bound)
        if status != highspy.HighsModelStatus.kOptimal or not gap < 1.0:
            raise _Stop(Status.FAILED, f"HiGHS: {self.detail} (gap {gap:g})")
        y[idx] = np.round(np.asarray(h.getSolution().col_value, dtype=np.float64))
        return int(self.weights[idx] @ (y[idx] > 0.5)), y

    def _run(self, h: highspy.Highs) -> None:
        """Run HiGHS within what is left of the round's time limit."""
        left = self.time_limit_s - self.spent_s
        if left <= 0:
            raise _Stop(Status.TIME_LIMIT, f"time limit {self.time_limit_s:g} s used up")
        h.setOptionValue("time_limit", left)
        h.run()
        self.spent_s += float(h.getRunTime())
        if h.getModelStatus() == highspy.HighsModelStatus.kTimeLimit:
            raise _Stop(
                Status.TIME_LIMIT,
                f"time limit {self.time_limit_s:g} s reached "
                f"after {self.lps} LPs and {self.mips} MIPs",
            )

    def _players_in(self, games: IntArray) -> int:
        return len(np.union1d(self.white[games], self.black[games]))

    def _odd_set_cuts(self, idx: IntArray, values: FloatArray) -> list[IntArray]:
        """Odd-set inequalities the LP solution ``values`` (over games ``idx``)
        violates: for each connected component of its fractional games with an odd
        number of players, the columns of all games inside it, if their sum
        exceeds ``(|S| - 1) / 2``."""
        fractional = np.flatnonzero(
            (values > INTEGRAL_TOLERANCE) & (values < 1 - INTEGRAL_TOLERANCE)
        )
        parent = {
            int(p): int(p) for k in fractional for p in (self.white[idx[k]], self.black[idx[k]])
        }

        def find(p: int) -> int:
            while parent[p] != p:
                parent[p] = parent[parent[p]]
                p = parent[p]
            return p

        for k in fractional:
            a, b = find(int(self.white[idx[k]])), find(int(self.black[idx[k]]))
            if a != b:
                parent[max(a, b)] = min(a, b)
        members: dict[int, list[int]] = {}
        for p in parent:
            members.setdefault(find(p), []).append(p)
        cuts = []
        for group in members.values():
            if len(group) % 2 == 0:
                continue
            inside = np.zeros(self.players, dtype=bool)
            inside[group] = True
            cols = np.flatnonzero(inside[self.white[idx]] & inside[self.black[idx]])
            if values[cols].sum() > (len(group) - 1) // 2 + INTEGRAL_TOLERANCE:
                cuts.append(cols)
        return cuts


def games_of(model: RoundModel, solution: Solution) -> list[Game]:
    """The solution's games, in board order."""
    return [model.games[e] for e in solution.games]
