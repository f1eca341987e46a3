// The customer portal page in a real browser: opened from a customer session's URL (dark theme),
// it drops the token from the address bar, shows the subscription, order and balance, opens a paid
// order's receipt, cancels at period end with a reason and takes the cancellation back, and links
// back to the session's return URL; a page without a token or with an expired one says so; the usage section follows the seller's setting,
// and so do the pause and resume buttons.
import { sql } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { setOrganizationSettings } from "../test/helpers/billing.ts";
import { launchBrowser, screenshotPath } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { openMailLink } from "../test/helpers/browser.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";

let t: TestServer;
let browser: Browser;
let token: string;
let organizationId: string;
let subscriptionId: string;
let customerId: string;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "orders:read",
    "subscriptions:write",
    "customer_sessions:write",
    "organizations:write",
    "meters:write",
    "events:write",
  ]);
  token = seller.token;
  organizationId = seller.organization.id;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Pro plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    },
  });
  const checkout = await api(t.url, "/v1/checkouts/", {
    token,
    body: { products: [product.body.id] },
  });
  const secret = checkout.body.client_secret as string;
  await api(t.url, `/v1/checkouts/client/${secret}`, {
    method: "PATCH",
    body: { customer_email: "portal@example.com", customer_billing_address: US_ADDRESS },
  });
  const confirmed = await api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
    body: { confirmation_token_id: "sandbox_token_success" },
  });
  expect(confirmed.status).toBe(200);
  const orders = await api(t.url, `/v1/orders/?checkout_id=${checkout.body.id}`, { token });
  subscriptionId = orders.body.items[0].subscription_id;
  customerId = orders.body.items[0].customer_id;
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

/** A new customer session's portal URL. */
async function portalUrl(): Promise<string> {
  const session = await api(t.url, "/v1/customer-sessions/", {
    token,
    body: { customer_id: customerId },
  });
  return session.body.customer_portal_url;
}

describe("customer portal page", () => {
  it("shows the subscription and order, cancels with a reason and keeps the subscription again, in the dark theme", async () => {
    const session = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { customer_id: customerId, return_url: "https://shop.example/account" },
    });
    const page = await browser.newPage();
    await page.goto(`${session.body.customer_portal_url}&theme=dark`);
    const card = page.locator(`[data-subscription="${subscriptionId}"]`);
    await card.waitFor();
    // The session's return URL is the way back to the store.
    expect(await page.getAttribute("a.back", "href")).toBe("https://shop.example/account");
    expect(await page.textContent("a.back")).toBe("← Back to Acme");
    expect(page.url()).toBe(`${t.url}/portal?theme=dark`);
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    expect(await page.textContent("h1")).toContain("Acme");
    expect(await card.textContent()).toContain("Pro plan");
    expect(await card.locator(".status").textContent()).toMatch(/^Renews on /);
    expect(await page.locator("table.orders tbody tr").count()).toBe(1);
    expect(await page.locator("table.orders tbody").textContent()).toContain("$15.00");
    // A credit (a downgrade's, written here as one would be) is shown as the customer's balance.
    await t.server.database.rows(
      sql`with w as (
            insert into wallets (organization_id, customer_id, type, currency)
            select organization_id, id, 'billing', 'usd' from customers where id = ${customerId}
            returning id)
          insert into wallet_transactions (wallet_id, amount, reason, reference)
          select id, 250, 'proration_credit', 'portal' from w`,
    );
    await page.reload();
    await page.locator(".wallet").waitFor();
    expect(await page.locator(".wallet").textContent()).toContain("$2.50");
    // Owed (orders below the minimum charge) reads as owed, not as a negative credit.
    await t.server.database.rows(
      sql`insert into wallet_transactions (wallet_id, amount, reason, reference)
          select id, -400, 'order_deferred', 'portal-owed' from wallets where customer_id = ${customerId}`,
    );
    await page.reload();
    await page.locator(".wallet").waitFor();
    expect(await page.locator(".wallet").textContent()).toBe("Owed, added to your next order$1.50");

    await card.locator("button.cancel").click();
    await card.locator("select").selectOption("too_expensive");
    await card.locator("textarea").fill("Cheaper elsewhere");
    await page.screenshot({ path: screenshotPath("portal-cancel-dark") });
    await card.locator("button.confirm-cancel").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Cancels on /);
    const seller = await api(t.url, `/v1/subscriptions/${subscriptionId}`, { token });
    expect(seller.body).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "Cheaper elsewhere",
    });

    // A reload keeps working from the tab's stored token although the URL no longer has it.
    await page.reload();
    await card.locator("button.uncancel").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Renews on /);
    expect(
      (await api(t.url, `/v1/subscriptions/${subscriptionId}`, { token })).body
        .cancel_at_period_end,
    ).toBe(false);

    // A plan change the seller scheduled for the renewal is said on the card.
    const team = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Team plan",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 3000, price_currency: "usd" }],
      },
    });
    const scheduled = await api(t.url, `/v1/subscriptions/${subscriptionId}`, {
      token,
      method: "PATCH",
      body: { product_id: team.body.id, proration_behavior: "next_period" },
    });
    expect(scheduled.status).toBe(200);
    await page.reload();
    await expect
      .poll(() => card.locator(".status").textContent())
      .toMatch(/^Renews on .+ on a new plan you chose$/);
    await api(t.url, `/v1/subscriptions/${subscriptionId}`, {
      token,
      method: "PATCH",
      body: { pending_update: null },
    });
    await page.close();
  });

  it("shows no back link without a return URL, and says what to do when the link has no token or an unknown one", async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/portal`);
    expect(await page.locator("[role=alert]").textContent()).toContain(
      "needs a link from the store",
    );
    // A session without a return URL shows no back link.
    const session = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { customer_id: customerId },
    });
    await page.goto(session.body.customer_portal_url);
    await page.locator(`[data-subscription="${subscriptionId}"]`).waitFor();
    expect(await page.locator("a.back").count()).toBe(0);
    await page.goto(`${t.url}/portal?customer_session_token=till_cst_unknown`);
    await expect.poll(() => page.locator("[role=alert]").textContent()).toContain("expired");
    expect(await page.getAttribute("html", "data-theme")).toBe("light");
    await page.close();
  });

  it("a paid order's receipt opens as a PDF; once the session has expired, the page says so", async () => {
    const page = await browser.newPage();
    await page.goto(await portalUrl());
    const receipt = page.locator("table.orders button.receipt");
    await receipt.waitFor();
    expect(await receipt.getAttribute("aria-label")).toMatch(/^Receipt for Pro plan/);
    const [pdf] = await Promise.all([
      page.waitForResponse((r) => /\/v1\/documents\/.+\/receipt\.pdf/.test(r.url())),
      receipt.click(),
    ]);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toBe("application/pdf");
    await page.close();
    const expiring = await browser.newPage();
    await expiring.goto(await portalUrl());
    const button = expiring.locator("table.orders button.receipt");
    await button.waitFor();
    await t.server.database.rows(
      sql`update customer_sessions set expires_at = now() - interval '1 minute'
          where customer_id = ${customerId}`,
    );
    await button.click();
    await expect.poll(() => expiring.locator("[role=alert]").textContent()).toContain("expired");
    await expiring.close();
  });

  it("an email change link opens the portal with the new address, and says when it is used up", async () => {
    const session = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { customer_id: customerId },
    });
    const asked = await api(t.url, "/v1/customer-portal/customers/me/email-update/request", {
      token: session.body.token,
      body: { email: "portal.new@example.com" },
    });
    expect(asked.status).toBe(202);
    const [mail] = await t.server.database.rows<{ link: string }>(
      sql`select link from email_outbox where "to" = 'portal.new@example.com'`,
    );
    const link = openMailLink(mail!.link);
    expect(link).toMatch(/\/portal\/verify-email\?token=till_cev_/);
    const page = await browser.newPage();
    await page.goto(link);
    await expect
      .poll(() => page.locator("[role=status]").textContent())
      .toContain("email address is updated");
    await expect
      .poll(() => page.locator("header.bar").textContent())
      .toContain("portal.new@example.com");
    expect(page.url()).toBe(`${t.url}/portal`);
    await page.goto(link);
    await expect.poll(() => page.locator("[role=status]").textContent()).toContain("expired");
    await page.close();
  });

  it("shows the usage section unless the seller switches it off", async () => {
    const session = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { customer_id: customerId },
    });
    const page = await browser.newPage();
    await page.goto(session.body.customer_portal_url);
    await page.locator(`[data-subscription="${subscriptionId}"]`).waitFor();
    expect(await page.locator("#usage-h").count()).toBe(1);
    const usage = (show: boolean) =>
      setOrganizationSettings(t.url, { token, organizationId }, "customer_portal_settings", {
        usage: { show },
      });
    await usage(false);
    await page.reload();
    await page.locator(`[data-subscription="${subscriptionId}"]`).waitFor();
    expect(await page.locator("#usage-h").count()).toBe(0);
    await usage(true);
    await page.close();
  });

  it("shows a metered subscription's usage this period and what it adds so far", async () => {
    const meter = await api(t.url, "/v1/meters/", {
      token,
      body: {
        name: "API calls",
        filter: {
          conjunction: "and",
          clauses: [{ property: "name", operator: "eq", value: "call" }],
        },
        aggregation: { func: "count" },
      },
    });
    const product = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Usage plan",
        recurring_interval: "month",
        prices: [
          {
            amount_type: "metered_unit",
            meter_id: meter.body.id,
            unit_amount: "10",
            price_currency: "usd",
          },
        ],
      },
    });
    const checkout = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [product.body.id] },
    });
    const confirmed = await api(
      t.url,
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      {
        body: {
          customer_email: "usage@example.com",
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: "sandbox_token_success",
        },
      },
    );
    expect(confirmed.status).toBe(200);
    const buyer = (await api(t.url, `/v1/orders/?checkout_id=${checkout.body.id}`, { token })).body
      .items[0].customer_id as string;
    const calls = Array.from({ length: 37 }, () => ({ name: "call", customer_id: buyer }));
    expect((await api(t.url, "/v1/events/ingest", { token, body: { events: calls } })).status).toBe(
      200,
    );
    const session = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { customer_id: buyer },
    });
    const page = await browser.newPage();
    await page.goto(session.body.customer_portal_url);
    const row = page.locator(`#usage-h ~ [data-meter="${meter.body.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toBe(
      "API calls · Usage plan37 units this period · $3.70 so far",
    );
    expect(await page.locator("text=No usage to show.").count()).toBe(0);
    await page.close();
  });

  it("offers pause and resume only when the seller allows them; a pending pause shows and can be taken back", async () => {
    const session = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { customer_id: customerId },
    });
    const seller = async () =>
      (await api(t.url, `/v1/subscriptions/${subscriptionId}`, { token })).body;
    const pause = (on: boolean) =>
      setOrganizationSettings(t.url, { token, organizationId }, "customer_portal_settings", {
        subscription: { update_seats: true, update_plan: true, pause: on },
      });
    const page = await browser.newPage();
    await page.goto(session.body.customer_portal_url);
    const card = page.locator(`[data-subscription="${subscriptionId}"]`);
    await card.waitFor();
    // Polar's default: no pausing from the portal.
    expect(await card.locator("button.cancel").count()).toBe(1);
    expect(await card.locator("button.pause, button.resume").count()).toBe(0);

    await pause(true);
    await page.reload();
    // Not beside a plan change being chosen: one change at a time.
    await card.locator("button.change-plan-open").click();
    expect(await card.locator("button.pause").count()).toBe(0);
    await card.getByRole("button", { name: "Keep current plan" }).click();
    await card.locator("button.pause").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Pauses on /);
    expect((await seller()).pause_at_period_end).toBe(true);
    await page.screenshot({ path: screenshotPath("portal-pause-pending") });
    await card.locator("button.unpause").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Renews on /);
    expect((await seller()).pause_at_period_end).toBe(false);

    // Paused at the period end (the sandbox clock moved there), then resumed from the page.
    await card.locator("button.pause").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Pauses on /);
    const advanced = await api(t.url, "/v1/sandbox/clock/advance", {
      token,
      body: { to: (await seller()).current_period_end },
    });
    expect(advanced.status).toBe(200);
    await page.reload();
    await expect.poll(() => card.locator(".status").textContent()).toBe("Paused");
    expect(await card.locator("button.pause, button.cancel").count()).toBe(0);
    await card.locator("button.resume").click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Renews on /);
    expect((await seller()).status).toBe("active");

    await pause(false);
    await page.reload();
    await card.locator("button.cancel").waitFor();
    expect(await card.locator("button.pause, button.resume").count()).toBe(0);
    await page.close();
  });
});
