-- API keys (projections/auth.py): one row per key. Only the SHA-256 of the secret is stored; the
-- key id is the public prefix of the key, so a request's key is found by id and compared in constant
-- time. An admin key may act for any tenant (ops); revoked keys stay for the record.
CREATE TABLE IF NOT EXISTS rapport.api_keys (
    key_id        text        PRIMARY KEY,
    tenant_id     text        NOT NULL,
    admin         boolean     NOT NULL DEFAULT false,
    secret_sha256 text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    revoked_at    timestamptz
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON rapport.api_keys (tenant_id, created_at);
