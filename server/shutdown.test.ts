// Graceful shutdown: in-flight requests finish, new connections are refused, and the process exits 0
// after SIGTERM with its database closed.
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../test/helpers/db.ts";
import { spawnTillServer, tempDir } from "../test/helpers/process.ts";
import { createLogger } from "./lib/logger.ts";
import { closeHttp } from "./main.ts";

const silent = createLogger({ level: "silent", format: "json" });

describe("graceful shutdown", () => {
  it("lets an in-flight request finish and refuses new connections", async () => {
    const app = express();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const inside = new Promise<void>((r) => (arrived = r));
    app.get("/slow", async (_req, res) => {
      arrived();
      await released;
      res.json({ done: true });
    });
    const server = http.createServer(app).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const inFlight = fetch(`${url}/slow`);
    await inside; // the request is being handled
    let closed = false;
    const closing = closeHttp(server, 5_000, silent).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(false);
    await expect(fetch(`${url}/slow`)).rejects.toThrow();

    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closing;
    expect(closed).toBe(true);
  });

  it("cuts connections still open when the grace period ends", async () => {
    const app = express();
    let arrived!: () => void;
    const inside = new Promise<void>((r) => (arrived = r));
    app.get("/hang", () => arrived());
    const server = http.createServer(app).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const hanging = fetch(`${url}/hang`).catch((err: Error) => err);
    await inside;
    const started = Date.now();
    await closeHttp(server, 200, silent);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await hanging).toBeInstanceOf(Error);
  });

  it("closes idle keep-alive connections at once and busy ones right after their response", async () => {
    const app = express();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    app.get("/fast", (_req, res) => res.json({ ok: true }));
    app.get("/slow", async (_req, res) => {
      await released;
      res.json({ ok: true });
    });
    const server = http.createServer(app).listen(0, "127.0.0.1");
    server.keepAliveTimeout = 65_000;
    await new Promise((r) => server.once("listening", r));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const get = (path: string) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.get({ host: "127.0.0.1", port, path, agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res));
        });
        req.on("error", reject);
      });
    await Promise.all([get("/fast"), get("/fast")]); // two idle keep-alive sockets
    const busy = get("/slow");
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    const closing = closeHttp(server, 5_000, silent);
    setTimeout(release, 300);
    expect((await busy).statusCode).toBe(200);
    await closing;
    // Well before the 5 s grace period: closed once the busy response went out.
    expect(performance.now() - started).toBeLessThan(2_500);
    agent.destroy();
  });

  describe("the till process", () => {
    let testDb: TestDatabase | undefined;
    afterAll(() => testDb?.dispose());

    it("exits 0 on SIGTERM after logging that it stopped", { timeout: 90_000 }, async () => {
      testDb = await openTestDatabase();
      const env: Record<string, string> = {
        AUTH_SECRET: "x".repeat(40),
        TILL_PAYMENTS: "none",
        LOG_LEVEL: "info",
        TILL_DATA_DIR: tempDir(),
      };
      if (testDb.url) {
        env.DATABASE_URL = testDb.url;
        await testDb.database.close();
      }
      const server = await spawnTillServer("serve", env);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      server.child.kill("SIGTERM");
      const result = await server.child;
      expect(result.exitCode).toBe(0);
      const lines = server
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg: string });
      expect(lines.map((l) => l.msg)).toEqual(
        expect.arrayContaining(["ready", "shutting down", "stopped"]),
      );
    });
  });
});
