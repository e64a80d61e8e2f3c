"""How to reach the MQTT broker: one frozen value, parsed once.

``MqttSettings.from_url("mqtts://user:secret@broker.example:8883")`` is what the
config loader and ``tcecd watch --mqtt URL`` call. A bad URL is a
:class:`~tcecd.errors.BusError` naming it; a broker that is down is *not* an
error (the publisher keeps retrying in the background).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import ssl
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from tcecd.errors import BusError

#: Default ports by scheme (MQTT over TCP, MQTT over TLS).
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}

#: What stands for a password in anything tcecd prints.
HIDDEN = "***"


def is_loopback(host: str) -> bool:
    """True for a host that only this machine reaches: ``localhost`` (and names
    under ``.localhost``, RFC 6761), 127.0.0.0/8 and ``::1``. Any other name
    counts as reachable from elsewhere (tcecd does not resolve it to decide)."""
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def redact_url(url: str) -> str:
    """``url`` with the password of its ``user:password@`` part replaced by
    :data:`HIDDEN`, for every message, log line and summary that shows a URL
    (issue 28). Works on malformed URLs too, which is when they are shown in an
    error: everything between the first ``:`` after ``//`` and the *last* ``@``
    is hidden (a ``/`` or ``@`` typed unescaped in the password cannot make it
    show)."""
    head, sep, rest = url.partition("//")
    at = rest.rfind("@")
    if not sep or at < 0:
        return url
    user, colon, _password = rest[:at].partition(":")
    if not colon:
        return url
    return f"{head}//{user}:{HIDDEN}{rest[at:]}"


def _check_segment(name: str, value: str) -> None:
    """A topic prefix must be a plain topic path: no wildcards, no empty levels."""
    if not value or any(ch in value for ch in "+#\0") or "" in value.split("/"):
        raise BusError(f"invalid MQTT {name}: {value!r} (no '+', '#' or empty levels)")


@dataclass(frozen=True, repr=False)
class MqttSettings:
    """Connection and publishing settings.

    ``qos`` is the QoS for everything that must arrive (results, standings,
    pairings, status); live move updates always go at QoS 0. ``queue_limit``
    bounds the publisher's outgoing queue while the broker is unreachable
    (move updates are dropped first, see docs/events.md). ``embedded`` asks the
    daemon to start a private broker on the URL's host and port (port 0 or none:
    a free one; :mod:`tcecd.bus.embedded`), with a websockets listener on
    ``embedded_ws_port`` (0: a free port; None: none); ``embedded_broker`` picks
    it: ``auto`` (Mosquitto if installed, else amqtt), ``mosquitto`` or ``amqtt``.
    ``embedded_public`` lets the embedded broker listen on an address that is not
    loopback (refused otherwise: it takes anonymous clients).
    ``delivery_timeout_s`` is how long ``tcecd run`` waits at its end for the
    broker to acknowledge the results, pairings and standings still queued.
    """

    url: str = "mqtt://127.0.0.1:1883"
    client_id: str | None = None
    username: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_insecure: bool = False
    topic_prefix: str = "tcecd"
    qos: int = 1
    queue_limit: int = 10000
    embedded: bool = False
    delivery_timeout_s: float = 30.0
    embedded_ws_port: int | None = 0
    embedded_broker: str = "auto"
    embedded_public: bool = False
    #: The console's operators: (user name, password or None). Not empty: the
    #: daemon listens for commands (tcecd.control), and an embedded broker
    #: makes these accounts (tcecd.control.acl).
    operators: tuple[tuple[str, str | None], ...] = ()

    @property
    def console(self) -> bool:
        """True when the console is on (operators are configured)."""
        return bool(self.operators)

    def __post_init__(self) -> None:
        _parse(self.url)  # raises BusError on a bad URL
        _check_segment("topic prefix", self.topic_prefix)
        if self.qos not in (0, 1, 2):
            raise BusError(f"invalid MQTT qos: {self.qos!r} (expected 0, 1 or 2)")
        if not self.delivery_timeout_s >= 0:  # (also NaN)
            raise BusError(
                f"invalid MQTT delivery_timeout_s: {self.delivery_timeout_s!r} (must be >= 0)"
            )
        if self.queue_limit < 1:
            raise BusError(f"invalid MQTT queue_limit: {self.queue_limit!r} (must be >= 1)")
        if self.embedded_ws_port is not None and not 0 <= self.embedded_ws_port <= 65535:
            raise BusError(
                f"invalid MQTT embedded_ws_port: {self.embedded_ws_port!r} (0-65535, or null)"
            )
        if self.embedded_broker not in ("auto", "mosquitto", "amqtt"):
            raise BusError(
                f"invalid MQTT embedded_broker: {self.embedded_broker!r} "
                "(expected auto, mosquitto or amqtt)"
            )
        if self.tls_key is not None and self.tls_cert is None:
            raise BusError(f"MQTT tls_key {self.tls_key!r} given without tls_cert")
        if self.embedded and not self.embedded_public and not is_loopback(self.host):
            # The embedded broker takes anonymous clients over plain MQTT: on an
            # address others reach, anyone may publish what viewers show (issue 28).
            raise BusError(
                f"the embedded broker would listen on {self.host!r}, which other machines "
                "reach, and it lets anyone publish and subscribe without a password; use a "
                "loopback address (127.0.0.1), or set mqtt.embedded_public: true to allow it"
            )

    def plain_password_warning(self) -> str | None:
        """The warning to give when the password would cross the network in clear
        text: a password, plain ``mqtt://`` (no TLS) and a host that is not
        loopback (:func:`is_loopback`); None otherwise."""
        if self.password is None or self.tls or is_loopback(self.host):
            return None
        return (
            f"the MQTT password for {self.redacted_url()} goes over the network unencrypted "
            "(plain mqtt:// to a host that is not loopback); use mqtts:// (docs/operations.md, "
            "'Secure the broker')"
        )

    def __repr__(self) -> str:
        """The fields, with the password hidden (in ``password`` and in the URL):
        a settings value that reaches a log or a traceback shows no secret."""
        shown = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "url":
                value = redact_url(value)
            elif f.name == "password" and value is not None:
                value = HIDDEN
            elif f.name == "operators":
                value = tuple((u, None if p is None else HIDDEN) for u, p in value)
            shown.append(f"{f.name}={value!r}")
        return f"MqttSettings({', '.join(shown)})"

    @classmethod
    def from_url(cls, url: str, **overrides: object) -> MqttSettings:
        """Settings from a broker URL: ``mqtt://`` or ``mqtts://`` (TLS),
        optional ``user:password@``, host, optional ``:port``. Credentials in
        the URL are percent-decoded; ``overrides`` set any other field."""
        host, port, tls, user, password = _parse(url)
        del host, port, tls
        fields: dict[str, object] = {"url": url}
        if user is not None:
            fields["username"] = user
        if password is not None:
            fields["password"] = password
        fields.update(overrides)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(fields) - known)
        if unknown:
            raise BusError(f"unknown MQTT setting(s): {', '.join(map(repr, unknown))}")
        return cls(**fields)  # type: ignore[arg-type]

    @property
    def host(self) -> str:
        return _parse(self.url)[0]

    @property
    def port(self) -> int:
        return _parse(self.url)[1]

    @property
    def tls(self) -> bool:
        """True for ``mqtts://`` or when a CA / client certificate is given."""
        return _parse(self.url)[2] or self.tls_ca is not None or self.tls_cert is not None

    def redacted_url(self) -> str:
        """The URL without its password, for logs and status payloads."""
        host, port, tls, _user, _pw = _parse(self.url)
        scheme = "mqtts" if tls else "mqtt"
        who = f"{self.username}@" if self.username else ""
        return f"{scheme}://{who}{host}:{port}"

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for this connection, or None for plain TCP.

        Reads the CA and client certificate files (small, once per connect).
        A missing or unreadable file is a :class:`BusError` naming it.
        """
        if not self.tls:
            return None
        try:
            ctx = ssl.create_default_context(cafile=self.tls_ca)
            if self.tls_cert is not None:
                ctx.load_cert_chain(self.tls_cert, self.tls_key)
        except (OSError, ssl.SSLError) as exc:
            raise BusError(f"cannot load MQTT TLS files for {self.redacted_url()}: {exc}") from exc
        if self.tls_insecure:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx


def _parse(url: str) -> tuple[str, int, bool, str | None, str | None]:
    """``(host, port, tls, user, password)`` of a broker URL, or BusError."""
    shown = redact_url(url)  # errors never show the password
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        # urllib's own words quote the netloc or the port, which may be part of
        # a password typed with an unescaped '/': said without them.
        why = "invalid port" if "port" in str(exc).lower() else "malformed host"
        raise BusError(f"invalid MQTT URL: {shown!r} ({why})") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise BusError(f"invalid MQTT URL: {shown!r} (expected mqtt://host[:port] or mqtts://...)")
    if not parts.hostname:
        raise BusError(f"invalid MQTT URL: {shown!r} (no host)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BusError(f"invalid MQTT URL: {shown!r} (unexpected path or query)")
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return (
        parts.hostname,
        port if port is not None else DEFAULT_PORTS[scheme],
        scheme == "mqtts",
        user or None,
        password,
    )
