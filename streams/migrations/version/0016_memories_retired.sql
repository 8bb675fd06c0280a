-- The working set without walking the archive (issue 23, "the archive under load"): a contact's working
-- set at a time T is its memories with status 'active' or retired after T (projections/store.visible), and
-- /context without a query (and the entity cards) read it among all of the contact's memories, 1,100 rows
-- for a contact with an archive of 1,000. With this index beside memories_contact (tenant_id, contact_id,
-- status) the two halves are two index ranges (a BitmapOr): the ~100 active rows and the few retired after
-- T, not the whole archive. Only retired rows are in it (most of the rows of a contact with an archive).
CREATE INDEX IF NOT EXISTS memories_retired ON memories (tenant_id, contact_id, retired_at)
    WHERE retired_at IS NOT NULL;
