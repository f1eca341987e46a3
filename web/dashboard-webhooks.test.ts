// Webhook deliveries in a real browser against a real server and worker, sending to a real local
// HTTP endpoint: an endpoint added in the dashboard receives product.created; its delivery shows
// the request (type, payload) and the response (status, body) with attempts and time; Redeliver
// sends the same event again, which the endpoint receives a second time under the same webhook-id.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../test/helpers/auth.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import {
  axeViolations,
  DESKTOP,
  PHONE,
  signedInDashboard,
  type DashboardSession,
} from "../test/helpers/dashboard.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { startReceiver, waitFor, type Receiver } from "../test/helpers/webhook-receiver.ts";

let t: TestServer;
let browser: Browser;
let receiver: Receiver;
let s: DashboardSession;
let page: Page;
/** Each endpoint's signing secret, by the receiver path it points at. */
const secrets = new Map<string, string>();

beforeAll(async () => {
  [t, browser, receiver] = await Promise.all([
    startTestServer(),
    launchBrowser(),
    startReceiver({
      secretFor: (path) => secrets.get(path),
      // "/down" plays an endpoint that fails: every attempt gets a 503.
      respond: (r) => (r.path === "/down" ? 503 : 200),
      skipParse: true,
    }),
  ]);
  s = await signedInDashboard(t.url, browser);
  page = s.page;
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await receiver?.close();
});

const received = () => receiver.receipts.filter((r) => r.path === "/hooks");

describe("webhook deliveries", () => {
  it("adds an endpoint that receives product.created, signed", async () => {
    await page.goto(`${t.url}/webhooks`);
    await page.click("button:has-text('New endpoint')");
    await page.getByLabel("URL", { exact: true }).fill(`${receiver.url}/hooks`);
    await page.getByLabel("Name", { exact: true }).fill("Local");
    await page.getByLabel("product.created").check();
    await page.click("button:has-text('Add endpoint')");
    await page.waitForSelector("h2:has-text('Local')");
    const endpoints = await api(t.url, "/v1/webhooks/endpoints", { token: s.token });
    secrets.set("/hooks", endpoints.body.items[0].secret);
    const created = await api(t.url, "/v1/products/", {
      token: s.token,
      body: { name: "Pro", prices: [{ amount_type: "fixed", price_amount: 1500 }] },
    });
    expect(created.status).toBe(201);
    await waitFor(() => received().length === 1, 15_000, "first delivery");
    expect(received()[0]).toMatchObject({ status: 200, standardOk: true });
    // The attempt is recorded after the endpoint has answered: wait for the record, not the
    // receipt, before the page reads the log.
    await waitFor(
      async () =>
        (
          await api(t.url, `/v1/webhooks/deliveries?endpoint_id=${endpoints.body.items[0].id}`, {
            token: s.token,
          })
        ).body.items.length === 1,
      15_000,
      "first delivery recorded",
    );
  });

  it("shows the delivery's request and response, its attempts and time", async () => {
    await page.click("button:has-text('Deliveries')");
    const entry = page.locator("li.delivery", { hasText: "product.created" });
    await entry.waitFor();
    expect(await entry.locator("summary").textContent()).toMatch(
      /product\.created\s*HTTP 200\s*1 attempt · last \w+/,
    );
    await entry.locator("summary").click();
    const [payload, response] = await entry.locator("pre.payload").allTextContents();
    expect(JSON.parse(payload!)).toMatchObject({ type: "product.created", data: { name: "Pro" } });
    expect(response).toBe("ok");
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      expect(await axeViolations(page)).toEqual([]);
    }
    await snapshot(page, "dashboard-webhook-delivery-phone", { fullPage: true });
    await page.setViewportSize(DESKTOP);
  });

  it("Redeliver sends the same event again; the endpoint gets it twice and the log shows two attempts", async () => {
    const entry = page.locator("li.delivery", { hasText: "product.created" });
    await entry.locator("button", { hasText: "Redeliver" }).click();
    await waitFor(() => received().length === 2, 15_000, "redelivery");
    const [first, second] = received();
    expect(second!.id).toBe(first!.id);
    expect(second!.body).toBe(first!.body);
    expect(second).toMatchObject({ status: 200, standardOk: true });
    // The page looks again by itself after a redelivery.
    await expect
      .poll(() => entry.locator("summary").textContent(), { timeout: 10_000 })
      .toContain("2 attempts");
    expect(await entry.locator("ol.attempts > li").count()).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
  });

  it("a failed delivery shows the status the endpoint answered and its body", async () => {
    const down = await api(t.url, "/v1/webhooks/endpoints", {
      token: s.token,
      body: {
        url: `${receiver.url}/down`,
        name: "Down",
        format: "raw",
        events: ["product.updated"],
      },
    });
    expect(down.status).toBe(201);
    secrets.set("/down", down.body.secret);
    const products = await api(t.url, "/v1/products/", { token: s.token });
    await api(t.url, `/v1/products/${products.body.items[0].id}`, {
      method: "PATCH",
      token: s.token,
      body: { name: "Pro Max" },
    });
    await waitFor(
      () => receiver.receipts.some((r) => r.path === "/down"),
      15_000,
      "failed delivery",
    );
    await page.reload();
    const card = page.locator("section.card", { hasText: "Down" });
    await card.locator("button", { hasText: "Deliveries" }).click();
    const entry = card.locator("li.delivery", { hasText: "product.updated" });
    await expect.poll(() => entry.locator("summary").textContent()).toContain("HTTP 503");
    await entry.locator("summary").click();
    expect(await entry.locator("ol.attempts > li").first().textContent()).toContain("HTTP 503");
    expect(await entry.locator("ol.attempts pre.payload").first().textContent()).toBe("ok");
    expect(await axeViolations(page)).toEqual([]);
  });
});
