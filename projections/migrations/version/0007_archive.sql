-- The archive (issue: retrieval always searches what consolidation retired): the episodes said just
-- before and after a memory are looked up by time within the contact.
CREATE INDEX IF NOT EXISTS memories_contact_time ON memories (tenant_id, contact_id, created_at);
