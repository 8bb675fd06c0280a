"""The one Faust app and its topics.

Every topic carries raw bytes (our own orjson envelope, schemas/envelope.py), never Faust records, so
no Python class path leaks into the log and any producer can publish. Partition counts are explicit;
keys are `tenant/contact`, so one contact's events stay in one partition, in order.
"""
from __future__ import annotations

import faust
from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread

from streams.config import settings

s = settings()

_create_worker_consumer = AIOKafkaConsumerThread._create_worker_consumer


def _consumer_with_fetch_wait(self, transport):  # noqa: ANN001
    """Faust hard-codes fetch_max_wait_ms=1500. A broker that holds a fetch for the whole wait even
    when data arrives (the embedded one does) then adds ~0.75 s to every event's freshness."""
    consumer = _create_worker_consumer(self, transport)
    consumer._fetch_max_wait_ms = s.fetch_max_wait_ms
    return consumer


AIOKafkaConsumerThread._create_worker_consumer = _consumer_with_fetch_wait


class Worker(faust.Worker):
    """Faust's worker without its terminal spinner. To feed the spinner Faust sets the root logger to
    DEBUG whatever --loglevel says, so every library's debug record was made and handled (aiokafka's
    and Faust's carry each sent message's bytes): 14% of a worker's Python time under load."""

    def __init__(self, *args, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.spinner = None


app = faust.App(
    s.app_id,
    broker=s.kafka_url,
    processing_guarantee="at_least_once",   # exactly_once is not supported by the embedded broker
    topic_partitions=s.partitions,
    topic_replication_factor=1,
    key_serializer="raw",
    value_serializer="raw",
    web_enabled=s.web_port > 0,
    web_port=s.web_port or 6066,
    web_host=s.web_host,
    web_bind=s.web_host,  # Faust binds 0.0.0.0 unless told: loopback unless configured
    producer_acks=-1,
    producer_linger=s.producer_linger_s,
    consumer_auto_offset_reset="earliest",
    broker_commit_every=100,
    broker_commit_interval=1.0,
    stream_wait_empty=False,
    # A group (re)join waits up to the rebalance timeout for members; on the embedded broker the
    # default (60 s) made every start and scale-out stall ~30 s. Worker batches take < 1 s.
    broker_rebalance_timeout=s.rebalance_timeout_s,
    broker_session_timeout=s.session_timeout_s or s.rebalance_timeout_s,
    broker_heartbeat_interval=min(3.0, (s.session_timeout_s or s.rebalance_timeout_s) / 3),
    # the pipeline keeps its own state in PostgreSQL; no Faust tables, so no changelog topics
    store="memory://",
    datadir=s.faust_datadir,
    Worker=Worker,
)

interactions_topic = app.topic(s.interactions_topic, partitions=s.partitions, key_type=bytes, value_type=bytes,
                               retention=None)
memory_events_topic = app.topic(s.memory_events_topic, partitions=s.partitions, key_type=bytes, value_type=bytes)
triggers_topic = app.topic(s.triggers_topic, partitions=s.partitions, key_type=bytes, value_type=bytes)
dead_letter_topic = app.topic(s.dead_letter_topic, partitions=1, key_type=bytes, value_type=bytes)
