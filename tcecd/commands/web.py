"""``tcecd web``: serve a live web page of an event, fed by its MQTT stream.

The same server speaks the socket.io events TCEC's own viewer listens to and
serves its files (live.pgn, schedule.json, ...), so TCEC's unmodified viewer
can follow a tcecd event too. See docs/web.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from tcecd import eventloop
from tcecd.bus.settings import MqttSettings
from tcecd.commands.mqtt_password import (
    add_password_file_option,
    command_line_password,
    with_password,
)
from tcecd.errors import ConfigError

HELP = "serve a live web page of an event (and TCEC's viewer's socket.io events)"


DEFAULT_MQTT = "mqtt://127.0.0.1:1883"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="EVENT.yaml", nargs="?", type=Path,
                        help="follow this event: its broker (with `mqtt: embedded`, the one "
                             "its daemon started, whatever port it picked), topic prefix and "
                             "event; the options below override")
    parser.add_argument("--mqtt", metavar="URL",
                        help="broker URL: mqtt://[user:pass@]host[:port] or mqtts://... "
                             f"(default: the config's, else {DEFAULT_MQTT})")
    parser.add_argument("--listen", metavar="HOST:PORT", default="127.0.0.1:8080",
                        help="address to serve on (default: %(default)s)")
    parser.add_argument("--prefix",
                        help="topic prefix the daemon publishes under (default: the config's, "
                             "else tcecd)")
    parser.add_argument("--event", metavar="SLUG",
                        help="show this event (topic slug, e.g. tcec-swiss-7); default: the "
                             "event with the latest message")
    parser.add_argument("--tls-ca", metavar="FILE", help="CA certificate for mqtts://")
    add_password_file_option(parser)
    parser.add_argument("--viewer", metavar="DIR", type=Path,
                        help="a TCEC viewer folder (tcecgui) to serve under /tcec/")
    parser.add_argument("--max-connections", metavar="N", type=_positive,
                        help="connections served at once, and TCEC viewer sessions held "
                             "at once (default: 4096, at most the open-files limit minus 64)")
    parser.add_argument("--header-timeout", metavar="SECONDS", type=_seconds, default=15.0,
                        help="close a connection that has sent no whole request this long "
                             "after opening or after its last answer (default: %(default)s)")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 86400:
        raise argparse.ArgumentTypeError(f"expected seconds above 0, got {text!r}")
    return value


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def parse_listen(text: str) -> tuple[str, int]:
    """``"127.0.0.1:8080"`` -> ``("127.0.0.1", 8080)``; ``"[::1]:80"`` too."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--listen: expected HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def embedded_locator(settings: MqttSettings, state_dir: Path
                     ) -> Callable[[], MqttSettings | None]:  # fmt: skip
    """Where an ``mqtt: embedded`` event's broker listens, asked anew at each
    connection attempt: the daemon writes the URL it started its broker on to
    ``<state_dir>/mqtt/url`` (a free port unless the config gives one, so it may
    change when the daemon restarts). None while there is no such file and the
    config names no port (the daemon has not started yet)."""
    url_file = state_dir / "mqtt" / "url"
    fixed = bool(urlsplit(settings.url).port)  # no port, or 0: a free one

    def locate() -> MqttSettings | None:
        try:
            url = url_file.read_text(encoding="utf-8").strip()
        except OSError:
            url = ""
        if url:
            return dataclasses.replace(settings, url=url, embedded=False)
        return dataclasses.replace(settings, embedded=False) if fixed else None

    return locate


def _from_config(args: argparse.Namespace
                 ) -> tuple[MqttSettings, Callable[[], MqttSettings | None] | None, str | None]:
    """The broker settings, a locator for an embedded broker, and the event's slug."""
    from tcecd.bus.payloads import slugify
    from tcecd.config.event_file import load_event

    cfg = load_event(args.config)
    settings = cfg.mqtt_settings()
    if settings is None:
        raise ConfigError(f"{args.config}: mqtt: the event publishes nothing (no `mqtt:`), "
                          "so there is no stream to follow")
    locate = None
    if settings.embedded and args.mqtt is None:
        locate = embedded_locator(settings, cfg.state_dir)
    if args.mqtt is not None:
        settings = MqttSettings.from_url(args.mqtt, topic_prefix=settings.topic_prefix,
                                         tls_ca=args.tls_ca)
    if args.prefix is not None:
        settings = dataclasses.replace(settings, topic_prefix=args.prefix)
    return settings, locate, slugify(cfg.event.name)


def run(args: argparse.Namespace) -> int:
    from tcecd.web.http import raise_fd_limit
    from tcecd.web.server import WebServer

    host, port = parse_listen(args.listen)
    if args.viewer is not None and not (args.viewer / "index.html").is_file():
        raise ConfigError(f"--viewer: no index.html in {str(args.viewer)!r}")
    locate: Callable[[], MqttSettings | None] | None = None
    event = args.event
    if args.config is not None:
        settings, locate, slug = _from_config(args)
        event = event or slug
    else:
        settings = MqttSettings.from_url(args.mqtt or DEFAULT_MQTT,
                                         topic_prefix=args.prefix or "tcecd", tls_ca=args.tls_ca)
    password = command_line_password(args, os.environ)
    settings = with_password(settings, password)
    # As `tcecd watch` and the daemon say it: a password in clear over the network.
    warning = settings.plain_password_warning()
    if warning is not None:
        print(f"tcecd web: warning: {warning}", file=sys.stderr, flush=True)
    if locate is not None:
        found = locate

        def locate_with_password() -> MqttSettings | None:
            located = found()
            return None if located is None else with_password(located, password)

        locate = locate_with_password
    raise_fd_limit()  # up to the hard limit (the systemd unit's LimitNOFILE)
    server = WebServer(settings, event=event, host=host, port=port, viewer=args.viewer,
                       locate=locate, max_connections=args.max_connections,
                       header_timeout_s=args.header_timeout)
    source = ("the embedded broker of " + str(args.config) if locate is not None
              else settings.redacted_url())
    print(f"tcecd web: http://{args.listen}/ following {source}", file=sys.stderr, flush=True)
    try:
        eventloop.run(server.serve())
    except OSError as exc:
        raise ConfigError(f"--listen {args.listen}: {exc.strerror or exc}") from None
    return 0
