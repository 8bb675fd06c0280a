-- The keyword side of retrieval kept in the projection (issue 23, "the archive under load"): the Okapi
-- BM25 statistics of every memory a query searches (all but those merged into another), written by the
-- projector in the batch that creates the memory or changes its text, so no request builds an index.
-- Rows come from projections/lexical.py's tokenizer over "speaker: content" (doc_terms), computed in
-- Python: the ranking is that of lexical.BM25Index, which stays the reference (tests/test_lexical_pg.py).

-- postings: how often each term occurs in each memory, and the memory's length (BM25 reads both for each
-- posting); "the postings of these terms for this contact" is one index range per term, read from the
-- index alone. COLLATE "C": terms and ids order by code point, as Python's str does (the ranking breaks
-- ties by id, the feedback by term).
CREATE TABLE memory_terms (
    tenant_id  text NOT NULL,
    contact_id text NOT NULL,
    term       text COLLATE "C" NOT NULL,
    memory_id  text COLLATE "C" NOT NULL,
    tf         int  NOT NULL,
    length     int  NOT NULL,
    PRIMARY KEY (tenant_id, contact_id, term, memory_id) INCLUDE (tf, length)
);

-- one row per memory in the postings: its length in tokens (stop words included), its terms (the
-- pseudo-relevance feedback reads the best matches' terms), and what the timeline of neighbouring
-- episodes needs (when, and whether it is an episode), so that is read from here too
CREATE TABLE memory_term_docs (
    tenant_id   text NOT NULL,
    contact_id  text NOT NULL,
    memory_id   text COLLATE "C" NOT NULL,
    length      int  NOT NULL,
    terms       text[] COLLATE "C" NOT NULL,
    tfs         int[] NOT NULL,
    created_at  timestamptz NOT NULL,
    memory_type text NOT NULL,
    PRIMARY KEY (tenant_id, contact_id, memory_id) INCLUDE (length)
);
CREATE INDEX memory_term_docs_episodes ON memory_term_docs (tenant_id, contact_id, created_at, memory_id)
    WHERE memory_type = 'episode';

-- Contacts whose memories predate this migration have no rows above until `rapport replay --into` a new
-- version rebuilds them: the API reads their keywords the old way (an index built from their memories'
-- texts) meanwhile. A version made after this migration starts empty and never has rows here.
CREATE TABLE memory_terms_pending (
    tenant_id  text NOT NULL,
    contact_id text NOT NULL,
    PRIMARY KEY (tenant_id, contact_id)
);
INSERT INTO memory_terms_pending (tenant_id, contact_id) SELECT DISTINCT tenant_id, contact_id FROM memories;
