// Error shapes over real HTTP: the product's middleware chain with one fixture route per case.
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { errorHandler, notFoundHandler, ResourceAlreadyExists } from "./errors.ts";
import { createLogger } from "./logger.ts";
import { requestContext } from "./request-context.ts";
import { parseBody, parseQuery } from "./validation.ts";
import { paginationQuery } from "./pagination.ts";

const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    logLines.push(String(chunk));
    cb();
  },
});

let base = "";
let close: () => void;

beforeAll(async () => {
  const app = express();
  app.use(requestContext(createLogger({ level: "info", format: "json" }, sink)));
  app.use(express.json({ limit: "1kb" }));
  const body = z.object({
    name: z.string().min(1),
    price: z.object({ amount: z.number().int().min(0) }),
  });
  app.post("/things", (req, res) => {
    res.status(201).json(parseBody(body, req));
  });
  app.get("/things", (req, res) => {
    res.json(parseQuery(paginationQuery, req));
  });
  app.post("/conflict", () => {
    throw new ResourceAlreadyExists("A thing with this slug already exists.");
  });
  app.get("/boom", async () => {
    throw new Error("secret internals");
  });
  app.use(notFoundHandler);
  app.use(errorHandler());
  const server = app.listen(0);
  await new Promise((r) => server.once("listening", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

const post = (path: string, body: string) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

describe("error bodies in Polar's shape", () => {
  it("unknown route → 404 ResourceNotFound", async () => {
    const res = await fetch(`${base}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: "ResourceNotFound",
      detail: "No route for GET /v1/nothing-here",
    });
  });

  it("malformed JSON → 422 RequestValidationError at loc [body]", async () => {
    const res = await post("/things", "{not json");
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: "RequestValidationError",
      detail: [
        {
          loc: ["body"],
          msg: "JSON decode error: the body is not valid JSON",
          type: "json_invalid",
        },
      ],
    });
  });

  it("zod failure → 422 with one entry per field, loc pointing into the body", async () => {
    const res = await post("/things", JSON.stringify({ price: { amount: -1 } }));
    expect(res.status).toBe(422);
    const body = (await res.json()) as {
      error: string;
      detail: { loc: unknown[]; msg: string; type: string }[];
    };
    expect(body.error).toBe("RequestValidationError");
    expect(body.detail).toEqual([
      { loc: ["body", "name"], msg: "Field required", type: "missing" },
      {
        loc: ["body", "price", "amount"],
        msg: expect.stringMatching(/>=\s*0/),
        type: "greater_than_equal",
      },
    ]);
  });

  it("query validation → 422 at loc [query, limit]; limit is capped at 100", async () => {
    const res = await fetch(`${base}/things?page=1&limit=101`);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; type: string }[] };
    expect(body.detail[0]).toMatchObject({ loc: ["query", "limit"], type: "less_than_equal" });
    const ok = await fetch(`${base}/things`);
    expect(await ok.json()).toEqual({ page: 1, limit: 10 });
  });

  it("integer query parameters take decimal digits only → 422 int_parsing otherwise", async () => {
    for (const query of ["limit=0x10", "limit=%205", "page=1e10", "page=1.0", "limit=5abc"]) {
      const res = await fetch(`${base}/things?${query}`);
      expect(res.status, query).toBe(422);
      const body = (await res.json()) as { detail: unknown[] };
      expect(body.detail).toEqual([
        {
          loc: ["query", query.split("=")[0]],
          msg: "Input should be a valid integer, unable to parse string as an integer",
          type: "int_parsing",
        },
      ]);
    }
    const ok = await fetch(`${base}/things?page=2&limit=007`);
    expect(await ok.json()).toEqual({ page: 2, limit: 7 });
    const negative = await fetch(`${base}/things?page=-1`);
    expect(((await negative.json()) as { detail: unknown[] }).detail).toMatchObject([
      { loc: ["query", "page"], type: "greater_than_equal" },
    ]);
  });

  it("a key repeated for a one-value parameter counts its last value, as FastAPI", async () => {
    const res = await fetch(`${base}/things?limit=5&page=3&limit=7`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ page: 3, limit: 7 });
    // The last value is still validated.
    const bad = await fetch(`${base}/things?limit=5&limit=101`);
    expect(bad.status).toBe(422);
  });

  it("a body over the limit → 413 PayloadTooLarge", async () => {
    const res = await post("/things", JSON.stringify({ name: "x".repeat(2000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "PayloadTooLarge" });
  });

  it("a compressed body that does not inflate → 400 BadRequest, not a 500", async () => {
    const send = (body: Uint8Array | string, encoding: string) =>
      fetch(`${base}/things`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-encoding": encoding },
        body: typeof body === "string" ? body : new Uint8Array(body),
      });
    const good = gzipSync(JSON.stringify({ name: "x", price: { amount: 1 } }));
    expect((await send(good, "gzip")).status).toBe(201);
    for (const [body, encoding] of [
      ["x", "gzip"],
      [good.subarray(0, good.length - 6), "gzip"],
      ["x", "deflate"],
      ["x", "br"],
    ] as const) {
      const res = await send(body, encoding);
      expect(res.status, encoding).toBe(400);
      expect(await res.json()).toEqual({
        error: "BadRequest",
        detail:
          "The request body could not be decompressed: it does not match its Content-Encoding.",
      });
    }
  });

  it("a typed error keeps its status and name", async () => {
    const res = await post("/conflict", "{}");
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: "ResourceAlreadyExists",
      detail: "A thing with this slug already exists.",
    });
  });

  it("an unexpected exception → 500 with the request id, the stack only in the log", async () => {
    const res = await fetch(`${base}/boom`, { headers: { "x-request-id": "req-abc-123" } });
    expect(res.status).toBe(500);
    expect(res.headers.get("x-request-id")).toBe("req-abc-123");
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: "InternalServerError",
      detail: "Something went wrong on our side. Reference: req-abc-123",
    });
    expect(text).not.toContain("secret internals");
    const logged = logLines.map(
      (l) => JSON.parse(l) as { reqId?: string; msg: string; err?: { stack: string } },
    );
    const entry = logged.find((l) => l.msg === "unhandled error");
    expect(entry?.reqId).toBe("req-abc-123");
    expect(entry?.err?.stack).toContain("secret internals");
  });

  it("every request gets an id, a fresh one when the given id is unsafe, and an access-log line", async () => {
    const res = await fetch(`${base}/things`, {
      headers: { "x-request-id": "bad id\twith spaces" },
    });
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 20));
    const access = logLines
      .map((l) => JSON.parse(l) as { reqId?: string; msg: string; status?: number })
      .find((l) => l.reqId === id);
    expect(access).toMatchObject({ msg: "request", status: 200 });
  });
});
