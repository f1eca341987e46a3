// Polar's 1.x SDK (`createPolar`, 2026-10) against a real till over the seller's own account:
// organizations, webhook endpoints and their deliveries, metrics with saved dashboards.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPolar } from "polar-sdk-1/2026-10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../server/lib/scopes.ts";
import { createSeller } from "../helpers/auth.ts";
import { eventually } from "../helpers/grants.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let t: TestServer;
let polar: ReturnType<typeof createPolar>;
let organizationId: string;
let receiver: Server;
let received = 0;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [...SCOPES]);
  organizationId = seller.organization.id;
  polar = createPolar({ accessToken: seller.token, baseUrl: t.url });
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  receiver?.close();
  await t?.stop();
});

describe("SDK 1.x: account", () => {
  it("organizations: list, get, update", async () => {
    const listed = await polar.organizations.list({});
    expect(listed.items.map((o) => o.id)).toEqual([organizationId]);
    const org = await polar.organizations.get(organizationId);
    expect(org.id).toBe(organizationId);
    const renamed = await polar.organizations.update(organizationId, { name: "Acme Labs" });
    expect(renamed.name).toBe("Acme Labs");
  });

  it("webhook endpoints and deliveries: create, get, list, update, reset secret, redeliver, delete", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const endpoint = await polar.webhooks.createWebhookEndpoint({
      url: `http://127.0.0.1:${port}/hook`,
      format: "raw",
      events: ["product.created"],
    });
    expect(endpoint.secret).toBeTruthy();
    expect((await polar.webhooks.getWebhookEndpoint(endpoint.id)).url).toContain("/hook");
    expect((await polar.webhooks.listWebhookEndpoints({})).items.map((e) => e.id)).toContain(
      endpoint.id,
    );
    const updated = await polar.webhooks.updateWebhookEndpoint(endpoint.id, {
      events: ["product.created", "product.updated"],
    });
    expect(updated.events).toEqual(["product.created", "product.updated"]);
    const reset = await polar.webhooks.resetWebhookEndpointSecret(endpoint.id);
    expect(reset.secret).not.toBe(endpoint.secret);

    await polar.products.create({
      name: "Announced",
      prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }],
    });
    const delivery = await eventually(
      async () =>
        (await polar.webhooks.listWebhookDeliveries({ endpoint_id: endpoint.id })).items.find(
          (d) => d.succeeded,
        ),
      20_000,
      "a delivery",
    );
    const before = received;
    await polar.webhooks.redeliverWebhookEvent(delivery.webhook_event.id);
    await eventually(async () => received > before || undefined, 20_000, "the redelivery");
    await polar.webhooks.deleteWebhookEndpoint(endpoint.id);
    await expect(polar.webhooks.getWebhookEndpoint(endpoint.id)).rejects.toMatchObject({
      statusCode: 404,
    });
  });

  it("metrics: get, export, limits, and saved dashboards", async () => {
    const range = { start_date: "2026-01-01", end_date: "2026-01-31", interval: "day" as const };
    const metrics = await polar.metrics.get(range);
    expect(metrics.periods).toHaveLength(31);
    expect(metrics.totals).toHaveProperty("revenue");
    expect((await polar.metrics.export(range)).split("\n")[0]).toContain("timestamp");
    const limits = await polar.metrics.limits();
    expect(limits.intervals.day.max_days).toBeGreaterThan(0);

    const dashboard = await polar.metrics.createDashboard({
      name: "Revenue",
      metrics: ["revenue", "orders"],
    });
    expect(dashboard).toMatchObject({ name: "Revenue", metrics: ["revenue", "orders"] });
    expect((await polar.metrics.getDashboard(dashboard.id)).id).toBe(dashboard.id);
    expect((await polar.metrics.listDashboards({})).map((d) => d.id)).toContain(dashboard.id);
    const renamed = await polar.metrics.updateDashboard(dashboard.id, { name: "Money" });
    expect(renamed.name).toBe("Money");
    await polar.metrics.deleteDashboard(dashboard.id);
    await expect(polar.metrics.getDashboard(dashboard.id)).rejects.toMatchObject({
      statusCode: 404,
    });
  });
});
