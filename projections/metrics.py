"""Prometheus metrics of the API process, exposed on its /metrics (the ingest path's are in
streams/metrics.py, the workers' in agents/metrics.py)."""
from prometheus_client import Counter, Gauge, Histogram

REQUEST_SECONDS = Histogram("rapport_request_seconds", "HTTP request latency", ["route"],
                            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
LEDGER_BACKLOG = Gauge("rapport_unprocessed_ledger_events", "Ledger events not yet in the live projection")
LEDGER_BACKLOG_AGE = Gauge("rapport_unprocessed_ledger_oldest_seconds",
                           "Seconds since the oldest ledger event not yet in the live projection was recorded "
                           "(0 when there is none)")
# a BM25 index built from a contact's texts in the API: only for a contact whose memories predate the
# projection's keyword statistics (memory_terms_pending); every other question reads the postings the
# projector keeps (Store.keyword_search), so a rising count means a version still to be rebuilt by a replay
KEYWORD_INDEX_BUILDS = Counter("rapport_keyword_index_builds", "BM25 indexes the API built from a contact's texts "
                               "(contacts whose memories predate the projection's keyword statistics)")
# the API's reads of PostgreSQL: connections taken from the pool (a /context takes one: Store.reading) and
# statements sent (`rapport bench load` prints both per request)
DB_CHECKOUTS = Counter("rapport_api_db_checkouts", "Connections the API's reads took from the pool")
DB_STATEMENTS = Counter("rapport_api_db_statements", "Statements the API's reads sent to PostgreSQL")
# a question's card memories are read ahead with its neighbours for the entities its answer most likely
# shows (edge_routes.card_refs_ahead): "used", or "read_again" when the ranked answer named another
CARD_ROWS_AHEAD = Counter("rapport_api_card_rows_ahead", "Card memories read ahead with the neighbours, used or "
                          "read again for the answer's own entities", ["outcome"])
