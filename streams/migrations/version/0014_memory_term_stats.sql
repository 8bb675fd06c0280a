-- The keyword side of retrieval, per contact (issue 23, "the archive under load"): how many memories its
-- search covers and their summed length in tokens, BM25's N and average document length. Kept by the
-- projector beside memory_term_docs, in the same statements (a memory's statistics written, changed or
-- removed moves these by the difference), so a question reads one row instead of the length of every
-- memory of the contact (an index range of ~1,100 entries, ~16 pages, for a contact with an archive).
-- A contact with no row has no searched memory; a row may stay at 0 / 0 when they have all gone.
CREATE TABLE memory_term_stats (
    tenant_id    text   NOT NULL,
    contact_id   text   NOT NULL,
    docs         bigint NOT NULL,
    total_length bigint NOT NULL,
    PRIMARY KEY (tenant_id, contact_id) INCLUDE (docs, total_length)
);
INSERT INTO memory_term_stats (tenant_id, contact_id, docs, total_length)
SELECT tenant_id, contact_id, count(*), sum(length) FROM memory_term_docs GROUP BY tenant_id, contact_id;
