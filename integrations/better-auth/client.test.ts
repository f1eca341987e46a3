// The client plugin in a real browser on a seller's app (another origin than till): the signed-in
// customer calls authClient.checkoutEmbed({slug}), pays inside till's overlay with the sandbox card,
// lands on the success URL, then authClient.customer.portal() takes them to the portal page, where
// the subscription is listed. An error answer makes checkoutEmbed throw the server's message.
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { launchBrowser, screenshotPath } from "../../test/helpers/chromium.ts";
import { US_ADDRESS } from "../../test/helpers/addresses.ts";
import { fillAddress } from "../../test/helpers/checkout-page.ts";
import { startSellerApp, type SellerApp } from "../../test/helpers/seller-app.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { till } from "./server.ts";

let t: TestServer;
let app: SellerApp;
let browser: Browser;
let token: string;
const pageErrors: string[] = [];

async function bundleClient(): Promise<string> {
  const out = await build({
    configFile: false,
    logLevel: "silent",
    // A seller's bundler does the same: no `process` in the browser.
    define: { "process.env.NODE_ENV": JSON.stringify("production"), "process.env": "{}" },
    build: {
      write: false,
      minify: false,
      lib: {
        entry: new URL("../../test/helpers/seller-app-client-entry.ts", import.meta.url).pathname,
        formats: ["iife"],
        name: "SellerAppClient",
      },
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as {
    output: { type: string; code?: string }[];
  }[];
  return outputs[0]!.output.find((o) => o.type === "chunk")!.code!;
}

beforeAll(async () => {
  let clientJs: string;
  [t, browser, clientJs] = await Promise.all([
    startTestServer({ worker: false }),
    launchBrowser(),
    bundleClient(),
  ]);
  token = (
    await createSeller(t.url, [
      "products:write",
      "customers:write",
      "checkouts:write",
      "customer_sessions:write",
      "subscriptions:read",
      "orders:read",
    ])
  ).token;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Pro plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    },
  });
  const page = (html: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>${html}<script src="/client.js"></script></body></html>`;
  app = await startSellerApp(
    () => [
      till({
        serverUrl: t.url,
        accessToken: token,
        products: [{ productId: product.body.id, slug: "pro" }],
        createCustomerOnSignUp: true,
        successUrl: "/thanks?checkout={CHECKOUT_ID}",
        theme: "dark",
      }),
    ],
    (req, res) => {
      const routes: Record<string, [string, string]> = {
        "/": ["text/html", page("<h1>Shop</h1>")],
        "/thanks": ["text/html", page("<h1>Thanks for your order</h1>")],
        "/client.js": ["text/javascript", clientJs],
      };
      const hit = routes[(req.url ?? "/").split("?")[0]!];
      if (!hit) return false;
      res.writeHead(200, { "content-type": `${hit[0]}; charset=utf-8` }).end(hit[1]);
      return true;
    },
  );
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await t?.stop();
});

async function signedInPage(email: string): Promise<Page> {
  const page = await browser.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(app.url);
  await page.waitForFunction(() => "authClient" in window);
  const res = await page.evaluate(
    (e) =>
      (window as any).authClient.signUp.email({
        email: e,
        password: "correct horse battery",
        name: "Browser Buyer",
      }),
    email,
  );
  expect(res.error).toBeNull();
  return page;
}

describe("tillClient() in the browser", () => {
  it("checkoutEmbed opens the overlay, the purchase goes through, and the portal shows the subscription", async () => {
    const page = await signedInPage("overlay@shop.example");
    await page.evaluate(
      () => void (window as any).authClient.checkoutEmbed({ slug: "pro", referenceId: "team-1" }),
    );
    await page.waitForSelector("iframe[title=Checkout]");
    const checkoutFrame = () => page.frames().find((f) => f.url().includes("/checkout/"));
    await expect.poll(checkoutFrame, { timeout: 15_000 }).toBeTruthy();
    const frame = checkoutFrame()!;
    expect(new URL(frame.url()).searchParams.get("theme")).toBe("dark");
    await frame.waitForSelector("#card-number");
    // The signed-in user's email is already on the checkout.
    expect(await frame.inputValue("#email")).toBe("overlay@shop.example");
    await fillAddress(frame, US_ADDRESS);
    await frame.fill("#card-number", "4242 4242 4242 4242");
    await frame.fill("#card-expiry", "12/34");
    await frame.fill("#card-cvc", "123");
    await frame.click("button.pay");
    await page.waitForURL(/\/thanks\?checkout=/, { timeout: 15_000 });
    expect(await page.textContent("h1")).toBe("Thanks for your order");

    await page.waitForFunction(() => "authClient" in window);
    await page.evaluate(() => void (window as any).authClient.customer.portal());
    await page.waitForURL(new RegExp(`^${t.url}/portal`), { timeout: 15_000 });
    await page.waitForSelector("[data-subscription]");
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    expect(await page.textContent("[data-subscription]")).toContain("Pro plan");
    await page.screenshot({ path: screenshotPath("seller-app-portal") });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("checkoutEmbed throws the server's message and opens nothing when the checkout is refused", async () => {
    const page = await signedInPage("refused@shop.example");
    const message = await page.evaluate(() =>
      (window as any).authClient.checkoutEmbed({ slug: "enterprise" }).then(
        () => "opened",
        (e: Error) => e.message,
      ),
    );
    expect(message).toBe('No product with the slug "enterprise".');
    expect(await page.locator("iframe").count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
