"""Signed records: the workers apply only what rapport itself (or a producer given its key) published.

The broker is reachable by anything that can open its port (the embedded one listens on loopback
with no authentication), so every record rapport publishes to its topics carries an HMAC-SHA256 of
its bytes in the header `rapport-sig`, under a secret shared by the API and the workers (the record
key: `<data-dir>/record-key` in the embedded default, RAPPORT_RECORD_KEY or RAPPORT_RECORD_KEY_FILE
elsewhere). A worker checks it before it even parses the record; an unsigned or badly signed one
becomes a dead letter with the reason, and nothing of it is applied or tracked (so a forged record
under a real event id cannot block that event).

The MAC covers a version tag, the record's key and its value, each length-prefixed (no two different
(key, value) pairs give the same bytes): a signed value moved under another key (another contact's
partition) does not verify. Not covered: headers (trace context) and the topic. The ledger is not
signed: it is PostgreSQL's, behind its password, and the relay signs what it re-publishes.

Pure functions; the key is read by streams/config.py.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Any

HEADER = "rapport-sig"
TAG = b"rapport-record-v1"
MIN_KEY_BYTES = 32


def signature(key: bytes, record_key: bytes | None, value: bytes) -> bytes:
    """The hex HMAC-SHA256 of (TAG, record key, value), as the header carries it."""
    rk = record_key or b""
    msg = b"".join(len(p).to_bytes(8, "big") + p for p in (TAG, rk, value))
    return hmac.new(key, msg, hashlib.sha256).hexdigest().encode()


def signed_headers(key: bytes | None, record_key: bytes | None, value: bytes,
                   headers: list[tuple[str, bytes]] | None = None) -> list[tuple[str, bytes]] | None:
    """`headers` plus the signature (any earlier `rapport-sig` dropped); unchanged without a key."""
    if key is None:
        return headers
    return [(k, v) for k, v in (headers or []) if k != HEADER] + [(HEADER, signature(key, record_key, value))]


def _header(headers: Any, name: str) -> list[bytes]:
    """The values of one header, from aiokafka's tuple list, Faust's list or dict."""
    if not headers:
        return []
    items = headers.items() if isinstance(headers, dict) else headers
    out = []
    for k, v in items:
        if (k.decode("utf-8", "replace") if isinstance(k, bytes) else k) == name:
            out.append(v.encode() if isinstance(v, str) else bytes(v or b""))
    return out


def problem(key: bytes, record_key: bytes | None, value: bytes | None, headers: Any) -> str | None:
    """Why this record is not rapport's (None: it is signed with `key`), as a dead letter's reason."""
    sigs = _header(headers, HEADER)
    if not sigs:
        return f"unsigned record: no {HEADER} header (only rapport's API and workers, or a producer " \
               f"given the record key, may publish to this topic)"
    if len(sigs) > 1:
        return f"bad signature: {len(sigs)} {HEADER} headers"
    if not hmac.compare_digest(sigs[0], signature(key, record_key, value or b"")):
        return f"bad signature: {HEADER} does not match the record under the record key"
    return None


def parse_key(text: str, source: str) -> bytes:
    """A configured record key (its UTF-8 bytes, surrounding whitespace stripped); at least
    MIN_KEY_BYTES, so a guessable short secret is refused at start-up with where it came from."""
    key = text.strip().encode()
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"the record key from {source} is {len(key)} bytes; at least {MIN_KEY_BYTES} "
                         f"(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)")
    return key
