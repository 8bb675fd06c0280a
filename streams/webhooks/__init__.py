"""Webhooks: per-tenant subscriptions to triggers and memory events, delivered signed, retried and
dead-lettered from the existing topics (README "Webhooks"). rules.py and signing.py are pure;
store.py is the SQL; addresses.py the SSRF rule; delivery.py the process."""
