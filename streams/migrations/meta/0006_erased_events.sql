-- Tombstones of erased events (issue 20): an erasure deletes the contact's ledger rows, and with them
-- the unique (tenant_id, event_id) that made a re-sent event a duplicate. What stays is a keyed hash
-- of each erased event id (streams/tracking_key.event_tombstone: HMAC-SHA256 under the data dir's
-- tracking key), so the ingest still answers a re-send as a duplicate and nothing comes back, while
-- the table names no event and no contact to whoever reads it without the key.
CREATE TABLE IF NOT EXISTS rapport.erased_events (
    tenant_id  text        NOT NULL,
    event_key  text        NOT NULL,
    erased_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, event_key)
);
