"""Topic creation on any broker, pure parts: replication per cluster size, CreateTopics errors, the
broker URL list, the broker epoch, and the specs' retention (README: 6 h / 128 MiB per partition)."""
from __future__ import annotations

import pytest

from agents.app_agents import epoch_of
from ops.kafka_cluster import random_cluster_id, server_properties, stack_env
from streams.config import Settings, bootstrap_servers
from streams.topics import creation_errors, replication, topic_specs


@pytest.mark.parametrize("brokers, configured, expected", [
    (1, None, (1, 1)),   # the embedded broker, a one-node dev cluster
    (2, None, (2, 1)),   # two of two in sync would stop writes while either is down
    (3, None, (3, 2)),   # one of three may die without losing an acknowledged write
    (7, None, (3, 2)),   # never more than three copies
    (0, None, (1, 1)),   # metadata without brokers (starting): still a valid request
    (5, 5, (5, 2)),      # RAPPORT_REPLICATION_FACTOR wins
])
def test_replication_follows_the_cluster(brokers, configured, expected):
    assert replication(brokers, configured) == expected


def test_only_real_creation_failures_are_errors():
    errs = [("a", 0), ("b", 36, "Topic 'b' already exists."), ("c", 38, "Replication factor: 3 larger than "
            "available brokers: 1."), ("d", 41)]
    assert creation_errors(errs) == ["c: error 38 Replication factor: 3 larger than available brokers: 1.",
                                     "d: error 41"]


@pytest.mark.parametrize("url, servers", [
    ("kafka://127.0.0.1:9092", "127.0.0.1:9092"),
    ("kafka://a:1;kafka://b:2;kafka://c:3", "a:1,b:2,c:3"),
    ("kafka://a:1,b:2", "a:1,b:2"),
    ("a:1", "a:1"),
    ("kafka://a:1/; kafka://b:2", "a:1,b:2"),
])
def test_bootstrap_servers_of_one_or_many_brokers(url, servers):
    assert bootstrap_servers(url) == servers
    assert Settings(kafka_url=url).kafka_bootstrap == servers


def test_epoch_is_the_cluster_id_and_a_missing_one_is_refused():
    assert epoch_of("MkU3OEVBNTcwNTJENDM2Qg") == "MkU3OEVBNTcwNTJENDM2Qg"
    for missing in (None, ""):
        with pytest.raises(RuntimeError, match="RAPPORT_BROKER_EPOCH"):
            epoch_of(missing)


def test_specs_bound_retention_as_the_readme_says():
    specs = topic_specs(Settings(), min_insync=2)
    parts, cfg = specs["rapport.interactions"]
    assert parts == 12
    assert cfg == {"retention.ms": str(6 * 3600 * 1000), "retention.bytes": str(128 * 1024 * 1024),
                   "min.insync.replicas": "2"}
    assert specs["rapport.dead-letter"][0] == 1
    assert specs["rapport.dead-letter"][1]["retention.ms"] == str(7 * 24 * 3600 * 1000)


def test_cluster_ids_parse_as_kafka_uuids():
    import base64

    for _ in range(200):
        cid = random_cluster_id()
        assert len(cid) == 22 and not cid.startswith("-")
        assert len(base64.urlsafe_b64decode(cid + "==")) == 16


def test_server_properties_of_a_three_node_kraft_cluster(tmp_path):
    props = dict(line.split("=", 1) for line in server_properties(
        2, 9101, 9201, "1@127.0.0.1:9200,2@127.0.0.1:9201,3@127.0.0.1:9202", tmp_path, 3).splitlines() if line)
    assert props["process.roles"] == "broker,controller" and props["node.id"] == "2"
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:9101,CONTROLLER://127.0.0.1:9201"
    assert props["auto.create.topics.enable"] == "false"
    assert (props["default.replication.factor"], props["min.insync.replicas"],
            props["offsets.topic.replication.factor"]) == ("3", "2", "3")


def test_stacks_on_one_cluster_share_no_topic_or_group():
    a, b = stack_env("kafka://x:1", "a"), stack_env("kafka://x:1", "b")
    assert a["RAPPORT_INTERACTIONS_TOPIC"] == "rapport-a.interactions"
    assert a["RAPPORT_APP_ID"] != b["RAPPORT_APP_ID"]
    assert not {v for k, v in a.items() if k.endswith("_TOPIC")} & {v for k, v in b.items() if k.endswith("_TOPIC")}
