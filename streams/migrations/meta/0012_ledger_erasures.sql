-- The relay's backlog query (streams/ingest.relay_once) asks, of each unapplied ledger row, whether its
-- contact was erased later in the ledger. On ledger_contact (tenant_id, contact_id, seq) that probe read
-- every later event of the contact from the heap to test its type: with ~20,000 rows a page and dozens of
-- events a contact, hundreds of thousands of heap fetches, and the query hit its 15 s statement timeout
-- under load (issue 24). Erasures are rare: this partial index holds only them, so the probe is one
-- lookup in a tiny index. EXPLAIN ANALYZE of a 20,000-row page on a ledger of 200,000 rows (300 contacts):
-- 4.26 s and 4.86 M buffer hits without it, 0.17 s and 83 k with it (the query as it was).
CREATE INDEX IF NOT EXISTS ledger_erasures ON rapport.ledger (tenant_id, contact_id, seq)
    WHERE event_type = 'ContactErased';
