-- A compact copy of the memories' vectors for the vector pick's first pass (issue 23, "the archive under
-- load"): each memory's embedding normalized and rounded to half precision (pgvector's halfvec, 2 bytes a
-- component: 776 bytes for 384 dimensions, where a memories row with its float vector, text and tsvector
-- takes ~2 KB). The covering index keeps a contact's vectors together, so the first pass is one index
-- range of ~120 pages for 1,100 memories (an index-only scan), where the exact cosine read the contact's
-- ~270 heap pages of memories. The pick then re-ranks the few rows the rounding leaves in doubt with the
-- exact float vectors, and falls back to the exact scan when the first pass cannot prove the exact top k
-- (projections/store.candidates_sql: the answers are the exact pick's). Kept by a trigger, so every
-- writer of memories (the projector, a replay into a new version, the bench's COPY) keeps it too.
CREATE TABLE IF NOT EXISTS memory_vectors (
    tenant_id       text    NOT NULL,
    contact_id      text    NOT NULL,
    id              text    NOT NULL,
    embedding_model text    NOT NULL,
    half            halfvec NOT NULL,
    -- what projections/store.retrievable reads, so the first pass picks among the same rows as the exact one
    created_at      timestamptz NOT NULL,
    status          text    NOT NULL,
    retired_at      timestamptz,
    persona_id      text,
    PRIMARY KEY (tenant_id, contact_id, id)
);
CREATE INDEX IF NOT EXISTS memory_vectors_pick ON memory_vectors (tenant_id, contact_id, embedding_model)
    INCLUDE (id, half, created_at, status, retired_at, persona_id);

CREATE OR REPLACE FUNCTION memory_vectors_keep() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM memory_vectors WHERE tenant_id = OLD.tenant_id AND contact_id = OLD.contact_id
            AND id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.embedding IS NOT NULL AND NEW.embedding_model IS NOT NULL THEN
        INSERT INTO memory_vectors (tenant_id, contact_id, id, embedding_model, half, created_at, status,
                                    retired_at, persona_id)
        VALUES (NEW.tenant_id, NEW.contact_id, NEW.id, NEW.embedding_model, l2_normalize(NEW.embedding)::halfvec,
                NEW.created_at, NEW.status, NEW.retired_at, NEW.persona_id)
        ON CONFLICT (tenant_id, contact_id, id) DO UPDATE
            SET embedding_model = EXCLUDED.embedding_model, half = EXCLUDED.half, created_at = EXCLUDED.created_at,
                status = EXCLUDED.status, retired_at = EXCLUDED.retired_at, persona_id = EXCLUDED.persona_id;
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS memory_vectors_keep ON memories;
CREATE TRIGGER memory_vectors_keep AFTER INSERT OR DELETE OR UPDATE OF tenant_id, contact_id, id, embedding,
    embedding_model, created_at, status, retired_at, persona_id ON memories
    FOR EACH ROW EXECUTE FUNCTION memory_vectors_keep();

INSERT INTO memory_vectors (tenant_id, contact_id, id, embedding_model, half, created_at, status, retired_at,
                            persona_id)
SELECT tenant_id, contact_id, id, embedding_model, l2_normalize(embedding)::halfvec, created_at, status, retired_at,
       persona_id FROM memories
WHERE embedding IS NOT NULL AND embedding_model IS NOT NULL
ON CONFLICT (tenant_id, contact_id, id) DO NOTHING;
