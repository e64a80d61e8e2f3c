"""The docs cannot silently rot: every ``tcecd ...`` command they show is checked
against the real command line.

* every option shown for a subcommand exists in that subcommand's parser;
* every option of every subcommand is documented: in a command line of the docs, or
  as a code span on a page that shows the subcommand (an options table);
* ``tcecd <cmd> --help`` works for every subcommand the docs mention;
* the examples that are safe and fast to run (``simulate``, ``pair``,
  ``schema``, ``validate`` of the bundled configs) run and exit 0;
* every repository path the prose names (``configs/...``, ``engines/...``,
  ``tcecd/...``, ...) exists, every relative link resolves, and docs/index.md
  lists every guide.

Commands are taken from fenced code blocks, indented code blocks and inline
code spans of README.md and docs/*.md.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tcecd.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_COMMAND = re.compile(
    r"(?:^|(?<=[\s`(/]))tcecd (" + "|".join(COMMANDS) + r")(?![\w.-])(.*)$"
)
_OPTION = re.compile(r"(?<![\w./=-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")
# Where one command ends and the next (or a comment, a redirection) begins.
_END = re.compile(r"\s(?:#|\|\||&&|;|<)|\s\|(?!\s*tcecd)")


@dataclass(frozen=True)
class DocCommand:
    source: str  # "docs/x.md:12"
    command: str  # the subcommand
    text: str  # "tcecd <command> ..." up to the end of the command
    in_block: bool  # from a code block (a line a user would type), not prose

    @property
    def options(self) -> list[str]:
        # Only what follows the subcommand, up to a pipe into another program.
        own = self.text.split(" | ")[0]
        return _OPTION.findall(own[len("tcecd " + self.command):])


def _code_lines(path: Path) -> list[tuple[int, str, bool]]:
    """(line number, text, in_block) for code-block lines and inline code spans."""
    out: list[tuple[int, str, bool]] = []
    fenced = False
    previous_blank = True
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        continues_block = bool(out) and out[-1][0] == number - 1 and out[-1][2]
        if fenced or (line.startswith("    ") and (previous_blank or continues_block)):
            out.append((number, line, True))
        else:
            for span in re.findall(r"`([^`]+)`", line):
                out.append((number, span, False))
        previous_blank = not line.strip()
    return out


def doc_commands() -> list[DocCommand]:
    found: list[DocCommand] = []
    for path in DOCS:
        lines = _code_lines(path)
        for i, (number, text, in_block) in enumerate(lines):
            match = _COMMAND.search(text)
            if not match:
                continue
            command, rest = match.group(1), match.group(2)
            if in_block:
                # Continuation lines: a trailing backslash, or an indented synopsis
                # line that starts with an option ("[--x ...]").
                j = i
                while j + 1 < len(lines) and lines[j + 1][2] and lines[j + 1][0] == lines[j][0] + 1:
                    nxt = lines[j + 1][1].strip()
                    if rest.rstrip().endswith("\\") or nxt.startswith(("[", "--")):
                        rest = rest.rstrip().rstrip("\\") + " " + nxt
                        j += 1
                    else:
                        break
            end = _END.search(rest)
            if end:
                rest = rest[: end.start()]
            rel = path.relative_to(ROOT).as_posix()
            found.append(DocCommand(f"{rel}:{number}", command, f"tcecd {command}{rest}".rstrip(),
                                    in_block))
    return found


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"tcecd {command}")
    importlib.import_module(f"tcecd.commands.{command}").add_arguments(parser)
    return parser


def _option_strings(command: str) -> set[str]:
    """The command's options, with those of its own subcommands (``tcecd ctl pause
    --reason``)."""
    out: set[str] = set()
    parsers = [_parser(command)]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            out.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
    return out


COMMANDS_IN_DOCS = doc_commands()


def test_the_docs_show_every_subcommand() -> None:
    assert {c.command for c in COMMANDS_IN_DOCS} == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_shown_in_the_docs_exists(command: str) -> None:
    known = _option_strings(command)
    unknown = [
        f"{c.source}: {option} in {c.text!r}"
        for c in COMMANDS_IN_DOCS
        if c.command == command
        for option in c.options
        if option not in known
    ]
    assert unknown == []


def _spans_near(command: str) -> set[str]:
    """Inline code spans of the docs that show ``tcecd <command>`` (an options table)."""
    spans: set[str] = set()
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        if f"tcecd {command}" in text:
            spans.update(s.split()[0] for s in re.findall(r"`([^`\s][^`]*)`", text))
    return spans


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_is_documented(command: str) -> None:
    """Each option is in a command line of the docs, or in code of its own in a
    page about the command (an options table); one spelling is enough."""
    shown = {o for c in COMMANDS_IN_DOCS if c.command == command for o in c.options}
    shown |= _spans_near(command)
    missing = [
        action.option_strings
        for action in _parser(command)._actions
        if action.option_strings and "-h" not in action.option_strings
        and not shown.intersection(action.option_strings)
    ]
    assert missing == [], f"tcecd {command}: options no doc shows"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_of_each_command_exits_0(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    assert f"usage: tcecd {command}" in capsys.readouterr().out


# Commands cheap and safe to run as written: no engines, no broker, no files
# written outside the temp dir.
_RUNNABLE = {"simulate", "pair", "schema", "validate"}
_PLACEHOLDER = re.compile(r"[\[\]…]|\.\.\.|(?<![\w/.-])[A-Z][A-Z0-9_]*(?:\.\w+)?(?![\w/-])")


def runnable_examples() -> list[DocCommand]:
    out = []
    for c in COMMANDS_IN_DOCS:
        if not c.in_block or c.command not in _RUNNABLE or _PLACEHOLDER.search(c.text):
            continue
        if any(token.startswith(("/", "~")) for token in c.text.split()):
            continue  # a server path (/etc/tcecd/...), not in this checkout
        out.append(c)
    return out


def test_there_are_runnable_examples() -> None:
    assert {c.command for c in runnable_examples()} == _RUNNABLE


@pytest.mark.parametrize("example", runnable_examples(), ids=lambda c: c.source)
def test_doc_example_runs(example: DocCommand, tmp_path: Path) -> None:
    """Run the example with bash in a temp dir (``configs/`` and ``tests/``, for
    the worked examples' data files, linked in), so pipes and redirections
    work as a user types them."""
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    script = example.text
    if example.command == "pair" and not (tmp_path / "event.json").exists():
        # A `tcecd pair FILE` example reads the state a simulate example wrote.
        for c in runnable_examples():
            if c.command == "simulate" and ">" in c.text:
                script = f"{c.text} && {script}"
                break
    # `tcecd` is this interpreter's tcecd, whatever is on PATH.
    shim = f'tcecd() {{ {shlex.quote(sys.executable)} -m tcecd "$@"; }}\n'
    done = subprocess.run(["bash", "-c", shim + script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, f"{example.source}: {script!r}: {done.stderr}"


@pytest.mark.parametrize("config", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_bundled_configs_validate(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-q", str(config)]) == 0


def test_schema_is_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["schema", "--compact"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert set(schema["properties"]) >= {"event", "pairing", "engines", "time_control"}


_REPO_PATH = re.compile(r"^(?:configs|engines|deploy|bench|tests|tcecd|docs)/[\w./-]*[\w/]$")


def test_every_repository_path_in_the_docs_exists() -> None:
    """Files the prose names in code spans (`configs/demo.yaml`, `tcecd/bus/payloads.py`)."""
    missing = []
    for path in DOCS:
        for number, text, in_block in _code_lines(path):
            if in_block:
                continue  # examples may name files the user makes (configs/x.yaml)
            for token in text.split():
                token = token.strip("\"'(),:;")
                if not _REPO_PATH.match(token) or "*" in token or "<" in token:
                    continue
                target = ROOT / token
                if not target.exists():
                    missing.append(f"{path.relative_to(ROOT)}:{number}: {token}")
    assert missing == []


def test_the_docs_index_lists_every_guide() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    guides = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert guides <= listed, f"not in docs/index.md: {sorted(guides - listed)}"
    assert listed <= guides, f"links to missing guides: {sorted(listed - guides)}"


def test_relative_links_in_the_docs_resolve() -> None:
    broken = []
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert broken == []
