// `till listen --forward-to` against a local receiver that verifies with standardwebhooks and as
// @polar-sh/sdk's validateEvent does: events fired by `till trigger order.paid` arrive verified both
// ways, and after the till server process restarts the listener resumes with Last-Event-ID without
// losing the events emitted meanwhile.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa, type ResultPromise } from "execa";
import { api, createOrganization, signUp } from "../test/helpers/auth.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { openTestDatabase, type TestDatabase } from "../test/helpers/db.ts";
import { spawnTillServer, tempDir, tillBin, type SpawnedServer } from "../test/helpers/process.ts";
import { freePort } from "../test/helpers/server.ts";
import { startReceiver, waitFor, type Receiver } from "../test/helpers/webhook-receiver.ts";

let server: SpawnedServer;
let serverEnv: Record<string, string>;
let testDb: TestDatabase;
let receiver: Receiver;
let secret = "";
let env: Record<string, string>;
let orgId: string;

async function startServer(): Promise<SpawnedServer> {
  return spawnTillServer("serve", serverEnv);
}

beforeAll(async () => {
  testDb = await openTestDatabase();
  const port = await freePort();
  serverEnv = {
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    AUTH_SECRET: "l".repeat(40),
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    LOG_LEVEL: "warn",
    TILL_MODE: "sandbox",
    TILL_DATA_DIR: tempDir(),
  };
  if (testDb.url) {
    serverEnv.DATABASE_URL = testDb.url;
    await testDb.database.close();
  }
  server = await startServer();
  const user = await signUp(server.url);
  orgId = (await createOrganization(server.url, user, "Listen Shop")).id;
  env = cliEnv(undefined, { TILL_TOKEN: user.token, TILL_SERVER: server.url });
  receiver = await startReceiver({ secretFor: () => secret, skipParse: true });
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  server?.child.kill("SIGTERM");
  await server?.child;
  await testDb?.dispose();
});

function startListener(): { child: ResultPromise; lines: () => Record<string, unknown>[] } {
  const child = execa(
    process.execPath,
    [tillBin, "listen", "--org", orgId, "--forward-to", `${receiver.url}/hooks`, "--json"],
    { env, extendEnv: false, reject: false, stdin: "ignore" },
  );
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  return {
    child,
    lines: () =>
      out
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("till listen", { timeout: 120_000 }, () => {
  it("--print-secret prints only the secret", async () => {
    const result = await till(["listen", "--org", orgId, "--print-secret"], env);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim()).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    secret = result.stdout.trim();
  });

  it("starts while nothing listens at --forward-to yet: prints the secret, logs each failed forward, retries and drops nothing", async () => {
    const port = await freePort();
    const child = execa(
      process.execPath,
      [tillBin, "listen", "--org", orgId, "--forward-to", `http://127.0.0.1:${port}/hooks`],
      { env, extendEnv: false, reject: false, stdin: "ignore" },
    );
    let stderr = "";
    let stdout = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    await waitFor(() => stderr.includes(secret), 20_000, `the secret printed\n${stderr}`);
    const patched = await api(server.url, `/v1/organizations/${orgId}`, {
      method: "PATCH",
      token: env.TILL_TOKEN,
      body: { website: "https://before-the-handler.test" },
    });
    expect(patched.status).toBe(200);
    await waitFor(
      () => (stderr.match(/retrying in/g) ?? []).length >= 2,
      20_000,
      `failed forwards logged\n${stderr}`,
    );
    expect(stderr).toContain("ECONNREFUSED");
    // The handler starts: the waiting event arrives, verified.
    const late = await startReceiver({ secretFor: () => secret, skipParse: true }, port);
    try {
      await waitFor(() => late.receipts.length > 0, 20_000, `event forwarded\n${stderr}`);
      expect(JSON.parse(late.receipts[0]!.body).data.website).toBe(
        "https://before-the-handler.test",
      );
      expect(late.receipts[0]!.standardOk).toBe(true);
      expect(late.receipts[0]!.polarOk).toBe(true);
      await waitFor(() => /<-- \[200\]/.test(stdout), 5_000, "the 200 logged");
    } finally {
      child.kill("SIGINT");
      await child;
      await late.close();
    }
  });

  it("forwards trigger order.paid verified; after a server restart it resumes and misses nothing", async () => {
    const listener = startListener();
    const before = receiver.receipts.length;
    // The stream is open once the listener has seen its connected message; give it a moment.
    await new Promise((r) => setTimeout(r, 1500));
    const paid = await till(["trigger", "order.paid", "--json"], env);
    expect(paid.exitCode, paid.stderr).toBe(0);
    await waitFor(
      () => receiver.receipts.slice(before).some((r) => JSON.parse(r.body).type === "order.paid"),
      20_000,
      "order.paid forwarded",
    );
    const first = receiver.receipts.slice(before);
    expect(first.every((r) => r.standardOk)).toBe(true);
    // A handler on @polar-sh/sdk's validateEvent, given the same secret, accepts it too.
    expect(first.every((r) => r.polarOk)).toBe(true);
    expect(listener.lines().some((l) => l.kind === "event" && l.type === "order.paid")).toBe(true);
    expect(listener.lines().some((l) => l.kind === "forward" && l.status === 200)).toBe(true);

    // Restart the server; emit while the listener is still reconnecting.
    server.child.kill("SIGTERM");
    await server.child;
    server = await startServer();
    const mark = receiver.receipts.length;
    const patched = await api(server.url, `/v1/organizations/${orgId}`, {
      method: "PATCH",
      token: env.TILL_TOKEN,
      body: { website: "https://after-restart.test" },
    });
    expect(patched.status).toBe(200);
    await waitFor(
      () =>
        receiver.receipts
          .slice(mark)
          .some((r) => JSON.parse(r.body).type === "organization.updated"),
      30_000,
      "event emitted during the restart forwarded",
    );
    const after = receiver.receipts.slice(mark);
    expect(after.every((r) => r.standardOk)).toBe(true);
    // Nothing forwarded twice across the reconnect.
    const ids = receiver.receipts.slice(before).map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    listener.child.kill("SIGINT");
    await listener.child;
  });
});
