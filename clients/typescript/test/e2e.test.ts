/** The client against a running `rapport up` ($RAPPORT_URL, $RAPPORT_API_KEY; the stack started with
 * RAPPORT_WEBHOOK_ALLOW_PRIVATE=1 so that a webhook may point at this process). tests/test_ts_client_e2e.py
 * starts the stack and runs these. */
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { before, describe, test } from "node:test";
import {
  AuthError, Conflict, NotFound, NotReflected, OPERATIONS, PermissionDenied, Rapport, ValidationError, verifyWebhook,
  type EventInput,
} from "rapport-client";

const URL_ = process.env.RAPPORT_URL;
const KEY = process.env.RAPPORT_API_KEY;
const run = `ts-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

describe("against rapport up", { skip: !URL_ || !KEY ? "RAPPORT_URL / RAPPORT_API_KEY not set (tests/test_ts_client_e2e.py sets them)" : false }, () => {
  const rapport = new Rapport({ baseUrl: URL_, apiKey: KEY });
  let served = new Set<string>();

  before(async () => {
    const doc = (await rapport.openapi()) as { paths: Record<string, Record<string, unknown>> };
    served = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
  });

  test("every operation the server serves has a client method, and every method exists", () => {
    const table = OPERATIONS as Record<string, string>;
    const missing = [...served].filter((op) => !(op in table));
    assert.deepEqual(missing, [], "served operations without a method: run `npm run generate` and add them");
    for (const [op, method] of Object.entries(table)) {
      assert.equal(typeof (rapport as unknown as Record<string, unknown>)[method], "function", op);
    }
    assert.ok(served.size >= 15, `only ${served.size} operations served`);
  });

  test("healthz", async () => {
    const h = await rapport.healthz();
    assert.equal(h.status, "ok");
    assert.ok(h.database && h.broker && h.cache && h.workers >= 1);
  });

  test("ingest, then context with after= (read your own write), payload, memories, triggers, export", async () => {
    const contact = `arjun-${run}`;
    const lines: [EventInput["role"], string][] = [
      ["user", "Hi! I'm Arjun, a software engineer at Infosys."], ["assistant", "Nice to meet you, Arjun!"],
      ["user", "I have a golden retriever named Bruno, he's three."],
      ["user", "My dog Bruno ate my shoes again this morning"],
      ["user", "I can't take this anymore. I want to die."]];
    const events: EventInput[] = lines.map(([role, message], i) => ({
      contact_id: contact, role, message, event_id: `${run}-${i}`, display_name: "Arjun", channel: "whatsapp",
      occurred_at: `2026-04-03T21:1${i}:00+05:30` }));
    const receipt = await rapport.ingest(events);
    assert.deepEqual([receipt.accepted, receipt.duplicates], [5, 0]);
    assert.deepEqual(receipt.eventIds, events.map((e) => e.event_id));
    assert.equal((await rapport.ingest(events)).duplicates, 5); // the same event ids: nothing twice

    const ctx = await rapport.context(contact, { query: "how is my dog?", after: receipt, budget: 1200 });
    assert.ok(ctx.memories.some((m) => m.content.includes("Bruno")), JSON.stringify(ctx.memories));
    assert.ok(ctx.entities.some((e) => e.ref === "pet:bruno"));
    assert.equal(ctx.contact.displayName, "Arjun");
    assert.ok(ctx.history.at(-1)!.content.startsWith("I can't take this"));
    assert.ok(ctx.context_text.length > 0 && ctx.memory_budget === 1200);

    const listed = await rapport.memories(contact);
    const ids = new Set(listed.memories.map((m) => m.id));
    assert.ok(ctx.memories.every((m) => ids.has(m.id)));
    assert.ok((await rapport.memories(contact, { status: "active" })).memories.every((m) => m.status === "active"));

    const crisis = (await rapport.triggers(contact)).triggers.filter((t) => t.kind === "crisis");
    assert.equal(crisis.length, 1);
    assert.deepEqual(crisis[0]!.sourceEventIds, [`${run}-4`]);

    const payload = await rapport.payload(contact, "what did Bruno do?", { systemPrompt: "Be kind.", after: receipt });
    assert.equal(payload.messages[0]!.role, "system");
    assert.ok(payload.messages[0]!.content.includes("Be kind.") && payload.messages[0]!.content.includes("Bruno"));
    assert.equal(payload.messages.at(-1)!.content, "what did Bruno do?");

    const late = await rapport.payload(contact, "hello?", { after: `${run}-never-sent`, afterTimeoutMs: 0 })
      .catch((e: unknown) => e);
    assert.ok(late instanceof NotReflected && late.status === 504 && late.eventId === `${run}-never-sent`);

    const exported = await rapport.export(contact);
    assert.deepEqual(exported.messages.filter((m) => m.eventType === "InteractionRecorded").map((m) => m.eventId),
      receipt.eventIds);
    assert.match(await rapport.metrics(), /rapport_/);

    const erased = await rapport.deleteContact(contact);
    assert.ok(erased.accepted && erased.erasureEventId);
    const deadline = Date.now() + 60_000;
    while ((await rapport.memories(contact)).memories.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual((await rapport.memories(contact)).memories, []);
    assert.deepEqual((await rapport.triggers(contact)).triggers, []);
  });

  test("bad input: the server names each field (and the event's index); nothing of the batch is recorded", async () => {
    const contact = `bad-${run}`;
    const err = await rapport.ingest([
      { contact_id: contact, role: "user", message: "ok" },
      { contact_id: contact, role: "bot" as "user", message: "no" },
      { contact_id: contact, role: "user", message: "late", occurred_at: "2026-04-03 22:15" }]).catch((e: unknown) => e);
    assert.ok(err instanceof ValidationError, String(err));
    assert.equal(err.status, 422);
    assert.deepEqual(err.errors.map((e) => [e.index, e.field]), [[1, "role"], [2, "occurred_at"]]);
    assert.deepEqual((await rapport.export(contact)).messages, []);
    const path = await rapport.context("a/b").catch((e: unknown) => e);
    assert.ok(path instanceof ValidationError && path.status === 400);
    assert.deepEqual(path.fields, ["contact_id"]);
    const budget = await rapport.context("arjun", { budget: -1 }).catch((e: unknown) => e);
    assert.ok(budget instanceof ValidationError);
    assert.deepEqual(budget.fields, ["budget"]);
  });

  test("401 without a key or with an unknown one", async () => {
    for (const apiKey of ["", "rk_nope_nope"]) {
      const err = await new Rapport({ baseUrl: URL_, apiKey }).context("arjun").catch((e: unknown) => e);
      assert.ok(err instanceof AuthError && err.status === 401, `${apiKey || "no key"}: ${String(err)}`);
    }
  });

  test("403: a tenant's key naming another tenant", async (t) => {
    // the data dir's key is an admin key (it may name any tenant): this needs a tenant's own key
    const tenantKey = process.env.RAPPORT_TENANT_KEY;
    if (!tenantKey) return t.skip("RAPPORT_TENANT_KEY not set (a non-admin key; tests/test_ts_client_e2e.py makes one)");
    const own = new Rapport({ baseUrl: URL_, apiKey: tenantKey });
    assert.deepEqual((await own.memories(`nobody-${run}`)).memories, []);
    const other = await new Rapport({ baseUrl: URL_, apiKey: tenantKey, tenantId: "default" }).memories("arjun")
      .catch((e: unknown) => e);
    assert.ok(other instanceof PermissionDenied && other.status === 403, String(other));
  });

  test("webhooks: subscribe this process, receive a delivery signed by the server, verify it; list, get, deliveries, retry, delete", async () => {
    const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await rapport.createWebhook(url, ["MemoryExtracted"], { description: `ts ${run}` });
      assert.match(hook.secret, /^whsec_/);
      assert.equal(hook.tenantId, "default");
      assert.ok((await rapport.webhooks()).webhooks.some((w) => w.id === hook.id));
      assert.equal((await rapport.webhook(hook.id)).description, `ts ${run}`);

      const contact = `hook-${run}`;
      const receipt = await rapport.ingest({ contact_id: contact, role: "user", message: "I have a cat named Miso." });
      await rapport.waitFor(receipt);
      const deadline = Date.now() + 90_000;
      while (!received.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      assert.ok(received.length > 0, "no delivery within 90 s");
      const got = received[0]!;
      const eventId = await verifyWebhook(hook.secret, got.headers, got.body);
      assert.equal(eventId, got.headers["webhook-id"]);
      const delivery = JSON.parse(got.body.toString("utf8")) as { type: string; contactId: string; id: string };
      assert.deepEqual([delivery.type, delivery.contactId, delivery.id], ["MemoryExtracted", contact, eventId]);
      await assert.rejects(verifyWebhook(hook.secret, got.headers, Buffer.concat([got.body, Buffer.from(" ")])), /no matching/);

      let deliveries = (await rapport.webhookDeliveries(hook.id, { status: "delivered" })).deliveries;
      for (let i = 0; !deliveries.length && i < 20; i++) {
        await new Promise((r) => setTimeout(r, 250));
        deliveries = (await rapport.webhookDeliveries(hook.id, { status: "delivered" })).deliveries;
      }
      assert.ok(deliveries.length >= 1);
      const retried = await rapport.retryDelivery(hook.id, deliveries[0]!.deliveryId).catch((e: unknown) => e);
      assert.ok(retried instanceof Conflict, String(retried)); // only a dead delivery can be retried
      assert.ok((await rapport.deleteWebhook(hook.id)).deleted);
      await assert.rejects(rapport.webhook(hook.id), NotFound);
      await rapport.deleteContact(contact);
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });

  // ------------------------------------------------------------ the contact list, pages, curation, timeline
  test("GET /contacts: pages with a cursor, newest activity first", async () => {
    const prefix = `list-${run}`;
    for (const name of ["a", "b", "c"]) {
      await rapport.waitFor(await rapport.ingest({ contact_id: `${prefix}-${name}`, role: "user", message: `hello from ${name}` }));
    }
    const first = await rapport.contacts({ q: prefix, limit: 2 });
    assert.equal(first.contacts.length, 2);
    assert.equal(typeof first.nextCursor, "string");
    assert.equal(first.contacts[0]!.contactId, `${prefix}-c`); // the newest activity first
    const all: string[] = [];
    for await (const c of rapport.iterContacts({ q: prefix, pageSize: 2 })) all.push(c.contactId);
    assert.deepEqual(all, [`${prefix}-c`, `${prefix}-b`, `${prefix}-a`]);
    for (const name of ["a", "b", "c"]) await rapport.deleteContact(`${prefix}-${name}`);
  });

  test("GET /contacts/{id}/memories with limit and cursor", async () => {
    const contact = `pages-${run}`;
    await rapport.waitFor(await rapport.ingest([
      { contact_id: contact, role: "user", message: "I have a golden retriever named Bruno." },
      { contact_id: contact, role: "user", message: "I work at Infosys as a software engineer." }]));
    const every = (await rapport.memories(contact)).memories.map((m) => m.id);
    assert.ok(every.length >= 2);
    const page = await rapport.memories(contact, { limit: 1 });
    assert.equal(page.memories.length, 1);
    assert.equal(typeof page.nextCursor, "string");
    const paged: string[] = [];
    for await (const m of rapport.iterMemories(contact, { pageSize: 1 })) paged.push(m.id);
    assert.deepEqual(new Set(paged), new Set(every));
    assert.equal(paged.length, every.length);
    await rapport.deleteContact(contact);
  });

  test("a memory with its history; correct one, forget another; /context reflects both", async () => {
    const contact = `curate-${run}`;
    const receipt = await rapport.ingest([
      { contact_id: contact, role: "user", message: "I have a golden retriever named Bruno." },
      { contact_id: contact, role: "user", message: "I work at Infosys as a software engineer." }]);
    const query = "tell me about my dog and my job";
    const before = await rapport.context(contact, { query, after: receipt, budget: 2000 });
    const bruno = before.memories.find((m) => m.content.includes("Bruno"));
    const infosys = before.memories.find((m) => m.content.includes("Infosys") && m.id !== bruno?.id);
    assert.ok(bruno && infosys, JSON.stringify(before.memories.map((m) => m.content)));

    const corrected = await rapport.correctMemory(contact, bruno.id, "Has a golden retriever named Max");
    assert.equal(corrected.memoryId, bruno.id);
    assert.equal(typeof corrected.eventId, "string");
    const shown = await rapport.memory(contact, bruno.id, { after: corrected });
    assert.equal(shown.content, "Has a golden retriever named Max");
    assert.ok(shown.history.length >= 2, JSON.stringify(shown.history));
    assert.ok(shown.history.some((h) => h.content === bruno.content), "the old text stays in the history");

    const forgotten = await rapport.forgetMemory(contact, infosys.id);
    assert.equal(forgotten.memoryId, infosys.id);
    const ctx = await rapport.context(contact, { query, after: forgotten, budget: 2000 });
    const byId = new Map(ctx.memories.map((m) => [m.id, m.content]));
    assert.equal(byId.get(bruno.id), "Has a golden retriever named Max", JSON.stringify([...byId]));
    assert.ok(!byId.has(infosys.id), JSON.stringify([...byId]));
    assert.ok(![...byId.values()].includes(bruno.content));
    await assert.rejects(rapport.memory(contact, infosys.id), NotFound);
    await assert.rejects(rapport.memory(contact, "no-such-memory"), NotFound);
    await rapport.deleteContact(contact);
  });

  test("GET /contacts/{id}/timeline", async () => {
    const contact = `mood-${run}`;
    await rapport.waitFor(await rapport.ingest({ contact_id: contact, role: "user", message: "I got the job!! So happy today" }));
    const timeline = await rapport.timeline(contact);
    assert.equal(timeline.contactId, contact);
    assert.ok(timeline.moods.length >= 1 && typeof timeline.moods[0]!.mood === "string");
    await rapport.deleteContact(contact);
  });
});
