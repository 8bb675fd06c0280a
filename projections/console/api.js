// The public JSON API, with the key the user pasted (kept in this tab's sessionStorage: no cookie, so
// no request another site can make in the user's name). Every datum the console shows comes from here.

const KEY = "rapport.key";
const TENANT = "rapport.tenant";

export class ApiError extends Error {
  constructor(status, body) {
    const named = (body && body.errors || []).map((e) => `${e.field}: ${e.problem}`).join("; ");
    super(`${status} ${(body && body.error) || "error"}${named ? ` (${named})` : ""}`);
    this.status = status;
    this.body = body;
  }
}

export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  set key(v) { v ? sessionStorage.setItem(KEY, v) : sessionStorage.removeItem(KEY); },
  get tenant() { return sessionStorage.getItem(TENANT) || ""; },
  set tenant(v) { v ? sessionStorage.setItem(TENANT, v) : sessionStorage.removeItem(TENANT); },
};

/** A path with each id quoted whole (an id with "/" stays one segment). */
export function path(template, ...ids) {
  let i = 0;
  return template.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++]));
}

/** JSON from the API: `params` go in the query (the chosen tenant added), `init` is fetch's. */
export async function api(route, params = {}, init = {}) {
  const query = new URLSearchParams();
  const all = {tenant_id: session.tenant || undefined, ...params};
  for (const [k, v] of Object.entries(all)) if (v !== undefined && v !== null && v !== "") query.set(k, v);
  const headers = {Authorization: `Bearer ${session.key}`, Accept: "application/json"};
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`${route}${query.size ? `?${query}` : ""}`, {
    ...init, headers, credentials: "omit", cache: "no-store",
    body: init.body === undefined ? undefined : JSON.stringify(init.body)});
  let body = null;
  try { body = await response.json(); } catch { /* an empty or non-JSON answer */ }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}
