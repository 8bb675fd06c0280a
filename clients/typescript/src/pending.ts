/**
 * HAND-WRITTEN TYPES, for the routes of issue 26 that are being built beside this client (memory
 * curation and the contact list): the shapes agreed for them (CONTRACT.md). Each type below is the
 * generated one as soon as the served /openapi.json declares its route (`npm run generate`), and the
 * hand-written fallback only until then; once every route here is generated, this file goes.
 *
 *   GET    /contacts?q=&sort=&limit=&cursor=              -> {contacts: [...], nextCursor}
 *   GET    /contacts/{id}/memories?limit=&cursor=          -> MemoryList with nextCursor
 *   GET    /contacts/{id}/memories/{memory_id}?after=      -> the memory with its history
 *   PATCH  /contacts/{id}/memories/{memory_id} {content}   -> 202 {eventId, memoryId}
 *   DELETE /contacts/{id}/memories/{memory_id}             -> 202 {eventId, memoryId}
 */
import type { Answer, Body, MemoryDetail, Method, MethodOf, Path, Query } from "./api.js";

/** The generated answer of `method` on `path` once the document declares it, else `Fallback`. */
export type Generated<P extends string, M extends Method, Fallback> = P extends Path
  ? M extends MethodOf<P> ? Answer<P, M> : Fallback
  : Fallback;
/** The generated query of `method` on `path` once the document declares it, else `Fallback`. */
export type GeneratedQuery<P extends string, M extends Method, Fallback> = P extends Path
  ? M extends MethodOf<P> ? Query<P, M> : Fallback
  : Fallback;
/** The generated JSON body of `method` on `path` once the document declares it, else `Fallback`. */
export type GeneratedBody<P extends string, M extends Method, Fallback> = P extends Path
  ? M extends MethodOf<P> ? Body<P, M> : Fallback
  : Fallback;

// ------------------------------------------------------------------------- GET /contacts (hand-written)
interface HandContactSummary {
  contactId: string;
  displayName: string | null;
  channel: string | null;
  /** the contact's latest message (RFC 3339) */
  lastSeenAt: string | null;
  relationshipStage: string;
  memoryCount: number;
  mood?: string | null;
  [key: string]: unknown;
}
interface HandContactList {
  contacts: HandContactSummary[];
  /** pass it as `cursor` for the next page; null on the last page */
  nextCursor: string | null;
  [key: string]: unknown;
}
interface HandContactsQuery {
  tenant_id?: string | null;
  /** a substring of the contact id or display name */
  q?: string | null;
  /** last_seen (newest activity first, the default) or contact_id */
  sort?: "last_seen" | "contact_id" | null;
  /** 1-200 (default 50) */
  limit?: number | null;
  cursor?: string | null;
}
export type ContactList = Generated<"/contacts", "get", HandContactList>;
export type ContactSummary = ContactList["contacts"][number];
export type ContactsQuery = GeneratedQuery<"/contacts", "get", HandContactsQuery>;

// ------------------------------------------------------- pages of /contacts/{id}/memories (hand-written)
/** `limit` and `cursor` of GET /contacts/{id}/memories (the answer then carries `nextCursor`). */
export interface MemoryPageQuery {
  limit?: number | null;
  cursor?: string | null;
}
export interface MemoryPage {
  nextCursor?: string | null;
}

// --------------------------------------------- /contacts/{id}/memories/{memory_id} (hand-written)
interface HandMemoryHistoryEntry {
  event_id: string;
  /** extracted, reinforced, corrected, superseded, merged, ... */
  kind: string;
  content?: string | null;
  at: string | null;
  eventType: string;
  causationId: string | null;
  [key: string]: unknown;
}
type HandMemoryWithHistory = MemoryDetail & {
  contactId: string;
  tenantId: string;
  /** every event about the memory, oldest first */
  history: HandMemoryHistoryEntry[];
};
interface HandMemoryChange {
  /** the correction or forget request's event id: pass it as `after=` to read it */
  eventId: string;
  memoryId: string;
  [key: string]: unknown;
}
interface HandMemoryCorrection {
  content: string;
  memoryType?: string | null;
  importance?: number | null;
  pinned?: boolean | null;
  tenant_id?: string | null;
}

type MemoryPath = "/contacts/{contact_id}/memories/{memory_id}";
export type MemoryWithHistory = Generated<MemoryPath, "get", HandMemoryWithHistory>;
export type MemoryQuery = GeneratedQuery<MemoryPath, "get", { tenant_id?: string | null; after?: string | null }>;
export type MemoryCorrection = GeneratedBody<MemoryPath, "patch", HandMemoryCorrection>;
export type MemoryCorrected = Generated<MemoryPath, "patch", HandMemoryChange>;
export type MemoryForgotten = Generated<MemoryPath, "delete", HandMemoryChange>;

// ------------------------------------------------------- GET /contacts/{id}/timeline (hand-written)
interface HandMoodPoint {
  at: string;
  mood: string;
  energy: string;
  style: string;
  confidence: number;
  unusual: boolean;
  source: string;
  sourceEventId: string;
  [key: string]: unknown;
}
interface HandSpan {
  kind: "difficult_period" | "pattern";
  start: string;
  end: string;
  label: string;
  count: number;
  memoryId?: string | null;
  [key: string]: unknown;
}
interface HandTimeline {
  contactId: string;
  tenantId: string;
  /** oldest first: the last `limit` classified messages */
  moods: HandMoodPoint[];
  spans: HandSpan[];
  truncated: boolean;
  [key: string]: unknown;
}
export type Timeline = Generated<"/contacts/{contact_id}/timeline", "get", HandTimeline>;
