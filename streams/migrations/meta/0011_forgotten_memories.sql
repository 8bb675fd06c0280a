-- Memories forgotten one by one (DELETE /contacts/{id}/memories/{memoryId}; agents/core/curation.py):
-- the webhook process reads it so that no event about such a memory still on the topics is enqueued
-- after the projector shredded the memory (streams/webhooks/delivery.py). Ids only, no content; an
-- erasure of the contact deletes its rows (streams/webhooks/store.forget_contact).
CREATE TABLE IF NOT EXISTS rapport.forgotten_memories (
    tenant_id    text        NOT NULL,
    contact_id   text        NOT NULL,
    memory_id    text        NOT NULL,
    forgotten_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, contact_id, memory_id)
);
