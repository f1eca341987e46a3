// The Stripe-CLI-style commands against a real server: till api, till fixtures run, till events
// resend and till open portal; discounts update; a product with a trial.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../test/helpers/auth.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { tempDir } from "../test/helpers/process.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { startReceiver, waitFor, type Receiver } from "../test/helpers/webhook-receiver.ts";
import { SCOPES } from "../server/lib/scopes.ts";

let t: TestServer;
let env: Record<string, string>;
let receiver: Receiver;
let endpointSecret = "";

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(
    t.url,
    [...SCOPES].filter((s) => s.endsWith(":write") || s.endsWith(":read")),
  );
  env = cliEnv(undefined, { TILL_TOKEN: seller.token, TILL_SERVER: t.url });
  receiver = await startReceiver({ secretFor: () => endpointSecret, skipParse: true });
});
afterAll(async () => {
  await receiver?.close();
  await t?.stop();
});

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await till([...args, "--json"], env);
  expect(result.exitCode, `${args.join(" ")}\n${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe("till api, fixtures, resend, open", { timeout: 120_000 }, () => {
  it("till api calls any endpoint with -d fields (dots nest) or --data @file.json", async () => {
    const created = await json<{ id: string; name: string; prices: { price_amount: number }[] }>([
      "api",
      "post",
      "/v1/products/",
      "-d",
      "name=Raw",
      "-d",
      "prices.0.amount_type=fixed",
      "-d",
      "prices.0.price_amount=700",
      "-d",
      "metadata.source=api",
    ]);
    expect(created).toMatchObject({ name: "Raw", prices: [{ price_amount: 700 }] });
    const file = path.join(tempDir(), "patch.json");
    writeFileSync(file, JSON.stringify({ name: "Raw 2", description: "from a file" }));
    const patched = await json([
      "api",
      "patch",
      `/v1/products/${created.id}`,
      "--data",
      `@${file}`,
    ]);
    expect(patched).toMatchObject({ name: "Raw 2", description: "from a file" });
    const page = await json<{ items: unknown[] }>(["api", "get", "/v1/products/", "-d", "limit=1"]);
    expect(page.items).toHaveLength(1);
    // A key repeated in a GET filters by each value, not only the last.
    const other = await json<{ id: string }>([
      "api",
      "post",
      "/v1/products/",
      "-d",
      "name=Raw 3",
      "-d",
      "prices.0.amount_type=free",
    ]);
    const both = await json<{ items: { id: string }[] }>([
      "api",
      "get",
      "/v1/products/",
      "-d",
      `id=${created.id}`,
      "-d",
      `id=${other.id}`,
    ]);
    expect(both.items.map((p) => p.id).sort()).toEqual([created.id, other.id].sort());
    // Without --json the answer is still JSON (one line in a pipe).
    const plain = await till(["api", "get", `/v1/products/${created.id}`], env);
    expect(JSON.parse(plain.stdout).id).toBe(created.id);
    const missing = await till(
      ["api", "get", "/v1/products/00000000-0000-4000-8000-000000000000"],
      env,
    );
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("ResourceNotFound");
    expect((await till(["api", "put", "/v1/products/"], env)).exitCode).toBe(2);
    expect((await till(["api", "post", "/v1/products/", "-d", "nokey"], env)).exitCode).toBe(2);
    const twice = await till(["api", "post", "/v1/products/", "-d", "name=x", "-d", "name=y"], env);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain("-d name is given twice");
  });

  it("fixtures run: requests in order, ${name:path} uses earlier answers", async () => {
    const file = path.join(tempDir(), "shop.json");
    writeFileSync(
      file,
      JSON.stringify({
        _meta: { template_version: 0 },
        fixtures: [
          {
            name: "product",
            path: "/v1/products/",
            params: {
              name: "Fixture ${.random:hex}",
              prices: [{ amount_type: "fixed", price_amount: 1200, price_currency: "usd" }],
            },
          },
          {
            name: "checkout",
            method: "post",
            path: "/v1/checkouts/",
            params: {
              products: ["${product:id}"],
              metadata: { price: "${product:prices.0.price_amount}" },
            },
          },
          { name: "again", method: "get", path: "/v1/checkouts/${checkout:id}" },
        ],
      }),
    );
    const out = await json<{ fixtures: { name: string; response: Record<string, unknown> }[] }>([
      "fixtures",
      "run",
      file,
    ]);
    expect(out.fixtures.map((f) => f.name)).toEqual(["product", "checkout", "again"]);
    const [product, checkout, again] = out.fixtures.map((f) => f.response);
    expect(checkout!.product_id).toBe(product!.id);
    // A whole-string reference keeps the value's type.
    expect(checkout!.metadata).toEqual({ price: 1200 });
    expect(again!.id).toBe(checkout!.id);

    const bad = path.join(tempDir(), "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        fixtures: [{ name: "c", path: "/v1/checkouts/", params: { products: ["${nope:id}"] } }],
      }),
    );
    const refused = await till(["fixtures", "run", bad], env);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('refers to no earlier fixture "nope"');
  });

  it("events resend delivers a webhook event again to its endpoint (same webhook-id); --endpoint checks where it went", async () => {
    const endpoint = await json<{ id: string; secret: string }>([
      "webhooks",
      "endpoints",
      "create",
      "--url",
      `${receiver.url}/hooks`,
      "--event",
      "product.created",
    ]);
    endpointSecret = endpoint.secret;
    await json(["trigger", "product.created"]);
    await waitFor(() => receiver.receipts.length === 1, 20_000, "first delivery");
    let eventId = "";
    await waitFor(
      async () => {
        const list = await json<{ items: { webhook_event: { id: string } }[] }>([
          "webhooks",
          "deliveries",
          "list",
          "--endpoint",
          endpoint.id,
        ]);
        eventId = list.items[0]?.webhook_event.id ?? "";
        return eventId !== "";
      },
      10_000,
      "delivery logged",
    );
    const resent = await json(["events", "resend", eventId, "--endpoint", endpoint.id]);
    expect(resent).toMatchObject({ event_id: eventId, resent: true });
    await waitFor(() => receiver.receipts.length === 2, 20_000, "resent delivery");
    expect(receiver.receipts[1]!.id).toBe(receiver.receipts[0]!.id);
    expect(receiver.receipts[1]!.standardOk).toBe(true);
    const other = await json<{ id: string }>([
      "webhooks",
      "endpoints",
      "create",
      "--url",
      `${receiver.url}/other`,
      "--event",
      "order.paid",
    ]);
    const wrong = await till(["events", "resend", eventId, "--endpoint", other.id], env);
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain(`was not sent to endpoint ${other.id}`);
  });

  it("open portal <customer> --json prints a customer portal URL", async () => {
    const customer = await json<{ id: string }>([
      "customers",
      "create",
      "--email",
      "portal@example.com",
    ]);
    const opened = await json<{ url: string }>(["open", "portal", customer.id]);
    expect(opened.url).toMatch(new RegExp(`^${t.url}/`));
    const usage = await till(["open", "portal"], env);
    expect(usage.exitCode).toBe(2);
  });

  it("products create --trial sells a subscription with a free trial, which products get shows", async () => {
    const created = await json<{
      id: string;
      trial_interval: string;
      trial_interval_count: number;
    }>([
      "products",
      "create",
      "--name",
      "Team",
      "--price",
      "4900",
      "--recurring",
      "month",
      "--trial",
      "14d",
    ]);
    expect(created).toMatchObject({ trial_interval: "day", trial_interval_count: 14 });
    const shown = await till(["products", "get", created.id], env);
    expect(shown.stdout).toMatch(/^trial +14 days$/m);
    const oneTime = await till(
      ["products", "create", "--name", "X", "--price", "900", "--trial", "1mo"],
      env,
    );
    expect(oneTime.exitCode).toBe(2);
    expect(oneTime.stderr.trim()).toBe(
      "Error: --trial: only a subscription has a trial: add --recurring <interval>",
    );
  });

  it("discounts update changes the name, code and redemption limit; nothing to change is a usage error", async () => {
    const made = await json<{ id: string }>([
      "discounts",
      "create",
      "--name",
      "Launch",
      "--code",
      "LAUNCH",
      "--percent",
      "10",
    ]);
    const updated = await json([
      "discounts",
      "update",
      made.id,
      "--code",
      "SPRING25",
      "--max-redemptions",
      "200",
    ]);
    expect(updated).toMatchObject({ name: "Launch", code: "SPRING25", max_redemptions: 200 });
    const none = await till(["discounts", "update", made.id], env);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("Nothing to update");
  });
});
