-- Session summaries (persona-scoped, seed 004), the rolling summary of an open session, the contact's
-- permanent profile paragraph (seed 003) and when the contact next has work due (the scheduler's index).
CREATE TABLE session_summaries (
    tenant_id  text        NOT NULL,
    contact_id text        NOT NULL,
    session_id text        NOT NULL,
    persona_id text,
    ended_at   timestamptz NOT NULL,
    summary    jsonb       NOT NULL,
    PRIMARY KEY (tenant_id, contact_id, session_id)
);
CREATE INDEX session_summaries_latest ON session_summaries (tenant_id, contact_id, ended_at DESC);
ALTER TABLE sessions ADD COLUMN rolling_summary text;
ALTER TABLE contacts ADD COLUMN profile text;
ALTER TABLE contacts ADD COLUMN next_due_at timestamptz;
CREATE INDEX contacts_due ON contacts (next_due_at) WHERE next_due_at IS NOT NULL;
