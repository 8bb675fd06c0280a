/**
 * The client's view of rapport's HTTP API, derived from the generated src/schema.ts (never written by
 * hand): a route is named by its path and method, and its query, body and answer types come from the
 * served OpenAPI document. src/client.ts sends every request through these types, so a route that is
 * removed, renamed or changes a parameter or a field the client uses no longer compiles.
 */
import type { paths } from "./schema.js";

export type { paths, components } from "./schema.js";

export type Method = "get" | "post" | "put" | "patch" | "delete";
/** The paths the generated document declares. */
export type Path = keyof paths;

/** The methods `P` declares (the generated type marks the others `?: never`). */
export type MethodOf<P extends Path> = {
  [K in Method]-?: [NonNullable<paths[P][K]>] extends [never] ? never : K;
}[Method];

/** The operation of `method` on `path`. */
export type Operation<P extends Path, M extends MethodOf<P>> = NonNullable<paths[P][M]>;

type Params<O> = O extends { parameters: infer X } ? X : never;

/** The query parameters an operation declares (`{}` when it declares none). */
export type Query<P extends Path, M extends MethodOf<P>> =
  Params<Operation<P, M>> extends { query?: infer Q } ? ([NonNullable<Q>] extends [never] ? {} : NonNullable<Q>) : {};

/** The path parameters an operation declares. */
export type PathParams<P extends Path, M extends MethodOf<P>> =
  Params<Operation<P, M>> extends { path?: infer Q } ? ([NonNullable<Q>] extends [never] ? {} : NonNullable<Q>) : {};

/** The JSON body an operation takes (never: none). */
export type Body<P extends Path, M extends MethodOf<P>> =
  Operation<P, M> extends { requestBody?: infer B }
    ? NonNullable<B> extends { content: { "application/json": infer J } } ? J : never
    : never;

type Responses<P extends Path, M extends MethodOf<P>> = Operation<P, M> extends { responses: infer R } ? R : never;
type JsonOf<X> = X extends { content: { "application/json": infer J } } ? J : never;

/** The JSON an operation answers with `status` (default: its success, 200, 201 or 202). */
export type Answer<P extends Path, M extends MethodOf<P>, S extends number = 200 | 201 | 202> = JsonOf<
  Responses<P, M>[S & keyof Responses<P, M>]
>;

// ------------------------------------------------------------------------------------- the answers
export type Health = Answer<"/healthz", "get">;
export type IngestAccepted = Answer<"/ingest", "post">;
/** One event for POST /ingest (a batch is an array of them). */
export type Event = Extract<Body<"/ingest", "post">, readonly unknown[]>[number];
export type Context = Answer<"/context/{contact_id}", "get">;
export type ContextMemory = Context["memories"][number];
export type ContextQuery = Query<"/context/{contact_id}", "get">;
export type PayloadRequest = Body<"/payload", "post">;
export type Payload = Answer<"/payload", "post">;
export type MemoryList = Answer<"/contacts/{contact_id}/memories", "get">;
export type MemoryDetail = MemoryList["memories"][number];
export type MemoriesQuery = Query<"/contacts/{contact_id}/memories", "get">;
export type MemoryStatus = NonNullable<MemoriesQuery extends { status?: infer S } ? S : never>;
export type TriggerList = Answer<"/contacts/{contact_id}/triggers", "get">;
export type Trigger = TriggerList["triggers"][number];
export type Export = Answer<"/contacts/{contact_id}/export", "get">;
export type TenantList = Answer<"/tenants", "get">;
export type ContactList = Answer<"/contacts", "get">;
export type ContactSummary = ContactList["contacts"][number];
export type ContactsQuery = Query<"/contacts", "get">;
/** `limit` and `cursor` of GET /contacts/{id}/memories (the answer then carries `nextCursor`). */
export type MemoryPageQuery = Pick<MemoriesQuery, "limit" | "cursor">;
export type MemoryPage = Pick<MemoryList, "nextCursor">;
type MemoryPath = "/contacts/{contact_id}/memories/{memory_id}";
export type MemoryWithHistory = Answer<MemoryPath, "get">;
export type MemoryQuery = Query<MemoryPath, "get">;
export type MemoryCorrection = Body<MemoryPath, "patch">;
export type MemoryCorrected = Answer<MemoryPath, "patch">;
export type MemoryForgotten = Answer<MemoryPath, "delete">;
export type Timeline = Answer<"/contacts/{contact_id}/timeline", "get">;
export type Erasure = Answer<"/contacts/{contact_id}", "delete">;
export type WebhookRequest = Body<"/webhooks", "post">;
export type WebhookCreated = Answer<"/webhooks", "post">;
export type WebhookList = Answer<"/webhooks", "get">;
export type Webhook = Answer<"/webhooks/{webhook_id}", "get">;
export type WebhookDeleted = Answer<"/webhooks/{webhook_id}", "delete">;
export type DeliveryList = Answer<"/webhooks/{webhook_id}/deliveries", "get">;
export type Delivery = DeliveryList["deliveries"][number];
export type DeliveryStatus = NonNullable<
  Query<"/webhooks/{webhook_id}/deliveries", "get"> extends { status?: infer S } ? S : never
>;
export type Redelivery = Answer<"/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", "post">;
/** What every 4xx/5xx says: `error`, and `errors` naming each bad field. */
export type ErrorBody = Answer<"/ingest", "post", 400>;
export type FieldProblem = NonNullable<ErrorBody["errors"]>[number];
