"""The tracking key: the secret behind ids that must not name a contact (issue 20).

An erasure leaves two records that outlive the contact's data: the tracking record of the erasure
(`erased_tracking_id`, in processed_events and webhook deliveries) and a tombstone per erased event id
(rapport.erased_events, `event_tombstone`), which makes a re-send of those ids a duplicate rather than
a resurrection. Both are HMAC-SHA256 under this key, so neither can be reversed by hashing guesses
(a contact id is often a phone number: an unsalted hash of `tenant/contact` is a lookup away), nor
recomputed by whoever reads a database dump without the data dir.

Where the key comes from, first found:
  - RAPPORT_TRACKING_KEY: the secret itself (external deployments: from their secret store; at least
    16 characters);
  - RAPPORT_TRACKING_KEY_FILE: a file holding it; `rapport up` points it at `<data-dir>/tracking-key`,
    created on first start (32 random bytes, hex, mode 0600, never through a symlink);
  - neither: a key made for this process alone, with a warning (a library or test process; tombstones
    written by another process will not be recognised).
Changing the key makes earlier tombstones unrecognisable (re-sends of ids erased before are accepted
again) and earlier erasure tracking records unmatchable: keep it with the data dir's backups.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import stat
from pathlib import Path

log = logging.getLogger("rapport.tracking_key")

ENV_KEY = "RAPPORT_TRACKING_KEY"
ENV_FILE = "RAPPORT_TRACKING_KEY_FILE"
FILE_NAME = "tracking-key"
MIN_SECRET_CHARS = 16

_cached: tuple[tuple[str | None, str | None], bytes] | None = None
_ephemeral: bytes | None = None


class TrackingKeyError(RuntimeError):
    pass


def ensure_file(path: str | Path) -> Path:
    """Create the key file if it is missing (0600, exclusively, not following a symlink); refuse one
    that is a symlink, not a regular file, not ours, or readable by others. Returns the path."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        _check(p)
        return p
    try:
        os.write(fd, (secrets.token_hex(32) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return p


def _check(p: Path) -> None:
    st = os.lstat(p)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        raise TrackingKeyError(f"{p} is not a regular file (a symlink?): refusing it as the tracking key")
    if st.st_uid != os.geteuid():
        raise TrackingKeyError(f"{p} belongs to uid {st.st_uid}, not to this user: refusing it as the tracking key")
    if st.st_mode & 0o077:
        raise TrackingKeyError(f"{p} is readable or writable by others (mode {stat.S_IMODE(st.st_mode):o}): "
                               f"chmod 600 it")


def _read_file(path: str) -> bytes:
    p = Path(path)
    _check(p)
    fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        secret = f.read().strip()
    if len(secret) < MIN_SECRET_CHARS:
        raise TrackingKeyError(f"{p} holds fewer than {MIN_SECRET_CHARS} characters")
    return secret


def key() -> bytes:
    """The key in force (re-read when the environment names another one)."""
    global _cached, _ephemeral
    where = (os.environ.get(ENV_KEY) or None, os.environ.get(ENV_FILE) or None)
    if _cached is not None and _cached[0] == where:
        return _cached[1]
    if where[0] is not None:
        if len(where[0]) < MIN_SECRET_CHARS:
            raise TrackingKeyError(f"{ENV_KEY} must be at least {MIN_SECRET_CHARS} characters")
        k = where[0].encode()
    elif where[1] is not None:
        k = _read_file(where[1])
    else:
        if _ephemeral is None:
            log.warning("no tracking key configured (%s or %s): using one for this process only; erasure "
                        "tombstones will not be recognised by other processes", ENV_KEY, ENV_FILE)
            _ephemeral = secrets.token_bytes(32)
        k = _ephemeral
    _cached = (where, k)
    return k


def keyed(kind: str, *parts: str) -> str:
    """HMAC-SHA256 (hex) of the parts under the tracking key; `kind` keeps the uses apart. \\x1f cannot
    occur in an id (schemas/validate.check_id), so the parts cannot run into each other."""
    msg = "\x1f".join((kind, *parts)).encode()
    return hmac.new(key(), msg, hashlib.sha256).hexdigest()


def erased_tracking_id(tenant_id: str, contact_id: str) -> str:
    """The contact id of an erasure's tracking records: one-way, and keyed (not sha256(tenant/contact))."""
    return "erased:" + keyed("erased-contact", tenant_id, contact_id)[:32]


def event_tombstone(tenant_id: str, event_id: str) -> str:
    """What rapport.erased_events keeps of an erased event id: the tenant's id space, keyed."""
    return keyed("erased-event", tenant_id, event_id)
