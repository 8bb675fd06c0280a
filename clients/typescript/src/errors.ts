/** Typed errors: one class per way a call can fail, each carrying the API's answer (as the Python client). */
import type { FieldProblem } from "./api.js";

/** Base of every error this client raises. `status`: the HTTP status (undefined: no answer); `body`:
 * the decoded JSON answer (or its text). */
export class RapportError extends Error {
  readonly status: number | undefined;
  readonly body: unknown;
  /** ingestMany: what the batches before the failed one recorded (undefined: nothing) */
  receipt: unknown = undefined;

  constructor(message: string, options: { status?: number; body?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
    this.body = options.body;
  }
}

/** No answer: the API could not be reached, or did not answer within `timeoutMs` (after the retries). */
export class ConnectionFailed extends RapportError {}

/** 401: no key, or an unknown or revoked one. */
export class AuthError extends RapportError {}

/** 403: the key may not act for the tenant named (or /metrics beyond loopback without an admin key). */
export class PermissionDenied extends RapportError {}

/** 404: no such webhook, delivery or memory (of this tenant), or no such route (a client newer than the
 * server, or a wrong base URL). */
export class NotFound extends RapportError {}

/** 409: the tenant has its maximum of webhooks, or the delivery to retry is not dead. */
export class Conflict extends RapportError {}

function problems(body: unknown): FieldProblem[] {
  const raw = body && typeof body === "object" ? (body as { errors?: unknown }).errors : undefined;
  return Array.isArray(raw) ? (raw.filter((e) => e && typeof e === "object") as FieldProblem[]) : [];
}

/** 400/413/422: the request was refused and nothing of it recorded. `errors` names each bad field and
 * its problem (in an /ingest batch also the event's `index`); `fields` just their names. */
export class ValidationError extends RapportError {
  get errors(): FieldProblem[] {
    return problems(this.body);
  }

  get fields(): string[] {
    return this.errors.map((e) => e.field);
  }
}

/** 413: a body or batch over the API's limits (1000 events per /ingest, /payload 256 KiB). */
export class PayloadTooLarge extends ValidationError {}

/** Refused before sending (nothing was sent): more events than one /ingest takes; `ingestMany` sends
 * any number. */
export class TooManyEvents extends PayloadTooLarge {}

/** Refused before sending (nothing was sent): an empty batch. */
export class NoEvents extends ValidationError {}

/** 429 after the retries: the tenant's backlog of unprocessed events is full. `retryAfter`: the
 * server's Retry-After, in seconds. */
export class RateLimited extends RapportError {
  readonly retryAfter: number | undefined;

  constructor(message: string, options: { status?: number; body?: unknown; retryAfter?: number } = {}) {
    super(message, options);
    this.retryAfter = options.retryAfter;
  }
}

/** The `after=` event is not in the projections within the time given (504 from the API, asked again
 * until the client's `afterTimeoutMs`). */
export class NotReflected extends RapportError {
  get eventId(): string | undefined {
    const b = this.body as { event_id?: unknown } | undefined;
    return b && typeof b.event_id === "string" ? b.event_id : undefined;
  }
}

/** 503 after the retries: the API's database or broker is down, or the stack is still starting. */
export class Unavailable extends RapportError {}

/** Any other 5xx. */
export class ServerError extends RapportError {}

export { PermissionDenied as Forbidden };

type ErrorClass = new (message: string, options: { status?: number; body?: unknown }) => RapportError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: ValidationError, 401: AuthError, 403: PermissionDenied, 404: NotFound, 409: Conflict, 413: PayloadTooLarge,
  422: ValidationError, 429: RateLimited, 503: Unavailable, 504: NotReflected,
};

/** Seconds from a Retry-After header (delta seconds or an HTTP date); undefined when absent or bad. */
export function retryAfterSeconds(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** The typed error for a failed answer: its status, headers and already-read body text. */
export function errorFor(status: number, statusText: string, headers: Headers, text: string): RapportError {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (a proxy's page): keep the text
  }
  const obj = body && typeof body === "object" ? (body as Record<string, unknown>) : undefined;
  let message = `${status} ${typeof obj?.error === "string" ? obj.error : statusText || "error"}`;
  const errs = problems(body);
  if (errs.length) message += ": " + errs.map((e) => `${e.field}: ${e.problem}`).join("; ");
  let kind: ErrorClass = BY_STATUS[status] ?? (status >= 500 ? ServerError : RapportError);
  if (kind === NotReflected && !(obj && "event_id" in obj)) kind = ServerError; // a gateway's timeout
  if (kind === RateLimited) {
    return new RateLimited(message, { status, body, retryAfter: retryAfterSeconds(headers.get("retry-after")) });
  }
  return new kind(message, { status, body });
}
