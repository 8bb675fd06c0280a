-- Tenant-scoped keys (id scheme 2, schemas/envelope.py). Every row that derives from an event is keyed
-- by (tenant_id, contact_id, id): the projector's ON CONFLICT targets and UPDATE predicates name the
-- tenant and the contact, so no producer's choice of event ids can reach another tenant's (or
-- contact's) rows. Rows of a version built under id scheme 1 keep their ids; `rapport replay --into`
-- a new version rebuilds them under scheme 2 (README, "Upgrading: tenant-scoped ids").
ALTER TABLE memories DROP CONSTRAINT memories_pkey, ADD PRIMARY KEY (tenant_id, contact_id, id);
ALTER TABLE triggers DROP CONSTRAINT triggers_pkey, ADD PRIMARY KEY (tenant_id, contact_id, id);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (tenant_id, contact_id, event_id);
DROP INDEX IF EXISTS events_contact;
ALTER TABLE memory_entities DROP CONSTRAINT memory_entities_pkey,
    ADD PRIMARY KEY (tenant_id, contact_id, memory_id, ref);
ALTER TABLE derived_outbox DROP CONSTRAINT derived_outbox_event_id_key,
    ADD CONSTRAINT derived_outbox_event_key UNIQUE (tenant_id, contact_id, event_id);
