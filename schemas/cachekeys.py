"""Redis key names: one neutral place that the write side (agents/pipeline.py) and the read side
(projections/api.py) both import.

Every tenant/contact component is percent-encoded with nothing left safe, so it holds no `:` and no
`%` of its own: the key is an injective function of (tenant, contact). A plain `{tenant}:{contact}`
join was not: tenant `acme:x` / contact `y` and tenant `acme` / contact `x:y` shared one key, and
one tenant read the other's session window.
"""
from __future__ import annotations

from urllib.parse import quote, unquote

# v2: the encoded form (v1 keys, `rapport:window:{tenant}:{contact}`, expire with their TTL unread)
WINDOW_PREFIX = "rapport:window:v2:"
WORKER_PREFIX = "rapport:workers:"


def component(value: str) -> str:
    """One key component: UTF-8 percent-encoding, every byte outside [A-Za-z0-9_.~-] escaped."""
    return quote(value, safe="")


def window_key(tenant_id: str, contact_id: str) -> str:
    """The contact's recent session window (a cache of the projected state's `window`)."""
    return f"{WINDOW_PREFIX}{component(tenant_id)}:{component(contact_id)}"


def parse_window_key(key: str) -> tuple[str, str]:
    """(tenant, contact) of a window key: the inverse of window_key."""
    if not key.startswith(WINDOW_PREFIX):
        raise ValueError(f"not a window key: {key!r}")
    tenant, sep, contact = key[len(WINDOW_PREFIX):].partition(":")
    if not sep or ":" in contact:
        raise ValueError(f"not a window key: {key!r}")
    return unquote(tenant, errors="strict"), unquote(contact, errors="strict")


def worker_key(worker_id: str) -> str:
    """A worker's heartbeat (its assigned partitions); /healthz counts these."""
    return WORKER_PREFIX + component(worker_id)
