"""Every fenced block of README.md is executed here against one `rapport up`, or listed in SKIPPED with why.

A block is identified by its heading and its first line. ```sh/```bash blocks run through
`bash -euo pipefail`, ```python blocks through the venv's python, ```json blocks are parsed; each runs in
a temp dir where `.venv` is this checkout's and `.rapport` is the stack's data dir, with `RAPPORT_URL`,
`RAPPORT_API_KEY` and `KEY` (the header the curl blocks send) pointing at the stack, in README order (a
later block reads what an earlier one wrote, as a reader following the README would). The only changes to
a block's text are the HTTP port (8080 -> the stack's) and the addresses in SUBSTITUTED. `curl` fails
on an HTTP error status (`--fail-with-body`), so a block whose request the server refuses fails. Where a
block says what it prints (`# -> [status] {...}`, `…` for any text), the output must contain it, in
order; PRINTS adds what a block prints where the README says it in prose.

A block of another language, or one that should not run, is in SKIPPED with its reason: a block that is
neither run nor listed fails `test_every_block_is_run_or_listed`, so a snippet added without a test breaks
the build, and so does a SKIPPED entry whose block is gone."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.stack import running

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[1]
RUNS = {"sh": "bash", "bash": "bash", "python": "python", "json": "json"}

COVERED_TS = "covered by tests/test_ts_client_e2e.py (npm pack, the snippet compiled and run against rapport up)"
COVERED_LC = "covered by tests/test_adapter_langchain.py (test_the_readme_snippets_run_as_written)"
OUTPUT = "a sample of what a command prints, not a command"
# (heading, first line) -> why the block is not run here
SKIPPED: dict[tuple[str, str], str] = {
    ("## Two commands", "make run    # set up .venv (first time: a few minutes) and run `rapport up` in the "
                        "foreground"):
        "`make run` starts a long-running server in the foreground; `make test` is the whole suite",
    ("### The OpenAPI document is the contract", ".venv/bin/rapport up --data-dir /tmp/oa --http-port 8181 &"):
        "starts a second long-running server; tests/test_openapi_fuzz.py runs schemathesis against rapport up",
    ("## Crisis language and safety", '{"kind": "crisis", "severity": "high", "category": "suicide_plan", '
                                      '"level": "attempt",'):
        "an elided example of a trigger (`...`), not input; tests/test_e2e.py and "
        "tests/test_crisis_fold_levels.py check a crisis trigger's fields",
    ("## Python client", 'hook = rapport.create_webhook("https://ops.example.com/rapport", '
                         '["TriggerCreated:crisis"],'):
        "the receiving end's `request` and `raw_body` are a web framework's; tests/test_webhooks_pg.py drives "
        "every webhook method and tests/test_client_e2e.py every client method against rapport up",
    ("## Python client", "pip install ./clients/python        # in the bot's own environment"):
        "installs into the user's environment; tests/test_client_e2e.py installs the client into a fresh "
        "virtualenv and talks to rapport up",
    ("### Example: a chat bot with memory", "pip install ./clients/python openai"):
        "installs packages and needs an OpenAI-compatible model server; tests/test_client_e2e.py runs "
        "examples/chat_bot.py against rapport up and tests/llm_stub.py",
    ("### LangChain and LangGraph", "from langchain.agents import create_agent"): COVERED_LC,
    ("### LangChain and LangGraph", "from langchain_core.messages import AIMessage, HumanMessage"): COVERED_LC,
    ("## TypeScript client", "cd clients/typescript && npm ci && npm pack      # rapport-client-0.1.0.tgz "
                             "(npm pack builds it)"): COVERED_TS,
    ("## TypeScript client", 'import { InvalidSignature, Rapport, ValidationError, verifyWebhook } from '
                             '"rapport-client";'): COVERED_TS,
    ("## MCP: rapport's memory for agent runtimes", "RAPPORT_API_KEY=rk_... .venv/bin/rapport mcp --transport "
                                                    "http --host 127.0.0.1 --port 8090"):
        "starts a long-running server; tests/test_mcp.py serves streamable HTTP (401 without the key, a "
        "session with it)",
    ("## Webhooks", "from rapport_client import InvalidSignature, verify_webhook"):
        "a function for the user's web framework (SECRET, first_time, handle are theirs); "
        "tests/test_client.py holds verify_webhook to the server's signing",
    ("## What the model reads", "BEFORE"): OUTPUT,
    ("## Replay, versions, erasure", "replayed 1080 events into v2 in 2.25 s (480.5 events/s); digest "
                                     "bfb04aad..."): OUTPUT,
    ("### Upgrading: tenant-scoped ids", ".venv/bin/rapport up --data-dir DIR            # the new build "
                                         "migrates the live version's keys in place"):
        "an upgrade of an older build's data dir (DIR); starts a long-running server",
    ("### Upgrading: keyword statistics", ".venv/bin/rapport up --data-dir DIR                 # migrates: "
                                          "the tables, and the pending contacts"):
        "an upgrade of an older build's data dir (DIR); starts a long-running server",
    ("## Operations: supervision, health, backpressure, faults", "$ rapport bench soak --events 100000 "
                                                                 "--contacts 1000 --round 10000 "
                                                                 "--no-broker-restarts"): OUTPUT,
    ("## Operations: supervision, health, backpressure, faults", "$ rapport bench chaos --events 6000 "
                                                                 "--contacts 100 --worker-kills 2 --workers 2 "
                                                                 "--gap 15"): OUTPUT,
    ("## Observability: metrics, dashboard, alerts, traces, JSON logs", "# prometheus.yml"):
        "the operator's Prometheus configuration; tests/test_dashboards.py parses the alert rules it loads",
    ("## Observability: metrics, dashboard, alerts, traces, JSON logs",
     "POST /ingest                          rapport-api     continues the caller's `traceparent`, if any"):
        "a drawing of one event's trace; tests/test_tracing_pg.py and tests/test_e2e_telemetry.py follow it",
    ("## Scale out with Kafka", "docker compose -f docker-compose.kafka.yml up -d --scale worker=4"):
        "needs Docker; tests/test_compose.py checks the compose file",
    ("## Scale out with Kafka", "$ rapport bench chaos --kafka --events 20000 --contacts 200 --worker-kills 0 "
                                "--workers 2 --no-others \\"): OUTPUT,
    ("## Scale out with Kafka", "python -m ops.kafka_cluster run &          # prints RAPPORT_KAFKA_URL='kafka:"
                                "//...;kafka://...;kafka://...'"):
        "needs Java 17 and Maven for a 3-broker Kafka cluster, and is a benchmark of minutes "
        "(the kafka-marked tests run on that cluster)",
    ("## Benchmarks", ".venv/bin/rapport up --data-dir /tmp/lc --http-port 8090 &"):
        "starts a second server and needs the maintainers' evaluation kit (LoCoMo), not in the repository",
}

# (heading, first line) -> what the block prints (regular expressions, ^ at a line's start), where the README
# says so in its prose
PRINTS: dict[tuple[str, str], list[str]] = {
    ("## Two commands", ".venv/bin/rapport demo          # publishes a short conversation and prints the "
                        "resulting context"): [r'"memories": \[\n', "Bruno"],
    # its context_text, then a line per ranked memory: type, score, content, source event ids
    ("## Using the API", "from rapport_client import Event, Rapport"): [r"^fact [\d.]+ Lives in Berlin \['"],
    ("## Correcting and forgetting memories", 'KEY="Authorization: Bearer $(cat .rapport/api-key)"'):
        ['"content":"Lives in Pune"', '"kind":"corrected"'],
    ("## Correcting and forgetting memories", ".venv/bin/rapport memories list arjun                          "
                                              "# [--status active] [--json]"): ["Lives in Pune"],
    ("## Replay, versions, erasure", ".venv/bin/rapport replay --into v2 --verify     # beside a running "
                                     "`rapport up` (same --data-dir)"):
        ["live v1 digest", ": MATCH", "readers switched to v2", "dropped projection version v1"],
}

# (heading, first line) -> (contact, text): what a block that prints nothing must have recorded, read back
# from the contact's export (a record published straight to the broker is signed right, not dead-lettered)
RECORDS: dict[tuple[str, str], tuple[str, str]] = {
    ("## Publishing straight to Kafka", "import asyncio, json, uuid, datetime as dt"): ("arjun", "I love biryani"),
}

# (heading, first line) -> {address in the block: address on the stack}, besides the HTTP port
SUBSTITUTED: dict[tuple[str, str], dict[str, str]] = {
    ("## Publishing straight to Kafka", "import asyncio, json, uuid, datetime as dt"):
        {"127.0.0.1:9092": "{kafka}"},   # the embedded broker's address, from run.json
    # ops.example.com does not resolve offline (CI, a sandbox): a loopback address stands in, which the stack
    # accepts with RAPPORT_WEBHOOK_ALLOW_PRIVATE=1 (a delivery, if one is due before the stack stops, finds
    # nothing listening on port 443); what the block prints is checked with the same substitution
    ("## Webhooks", 'KEY="Authorization: Bearer $(cat .rapport/api-key)"'): {"ops.example.com": "127.0.0.1"},
}


@dataclass(frozen=True)
class Block:
    heading: str
    first: str
    lang: str
    text: str
    line: int

    @property
    def key(self) -> tuple[str, str]:
        return self.heading, self.first


def readme_blocks(text: str) -> list[Block]:
    """The fenced blocks of `text` (indented ones in list items too, dedented), each under its heading."""
    blocks, heading, fence = [], "", None
    for n, raw in enumerate(text.splitlines(), 1):
        stripped = raw.lstrip()
        if fence is None:
            if stripped.startswith("```"):
                fence, indent, lang, start, body = stripped, len(raw) - len(stripped), stripped[3:].strip(), n, []
            elif raw.startswith("#"):
                heading = raw.strip()
        elif stripped.startswith("```"):
            first = next((b for b in body if b.strip()), "").strip()
            blocks.append(Block(heading, first, lang, "\n".join(body) + "\n", start))
            fence = None
        else:
            body.append(raw[indent:] if raw[:indent].strip() == "" else raw)
    assert fence is None, f"README.md: a fence opened at line {start} is never closed"
    return blocks


BLOCKS = readme_blocks((ROOT / "README.md").read_text())
RUNNABLE = [b for b in BLOCKS if b.key not in SKIPPED]


def expectations(text: str) -> list[str]:
    """The `# -> ...` outputs a block states, as regular expressions: a leading HTTP status dropped (curl -s
    prints the body), `…` any text, a continuation on the following `#` lines joined, a trailing comment
    dropped."""
    out: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "# -> " not in line:
            continue
        said = line.split("# -> ", 1)[1]
        for nxt in lines[i + 1:]:
            if not re.match(r"#\s{2,}\S", nxt) or "# -> " in nxt:
                break
            said += nxt[1:].strip()
        said = re.sub(r"\s{2,}#.*$", "", said).strip()
        said = re.sub(r"^\d{3} ", "", said)
        out.append(".*?".join(re.escape(p) for p in said.split("…")))
    return out


def test_every_block_is_run_or_listed():
    unknown = [f"README.md:{b.line} {b.heading} / {b.first!r} ({b.lang or 'no language'})"
               for b in RUNNABLE if b.lang not in RUNS]
    assert not unknown, ("blocks neither run (sh, bash, python, json) nor listed in SKIPPED with a reason:\n"
                         + "\n".join(unknown))
    keys = {b.key for b in BLOCKS}
    stale = [k for k in [*SKIPPED, *PRINTS, *RECORDS, *SUBSTITUTED] if k not in keys]
    assert not stale, f"entries naming a block the README no longer has: {stale}"
    twice = {k for k in keys if sum(b.key == k for b in BLOCKS) > 1}
    assert not twice, f"blocks with the same heading and first line (cannot be told apart): {twice}"
    assert all(SKIPPED.values())


def test_the_expectation_reader():
    got = expectations('curl x   # -> 202 {"a":"…","b":1}\n'
                       '# -> {"t":"d",\n#     "c":[]}     # shown once\n'
                       "# not a continuation\n")
    assert got == [re.escape('{"a":"') + ".*?" + re.escape('","b":1}'), re.escape('{"t":"d","c":[]}')]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with running(tmp_path_factory.mktemp("snippets") / "data", env={"RAPPORT_WEBHOOK_ALLOW_PRIVATE": "1"}) as s:
        yield s


@pytest.fixture(scope="module")
def home(stack, tmp_path_factory):
    """A directory as a reader of the README has it: `.venv` (this checkout's) and `.rapport` (the stack's)."""
    d = tmp_path_factory.mktemp("reader")
    (d / ".venv").symlink_to(ROOT / ".venv")
    (d / ".rapport").symlink_to(stack.data_dir)
    return d


@pytest.mark.parametrize("block", RUNNABLE, ids=[f"L{b.line}-{b.lang}" for b in RUNNABLE])
def test_the_block_runs_as_written(block: Block, stack, home):
    if block.lang == "json":
        json.loads(block.text)
        return
    text = re.sub(r"\b(localhost|127\.0\.0\.1):8080\b", rf"\g<1>:{stack.port}", block.text)
    kafka = stack.run_info["kafka_url"].removeprefix("kafka://")
    for old, new in SUBSTITUTED.get(block.key, {}).items():
        assert old in text, f"{old!r} is no longer in the block"
        text = text.replace(old, new.format(kafka=kafka))
    key = stack.api_key
    env = {**os.environ, "RAPPORT_URL": stack.url, "RAPPORT_API_KEY": key, "KEY": f"Authorization: Bearer {key}",
           "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("RAPPORT_API_KEY_FILE", None)
    if RUNS[block.lang] == "bash":
        # curl answers an HTTP error with its body and exit 22, so `set -e` stops at a refused request
        cmd = ["bash", "-euo", "pipefail", "-c",
               'curl() { command curl --fail-with-body "$@"; }\n' + text]
    else:
        cmd = [sys.executable, "-c", text]
    done = subprocess.run(cmd, cwd=home, env=env, capture_output=True, text=True, timeout=240)
    where = f"README.md:{block.line} ({block.heading}), as run:\n{text}\n--- stdout\n{done.stdout}\n--- stderr\n" \
            f"{done.stderr[-4000:]}"
    assert done.returncode == 0, where
    at = 0
    for pattern in expectations(text):
        found = re.compile(pattern, re.S).search(done.stdout, at)
        assert found, f"the README says it prints {pattern!r}: not found in order\n{where}"
        at = found.end()
    for said in PRINTS.get(block.key, []):
        assert re.search(said, done.stdout, re.M), f"{said!r} not printed\n{where}"
    if block.key in RECORDS:
        contact, said = RECORDS[block.key]
        deadline = time.monotonic() + 60
        with stack.client() as c:
            while said not in (export := c.get(f"/contacts/{contact}/export").text):
                assert time.monotonic() < deadline, f"{said!r} not in {contact}'s export after 60 s\n{where}\n{export}"
                time.sleep(0.5)
