"""Prometheus metrics of a worker process, exposed on its Faust web page's /metrics (one per worker;
ops/prometheus/alerts.yml and ops/grafana sum over the workers)."""
from prometheus_client import Counter, Gauge, Histogram

EVENTS = Counter("rapport_events_total", "Source events seen by the interaction pipeline", ["outcome"])
BATCH_SECONDS = Histogram("rapport_batch_seconds", "Time to process and project one batch",
                          buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
CONSUMER_LAG = Gauge("rapport_consumer_lag", "Records behind the end of each partition this worker holds, "
                     "after its last batch from it", ["topic", "partition"])
FRESHNESS = Histogram("rapport_freshness_seconds", "From an interaction's recorded_at (accepted by POST /ingest) "
                      "to the commit of its projection",
                      buckets=(0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800))
TRIGGERS = Counter("rapport_triggers_total", "Triggers committed to the projection, by kind "
                   "(check_in, crisis, owner_insight)", ["kind"])
TRIGGERS_PUBLISHED = Counter("rapport_triggers_published_total", "Triggers sent to the triggers topic, by kind",
                             ["kind"])
