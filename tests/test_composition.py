"""The API's composition root (projections/api.create_app): each app serves with the service it was
built with, and the routes reach that one only (projections/deps.svc is bound per request)."""
from __future__ import annotations

import dataclasses

from fastapi.testclient import TestClient

from projections import api
from projections.service import ApiSettings, Service
from streams import config


class Healthy(Service):
    """A service whose checks answer without a database, broker or Redis."""

    def __init__(self, settings: ApiSettings, ok: bool) -> None:
        super().__init__(settings)
        self.ok = ok

    async def health(self) -> dict:
        return {"broker": self.ok, "database": self.ok, "cache": self.ok, "workers": int(self.ok), "ok": self.ok,
                "lag": {"events": 0, "oldestAgeS": None}}


def test_two_apps_each_answer_with_their_own_service():
    settings = ApiSettings(base=dataclasses.replace(config.settings(), auth=False))
    up, down = Healthy(settings, ok=True), Healthy(settings, ok=False)
    a = TestClient(api.create_app(settings, deps=up), raise_server_exceptions=False)
    b = TestClient(api.create_app(settings, deps=down), raise_server_exceptions=False)
    ra, rb = a.get("/healthz"), b.get("/healthz")
    assert (ra.status_code, ra.json()["status"]) == (200, "ok")
    assert (rb.status_code, rb.json()["status"]) == (503, "starting")  # never ready: starting, not unavailable
    # the handler's write (ready_once) went to the service of the app that answered, not to the other
    assert up.ready_once is True and down.ready_once is False


def test_settings_come_from_the_environment_once_with_todays_names_and_defaults(monkeypatch):
    for name in ("RAPPORT_ACCESSED_PER_RESPONSE", "RAPPORT_BACKLOG_LIMIT", "RAPPORT_LAG_DEGRADED_EVENTS",
                 "RAPPORT_LAG_DEGRADED_AGE_S", "RAPPORT_DB_POOL_TIMEOUT_S", "RAPPORT_DB_STATEMENT_TIMEOUT_S",
                 "RAPPORT_WEBHOOK_ALLOW_PRIVATE"):
        monkeypatch.delenv(name, raising=False)
    s = ApiSettings.from_env()
    assert (s.accessed_per_response, s.backlog_limit, s.lag_degraded_events, s.lag_degraded_age_s,
            s.db_pool_timeout_s, s.db_statement_timeout_s, s.webhooks.allow_private) == (5, 50000, 10000, 60.0, 3.0,
                                                                                    15.0, False)
    s = ApiSettings.from_env({"RAPPORT_BACKLOG_LIMIT": "7", "RAPPORT_DB_POOL_TIMEOUT_S": "0.5",
                              "RAPPORT_WEBHOOK_ALLOW_PRIVATE": "1"})
    assert (s.backlog_limit, s.db_pool_timeout_s, s.accessed_per_response, s.webhooks.allow_private) == (7, 0.5, 5, True)

