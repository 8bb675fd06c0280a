/** verifyWebhook: the Standard Webhooks test vector, edge cases, and the server's own signatures and
 * verdicts (vectors written by tests/test_ts_client_e2e.py with streams/webhooks/signing.py and the
 * Python `standardwebhooks` package; $RAPPORT_WEBHOOK_VECTORS names the file). */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { InvalidSignature, verifyWebhook } from "rapport-client";

// the test vector of the Standard Webhooks reference libraries (standard-webhooks, its python/ and javascript/ tests)
const SPEC = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const headers = (sig = SPEC.signature, id = SPEC.id, ts = String(SPEC.timestamp)) =>
  ({ "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": sig });
const at = { now: SPEC.timestamp + 10 };

test("the Standard Webhooks test vector verifies, from a string, bytes, Headers and Node's header object", async () => {
  assert.equal(await verifyWebhook(SPEC.secret, headers(), SPEC.body, at), SPEC.id);
  const bytes = new TextEncoder().encode(SPEC.body);
  assert.equal(await verifyWebhook(SPEC.secret, new Headers(headers()), bytes, at), SPEC.id);
  assert.equal(await verifyWebhook(SPEC.secret, headers(), bytes.buffer, at), SPEC.id);
  assert.equal(await verifyWebhook(SPEC.secret, headers(), Buffer.from(SPEC.body), at), SPEC.id);
  const upper = { "Webhook-Id": SPEC.id, "Webhook-Timestamp": String(SPEC.timestamp), "Webhook-Signature": SPEC.signature };
  assert.equal(await verifyWebhook(SPEC.secret, upper, SPEC.body, at), SPEC.id);
  // several signatures (a secret being rotated): any that matches
  assert.equal(await verifyWebhook(SPEC.secret, headers(`v1,${"A".repeat(43)}= ${SPEC.signature}`), SPEC.body, at), SPEC.id);
});

test("anything else is InvalidSignature", async () => {
  const bad: [string, Record<string, string>, string, { now: number }][] = [
    ["a changed body", headers(), '{"test": 2432232315}', at],
    ["re-serialised JSON", headers(), JSON.stringify(JSON.parse(SPEC.body)), at],
    ["another secret", headers(), SPEC.body, at],
    ["another id", headers(SPEC.signature, "msg_other"), SPEC.body, at],
    ["a timestamp 5 minutes and 1 second off", headers(), SPEC.body, { now: SPEC.timestamp + 301 }],
    ["a timestamp ahead", headers(), SPEC.body, { now: SPEC.timestamp - 301 }],
    ["not unix seconds", headers(SPEC.signature, SPEC.id, "1614265330.0"), SPEC.body, at],
    ["another scheme", headers(SPEC.signature.replace("v1,", "v1a,")), SPEC.body, at],
    ["no padding", headers(SPEC.signature.slice(0, -1)), SPEC.body, at],
    ["a trailing part", headers(`${SPEC.signature},x`), SPEC.body, at],
    ["no signature", { "webhook-id": SPEC.id, "webhook-timestamp": String(SPEC.timestamp) }, SPEC.body, at],
  ];
  for (const [why, h, body, opts] of bad) {
    const secret = why === "another secret" ? "whsec_" + Buffer.from("another key").toString("base64") : SPEC.secret;
    await assert.rejects(verifyWebhook(secret, h, body, opts), InvalidSignature, why);
  }
  await assert.rejects(verifyWebhook("whsec_not*base64", headers(), SPEC.body, at), /not base64/);
  // the tolerance is inclusive at 300 s, as the server's
  assert.equal(await verifyWebhook(SPEC.secret, headers(), SPEC.body, { now: SPEC.timestamp + 300 }), SPEC.id);
});

test("a signature made here with node:crypto over non-ASCII bytes, with the clock as it is", async () => {
  const key = Buffer.from("a 32-byte key for this one test!");
  const secret = "whsec_" + key.toString("base64");
  const body = '{"memory":{"content":"Bruno ist mein Hund 🐶"}}';
  const ts = Math.floor(Date.now() / 1000);
  const mac = createHmac("sha256", key).update(`evt-1.${ts}.${body}`).digest("base64");
  assert.equal(await verifyWebhook(secret, headers(`v1,${mac}`, "evt-1", String(ts)), body), "evt-1");
});

interface Vector {
  by: string;
  secret: string;
  headers: Record<string, string>;
  body_b64: string;
  now: number;
  valid: boolean;
}

test("the server's signatures and verdicts (streams/webhooks/signing.py, standardwebhooks)", async (t) => {
  const file = process.env.RAPPORT_WEBHOOK_VECTORS;
  if (!file) return t.skip("RAPPORT_WEBHOOK_VECTORS not set (tests/test_ts_client_e2e.py writes them)");
  const vectors = JSON.parse(readFileSync(file, "utf8")) as Vector[];
  assert.ok(vectors.length >= 8 && vectors.some((v) => v.valid) && vectors.some((v) => !v.valid));
  for (const v of vectors) {
    const body = Buffer.from(v.body_b64, "base64");
    const verdict = await verifyWebhook(v.secret, v.headers, body, { now: v.now }).then(() => true, (e: unknown) => {
      assert.ok(e instanceof InvalidSignature, String(e));
      return false;
    });
    assert.equal(verdict, v.valid, `${v.by}: the server says ${v.valid ? "valid" : "invalid"}`);
  }
});
