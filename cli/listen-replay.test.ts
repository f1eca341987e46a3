// `till listen --replay n`: on start the organization's last n events are forwarded first, signed
// like live ones, then live events follow with none forwarded twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { api, createOrganization, signUp } from "../test/helpers/auth.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { openTestDatabase, type TestDatabase } from "../test/helpers/db.ts";
import { spawnTillServer, tempDir, tillBin, type SpawnedServer } from "../test/helpers/process.ts";
import { freePort } from "../test/helpers/server.ts";
import { startReceiver, waitFor, type Receiver } from "../test/helpers/webhook-receiver.ts";

let server: SpawnedServer;
let testDb: TestDatabase;
let receiver: Receiver;
let secret = "";
let env: Record<string, string>;
let orgId: string;

beforeAll(async () => {
  testDb = await openTestDatabase();
  const port = await freePort();
  const serverEnv: Record<string, string> = {
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    AUTH_SECRET: "r".repeat(40),
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    LOG_LEVEL: "warn",
    TILL_MODE: "sandbox",
    TILL_DATA_DIR: tempDir(),
  };
  if (testDb.url) {
    serverEnv.DATABASE_URL = testDb.url;
    await testDb.database.close();
  }
  server = await spawnTillServer("serve", serverEnv);
  const user = await signUp(server.url);
  orgId = (await createOrganization(server.url, user, "Replay Shop")).id;
  env = cliEnv(undefined, { TILL_TOKEN: user.token, TILL_SERVER: server.url });
  receiver = await startReceiver({ secretFor: () => secret, skipParse: true });
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  server?.child.kill("SIGTERM");
  await server?.child;
  await testDb?.dispose();
});

const setWebsite = async (website: string) => {
  const res = await api(server.url, `/v1/organizations/${orgId}`, {
    method: "PATCH",
    token: env.TILL_TOKEN,
    body: { website },
  });
  expect(res.status).toBe(200);
};

const websites = () =>
  receiver.receipts
    .map((r) => JSON.parse(r.body) as { type: string; data: { website?: string } })
    .filter((p) => p.type === "organization.updated")
    .map((p) => p.data.website);

describe("till listen --replay", { timeout: 120_000 }, () => {
  it("refuses a count that is not 1 to 1000", async () => {
    const result = await till(["listen", "--org", orgId, "--replay", "0"], env);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("--replay");
  });

  it("forwards the last n events first, signed, then live ones without duplicates", async () => {
    const printed = await till(["listen", "--org", orgId, "--print-secret"], env);
    expect(printed.exitCode, printed.stderr).toBe(0);
    secret = printed.stdout.trim();
    for (const site of ["a", "b", "c"]) await setWebsite(`https://${site}.test`);

    const child = execa(
      process.execPath,
      [tillBin, "listen", "--org", orgId, "--replay", "2", "--forward-to", `${receiver.url}/hooks`],
      { env, extendEnv: false, reject: false, stdin: "ignore" },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => websites().length >= 2, 20_000, `replayed events\n${stderr}`);
      expect(websites()).toEqual(["https://b.test", "https://c.test"]);
      await setWebsite("https://d.test");
      await waitFor(() => websites().length >= 3, 20_000, `live event\n${stderr}`);
      // A moment for anything sent twice to arrive.
      await new Promise((r) => setTimeout(r, 1000));
      expect(websites()).toEqual(["https://b.test", "https://c.test", "https://d.test"]);
      expect(receiver.receipts.every((r) => r.standardOk)).toBe(true);
      const ids = receiver.receipts.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      child.kill("SIGINT");
      await child;
    }
  });
});
