-- Webhooks (streams/webhooks/): per-tenant subscriptions and the delivery outbox. Shared, not per
-- projection version: a replay must not deliver anything again. The signing secret is kept as it is
-- (an HMAC needs it; like the contact keys, plain PostgreSQL).
CREATE TABLE IF NOT EXISTS rapport.webhooks (
    webhook_id  text        PRIMARY KEY,
    tenant_id   text        NOT NULL,
    url         text        NOT NULL,
    events      text[]      NOT NULL,
    secret      text        NOT NULL,
    description text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS webhooks_tenant ON rapport.webhooks (tenant_id, created_at);

-- One row per (subscription, event): the unique pair makes a re-read topic record enqueue nothing new.
-- `body` is the exact bytes signed and sent (NULL once delivered); `next_attempt_at` is the retry
-- schedule (and a claimed delivery's lease), so a restarted delivery process resumes it.
-- status: pending | delivered | dead (dead-lettered after the last attempt, `last_error` says why).
CREATE TABLE IF NOT EXISTS rapport.webhook_deliveries (
    delivery_id     bigserial   PRIMARY KEY,
    webhook_id      text        NOT NULL REFERENCES rapport.webhooks (webhook_id) ON DELETE CASCADE,
    tenant_id       text        NOT NULL,
    contact_id      text        NOT NULL,
    event_id        text        NOT NULL,
    event_type      text        NOT NULL,
    body            bytea,
    status          text        NOT NULL DEFAULT 'pending',
    attempts        int         NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_status     int,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON rapport.webhook_deliveries (webhook_id, next_attempt_at)
    WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_contact ON rapport.webhook_deliveries (tenant_id, contact_id);
CREATE INDEX IF NOT EXISTS webhook_deliveries_listing ON rapport.webhook_deliveries (webhook_id, delivery_id);
