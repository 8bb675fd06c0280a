"""Secrets through the real pipeline and PostgreSQL (issue 20): a card split over two messages of one
contact leaves no digits in any projection, whether the two arrive in one batch or two (the carries a
batch computes up front match the fold's), and a tenant's policy keeps its phone numbers."""
from __future__ import annotations

import pytest

from agents.core import contact as core
from agents.core.redaction import parse_policy
from agents.pipeline import InteractionPipeline
from streams import db
from tests.helpers import FakeEmbedder, interaction, records

pytestmark = [pytest.mark.pg, pytest.mark.asyncio]

SPLIT = [("s1", "I want to pay, my card is 4242 4242"), ("s2", "4242 4242"), ("s3", "my pin is"),
         ("s4", "6 6 2 0 and my cell is +44 7911 123456"), ("s5", "I love hiking in the Alps")]


def projected_text(pg_url: str, version: str) -> str:
    with db.connect(pg_url) as conn:
        conn.execute(f"SET search_path TO {db.schema_of(version)}, rapport, public")
        parts = [conn.execute(f"SELECT coalesce(string_agg(t::text, ' '), '') FROM {table} t").fetchone()[0]
                 for table in ("memories", "contacts", "sessions", "events", "session_summaries", "entities")]
    return " ".join(parts)


async def run(pg_url: str, version: str, batches: list[list[int]], tenant: str = "acme") -> str:
    conn = await db.connect_async(pg_url, schema=db.schema_of(version))
    p = InteractionPipeline(conn, FakeEmbedder(), broker_epoch="e",
                            config=core.CoreConfig(redaction=parse_policy("globex: phone=off")))
    envs = [interaction(i, m, contact="c", tenant=tenant, minutes=n) for n, (i, m) in enumerate(SPLIT)]
    for batch in batches:
        await p.process(records([envs[i] for i in batch], start_offset=batch[0]))
    await conn.close()
    return projected_text(pg_url, version)


@pytest.mark.parametrize("batches", [[[0, 1, 2, 3, 4]], [[0], [1], [2], [3], [4]], [[0, 1, 2], [3, 4]]])
async def test_a_split_secret_leaves_no_digits_however_batched(pg_url, version, batches):
    text = await run(pg_url, version, batches)
    assert "Alps" in text  # the projections were written
    for secret in ("4242", "6 6 2 0", "7911"):
        assert secret not in text, secret
    assert "[redacted card number]" in text and "[redacted PIN]" in text and "[redacted phone number]" in text


async def test_a_tenant_that_turned_phones_off_keeps_them(pg_url, version):
    text = await run(pg_url, version, [[0, 1, 2, 3, 4]], tenant="globex")
    assert "+44 7911 123456" in text and "4242" not in text and "6 6 2 0" not in text
