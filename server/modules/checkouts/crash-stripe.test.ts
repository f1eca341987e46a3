// The confirm fault test with the Stripe adapter: `till serve` (PostgreSQL, paying through the local
// Stripe API server) is SIGKILLed the instant Stripe first reports a PaymentIntent succeeded, while 8
// confirms are in flight, so that purchase is charged at Stripe and has no order. Stripe's webhooks
// are held back, so only the restarted server's reconciler can find the payments (by the
// idempotency key in their metadata): every session ends succeeded with one order per succeeded
// PaymentIntent, or open with none; delivering the held events afterwards changes nothing.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openCheckouts } from "../../../test/helpers/confirm-crash.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { freePort } from "../../../test/helpers/server.ts";
import { startStripeServer, type StripeServer } from "../../../test/helpers/stripe-server/index.ts";
import { stripeEnv, WEBHOOK_SECRET } from "../../../test/helpers/stripe-till.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
let stripe: StripeServer | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await stripe?.close();
  await testDb?.dispose();
});

describe.skipIf(!usingPostgres())(
  "till serve with Stripe killed during 8 concurrent confirms",
  () => {
    it("the reconciler finds every Stripe payment: one order each, the rest open", {
      timeout: 240_000,
    }, async () => {
      testDb = await openTestDatabase();
      stripe = await startStripeServer();
      const cwd = tempDir("till-stripe-crash-");
      const port = await freePort();
      const env = {
        ...stripeEnv(stripe),
        AUTH_SECRET: "k".repeat(40),
        AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
        AUTH_RATE_LIMIT: "false",
        LOG_LEVEL: "warn",
        TILL_DATA_DIR: `${cwd}/data`,
        DATABASE_URL: testDb.url!,
        PAYMENTS_RECONCILE_AFTER_SECONDS: "2",
        PORT: String(port),
        BASE_URL: `http://localhost:${port}`,
      };
      const first = await spawnTillServer("serve", env, cwd);
      children.push(first);
      const { organizationId, sessions } = await openCheckouts(first.url, 8);
      const sdk = stripe.sdk();
      const tokens = await Promise.all(
        sessions.map(
          async () =>
            (await sdk.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" }))
              .id,
        ),
      );
      // Held: the webhooks would otherwise fulfil what the reconciler is here to find.
      stripe.deliverTo(null);
      const emit = stripe.state.onEvent;
      let killed = false;
      stripe.state.onEvent = (event) => {
        // Before Stripe's answer leaves: the charge exists, the server never hears of it.
        if (event.type === "payment_intent.succeeded" && !killed) {
          killed = true;
          first.child.kill("SIGKILL");
        }
        emit(event);
      };
      const answered = await Promise.all(
        sessions.map((s, i) =>
          fetch(`${first.url}/v1/checkouts/client/${s.clientSecret}/confirm`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ confirmation_token_id: tokens[i] }),
          }).then(
            (r) => r.status,
            () => "killed" as const,
          ),
        ),
      );
      await first.child.catch(() => {});
      expect(killed).toBe(true);

      const succeededAtStripe = () =>
        new Set(
          [...stripe!.state.intents.values()]
            .filter((pi) => pi.status === "succeeded")
            .map((pi) => (pi.metadata as Record<string, string>).checkout_id),
        );
      const state = () =>
        testDb!.database.rows<{ id: string; status: string; orders: number }>(sql`
        select c.id, c.status,
          (select count(*)::int from orders o where o.checkout_id = c.id) as orders
        from checkouts c where c.organization_id = ${organizationId}`);
      const atKill = await state();
      const charged = succeededAtStripe();
      const chargedWithoutOrder = atKill.filter((s) => charged.has(s.id) && s.orders === 0);
      console.log(
        `at the kill: ${charged.size} charged at Stripe, ${chargedWithoutOrder.length} of them without an order, ${atKill.filter((s) => s.status === "confirmed").length} confirmed; answers ${JSON.stringify(answered)}`,
      );
      expect(chargedWithoutOrder.length).toBeGreaterThanOrEqual(1);

      const second = await spawnTillServer("serve", env, cwd);
      children.push(second);
      const restartedAt = Date.now();
      await waitFor(
        async () => (await state()).every((s) => s.status !== "confirmed"),
        120_000,
        "no session left confirmed",
      );
      console.log(`resolved ${Date.now() - restartedAt} ms after the restart`);
      const check = async () => {
        const paid = succeededAtStripe();
        for (const s of await state()) {
          if (paid.has(s.id)) expect(s).toMatchObject({ status: "succeeded", orders: 1 });
          else expect(s).toMatchObject({ status: "open", orders: 0 });
        }
      };
      await check();
      // Stripe's held events arrive late, repeated: nothing changes.
      stripe.deliverTo({
        url: `${second.url}/v1/integrations/stripe/webhook`,
        secret: WEBHOOK_SECRET,
      });
      for (const e of stripe.state.events) expect(await stripe.deliver(e)).toBe(200);
      for (const e of stripe.state.events) expect(await stripe.deliver(e)).toBe(200);
      await check();
      second.child.kill("SIGTERM");
      await second.child;
    });
  },
);
