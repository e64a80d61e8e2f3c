"""``tcecd web``: serve a live web page of an event, fed by its MQTT stream.

The same server speaks the socket.io events TCEC's own viewer listens to and
serves its files (live.pgn, schedule.json, ...), so TCEC's unmodified viewer
can follow a tcecd event too. See docs/web.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from tcecd.bus.settings import MqttSettings
from tcecd.commands.mqtt_password import (
    add_password_file_option,
    command_line_password,
    with_password,
)
from tcecd.errors import ConfigError

HELP = "serve a live web page of an event (and TCEC's viewer's socket.io events)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mqtt", metavar="URL", default="mqtt://127.0.0.1:1883",
                        help="broker URL: mqtt://[user:pass@]host[:port] or mqtts://... "
                             "(default: %(default)s, where `mqtt: embedded` listens)")
    parser.add_argument("--listen", metavar="HOST:PORT", default="127.0.0.1:8080",
                        help="address to serve on (default: %(default)s)")
    parser.add_argument("--prefix", default="tcecd",
                        help="topic prefix the daemon publishes under (default: %(default)s)")
    parser.add_argument("--event", metavar="SLUG",
                        help="show this event (topic slug, e.g. tcec-swiss-7); default: the "
                             "event with the latest message")
    parser.add_argument("--tls-ca", metavar="FILE", help="CA certificate for mqtts://")
    add_password_file_option(parser)
    parser.add_argument("--viewer", metavar="DIR", type=Path,
                        help="a TCEC viewer folder (tcecgui) to serve under /tcec/")


def parse_listen(text: str) -> tuple[str, int]:
    """``"127.0.0.1:8080"`` -> ``("127.0.0.1", 8080)``; ``"[::1]:80"`` too."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--listen: expected HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def run(args: argparse.Namespace) -> int:
    from tcecd.web.server import WebServer

    host, port = parse_listen(args.listen)
    if args.viewer is not None and not (args.viewer / "index.html").is_file():
        raise ConfigError(f"--viewer: no index.html in {str(args.viewer)!r}")
    settings = MqttSettings.from_url(args.mqtt, topic_prefix=args.prefix, tls_ca=args.tls_ca)
    settings = with_password(settings, command_line_password(args, os.environ))
    server = WebServer(settings, event=args.event, host=host, port=port, viewer=args.viewer)
    print(f"tcecd web: http://{args.listen}/ following {settings.redacted_url()}",
          file=sys.stderr, flush=True)
    try:
        asyncio.run(server.serve())
    except OSError as exc:
        raise ConfigError(f"--listen {args.listen}: {exc.strerror or exc}") from None
    return 0
