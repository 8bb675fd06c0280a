-- The console's list of contacts (GET /contacts, projections/store.contacts_page): a tenant's contacts
-- newest activity first, a page at a time after a (last_seen, contact_id) cursor, read from this index's
-- range instead of sorting every contact of the tenant. Sorting by id reads the primary key.
CREATE INDEX IF NOT EXISTS contacts_last_seen ON contacts (tenant_id, last_seen DESC NULLS LAST, contact_id DESC);
-- a contact's memories a page at a time (GET /contacts/{id}/memories?limit=&cursor=), oldest first
CREATE INDEX IF NOT EXISTS memories_created ON memories (tenant_id, contact_id, created_at, id);
