/** WebCrypto wherever the client runs: the global `crypto` (browsers, Node 19+, Deno, Bun, workers), else
 * Node 18's `node:crypto` webcrypto (not global there without a flag). */
let cached: Promise<Crypto> | undefined;

export function webcrypto(): Promise<Crypto> {
  const global = (globalThis as { crypto?: Crypto }).crypto;
  if (global?.subtle) return Promise.resolve(global);
  // the specifier in a variable: bundlers for browsers leave it alone (browsers have the global)
  const nodeCrypto = "node:crypto";
  cached ??= import(/* @vite-ignore */ /* webpackIgnore: true */ nodeCrypto).then(
    (m: { webcrypto: Crypto }) => m.webcrypto,
  );
  return cached;
}

/** A random (v4) UUID: the idempotency key the client gives an event that names none. */
export async function uuid4(): Promise<string> {
  const c = await webcrypto();
  if (typeof c.randomUUID === "function") return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
