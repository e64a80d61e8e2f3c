"""``tcecd schema``: print the JSON Schema (draft 2020-12) of the event config.

Point an editor's YAML language server at it for completion and checking, e.g.
``tcecd schema > tcecd.schema.json`` and a ``# yaml-language-server:
$schema=tcecd.schema.json`` first line in the event file.
"""

from __future__ import annotations

import argparse
import json

HELP = "print the JSON Schema of the event config"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--compact``: one line instead of indented JSON."""
    parser.add_argument("--compact", action="store_true", help="print the schema on one line")


def run(args: argparse.Namespace) -> int:
    """Print the schema to stdout."""
    from tcecd.config.schema import event_json_schema

    schema = event_json_schema()
    if args.compact:
        print(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))
    else:
        print(json.dumps(schema, ensure_ascii=False, indent=2))
    return 0
