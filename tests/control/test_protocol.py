"""The console's payload check (tcecd.control.protocol): well-formed commands
are read as sent; anything else is a refusal with a reason, never an exception."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.control.protocol import (
    MAX_PAYLOAD,
    AdjudicateArgs,
    Command,
    Rejected,
    ReplaceArgs,
    command_payload,
    parse_command,
)
from tests.control.hostile import hostile_payloads


def test_a_command_is_read_as_sent() -> None:
    payload = command_payload("c-1", "adjudicate",
                              {"game": "3.2", "result": "1/2-1/2", "reason": "hardware"})
    cmd = parse_command(payload)
    assert isinstance(cmd, Command)
    assert (cmd.id, cmd.name) == ("c-1", "adjudicate")
    assert cmd.args == AdjudicateArgs(game="3.2", result="1/2-1/2", reason="hardware")
    assert cmd.args_json() == {"game": "3.2", "result": "1/2-1/2", "reason": "hardware"}


def test_replace_takes_an_argv_and_typed_options() -> None:
    cmd = parse_command(command_payload("r", "replace", {
        "engine": "sf", "command": ["/opt/sf/sf", "--x"],
        "options": {"Hash": 64, "Ponder": False, "Style": "Risky"}}))
    assert isinstance(cmd, Command)
    assert cmd.args == ReplaceArgs(engine="sf", command=["/opt/sf/sf", "--x"],
                                   options={"Hash": 64, "Ponder": False, "Style": "Risky"})


def test_args_default_to_none_for_commands_without_arguments() -> None:
    assert isinstance(parse_command(b'{"id": "s", "command": "status"}'), Command)


def test_a_refusal_keeps_the_id_to_answer_to() -> None:
    got = parse_command(command_payload("c-2", "concurrency", {"concurrency": 0}))
    assert isinstance(got, Rejected)
    assert (got.id, got.name) == ("c-2", "concurrency")
    assert got.error.startswith("args.concurrency: ")
    unknown = parse_command(command_payload("c-3", "format-disk", {}))
    assert isinstance(unknown, Rejected)
    assert unknown.id == "c-3"
    assert "unknown command 'format-disk'" in unknown.error


def test_the_two_hundred_hostile_payloads_are_all_refused() -> None:
    payloads = hostile_payloads()
    assert len(payloads) == 200
    for ident, payload in payloads:
        got = parse_command(payload)
        # (Some are well-formed and refused later, by the console: no such game...)
        if isinstance(got, Rejected):
            assert got.error
            assert got.id == ident
        else:
            assert got.id == ident


def test_limits() -> None:
    big = json.dumps({"id": "b", "command": "pause", "args": {"reason": "x" * MAX_PAYLOAD}})
    got = parse_command(big.encode())
    assert isinstance(got, Rejected)
    assert "over the limit" in got.error
    assert got.id is None
    deep = parse_command(b"[" * 5000 + b"]" * 5000)
    assert isinstance(deep, Rejected)
    assert deep.error == "payload is nested too deep"
    ctrl = parse_command(command_payload("c", "pause", {"reason": "a\x1b[2Jb"}))
    assert isinstance(ctrl, Rejected)
    assert "control character" in ctrl.error
    # An error message never echoes what was sent.
    shown = parse_command(command_payload("c", "withdraw", {"engine": 5, "reason": "SECRET"}))
    assert isinstance(shown, Rejected)
    assert "SECRET" not in shown.error


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_are_answered_never_raised(payload: bytes) -> None:
    assert isinstance(parse_command(payload), Command | Rejected)


@settings(max_examples=80, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=20),
       st.sampled_from(["status", "pause", "adjudicate", "replace", "concurrency", "x"]))
def test_any_json_args_are_answered_never_raised(args: object, name: str) -> None:
    payload = json.dumps({"id": "p", "command": name, "args": args}).encode()
    got = parse_command(payload)
    assert isinstance(got, Command | Rejected)
    assert got.id == "p"
