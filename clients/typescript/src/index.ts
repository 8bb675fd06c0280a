/** rapport-client: rapport's HTTP API from TypeScript/JavaScript (Node 18+, browsers). */
export * from "./client.js";
export * from "./errors.js";
export * from "./webhooks.js";
export type * from "./api.js";
