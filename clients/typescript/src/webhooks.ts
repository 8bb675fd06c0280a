/**
 * Verifying what rapport's webhooks send: the Standard Webhooks signature (standardwebhooks.com), with
 * WebCrypto only, so it runs in Node 18+, browsers, Deno, Bun and edge workers. The server signs with
 * streams/webhooks/signing.py; the Python client's twin is rapport_client.verify_webhook. Every
 * delivery carries
 *   webhook-id:        the event id, the same on every retry (dedupe on it)
 *   webhook-timestamp: unix seconds of this attempt
 *   webhook-signature: "v1,<base64 HMAC-SHA256(key, `${id}.${timestamp}.${raw body}`)>" (space-separated, any may match)
 * keyed with the bytes of the secret's base64 after `whsec_`.
 *
 *   const eventId = await verifyWebhook(secret, request.headers, rawBody);   // throws InvalidSignature
 */
import { webcrypto } from "./crypto.js";

export const SECRET_PREFIX = "whsec_";
/** A signed timestamp further off than this (seconds) is refused: a replayed capture. */
export const TOLERANCE_S = 300;

/** Not a delivery signed with this secret within the tolerance window. */
export class InvalidSignature extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidSignature";
  }
}

/** Headers as fetch (`Headers`), Node's http (`IncomingHttpHeaders`) or a plain object give them. */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  const padded = text + "=".repeat((4 - (text.length % 4)) % 4);
  if (!BASE64.test(padded) || padded.length % 4 !== 0) return undefined;
  try {
    const bin = atob(padded);
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const entries: Iterable<[string, unknown]> =
    Symbol.iterator in (headers as object)
      ? (headers as Iterable<[string, string]>)
      : Object.entries(headers as Record<string, unknown>);
  for (const [k, v] of entries) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(" ") : typeof v === "string" ? v : undefined;
  }
  return undefined;
}

function bytesOf(body: string | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * Checks one delivery; resolves to its event id (the webhook-id header: dedupe on it, a retry repeats
 * it). Rejects with InvalidSignature when a webhook-* header is missing or malformed, the signed
 * timestamp is more than `toleranceS` from `now` (unix seconds), or no v1 signature matches.
 * `body`: the bytes as received (a string is taken as their UTF-8), never re-serialised JSON.
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | ArrayBuffer | ArrayBufferView,
  options: { now?: number; toleranceS?: number } = {},
): Promise<string> {
  const msgId = header(headers, "webhook-id");
  const stamp = header(headers, "webhook-timestamp");
  const sigs = header(headers, "webhook-signature");
  if (!msgId || !stamp || !sigs) throw new InvalidSignature("missing webhook-id, webhook-timestamp or webhook-signature");
  if (!/^[0-9]{1,12}$/.test(stamp)) throw new InvalidSignature("webhook-timestamp is not unix seconds");
  const t = Number(stamp); // signed as the integer, as Standard Webhooks' libraries do: "0123" is 123
  const now = options.now ?? Date.now() / 1000;
  if (Math.abs(now - t) > (options.toleranceS ?? TOLERANCE_S)) {
    throw new InvalidSignature("webhook-timestamp is outside the tolerance window");
  }
  const key = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (!key) throw new InvalidSignature("the secret is not base64 after its whsec_ prefix");
  if (key.length === 0) throw new InvalidSignature("empty secret");
  const { subtle } = await webcrypto();
  const hmac = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const prefix = new TextEncoder().encode(`${msgId}.${t}.`);
  const raw = bytesOf(body);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  for (const sig of sigs.split(" ")) {
    const comma = sig.indexOf(",");
    if (comma < 0 || sig.slice(0, comma) !== "v1") continue;
    const value = sig.slice(comma + 1);
    const mac = value.length === 44 ? base64Bytes(value) : undefined; // base64 of 32 bytes, padded
    // WebCrypto's verify compares in constant time
    if (mac && mac.length === 32 && (await subtle.verify("HMAC", hmac, mac, signed))) return msgId;
  }
  throw new InvalidSignature("no matching v1 signature");
}
