-- Crypto-shredding (streams/shredding.py): one data key per contact. Event payloads go to the broker
-- sealed with it; erasure deletes the row in the transaction that deletes the contact's other rows,
-- so every copy of the contact's events in the log (unlimited retention) becomes unreadable. Plain
-- key material in PostgreSQL: the log is what this protects, and the database already holds the
-- plaintext (projections, ledger) until the erasure.
CREATE TABLE IF NOT EXISTS rapport.contact_keys (
    tenant_id  text        NOT NULL,
    contact_id text        NOT NULL,
    key        bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, contact_id)
);
