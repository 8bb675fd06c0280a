/** The built package (dist/, as published) in a real browser: headless Chromium loads a page that imports
 * dist/index.js as an ES module and runs the client against rapport through this process (the API sends
 * no CORS headers, so the page and /api are one origin: the proxy below), WebCrypto included; the page
 * POSTs what it found to /report. Needs $RAPPORT_URL, $RAPPORT_API_KEY and a Chromium ($CHROMIUM, else
 * `chromium` on PATH). */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const API = process.env.RAPPORT_URL;
const KEY = process.env.RAPPORT_API_KEY;
const CHROMIUM = process.env.CHROMIUM ??
  ["chromium", "chromium-browser", "google-chrome"].find((c) => spawnSync(c, ["--version"]).status === 0);

const PAGE = (key: string, run: string) => `<!doctype html><meta charset="utf-8"><title>rapport-client</title>
<script type="module">
import { AuthError, Rapport, ValidationError, verifyWebhook } from "/dist/index.js";
const found = {};
try {
  const rapport = new Rapport({ baseUrl: location.origin + "/api", apiKey: ${JSON.stringify(key)} });
  found.health = (await rapport.healthz()).status;
  const contact = ${JSON.stringify(`browser-${run}`)};
  const receipt = await rapport.ingest({ contact_id: contact, role: "user", message: "My dog Bruno ate my shoes again" });
  found.eventId = receipt.lastEventId(contact);
  const ctx = await rapport.context(contact, { query: "how is bruno?", after: receipt });
  found.memories = ctx.memories.map((m) => m.content);
  try { await rapport.ingest({ contact_id: contact, role: "user", message: "x", occurred_at: "yesterday" }); }
  catch (e) { found.badFields = e instanceof ValidationError ? e.fields : String(e); }
  try { await new Rapport({ baseUrl: location.origin + "/api", apiKey: "" }).context(contact); }
  catch (e) { found.noKey = e instanceof AuthError ? e.status : String(e); }
  found.signature = await verifyWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    new Headers({ "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp": "1614265330",
                  "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" }),
    '{"test": 2432232314}', { now: 1614265330 });
  found.userAgent = navigator.userAgent;
  await rapport.deleteContact(contact);
} catch (e) {
  found.error = String(e && e.stack || e);
}
await fetch("/report", { method: "POST", body: JSON.stringify(found) });
</script>`;

const TYPES: Record<string, string> = { ".js": "text/javascript", ".map": "application/json", ".ts": "text/plain" };

test("in headless Chromium: ESM import, ingest, context with after, typed errors, WebCrypto verification", async (t) => {
  if (!API || !KEY) return t.skip("RAPPORT_URL / RAPPORT_API_KEY not set (tests/test_ts_client_e2e.py sets them)");
  if (!CHROMIUM) return t.skip("no chromium on PATH (or $CHROMIUM)");
  const run = Date.now().toString(36);
  let report: (found: Record<string, unknown>) => void = () => undefined;
  const reported = new Promise<Record<string, unknown>>((resolve) => { report = resolve; });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    if (url === "/") return void res.writeHead(200, { "content-type": "text/html" }).end(PAGE(KEY, run));
    if (url.startsWith("/dist/")) {
      const file = normalize(join(DIST, url.slice("/dist/".length)));
      if (!file.startsWith(DIST)) return void res.writeHead(404).end();
      try {
        return void res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" })
          .end(readFileSync(file));
      } catch {
        return void res.writeHead(404).end();
      }
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (url === "/report") {
        report(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
        return void res.writeHead(204).end();
      }
      if (!url.startsWith("/api/")) return void res.writeHead(404).end();
      // the same origin for the page: pass the request on to rapport as it came
      const target = new URL(url.slice("/api".length), API);
      const headers = { ...req.headers, host: target.host };
      const up = httpRequest(target, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on("error", () => res.writeHead(502).end());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const profile = mkdtempSync(join(tmpdir(), "rapport-chromium-"));
  const page = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = spawn(CHROMIUM, ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
    `--user-data-dir=${profile}`, "--remote-debugging-pipe", page], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: true }); // its own process group
  let stderr = "";
  browser.stderr?.on("data", (c: Buffer) => { stderr += c.toString(); });
  try {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no report from the page within 90 s\n${stderr.slice(-2000)}`)), 90_000).unref());
    const found = await Promise.race([reported, timeout]);
    assert.equal(found.error, undefined, String(found.error));
    assert.match(String(found.userAgent), /HeadlessChrome|Chrome/);
    assert.equal(found.health, "ok");
    assert.match(String(found.eventId), /^[0-9a-f-]{36}$/); // crypto.randomUUID in the page
    assert.ok((found.memories as string[]).some((m) => m.includes("Bruno")), JSON.stringify(found.memories));
    assert.deepEqual(found.badFields, ["occurred_at"]);
    assert.equal(found.noKey, 401);
    assert.equal(found.signature, "msg_p5jXN8AQM9LWM0D4loKWxJek");
  } finally {
    try {
      process.kill(-browser.pid!, "SIGKILL"); // the browser and the processes it started
    } catch {
      // already gone
    }
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(profile, { recursive: true, force: true });
  }
});
