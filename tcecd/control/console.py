"""The daemon's side of the console: decide a command, record it, apply it.

:meth:`Console.handle` takes one payload from the ``control`` topic and
returns the audit entry it answered with. In order, and one command at a
time (under the runner's lock for durable steps, so a command never lands in
the middle of a commit or a pairing):

1. the payload is checked (:func:`~tcecd.control.protocol.parse_command`);
2. a command id already recorded is answered again with its recorded answer
   (applied once, answered twice); an id reused for another command is refused;
3. the command is decided against the event as it stands: a refusal says why
   (no such game or engine, a result for a finished game, ...) and changes
   nothing;
4. the command, accepted or refused, is recorded with what it does to a game
   (:meth:`~tcecd.daemon.recorder.Recorder.command`: one transaction), which
   also emits its reply, the audit log and the facts it decided;
5. only then is it applied to the run: a game stopped, the scheduler paused,
   resized or told to play a game again, an engine's definition replaced.

So an acknowledged command is durable, and a resumed daemon holds to it (the
facts are folded into the event state; an adjudicated game not yet recorded
is recorded from the store, not played again).
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tcecd.config.engines import EngineConfig
from tcecd.control.protocol import (
    AdjudicateArgs,
    Command,
    ConcurrencyArgs,
    ReasonArgs,
    Rejected,
    ReplaceArgs,
    RestartArgs,
    WithdrawArgs,
    parse_command,
)
from tcecd.domain import GameId, Result, Termination
from tcecd.events import ControlEntry
from tcecd.store.console import ABORTED, ADJUDICATED, StoredAttempt
from tcecd.wallclock import utc_now

if TYPE_CHECKING:
    from tcecd.daemon.runner import EventRunner, GameHandle

#: Terminations of a game an engine's fault ended: such a finished game may be
#: played again (``restart-game``). A forfeit was never played.
FAULT_ENDINGS = frozenset({
    Termination.ABANDONED, Termination.STALLED, Termination.ILLEGAL_MOVE,
    Termination.TIME_FORFEIT,
})  # fmt: skip
#: The PGN ``TerminationDetails`` of an operator's result: TCEC's viewer shows it
#: as a normal ending (../shared/specs/tcec-formats.md, ``TERMINATION_NORMALS``).
MANUAL_ADJUDICATION = "Manual adjudication"
#: How many audit entries ``status`` returns.
STATUS_AUDIT = 20


class Refused(Exception):
    """A command that cannot be applied: the message says why."""


@dataclass
class Decision:
    """What an accepted command does: its effect (the reply), what the store
    records with it, and what is then done to the run (``apply``)."""

    effect: dict[str, object]
    attempt: StoredAttempt | None = None
    void: GameId | None = None
    apply: Callable[[], None] | None = None


class Console:
    """Decides, records and applies console commands (module docstring).

    ``stop`` is what the first SIGTERM does (the daemon passes its handler)."""

    def __init__(
        self,
        runner: EventRunner,
        *,
        stop: Callable[[], None],
        log: Any,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.runner = runner
        self.stop = stop
        self.log = log
        self.clock = clock

    async def handle(self, payload: bytes, *, retained: bool = False) -> ControlEntry:
        """Answer one payload of the ``control`` topic (module docstring)."""
        parsed = parse_command(payload)
        if retained and isinstance(parsed, Command):
            # A retained command would be given again to every new subscription.
            parsed = Rejected(parsed.id, parsed.name, "a retained command is not accepted "
                              "(publish it without the retain flag)", parsed.args_json())
        async with self.runner.step:
            return await self._handle(parsed)

    async def _handle(self, parsed: Command | Rejected) -> ControlEntry:
        recorder = self.runner.recorder
        received = self.clock()
        if isinstance(parsed, Rejected):
            args = parsed.args
            entry = ControlEntry(0, parsed.id, received, parsed.name, args, False, parsed.error)
        else:
            args = parsed.args_json()
            entry = ControlEntry(0, parsed.id, received, parsed.name, args, True)
        if entry.id is not None:
            known = recorder.store.command(entry.id)
            if known is not None:
                if (known.command, known.args) == (entry.command, entry.args):
                    recorder.answer_again(known)
                    return known
                clash = dataclasses.replace(
                    entry, ok=False, error=f"command id {entry.id!r} was already used by "
                    f"another command ({known.command})")  # fmt: skip
                recorder.answer_again(clash)
                return clash
        decision: Decision | None = None
        if isinstance(parsed, Command):
            try:
                decision = self._decide(parsed)
            except Refused as why:
                entry = dataclasses.replace(entry, ok=False, error=str(why))
            else:
                entry = dataclasses.replace(entry, effect=decision.effect)
        recorded = await recorder.command(
            entry,
            attempt=None if decision is None else decision.attempt,
            void=None if decision is None else decision.void,
            then=None if decision is None else decision.apply,
        )
        level = self.log.info if recorded.ok else self.log.warning
        level("console command " + ("applied" if recorded.ok else "refused"), id=recorded.id,
              command=recorded.command, args=recorded.args, error=recorded.error)  # fmt: skip
        return recorded

    # -- deciding ------------------------------------------------------------------------

    def _decide(self, cmd: Command) -> Decision:
        state = self.runner.recorder.state
        if cmd.name == "status":
            return Decision(self.status())
        if state.finished:
            raise Refused("the event is over")
        args = cmd.args
        if isinstance(args, ReasonArgs):
            if cmd.name == "stop":
                return Decision({"stopping": True}, apply=self.stop)
            paused = cmd.name == "pause"
            return Decision(
                {"paused": paused, "was_paused": state.paused},
                apply=lambda: self.runner.scheduler.set_paused(paused),
            )
        if isinstance(args, ConcurrencyArgs):
            was = self.runner.scheduler.concurrency
            n = args.concurrency
            return Decision({"concurrency": n, "was": was},
                            apply=lambda: self.runner.scheduler.set_concurrency(n))  # fmt: skip
        if isinstance(args, RestartArgs):
            return self._restart(GameId.parse(args.game), args.reason)
        if isinstance(args, AdjudicateArgs):
            return self._adjudicate(GameId.parse(args.game), Result.from_pgn(args.result),
                                    args.reason)  # fmt: skip
        if isinstance(args, WithdrawArgs):
            return self._withdraw(args.engine, args.reason)
        if isinstance(args, ReplaceArgs):
            return self._replace(args)
        raise Refused(f"unknown command {cmd.name!r}")  # (parse_command knows them all)

    def status(self) -> dict[str, object]:
        """Where the event stands: the ``status`` command's effect (its answer
        adds the latest audit entries: :func:`status_audit`; they are not
        recorded again with every ``status``)."""
        runner = self.runner
        state = runner.recorder.state
        current = state.first_open
        if current is None:
            current = state.rounds[-1] if state.rounds else 0
        return {
            "round": current,
            "rounds": runner.fmt.total_rounds(state),
            "running": [str(g) for g in sorted(runner.running, key=_order)
                        if runner.running[g].began is not None],
            "paused": runner.scheduler.paused,
            "stopping": runner.stop_requested(),
            "finished": state.finished,
            "concurrency": runner.scheduler.concurrency,
            "games_finished": len(state.results),
            "withdrawn": {e: {"round": r, "reason": why}
                          for e, (r, why) in sorted(state.withdrawn.items())},
            "replaced": {e: shlex.join(runner.engines[e].command)
                         for e in sorted(state.replaced) if e in runner.engines},
        }  # fmt: skip

    def _game(self, gid: GameId) -> None:
        if self.runner.recorder.state.game(gid) is None:
            raise Refused(f"no such game: {gid} is not in the schedule")

    def _handle_of(self, gid: GameId) -> GameHandle | None:
        handle = self.runner.running.get(gid)
        return handle if handle is not None and handle.began is not None else None

    def _not_being_recorded(self, gid: GameId) -> None:
        state = self.runner.recorder.state
        if gid in self.runner.ended or (gid in state.adjudicated and gid not in state.results):
            raise Refused(f"game {gid} has ended and its result is being recorded; "
                          "try again once it is")  # fmt: skip

    def _restart(self, gid: GameId, reason: str) -> Decision:
        self._game(gid)
        self._not_being_recorded(gid)
        runner = self.runner
        state = runner.recorder.state
        handle = self._handle_of(gid)
        if handle is not None:
            record = runner.partial_record(handle, Result.UNFINISHED, Termination.UNTERMINATED,
                                           f"restarted by the operator: {reason}")  # fmt: skip
            return Decision(
                {"game": str(gid), "voided": False, "plies": len(handle.moves)},
                attempt=_attempt(gid, ABORTED, reason, record),
                apply=lambda: handle.stop(_interrupt("restart")),
            )
        done = state.results.get(gid)
        if done is None:
            raise Refused(f"game {gid} has not started")
        if state.finished:
            raise Refused(f"game {gid} cannot be played again: the event is over")
        if done.termination not in FAULT_ENDINGS:
            raise Refused(f"game {gid} is finished ({done.result.value}, "
                          f"{done.termination.value}); only a game an engine's fault "
                          "ended can be played again")  # fmt: skip
        decided = runner.fmt.decided_from(state, gid)
        if decided is not None:
            raise Refused(f"game {gid} cannot be played again: {decided}")
        return Decision(
            {"game": str(gid), "voided": True, "result": done.result.value,
             "termination": done.termination.value},
            void=gid,
            apply=lambda: runner.scheduler.forget(gid),
        )  # fmt: skip

    def _adjudicate(self, gid: GameId, result: Result, reason: str) -> Decision:
        self._game(gid)
        state = self.runner.recorder.state
        done = state.results.get(gid)
        if done is not None:
            raise Refused(f"game {gid} is already finished ({done.result.value}); "
                          "only a game being played can be adjudicated")  # fmt: skip
        self._not_being_recorded(gid)
        handle = self._handle_of(gid)
        if handle is None:
            raise Refused(f"game {gid} is not being played")
        record = self.runner.partial_record(
            handle, result, Termination.ADJUDICATION, MANUAL_ADJUDICATION,
            extra=(("ManualAdjudication", reason),),
        )  # fmt: skip
        return Decision(
            {"game": str(gid), "result": result.value, "plies": len(record.moves)},
            attempt=_attempt(gid, ADJUDICATED, reason, record),
            apply=lambda: handle.stop(_interrupt("adjudicate", record)),
        )

    def _engine(self, name: str) -> EngineConfig:
        engine = self.runner.engines.get(name)
        if engine is None:
            known = ", ".join(sorted(self.runner.engines))
            raise Refused(f"no such engine: {name!r} (the event's: {known})")
        state = self.runner.recorder.state
        if name in state.withdrawn:
            raise Refused(f"engine {name!r} was already withdrawn")
        if name in state.disqualified:
            raise Refused(f"engine {name!r} is disqualified")
        return engine

    def _withdraw(self, name: str, reason: str) -> Decision:
        self._engine(name)
        state = self.runner.recorder.state
        current = state.first_open
        if current is None:
            current = (state.rounds[-1] + 1) if state.rounds else 1
        playing = [h for g, h in self.runner.running.items()
                   if name in (h.job.white.name, h.job.black.name)]  # fmt: skip

        def apply() -> None:
            for handle in playing:  # their games are forfeits now
                handle.stop(_interrupt("withdraw"))

        return Decision(
            {"engine": name, "round": current,
             "stopped": sorted(str(h.job.game_id) for h in playing)},
            apply=apply,
        )  # fmt: skip

    def _replace(self, args: ReplaceArgs) -> Decision:
        current = self._engine(args.engine)
        if args.command is None and not args.options:
            raise Refused("replace: give a new command, options, or both")
        data = current.model_dump(mode="json")
        if args.command is not None:
            from tcecd.config.load import resolve_command

            data["command"] = list(resolve_command(args.command))
        if args.options:
            data["options"] = {**data.get("options", {}), **args.options}
        try:
            new = EngineConfig.model_validate(data)
        except ValidationError as exc:
            err = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(p) for p in err["loc"])
            raise Refused(f"replace {args.engine}: {where}: "
                          f"{str(err['msg']).removeprefix('Value error, ')}") from None
        if args.command is not None:
            self._check_program(new)
        if new == current:
            raise Refused(f"replace {args.engine}: the definition is the one playing now")
        runner = self.runner
        return Decision(
            {"engine": args.engine, "definition": new.model_dump(mode="json"),
             "from": "its next game"},
            apply=lambda: runner.replace_engine(new),
        )  # fmt: skip

    def _check_program(self, engine: EngineConfig) -> None:
        """A local engine's program must exist (else every game of the engine
        would be a start-up fault: strikes, then a disqualification)."""
        if engine.remote is not None or self.runner.s.execution.backend == "dask":
            return
        program = engine.command[0]
        if not os.path.isabs(program):
            raise Refused(f"replace {engine.name}: program {program!r} is neither an absolute "
                          "path nor found on PATH")  # fmt: skip
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise Refused(f"replace {engine.name}: program {program!r} does not exist or is "
                          "not executable")  # fmt: skip


def _interrupt(kind: str, record: Any = None) -> Any:
    from tcecd.daemon.runner import Interrupt

    return Interrupt(kind, record)


def _attempt(gid: GameId, kind: str, reason: str, record: Any) -> StoredAttempt:
    import json

    from tcecd.store import codec

    return StoredAttempt(gid, kind, reason, json.dumps(codec.record_to_dict(record)))


def _order(gid: GameId) -> tuple[int, int]:
    return (gid.round, gid.number)


def _audit_row(entry: ControlEntry) -> dict[str, object]:
    """An audit log entry as the ``status`` reply and the ``audit`` topic show it."""
    row: dict[str, object] = {
        "seq": entry.seq, "id": entry.id, "received": entry.received,
        "command": entry.command, "args": entry.args, "ok": entry.ok,
    }  # fmt: skip
    if entry.ok:
        row["effect"] = entry.effect or {}
    else:
        row["error"] = entry.error
    return row


def audit_document(entries: tuple[ControlEntry, ...]) -> list[dict[str, object]]:
    """The audit log's rows (oldest first), as the ``audit`` topic carries them."""
    return [_audit_row(public_entry(e)) for e in entries]


def status_audit(entries: tuple[ControlEntry, ...]) -> list[dict[str, object]]:
    """The audit entries a ``status`` answer shows: the last :data:`STATUS_AUDIT`."""
    return [_audit_row(public_entry(e)) for e in entries[-STATUS_AUDIT:]]


def public_entry(entry: ControlEntry) -> ControlEntry:
    """``entry`` as the stream may show it: a replaced engine's ``env`` values
    (a licence key, a token) hidden; the state keeps them."""
    definition = (entry.effect or {}).get("definition")
    if not isinstance(definition, dict) or not definition.get("env"):
        return entry
    env = definition["env"]
    hidden = {k: "***" for k in env} if isinstance(env, dict) else "***"
    effect = {**(entry.effect or {}), "definition": {**definition, "env": hidden}}
    return dataclasses.replace(entry, effect=effect)


__all__ = ["Console", "Refused", "audit_document", "parse_command"]

