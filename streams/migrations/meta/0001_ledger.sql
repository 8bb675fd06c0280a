-- The shared, unversioned part: the event ledger (every interaction, the durable copy of the log in
-- the embedded default) and the registry of projection versions.
-- in public explicitly: a role named like a schema ("rapport", as in docker-compose.kafka.yml) has
-- search_path "$user", public, which would put it in schema rapport, out of the versions' search_path
CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;

CREATE TABLE IF NOT EXISTS rapport.ledger (
    seq            bigserial   PRIMARY KEY,
    tenant_id      text        NOT NULL,
    contact_id     text        NOT NULL,
    event_id       text        NOT NULL,
    event_type     text        NOT NULL,
    schema_version int         NOT NULL,
    occurred_at    timestamptz NOT NULL,
    recorded_at    timestamptz NOT NULL,
    envelope       jsonb       NOT NULL,
    UNIQUE (tenant_id, event_id)
);
CREATE INDEX IF NOT EXISTS ledger_contact ON rapport.ledger (tenant_id, contact_id, seq);

CREATE TABLE IF NOT EXISTS rapport.projection_versions (
    version      text        PRIMARY KEY,
    status       text        NOT NULL,            -- building | live | retired
    created_at   timestamptz NOT NULL DEFAULT now(),
    activated_at timestamptz,
    events       bigint,
    digest       text
);

-- Readers resolve the live version here; switching it is one UPDATE, so the switch is atomic.
CREATE TABLE IF NOT EXISTS rapport.active_version (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version   text    NOT NULL
);
