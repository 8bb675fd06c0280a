"""`rapport`: the single CLI (CONTRACT.md). Commands stay thin; the work is in ops/embedded.py,
agents/, projections/ and streams/."""
from __future__ import annotations

import functools
import logging
import logging.config
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import click


def log_level() -> str:
    """RAPPORT_LOG_LEVEL as the standard names (uvicorn/logging); Faust spells warning `warn`."""
    level = os.environ.get("RAPPORT_LOG_LEVEL", "warning").lower()
    return {"warn": "warning", "crit": "critical"}.get(level, level)


@click.group()
def main() -> None:
    """rapport: per-contact memory and emotional intelligence for AI chat agents."""
    from ops import telemetry

    if telemetry.json_logs():  # RAPPORT_LOG_FORMAT=json: every command logs JSON lines (api/worker: below)
        logging.config.dictConfig(telemetry.logging_config("cli", log_level()))


@main.command()
@click.option("--data-dir", default="./.rapport", show_default=True, type=click.Path(file_okay=False))
@click.option("--http-host", default="127.0.0.1", show_default=True, envvar="RAPPORT_HTTP_HOST",
              help="[env: RAPPORT_HTTP_HOST]")
@click.option("--http-port", default=8080, show_default=True, type=click.IntRange(1, 65535),
              envvar="RAPPORT_HTTP_PORT", help="[env: RAPPORT_HTTP_PORT]")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--api-processes", default=None, show_default="one per two cores",
              type=click.IntRange(1, 16), help="API processes sharing the HTTP port (SO_REUSEPORT)")
@click.option("--ready-timeout", default=120.0, show_default=True, help="seconds to wait for /healthz")
def up(data_dir: str, http_host: str, http_port: int, workers: int, api_processes: int | None,
       ready_timeout: float) -> None:
    """Run the whole pipeline in the foreground on the embedded default."""
    from ops.embedded import Stack, default_api_processes
    from ops.keys import provision

    stack = Stack(Path(data_dir).resolve(), http_host, http_port, workers,
                  api_processes=api_processes or default_api_processes())
    stopping = {"flag": False}

    def on_signal(signum, frame):  # noqa: ANN001
        stopping["flag"] = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    code = 0
    try:
        click.echo(f"rapport: starting (data dir {stack.data_dir}, {workers} worker(s))", err=True)
        from domain.embedder import LOCAL_MODEL_NAME, configured_model_name, locate_local_model
        from streams.config import settings

        if configured_model_name(settings()) == LOCAL_MODEL_NAME:
            locate_local_model()  # before any child starts: a missing model is one line, not a crash loop
        stack.start_services()
        key_file, created = provision(stack.data_dir, stack.env["RAPPORT_DATABASE_URL"])
        click.echo(f"rapport: API key for tenant default {'written to' if created else 'in'} {key_file}", err=True)
        stack.start_app()
        if not stack.wait_ready(ready_timeout):
            raise RuntimeError(f"not healthy after {ready_timeout:.0f} s; see {stack.data_dir / 'logs'}")
        click.echo(f"rapport ready at {stack.url}", nl=True)
        sys.stdout.flush()
        while not stopping["flag"]:
            stack.supervise(time.monotonic())  # restarts what exited; raises on a crash loop
            time.sleep(0.2)
    except RuntimeError as e:
        if not stopping["flag"]:
            click.echo(f"rapport: {e}", err=True)
            code = 1
    finally:
        click.echo("rapport: stopping", err=True)
        stack.stop()
    sys.exit(code)


def _topics_ready(s, timeout: float = 120.0):  # noqa: ANN001, ANN202
    """streams.topics.ensure_topics, retried while the broker starts."""
    import asyncio

    from tenacity import RetryError, Retrying, stop_after_delay, wait_fixed

    from streams.topics import ensure_topics

    def log_wait(state) -> None:  # noqa: ANN001
        logging.getLogger("rapport.worker").info("broker not ready (%s); retrying", state.outcome.exception())

    try:
        for attempt in Retrying(stop=stop_after_delay(timeout), wait=wait_fixed(1.0), before_sleep=log_wait):
            with attempt:  # any error: the broker is not up yet
                return asyncio.run(ensure_topics(s))
    except RetryError as e:
        last = e.last_attempt.exception()
        raise click.ClickException(f"broker at {s.kafka_url} not usable: {last}") from last


NO_RECORD_KEY = ("no record key: set RAPPORT_RECORD_KEY (a secret of 32+ bytes shared with the API) or "
                 "RAPPORT_RECORD_KEY_FILE; `rapport up` makes <data-dir>/record-key")


@main.command()
def worker() -> None:
    """One Faust worker process, configured from the environment (RAPPORT_*)."""
    from streams.config import settings

    from agents import app_agents  # registers the agents
    from ops import telemetry
    from streams.app import app

    s = settings()
    if s.record_key is None:  # every record would be dead-lettered: say why and stop, before joining the group
        raise click.ClickException(NO_RECORD_KEY)
    app_agents.use(app_agents.live_worker(s))  # the composition root: the worker, built once from its settings
    telemetry.configure_tracing("worker")
    # the topics exist before Faust declares them (it would make them with one replica and no
    # retention); Faust's own topics get the same replication
    app.conf.topic_replication_factor = _topics_ready(s).replication
    args = ["rapport", "worker", "--loglevel", {"warning": "warn", "critical": "crit"}.get(log_level(), log_level())]
    if telemetry.json_logs():  # Faust installs this config; --quiet: no banner on stdout, only JSON lines
        app.conf.logging_config = telemetry.logging_config("worker", log_level())
        args.insert(1, "--quiet")
    if not s.web_port:
        args.append("--without-web")
    sys.argv = args
    app.main()


@main.command()
@click.option("--host", default=None, help="default: $RAPPORT_HTTP_HOST or 127.0.0.1")
@click.option("--port", default=None, type=int, help="default: $RAPPORT_HTTP_PORT or 8080")
@click.option("--reuse-port", is_flag=True, envvar="RAPPORT_API_REUSE_PORT",
              help="share the port with other API processes (SO_REUSEPORT: the kernel spreads connections)")
@click.option("--metrics-port", default=None, type=int, envvar="RAPPORT_API_METRICS_PORT",
              help="also serve this process's own /metrics on 127.0.0.1:PORT (with --reuse-port the shared "
                   "port's /metrics answers for whichever process took the connection)")
def api(host: str | None, port: int | None, reuse_port: bool, metrics_port: int | None) -> None:
    """The context API alone, configured from the environment."""
    import socket

    import uvicorn

    from ops import telemetry
    from streams.config import settings

    if host:  # the API decides from its bind address whether /metrics needs a key
        os.environ["RAPPORT_HTTP_HOST"] = host
        settings.cache_clear()
    s = settings()
    telemetry.configure_tracing("api")
    if telemetry.json_logs():
        log_config = telemetry.logging_config("api", log_level())
    else:
        logging.basicConfig(level=log_level().upper())
        log_config = uvicorn.config.LOGGING_CONFIG
    config = uvicorn.Config("projections.api:main", factory=True, host=s.http_host, port=port or s.http_port,
                            log_level=log_level(), access_log=False, log_config=log_config,
                            timeout_graceful_shutdown=5)
    if metrics_port:
        from prometheus_client import start_http_server

        start_http_server(metrics_port, addr="127.0.0.1")
    if not reuse_port:
        uvicorn.Server(config).run()
        return
    sock = socket.socket(socket.AF_INET6 if ":" in config.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((config.host, config.port))
    sock.set_inheritable(True)
    uvicorn.Server(config).run(sockets=[sock])


@main.command("webhooks-worker")
def webhooks_worker() -> None:
    """The webhook delivery process alone (topics -> signed POSTs, retries), configured from the environment."""
    from streams.webhooks.delivery import main as run

    logging.basicConfig(level=log_level().upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    run()


@main.command()
@click.option("--url", default="http://127.0.0.1:8080", show_default=True, envvar="RAPPORT_URL",
              help="[env: RAPPORT_URL]")
@click.option("--contact", default="arjun-demo", show_default=True)
@click.option("--data-dir", default="./.rapport", show_default=True, help="whose api-key to send (unless "
              "$RAPPORT_API_KEY is set)")
def demo(url: str, contact: str, data_dir: str) -> None:
    """Publish a small sample conversation to a running instance and print the resulting context."""
    from ops.demo import run_demo
    from ops.keys import auth_headers

    run_demo(url, contact, auth_headers(data_dir))


@main.command()
@click.option("--url", default=None, help="the rapport API (default: $RAPPORT_URL or http://127.0.0.1:8080)")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="http: the address to bind")
@click.option("--port", default=8090, show_default=True, type=click.IntRange(1, 65535), help="http: the port")
@click.option("--key-file", default=None, type=click.Path(dir_okay=False),
              help="the API key's file (default: $RAPPORT_API_KEY, else $RAPPORT_API_KEY_FILE, "
                   "else ./.rapport/api-key)")
@click.option("--tenant", default=None, help="the tenant to act for (admin keys only; default: the key's)")
def mcp(url: str | None, transport: str, host: str, port: int, key_file: str | None, tenant: str | None) -> None:
    """An MCP server (stdio, or streamable HTTP at /mcp) with rapport's tools: record_message,
    get_context, search_memories, list_triggers, get_payload, list_memories, get_memory, correct_memory,
    forget_memory, forget_contact."""
    from ops.mcp_server import serve

    try:
        serve(url, transport, host, port, tenant_id=tenant, key_file=key_file, log_level=log_level())
    except (ValueError, OSError) as e:  # an open non-loopback bind, a missing key file
        raise click.ClickException(str(e)) from e


@main.group()
def memories() -> None:
    """One contact's memories on a running stack (its HTTP API): list, search, show (with history),
    correct, forget. The key: $RAPPORT_API_KEY, else <data-dir>/api-key."""


def _memories_options(fn):  # noqa: ANN001, ANN202
    for option in (click.option("--url", default=None, help="the rapport API (default: $RAPPORT_URL or "
                                "http://127.0.0.1:8080)"),
                   click.option("--data-dir", default="./.rapport", show_default=True,
                                help="whose api-key to send (unless $RAPPORT_API_KEY is set)"),
                   click.option("--tenant", default=None, help="the tenant (admin keys only; default: the key's)")):
        fn = option(fn)
    return fn


def _memories_command(name: str, *params):  # noqa: ANN001, ANN002, ANN202
    """`rapport memories NAME CONTACT ...`, `params` (click's) after CONTACT and before --url, --data-dir
    and --tenant: the command gets the API's client `r` in place of those three."""
    def register(fn):  # noqa: ANN001, ANN202
        @functools.wraps(fn)
        def run(url: str | None, data_dir: str, tenant: str | None, **kw: Any) -> None:
            from ops import memories_cli as mc

            with mc.client(url, data_dir, tenant) as r:
                fn(r, **kw)

        run = _memories_options(run)
        for param in reversed((click.argument("contact"), *params)):
            run = param(run)
        return memories.command(name)(run)
    return register


_JSON = click.option("--json", "as_json", is_flag=True, help="the API's JSON")


@_memories_command("list", click.option("--status", type=click.Choice(
    ["active", "expired", "superseded", "merged", "compressed", "pruned", "archived"]), default=None), _JSON)
def memories_list(r: Any, contact: str, status: str | None, as_json: bool) -> None:
    """Every memory of CONTACT: id, status, type, importance, content."""
    from ops import memories_cli as mc

    mc.list_memories(r, contact, status, as_json)


@_memories_command("search", click.argument("query"),
                   click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 50)), _JSON)
def memories_search(r: Any, contact: str, query: str, limit: int, as_json: bool) -> None:
    """CONTACT's memories most relevant to QUERY, best first (as /context ranks them)."""
    from ops import memories_cli as mc

    mc.search(r, contact, query, limit, as_json)


@_memories_command("show", click.argument("memory_id"), _JSON)
def memories_show(r: Any, contact: str, memory_id: str, as_json: bool) -> None:
    """One memory and its history (extracted, reinforced, corrected, ...)."""
    from ops import memories_cli as mc

    mc.show(r, contact, memory_id, as_json)


@_memories_command("correct", click.argument("memory_id"),
                   click.option("--content", default=None, help="the corrected text"),
                   click.option("--type", "memory_type", type=click.Choice(["fact", "preference", "episode",
                                                                            "pattern"]), default=None),
                   click.option("--importance", type=click.FloatRange(0, 1), default=None),
                   click.option("--pin/--unpin", "pinned", default=None),
                   click.option("--wait", is_flag=True, help="until the correction is applied"))
def memories_correct(r: Any, contact: str, memory_id: str, content: str | None, memory_type: str | None,
                     importance: float | None, pinned: bool | None, wait: bool) -> None:
    """Correct a memory: its text, type, importance or pin (a MemoryCorrected event)."""
    from ops import memories_cli as mc

    mc.correct(r, contact, memory_id, content, memory_type, importance, pinned, wait)


@_memories_command("forget", click.argument("memory_id"),
                   click.option("--wait", is_flag=True, help="until the memory is forgotten"))
def memories_forget(r: Any, contact: str, memory_id: str, wait: bool) -> None:
    """Forget one memory of CONTACT (a MemoryForgotten event: its content is shredded)."""
    from ops import memories_cli as mc

    mc.forget(r, contact, memory_id, wait)


@main.group()
def keys() -> None:
    """API keys: one tenant each (admin keys may act for any tenant). Stored hashed; the key itself is
    printed once, by `create`."""


_data_dir_option = click.option("--data-dir", default="./.rapport", show_default=True,
                                help="of a running or stopped `rapport up` (unless $RAPPORT_DATABASE_URL is set)")


@keys.command("create")
@click.option("--tenant", required=True)
@click.option("--admin", is_flag=True, help="may act for any tenant (name it with tenant_id)")
@_data_dir_option
def keys_create(tenant: str, admin: bool, data_dir: str) -> None:
    """Create a key; the key is printed once, alone on the last line."""
    from ops.keys import KeysError, database
    from projections.auth import create_key
    from schemas.validate import check_id

    if (problem := check_id(tenant)) is not None:
        raise click.BadParameter(problem, param_hint="--tenant")
    try:
        with database(data_dir) as conn:
            key_id, key = create_key(conn, tenant, admin)
    except KeysError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"created key {key_id} for tenant {tenant}{' (admin)' if admin else ''}; it is not shown again:")
    click.echo(key)


@keys.command("list")
@click.option("--tenant", default=None, help="only this tenant's keys")
@_data_dir_option
def keys_list(tenant: str | None, data_dir: str) -> None:
    """Key ids, tenants, scope, creation and revocation times (never the keys)."""
    from ops.keys import KeysError, database
    from projections.auth import list_keys

    try:
        with database(data_dir) as conn:
            rows = list_keys(conn, tenant)
    except KeysError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"{'key id':<14}{'tenant':<24}{'scope':<8}{'created':<27}revoked")
    for key_id, t, admin, created, revoked in rows:
        click.echo(f"{key_id:<14}{t:<24}{'admin' if admin else 'tenant':<8}{created.isoformat(timespec='seconds'):<27}"
                   f"{revoked.isoformat(timespec='seconds') if revoked else '-'}")


@keys.command("revoke")
@click.argument("key_id")
@click.option("--tenant", default=None, help="refuse unless the key belongs to this tenant")
@_data_dir_option
def keys_revoke(key_id: str, tenant: str | None, data_dir: str) -> None:
    """Revoke a key by its id (the API stops accepting it within 30 s)."""
    from ops.keys import KeysError, database
    from projections.auth import revoke_key

    try:
        with database(data_dir) as conn:
            ok = revoke_key(conn, key_id, tenant)
    except KeysError as e:
        raise click.ClickException(str(e)) from None
    if not ok:
        raise click.ClickException(f"no unrevoked key {key_id}" + (f" of tenant {tenant}" if tenant else ""))
    click.echo(f"revoked key {key_id}")


@main.group()
def webhooks() -> None:
    """Webhook subscriptions of a tenant (the API's /webhooks routes do the same). `create` prints the
    signing secret once, alone on the last line."""


def _webhook_store(data_dir: str, work):  # noqa: ANN001, ANN202
    """Run `work(conn)` (async, streams/webhooks/store.py) on the data dir's database."""
    import asyncio

    import psycopg

    from ops.keys import KeysError, database_url

    async def go(url: str):  # noqa: ANN202
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            return await work(conn)

    try:
        with database_url(data_dir) as url:
            return asyncio.run(go(url))
    except KeysError as e:
        raise click.ClickException(str(e)) from None


@webhooks.command("create")
@click.option("--tenant", required=True)
@click.option("--url", required=True, help="http(s) URL that receives the signed POSTs")
@click.option("--event", "events", multiple=True, required=True,
              help="repeatable: *, TriggerCreated, TriggerCreated:crisis|check_in|owner_insight, a memory event "
                   "type (MemoryExtracted, MemorySuperseded, ...) or ContactErased")
@click.option("--description", default=None)
@_data_dir_option
def webhooks_create(tenant: str, url: str, events: tuple[str, ...], description: str | None, data_dir: str) -> None:
    """Subscribe a URL to a tenant's events; the signing secret is printed once, alone on the last line."""
    import asyncio

    from schemas.validate import check_id, check_name
    from streams.webhooks import addresses, rules, store

    for hint, problem in (("--tenant", check_id(tenant)), ("--url", rules.url_problem(url)),
                          ("--event", rules.filter_problem(list(events))),
                          ("--description", description and (check_name(description) or (
                              len(description) > rules.MAX_DESCRIPTION_CHARS
                              and f"at most {rules.MAX_DESCRIPTION_CHARS} characters")))):
        if problem:
            raise click.BadParameter(problem, param_hint=hint)
    if (problem := asyncio.run(addresses.address_problem(url, rules.Config.from_env()))) is not None:
        raise click.BadParameter(problem, param_hint="--url")
    try:
        hook, secret = _webhook_store(data_dir, lambda c: store.create(c, tenant, url, list(events), description))
    except store.TooMany:
        raise click.ClickException(f"tenant {tenant} has {rules.MAX_WEBHOOKS_PER_TENANT} webhooks already") from None
    click.echo(f"created webhook {hook['webhook_id']} for tenant {tenant} -> {url} ({', '.join(hook['events'])}); "
               f"its signing secret is not shown again:")
    click.echo(secret)


@webhooks.command("list")
@click.option("--tenant", default=None, help="only this tenant's webhooks")
@_data_dir_option
def webhooks_list(tenant: str | None, data_dir: str) -> None:
    """Webhook ids, tenants, pending and dead-lettered deliveries, events and URLs (never secrets)."""
    from streams.webhooks import store

    rows = _webhook_store(data_dir, lambda c: store.list_for(c, tenant))
    click.echo(f"{'webhook id':<21}{'tenant':<20}{'pending':>8}{'dead':>6}  events -> url")
    for r in rows:
        click.echo(f"{r['webhook_id']:<21}{r['tenant_id']:<20}{r['pending']:>8}{r['dead']:>6}  "
                   f"{','.join(r['events'])} -> {r['url']}")


@webhooks.command("delete")
@click.argument("webhook_id")
@click.option("--tenant", default=None, help="refuse unless the webhook belongs to this tenant")
@_data_dir_option
def webhooks_delete(webhook_id: str, tenant: str | None, data_dir: str) -> None:
    """Delete a webhook and its deliveries (pending ones are not sent)."""
    from streams.webhooks import store

    if not _webhook_store(data_dir, lambda c: store.delete(c, tenant, webhook_id)):
        raise click.ClickException(f"no webhook {webhook_id}" + (f" of tenant {tenant}" if tenant else ""))
    click.echo(f"deleted webhook {webhook_id}")


@main.command()
@click.option("--into", "into", default=None, help="the new projection version to build, e.g. v2")
@click.option("--from", "source", type=click.Choice(["ledger", "log"]), default="ledger", show_default=True,
              help="ledger: what the live version applied, in its order; log: the topic from its earliest offset")
@click.option("--verify", is_flag=True, help="compare the new version's digest with the live one; no switch "
                                              "and exit 1 on a mismatch")
@click.option("--data-dir", default="./.rapport", show_default=True, help="of the running `rapport up`")
@click.option("--drop", "drop_version", default=None, help="drop a version that is not live")
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=None,
              help="processes that replay the ledger's contacts side by side [default: the cores, at most 4]")
def replay(into, source, verify, data_dir, drop_version, jobs) -> None:  # noqa: ANN001
    """Rebuild every projection into a fresh version, then switch readers to it."""
    from ops.replay import run

    if not into and not drop_version:
        raise click.UsageError("give --into VERSION or --drop VERSION")
    sys.exit(run(into, source, verify, data_dir, drop_version, jobs=jobs or min(os.cpu_count() or 1, 4)))


@main.group()
def bench() -> None:
    """Benchmarks (numbers are printed with the machine they ran on)."""


@bench.command("load")
@click.option("--url", default=None, help="a running instance; default: start an embedded stack in a temp dir")
@click.option("--contacts", default=200, show_default=True)
@click.option("--events", default=5000, show_default=True)
@click.option("--queries", default=400, show_default=True)
@click.option("--concurrency", default=8, show_default=True)
@click.option("--workers", default=1, show_default=True, help="worker processes of the embedded stack")
@click.option("--out", default=None, help="write the results as JSON here")
@click.option("--kafka", is_flag=True, help="the embedded stack on a 3-broker Apache Kafka cluster started for "
              "the run (Java + Maven) instead of the embedded broker")
@click.option("--busy-clients", default=0, show_default=True,
              help="clients asking /context (with a query) without pause while the events are ingested and "
                   "processed: its latency while the worker works (the processing rate then shares the machine)")
@click.option("--distinct", is_flag=True, help="three template sentences per message, so that nearly every "
              "message is a text of its own (the default workload repeats ~130 texts)")
@click.option("--api-processes", default=None, type=click.IntRange(1, 16), show_default="as rapport up",
              help="API processes of the embedded stack")
def bench_load(url, contacts, events, queries, concurrency, workers, out, kafka, busy_clients,  # noqa: ANN001
               distinct, api_processes) -> None:
    """Ingest rate, processing rate, freshness and /context latency through the HTTP API."""
    import os
    import platform

    from ops.bench import load_main

    click.echo(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if not kafka:
        load_main(url, contacts, events, queries, concurrency, workers, out, busy_clients, distinct, api_processes)
        return
    from unittest import mock

    from ops.kafka_cluster import KafkaCluster, Unavailable

    if url:
        raise click.UsageError("--kafka starts its own stack: give it without --url")
    try:
        cluster = KafkaCluster(size=3).start()
    except Unavailable as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"Apache Kafka cluster: {cluster.bootstrap} (3 brokers, KRaft)")
    try:
        with mock.patch.dict(os.environ, {"RAPPORT_KAFKA_URL": cluster.url}):
            load_main(None, contacts, events, queries, concurrency, workers, out, busy_clients, distinct,
                      api_processes)
    finally:
        cluster.stop()


@bench.command("context")
@click.option("--url", default=None, help="a running instance (with RAPPORT_DATABASE_URL); default: embedded")
@click.option("--contacts", default=10000, show_default=True)
@click.option("--memories", "per_contact", default=100, show_default=True, help="memories per contact")
@click.option("--archived", default=1000, show_default=True, help="archived memories per contact (searched by queries)")
@click.option("--queries", default=1000, show_default=True)
@click.option("--concurrency", default=8, show_default=True)
def bench_context(url, contacts, per_contact, archived, queries, concurrency) -> None:  # noqa: ANN001
    """/context latency at scale: synthetic memories bulk-loaded, then queried through HTTP."""
    import platform

    from ops.bench import context_main

    click.echo(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    context_main(url, contacts, per_contact, queries, concurrency, archived=archived)


@bench.command("chaos")
@click.option("--events", default=20000, show_default=True)
@click.option("--contacts", default=200, show_default=True)
@click.option("--worker-kills", default=10, show_default=True, help="SIGKILLs of a random worker")
@click.option("--workers", default=2, show_default=True, help="worker processes of the embedded stack")
@click.option("--gap", default=15.0, show_default=True, help="seconds between faults")
@click.option("--no-others", is_flag=True, help="only worker kills (no API kill, PostgreSQL restart and crash, "
                                             "Redis stall, broker kill, second tenant)")
@click.option("--max-recovery", default=10.0, show_default=True, help="seconds; a slower recovery fails the run")
@click.option("--kafka", is_flag=True, help="on a 3-broker Apache Kafka cluster started for the run (Java + "
              "Maven), with its faults: a broker SIGKILLed, a partition leader restarted, a worker added")
@click.option("--cluster-faults", default="broker-sigkill,leader-restart,worker-add", show_default=True,
              help="with --kafka: which cluster faults, comma-separated")
def bench_chaos(events, contacts, worker_kills, workers, gap, no_others, max_recovery, kafka,  # noqa: ANN001
                cluster_faults) -> None:
    """Faults injected into `rapport up` under load: events lost/duplicated, digest vs a clean replay."""
    import platform

    from ops.chaos import run_chaos, table

    click.echo(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if kafka:
        from ops.chaos_kafka import run_kafka_chaos
        from ops.kafka_cluster import Unavailable

        try:
            r = run_kafka_chaos(events=events, contacts=contacts, worker_kills=worker_kills, workers=workers,
                                gap_s=gap, others=() if no_others else ("api-kill", "pg-restart", "redis-stall"),
                                faults=tuple(f for f in cluster_faults.split(",") if f), say=click.echo)
        except Unavailable as e:
            raise click.ClickException(str(e)) from None
    else:
        r = run_chaos(events=events, contacts=contacts, worker_kills=worker_kills, workers=workers, gap_s=gap,
                      others=() if no_others else ("api-kill", "pg-restart", "pg-kill", "redis-stall",
                                                   "broker-kill", "twin-tenant"),
                      say=click.echo)
    click.echo(table(r))
    for note in r.notes:
        click.echo(note, err=True)
    sys.exit(0 if r.ok(max_recovery) else 1)


@bench.command("soak")
@click.option("--events", default=100_000, show_default=True)
@click.option("--contacts", default=1_000, show_default=True)
@click.option("--round", "round_size", default=10_000, show_default=True, help="events per round, drained before "
              "the next; memory is read after each")
@click.option("--workers", default=1, show_default=True)
@click.option("--no-broker-restarts", is_flag=True, help="no planned restart of the embedded broker (they restart "
              "the workers too): one worker process over the whole run")
def bench_soak(events, contacts, round_size, workers, no_broker_restarts) -> None:  # noqa: ANN001
    """Resident memory of every part of `rapport up` over a long ingest, and its growth in the run's second
    half (MiB per 10,000 events: a bound levels off, a leak does not; a part restarted meanwhile is marked *)."""
    from ops.soak import main

    main(events, contacts, round_size, workers, broker_restarts=not no_broker_restarts)


@bench.command("extraction")
def bench_extraction() -> None:
    """Precision/recall of the rules on the labelled set, and per-message latency."""
    from ops.bench_extraction import main as run

    run([])


@bench.command("mood")
@click.option("--data", default=None, help="GoEmotions folder (default: ../shared/data/emotion/goemotions)")
@click.option("--meld", default=None, help="MELD dev CSV, out of domain (default: $RAPPORT_MELD_DEV or "
              "../shared/data/emotion/meld-dev/dev_sent_emo.csv; skipped when absent)")
def bench_mood(data, meld) -> None:  # noqa: ANN001
    """The offline mood classifier vs the seed's keyword list: GoEmotions dev, MELD dev, hand-labelled sets."""
    from ops.bench_mood import main as run

    run((["--data", data] if data else []) + (["--meld", meld] if meld else []))


@bench.command("redaction")
@click.option("--data", default=None, help="labelled JSONL (default: tests/data/redaction_labelled.jsonl)")
@click.option("--show", is_flag=True, help="print every miss and false positive")
@click.option("--json", "as_json", is_flag=True)
def bench_redaction(data, show, as_json) -> None:  # noqa: ANN001
    """Secrets redaction: precision and recall per kind on the labelled set's dev and held-out parts."""
    from ops.bench_redaction import main as run

    run((["--data", data] if data else []) + (["--show"] if show else []) + (["--json"] if as_json else []))


@bench.command("safety")
@click.option("--split", type=click.Choice(["heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6",
                                              "train"]),
              default="heldout",
              help="the part of the crisis set (default: the held-out part, never trained on)")
@click.option("--public", type=int, default=0, help="also N rows of the weak public set (information only)")
@click.option("--json", "as_json", is_flag=True, help="the full result as JSON (misses and false alarms included)")
def bench_safety(split, public, as_json) -> None:  # noqa: ANN001
    """Crisis detection: recall per clinical level and warning sign, false alarms per kind of hard negative."""
    from ops.bench_safety import main as run

    run(["--split", split, "--public", str(public)] + (["--json"] if as_json else []))


@bench.command("year")
def bench_year() -> None:
    """A year of daily chat for one contact through the fold: active memories per month, by type."""
    from ops.simulate_year import main as run

    run()


@bench.command("notes")
@click.option("--url", default=None, help="a running instance (default: an embedded stack in a temp dir)")
@click.option("--only", type=click.Choice(["year", "daily", "arjun"]), multiple=True,
              help="one contact (repeatable); default all three")
def bench_notes(url, only) -> None:  # noqa: ANN001
    """What the model reads about three contacts at points of their lives, with the hygiene verdict."""
    from ops.bench import target
    from ops.notes import SCENARIOS, run

    with target(url, workers=1) as (base, headers):
        found = run(base, headers, tuple(only) or SCENARIOS)
    click.echo(f"hygiene problems: {found}")
    sys.exit(1 if found else 0)


@bench.command("locomo")
@click.option("--data", required=True, help="a LoCoMo JSON file (a list of {sample_id, conversation, qa})")
@click.option("--url", default=None, help="a running instance (with RAPPORT_DATABASE_URL); default: embedded")
@click.option("--cv", is_flag=True, help="cross-validate the ranking's parameters across the conversations")
@click.option("--conv", "only", multiple=True, help="only this sample id (repeatable)")
@click.option("--out", "out_path", default=None, help="write the summary and every question's scores here")
def bench_locomo(data, url, cv, only, out_path) -> None:  # noqa: ANN001
    """LoCoMo retrieval (recall@1200, R@10, MRR) in-process over an ingested stack, and --cv: the ranking's
    parameters chosen on one conversation, read on the other."""
    from ops.bench_locomo import main as run

    run(data, url, cv, out_path, list(only) or None)


@bench.command("worker")
@click.option("--events", default=3000, show_default=True)
@click.option("--contacts", default=100, show_default=True)
@click.option("--batch", default=256, show_default=True, help="records a batch, as RAPPORT_BATCH_SIZE")
@click.option("--distinct", is_flag=True, help="bench load's --distinct messages (nearly every text its own)")
def bench_worker(events, contacts, batch, distinct) -> None:  # noqa: ANN001
    """One worker's pipeline alone, in-process, over bench load's events: CPU per event and stages."""
    from ops.bench_worker import main as run

    run(events, contacts, distinct, batch)


@bench.command("inline")
def bench_inline() -> None:
    """The whole per-event fold (no I/O): the inline tier's latency."""
    from ops.bench_inline import main as run

    run()


if __name__ == "__main__":
    main()
