// Every seller resource command group against a real server, as CI runs it: TILL_TOKEN, no TTY,
// --json parsed as JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../test/helpers/auth.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { SCOPES } from "../server/lib/scopes.ts";

let t: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(
    t.url,
    [...SCOPES].filter((s) => s.endsWith(":write") || s.endsWith(":read")),
  );
  env = cliEnv(undefined, { TILL_TOKEN: seller.token, TILL_SERVER: t.url });
});
afterAll(() => t.stop());

async function json<T = any>(args: string[], input?: string): Promise<T> {
  const result = await till([...args, "--json"], env, input);
  expect(result.exitCode, `${args.join(" ")}\n${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe("resource commands", { timeout: 120_000 }, () => {
  it("products: create --json and list --json agree; update, archive", async () => {
    const created = await json([
      "products",
      "create",
      "--name",
      "Pro",
      "--price",
      "1500",
      "--recurring",
      "month",
      "--metadata",
      "tier=pro",
    ]);
    expect(created).toMatchObject({
      name: "Pro",
      recurring_interval: "month",
      metadata: { tier: "pro" },
    });
    const list = await json(["products", "list"]);
    expect(list.items.map((p: { id: string }) => p.id)).toContain(created.id);
    expect((await json(["products", "get", created.id])).prices[0].price_amount).toBe(1500);
    expect((await json(["products", "update", created.id, "--name", "Pro 2"])).name).toBe("Pro 2");
    expect((await json(["products", "archive", created.id])).is_archived).toBe(true);
  });

  it("products: a pay-what-you-want price shows its bounds and preset in list and get", async () => {
    const created = await json([
      "products",
      "create",
      "--name",
      "Tip jar",
      "--price-type",
      "custom",
      "--min",
      "100",
      "--preset",
      "500",
    ]);
    const table = await till(["products", "list"], env);
    expect(table.stdout).toMatch(/Tip jar\s+custom \(min 1\.00 USD, preset 5\.00 USD\)\s+one-time/);
    const shown = await till(["products", "get", created.id], env);
    expect(shown.stdout).toContain("custom (min 1.00 USD, preset 5.00 USD)");
    await json([
      "products",
      "create",
      "--name",
      "Capped",
      "--price-type",
      "custom",
      "--min",
      "0",
      "--max",
      "2000",
    ]);
    expect((await till(["products", "list"], env)).stdout).toMatch(
      /Capped\s+custom \(min 0\.00 USD, max 20\.00 USD\)/,
    );
  });

  it("meters and events: a meter with a filter and sum aggregation counts ingested events from flags and NDJSON on stdin", async () => {
    const meter = await json([
      "meters",
      "create",
      "--name",
      "Tokens",
      "--filter",
      "name eq llm.call",
      "--aggregation",
      "sum:tokens",
    ]);
    expect(meter.aggregation).toEqual({ func: "sum", property: "tokens" });
    expect(
      await json([
        "events",
        "ingest",
        "--name",
        "llm.call",
        "--external-customer",
        "cli-user",
        "--metadata",
        "tokens=5",
      ]),
    ).toEqual({ inserted: 1, duplicates: 0 });
    const ndjson = [
      '{"name":"llm.call","external_customer_id":"cli-user","metadata":{"tokens":7}}',
      '{"name":"other","external_customer_id":"cli-user","metadata":{"tokens":100}}',
    ].join("\n");
    expect(await json(["events", "ingest", "--file", "-"], ndjson)).toEqual({
      inserted: 2,
      duplicates: 0,
    });
    const quantities = await json([
      "meters",
      "quantities",
      meter.id,
      "--interval",
      "day",
      "--since",
      "2d",
    ]);
    expect(quantities.total).toBe(12);
    expect((await json(["events", "list"])).items.length).toBe(3);
    // A metered price is listed in major units per unit, as the API's cents would mislead.
    await json([
      "products",
      "create",
      "--name",
      "Per token",
      "--recurring",
      "month",
      "--price-type",
      "metered",
      "--meter",
      meter.id,
      "--unit-amount",
      "0.5",
    ]);
    const table = await till(["products", "list"], env);
    expect(table.stdout).toMatch(/Per token\s+0\.005 USD\/unit\s+month/);
  });

  it("customers: create, get, update, state, list, delete", async () => {
    const c = await json([
      "customers",
      "create",
      "--email",
      "cli@example.com",
      "--name",
      "Cli",
      "--external-id",
      "ext-1",
    ]);
    expect((await json(["customers", "get", c.id])).email).toBe("cli@example.com");
    expect((await json(["customers", "update", c.id, "--name", "Cli Two"])).name).toBe("Cli Two");
    expect((await json(["customers", "state", c.id])).active_subscriptions).toEqual([]);
    expect((await json(["customers", "list", "--email", "cli@example.com"])).items).toHaveLength(1);
    expect(await json(["customers", "delete", c.id])).toEqual({ id: c.id, deleted: true });
  });

  it("discounts and benefits", async () => {
    const d = await json([
      "discounts",
      "create",
      "--name",
      "Launch",
      "--code",
      "LAUNCH",
      "--percent",
      "20",
      "--duration",
      "repeating",
      "--months",
      "3",
      "--max-redemptions",
      "10",
    ]);
    expect(d).toMatchObject({
      type: "percentage",
      basis_points: 2000,
      duration: "repeating",
      duration_in_months: 3,
      max_redemptions: 10,
    });
    expect((await json(["discounts", "list"])).items.map((x: { id: string }) => x.id)).toContain(
      d.id,
    );
    await json(["discounts", "delete", d.id]);
    const b = await json([
      "benefits",
      "create",
      "--type",
      "custom",
      "--description",
      "Priority support",
      "--property",
      "note=Email us",
    ]);
    expect(b).toMatchObject({ type: "custom", properties: { note: "Email us" } });
    expect((await json(["benefits", "list", "--type", "custom"])).items).toHaveLength(1);
  });

  it("checkouts and checkout links; trigger order.paid and subscription.active, then cancel, uncancel, revoke", async () => {
    const product = await json(["products", "create", "--name", "Kit", "--price", "900"]);
    const checkout = await json([
      "checkouts",
      "create",
      "--product",
      product.id,
      "--email",
      "kit@example.com",
    ]);
    expect(checkout.url).toContain(`${t.url}/checkout/till_c_`);
    expect((await json(["checkouts", "get", checkout.id])).status).toBe("open");
    const link = await json([
      "checkout-links",
      "create",
      "--product",
      product.id,
      "--label",
      "Kit link",
    ]);
    expect(link.url).toContain("/buy/till_cl_");
    expect((await json(["checkout-links", "list"])).items).toHaveLength(1);

    const paid = await json(["trigger", "order.paid"]);
    expect(paid.order_id).toBeTruthy();
    expect((await json(["orders", "get", paid.order_id])).status).toBe("paid");
    const sub = await json(["trigger", "subscription.active"]);
    expect(
      (await json(["subscriptions", "list", "--active"])).items.map((s: { id: string }) => s.id),
    ).toContain(sub.subscription_id);
    expect(
      (await json(["subscriptions", "cancel", sub.subscription_id, "--reason", "too_expensive"]))
        .cancel_at_period_end,
    ).toBe(true);
    expect(
      (await json(["subscriptions", "uncancel", sub.subscription_id])).cancel_at_period_end,
    ).toBe(false);
    expect((await json(["subscriptions", "revoke", sub.subscription_id])).status).toBe("canceled");
    // Ended: the list says when, in the past tense.
    const get = await till(["subscriptions", "get", sub.subscription_id], env);
    expect(get.stdout).toMatch(/canceled \(ended \d{4}-\d{2}-\d{2}\)/);
  });

  it("refunds, license keys and webhooks: endpoints, deliveries, redeliver", async () => {
    const paid = await json(["trigger", "order.paid"]);
    const refund = await json(["refunds", "create", "--order", paid.order_id, "--amount", "400"]);
    expect(refund).toMatchObject({ order_id: paid.order_id, amount: 400, status: "succeeded" });
    expect((await json(["refunds", "list", "--order", paid.order_id])).items).toHaveLength(1);
    expect((await json(["license-keys", "list"])).items).toEqual([]);

    const endpoint = await json([
      "webhooks",
      "endpoints",
      "create",
      "--url",
      "http://localhost:9/hooks",
      "--event",
      "order.paid",
    ]);
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await json(["webhooks", "endpoints", "disable", endpoint.id])).enabled).toBe(false);
    const reset = await json(["webhooks", "endpoints", "reset-secret", endpoint.id]);
    expect(reset.secret).not.toBe(endpoint.secret);
    expect(
      (await json(["webhooks", "endpoints", "list"])).items.map((e: { id: string }) => e.id),
    ).toContain(endpoint.id);
    expect(Array.isArray((await json(["webhooks", "deliveries", "list"])).items)).toBe(true);
    await json(["webhooks", "endpoints", "delete", endpoint.id]);
  });

  it("errors: an unknown trigger is a usage error naming the available ones; API errors show Polar's name and exit 1", async () => {
    const unknown = await till(["trigger", "nope.event"], env);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("order.paid");
    const missing = await till(["products", "get", "00000000-0000-4000-8000-000000000000"], env);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("ResourceNotFound");
    const invalid = await till(["products", "create", "--name", "X", "--price", "12.50"], env);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain("minor units");
    // Flags are re-read with zod: a bad value names its flag, exits 2 and sends nothing.
    for (const [flag, value] of [
      ["--recurring", "fortnight"],
      ["--price-type", "bogus"],
      ["--currency", "dollars"],
    ] as const) {
      const bad = await till(
        ["products", "create", "--name", "X", "--price", "900", flag, value],
        env,
      );
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain(`${flag}:`);
    }
    const badUrl = await till(
      [
        "checkouts",
        "create",
        "--product",
        "00000000-0000-4000-8000-000000000000",
        "--success-url",
        "not a url",
      ],
      env,
    );
    expect(badUrl.exitCode).toBe(2);
    expect(badUrl.stderr).toContain("--success-url:");
  });

  it("every command's flags and arguments: a bad value is a usage error naming it, and nothing is sent", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const groups = [
      ["products"],
      ["customers"],
      ["discounts"],
      ["benefits"],
      ["refunds"],
      ["webhooks", "endpoints"],
      ["meters"],
    ];
    const counts = () =>
      Promise.all(
        groups.map(async (g) => (await json([...g, "list"])).pagination.total_count as number),
      );
    const before = await counts();
    const cases: [string[], string][] = [
      [["discounts", "create", "--name", "X", "--percent", "abc"], "--percent:"],
      [["discounts", "create", "--name", "X", "--amount", "5.5"], "--amount:"],
      [
        ["discounts", "create", "--name", "X", "--percent", "10", "--duration", "weekly"],
        "--duration:",
      ],
      [["discounts", "create", "--name", "X", "--percent", "10", "--months", "0"], "--months:"],
      [["discounts", "create", "--name", "X"], "exactly one of --percent and --amount"],
      [
        ["discounts", "create", "--name", "X", "--percent", "10", "--duration", "repeating"],
        "--months: give --months with --duration repeating",
      ],
      [["discounts", "create", "--name", "X", "--percent", "10", "--months", "3"], "--months:"],
      [["benefits", "create", "--type", "bogus", "--description", "X"], "--type:"],
      [["refunds", "create", "--order", id, "--amount", "12.5"], "--amount:"],
      [["refunds", "create", "--order", id, "--amount", "100", "--reason", "bored"], "--reason:"],
      [["license-keys", "update", id, "--status", "lost"], "--status:"],
      [["license-keys", "update", id, "--limit-usage", "0"], "--limit-usage:"],
      [["webhooks", "endpoints", "create", "--url", "ftp://x", "--event", "order.paid"], "--url:"],
      [
        ["webhooks", "endpoints", "create", "--url", "https://x.test", "--event", "paid"],
        "--event:",
      ],
      [["subscriptions", "cancel", id, "--reason", "bored"], "--reason:"],
      [["orgs", "create", "--name", "X", "--slug", "Bad Slug"], "--slug:"],
      [
        ["tokens", "create", "--scope", "products:write", "--expires-in", "30 days"],
        "--expires-in:",
      ],
      [["tokens", "create", "--scope", "everything"], "--scope:"],
      [["products", "list", "--limit", "500"], "--limit:"],
      [["customers", "list", "--page", "0"], "--page:"],
      [["meters", "create", "--name", "X", "--aggregation", "median"], "--aggregation:"],
      [["meters", "create", "--name", "X", "--filter", "name equals x"], "--filter:"],
      [["listen", "--forward-to", "ftp://localhost/hooks"], "--forward-to:"],
      [["listen", "--replay", "1001"], "--replay:"],
      [["trigger", "order.paid", "--override", "nonsense"], "--override:"],
      [["meters", "quantities", id, "--since", "lately"], "--since: expects 30d"],
      [
        ["meters", "quantities", id, "--until", "soon"],
        '--until: expects 30d, 12h, 2w or a timestamp; got "soon"',
      ],
      // Flags that take an id are UUIDs too, each named.
      [
        ["meters", "quantities", id, "--customer", "cus_1"],
        '--customer: must be an id (a UUID), got "cus_1"',
      ],
      [["events", "ingest", "--name", "x", "--customer", "jane"], "--customer:"],
      [["events", "resend", id, "--endpoint", "hook"], "--endpoint:"],
      [
        ["products", "create", "--name", "X", "--price-type", "metered", "--meter", "tokens"],
        "--meter:",
      ],
      [["products", "create", "--name", "X", "--price", "100", "--benefit", "b1"], "--benefit:"],
      [["discounts", "create", "--name", "X", "--percent", "10", "--product", "pro"], "--product:"],
      [["checkouts", "create", "--product", id, "--product", "pro"], "--product:"],
      [["checkouts", "create", "--product", id, "--discount", "LAUNCH20"], "--discount:"],
      [["checkout-links", "create", "--product", "pro"], "--product:"],
      [["refunds", "create", "--order", "ord_1", "--amount", "100"], "--order:"],
      [["refunds", "list", "--order", "ord_1"], "--order:"],
      [["orders", "list", "--customer", "jane@example.com"], "--customer:"],
      [["subscriptions", "list", "--customer", "cus_1"], "--customer:"],
      [["webhooks", "deliveries", "list", "--endpoint", "hook"], "--endpoint:"],
      // Positional arguments: ids are UUIDs as the server reads them, so a typo stops here.
      [["products", "get", "prod_123"], '<id>: must be an id (a UUID), got "prod_123"'],
      [["products", "update", "pro", "--name", "X"], "<id>:"],
      [["products", "archive", "1234"], "<id>:"],
      [["customers", "delete", "jane@example.com"], "<id>:"],
      [["customers", "state", "cus_1"], "<id>:"],
      [["meters", "quantities", "tokens"], "<id>:"],
      [["license-keys", "update", "key_1", "--status", "disabled"], "<id>:"],
      [["license-keys", "validate", ""], "<key>:"],
      [["webhooks", "endpoints", "disable", "hook"], "<id>:"],
      [["webhooks", "redeliver", "evt_1"], "<event-id>:"],
      [["events", "resend", "evt_1"], "<event-id>:"],
      [["subscriptions", "revoke", `${id}x`], "<id>:"],
      [["tokens", "delete", "till_oat_x"], "<id>:"],
      [["orgs", "switch", ""], "<id-or-slug>:"],
      [["api", "put", "/v1/products/"], "<method>: must be one of get, post, patch or delete"],
      [["api", "post", "https://example.com/v1/products/", "-d", "name=X"], "<path>:"],
      [["open", "checkout"], "<id>: the checkout page needs the checkout's id"],
      [["open", "portal", "cus_1"], "<id>:"],
      [["open", "billing"], "<what>:"],
      [["clock", "advance", "soon"], "<when>:"],
      [["trigger", "nope.event"], '<event>: no trigger for "nope.event"'],
      [["fixtures", "run", ""], "<file>:"],
      [["profiles", "use", ""], "<name>:"],
      [["completion", "tcsh"], "<shell>: must be one of bash, zsh or fish"],
    ];
    for (const [args, named] of cases) {
      const bad = await till(args, env);
      expect(bad.exitCode, args.join(" ")).toBe(2);
      expect(bad.stderr, args.join(" ")).toContain(named);
    }
    expect(await counts()).toEqual(before);
  });
});
