"""The TypeScript client (clients/typescript) against `rapport up`: `npm ci` and the build, then its
`node --test` suites (unit tests on a local fake API, webhook verification held to the server's own
signatures and verdicts, drift tests, every route against the stack, and the built package in headless
Chromium) with RAPPORT_URL and
RAPPORT_API_KEY; src/schema.ts regenerated from the live /openapi.json must equal the committed one;
and the README's "TypeScript client" snippet, compiled against the packed package installed in a
fresh project, runs against the stack. One stack for the module."""
from __future__ import annotations

import base64
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stack import running

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "clients" / "typescript"
NODE, NPM = shutil.which("node"), shutil.which("npm")


def node_major() -> int:
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True).stdout  # type: ignore[list-item]
    return int(out.strip().lstrip("v").split(".")[0])


if not (NODE and NPM) or node_major() < 18:
    pytest.skip("the TypeScript client's tests need Node 18+ with npm on PATH", allow_module_level=True)


def sh(*cmd: str, cwd: Path = TS, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(list(cmd), cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def built() -> Path:
    """clients/typescript with its devDependencies (npm ci: exactly package-lock.json) and built."""
    sh(NPM, "ci", "--no-audit", "--no-fund")  # type: ignore[arg-type]
    sh(NPM, "run", "build")  # type: ignore[arg-type]
    sh(NPM, "run", "build:test")  # type: ignore[arg-type]
    return TS


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    # a webhook may point at the test's own receiver on 127.0.0.1
    with running(tmp_path_factory.mktemp("ts-client") / "data", env={"RAPPORT_WEBHOOK_ALLOW_PRIVATE": "1"}) as s:
        yield s


@pytest.fixture(scope="module")
def tenant_key(stack) -> str:
    """A key of tenant acme alone (the data dir's key is an admin key, which may name any tenant)."""
    out = subprocess.run([sys.executable, "-m", "ops.cli", "keys", "create", "--tenant", "acme", "--data-dir",
                          str(stack.data_dir)], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[-1]


def signature_vectors() -> list[dict]:
    """Deliveries signed by the server's streams/webhooks/signing.py and by the `standardwebhooks` package,
    as received and tampered with, each with the server's verdict (signing.verify) to hold the TypeScript
    verifier to."""
    from datetime import datetime, timezone

    from standardwebhooks.webhooks import Webhook

    from streams.webhooks import signing

    secret, t = signing.new_secret(), 1_790_000_000
    bodies = [b'{"id":"e1","type":"MemoryExtracted","data":{"memory":{"content":"Bruno ist mein Hund \xf0\x9f\x90\xb6"}}}',
              b"", bytes(range(128)) + "é€😀".encode()]  # every ASCII byte and 2-, 3-, 4-byte UTF-8 (bodies are JSON)
    vectors = []
    for i, body in enumerate(bodies):
        h = signing.sign(secret, f"evt-{i}", body, timestamp=t)
        changes = {"as sent": (h, body, t), "late": (h, body, t + 301), "early": (h, body, t - 301),
                   "on the edge": (h, body, t + 300),
                   "a byte flipped": (h, body[:-1] + bytes([body[-1] ^ 1]) if body else b"x", t),
                   "other id": ({**h, "webhook-id": f"evt-{i}x"}, body, t),
                   "leading zero": ({**h, "webhook-timestamp": "0" + str(t)}, body, t),
                   "timestamp+1": ({**h, "webhook-timestamp": str(t + 1)}, body, t),
                   "v2": ({**h, "webhook-signature": "v2" + h["webhook-signature"][2:]}, body, t),
                   "two signatures": ({**h, "webhook-signature": "v1,AAAA " + h["webhook-signature"]}, body, t),
                   "other secret": (signing.sign(signing.new_secret(), f"evt-{i}", body, timestamp=t), body, t)}
        for why, (headers, sent, now) in changes.items():
            try:
                valid = signing.verify(secret, headers, sent, now=now) == headers.get("webhook-id")
            except signing.InvalidSignature:
                valid = False
            vectors.append({"by": f"signing.py, body {i}, {why}", "secret": secret, "headers": headers,
                            "body_b64": base64.b64encode(sent).decode(), "now": now, "valid": valid})
        if body and not body.startswith(b"\x00"):  # standardwebhooks signs text
            text = body.decode()
            sig = Webhook(secret).sign(f"sw-{i}", datetime.fromtimestamp(t, timezone.utc), text)
            headers = {"webhook-id": f"sw-{i}", "webhook-timestamp": str(t), "webhook-signature": sig}
            assert signing.verify(secret, headers, body, now=t) == f"sw-{i}"
            vectors.append({"by": f"standardwebhooks, body {i}", "secret": secret, "headers": headers,
                            "body_b64": base64.b64encode(body).decode(), "now": t, "valid": True})
    return vectors


def test_the_committed_schema_is_what_the_server_serves(stack, built):
    """src/schema.ts regenerated from the running stack's /openapi.json is byte for byte the committed one:
    a route that changes without `npm run generate` (and the client following) fails here."""
    fresh = built / "build" / "schema.live.ts"
    sh(NODE, "scripts/generate.mjs", stack.url, "--out", str(fresh), env={"RAPPORT_API_KEY": stack.api_key})  # type: ignore[arg-type]
    committed = (built / "src" / "schema.ts").read_text()
    if fresh.read_text() != committed:
        diff = "".join(difflib.unified_diff(committed.splitlines(True), fresh.read_text().splitlines(True),
                                            "src/schema.ts (committed)", "GET /openapi.json (served)", n=2))
        pytest.fail("the API changed and the TypeScript client did not: run `npm run generate -- URL` in "
                    "clients/typescript, make it compile, commit src/schema.ts\n" + diff[:6000])


def test_the_node_suites_pass_against_the_stack(stack, built, tenant_key, tmp_path):
    vectors = tmp_path / "vectors.json"
    vectors.write_text(json.dumps(signature_vectors()))
    files = sorted(str(p.relative_to(built)) for p in (built / "build" / "test").glob("*.test.js"))
    assert {Path(f).name for f in files} >= {"client.test.js", "webhooks.test.js", "drift.test.js", "e2e.test.js",
                                                  "browser.test.js"}
    done = subprocess.run([NODE, "--test", "--test-reporter=tap", *files], cwd=built, capture_output=True, text=True,  # type: ignore[list-item]
                          timeout=600, env={**os.environ, "RAPPORT_URL": stack.url, "RAPPORT_API_KEY": stack.api_key,
                                            "RAPPORT_TENANT_KEY": tenant_key, "RAPPORT_WEBHOOK_VECTORS": str(vectors)})
    out = done.stdout + done.stderr
    counts = {k: int(v) for k, v in re.findall(r"^# (pass|fail|cancelled|skipped|tests) (\d+)$", out, re.M)}
    skipped = re.findall(r"^\s*ok \d+ - (.*) # SKIP (.*)$", out, re.M)
    print(f"node --test: {counts}; skipped: {skipped}")
    assert done.returncode == 0 and counts.get("fail") == 0 and counts.get("cancelled") == 0, out[-8000:]
    assert counts.get("pass", 0) >= 40, out[-3000:]
    # only the browser test may skip, where no Chromium is installed (.ci/run installs Debian's): never a
    # route's test, nor one for a missing environment variable
    assert all("no chromium" in why for _, why in skipped), skipped


def readme_snippet() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## TypeScript client\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```ts\n(.*?)```", section, re.S)
    assert blocks, "no ```ts block in the README's TypeScript client section"
    return blocks[0]


def test_the_readme_snippet_runs_from_the_packed_package(stack, built, tmp_path):
    """`npm pack` (what a user installs), installed into a fresh project: it brings no dependency, its
    types compile the README's snippet (strict), and the snippet runs against the stack."""
    sh(NPM, "pack", "--pack-destination", str(tmp_path), "--silent")  # type: ignore[arg-type]
    tarball = next(tmp_path.glob("rapport-client-*.tgz"))
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "bot", "private": True, "type": "module"}))
    sh(NPM, "install", "--offline", "--no-audit", "--no-fund", str(tarball), cwd=app)  # type: ignore[arg-type]
    assert sorted(p.name for p in (app / "node_modules").iterdir() if not p.name.startswith(".")) == ["rapport-client"]
    (app / "bot.ts").write_text(readme_snippet())
    (app / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": True,
        "lib": ["ES2022", "DOM"], "types": [], "skipLibCheck": False}, "files": ["bot.ts"]}))
    sh(NODE, str(built / "node_modules" / "typescript" / "bin" / "tsc"), "-p", str(app), cwd=app)  # type: ignore[arg-type]
    out = sh(NODE, "bot.js", cwd=app, env={"RAPPORT_URL": stack.url, "RAPPORT_API_KEY": stack.api_key},  # type: ignore[arg-type]
             timeout=120).stdout
    assert "Bruno" in out, out
    assert "bad fields: occurred_at" in out, out
    assert re.search(r"^user: what should I do about Bruno\?$", out, re.M), out


