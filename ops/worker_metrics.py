"""The running workers' own Prometheus metrics, read the way an operator would: the /metrics URLs that
`rapport up --data-dir DIR` lists in DIR/run.json, scraped and parsed (bench load's stage breakdown,
replay's comparison with the live rate)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def metrics_urls(data_dir: str | Path | None, kind: str = "worker") -> list[str]:
    """The /metrics URLs of a running `rapport up`'s workers (`kind` "api": its API processes), none when
    it is not running there."""
    run = Path(data_dir or "./.rapport") / "run.json"
    try:
        return [u for name, u in json.loads(run.read_text()).get("metrics", {}).items() if name.startswith(kind)]
    except (OSError, ValueError):
        return []


def samples(urls: list[str]) -> list[Any] | None:
    """Every sample of every worker's /metrics (prometheus_client's Sample: name, labels, value); None
    when one of them cannot be read."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    out = []
    for u in urls:
        try:
            text = httpx.get(u, timeout=5).text
        except httpx.HTTPError:
            return None
        out += [s for family in text_string_to_metric_families(text) for s in family.samples]
    return out
