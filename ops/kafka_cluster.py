"""A real Apache Kafka cluster (KRaft) on loopback, from Apache Kafka's own jars: for the tests that run
rapport on an external broker, `make kafka`, `rapport bench chaos --kafka` and the scaling bench.

The jars come from Maven Central with Maven (`mvn dependency:copy-dependencies` of
`org.apache.kafka:kafka_2.13` and an SLF4J binding) into a cache, ~/.cache/rapport/kafka-<version>/lib
(RAPPORT_KAFKA_CACHE overrides the parent), so a machine fetches them once (46 MB). Each broker is
`java -cp 'lib/*' kafka.Kafka server.properties` with process.roles=broker,controller, a log dir of its
own under a temp dir, random free ports and a small heap; every node is a controller voter, so the
quorum (and the cluster) survives one of three down. The brokers are children of the caller with
PR_SET_PDEATHSIG: a killed test run leaves no java behind, and only these pids are ever signalled.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
import base64
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ops.embedded import Child, free_port, spawn, stop_together, wait_port

KAFKA_VERSION = os.environ.get("RAPPORT_KAFKA_VERSION", "3.9.1")
SLF4J_BINDING = "org.slf4j:slf4j-reload4j:1.7.36"
HEAP = os.environ.get("RAPPORT_KAFKA_HEAP", "-Xmx384m")

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>rapport</groupId><artifactId>kafka-jars</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>{kafka}</version></dependency>
    <dependency><groupId>{sg}</groupId><artifactId>{sa}</artifactId><version>{sv}</version></dependency>
  </dependencies>
</project>
"""

LOG4J = """log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaServer=INFO
log4j.logger.kafka.server.BrokerServer=INFO
log4j.logger.kafka.server.ControllerServer=INFO
"""


_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kafka-spawner")


class Unavailable(RuntimeError):
    """Java or Maven is missing, or the jars could not be fetched: the message says which, in one line."""


def cache_dir(version: str = KAFKA_VERSION) -> Path:
    base = Path(os.environ.get("RAPPORT_KAFKA_CACHE") or Path.home() / ".cache" / "rapport")
    return base / f"kafka-{version}"


def missing_tools() -> str | None:
    """None when java and mvn are on PATH, else the one line a skipped test prints."""
    gone = [t for t in ("java", "mvn") if shutil.which(t) is None]
    if gone:
        return (f"Apache Kafka tests need {' and '.join(gone)} on PATH (Java 17+, Maven 3) to fetch and run "
                f"kafka_2.13 {KAFKA_VERSION}; `make kafka` fetches the jars")
    return None


def fetch_jars(version: str = KAFKA_VERSION) -> Path:
    """The lib/ folder of Apache Kafka's jars, fetched with Maven on first use. Raises Unavailable."""
    if (problem := missing_tools()) is not None:
        raise Unavailable(problem)
    home = cache_dir(version)
    lib = home / "lib"
    done = home / ".complete"
    if done.exists() and any(lib.glob(f"kafka_2.13-{version}.jar")):
        return lib
    home.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="fetch-", dir=home))
    try:
        g, a, v = SLF4J_BINDING.split(":")
        (work / "pom.xml").write_text(POM.format(kafka=version, sg=g, sa=a, sv=v))
        r = subprocess.run(["mvn", "-q", "-B", "-f", str(work / "pom.xml"), "dependency:copy-dependencies",
                            f"-DoutputDirectory={work / 'lib'}", "-DincludeScope=runtime"],
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            tail = " | ".join((r.stdout + r.stderr).strip().splitlines()[-3:])
            raise Unavailable(f"mvn could not fetch org.apache.kafka:kafka_2.13:{version}: {tail}")
        if lib.exists():
            shutil.rmtree(lib)
        (work / "lib").rename(lib)  # whole or not at all: a concurrent fetch loses the rename harmlessly
        done.write_text(version + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return lib


def random_cluster_id() -> str:
    """A Kafka Uuid: 16 random bytes, URL-safe base64 without padding (what `kafka-storage random-uuid`
    prints); never one starting with "-", which the storage tool's argument parser takes for an option."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


def server_properties(node: int, port: int, controller_port: int, voters: str, log_dir: Path, nodes: int) -> str:
    rf = min(3, nodes)
    return "\n".join([
        "process.roles=broker,controller",
        f"node.id={node}",
        f"controller.quorum.voters={voters}",
        f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names=CONTROLLER",
        "inter.broker.listener.name=PLAINTEXT",
        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        f"log.dirs={log_dir}",
        # as an operator's cluster would be: topics made explicitly (rapport creates its own)
        "auto.create.topics.enable=false",
        "num.partitions=1",
        f"default.replication.factor={rf}",
        f"min.insync.replicas={2 if rf >= 3 else 1}",
        f"offsets.topic.replication.factor={rf}",
        "offsets.topic.num.partitions=12",
        f"transaction.state.log.replication.factor={rf}",
        f"transaction.state.log.min.isr={2 if rf >= 3 else 1}",
        "group.initial.rebalance.delay.ms=0",
        "unclean.leader.election.enable=false",
        # a killed broker is noticed within a few seconds (the defaults are tuned for 30+ s networks)
        "broker.session.timeout.ms=6000",
        "broker.heartbeat.interval.ms=1000",
        "replica.lag.time.max.ms=10000",
        "num.network.threads=2",
        "num.io.threads=2",
        "num.recovery.threads.per.data.dir=1",
        "background.threads=2",
        "log.segment.bytes=67108864",
        "",
    ])


@dataclass
class Node:
    node_id: int
    port: int
    controller_port: int
    config: Path
    child: Child | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.child is not None and self.child.alive()


@dataclass
class KafkaCluster:
    """`size` KRaft nodes (broker+controller each) on loopback. `start()`, `url`, `kill(node)`,
    `restart(node)`, `stop()`."""
    size: int = 3
    base: Path | None = None
    version: str = KAFKA_VERSION
    cluster_id: str = field(default_factory=random_cluster_id)
    nodes: list[Node] = field(default_factory=list)
    _own_base: bool = False

    @property
    def url(self) -> str:
        """RAPPORT_KAFKA_URL: every broker, `;`-separated (streams/config.py)."""
        return ";".join(f"kafka://{n.address}" for n in self.nodes)

    @property
    def bootstrap(self) -> str:
        return ",".join(n.address for n in self.nodes)

    def start(self, timeout: float = 120) -> "KafkaCluster":
        lib = fetch_jars(self.version)
        if self.base is None:
            self.base = Path(tempfile.mkdtemp(prefix="rapport-kafka-"))
            self._own_base = True
        self.base.mkdir(parents=True, exist_ok=True)
        (self.base / "logs").mkdir(exist_ok=True)
        (self.base / "log4j.properties").write_text(LOG4J)
        ports = [(free_port(), free_port()) for _ in range(self.size)]
        voters = ",".join(f"{i + 1}@127.0.0.1:{c}" for i, (_, c) in enumerate(ports))
        self.nodes = []
        formats = []
        for i, (p, c) in enumerate(ports):
            node_id = i + 1
            cfg = self.base / f"server-{node_id}.properties"
            cfg.write_text(server_properties(node_id, p, c, voters, self.base / f"node-{node_id}", self.size))
            self.nodes.append(Node(node_id, p, c, cfg))
            formats.append(subprocess.Popen(  # one JVM each, side by side (each takes ~3 s to start)
                ["java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", f"{lib}/*",
                 f"-Dlog4j.configuration=file:{self.base / 'log4j.properties'}",
                 "kafka.tools.StorageTool", "format", "-t", self.cluster_id, "-c", str(cfg)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        for n, f in zip(self.nodes, formats):
            out, _ = f.communicate(timeout=120)
            if f.returncode != 0:
                raise RuntimeError(f"kafka storage format failed for node {n.node_id}: {out}")
        for n in self.nodes:
            self._spawn(n, lib)
        self.wait_ready(timeout)
        return self

    def _spawn(self, n: Node, lib: Path | None = None) -> None:
        lib = lib or fetch_jars(self.version)
        assert self.base is not None
        # from the one long-lived spawner thread: PR_SET_PDEATHSIG fires when the *thread* that forked
        # the child ends, so a broker restarted from a short-lived thread (chaos_kafka's delayed restart)
        # was SIGTERMed as soon as that thread returned
        n.child = _SPAWNER.submit(spawn, f"kafka-{n.node_id}", ["java", HEAP, "-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                                                "-Djava.awt.headless=true",
                                                f"-Dlog4j.configuration=file:{self.base / 'log4j.properties'}",
                                                "-cp", f"{lib}/*", "kafka.Kafka", str(n.config)],
                        self.base / "logs", stop_signal=signal.SIGTERM).result()

    def wait_ready(self, timeout: float = 120) -> None:
        """Every live node's listener accepts, and the cluster answers metadata with all live brokers."""
        deadline = time.monotonic() + timeout
        for n in self.nodes:
            if n.child is None:
                continue
            if not wait_port("127.0.0.1", n.port, max(1.0, deadline - time.monotonic())):
                raise RuntimeError(f"Kafka node {n.node_id} did not listen on {n.port}:\n{n.child.tail(30)}")
        want = sum(1 for n in self.nodes if n.alive())
        while time.monotonic() < deadline:
            if len(brokers(self.bootstrap_live)) >= want:
                return
            time.sleep(0.5)
        raise RuntimeError(f"the Kafka cluster did not report {want} brokers within {timeout:.0f} s")

    @property
    def bootstrap_live(self) -> str:
        return ",".join(n.address for n in self.nodes if n.alive())

    def node(self, node_id: int) -> Node:
        return next(n for n in self.nodes if n.node_id == node_id)

    def kill(self, node_id: int, sig: int = signal.SIGKILL) -> None:
        """SIGKILL (default) one node: its process only, by pid."""
        n = self.node(node_id)
        if n.child is not None and n.child.alive():
            n.child.proc.send_signal(sig)
            n.child.proc.wait(30)

    def restart(self, node_id: int, timeout: float = 90) -> None:
        n = self.node(node_id)
        if n.alive():
            n.child.stop(timeout=30)
        self._spawn(n)
        self.wait_ready(timeout)

    def leader_of(self, topic: str, partition: int) -> int | None:
        return partition_leaders(self.bootstrap_live, topic).get(partition)

    def stop(self) -> None:
        """SIGTERM every node at once, then wait (a controlled shutdown each; SIGKILL after 20 s)."""
        stop_together([n.child for n in self.nodes if n.child is not None and n.child.alive()], timeout=20)
        if self._own_base and self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)


def _describe(bootstrap: str, topic: str | None = None) -> dict:
    import asyncio

    from aiokafka.admin import AIOKafkaAdminClient

    async def go() -> dict:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000)
        await admin.start()
        try:
            out = await admin.describe_cluster()
            if topic:
                out["topics"] = await admin.describe_topics([topic])
            return out
        finally:
            await admin.close()

    return asyncio.run(go())


def brokers(bootstrap: str) -> list[dict]:
    try:
        return _describe(bootstrap)["brokers"]
    except Exception:  # not up yet
        return []


def partition_leaders(bootstrap: str, topic: str) -> dict[int, int]:
    """partition -> leader node id, as the cluster reports it now."""
    d = _describe(bootstrap, topic)
    return {p["partition"]: p["leader"] for t in d.get("topics", []) for p in t["partitions"]}




def stack_env(kafka_url: str, tag: str) -> dict[str, str]:
    """The environment of a `rapport up` on an external broker shared with other stacks (tests, benches):
    topics and consumer groups of its own, so one stack never reads another's events."""
    return {"RAPPORT_KAFKA_URL": kafka_url, "RAPPORT_APP_ID": f"rapport-{tag}",
            **{f"RAPPORT_{n.upper().replace('-', '_')}_TOPIC": f"rapport-{tag}.{n}"
               for n in ("interactions", "memory-events", "triggers", "dead-letter")}}


def main() -> None:
    """`python -m ops.kafka_cluster [fetch|run]`: fetch the jars (`make kafka`), or run a 3-node cluster
    in the foreground and print its RAPPORT_KAFKA_URL."""
    import sys

    what = sys.argv[1] if len(sys.argv) > 1 else "fetch"
    try:
        lib = fetch_jars()
    except Unavailable as e:
        print(f"kafka: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"Apache Kafka {KAFKA_VERSION} jars in {lib}")
    if what == "run":
        c = KafkaCluster(size=int(os.environ.get("RAPPORT_KAFKA_NODES", "3"))).start()
        print(f"RAPPORT_KAFKA_URL='{c.url}'  (logs in {c.base}/logs; Ctrl-C or SIGTERM stops it)", flush=True)
        def stop(signum, frame):  # noqa: ANN001 - Ctrl-C, or SIGTERM (a background job ignores SIGINT)
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
        finally:
            c.stop()


if __name__ == "__main__":
    main()
