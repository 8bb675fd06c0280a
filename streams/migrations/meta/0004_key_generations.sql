-- A contact's data key belongs to the events recorded after the ledger position it was created at:
-- an erasure deletes only the keys from before it, so a contact that writes again right after a
-- DELETE keeps the new key its new events were sealed with (streams/shredding.forget_keys_before).
ALTER TABLE rapport.contact_keys ADD COLUMN IF NOT EXISTS since_seq bigint;
ALTER TABLE rapport.contact_keys ALTER COLUMN since_seq SET DEFAULT pg_sequence_last_value('rapport.ledger_seq_seq'::regclass);
