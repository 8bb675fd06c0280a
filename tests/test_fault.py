"""The fault suite: `rapport up` under load while its parts are killed, restarted and stalled.

Scaled down from `rapport bench chaos` (ops/chaos.py, which runs the full version and prints the
table) to fit CI. On the embedded broker: 3 SIGKILLs of the worker, one of the API, a PostgreSQL
restart and an 8 s Redis stall while 1,800 events stream in. On a 3-broker Apache Kafka cluster
(ops/chaos_kafka.py): the broker leading a partition SIGKILLed (and back 10 s later), another
partition's leader restarted, a worker SIGKILLed and one added (rebalances). Every event is applied
exactly once, each fault recovers, and the live projection equals a clean rebuild from the ledger
(`rapport replay --verify`)."""
from __future__ import annotations

import pytest

from ops.chaos import run_chaos, table
from tests.conftest import BACKENDS

pytestmark = [pytest.mark.fault, pytest.mark.e2e]


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_kills_restarts_and_stalls_lose_nothing_and_double_nothing(backend, request):
    lines: list[str] = []
    if not backend:
        r = run_chaos(events=1800, contacts=40, worker_kills=3, workers=1, gap_s=12.0, say=lines.append)
        kills = 3
    else:
        from ops.chaos_kafka import run_kafka_chaos

        cluster = request.getfixturevalue("kafka_cluster")
        if isinstance(cluster, str):
            pytest.skip("the cluster faults need a cluster this run started (RAPPORT_TEST_KAFKA_URL is set)")
        r = run_kafka_chaos(events=1800, contacts=40, worker_kills=1, workers=2, gap_s=12.0, cluster=cluster,
                            say=lines.append)
        kills = 1
    report = "\n".join(lines) + "\n" + table(r) + "\n" + "\n".join(r.notes)
    if backend:
        assert sorted(f.kind for f in r.faults) == ["broker-sigkill", "leader-restart", "worker-add",
                                                    "worker-kill"], report
        # the killed broker is back for the next test
        assert all(n.alive() for n in cluster.nodes), report + "\n" + "\n".join(
            f"kafka-{n.node_id}: {n.child.tail(20) if n.child else 'never started'}" for n in cluster.nodes)
    assert [f.kind for f in r.faults].count("worker-kill") == kills, report
    assert all(f.recovery_s is not None for f in r.faults), report
    # a Redis stall and a database restart are ridden out: no worker or API restarted for them
    assert [(f.kind, f.collateral) for f in r.faults if f.collateral] == [], report
    assert (r.sent, r.applied, r.lost, r.duplicated) == (1800, 1800, 0, 0), report
    assert r.digest_equal, report
    assert r.supervisor_exit == 0, report  # and the stack still stops cleanly after all that
