-- A contact's state is written whole once per batch that touches the contact (the projector's upsert),
-- 20-100 KB of JSON: pglz compressed it on every write, the largest statement cost of a worker's batch
-- (bench worker, 3,000 events: 434 ms of 2.2 s of PostgreSQL statement time; 124-193 ms stored as is).
-- Readers read it whole too (the API's /context), and now skip the decompression.
ALTER TABLE contacts ALTER COLUMN state SET STORAGE EXTERNAL;
