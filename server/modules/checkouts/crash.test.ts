// Fault test with real processes on PostgreSQL: `till serve` is SIGKILLed while 8 confirms are in
// flight — at the moment the first charge is recorded, so at least that purchase dies between its
// charge and its fulfilment — then started again on the same database. Within two minutes the
// reconciler leaves every session succeeded with exactly one order (those the processor charged)
// or open again (those it did not), none confirmed, and no charge without an order.
import { afterAll, describe, expect, it } from "vitest";
import {
  confirm,
  crashEnv,
  firstCharge,
  openCheckouts,
  sessionStates,
} from "../../../test/helpers/confirm-crash.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { freePort } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await testDb?.dispose();
});

describe.skipIf(!usingPostgres())("till serve killed during 8 concurrent confirms", () => {
  it("after a restart every session is succeeded with one order or open, none confirmed", {
    timeout: 240_000,
  }, async () => {
    testDb = await openTestDatabase();
    const cwd = tempDir("till-checkout-crash-");
    const port = await freePort();
    const env = {
      ...crashEnv(testDb, `${cwd}/data`),
      PORT: String(port),
      BASE_URL: `http://localhost:${port}`,
    };
    const first = await spawnTillServer("serve", env, cwd);
    children.push(first);
    const { organizationId, sessions } = await openCheckouts(first.url, 8);
    const confirms = sessions.map((s) => confirm(first.url, s.clientSecret));
    // Kill the moment the processor has charged someone: fulfilment takes only milliseconds.
    await firstCharge(
      testDb,
      sessions.map((s) => s.id),
    );
    first.child.kill("SIGKILL");
    await first.child;
    const answered = await Promise.all(confirms);

    const state = () => sessionStates(testDb!, organizationId);
    const atKill = await state();
    const interrupted = atKill.filter((s) => s.status === "confirmed");
    console.log(
      `at the kill: ${atKill.filter((s) => s.status === "succeeded").length} succeeded, ${interrupted.length} confirmed (${interrupted.filter((s) => s.charged).length} of them charged), ${atKill.filter((s) => s.status === "open").length} open; answers ${JSON.stringify(answered)}`,
    );
    // The kill came after a charge and before its fulfilment finished.
    expect(interrupted.filter((s) => s.charged).length).toBeGreaterThanOrEqual(1);

    const second = await spawnTillServer("serve", env, cwd);
    children.push(second);
    const restartedAt = Date.now();
    await waitFor(
      async () => (await state()).every((s) => s.status !== "confirmed"),
      120_000,
      "no session left confirmed",
    );
    console.log(`resolved ${Date.now() - restartedAt} ms after the restart`);
    for (const s of await state()) {
      if (s.status === "succeeded") expect(s).toMatchObject({ orders: 1, charged: true });
      else expect(s).toMatchObject({ status: "open", orders: 0, charged: false });
    }
    // Every session the processor charged has its order.
    const after = await state();
    expect(after.filter((s) => s.charged).every((s) => s.orders === 1)).toBe(true);
    second.child.kill("SIGTERM");
    await second.child;
  });
});
