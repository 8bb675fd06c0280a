-- The relay's backlog query (streams/ingest.relay_once) asks, of each unapplied ledger row, whether its
-- contact was erased later in the ledger. On ledger_contact (tenant_id, contact_id, seq) that probe read
-- every later event of the contact from the heap to test its type: with ~20,000 rows a page and dozens of
-- events a contact, hundreds of thousands of heap fetches, and the query hit its 15 s statement timeout
-- under load (issue 24). Erasures are rare: this partial index holds only them, so the probe is one
-- lookup in a tiny index.
CREATE INDEX IF NOT EXISTS ledger_erasures ON rapport.ledger (tenant_id, contact_id, seq)
    WHERE event_type = 'ContactErased';
