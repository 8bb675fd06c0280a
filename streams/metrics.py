"""Prometheus metrics of the ingest path and the log: POST /ingest and the relay count in the API process,
shredded events in the workers (and a replay). Each process exposes its own registry (the API on its
/metrics, a worker on its Faust web page's /metrics); ops/grafana and ops/prometheus sum over them."""
from prometheus_client import Counter

INGESTED = Counter("rapport_ingested_total", "Events recorded in the ledger: by POST /ingest (InteractionRecorded), "
                   "by /context (MemoriesAccessed) and DELETE (ContactErased); new or a re-sent duplicate",
                   ["result", "event_type"])
RELAYED = Counter("rapport_relayed_total", "Ledger events re-published because no projection had them")
SHREDDED = Counter("rapport_events_shredded_total",
                   "Sealed events skipped because their contact's key was erased (crypto-shredding)")
