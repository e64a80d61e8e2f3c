"""MqttSettings: broker URLs, validation, TLS files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.bus.settings import MqttSettings
from tcecd.errors import BusError


def test_defaults() -> None:
    s = MqttSettings()
    assert (s.host, s.port, s.tls, s.topic_prefix, s.qos) == ("127.0.0.1", 1883, False, "tcecd", 1)
    assert s.ssl_context() is None


def test_url_with_credentials_and_tls() -> None:
    s = MqttSettings.from_url("mqtts://viewer:p%40ss%3Aword@broker.example.org")
    assert (s.host, s.port, s.tls) == ("broker.example.org", 8883, True)
    assert (s.username, s.password) == ("viewer", "p@ss:word")
    assert "p@ss" not in s.redacted_url()
    assert s.redacted_url() == "mqtts://viewer@broker.example.org:8883"


def test_url_port_and_overrides() -> None:
    s = MqttSettings.from_url("mqtt://10.0.0.5:2883", topic_prefix="lab/tcec", qos=0)
    assert (s.host, s.port, s.topic_prefix, s.qos) == ("10.0.0.5", 2883, "lab/tcec", 0)


@pytest.mark.parametrize(
    "url",
    ["http://broker:1883", "mqtt://", "mqtt://host:port", "mqtt://host:1883/topic",
     "broker:1883", "mqtt://host:99999", "mqtt://host?x=1"],
)
def test_bad_urls_name_the_url(url: str) -> None:
    with pytest.raises(BusError) as err:
        MqttSettings.from_url(url)
    assert repr(url) in str(err.value)


def test_bad_values() -> None:
    with pytest.raises(BusError, match="qos"):
        MqttSettings(qos=3)
    with pytest.raises(BusError, match="topic prefix"):
        MqttSettings(topic_prefix="tcecd/#")
    with pytest.raises(BusError, match="topic prefix"):
        MqttSettings(topic_prefix="a//b")
    with pytest.raises(BusError, match="queue_limit"):
        MqttSettings(queue_limit=0)
    with pytest.raises(BusError, match="'colour'"):
        MqttSettings.from_url("mqtt://h", colour="blue")


def test_missing_tls_file_is_a_bus_error(tmp_path: object) -> None:
    s = MqttSettings.from_url("mqtts://h", tls_ca="/nonexistent/ca.crt")
    with pytest.raises(BusError, match="TLS"):
        s.ssl_context()


def test_tls_insecure_turns_off_verification() -> None:
    import ssl

    ctx = MqttSettings.from_url("mqtts://h", tls_insecure=True).ssl_context()
    assert ctx is not None
    assert ctx.verify_mode == ssl.CERT_NONE
    assert not ctx.check_hostname


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=6, max_size=30).filter(lambda s: "***" not in s),
       st.sampled_from(["broker", "broker:1883", "[::1]:8883", "broker/x", "broker:x"]))
def test_a_urls_password_never_shows_whatever_it_holds(password: str, rest: str) -> None:
    """Issue 28: errors and logs show the URL, never its password, also when
    the password holds '/', '@' or ':' unescaped (a URL that does not parse)."""
    from tcecd.bus.settings import redact_url

    url = f"mqtt://alice:{password}@{rest}"
    shown = redact_url(url)
    assert shown == f"mqtt://alice:***@{rest}"
    reasons = ("invalid port", "malformed host", "unexpected path or query", "no host")
    error = ""
    try:
        MqttSettings.from_url(url)
    except BusError as exc:
        error = str(exc)
    # Only the redacted URL and a reason of tcecd's own words.
    assert not error or error in {f"invalid MQTT URL: {shown!r} ({why})" for why in reasons}


def test_a_password_over_plain_mqtt_to_another_host_is_warned_of() -> None:
    """Issue 28: plain mqtt:// carries the password in clear text."""
    far = MqttSettings.from_url("mqtt://alice:pw@broker.example.org")
    warning = far.plain_password_warning()
    assert warning == (
        "the MQTT password for mqtt://alice@broker.example.org:1883 goes over the network "
        "unencrypted (plain mqtt:// to a host that is not loopback); use mqtts:// "
        "(docs/operations.md, 'Secure the broker')"
    )
    for quiet in ("mqtts://alice:pw@broker.example.org", "mqtt://alice:pw@127.0.0.1",
                  "mqtt://alice:pw@[::1]", "mqtt://alice:pw@localhost", "mqtt://alice@far.org"):
        assert MqttSettings.from_url(quiet).plain_password_warning() is None, quiet
    assert MqttSettings.from_url("mqtt://alice:pw@far.org",
                                 tls_ca="/ca.pem").plain_password_warning() is None


async def test_the_publisher_logs_the_warning_when_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(Its connection task is replaced: the test must not reach for another host.)"""
    from tcecd.bus.publisher import Publisher

    async def idle(self: Publisher) -> None:
        return None

    monkeypatch.setattr(Publisher, "_run", idle)
    logged: list[str] = []

    class Log:
        def warning(self, event: str, **_kw: object) -> None:
            logged.append(event)

        def info(self, event: str, **_kw: object) -> None:
            pass

    settings = MqttSettings.from_url("mqtt://alice:pw@broker.example.org")
    async with Publisher(settings, event="x", log=Log(), close_timeout_s=0):
        pass
    assert logged[:1] == [settings.plain_password_warning()]
