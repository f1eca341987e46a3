// The checkout page's status stream over real HTTP: the status on connect, then every change as it
// commits (open → confirmed → succeeded; back to open after a declined card; expired by the expiry
// job); 404 for an unknown secret and 410 once expired, as the other client endpoints; and a
// graceful shutdown ends open streams.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openSse, type SseClient } from "../../../test/helpers/sse.ts";
import { TestClock } from "../../lib/clock.ts";
import { createSecretBox } from "../../lib/secret-box.ts";
import { expireCheckouts } from "./jobs.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

const clock = new TestClock();
let t: TestServer;
let token: string;
let stopped = false;

beforeAll(async () => {
  t = await startTestServer({ clock });
  token = (await createSeller(t.url, ["products:write", "checkouts:write"])).token;
});
afterAll(async () => {
  if (!stopped) await t.stop();
});

let buyers = 0;

async function openCheckout() {
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Pro plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    },
  });
  expect(product.status).toBe(201);
  const checkout = await api(t.url, "/v1/checkouts/", {
    token,
    body: {
      products: [product.body.id],
      // A new buyer each time: a customer holds one subscription of the organization by default.
      customer_email: `buyer-${++buyers}@example.com`,
      customer_billing_address: US_ADDRESS,
    },
  });
  expect(checkout.status).toBe(201);
  return checkout.body as { id: string; client_secret: string };
}

const stream = (secret: string) => openSse(`${t.url}/v1/checkouts/client/${secret}/stream`, null);
const confirm = (secret: string, tokenId: string) =>
  api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
    body: { confirmation_token_id: tokenId },
  });

function statuses(sse: SseClient): string[] {
  return sse.events.map(
    (e) => (JSON.parse(e.data) as { payload: { status: string } }).payload.status,
  );
}

async function until(sse: SseClient, done: (seen: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  while (!done(statuses(sse))) {
    if (Date.now() > deadline) throw new Error(`stream saw ${JSON.stringify(statuses(sse))}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return statuses(sse);
}

describe("checkout status stream", () => {
  it("sends the status on connect, then confirmed and succeeded as a confirm commits them, in Polar's event shape", async () => {
    const c = await openCheckout();
    const sse = await stream(c.client_secret);
    try {
      expect(sse.status).toBe(200);
      expect(await until(sse, (s) => s.length >= 1)).toEqual(["open"]);
      expect((await confirm(c.client_secret, "sandbox_token_success")).status).toBe(200);
      expect(await until(sse, (s) => s.includes("succeeded"))).toEqual([
        "open",
        "confirmed",
        "succeeded",
      ]);
      const first = JSON.parse(sse.events[0]!.data) as Record<string, unknown>;
      expect(Object.keys(first).sort()).toEqual(["id", "key", "payload"]);
      expect(first.key).toBe("checkout.updated");
      expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
      // A stream opened after the payment starts at its outcome.
      const late = await stream(c.client_secret);
      expect(await until(late, (s) => s.length >= 1)).toEqual(["succeeded"]);
      late.close();
    } finally {
      sse.close();
    }
  });

  it("goes back to open after a declined card, then on to succeeded with a good one", async () => {
    const c = await openCheckout();
    const sse = await stream(c.client_secret);
    try {
      await until(sse, (s) => s.length >= 1);
      const declined = await confirm(c.client_secret, "sandbox_token_declined");
      expect(declined.status).toBe(400);
      expect(await until(sse, (s) => s.length >= 3)).toEqual(["open", "confirmed", "open"]);
      expect((await confirm(c.client_secret, "sandbox_token_success")).status).toBe(200);
      expect(await until(sse, (s) => s.includes("succeeded"))).toEqual([
        "open",
        "confirmed",
        "open",
        "confirmed",
        "succeeded",
      ]);
    } finally {
      sse.close();
    }
  });

  it("sends expired when the expiry job expires the session; an expired or unknown secret is answered like the other client endpoints", async () => {
    const c = await openCheckout();
    const sse = await stream(c.client_secret);
    const day = 24 * 3600_000 + 1000;
    try {
      await until(sse, (s) => s.length >= 1);
      clock.advance(day);
      expect(
        await expireCheckouts({
          db: t.server.database.db,
          clock,
          config: t.config,
          secretBox: createSecretBox(t.config.authSecret),
        }),
      ).toBeGreaterThanOrEqual(1);
      expect(await until(sse, (s) => s.includes("expired"))).toEqual(["open", "expired"]);
      const gone = await fetch(`${t.url}/v1/checkouts/client/${c.client_secret}/stream`);
      expect(gone.status).toBe(410);
      expect(await gone.json()).toEqual({
        error: "ExpiredCheckoutError",
        detail: "This checkout session has expired.",
      });
    } finally {
      clock.advance(-day);
      sse.close();
    }
    const unknown = await fetch(`${t.url}/v1/checkouts/client/till_c_nope/stream`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: "ResourceNotFound",
      detail: "Checkout not found.",
    });
  });

  it("is ended by the server's graceful shutdown", async () => {
    const c = await openCheckout();
    const sse = await stream(c.client_secret);
    await until(sse, (s) => s.length >= 1);
    stopped = true;
    await t.stop();
    await expect(
      Promise.race([
        sse.ended.then(() => "ended"),
        new Promise((r) => setTimeout(() => r("still open"), 5000)),
      ]),
    ).resolves.toBe("ended");
  });
});
