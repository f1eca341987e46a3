// Fault test with real processes on PostgreSQL: two `till serve --no-worker` and one `till worker`
// on one database. Confirms go to both servers; one server is SIGKILLed the moment one of its
// purchases is charged and is not restarted. The other server keeps answering, and the worker's
// reconciler leaves every session succeeded with exactly one order (those the processor charged)
// or open again, none confirmed, within two minutes.
import { afterAll, describe, expect, it } from "vitest";
import {
  confirm,
  crashEnv,
  firstCharge,
  openCheckouts,
  sessionStates,
} from "../../../test/helpers/confirm-crash.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import {
  spawnTillServer,
  spawnTillWorker,
  tempDir,
  type SpawnedServer,
} from "../../../test/helpers/process.ts";
import { freePort } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
const servers: SpawnedServer[] = [];
const workers: Awaited<ReturnType<typeof spawnTillWorker>>[] = [];
afterAll(async () => {
  for (const c of [...servers, ...workers]) c.child.kill("SIGKILL");
  await testDb?.dispose();
});

describe.skipIf(!usingPostgres())("one of two API servers killed during confirms", () => {
  it("the other keeps serving and no session is left confirmed", { timeout: 240_000 }, async () => {
    testDb = await openTestDatabase();
    const cwd = tempDir("till-two-servers-");
    const base = crashEnv(testDb, `${cwd}/data`);
    const serve = async () => {
      const port = await freePort();
      const env = { ...base, PORT: String(port), BASE_URL: `http://localhost:${port}` };
      const server = await spawnTillServer("serve", env, cwd, ["--no-worker"]);
      servers.push(server);
      return server;
    };
    const [doomed, survivor] = [await serve(), await serve()];
    workers.push(await spawnTillWorker(base, cwd));

    const { organizationId, sessions } = await openCheckouts(survivor.url, 12);
    const onDoomed = sessions.slice(0, 8);
    const onSurvivor = sessions.slice(8);
    const doomedConfirms = onDoomed.map((s) => confirm(doomed.url, s.clientSecret));
    const survivorConfirms = onSurvivor.map((s) => confirm(survivor.url, s.clientSecret));
    await firstCharge(
      testDb,
      onDoomed.map((s) => s.id),
    );
    doomed.child.kill("SIGKILL");
    await doomed.child;
    const killedAt = Date.now();
    await Promise.all(doomedConfirms);

    // The survivor answered all of its own confirms and still sells.
    expect(await Promise.all(survivorConfirms)).toEqual(onSurvivor.map(() => 200));
    const state = () => sessionStates(testDb!, organizationId);
    const interrupted = (await state()).filter((s) => s.status === "confirmed");
    console.log(
      `at the kill: ${interrupted.length} confirmed (${interrupted.filter((s) => s.charged).length} charged)`,
    );
    expect(interrupted.filter((s) => s.charged).length).toBeGreaterThanOrEqual(1);
    const late = await openCheckouts(survivor.url, 1);
    expect(await confirm(survivor.url, late.sessions[0]!.clientSecret)).toBe(200);

    await waitFor(
      async () => (await state()).every((s) => s.status !== "confirmed"),
      120_000,
      "no session left confirmed",
    );
    console.log(`resolved ${Date.now() - killedAt} ms after the kill, without a restart`);
    for (const s of await state()) {
      if (s.status === "succeeded") expect(s).toMatchObject({ orders: 1, charged: true });
      else expect(s).toMatchObject({ status: "open", orders: 0, charged: false });
    }
    for (const s of onSurvivor)
      expect((await state()).find((x) => x.id === s.id)).toMatchObject({
        status: "succeeded",
        orders: 1,
      });
  });
});
