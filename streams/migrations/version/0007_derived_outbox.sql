-- Derived events committed with their batch but not yet on the broker (a transactional outbox): the
-- worker deletes them once published; one that died in between leaves them for its outbox relay.
CREATE TABLE derived_outbox (
    seq        bigserial   PRIMARY KEY,          -- the order they were derived in
    event_id   text        NOT NULL UNIQUE,
    tenant_id  text        NOT NULL,
    contact_id text        NOT NULL,
    envelope   bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
