"""Where a webhook may point (SSRF): one rule, drawbridge's, at subscription and at every delivery.

drawbridge (an httpx transport) resolves the host once, refuses the request when any address is
loopback, private, link-local, shared, multicast or reserved, or the port is not a usual web port
(80, 443, 8080, 8443), and connects to the address it checked (with the original Host and TLS name),
so a DNS answer that changes between check and connect (rebinding) cannot reach an internal service.
Redirects are not followed: a 3xx is a failed attempt. RAPPORT_WEBHOOK_ALLOW_PRIVATE=1 lifts the
address and port rule (tests, trusted networks).
"""
from __future__ import annotations

from urllib.parse import urlsplit

import drawbridge
from drawbridge._validator import resolve_and_validate  # the transport's own check (pinned <0.2)

from streams.webhooks.rules import Config

ANY_PORT = frozenset(range(1, 65536))
USER_AGENT = "rapport-webhooks/1"


def policy(cfg: Config) -> drawbridge.Policy:
    return drawbridge.Policy(allow_private=cfg.allow_private,
                             **({"allow_ports": ANY_PORT} if cfg.allow_private else {}),
                             timeout=cfg.timeout_s, max_redirects=0, user_agent=USER_AGENT,
                             max_response_bytes=64 * 1024)


def client(cfg: Config) -> drawbridge.Client:
    return drawbridge.Client(policy(cfg))


async def address_problem(url: str, cfg: Config) -> str | None:
    """Why deliveries to `url` would be refused (resolved now), or None. For a URL url_problem passed."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        await resolve_and_validate(parts.hostname or "", port, policy(cfg))
    except drawbridge.UnsafePortError:
        return "port must be one of 80, 443, 8080, 8443"
    except drawbridge.DrawbridgeDNSError:
        return "host does not resolve"
    except drawbridge.DrawbridgeError:
        return "must not point at a loopback, private or reserved address"
    return None
