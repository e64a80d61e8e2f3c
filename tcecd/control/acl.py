"""Who may do what on the broker: Mosquitto's password file and ACL. Pure.

MQTT 3.1.1 does not tell a subscriber who published a message, so neither a
viewer nor the daemon can tell a forged ``standings`` or ``control`` message
from a real one: the broker's ACL is the only guard. For ``mqtt: embedded``
tcecd writes both files for its Mosquitto (:mod:`tcecd.bus.embedded`):

* anonymous clients (viewers, browsers on the websockets listener) may
  subscribe and read, and publish nothing;
* the daemon's own account (:data:`~tcecd.config.runtime.DAEMON_USER`, with a
  password made at each start and kept in memory) publishes the event's
  topics and reads its ``control`` topic;
* each operator account (``mqtt.operators``) publishes ``control`` and reads
  everything.

:func:`acl_text` is the ACL, :func:`password_line` one line of the password
file in the hashed form Mosquitto 2.x reads (``$7$``: PBKDF2-HMAC-SHA512,
the form ``mosquitto_passwd`` writes), so no password is ever written in
clear or passed on a command line. docs/operations.md gives the same lines
for an external Mosquitto.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Sequence

#: PBKDF2 iterations and salt length of Mosquitto 2.x's ``$7$`` hashes
#: (``mosquitto_passwd``'s defaults: src/password_mosq.c).
ITERATIONS = 101
SALT_BYTES = 12


def password_hash(password: str, *, salt: bytes | None = None,
                  iterations: int = ITERATIONS) -> str:
    """``password`` as Mosquitto 2.x stores it: ``$7$<iterations>$<salt>$<hash>``
    (standard base64), PBKDF2-HMAC-SHA512 with a 64-byte key."""
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    key = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations, 64)
    b64 = base64.b64encode
    return f"$7${iterations}${b64(salt).decode()}${b64(key).decode()}"


def password_line(username: str, password: str) -> str:
    """One line of a Mosquitto password file."""
    if ":" in username or "\n" in username:
        raise ValueError(f"user name {username!r} cannot be in a Mosquitto password file")
    return f"{username}:{password_hash(password)}\n"


def acl_text(root: str, daemon: str, operators: Sequence[str]) -> str:
    """The ACL of an event's broker: ``root`` is ``<prefix>/<event slug>``."""
    lines = [
        "# Written by tcecd: anonymous clients read, only tcecd publishes the event,",
        "# operators publish commands (docs/operations.md).",
        "topic read #",
        "",
        f"user {daemon}",
        f"topic readwrite {root}/#",
    ]
    for name in operators:
        lines += ["", f"user {name}", "topic read #", f"topic write {root}/control"]
    return "\n".join(lines) + "\n"
