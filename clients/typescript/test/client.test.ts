/** The client against a local fake API: retries and Retry-After, timeouts, typed errors, `after`. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AuthError, Conflict, ConnectionFailed, Forbidden, NoEvents, NotFound, NotReflected, PayloadTooLarge, PermissionDenied,
  Rapport, RapportError, RateLimited, ServerError, TooManyEvents, Unavailable, ValidationError,
} from "rapport-client";
import { withFake, type Seen } from "./fake.js";

const ACCEPTED = (req: Seen) => {
  const events = JSON.parse(req.body) as { event_id: string }[];
  return { status: 202, body: { accepted: events.length, eventIds: events.map((e) => e.event_id), duplicates: 0 } };
};
const client = (url: string, extra: ConstructorParameters<typeof Rapport>[0] = {}) =>
  new Rapport({ baseUrl: url, apiKey: "rk_test", backoffMs: 10, ...extra });
const event = { contact_id: "arjun", role: "user" as const, message: "My dog Bruno ate my shoes again" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("retries", () => {
  test("429 with Retry-After: 1 waits a second, then the retry's answer is the result", async () => {
    await withFake((req, n) => (n === 1 ? { status: 429, headers: { "retry-after": "1" },
      body: { error: "backlog full", tenantId: "default", backlog: 9, limit: 5 } } : ACCEPTED(req)), async (api) => {
      const receipt = await client(api.url).ingest(event);
      assert.equal(api.seen.length, 2);
      assert.ok(api.seen[1]!.at - api.seen[0]!.at >= 950, `waited ${api.seen[1]!.at - api.seen[0]!.at} ms`);
      assert.equal(receipt.accepted, 1);
      // the retry resends the same event_id (the client set it before the first attempt): nothing twice
      assert.equal(api.seen[0]!.body, api.seen[1]!.body);
      const sent = JSON.parse(api.seen[0]!.body) as { event_id: string }[];
      assert.match(sent[0]!.event_id, UUID);
      assert.equal(receipt.lastEventId("arjun"), sent[0]!.event_id);
    });
  });

  test("503 with Retry-After as an HTTP date waits until that time", async () => {
    const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000); // a whole second, 1.5-2.5 s ahead
    await withFake((req, n) => (n === 1 ? { status: 503, headers: { "retry-after": at.toUTCString() },
      body: { error: "unavailable", reason: "restarting" } } : ACCEPTED(req)), async (api) => {
      await client(api.url).ingest(event);
      assert.equal(api.seen.length, 2);
      assert.ok(api.seen[1]!.at >= at.getTime() - 50, `retried ${at.getTime() - api.seen[1]!.at} ms early`);
    });
  });

  test("Retry-After is bounded by maxWaitMs", async () => {
    await withFake((req, n) => (n === 1 ? { status: 429, headers: { "retry-after": "3600" }, body: { error: "x" } }
      : ACCEPTED(req)), async (api) => {
      const t0 = Date.now();
      await client(api.url, { maxWaitMs: 200 }).ingest(event);
      assert.ok(Date.now() - t0 < 2000);
      assert.ok(api.seen[1]!.at - api.seen[0]!.at >= 190);
    });
  });

  test("attempts are bounded: 1 + retries, then the typed error", async () => {
    await withFake(() => ({ status: 503, body: { error: "service unavailable", reason: "the database did not answer" } }),
      async (api) => {
        const err = await client(api.url, { retries: 2 }).triggers("arjun").catch((e: unknown) => e);
        assert.ok(err instanceof Unavailable);
        assert.equal(err.status, 503);
        assert.deepEqual(err.body, { error: "service unavailable", reason: "the database did not answer" });
        assert.equal(api.seen.length, 3);
      });
  });

  test("backoff without Retry-After doubles from backoffMs with full jitter, at most maxWaitMs", () => {
    const r = new Rapport({ baseUrl: "http://x", backoffMs: 100, maxWaitMs: 350 });
    for (let i = 0; i < 50; i++) {
      assert.ok(r.backoff(0) <= 100 && r.backoff(1) <= 200 && r.backoff(2) <= 350 && r.backoff(9) <= 350);
      assert.ok(r.backoff(0) >= 0);
    }
    assert.equal(r.backoff(0, "2"), 350); // Retry-After 2 s, capped
    assert.equal(new Rapport({ baseUrl: "http://x" }).backoff(5, "2"), 2000);
  });

  test("a 502 is retried; a 400, 404, 500 or 504 is not", async () => {
    await withFake((_, n) => (n === 1 ? { status: 502, body: "<html>bad gateway</html>" }
      : { status: 200, body: { contactId: "a", tenantId: "default", triggers: [] } }), async (api) => {
      assert.deepEqual((await client(api.url).triggers("a")).triggers, []);
      assert.equal(api.seen.length, 2);
    });
    for (const status of [400, 404, 500, 504]) {
      await withFake(() => ({ status, body: { error: "no" } }), async (api) => {
        await assert.rejects(client(api.url).triggers("a"), RapportError);
        assert.equal(api.seen.length, 1, `status ${status}`);
      });
    }
  });

  test("createWebhook, retryDelivery and correctMemory are sent once (a retried POST could act twice)", async () => {
    await withFake(() => ({ status: 503, body: { error: "unavailable", reason: "x" } }), async (api) => {
      const r = client(api.url);
      await assert.rejects(r.createWebhook("https://ops.example.com/hook", ["*"]), Unavailable);
      await assert.rejects(r.retryDelivery("wh_1", 7), Unavailable);
      await assert.rejects(r.correctMemory("arjun", "m1", "Lives in Munich"), Unavailable);
      assert.deepEqual(api.seen.map((s) => `${s.method} ${s.url}`), [
        "POST /webhooks", "POST /webhooks/wh_1/deliveries/7/retry", "PATCH /contacts/arjun/memories/m1"]);
      assert.deepEqual(JSON.parse(api.seen[2]!.body), { content: "Lives in Munich" });
    });
  });

  test("healthz is asked once and returns the 503 health instead of throwing", async () => {
    const starting = { status: "starting", degraded: false, reasons: ["workers"], broker: true, database: true,
                       cache: true, workers: 0, ok: false };
    await withFake(() => ({ status: 503, body: starting }), async (api) => {
      assert.deepEqual(await client(api.url).healthz(), starting);
      assert.equal(api.seen.length, 1);
    });
  });
});

describe("timeouts and cancelling", () => {
  test("no answer within timeoutMs: each attempt aborted, then ConnectionFailed", async () => {
    await withFake(() => ({ status: 200, body: {}, delayMs: 1000 }), async (api) => {
      const t0 = Date.now();
      const err = await client(api.url, { timeoutMs: 100, retries: 1 }).webhooks().catch((e: unknown) => e);
      assert.ok(err instanceof ConnectionFailed, String(err));
      assert.match(err.message, /no answer within 100 ms/);
      assert.equal(api.seen.length, 2);
      assert.ok(Date.now() - t0 < 900, `took ${Date.now() - t0} ms`);
    });
  });

  test("nothing listening: ConnectionFailed after the retries", async () => {
    const api = await withFake(() => ({ status: 200 }), async (a) => a); // started and stopped: a closed port
    const err = await client(api.url, { retries: 2 }).webhooks().catch((e: unknown) => e);
    assert.ok(err instanceof ConnectionFailed);
    assert.equal(err.status, undefined);
  });

  test("an AbortSignal cancels the call, its retries and waits included", async () => {
    await withFake(() => ({ status: 429, headers: { "retry-after": "30" }, body: { error: "x" } }), async (api) => {
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(new Error("user cancelled")), 150);
      const t0 = Date.now();
      await assert.rejects(client(api.url, { maxWaitMs: 60_000 }).webhooks({ signal: ctl.signal }), /user cancelled/);
      assert.ok(Date.now() - t0 < 2000);
      assert.equal(api.seen.length, 1);
    });
  });
});

describe("typed errors", () => {
  const cases: [number, Record<string, unknown>, new (...a: never[]) => RapportError][] = [
    [400, { error: "bad parameter", errors: [{ field: "contact_id", problem: "no / allowed" }] }, ValidationError],
    [401, { error: "missing or invalid API key" }, AuthError],
    [403, { error: "this key may not act for tenant acme" }, PermissionDenied],
    [404, { error: "no such webhook", webhook_id: "wh_x" }, NotFound],
    [409, { error: "not dead" }, Conflict],
    [413, { error: "too many events", errors: [{ field: "body", problem: "at most 1000 events" }] }, PayloadTooLarge],
    [422, { error: "invalid events", errors: [{ index: 1, field: "role", problem: "user or assistant" },
                                              { index: 2, field: "occurred_at", problem: "RFC 3339" }] }, ValidationError],
    [429, { error: "backlog full", tenantId: "default", backlog: 10, limit: 5 }, RateLimited],
    [500, { error: "internal error" }, ServerError],
    [503, { error: "service unavailable", reason: "x" }, Unavailable],
    [504, { error: "not reflected", event_id: "msg-1" }, NotReflected],
  ];
  for (const [status, body, kind] of cases) {
    test(`${status} -> ${kind.name}`, async () => {
      await withFake(() => ({ status, body, headers: status === 429 ? { "retry-after": "5" } : undefined }), async (api) => {
        const err = await client(api.url, { retries: 0 }).webhooks().catch((e: unknown) => e);
        assert.ok(err instanceof kind, `${String(err)} is not ${kind.name}`);
        assert.ok(err instanceof RapportError && err instanceof Error);
        assert.equal(err.name, kind.name);
        assert.equal(err.status, status);
        assert.deepEqual(err.body, body);
        assert.ok(err.message.startsWith(`${status} ${String(body.error)}`), err.message);
      });
    });
  }

  test("ValidationError names each bad field (and the event's index) from the server's errors", async () => {
    await withFake(() => ({ status: 422, body: cases[6]![1] }), async (api) => {
      const err = (await client(api.url).ingest([event, event, event]).catch((e: unknown) => e)) as ValidationError;
      assert.deepEqual(err.fields, ["role", "occurred_at"]);
      assert.deepEqual(err.errors.map((e) => e.index), [1, 2]);
      assert.match(err.message, /role: user or assistant; occurred_at: RFC 3339/);
    });
  });

  test("RateLimited carries Retry-After; NotReflected its event id; Forbidden is PermissionDenied", async () => {
    await withFake(() => ({ status: 429, headers: { "retry-after": "5" }, body: { error: "backlog" } }), async (api) => {
      const err = (await client(api.url, { retries: 0 }).ingest(event).catch((e: unknown) => e)) as RateLimited;
      assert.equal(err.retryAfter, 5);
    });
    assert.equal(Forbidden, PermissionDenied);
    const nr = new NotReflected("x", { status: 504, body: { error: "not reflected", event_id: "e-9" } });
    assert.equal(nr.eventId, "e-9");
  });

  test("a 504 without the API's event_id is a gateway's timeout: ServerError, not NotReflected", async () => {
    await withFake(() => ({ status: 504, body: "<html>gateway timeout</html>" }), async (api) => {
      const err = await client(api.url).context("a", { after: "e1", afterTimeoutMs: 0 }).catch((e: unknown) => e);
      assert.ok(err instanceof ServerError && !(err instanceof NotReflected), String(err));
      assert.equal(err.body, "<html>gateway timeout</html>");
    });
  });

  test("a 200 that is not JSON (a proxy's page, a wrong base URL) is a ServerError carrying the text", async () => {
    await withFake(() => ({ status: 200, body: "<html>welcome to nginx</html>" }), async (api) => {
      const err = await client(api.url).webhooks().catch((e: unknown) => e);
      assert.ok(err instanceof ServerError, String(err));
      assert.equal(err.body, "<html>welcome to nginx</html>");
    });
  });

  test("an unlisted 4xx is a plain RapportError", async () => {
    await withFake(() => ({ status: 418, body: { error: "teapot" } }), async (api) => {
      const err = await client(api.url).webhooks().catch((e: unknown) => e);
      assert.ok(err instanceof RapportError && err.constructor === RapportError);
    });
  });

  test("no events, or more than 1000, are refused before anything is sent", async () => {
    await withFake(ACCEPTED, async (api) => {
      const r = client(api.url);
      const none = await r.ingest([]).catch((e: unknown) => e);
      assert.ok(none instanceof NoEvents && none instanceof ValidationError);
      assert.deepEqual(none.fields, ["body"]);
      const many = await r.ingest(Array.from({ length: 1001 }, () => event)).catch((e: unknown) => e);
      assert.ok(many instanceof TooManyEvents && many instanceof PayloadTooLarge && many instanceof ValidationError);
      assert.deepEqual((many as TooManyEvents).errors, [{ field: "body", problem: "1001 events" }]);
      await assert.rejects(r.ingestMany([]), NoEvents);
      assert.equal(api.seen.length, 0);
      // 1000 is the limit, not over it
      assert.equal((await r.ingest(Array.from({ length: 1000 }, () => event))).accepted, 1000);
      assert.equal(api.seen.length, 1);
    });
  });
});

describe("requests", () => {
  test("after: 504 (not reflected yet) is asked again until the answer; NotReflected after afterTimeoutMs", async () => {
    const ctx = { contact: { contactId: "arjun" }, memories: [], context_text: "x" };
    await withFake((_, n) => (n < 3 ? { status: 504, body: { error: "not reflected", event_id: "e-2" } }
      : { status: 200, body: ctx }), async (api) => {
      const r = client(api.url);
      assert.deepEqual(await r.context("arjun", { after: "e-2", query: "how is bruno?" }), ctx);
      assert.equal(api.seen.length, 3);
      for (const s of api.seen) assert.equal(s.url, "/context/arjun?query=how+is+bruno%3F&after=e-2");
    });
    await withFake(() => ({ status: 504, body: { error: "not reflected", event_id: "e-2" } }), async (api) => {
      const t0 = Date.now();
      const err = await client(api.url).context("arjun", { after: "e-2", afterTimeoutMs: 300 }).catch((e: unknown) => e);
      assert.ok(err instanceof NotReflected);
      assert.equal(err.eventId, "e-2");
      assert.ok(Date.now() - t0 >= 300 && api.seen.length >= 2);
    });
  });

  test("a Receipt as after: that contact's last event in it", async () => {
    await withFake((req) => (req.url === "/ingest" ? ACCEPTED(req) : { status: 200, body: {} }), async (api) => {
      const r = client(api.url);
      const receipt = await r.ingest([
        { ...event, event_id: "m-1" }, { ...event, contact_id: "priya", event_id: "m-2" }, { ...event, event_id: "m-3" }]);
      assert.deepEqual(receipt.contacts, ["arjun", "priya"]);
      await r.context("arjun", { after: receipt });
      await r.payload("priya", "hello", { after: receipt, systemPrompt: "Be kind." });
      assert.equal(api.seen[1]!.url, "/context/arjun?after=m-3");
      assert.deepEqual(JSON.parse(api.seen[2]!.body),
        { contact_id: "priya", message: "hello", system_prompt: "Be kind.", after: "m-2" });
      assert.throws(() => receipt.lastEventId("nobody"), RangeError);
    });
  });

  test("ids are one path segment each; dates RFC 3339; the key and tenant on every call", async () => {
    await withFake(() => ({ status: 200, body: {} }), async (api) => {
      const r = client(api.url, { tenantId: "acme" });
      await r.context("a/b c", { asOf: new Date("2026-04-03T16:45:00Z"), budget: 0, personaId: "coach" });
      await r.webhookDeliveries("wh 1", { status: "dead", limit: 50 });
      assert.equal(api.seen[0]!.url,
        "/context/a%2Fb%20c?tenant_id=acme&persona_id=coach&budget=0&as_of=2026-04-03T16%3A45%3A00.000Z");
      assert.equal(api.seen[1]!.url, "/webhooks/wh%201/deliveries?tenant_id=acme&status=dead&limit=50");
      assert.equal(api.seen[0]!.headers.authorization, "Bearer rk_test");
      await new Rapport({ baseUrl: api.url, apiKey: "" }).webhooks();
      assert.equal(api.seen[2]!.headers.authorization, undefined);
    });
  });

  test("ingestMany: in order, in batches, one merged receipt; a failed batch carries what came before", async () => {
    const events = Array.from({ length: 1200 }, (_, i) => ({ ...event, event_id: `h-${i}` }));
    await withFake(ACCEPTED, async (api) => {
      const receipt = await client(api.url).ingestMany(events, { batchSize: 500 });
      assert.deepEqual(api.seen.map((s) => (JSON.parse(s.body) as unknown[]).length), [500, 500, 200]);
      assert.equal(receipt.accepted, 1200);
      assert.deepEqual(receipt.eventIds, events.map((e) => e.event_id));
      assert.equal(receipt.lastEventId("arjun"), "h-1199");
    });
    await withFake((req, n) => (n === 2 ? { status: 422, body: { error: "invalid", errors: [{ field: "message", problem: "x" }] } }
      : ACCEPTED(req)), async (api) => {
      const err = (await client(api.url).ingestMany(events, { batchSize: 500 }).catch((e: unknown) => e)) as ValidationError;
      assert.ok(err instanceof ValidationError);
      assert.equal((err.receipt as { accepted: number }).accepted, 500);
      assert.equal(api.seen.length, 2);
    });
  });
});
