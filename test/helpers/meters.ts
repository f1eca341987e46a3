// The tenants and usage of the meter suites: a seller with Alice as a customer and six ingested
// events from March 2026 (api calls with tokens, model, region and cached metadata, one for Bob by
// external id, a login and one with text for tokens), another organization, and the api_call
// filter and March window most meters read. Each suite file gets its own.
import type { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll } from "vitest";
import { createSeller } from "./auth.ts";
import { polarClient } from "./polar.ts";
import { startTestServer, type TestServer } from "./server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
export let t: TestServer;
export let seller: Seller;
export let other: Seller;
export let polar: Polar;
export let alice: string;

/** Registers the suite's server, the two organizations, Alice and the events. */
export function withMeterEvents(): void {
  beforeAll(async () => {
    t = await startTestServer();
    seller = await createSeller(t.url, ["customers:write", "events:write", "meters:write"]);
    other = await createSeller(t.url, ["meters:write"]);
    polar = polarClient(t, seller.token);
    alice = (await polar.customers.create({ email: "alice@example.com", externalId: "usr_alice" }))
      .id;
    const ev = (
      name: string,
      at: string,
      metadata: Record<string, string | number | boolean>,
      who: { customerId: string } | { externalCustomerId: string } = { customerId: alice },
    ) => ({
      name,
      timestamp: new Date(at),
      metadata,
      ...who,
    });
    await polar.events.ingest({
      events: [
        ev("api_call", "2026-03-01T08:00:00Z", {
          tokens: 10,
          model: "gpt-small",
          region: "eu",
          cached: false,
        }),
        ev("api_call", "2026-03-01T23:30:00Z", {
          tokens: 20,
          model: "gpt-large",
          region: "us",
          cached: true,
        }),
        ev("api_call", "2026-03-02T12:00:00Z", {
          tokens: 5,
          model: "gpt-small",
          region: "eu",
          cached: false,
        }),
        ev(
          "api_call",
          "2026-03-03T12:00:00Z",
          { tokens: 7, model: "gpt-small", region: "eu" },
          { externalCustomerId: "usr_bob" },
        ),
        ev("login", "2026-03-01T09:00:00Z", { tokens: 1000 }),
        ev("api_call", "2026-03-01T10:00:00Z", { tokens: "many" }),
      ],
    });
  });
  afterAll(() => t?.stop());
}

export const apiCalls = {
  conjunction: "and" as const,
  clauses: [{ property: "name", operator: "eq" as const, value: "api_call" }],
};
export const march = {
  startTimestamp: new Date("2026-03-01T00:00:00Z"),
  endTimestamp: new Date("2026-03-03T23:59:59Z"),
  interval: "day" as const,
};
