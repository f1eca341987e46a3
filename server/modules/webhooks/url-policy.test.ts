// Production URL rules, at creation and at delivery time: HTTPS only; no loopback, private,
// link-local, metadata or reserved addresses, whether written literally or behind a DNS name; and a
// name that resolves to a public address when saved but to 127.0.0.1 later (DNS rebinding) is
// refused at connection time, without a connection to the internal address ever being made.
import net from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startDnsServer, type DnsServer } from "../../../test/helpers/dns-server.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { systemClock } from "../../lib/clock.ts";
import { recordEvent } from "./outbox.ts";
import { isBlockedAddress } from "./url-policy.ts";

let prod: TestServer;
let dns: DnsServer;
beforeAll(async () => {
  dns = await startDnsServer({
    "hooks.seller.test": "93.184.215.14",
    "internal.seller.test": "10.0.0.7",
    "rebind.seller.test": "93.184.215.14",
  });
  prod = await startTestServer({
    env: {
      TILL_MODE: "production",
      AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
      WEBHOOK_DNS_SERVERS: dns.address,
      WEBHOOK_TIMEOUT_MS: "2000",
    },
  });
});
afterAll(async () => {
  await prod.stop();
  await dns.close();
});

describe("webhook URL policy in production mode", () => {
  it("the test server really runs in production mode", () => {
    expect(prod.config.mode).toBe("production");
  });

  it("refuses http, loopback, private, link-local, metadata and reserved targets with a 422 on body.url, and saves nothing", async () => {
    const { organization, token } = await createSeller(prod.url, ["webhooks:write"]);
    for (const url of [
      "http://hooks.seller.test/x",
      "https://localhost/x",
      "https://localhost./hook",
      "https://LocalHost./hook",
      "https://app.localhost../x",
      "https://metadata.google.internal./x",
      "https://app.localhost/x",
      "https://127.0.0.1/x",
      "https://10.1.2.3/x",
      "https://172.16.0.1/x",
      "https://192.168.1.1/x",
      "https://169.254.169.254/latest/meta-data",
      "https://100.100.100.200/x",
      "https://[::1]/x",
      "https://[::ffff:127.0.0.1]/x",
      "https://[fd00:ec2::254]/x",
      "https://[fe80::1]/x",
      "https://0.0.0.0/x",
      "https://metadata.google.internal/x",
      "https://internal.seller.test/x",
    ]) {
      const res = await api(prod.url, "/v1/webhooks/endpoints", {
        token,
        body: { url, format: "raw", events: [] },
      });
      expect(res.status, url).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "url"]);
    }
    const [row] = await prod.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_endpoints where organization_id = ${organization.id}`,
    );
    expect(row!.n).toBe(0);
    const ok = await api(prod.url, "/v1/webhooks/endpoints", {
      token,
      body: { url: "https://hooks.seller.test/x", format: "raw", events: [] },
    });
    expect(ok.status).toBe(201);
    const patch = await api(prod.url, `/v1/webhooks/endpoints/${ok.body.id}`, {
      method: "PATCH",
      token,
      body: { url: "https://127.0.0.1/x" },
    });
    expect(patch.status).toBe(422);
  });

  it("a name that turns private after it was saved (DNS rebinding) is refused at delivery; no connection is made", async () => {
    const { organization, token } = await createSeller(prod.url, ["webhooks:write"]);
    let connections = 0;
    const internal = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => internal.listen(0, "127.0.0.1", () => r()));
    const port = (internal.address() as net.AddressInfo).port;
    try {
      const ep = await api(prod.url, "/v1/webhooks/endpoints", {
        token,
        body: {
          url: `https://rebind.seller.test:${port}/hook`,
          format: "raw",
          events: ["order.paid"],
        },
      });
      expect(ep.status).toBe(201);
      dns.records.set("rebind.seller.test", "127.0.0.1");
      await inTransaction(prod.server.database.db, (tx) =>
        recordEvent(tx, systemClock, {
          organizationId: organization.id,
          type: "order.paid",
          data: { id: "x" },
        }),
      );
      const log = () =>
        api(prod.url, `/v1/webhooks/deliveries?endpoint_id=${ep.body.id}`, { token });
      await waitFor(
        async () => (await log()).body.items.length >= 1,
        10_000,
        "an attempt is logged",
      );
      const [delivery] = (await log()).body.items;
      expect(delivery).toMatchObject({ succeeded: false, http_code: null });
      expect(delivery.response).toContain("127.0.0.1");
      expect(delivery.response).toMatch(/private or reserved/);
      expect(connections).toBe(0);
      expect(dns.queries).toContain("rebind.seller.test");
    } finally {
      internal.close();
    }
  });

  it("classifies addresses", () => {
    for (const a of [
      "127.0.0.1",
      "10.0.0.1",
      "169.254.169.254",
      "::1",
      "fe80::1",
      "fc00::1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a00:1",
      "224.0.0.1",
      "not-an-ip",
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"])
      expect(isBlockedAddress(a), a).toBe(false);
  });
});
