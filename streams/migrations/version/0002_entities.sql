-- The per-contact entity graph: entities (pet:bruno, person:mom, ...) and memory <-> entity links.
CREATE TABLE entities (
    tenant_id    text        NOT NULL,
    contact_id   text        NOT NULL,
    ref          text        NOT NULL,           -- <type>:<slug>
    entity_type  text        NOT NULL,
    display_name text        NOT NULL,
    metadata     jsonb       NOT NULL DEFAULT '{}',
    aliases      text[]      NOT NULL DEFAULT '{}',
    first_seen   timestamptz NOT NULL,
    last_seen    timestamptz NOT NULL,
    mentions     int         NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant_id, contact_id, ref)
);

CREATE TABLE memory_entities (
    memory_id  text NOT NULL,
    tenant_id  text NOT NULL,
    contact_id text NOT NULL,
    ref        text NOT NULL,
    PRIMARY KEY (memory_id, ref)
);
CREATE INDEX memory_entities_ref ON memory_entities (tenant_id, contact_id, ref);
CREATE INDEX memories_entity_refs ON memories USING gin (entity_refs);
