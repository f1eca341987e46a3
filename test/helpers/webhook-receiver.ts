// A local webhook receiver for tests and benchmarks: verifies every request with the
// `standardwebhooks` library and with `@polar-sh/sdk`'s validateEvent, records what it got, and
// answers with whatever status the test wants (to play an endpoint that is down, slow or redirects).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { validateEvent, WebhookVerificationError } from "@polar-sh/sdk/webhooks";
import { Webhook } from "standardwebhooks";

export interface Receipt {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  receivedAt: number;
  /** standardwebhooks verify() accepted it. */
  standardOk: boolean;
  /** validateEvent's signature check accepted it (parsing the data is reported separately). */
  polarOk: boolean;
  /** validateEvent also parsed `data` as the SDK's model for the type. */
  polarParsed: boolean;
  status: number;
}

export interface ReceiverOptions {
  /** The secret for a request path (the endpoint's); undefined → 404. */
  secretFor: (path: string) => string | undefined;
  /** The status to answer with; default 200. Return -1 to never answer (a hanging endpoint). */
  respond?: (receipt: Receipt, countForPath: number) => number | Promise<number>;
  /** Skip the (slow) schema parse of validateEvent; signatures are still checked by both libraries. */
  skipParse?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  receipts: Receipt[];
  close(): Promise<void>;
}

export function verifyBoth(
  body: string,
  headers: Record<string, string>,
  secret: string,
  parse = true,
) {
  let standardOk = false;
  let polarOk = false;
  let polarParsed = false;
  try {
    new Webhook(secret).verify(body, headers);
    standardOk = true;
  } catch {
    standardOk = false;
  }
  try {
    if (parse) {
      validateEvent(body, headers, secret);
      polarParsed = true;
    } else {
      new Webhook(Buffer.from(secret, "utf-8").toString("base64")).verify(body, headers);
    }
    polarOk = true;
  } catch (err) {
    polarOk = !(err instanceof WebhookVerificationError) && parse;
  }
  return { standardOk, polarOk, polarParsed };
}

export async function startReceiver(options: ReceiverOptions, port = 0): Promise<Receiver> {
  const receipts: Receipt[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const path = req.url ?? "/";
      const secret = options.secretFor(path);
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = {
        "webhook-id": String(req.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
      };
      const verdict = secret
        ? verifyBoth(body, headers, secret, !options.skipParse)
        : { standardOk: false, polarOk: false, polarParsed: false };
      const receipt: Receipt = {
        path,
        id: headers["webhook-id"],
        timestamp: headers["webhook-timestamp"],
        signature: headers["webhook-signature"],
        body,
        receivedAt: Date.now(),
        ...verdict,
        status: 200,
      };
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      receipt.status = secret ? await (options.respond?.(receipt, n) ?? 200) : 404;
      receipts.push(receipt);
      if (receipt.status === -1) return;
      res.writeHead(receipt.status, { "content-type": "text/plain" });
      res.end(receipt.standardOk ? "ok" : "bad signature");
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${actual}`,
    port: actual,
    receipts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Waits until check() is true, polling; throws with the message after timeoutMs. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  message: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms: ${message}`);
}
