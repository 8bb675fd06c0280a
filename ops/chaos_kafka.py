"""`rapport bench chaos --kafka`: the chaos run (ops/chaos.py) on a 3-broker Apache Kafka cluster
(ops/kafka_cluster.py) instead of the embedded broker, with the faults of a cluster:

  - broker-sigkill:  SIGKILL of the broker leading partition 0 of the interactions topic; its partitions'
                     leadership moves to the other two (three replicas, two in sync required), producers
                     and consumers follow the metadata; the broker is started again BROKER_BACK_AFTER_S
                     later and catches up as a follower.
  - leader-restart:  the leader of another partition stopped cleanly (controlled shutdown moves its
                     leaderships first) and started again.
  - worker-add:      one more `rapport worker` joins the consumer group while events stream in (a
                     rebalance), and stays until the end. (A worker killed is chaos.py's worker-kill.)

The books are chaos.py's: applied = sent, nothing duplicated, the live projection's digest equal to a
clean rebuild from the ledger.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from ops.chaos import ChaosResult, Fault, UpProcess, run_chaos
from ops.kafka_cluster import KafkaCluster, partition_leaders, stack_env

BROKER_BACK_AFTER_S = 10.0
CLUSTER_FAULTS = ("broker-sigkill", "leader-restart", "worker-add")


class ClusterFaults:
    """The injectors chaos.run_chaos calls for the cluster's fault kinds (its `extra`)."""

    def __init__(self, cluster: KafkaCluster, topic: str, say=print):  # noqa: ANN001
        self.cluster, self.topic, self.say = cluster, topic, say
        self.threads: list[threading.Thread] = []
        self.added: list[subprocess.Popen] = []
        self.notes: list[str] = []

    def injectors(self) -> dict:
        return {"broker-sigkill": self.broker_sigkill, "leader-restart": self.leader_restart,
                "worker-add": self.worker_add}

    def _leaders(self) -> dict[int, int]:
        try:
            return partition_leaders(self.cluster.bootstrap_live, self.topic)
        except Exception:  # metadata while a broker is down: ask again later
            return {}

    def broker_sigkill(self, up: UpProcess, fault: Fault, rng: random.Random) -> None:
        before = self._leaders()
        victim = before.get(0) or next(n.node_id for n in self.cluster.nodes if n.alive())
        fault.target = f"kafka-{victim}"
        self.cluster.kill(victim, signal.SIGKILL)
        led = sorted(p for p, b in before.items() if b == victim)

        def back() -> None:
            time.sleep(BROKER_BACK_AFTER_S)
            after = self._leaders()
            moved = {p: after.get(p) for p in led}
            self.notes.append(f"broker-sigkill: kafka-{victim} led partitions {led}; {BROKER_BACK_AFTER_S:g} s "
                              f"later their leaders were {moved}")
            self._restart(victim)

        t = threading.Thread(target=back, daemon=True)
        t.start()
        self.threads.append(t)

    def leader_restart(self, up: UpProcess, fault: Fault, rng: random.Random) -> None:
        self.join()  # a previous kill's broker is back first: two of three down would stop writes
        leaders = self._leaders()
        partition = rng.choice(sorted(leaders)) if leaders else 1
        node = leaders.get(partition) or self.cluster.nodes[0].node_id
        fault.target = f"kafka-{node} (leader of partition {partition})"
        self._restart(node)

    def _restart(self, node: int) -> None:
        try:
            self.cluster.restart(node)
        except Exception as e:  # noqa: BLE001 - in the report: the next faults and the books still run
            n = self.cluster.node(node)
            self.notes.append(f"kafka-{node} did not come back: {e}\n{n.child.tail(40) if n.child else ''}")

    def worker_add(self, up: UpProcess, fault: Fault, rng: random.Random) -> None:
        info = json.loads((up.data_dir / "run.json").read_text())
        name = f"worker-added-{len(self.added)}"
        env = {**(up.env or os.environ), "RAPPORT_DATABASE_URL": info["database_url"],
               "RAPPORT_REDIS_URL": info["redis_url"], "RAPPORT_KAFKA_URL": info["kafka_url"],
               "RAPPORT_WORKER_ID": name, "RAPPORT_FAUST_DATADIR": tempfile.mkdtemp(prefix="rapport-faust-")}
        log = open(up.data_dir / "logs" / f"{name}.log", "ab")
        self.added.append(subprocess.Popen([sys.executable, "-m", "ops.cli", "worker"], env=env, cwd=up.cwd,
                                           stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        log.close()
        fault.target = name

    def join(self) -> None:
        for t in self.threads:
            t.join()
        self.threads.clear()

    def close(self) -> None:
        self.join()
        for p in self.added:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(10)


def run_kafka_chaos(events: int = 20000, contacts: int = 200, worker_kills: int = 2, workers: int = 2,
                    gap_s: float = 15.0, others: tuple[str, ...] = (), faults: tuple[str, ...] = CLUSTER_FAULTS,
                    cluster: KafkaCluster | None = None, seed: int = 3, say=print) -> ChaosResult:  # noqa: ANN001
    """Start a 3-broker cluster (unless given), run chaos.run_chaos on it with the cluster's faults
    (plus `others` of chaos.py's own kinds, and `worker_kills`), stop what it started."""
    own = cluster is None
    if own:
        say("starting a 3-broker Apache Kafka cluster (KRaft)")
        t0 = time.monotonic()
        cluster = KafkaCluster(size=3).start()
        say(f"cluster up in {time.monotonic() - t0:.0f} s: {cluster.bootstrap}")
    env = stack_env(cluster.url, f"chaos{seed}{int(time.time()) % 100000}")
    cf = ClusterFaults(cluster, env["RAPPORT_INTERACTIONS_TOPIC"], say)
    data_dir = Path(tempfile.mkdtemp(prefix="rapport-chaos-kafka-"))
    r = None
    try:
        r = run_chaos(events=events, contacts=contacts, worker_kills=worker_kills, workers=workers,
                      others=tuple(faults) + tuple(others), gap_s=gap_s, seed=seed, say=say, env=env,
                      extra=cf.injectors(), data_dir=data_dir,
                      # a shared 2-core machine has drained at 15-20 events/s: allow for that
                      drain_limit_s=max(180.0, events / 10))
    finally:
        cf.close()
        if own:
            cluster.stop()
        if r is not None and r.ok():
            shutil.rmtree(data_dir, ignore_errors=True)
    r.notes[:0] = cf.notes
    if not r.ok():
        r.notes.append(f"data dir kept for inspection: {data_dir}")
    return r
