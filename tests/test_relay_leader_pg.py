"""More than one API process (`rapport up --api-processes`): one relays the ledger to the broker at a time,
the others take over when it is gone (projections/service.Service.relay_leader, a PostgreSQL advisory lock)."""
import asyncio
import dataclasses

from projections.service import ApiSettings, Service
from streams.config import settings


def service(pg_url: str, monkeypatch) -> Service:
    """An API service of its own on the test's database (built, not patched into the environment)."""
    return Service(ApiSettings(base=dataclasses.replace(settings(), database_url=pg_url)))


def test_one_process_relays_and_another_takes_over_when_it_is_gone(pg_url, monkeypatch):
    async def run() -> None:
        a, b = service(pg_url, monkeypatch), service(pg_url, monkeypatch)
        try:
            assert await a.relay_leader() is True
            assert await b.relay_leader() is False
            assert await a.relay_leader() is True  # still its own, pass after pass
            assert await b.relay_leader() is False
            await a.relay_lock.close()  # the relaying process died: PostgreSQL lets its lock go, soon
            for _ in range(100):
                if await b.relay_leader():
                    break
                await asyncio.sleep(0.05)
            assert b.relay_leading is True
            assert await a.relay_leader() is False  # back, it follows
        finally:
            for s in (a, b):
                if s.relay_lock is not None:
                    await s.relay_lock.close()

    asyncio.run(run())
