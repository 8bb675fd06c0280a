-- Less work per write for the worker's batches (issue 24, "Throughput II"):
-- * the full-text column nothing reads: keyword search reads memory_terms (0009), so every memory insert
--   and update computed to_tsvector and wrote a GIN entry for nothing;
-- * the outbox's envelopes are not compressed: they hold the memory's vector as JSON floats, which pglz
--   shrinks little (3.1 KB -> 2.3 KB on `rapport bench load`) at a cost on every row, and the rows live
--   only until the worker has sent them.
ALTER TABLE memories DROP COLUMN IF EXISTS tsv;
ALTER TABLE derived_outbox ALTER COLUMN envelope SET STORAGE EXTERNAL;
