"""Prometheus metrics, one definition each (workers expose them on Faust's web /metrics page, the API on
its own /metrics)."""
from prometheus_client import Counter, Gauge, Histogram

EVENTS = Counter("rapport_events_total", "Source events seen by the interaction pipeline", ["outcome"])
BATCH_SECONDS = Histogram("rapport_batch_seconds", "Time to process and project one batch",
                          buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
INGESTED = Counter("rapport_ingested_total", "Events accepted by POST /ingest", ["result"])
REQUEST_SECONDS = Histogram("rapport_request_seconds", "HTTP request latency", ["route"],
                            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
RELAYED = Counter("rapport_relayed_total", "Ledger events re-published because no projection had them")
LEDGER_BACKLOG = Gauge("rapport_unprocessed_ledger_events", "Ledger events not yet in the live projection")
SHREDDED = Counter("rapport_events_shredded_total",
                   "Sealed events skipped because their contact's key was erased (crypto-shredding)")
