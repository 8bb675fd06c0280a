"""Crypto-shredding: the personal content of the Kafka log is unreadable once its contact is erased.

The interactions topic keeps every message forever (unlimited retention, no compaction), so deleting
rows cannot take a contact out of the log. Instead every event's `payload` goes to the broker sealed
with AES-256-GCM under a data key of its contact (`rapport.contact_keys`); erasure deletes the key in
the transaction that deletes the contact's rows (agents/projector.py::erase_contact), and every
copy of the contact's events in the log becomes noise at that moment. Later events of the contact get
a fresh key, so "later events start from zero" still holds.

What is sealed and what stays clear:
  - only `payload`: ids, type, times and the key stay clear, so routing (partition key), idempotency
    (event ids), ordering and dead-lettering work without a key;
  - events with an empty payload (ContactErased, ContactTick) stay clear: they carry nothing
    personal, and an erasure must stay readable after the key it deletes is gone;
  - the ledger (PostgreSQL) keeps plaintext: erasure deletes its rows, and it is what the relay and
    `rapport replay --from ledger` read.

A sealed payload is `{"enc": "aesgcm-v1", "nonce": <b64>, "ct": <b64>}`. The key is 32 random bytes
(no derivation: each contact has its own independent key). The nonce is 96 random bits per message;
a random nonce is safe with one key for about 2**32 messages, far beyond one contact's lifetime. The
associated data binds the ciphertext to (tenant, contact, event id): a sealed payload moved to
another contact's or event's envelope does not open. Events in the log from before this scheme
(plain payloads) are still accepted; they are not protected.

The pure functions come first; the key store (PostgreSQL, one round trip per batch) and its cache
follow.
"""
from __future__ import annotations

import base64
import logging
import os
from collections import OrderedDict
from dataclasses import replace
from typing import Any, Iterable

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from psycopg.rows import tuple_row

from streams import metrics
from schemas.codec import decode
from schemas.envelope import Envelope, InvalidEvent

log = logging.getLogger("rapport.shredding")

SCHEME = "aesgcm-v1"
SEALED_FIELDS = frozenset({"enc", "nonce", "ct"})
KEY_BYTES = 32
NONCE_BYTES = 12

Contact = tuple[str, str]  # (tenant_id, contact_id)


class Shredded(Exception):
    """The payload cannot be opened: its contact's key was erased (or the ciphertext was altered).
    The event is skipped, not dead-lettered: a dead letter would only park the same unreadable bytes."""

    def __init__(self, reason: str, event_id: str | None = None):
        super().__init__(reason)
        self.reason, self.event_id = reason, event_id

    def skip(self) -> None:
        """Count and log the skip (the caller counts it among its skipped events too)."""
        metrics.SHREDDED.inc()
        log.info("event %s skipped: shredded (%s)", self.event_id, self.reason)


# ------------------------------------------------------------------ pure functions
def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=KEY_BYTES * 8)


def associated_data(tenant_id: str, contact_id: str, event_id: str) -> bytes:
    # a JSON array, so no choice of ids can make two different triples give the same bytes
    return orjson.dumps([SCHEME, tenant_id, contact_id, event_id])


def is_sealed(payload: Any) -> bool:
    return isinstance(payload, dict) and payload.keys() == SEALED_FIELDS


def needs_seal(payload: Any) -> bool:
    """Empty payloads stay clear (see the module docstring); so does one that is already sealed."""
    return bool(payload) and not is_sealed(payload)


def seal_payload(payload: dict[str, Any], key: bytes, tenant_id: str, contact_id: str, event_id: str,
                 nonce: bytes | None = None) -> dict[str, str]:
    """`nonce` is for tests only: a nonce must never repeat under one key."""
    nonce = nonce or os.urandom(NONCE_BYTES)
    ct = AESGCM(key).encrypt(nonce, orjson.dumps(payload), associated_data(tenant_id, contact_id, event_id))
    return {"enc": SCHEME, "nonce": base64.b64encode(nonce).decode(), "ct": base64.b64encode(ct).decode()}


def open_payload(sealed: dict[str, Any], key: bytes | None, tenant_id: str, contact_id: str,
                 event_id: str) -> dict[str, Any]:
    """The plaintext payload; Shredded when the key is gone or does not open it; InvalidEvent when it
    is not a payload this build can open (a dead letter, not a shredded event)."""
    if sealed.get("enc") != SCHEME:
        raise InvalidEvent(f"payload sealed with an unknown scheme {sealed.get('enc')!r}")
    try:
        nonce, ct = base64.b64decode(sealed["nonce"], validate=True), base64.b64decode(sealed["ct"], validate=True)
    except (ValueError, TypeError):
        raise InvalidEvent("sealed payload is not base64") from None
    if len(nonce) != NONCE_BYTES:
        raise InvalidEvent("sealed payload has a bad nonce")
    if key is None:
        raise Shredded("no key")
    try:
        plain = AESGCM(key).decrypt(nonce, ct, associated_data(tenant_id, contact_id, event_id))
    except InvalidTag:
        raise Shredded("key does not open it") from None
    return orjson.loads(plain)


def _ids(d: dict[str, Any]) -> tuple[str, str, str]:
    return d["tenant_id"], d["contact_id"], d["event_id"]


def seal_dict(d: dict[str, Any], key: bytes) -> dict[str, Any]:
    """A wire envelope (dict) with its payload sealed; unchanged when it needs no sealing."""
    if not needs_seal(d.get("payload")):
        return d
    return {**d, "payload": seal_payload(d["payload"], key, *_ids(d))}


def open_dict(d: dict[str, Any], key: bytes | None) -> dict[str, Any]:
    """A wire envelope (dict) with its payload opened; unchanged when it is not sealed (older logs)."""
    if not is_sealed(d.get("payload")):
        return d
    return {**d, "payload": open_payload(d["payload"], key, *_ids(d))}


def seal_envelope(env: Envelope, key: bytes | None) -> Envelope:
    if not needs_seal(env.payload):
        return env
    assert key is not None, "a payload to seal needs its contact's key"
    return replace(env, payload=seal_payload(env.payload, key, env.tenant_id, env.contact_id, env.event_id))


def contacts_to_seal(items: Iterable[Envelope | dict[str, Any]]) -> set[Contact]:
    """The contacts whose key sealing these events needs."""
    out = set()
    for x in items:
        d = x if isinstance(x, dict) else {"tenant_id": x.tenant_id, "contact_id": x.contact_id, "payload": x.payload}
        if needs_seal(d.get("payload")):
            out.add((d["tenant_id"], d["contact_id"]))
    return out


def sealed_contacts(parsed: Iterable[Any]) -> set[Contact]:
    """The contacts of the sealed envelopes among parsed records (anything not a dict is ignored)."""
    return {(d.get("tenant_id"), d.get("contact_id")) for d in parsed
            if isinstance(d, dict) and is_sealed(d.get("payload"))}


def parse(raw: bytes) -> Any:
    """A record's value as a dict when it parses, else the raw bytes (decode() reports why)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw


# ------------------------------------------------------------------ the key store
_FETCH = ("SELECT k.tenant_id, k.contact_id, k.key FROM rapport.contact_keys k "
          "JOIN unnest(%s::text[], %s::text[]) AS b(t, c) ON k.tenant_id = b.t AND k.contact_id = b.c")
# One round trip: insert the missing keys, read the existing ones. ON CONFLICT DO NOTHING writes
# nothing for an existing key (no row version churn on every ingest); the CTE's SELECT sees the
# snapshot from before the INSERT, so together they return every key exactly once -- except a key
# another transaction inserted concurrently, which get_or_create_keys reads with a second query.
_GET_OR_CREATE = (
    "WITH ins AS (INSERT INTO rapport.contact_keys (tenant_id, contact_id, key) "
    "SELECT * FROM unnest(%s::text[], %s::text[], %s::bytea[]) ON CONFLICT (tenant_id, contact_id) DO NOTHING "
    "RETURNING tenant_id, contact_id, key) "
    "SELECT tenant_id, contact_id, key FROM ins UNION ALL " + _FETCH)


async def fetch_keys(conn: Any, contacts: Iterable[Contact], *, lock: bool = False) -> dict[Contact, bytes]:
    """The existing keys of these contacts (an erased contact has none), in one query. `lock`: share-lock
    them until the caller's transaction ends, so an erasure cannot delete a key while what was opened
    with it is being stored (streams/webhooks/delivery.py)."""
    cs = sorted(set(contacts))
    if not cs:
        return {}
    async with conn.cursor(row_factory=tuple_row) as cur:
        await cur.execute(_FETCH + (" FOR SHARE OF k" if lock else ""), ([t for t, _ in cs], [c for _, c in cs]))
        return {(t, c): bytes(k) for t, c, k in await cur.fetchall()}


async def get_or_create_keys(conn: Any, contacts: Iterable[Contact]) -> dict[Contact, bytes]:
    """Every contact's key, creating the missing ones, in one round trip (two on a concurrent create)."""
    cs = sorted(set(contacts))
    if not cs:
        return {}
    ts, ids = [t for t, _ in cs], [c for _, c in cs]
    async with conn.cursor(row_factory=tuple_row) as cur:
        await cur.execute(_GET_OR_CREATE, (ts, ids, [new_key() for _ in cs], ts, ids))
        keys = {(t, c): bytes(k) for t, c, k in await cur.fetchall()}
    if len(keys) < len(cs):  # another transaction created some of them after our snapshot
        keys.update(await fetch_keys(conn, [k for k in cs if k not in keys]))
    return keys


async def forget_keys_before(conn: Any, tenant_id: str, contact_id: str, erasure_event_id: str | None) -> None:
    """Delete the contact's data key if it was created before the erasure was recorded (every key when the
    erasure is not in the ledger). The API calls it when it records the erasure, so events accepted after
    the DELETE are sealed with a new key at once; the worker calls it again when it applies the erasure,
    and leaves that new key alone (deleting it would shred the contact's later events)."""
    await conn.execute(
        "DELETE FROM rapport.contact_keys WHERE tenant_id=%s AND contact_id=%s AND (since_seq IS NULL OR "
        "since_seq < COALESCE((SELECT seq FROM rapport.ledger WHERE tenant_id=%s AND event_id=%s), "
        "9223372036854775807))", (tenant_id, contact_id, tenant_id, erasure_event_id))


class KeyRing:
    """Contact keys cached in one process. Safe to cache only where every erasure that can delete a
    cached key is seen: in a worker, which applies the erasures of its partitions' contacts itself
    (agents/pipeline.py calls forget() after each batch that erased, and for all keys when partitions
    move). The API and the relay do not cache: they cannot see a worker's erasure, and must seal events
    recorded after it with the contact's new key."""

    def __init__(self, size: int = 50_000):
        self.size = size
        self._cache: OrderedDict[Contact, bytes] = OrderedDict()
        self._generation = 0  # bumped by forget(): a lookup that raced an erasure does not cache

    def forget(self, contacts: Iterable[Contact] | None = None) -> None:
        self._generation += 1
        if contacts is None:
            self._cache.clear()
        for k in contacts or ():
            self._cache.pop(k, None)

    async def fetch(self, conn: Any, contacts: Iterable[Contact], *, create: bool = False,
                    refresh: bool = False) -> dict[Contact, bytes]:
        """Keys from the cache, the rest in one query (created when `create`); `refresh` skips the cache."""
        want = set(contacts)
        got = {} if refresh else {k: self._cache[k] for k in want if k in self._cache}
        missing = want - got.keys()
        if missing:
            generation = self._generation
            found = await (get_or_create_keys if create else fetch_keys)(conn, missing)
            got.update(found)
            if generation == self._generation:
                for k, v in found.items():
                    self._cache[k] = v
                    self._cache.move_to_end(k)
                while len(self._cache) > self.size:
                    self._cache.popitem(last=False)
        return got

    async def open_records(self, conn: Any, values: list[bytes]) -> list[Any]:
        """Record values -> what decode_opened() takes: the envelope dict with its payload opened (the raw
        bytes when it does not parse, the InvalidEvent when a sealed payload is malformed), or Shredded. Keys: one query for the batch;
        a cached key that does not open an event is re-read once before the event counts as shredded."""
        parsed = [parse(v) for v in values]
        keys = await self.fetch(conn, sealed_contacts(parsed))
        out: list[Any] = []
        for d in parsed:
            if not (isinstance(d, dict) and is_sealed(d.get("payload"))):
                out.append(d)
                continue
            contact = (d.get("tenant_id"), d.get("contact_id"))
            try:
                try:
                    out.append(open_dict(d, keys.get(contact)))
                except Shredded:
                    if contact not in keys:
                        raise
                    keys.update(await self.fetch(conn, [contact], refresh=True))
                    out.append(open_dict(d, keys.get(contact)))
            except Shredded as why:
                out.append(Shredded(why.reason, d.get("event_id")))
            except InvalidEvent as err:
                out.append(err)
            except (KeyError, TypeError):
                out.append(d)  # missing or mistyped ids: decode() dead-letters it with the reason
        return out


def decode_opened(value: Any) -> Envelope:
    """decode() for an item of open_records (not a Shredded): InvalidEvent for a dead letter."""
    if isinstance(value, InvalidEvent):
        raise value
    return decode(value)
