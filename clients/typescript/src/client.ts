/**
 * Rapport: one method per route of rapport's HTTP API, typed from the served OpenAPI document (src/api.ts),
 * with retries honouring Retry-After, per-attempt timeouts, typed errors and read-your-writes (`after`).
 * fetch-based with no dependencies: Node 18+, browsers, Deno, Bun, workers.
 */
import type {
  Answer, Body, Context, ContextQuery, DeliveryList, DeliveryStatus, Erasure, Event, Export, Health,
  IngestAccepted, MemoriesQuery, MemoryDetail, MemoryList, MemoryStatus, Method, MethodOf, Path, PathParams,
  Payload, PayloadRequest, Query, Redelivery, TenantList, TriggerList,
  ContactList, ContactSummary, ContactsQuery, MemoryCorrected, MemoryCorrection, MemoryForgotten, MemoryPage,
  MemoryPageQuery, MemoryQuery, MemoryWithHistory, Timeline, Webhook, WebhookCreated, WebhookDeleted, WebhookList,
} from "./api.js";
import { uuid4 } from "./crypto.js";
import { ConnectionFailed, NoEvents, RapportError, ServerError, TooManyEvents, errorFor, retryAfterSeconds } from "./errors.js";

export const VERSION = "0.1.0";
export const DEFAULT_URL = "http://127.0.0.1:8080";
/** Events per POST /ingest (CONTRACT.md). */
export const MAX_BATCH = 1000;
/** Bytes of JSON per POST /ingest batch in ingestMany (under the API's 20,480,000). */
export const MAX_INGEST_BYTES = 20_000_000;
/** Statuses retried: the backlog is full (429), a proxy's hiccup (502), the API restarting (503). */
export const RETRY_STATUSES: readonly number[] = [429, 502, 503];

export interface RapportOptions {
  /** default: $RAPPORT_URL (where there is an environment), else http://127.0.0.1:8080 */
  baseUrl?: string;
  /** default: $RAPPORT_API_KEY (where there is an environment); "" sends none */
  apiKey?: string;
  /** the tenant every call names (an admin key's choice; by default the key's own) */
  tenantId?: string;
  /** per attempt, milliseconds (default 30000) */
  timeoutMs?: number;
  /** extra attempts on 429/502/503, connection errors and timeouts (default 4; 0: none) */
  retries?: number;
  /** the first backoff without Retry-After, ms; doubles each retry, full jitter (default 500) */
  backoffMs?: number;
  /** at most this long one wait between attempts, ms, Retry-After included (default 30000) */
  maxWaitMs?: number;
  /** how long `after` waits in all, ms (the API waits up to 5 s per ask; default 30000) */
  afterTimeoutMs?: number;
  /** a fetch to send with (tests, proxies, instrumentation); default the global one */
  fetch?: typeof fetch;
  /** extra headers on every request */
  headers?: Record<string, string>;
}

/** An event for ingest: the API's event fields (snake_case, as /ingest takes them); `occurred_at` may be a Date. */
export type EventInput = Omit<Event, "occurred_at"> & { occurred_at?: string | Date | null };
/** What `after` takes: an event id, an ingest Receipt (that contact's last event in it), or a
 * correction's or forget's answer (its eventId). */
export type After = string | Receipt | { eventId: string };

export interface CallOptions {
  /** cancels the call (and its retries) */
  signal?: AbortSignal;
  /** this call's tenant (an admin key's choice) */
  tenantId?: string;
}
export interface AfterOptions extends CallOptions {
  after?: After;
  afterTimeoutMs?: number;
}
export interface ContextOptions extends AfterOptions {
  /** the user's current message */
  query?: string;
  personaId?: string;
  /** token budget override */
  budget?: number;
  /** evaluate recency and decay at this time */
  asOf?: string | Date;
}
export interface PayloadOptions extends AfterOptions {
  systemPrompt?: string;
  serviceData?: unknown;
  tools?: PayloadRequest["tools"];
  personaId?: string;
}

/** POST /ingest's answer. Pass it as `after` to read your own writes: the client waits for the last
 * event it sent for that contact. */
export class Receipt {
  readonly accepted: number;
  readonly eventIds: IngestAccepted["eventIds"];
  readonly duplicates: number;
  /** contact id -> its last event id sent */
  readonly last: ReadonlyMap<string, string>;

  constructor(answer: IngestAccepted, last: ReadonlyMap<string, string>) {
    this.accepted = answer.accepted;
    this.eventIds = answer.eventIds;
    this.duplicates = answer.duplicates;
    this.last = last;
  }

  lastEventId(contactId: string): string {
    const id = this.last.get(contactId);
    if (id === undefined) throw new RangeError(`this receipt holds no event of contact ${JSON.stringify(contactId)}`);
    return id;
  }

  get contacts(): string[] {
    return [...this.last.keys()];
  }

  merged(other: Receipt): Receipt {
    return new Receipt(
      { accepted: this.accepted + other.accepted, eventIds: [...this.eventIds, ...other.eventIds],
        duplicates: this.duplicates + other.duplicates },
      new Map([...this.last, ...other.last]),
    );
  }

  toJSON(): IngestAccepted {
    return { accepted: this.accepted, eventIds: this.eventIds, duplicates: this.duplicates };
  }
}

type QueryValue = string | number | boolean | Date | null | undefined;
interface Sending {
  path?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** false: one attempt (a POST that must not be sent twice; a health check reports, it does not wait) */
  retry?: boolean;
  signal?: AbortSignal | undefined;
  /** an event id: a 504 (not reflected yet) is asked again until `afterTimeoutMs` */
  after?: string | undefined;
  afterTimeoutMs?: number | undefined;
}
interface Answered {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return p?.env?.[name] || undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

class Timeout extends Error {}

/** The rapport client. */
export class Rapport {
  readonly baseUrl: string;
  readonly tenantId: string | undefined;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  readonly maxWaitMs: number;
  readonly afterTimeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly fetcher: typeof fetch;

  constructor(options: RapportOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env("RAPPORT_URL") ?? DEFAULT_URL).replace(/\/+$/, "");
    this.tenantId = options.tenantId;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = Math.max(0, options.retries ?? 4);
    this.backoffMs = options.backoffMs ?? 500;
    this.maxWaitMs = options.maxWaitMs ?? 30_000;
    this.afterTimeoutMs = options.afterTimeoutMs ?? 30_000;
    const key = (options.apiKey ?? env("RAPPORT_API_KEY") ?? "").trim();
    this.headers = { accept: "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}),
                     ...options.headers };
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("no fetch: pass options.fetch (Node 18+ and browsers have one)");
    this.fetcher = f.bind(globalThis);
  }

  // ----------------------------------------------------------------------------------- transport
  private url(template: string, path: Record<string, string | number> = {}, query: Record<string, QueryValue> = {}): string {
    const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = path[name];
      if (v === undefined) throw new TypeError(`${template} needs ${name}`);
      return encodeURIComponent(String(v)); // an id with "/" stays one path segment
    });
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null) continue;
      q.append(k, v instanceof Date ? v.toISOString() : String(v));
    }
    const qs = q.toString();
    return this.baseUrl + filled + (qs ? `?${qs}` : "");
  }

  /** One attempt: the answer with its body read, within timeoutMs. */
  private async attempt(method: string, url: string, body: string | undefined, signal?: AbortSignal): Promise<Answered> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(new Timeout(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    const onAbort = () => ctl.abort(signal!.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const res = await this.fetcher(url, {
        method, signal: ctl.signal,
        headers: body === undefined ? this.headers : { ...this.headers, "content-type": "application/json" },
        ...(body === undefined ? {} : { body }),
      });
      return { status: res.status, statusText: res.statusText, headers: res.headers, text: await res.text() };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The wait before retry `n` (0-based): the server's Retry-After when it sends one, else full jitter
   * over backoffMs x 2^n; never more than maxWaitMs. */
  backoff(n: number, retryAfter?: string | null): number {
    const s = retryAfterSeconds(retryAfter);
    const ms = s !== undefined ? s * 1000 : Math.random() * this.backoffMs * 2 ** n;
    return Math.min(ms, this.maxWaitMs);
  }

  /** Sends with retries; resolves to the final answer (any status). */
  private async send(method: string, template: string, s: Sending): Promise<Answered> {
    const url = this.url(template, s.path, s.query);
    const body = s.body === undefined ? undefined : JSON.stringify(s.body);
    const tries = s.retry === false ? 0 : this.retries;
    for (let n = 0; ; n++) {
      let answered: Answered;
      try {
        answered = await this.attempt(method, url, body, s.signal);
      } catch (e) {
        if (s.signal?.aborted) throw s.signal.reason;
        if (n >= tries) {
          const why = e instanceof Error ? `${e.name === "Error" ? "" : e.name + ": "}${e.message}` : String(e);
          throw new ConnectionFailed(`${method} ${url}: ${why}`, { cause: e });
        }
        await sleep(this.backoff(n), s.signal);
        continue;
      }
      if (n < tries && RETRY_STATUSES.includes(answered.status)) {
        await sleep(this.backoff(n, answered.headers.get("retry-after")), s.signal);
        continue;
      }
      return answered;
    }
  }

  /** Sends, asks again while `after` is not reflected (504) until afterTimeoutMs, and decodes the answer
   * or throws its typed error. */
  private async request<T>(method: Method, template: string, s: Sending = {}): Promise<T> {
    const deadline = Date.now() + (s.afterTimeoutMs ?? this.afterTimeoutMs);
    for (;;) {
      const a = await this.send(method.toUpperCase(), template, s);
      if (a.status === 504 && s.after && Date.now() < deadline) continue;
      if (a.status < 200 || a.status > 299) throw errorFor(a.status, a.statusText, a.headers, a.text);
      try {
        return (a.text ? JSON.parse(a.text) : undefined) as T;
      } catch {
        // a 2xx that is not the API's JSON (a proxy's page, a wrong base URL)
        throw new ServerError(`${a.status} the answer is not JSON`, { status: a.status, body: a.text });
      }
    }
  }

  /** A route of the generated document: its path parameters, query and body are the document's. */
  private call<P extends Path, M extends MethodOf<P>>(
    method: M, path: P,
    s: Omit<Sending, "path" | "query" | "body"> & { path?: PathParams<P, M>; query?: Query<P, M>; body?: Body<P, M> },
  ): Promise<Answer<P, M>> {
    return this.request<Answer<P, M>>(method, path, s as Sending);
  }

  private tenant(tenantId: string | undefined): string | undefined {
    return tenantId ?? this.tenantId;
  }

  private static afterId(after: After | undefined, contactId: string): string | undefined {
    if (after === undefined || typeof after === "string") return after;
    return after instanceof Receipt ? after.lastEventId(contactId) : after.eventId;
  }

  // -------------------------------------------------------------------------------------- routes
  /** GET /healthz, asked once: ok/degraded (200) or starting/unavailable (503), never thrown. */
  async healthz(options: { signal?: AbortSignal } = {}): Promise<Health> {
    const a = await this.send("GET", "/healthz", { retry: false, signal: options.signal });
    if (a.status === 200 || a.status === 503) {
      try {
        return JSON.parse(a.text) as Health;
      } catch {
        // not the API's answer: the typed error below
      }
    }
    throw errorFor(a.status, a.statusText, a.headers, a.text);
  }

  private async events(events: EventInput | readonly EventInput[]): Promise<Event[]> {
    const list = Array.isArray(events) ? (events as readonly EventInput[]) : [events as EventInput];
    return Promise.all(list.map(async (e) => {
      const out = { ...e } as Record<string, unknown>;
      if (out.occurred_at instanceof Date) out.occurred_at = out.occurred_at.toISOString();
      if (!out.event_id) out.event_id = await uuid4(); // the idempotency key: a retry records nothing twice
      if (this.tenantId && !out.tenant_id) out.tenant_id = this.tenantId;
      return out as Event;
    }));
  }

  private async ingestBatch(batch: Event[], signal?: AbortSignal): Promise<Receipt> {
    const answer = await this.call("post", "/ingest", { body: batch, signal });
    return new Receipt(answer, new Map(batch.map((e) => [e.contact_id, e.event_id as string])));
  }

  /** POST /ingest: one event or up to 1000. Events without an event_id get one first, so a retry never
   * records a message twice. Pass the receipt as `after`. NoEvents / TooManyEvents before sending. */
  async ingest(events: EventInput | readonly EventInput[], options: { signal?: AbortSignal } = {}): Promise<Receipt> {
    const batch = await this.events(events);
    if (batch.length === 0) {
      throw new NoEvents("no events to ingest", { body: { errors: [{ field: "body", problem: "no events" }] } });
    }
    if (batch.length > MAX_BATCH) {
      throw new TooManyEvents(`at most ${MAX_BATCH} events per request: use ingestMany() for more`,
        { body: { errors: [{ field: "body", problem: `${batch.length} events` }] } });
    }
    return this.ingestBatch(batch, options.signal);
  }

  /** Any number of events, in order, in batches of `batchSize` (and at most MAX_INGEST_BYTES); one merged
   * receipt. A failed batch throws its error, whose `receipt` holds what the batches before it recorded. */
  async ingestMany(events: Iterable<EventInput>, options: { batchSize?: number; signal?: AbortSignal } = {}): Promise<Receipt> {
    const size = options.batchSize ?? 500;
    if (!(Number.isInteger(size) && size >= 1 && size <= MAX_BATCH)) throw new RangeError(`batchSize must be 1..${MAX_BATCH}`);
    const all = await this.events([...events]);
    if (all.length === 0) {
      throw new NoEvents("no events to ingest", { body: { errors: [{ field: "body", problem: "no events" }] } });
    }
    let receipt: Receipt | undefined;
    let run: Event[] = [];
    let bytes = 0;
    const flush = async () => {
      try {
        const got = await this.ingestBatch(run, options.signal);
        receipt = receipt ? receipt.merged(got) : got;
      } catch (e) {
        if (e instanceof RapportError) e.receipt = receipt;
        throw e;
      }
      run = [];
      bytes = 0;
    };
    for (const e of all) {
      const cost = new TextEncoder().encode(JSON.stringify(e)).length + 1;
      if (run.length && (run.length === size || bytes + cost > MAX_INGEST_BYTES)) await flush();
      run.push(e);
      bytes += cost;
    }
    if (run.length) await flush();
    return receipt!;
  }

  /** GET /context/{contact_id}: what the AI should know now; `context_text` goes in the system prompt.
   * `after`: an event id or a Receipt; waits (up to `afterTimeoutMs`) until it is reflected, then
   * NotReflected. */
  context(contactId: string, options: ContextOptions = {}): Promise<Context> {
    const after = Rapport.afterId(options.after, contactId);
    const query: ContextQuery = {
      query: options.query, tenant_id: this.tenant(options.tenantId), persona_id: options.personaId,
      budget: options.budget, as_of: options.asOf instanceof Date ? options.asOf.toISOString() : options.asOf, after,
    };
    return this.call("get", "/context/{contact_id}", {
      path: { contact_id: contactId }, query, signal: options.signal, after, afterTimeoutMs: options.afterTimeoutMs,
    });
  }

  /** POST /payload: a ready chat-completion payload within the token budgets (`messages` for any chat model). */
  payload(contactId: string, message: string, options: PayloadOptions = {}): Promise<Payload> {
    const after = Rapport.afterId(options.after, contactId);
    const body: PayloadRequest = {
      contact_id: contactId, message, tenant_id: this.tenant(options.tenantId), persona_id: options.personaId,
      system_prompt: options.systemPrompt, service_data: options.serviceData, tools: options.tools, after,
    };
    return this.call("post", "/payload", {
      body: JSON.parse(JSON.stringify(body)) as PayloadRequest, // without the undefined ones
      signal: options.signal, after, afterTimeoutMs: options.afterTimeoutMs,
    });
  }

  /** Until every contact's last event in `receipt` is reflected (NotReflected after `timeoutMs`). Asks
   * /context with a budget of 0: no memories are served, none counts as used. */
  async waitFor(receipt: Receipt, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? this.afterTimeoutMs);
    for (const contactId of receipt.contacts) {
      await this.context(contactId, { budget: 0, after: receipt, signal: options.signal,
                                      afterTimeoutMs: Math.max(0, deadline - Date.now()) });
    }
  }

  /** GET /contacts/{id}/memories: every memory (or those of one `status`) with its details; with
   * `limit` or `cursor` a page of them, and `nextCursor` for the next. */
  memories(contactId: string,
           options: CallOptions & { status?: MemoryStatus } & MemoryPageQuery = {}): Promise<MemoryList> {
    const query: MemoriesQuery & MemoryPageQuery = {
      tenant_id: this.tenant(options.tenantId), status: options.status, limit: options.limit, cursor: options.cursor,
    };
    return this.call("get", "/contacts/{contact_id}/memories", {
      path: { contact_id: contactId }, query: query as MemoriesQuery, signal: options.signal,
    });
  }

  /** Every memory of the contact (or of one `status`), a page of `pageSize` at a time. */
  async *iterMemories(contactId: string,
                      options: CallOptions & { status?: MemoryStatus; pageSize?: number } = {}): AsyncGenerator<MemoryDetail> {
    let cursor: string | undefined;
    do {
      const page = await this.memories(contactId, { ...options, limit: options.pageSize ?? 200, cursor });
      yield* page.memories;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /** GET /contacts/{id}/memories/{memory_id}: one memory with its history (NotFound: none such).
   * `after`: wait until that event (a correction's eventId, a message's) is reflected. */
  memory(contactId: string, memoryId: string, options: AfterOptions = {}): Promise<MemoryWithHistory> {
    const after = Rapport.afterId(options.after, contactId);
    const query: MemoryQuery = { tenant_id: this.tenant(options.tenantId), after };
    return this.request("get", "/contacts/{contact_id}/memories/{memory_id}", {
      path: { contact_id: contactId, memory_id: memoryId }, query, signal: options.signal, after,
      afterTimeoutMs: options.afterTimeoutMs,
    });
  }

  /** PATCH /contacts/{id}/memories/{memory_id}: correct a memory (its content, or type, importance, pin).
   * Recorded as an event (202): every reader then sees the corrected memory, the old text stays in its
   * history. Pass the answer as `after` to read it. Sent once, never retried. */
  correctMemory(contactId: string, memoryId: string, correction: string | MemoryCorrection,
                options: CallOptions = {}): Promise<MemoryCorrected> {
    const body = typeof correction === "string" ? { content: correction } : correction;
    const tenant = this.tenant(options.tenantId);
    return this.request("patch", "/contacts/{contact_id}/memories/{memory_id}", {
      path: { contact_id: contactId, memory_id: memoryId }, body: tenant ? { ...body, tenant_id: tenant } : body,
      retry: false, signal: options.signal,
    });
  }

  /** DELETE /contacts/{id}/memories/{memory_id}: forget a memory (its content shredded; 202). */
  forgetMemory(contactId: string, memoryId: string, options: CallOptions = {}): Promise<MemoryForgotten> {
    return this.request("delete", "/contacts/{contact_id}/memories/{memory_id}", {
      path: { contact_id: contactId, memory_id: memoryId }, query: { tenant_id: this.tenant(options.tenantId) },
      signal: options.signal,
    });
  }

  /** GET /contacts: the tenant's contacts, newest activity first, a page at a time (`nextCursor`). */
  contacts(options: CallOptions & Omit<ContactsQuery, "tenant_id"> = {}): Promise<ContactList> {
    const { signal, tenantId, ...rest } = options;
    const query = { ...rest, tenant_id: this.tenant(tenantId) } as ContactsQuery;
    return this.request("get", "/contacts", { query: query as Record<string, QueryValue>, signal });
  }

  /** Every contact (matching `q`), a page of `pageSize` at a time. */
  async *iterContacts(options: CallOptions & Omit<ContactsQuery, "tenant_id" | "limit" | "cursor"> & { pageSize?: number } = {}
  ): AsyncGenerator<ContactSummary> {
    const { pageSize, ...rest } = options;
    let cursor: string | undefined;
    do {
      const page = await this.contacts({ ...rest, limit: pageSize ?? 200, cursor });
      yield* page.contacts as ContactSummary[];
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /** GET /contacts/{id}/timeline: the mood and energy message by message, with pattern spans. */
  timeline(contactId: string, options: CallOptions & { limit?: number } = {}): Promise<Timeline> {
    return this.request("get", "/contacts/{contact_id}/timeline", {
      path: { contact_id: contactId }, query: { tenant_id: this.tenant(options.tenantId), limit: options.limit },
      signal: options.signal,
    });
  }

  /** GET /tenants: the tenants this key may open (an admin key: every tenant with contacts, with counts;
   * another key: its own). */
  tenants(options: Pick<CallOptions, "signal"> = {}): Promise<TenantList> {
    return this.call("get", "/tenants", { signal: options.signal });
  }

  /** GET /contacts/{id}/triggers: check-ins, crisis flags, owner insights. */
  triggers(contactId: string, options: CallOptions = {}): Promise<TriggerList> {
    return this.call("get", "/contacts/{contact_id}/triggers", {
      path: { contact_id: contactId }, query: { tenant_id: this.tenant(options.tenantId) }, signal: options.signal,
    });
  }

  /** GET /contacts/{id}/export: everything held about the contact. */
  export(contactId: string, options: CallOptions = {}): Promise<Export> {
    return this.call("get", "/contacts/{contact_id}/export", {
      path: { contact_id: contactId }, query: { tenant_id: this.tenant(options.tenantId) }, signal: options.signal,
    });
  }

  /** DELETE /contacts/{id}: erase everything of the contact (accepted: 202, done shortly after). */
  deleteContact(contactId: string, options: CallOptions = {}): Promise<Erasure> {
    return this.call("delete", "/contacts/{contact_id}", {
      path: { contact_id: contactId }, query: { tenant_id: this.tenant(options.tenantId) }, signal: options.signal,
    });
  }

  // ------------------------------------------------------------------------------------ webhooks
  /** POST /webhooks: subscribe `url` to the tenant's `events` ("TriggerCreated:crisis", "MemoryExtracted",
   * "*", ...). The answer's `secret` verifies the deliveries (verifyWebhook) and is shown this once
   * only. Sent once, never retried (a lost answer retried would subscribe twice). */
  createWebhook(url: string, events: string[], options: CallOptions & { description?: string } = {}): Promise<WebhookCreated> {
    const tenant = this.tenant(options.tenantId);
    return this.call("post", "/webhooks", {
      body: { url, events: events as Body<"/webhooks", "post">["events"],
              ...(options.description === undefined ? {} : { description: options.description }),
              ...(tenant ? { tenant_id: tenant } : {}) },
      retry: false, signal: options.signal,
    });
  }

  /** GET /webhooks: the tenant's subscriptions, with pending and dead counts (never the secrets). */
  webhooks(options: CallOptions = {}): Promise<WebhookList> {
    return this.call("get", "/webhooks", { query: { tenant_id: this.tenant(options.tenantId) }, signal: options.signal });
  }

  /** GET /webhooks/{id}: one subscription (NotFound: none of this tenant's). */
  webhook(webhookId: string, options: CallOptions = {}): Promise<Webhook> {
    return this.call("get", "/webhooks/{webhook_id}", {
      path: { webhook_id: webhookId }, query: { tenant_id: this.tenant(options.tenantId) }, signal: options.signal,
    });
  }

  /** DELETE /webhooks/{id}: unsubscribe; its pending deliveries are dropped unsent. */
  deleteWebhook(webhookId: string, options: CallOptions = {}): Promise<WebhookDeleted> {
    return this.call("delete", "/webhooks/{webhook_id}", {
      path: { webhook_id: webhookId }, query: { tenant_id: this.tenant(options.tenantId) }, signal: options.signal,
    });
  }

  /** GET /webhooks/{id}/deliveries, newest first: `status` pending, delivered or dead; `limit` 1..500. */
  webhookDeliveries(webhookId: string,
                    options: CallOptions & { status?: DeliveryStatus; limit?: number } = {}): Promise<DeliveryList> {
    return this.call("get", "/webhooks/{webhook_id}/deliveries", {
      path: { webhook_id: webhookId },
      query: { tenant_id: this.tenant(options.tenantId), status: options.status, limit: options.limit },
      signal: options.signal,
    });
  }

  /** POST /webhooks/{id}/deliveries/{deliveryId}/retry: a dead delivery again, on a fresh schedule
   * (Conflict: it is not dead). Sent once: a retried retry would answer Conflict. */
  retryDelivery(webhookId: string, deliveryId: number, options: CallOptions = {}): Promise<Redelivery> {
    return this.call("post", "/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", {
      path: { webhook_id: webhookId, delivery_id: deliveryId }, query: { tenant_id: this.tenant(options.tenantId) },
      retry: false, signal: options.signal,
    });
  }

  /** GET /metrics: Prometheus text. */
  async metrics(options: { signal?: AbortSignal } = {}): Promise<string> {
    const a = await this.send("GET", "/metrics", { signal: options.signal });
    if (a.status !== 200) throw errorFor(a.status, a.statusText, a.headers, a.text);
    return a.text;
  }

  /** GET /openapi.json: the API's OpenAPI document. */
  openapi(options: { signal?: AbortSignal } = {}): Promise<Record<string, unknown>> {
    return this.request("get", "/openapi.json", { signal: options.signal });
  }
}

/** Every operation of the generated document and the method that sends it. The build fails when the document has an operation this
 * table lacks, or names a method the client does not have; the e2e tests hold it to the live document. */
type RouteKey = { [P in Path]: { [M in MethodOf<P>]: `${Uppercase<M & string>} ${P & string}` }[MethodOf<P>] }[Path];
type ClientMethod = { [K in keyof Rapport]: Rapport[K] extends (...args: never[]) => unknown ? K : never }[keyof Rapport];

export const OPERATIONS = {
  "GET /healthz": "healthz",
  "POST /ingest": "ingest",
  "GET /context/{contact_id}": "context",
  "POST /payload": "payload",
  "GET /contacts/{contact_id}/memories": "memories",
  "GET /contacts/{contact_id}/triggers": "triggers",
  "GET /contacts/{contact_id}/export": "export",
  "DELETE /contacts/{contact_id}": "deleteContact",
  "GET /metrics": "metrics",
  "POST /webhooks": "createWebhook",
  "GET /webhooks": "webhooks",
  "GET /webhooks/{webhook_id}": "webhook",
  "DELETE /webhooks/{webhook_id}": "deleteWebhook",
  "GET /webhooks/{webhook_id}/deliveries": "webhookDeliveries",
  "POST /webhooks/{webhook_id}/deliveries/{delivery_id}/retry": "retryDelivery",
  "GET /contacts": "contacts",
  "GET /contacts/{contact_id}/timeline": "timeline",
  "GET /tenants": "tenants",
  "GET /contacts/{contact_id}/memories/{memory_id}": "memory",
  "PATCH /contacts/{contact_id}/memories/{memory_id}": "correctMemory",
  "DELETE /contacts/{contact_id}/memories/{memory_id}": "forgetMemory",
} as const satisfies Record<RouteKey, ClientMethod>;
