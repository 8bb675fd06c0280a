-- Backpressure (streams/outbox.py, README "Backpressure"): per tenant, the unprocessed backlog last
-- measured from the ledger and the events admitted since. An admission takes the tenant's advisory
-- lock and keeps it until its ledger rows commit, so API processes admit one at a time per tenant and
-- measured + admitted is never below the tenant's real backlog.
CREATE TABLE IF NOT EXISTS rapport.backlog_admission (
    tenant_id   text        PRIMARY KEY,
    measured    bigint      NOT NULL,
    admitted    bigint      NOT NULL DEFAULT 0,
    measured_at timestamptz NOT NULL
);
