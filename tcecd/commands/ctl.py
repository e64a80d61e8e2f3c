"""``tcecd ctl``: the operator's console on the command line.

    tcecd ctl [--mqtt URL] [--event SLUG] COMMAND [ARGS]

Publishes one command to the event's ``control`` topic at QoS 1 as an
operator account (``mqtt.operators``), waits for the daemon's answer on
``control/reply/<id>`` and prints it. Exit 0 only when the command was
applied; 1 when it was refused or no answer came in time (one line); 2 for
a bad option or an unreachable broker. The commands and what they do are in
docs/running.md ("The console"); the protocol in docs/events.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shlex
import sys
import uuid
from typing import Any

import aiomqtt

from tcecd import eventloop
from tcecd.bus.settings import MqttSettings
from tcecd.commands.mqtt_password import (
    add_password_file_option,
    command_line_password,
    with_password,
)
from tcecd.control.protocol import command_payload
from tcecd.errors import BusError, ConfigError

HELP = "send a command to a running event (the operator's console)"

#: How long ``--event`` discovery listens for the events' retained documents.
_DISCOVER_S = 1.5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mqtt", metavar="URL", default="mqtt://127.0.0.1:1883",
                        help="broker URL with the operator's user name: "
                             "mqtt://USER@host[:port] or mqtts://... (default: %(default)s)")
    parser.add_argument("--event", metavar="SLUG",
                        help="the event's topic slug (default: the only event on the broker)")
    parser.add_argument("--prefix", default="tcecd",
                        help="topic prefix the daemon publishes under (default: %(default)s)")
    parser.add_argument("--tls-ca", metavar="FILE", help="CA certificate for mqtts://")
    add_password_file_option(parser)
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="longest wait for the daemon's answer (default: %(default)s)")
    parser.add_argument("--id", metavar="ID",
                        help="the command's id (default: a new one); the same id sent again "
                             "is applied once and answered again")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    sub = parser.add_subparsers(dest="ctl_command", metavar="COMMAND", required=True)
    sub.add_parser("status", help="where the event stands, and the audit log")
    for name, text in (("pause", "start no new game (the games playing finish)"),
                       ("resume", "start games again"),
                       ("stop", "stop the daemon as the first SIGTERM does")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--reason", default="", help="why (kept in the audit log)")
    p = sub.add_parser("restart-game", help="play a running game, or one an engine's fault "
                       "ended, again from its start")
    p.add_argument("game", metavar="R.G", help="the game (its PGN Round tag)")
    p.add_argument("--reason", required=True, help="why (in the PGN and the audit log)")
    p = sub.add_parser("adjudicate", help="end a running game with a result")
    p.add_argument("game", metavar="R.G", help="the game (its PGN Round tag)")
    p.add_argument("result", choices=("1-0", "0-1", "1/2-1/2"), help="the result")
    p.add_argument("--reason", required=True, help="why (in the PGN and the audit log)")
    p = sub.add_parser("withdraw", help="withdraw an engine from the event")
    p.add_argument("engine", metavar="ENGINE", help="the engine's name")
    p.add_argument("--reason", required=True, help="why (in the audit log)")
    p = sub.add_parser("replace", help="play an engine's next games with another program "
                       "or options")
    p.add_argument("engine", metavar="ENGINE", help="the engine's name")
    p.add_argument("--command", dest="engine_command", metavar="COMMAND",
                   help="the new program and its arguments, as one shell-quoted string "
                        "(an absolute path, or a program on the daemon's PATH)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="set an engine option (repeat for more)")
    p.add_argument("--reason", default="", help="why (in the audit log)")
    p = sub.add_parser("concurrency", help="how many games may play at once")
    p.add_argument("n", type=int, metavar="N", help="games at once (1-64)")


def run(args: argparse.Namespace) -> int:
    name, cmd_args = command_of(args)
    settings = MqttSettings.from_url(args.mqtt, topic_prefix=args.prefix, tls_ca=args.tls_ca)
    settings = with_password(settings, command_line_password(args, os.environ))
    warning = settings.plain_password_warning()
    if warning is not None:
        print(f"tcecd ctl: warning: {warning}", file=sys.stderr, flush=True)
    ident = args.id or f"ctl-{uuid.uuid4().hex[:16]}"
    if not re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", ident):
        raise ConfigError(f"--id: {ident!r} (letters, digits, _ . : -, at most 64)")
    reply = eventloop.run(send(settings, args.event, name, cmd_args, ident, args.timeout))
    if reply is None:
        print(f"tcecd ctl: no answer within {args.timeout:g} s (is the event running, with "
              "mqtt.operators, on this broker?)", file=sys.stderr)
        return 1
    from tcecd.bus.inbound import printable

    reply = printable(reply)  # an answer is shown on a terminal: no control characters
    print(json.dumps(reply, indent=1) if args.json else describe(name, reply))
    return 0 if reply.get("ok") is True else 1


def command_of(args: argparse.Namespace) -> tuple[str, dict[str, object]]:
    """The command's name and arguments as the protocol carries them."""
    name: str = args.ctl_command
    out: dict[str, object] = {}
    if name in ("pause", "resume", "stop"):
        out["reason"] = args.reason
    elif name in ("restart-game", "adjudicate"):
        out["game"] = args.game
        out["reason"] = args.reason
        if name == "adjudicate":
            out["result"] = args.result
    elif name == "withdraw":
        out = {"engine": args.engine, "reason": args.reason}
    elif name == "replace":
        out = {"engine": args.engine, "reason": args.reason}
        if args.engine_command is not None:
            try:
                argv = shlex.split(args.engine_command)
            except ValueError as exc:
                raise ConfigError(f"--command: {exc}") from None
            if not argv:
                raise ConfigError("--command: empty")
            out["command"] = argv
        if args.option:
            out["options"] = dict(_option(text) for text in args.option)
    elif name == "concurrency":
        out = {"concurrency": args.n}
    return name, out


def _option(text: str) -> tuple[str, object]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ConfigError(f"--option: {text!r} is not NAME=VALUE")
    return name.strip(), _scalar(value)


def _scalar(value: str) -> object:
    """An option value as a YAML config would type it: true/false, a number, or text."""
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    if re.fullmatch(r"-?[0-9]+\.[0-9]+", value):
        return float(value)
    return value


def _client(settings: MqttSettings, identifier: str) -> aiomqtt.Client:
    ctx = settings.ssl_context()
    return aiomqtt.Client(settings.host, settings.port, username=settings.username,
                          password=settings.password, identifier=identifier, tls_context=ctx,
                          tls_insecure=settings.tls_insecure if ctx is not None else None,
                          timeout=5, clean_session=True)  # fmt: skip


async def send(
    settings: MqttSettings, event: str | None, name: str, args: dict[str, object], ident: str,
    timeout_s: float,
) -> dict[str, Any] | None:
    """Publish the command and return the answer (None: none in time)."""
    prefix = settings.topic_prefix
    try:
        async with _client(settings, f"tcecd-ctl-{uuid.uuid4().hex[:12]}") as client:
            slug = event or await _discover(client, prefix)
            root = f"{prefix}/{slug}"
            reply_topic = f"{root}/control/reply/{ident}"
            await client.subscribe(reply_topic, qos=1)
            await client.publish(f"{root}/control", command_payload(ident, name, args), qos=1)
            try:
                async with asyncio.timeout(timeout_s):
                    async for m in client.messages:
                        if str(m.topic) != reply_topic or not isinstance(m.payload, bytes):
                            continue
                        try:
                            doc = json.loads(m.payload)
                        except ValueError:
                            continue
                        if isinstance(doc, dict):
                            return doc
            except TimeoutError:
                return None
    except aiomqtt.MqttError as exc:
        raise BusError(f"cannot reach {settings.redacted_url()}: {exc}") from None
    return None


async def _discover(client: aiomqtt.Client, prefix: str) -> str:
    """The only event whose retained ``event`` document is on the broker."""
    await client.subscribe(f"{prefix}/+/event", qos=1)
    slugs: set[str] = set()
    try:
        async with asyncio.timeout(_DISCOVER_S):
            async for m in client.messages:
                levels = str(m.topic).split("/")
                if len(levels) == len(prefix.split("/")) + 2 and m.payload:
                    slugs.add(levels[-2])
    except TimeoutError:
        pass
    await client.unsubscribe(f"{prefix}/+/event")
    if len(slugs) == 1:
        return slugs.pop()
    if not slugs:
        raise BusError(f"no event found under {prefix}/ on the broker (give --event SLUG)")
    raise BusError(f"several events on the broker: {', '.join(sorted(slugs))} "
                   "(give --event SLUG)")  # fmt: skip


def describe(name: str, reply: dict[str, Any]) -> str:
    """The answer for a person: ``applied`` or ``refused`` and what it did."""
    if reply.get("ok") is not True:
        return f"refused: {reply.get('error')}"
    effect = reply.get("effect") or {}
    if name != "status" or not isinstance(effect, dict):
        return f"applied: {name} {json.dumps(effect, separators=(', ', ': '))}"
    lines = [
        f"round {effect.get('round')} of {effect.get('rounds')}"
        + ("; finished" if effect.get("finished") else "")
        + ("; PAUSED" if effect.get("paused") else "")
        + ("; stopping" if effect.get("stopping") else ""),
        f"running: {', '.join(effect.get('running') or []) or 'none'}; "
        f"concurrency {effect.get('concurrency')}; {effect.get('games_finished')} games finished",
    ]
    for engine, info in (effect.get("withdrawn") or {}).items():
        lines.append(f"withdrawn: {engine} (round {info.get('round')}: {info.get('reason')})")
    for engine, command in (effect.get("replaced") or {}).items():
        lines.append(f"replaced: {engine} -> {command}")
    audit = effect.get("audit") or []
    lines.append(f"audit log (last {len(audit)}):")
    for row in audit:
        what = json.dumps(row.get("args") or {}, separators=(",", ":"))
        verdict = "ok" if row.get("ok") else f"refused: {row.get('error')}"
        lines.append(f"  {row.get('seq')} {row.get('received')} {row.get('id')} "
                     f"{row.get('command')} {what}: {verdict}")
    return "\n".join(lines)
