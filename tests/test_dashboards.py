"""The Grafana dashboard and the Prometheus alert rules in ops/ read metrics the code really exports.

Every PromQL expression is parsed with Prometheus' grammar (promql-parser): it must parse, and every
metric it selects must be registered by the modules that run in the API and the workers, with the
labels it matches on; a `route` it names must be a route of the API, an `event_type` an event type.
The rules' YAML must have the shape Prometheus loads."""
from __future__ import annotations

import json
import re
from pathlib import Path

import promql_parser
import pytest
import yaml
from prometheus_client import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD = ROOT / "ops" / "grafana" / "rapport-dashboard.json"
ALERTS = ROOT / "ops" / "prometheus" / "alerts.yml"
# series Prometheus makes itself for every target it scrapes
PROMETHEUS_OWN = {"up": {"job", "instance"}}
# Grafana's interval variables, replaced by a duration before parsing
GRAFANA_VARS = re.compile(r"\$__(rate_interval|interval|range)")
SUFFIXES = {"counter": ("_total", "_created"), "gauge": ("",), "histogram": ("_bucket", "_count", "_sum", "_created"),
            "summary": ("_count", "_sum", "_created"), "info": ("_info",)}


def exported() -> dict[str, set[str]]:
    """Series name -> label names, of every metric the API and the worker processes register."""
    import agents.app_agents  # noqa: F401  (the worker's metrics: agents/metrics.py, streams/metrics.py)
    import projections.api  # noqa: F401  (the API's: projections/metrics.py, streams/metrics.py)

    series: dict[str, set[str]] = {}
    for family in REGISTRY.collect():
        collector = REGISTRY._names_to_collectors.get(family.name + SUFFIXES.get(family.type, ("",))[0])
        labels = set(getattr(collector, "_labelnames", ()))
        for suffix in SUFFIXES.get(family.type, ("",)):
            series[family.name + suffix] = labels | ({"le"} if suffix == "_bucket" else set())
    return series


def dashboard_exprs() -> list[tuple[str, str]]:
    """(where, PromQL) of every target of every panel, rows' nested panels included."""
    dash = json.loads(DASHBOARD.read_text())
    out = []

    def walk(panels: list[dict]) -> None:
        for p in panels:
            for t in p.get("targets", []):
                out.append((f"panel {p['title']!r} {t['refId']}", t["expr"]))
            walk(p.get("panels", []))

    walk(dash["panels"])
    return out


def alert_exprs() -> list[tuple[str, str]]:
    rules = yaml.safe_load(ALERTS.read_text())
    return [(f"rule {r.get('alert') or r.get('record')}", r["expr"]) for g in rules["groups"] for r in g["rules"]]


def selectors(expr: str) -> list[promql_parser.VectorSelector]:
    found: list[promql_parser.VectorSelector] = []
    promql_parser.walk(promql_parser.parse(GRAFANA_VARS.sub("5m", expr)),
                       lambda node: found.append(node) if isinstance(node, promql_parser.VectorSelector) else None)
    return found


EXPRESSIONS = dashboard_exprs() + alert_exprs()


@pytest.mark.parametrize("where, expr", EXPRESSIONS, ids=[where for where, _ in EXPRESSIONS])
def test_every_expression_parses_and_selects_exported_metrics_by_their_labels(where, expr):
    from projections.api import app
    from schemas import events as ev

    series = {**exported(), **PROMETHEUS_OWN}
    routes = {getattr(r, "path", None) for r in app.routes}
    found = selectors(expr)
    assert found, f"{where}: selects no metric"
    for s in found:
        assert s.name in series, f"{where}: {s.name} is not exported by the API or the workers"
        for m in s.matchers.matchers:
            assert m.name in series[s.name], f"{where}: {s.name} has no label {m.name!r}"
            if m.name == "route" and m.op == promql_parser.MatchOp.Equal:
                assert m.value in routes, f"{where}: the API has no route {m.value!r}"
            if m.name == "event_type" and m.op == promql_parser.MatchOp.Equal:
                assert m.value in ev.CURRENT_VERSIONS, f"{where}: no event type {m.value!r}"


def test_the_dashboard_covers_what_operators_watch():
    """Ingest rate, lag, freshness, /context latency, dead letters, shredded events, crisis triggers."""
    names = {s.name for _, e in dashboard_exprs() for s in selectors(e)}
    assert {"rapport_ingested_total", "rapport_consumer_lag", "rapport_unprocessed_ledger_events",
            "rapport_freshness_seconds_bucket", "rapport_request_seconds_bucket", "rapport_events_total",
            "rapport_events_shredded_total", "rapport_triggers_total"} <= names
    dash = json.loads(DASHBOARD.read_text())
    panels = [p for p in dash["panels"] if p["type"] != "row"]
    assert len({p["id"] for p in dash["panels"]}) == len(dash["panels"])
    assert all(p["datasource"]["uid"] == "${datasource}" and p["targets"] and "gridPos" in p for p in panels)
    assert [v["name"] for v in dash["templating"]["list"]] == ["datasource"]


def test_the_alert_rules_have_the_shape_prometheus_loads():
    rules = yaml.safe_load(ALERTS.read_text())
    assert set(rules) == {"groups"}
    assert len({g["name"] for g in rules["groups"]}) == len(rules["groups"])
    for g in rules["groups"]:
        assert set(g) <= {"name", "interval", "rules", "limit"} and g["rules"]
        names = [r["alert"] for r in g["rules"]]
        assert len(set(names)) == len(names)
        for r in g["rules"]:
            assert set(r) <= {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}, r["alert"]
            assert isinstance(r["expr"], str)
            if "for" in r:
                promql_parser.parse_duration(r["for"])
            assert r["labels"]["severity"] in ("info", "warning", "critical")
            assert all(isinstance(v, str) for v in [*r["labels"].values(), *r["annotations"].values()])
            assert r["annotations"]["summary"]
    alerts = {r["alert"] for g in rules["groups"] for r in g["rules"]}
    assert {"RapportConsumerLagGrowing", "RapportFreshnessSlow", "RapportContextSlow", "RapportDeadLetters",
            "RapportCrisisTriggerNotDelivered"} <= alerts
