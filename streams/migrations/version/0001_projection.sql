-- One projection version. Every table here is written only by the projector (agents/projector.py).
CREATE TABLE contacts (
    tenant_id     text        NOT NULL,
    contact_id    text        NOT NULL,
    display_name  text,
    channel       text,
    persona_id    text,
    first_seen    timestamptz,
    last_seen     timestamptz,
    message_count int         NOT NULL DEFAULT 0,
    session_count int         NOT NULL DEFAULT 0,
    active_streak int         NOT NULL DEFAULT 0,
    state         jsonb       NOT NULL,          -- the functional core's state (agents/core/contact.py)
    seq           bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, contact_id)
);

CREATE TABLE memories (
    id               text        PRIMARY KEY,
    tenant_id        text        NOT NULL,
    contact_id       text        NOT NULL,
    scope            text        NOT NULL DEFAULT 'contact',
    memory_type      text        NOT NULL,
    content          text        NOT NULL,
    importance       double precision NOT NULL,
    decay_rate       double precision NOT NULL,
    confidence       double precision NOT NULL DEFAULT 1,
    source           text        NOT NULL,
    status           text        NOT NULL DEFAULT 'active',
    pinned           boolean     NOT NULL DEFAULT false,
    entity_refs      text[]      NOT NULL DEFAULT '{}',
    memory_key       text,
    topics           text[]      NOT NULL DEFAULT '{}',
    valid_from       timestamptz,
    valid_to         timestamptz,
    expires_at       timestamptz,
    superseded_by    text,
    access_count     int         NOT NULL DEFAULT 0,
    accessed_at      timestamptz,
    source_event_ids text[]      NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    persona_id       text,
    content_hash     text        NOT NULL,
    embedding        vector,
    embedding_model  text,
    embedding_dim    int,
    tsv              tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);
CREATE INDEX memories_contact ON memories (tenant_id, contact_id, status);
CREATE INDEX memories_tsv ON memories USING gin (tsv);

CREATE TABLE sessions (
    tenant_id        text        NOT NULL,
    contact_id       text        NOT NULL,
    session_id       text        NOT NULL,
    idx              int         NOT NULL,
    persona_id       text,
    started_at       timestamptz NOT NULL,
    last_activity_at timestamptz NOT NULL,
    ended_at         timestamptz,
    turn_count       int         NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, contact_id, session_id)
);

-- Derived events as projected (the memory-events log of this version; embeddings stripped).
CREATE TABLE events (
    event_id     text        PRIMARY KEY,
    tenant_id    text        NOT NULL,
    contact_id   text        NOT NULL,
    event_type   text        NOT NULL,
    occurred_at  timestamptz NOT NULL,
    causation_id text,
    payload      jsonb       NOT NULL
);
CREATE INDEX events_contact ON events (tenant_id, contact_id);

-- Tracking records: which source events this version has applied, in which per-contact order, and
-- from which topic position. Written in the same transaction as the rows they produced.
CREATE TABLE processed_events (
    tenant_id       text   NOT NULL,
    event_id        text   NOT NULL,
    contact_id      text   NOT NULL,
    contact_seq     bigint NOT NULL,
    topic_partition int,
    topic_offset    bigint,
    PRIMARY KEY (tenant_id, event_id)
);
CREATE INDEX processed_contact ON processed_events (tenant_id, contact_id, contact_seq);

-- Per-partition offset watermark, with the identity of the broker whose log the offsets belong to.
CREATE TABLE watermarks (
    topic        text   NOT NULL,
    partition    int    NOT NULL,
    broker_epoch text   NOT NULL,
    next_offset  bigint NOT NULL,
    PRIMARY KEY (topic, partition)
);
