// The first-segment dispatch over real HTTP: the same answers as routers mounted one after another.
import type { Server } from "node:http";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRouter, EVERY, segmentsOf } from "./api-router.ts";
import { segmentRouter } from "./segment-router.ts";

let server: Server;
const plain = Router();
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  const first = apiRouter();
  first.get("/things", (_req, res) => void res.json({ by: "first" }));
  first.get(["/shared/:id", "/shared"], (req, res, next) =>
    req.params.id === "pass" ? next() : res.json({ by: "first", id: req.params.id ?? null }),
  );
  const second = apiRouter();
  second.get("/shared/:id", (req, res) => void res.json({ by: "second", id: req.params.id }));
  second.post("/boom", () => {
    throw new Error("boom");
  });
  second.use("/guarded", (_req, res) => void res.status(401).json({ by: "guard" }));
  const inner = apiRouter();
  inner.get("/nested/stream", (_req, res) => void res.json({ by: "nested" }));
  const outer = apiRouter();
  outer.use(inner);
  const everywhere = apiRouter();
  everywhere.use((req, _res, next) => {
    seen.push(req.path);
    next();
  });
  const last = apiRouter();
  last.get("/things/late", (_req, res) => void res.json({ by: "last" }));
  // A router apiRouter() did not make cannot say where it serves: it is asked about every path.
  plain.get("/plain", (_req, res) => void res.json({ by: "plain" }));

  const app = express();
  app.use("/v1", segmentRouter([first, second, outer, everywhere, last, plain]));
  app.use((_req, res) => void res.status(404).json({ by: "not found" }));
  app.use(
    (err: Error, _req: Request, res: Response, _next: NextFunction) =>
      void res.status(500).json({ error: err.message }),
  );
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(path: string, method = "GET") {
  const res = await fetch(base + path, { method });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("segmentRouter", () => {
  it("hands a request to the routers serving its first segment, in order", async () => {
    expect(await get("/things")).toEqual({ status: 200, body: { by: "first" } });
    expect(await get("/things/late")).toEqual({ status: 200, body: { by: "last" } });
    expect(await get("/shared")).toEqual({ status: 200, body: { by: "first", id: null } });
    expect(await get("/shared/7")).toEqual({ status: 200, body: { by: "first", id: "7" } });
    // The first router passes; the next one serving the segment answers.
    expect(await get("/shared/pass")).toEqual({ status: 200, body: { by: "second", id: "pass" } });
  });

  it("matches the segment without case and with a trailing slash, as Express does", async () => {
    expect(await get("/THINGS/")).toEqual({ status: 200, body: { by: "first" } });
  });

  it("reads the routes of a router used without a path, and path-scoped middleware", async () => {
    expect(await get("/nested/stream")).toEqual({ status: 200, body: { by: "nested" } });
    expect(await get("/guarded/anything")).toEqual({ status: 401, body: { by: "guard" } });
  });

  it("gives a router with middleware for every path every request, and falls through when none answers", async () => {
    seen.length = 0;
    expect(await get("/unknown/path")).toEqual({ status: 404, body: { by: "not found" } });
    expect(await get("/things")).toEqual({ status: 200, body: { by: "first" } });
    // /things was answered before the catch-all router; /unknown reached it and then the 404.
    expect(seen).toEqual(["/unknown/path"]);
  });

  it("passes a handler's error on to the error handler", async () => {
    expect(await get("/boom", "POST")).toEqual({ status: 500, body: { error: "boom" } });
  });

  it("knows where apiRouter() routers serve from their routes, and nothing of others", () => {
    const r = apiRouter();
    r.get(["/a", "/a/:id"], () => {});
    r.route("/B/x").post(() => {});
    r.use("/c", () => {});
    expect(segmentsOf(r)).toEqual(new Set(["a", "b", "c"]));
    r.use(() => {});
    expect(segmentsOf(r)).toBe(EVERY);
    expect(segmentsOf(Router())).toBe(EVERY);
    const patterned = apiRouter();
    patterned.get("/:anything", () => {});
    expect(segmentsOf(patterned)).toBe(EVERY);
  });

  it("answers from a plain express Router too", async () => {
    expect(await get("/plain")).toEqual({ status: 200, body: { by: "plain" } });
  });
});
