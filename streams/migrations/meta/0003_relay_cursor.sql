-- The relay's position in the ledger per projection schema (streams/outbox.py): every ledger row at
-- or below `seq` is applied by that projection, so a restarted API resumes from here instead of
-- rescanning the whole ledger, and backlog counts start here.
CREATE TABLE IF NOT EXISTS rapport.relay_cursor (
    schema_name text        PRIMARY KEY,
    seq         bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
