#!/usr/bin/env python3
"""An engine that replays a transcript (tests/runner/contract/transcripts/*.json).

``engine.py TRANSCRIPT LOG``: answers ``uci`` (UCI) or ``protover`` (xboard) with the
transcript's handshake, ``isready`` / ``ping N`` itself, and each ``go`` with the next
move of the transcript; every line it receives is appended to LOG, so that a test can
compare what two drivers sent. A move is ``{"lines": [...]}`` with, optionally,
``"exit": N`` (print the lines, then die with code N: a crash mid-search), ``"hang":
[...]`` (print the lines, then nothing until ``stop``, then the ``hang`` lines: a
search that runs out of time) and ``"write"``: ``"lines"`` (one write per line, the
default), ``"joined"`` (the move's lines in one write) or ``"split"`` (each line in two
writes), so that the stdout reader sees whole lines, several lines and partial lines.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        transcript = json.load(f)
    with open(sys.argv[2], "a", encoding="utf-8", buffering=1) as log:
        replay(transcript, log)


def replay(transcript: dict[str, Any], log: Any) -> None:
    """Answer the driver on stdin as the transcript says (module docstring)."""
    uci = transcript["protocol"] == "uci"
    moves = iter(transcript["moves"])
    out = sys.stdout.buffer
    hanging: list[str] | None = None

    def say(lines: list[str], how: str = "lines") -> None:
        data = [(line + "\n").encode("utf-8") for line in lines]
        if how == "joined":
            out.write(b"".join(data))
            out.flush()
            return
        for chunk in data:
            if how == "split" and len(chunk) > 2:
                out.write(chunk[: len(chunk) // 2])
                out.flush()
                chunk = chunk[len(chunk) // 2 :]
            out.write(chunk)
            out.flush()

    def move(entry: dict[str, Any]) -> list[str] | None:
        say(entry.get("lines", []), entry.get("write", "lines"))
        if "exit" in entry:
            os._exit(int(entry["exit"]))
        return entry.get("hang")

    for raw in sys.stdin:
        line = raw.rstrip("\n")
        log.write(line + "\n")
        cmd, _, arg = line.partition(" ")
        if cmd == "quit":
            return
        if uci:
            if cmd == "uci":
                say(transcript["handshake"])
            elif cmd == "isready":
                say(["readyok"])
            elif cmd == "go":
                hanging = move(next(moves))
            elif cmd == "stop" and hanging is not None:
                say(hanging)
                hanging = None
        else:
            if cmd == "protover":
                say(transcript["handshake"])
            elif cmd == "ping":
                say([f"pong {arg}"])
            elif cmd == "go":
                hanging = move(next(moves))
            elif cmd == "?" and hanging is not None:
                say(hanging)
                hanging = None


if __name__ == "__main__":
    main()
