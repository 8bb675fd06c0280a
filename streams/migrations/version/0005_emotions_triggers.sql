-- Mood history: one row per classified user message (the interaction log's emotional column).
CREATE TABLE mood_log (
    tenant_id  text        NOT NULL,
    contact_id text        NOT NULL,
    event_id   text        NOT NULL,            -- the MoodClassified event
    source_id  text        NOT NULL,            -- the message it classified
    at         timestamptz NOT NULL,
    mood       text        NOT NULL,
    energy     text        NOT NULL,
    style      text        NOT NULL,
    confidence double precision NOT NULL,
    unusual    boolean     NOT NULL,
    source     text        NOT NULL,            -- offline | llm | previous
    PRIMARY KEY (tenant_id, contact_id, event_id)
);
CREATE INDEX mood_log_at ON mood_log (tenant_id, contact_id, at);

-- Triggers (check-ins, crisis flags, owner insights), also published on the triggers topic.
CREATE TABLE triggers (
    id               text        PRIMARY KEY,
    tenant_id        text        NOT NULL,
    contact_id       text        NOT NULL,
    kind             text        NOT NULL,
    due_at           timestamptz NOT NULL,
    reason           text        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending',
    severity         text,
    human_review     boolean     NOT NULL DEFAULT false,
    source_event_ids text[]      NOT NULL,
    created_at       timestamptz NOT NULL,
    details          jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX triggers_contact ON triggers (tenant_id, contact_id, due_at);
