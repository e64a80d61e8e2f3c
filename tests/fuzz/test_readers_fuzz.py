"""Fuzzing the readers of hostile input through the CLI: the event config (``validate``),
the JSON event state and the TRF file (``tcecd pair``) and the event PGN (``tcecd replay``).

Inputs are hypothesis-generated: a good file with random edits (characters deleted,
inserted or replaced, lines duplicated or dropped), and documents built from scratch.
Whatever the input, the command returns an exit code (0, or 1 for ``replay --verify``
deviations, or 2 with one ``tcecd: error:`` line) and never lets an exception escape:
``main`` turns only :class:`~tcecd.errors.TcecdError` into a line, so a traceback here is
a test failure. Time is bounded by hypothesis's per-example deadline; memory and stack
by the limits tested in tests/config/test_hostile_configs.py.

The TRF-2016 reader (``tcecd pair EVENT.trf``) is fuzzed the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcecd.cli import main
from tests.fixtures.event_config import BASE_EVENT
from tests.fixtures.replay_pgn import simulate_event, tcecd_pgn

FUZZ = settings(
    max_examples=40,
    deadline=5_000,  # ms per example: far above a good run, far below a hang
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def mutated(draw: st.DrawFn, base: str) -> str:
    """``base`` with a few random edits: the malformed-but-close inputs that reach
    deep into a reader (a good prefix, then something wrong)."""
    text = base
    for _ in range(draw(st.integers(1, 4))):
        edit = draw(st.sampled_from(["delete", "insert", "replace", "dup-line", "drop-line"]))
        at = draw(st.integers(0, max(0, len(text) - 1)))
        if edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif edit == "insert":
            text = text[:at] + draw(st.text(max_size=12)) + text[at:]
        elif edit == "replace":
            text = text[:at] + draw(st.sampled_from(list("{}[]:,-&*!'\"#\n 0x\t"))) + text[at + 1 :]
        else:
            lines = text.splitlines(keepends=True)
            if lines:
                i = draw(st.integers(0, len(lines) - 1))
                lines[i : i + 1] = [lines[i]] * 2 if edit == "dup-line" else []
                text = "".join(lines)
    return text


def _one_line_or_ok(code: int, err: str, codes: tuple[int, ...] = (0, 2)) -> None:
    assert code in codes, err
    if code == 2:
        assert err.startswith("tcecd: error: "), err
        assert err.count("\n") == 1, err
    assert "Traceback" not in err


# -- the event config ------------------------------------------------------------------

_CONFIG = yaml.safe_dump(BASE_EVENT, sort_keys=False)
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=8)
)
_DOCS = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from([*BASE_EVENT, "name", "tc", "rounds", "x"]), inner, max_size=4
        )
    ),
    max_leaves=12,
)


@pytest.mark.parametrize("source", ["mutated", "generated"])
def test_config_reader_never_raises(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    texts = (
        mutated(_CONFIG)
        if source == "mutated"
        else st.one_of(
            _DOCS.map(lambda d: yaml.safe_dump(d)),
            st.fixed_dictionaries({}, optional={k: _DOCS for k in BASE_EVENT}).map(
                lambda d: yaml.safe_dump({**BASE_EVENT, **d})
            ),
        )
    )

    @FUZZ
    @given(texts)
    def check(text: str) -> None:
        Path("event.yaml").write_text(text, encoding="utf-8")
        code = main(["validate", "-q", "event.yaml"])
        _one_line_or_ok(code, capsys.readouterr().err)

    check()


# -- the JSON event state (tcecd pair) -----------------------------------------------------

_STATE = json.dumps(
    {
        "system": "tcec-swiss",
        "players": [
            {"id": f"P{i}", "name": f"P{i}", "seed": i, "rating": 3000 + i} for i in range(1, 6)
        ],
        "rounds": [
            {
                "round": 1,
                "bye": "P5",
                "removed_history_rounds": [],
                "games": [
                    {"white": "P1", "black": "P3", "result": "1-0"},
                    {"white": "P4", "black": "P2", "result": "1/2-1/2"},
                ],
            },
        ],
    },
    indent=1,
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["players", "rounds", "id", "seed", "games", "x"]), inner, max_size=4
        )
    ),
    max_leaves=12,
)


@pytest.mark.parametrize("source", ["mutated", "generated"])
def test_json_state_reader_never_raises(
    source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "state.json"
    texts = mutated(_STATE) if source == "mutated" else _JSON.map(json.dumps)

    @FUZZ
    @given(texts)
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8")
        code = main(["pair", str(path)])
        _one_line_or_ok(code, capsys.readouterr().err)

    check()


# -- the event PGN (tcecd replay) ------------------------------------------------------------

_PGN = tcecd_pgn(simulate_event(4, 2)[1])


def test_pgn_reader_never_raises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "event.pgn"

    @FUZZ
    @given(mutated(_PGN))
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8")
        code = main(["replay", str(path), "--verify", "--quiet"])
        # 1: the games deviate from the pairing rules (a verdict, not an error).
        _one_line_or_ok(code, capsys.readouterr().err, codes=(0, 1, 2))

    check()


# -- the TRF reader ---------------------------------------------------------------------------


def test_trf_reader_never_raises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The TRF-2016 reader (``tcecd pair EVENT.trf`` and ``--check``): a TRF written by
    ``tcecd simulate --trf`` (7 players, 3 rounds, a BYE each round) with random edits.
    TCEC Swiss pairs it, so the test exercises the reader, not one system's rules."""
    good = tmp_path / "good.trf"
    assert main(["simulate", "--players", "7", "--rounds", "3", "--trf", str(good)]) == 0
    capsys.readouterr()
    base = good.read_text(encoding="utf-8")
    path = tmp_path / "event.trf"

    @FUZZ
    @given(mutated(base), st.booleans())
    def check(text: str, check_mode: bool) -> None:
        path.write_text(text, encoding="utf-8")
        args = ["pair", "--system", "tcec-swiss", str(path)]
        code = main([*args, "--check"] if check_mode else args)
        # 1: --check found a round the rules pair differently (a verdict).
        _one_line_or_ok(code, capsys.readouterr().err, codes=(0, 1, 2))

    check()
