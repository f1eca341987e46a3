// The seat invitation page in a real browser: the mailed link shows what is offered without
// claiming it, the button claims the seat and opens the portal with the holder's session (the token
// gone from the address bar), and the used link says so when opened again.
import { sql } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { launchBrowser } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { openMailLink } from "../test/helpers/browser.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";

let t: TestServer;
let browser: Browser;
let token: string;
let seatId: string;
let link: string;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  token = (await createSeller(t.url, ["products:write", "checkouts:write", "customer_seats:write"]))
    .token;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Team plan",
      recurring_interval: "month",
      prices: [
        {
          amount_type: "seat_based",
          seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: 900 }] },
        },
      ],
    },
  });
  const checkout = await api(t.url, "/v1/checkouts/", {
    token,
    body: { products: [product.body.id], seats: 2 },
  });
  await api(t.url, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: "lead@example.com",
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  const done = await api(t.url, `/v1/checkouts/${checkout.body.id}`, { token });
  const seat = await api(t.url, "/v1/customer-seats", {
    token,
    body: { subscription_id: done.body.subscription_id, email: "mate@example.com" },
  });
  expect(seat.status, JSON.stringify(seat.body)).toBe(200);
  seatId = seat.body.id;
  const [mail] = await t.server.database.rows<{ link: string }>(
    sql`select link from email_outbox where "to" = 'mate@example.com' and kind = 'seat-invitation'`,
  );
  link = openMailLink(mail!.link);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("seat invitation page", () => {
  it("shows the offer, claims on the button and opens the portal as the holder", async () => {
    const page = await browser.newPage();
    await page.goto(link);
    await page.getByRole("heading", { name: "Team plan" }).waitFor();
    expect(await page.textContent("main")).toContain("mate@example.com");
    // Opening the link claimed nothing.
    const before = await api(
      t.url,
      `/v1/customer-seats/claim/${new URL(link).searchParams.get("invitation_token")}`,
    );
    expect(before.status).toBe(200);
    expect(new URL(page.url()).search).toBe("");

    await page.getByRole("button", { name: "Claim your seat" }).click();
    await page.getByRole("status").filter({ hasText: "Your seat is claimed." }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/portal");
    const [row] = await t.server.database.rows<{ status: string }>(
      sql`select status from customer_seats where id = ${seatId}`,
    );
    expect(row!.status).toBe("claimed");

    const again = await browser.newPage();
    await again.goto(link);
    await again.getByRole("alert").waitFor();
    expect(await again.textContent("[role=alert]")).toContain("invalid, already used or expired");
    await page.close();
    await again.close();
  });
});
