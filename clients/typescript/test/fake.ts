/** A local HTTP server that answers from a script, recording what it was sent: for the unit tests. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> | undefined; delayMs?: number };
export type Handler = (req: Seen, n: number) => Reply | Promise<Reply>;

export class FakeApi {
  readonly seen: Seen[] = [];
  private server: Server;
  url = "";

  constructor(private handler: Handler) {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const seen: Seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers,
                             body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
        this.seen.push(seen);
        let reply: Reply;
        try {
          reply = await this.handler(seen, this.seen.length);
        } catch (e) {
          reply = { status: 599, body: { error: `the fake's handler failed: ${String(e)}` } };
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const text = reply.body === undefined ? "" : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(text);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Runs `body` with a started fake API, stopped afterwards. */
export async function withFake<T>(handler: Handler, body: (api: FakeApi) => Promise<T>): Promise<T> {
  const api = await new FakeApi(handler).start();
  try {
    return await body(api);
  } finally {
    await api.stop();
  }
}
