// Contract conformance: every GET of Polar's contract that till serves is called on an organization
// seeded with a resource of every kind (test/helpers/tenant-seed.ts), and each 200 answer is
// validated against the contract's JSON schema for it (ajv, JSON Schema 2020-12 as OpenAPI 3.1
// uses, with formats). A field missing, mistyped or outside its enum fails the test with the
// operation and the schema path. The contract's unions are validated as anyOf rather than oneOf:
// some of its variants overlap (a repeating discount also satisfies the once/forever shapes), so an
// answer may match two of them by the contract's own fault.
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import ajv2020, { type ErrorObject } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/auth.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { openMailLink } from "../helpers/browser.ts";
import { seedTenant, type Tenant } from "../helpers/tenant-seed.ts";

interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
const text = readFileSync(new URL("./polar-openapi-2026-10.json", import.meta.url), "utf8");
const contract = JSON.parse(text.replaceAll('"oneOf":', '"anyOf":')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

// Required query parameters the seed cannot guess.
const QUERIES: Record<string, string> = {
  "/v1/meters/{id}/quantities":
    "?start_timestamp=2026-01-01T00:00:00Z&end_timestamp=2026-02-01T00:00:00Z&interval=day",
  "/v1/metrics/": "?start_date=2026-01-01&end_date=2026-02-01&interval=day",
  "/v1/customer-portal/meters/{id}/quantities":
    "?start_timestamp=2026-01-01T00:00:00Z&end_timestamp=2026-02-01T00:00:00Z&interval=day",
};
// Required query parameters that name a seeded resource.
const SEEDED_QUERIES: Record<string, (ids: Record<string, string>) => string> = {
  "/v1/customer-seats": (ids) => `?subscription_id=${ids["seat-subscription"]}`,
};

/** The path with every parameter replaced by the seed's id for it; null when it has none. */
function fill(path: string, ids: Record<string, string>): string | null {
  const segments = path.split("/");
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (!s.startsWith("{")) {
      out.push(s);
      continue;
    }
    const key = [3, 2, 1]
      .map((n) => `${segments.slice(i - n, i).join("/")}/${s}`)
      .find((k) => ids[k] !== undefined);
    if (!key) return null;
    out.push(encodeURIComponent(ids[key]!));
  }
  return out.join("/");
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 4)
    .map((e) => `${e.instancePath || "/"} ${e.message} (${e.schemaPath})`)
    .join("; ");
}

let t: TestServer;
let owner: Tenant;
beforeAll(async () => {
  t = await startTestServer();
  owner = await seedTenant(t, "Owner");
}, 180_000);
afterAll(() => t?.stop());

describe("contract conformance", () => {
  it("every served GET answers 200 with a body that validates against the contract's schema", async () => {
    // Both packages are CommonJS: under Node's ESM the default import is module.exports, which
    // carries the class and the plugin again as `.default` (the name their types know them by).
    const ajv = new ajv2020.default({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    // Pydantic's own format names in Polar's document.
    ajv.addFormat(
      "uuid4",
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i,
    );
    ajv.addFormat("ipvanyaddress", true);
    ajv.addFormat("color", true);
    ajv.addSchema({ $id: "contract", components: contract.components });
    // Documents exist once asked for; the portal's organization is named by its slug.
    const ids = { ...owner.ids };
    const org = await api(t.url, `/v1/organizations/${owner.organizationId}`, {
      token: owner.token,
    });
    ids["organizations/{slug}"] = org.body.slug;
    const checkout = await api(t.url, `/v1/checkouts/${ids["checkouts/{id}"]}`, {
      token: owner.token,
    });
    ids["client/{client_secret}"] = checkout.body.client_secret;
    // A seat invitation's token exists only in the mail that carried it.
    const [mail] = await t.server.database.rows<{ link: string }>(
      sql`select link from email_outbox where "to" = 'owner-seat@example.com'
          and kind = 'seat-invitation' order by created_at desc limit 1`,
    );
    ids["claim/{invitation_token}"] = new URL(openMailLink(mail!.link)).searchParams.get(
      "invitation_token",
    )!;
    const invoice = await api(t.url, `/v1/orders/${ids["orders/{id}"]}/invoice`, {
      method: "POST",
      token: owner.token,
    });
    expect(invoice.status).toBeLessThan(300);
    const failures: string[] = [];
    const answers = new Map<string, unknown>();
    const validated: string[] = [];
    const other: string[] = [];
    for (const [path, item] of Object.entries(contract.paths)) {
      const op = item.get;
      const schema = op?.responses?.["200"]?.content?.["application/json"]?.schema;
      if (!op || !schema) continue;
      const filled = fill(path, ids);
      if (filled === null) {
        other.push(`${path}: no seeded id`);
        continue;
      }
      const portal = path.startsWith("/v1/customer-portal/");
      const query = QUERIES[path] ?? SEEDED_QUERIES[path]?.(ids) ?? "";
      const res = await api(t.url, filled + query, {
        token: portal ? owner.customerSessionToken : owner.token,
      });
      if (res.status !== 200) {
        other.push(`${path}: ${res.status}`);
        continue;
      }
      const ref = JSON.stringify(schema).replaceAll('"#/components', '"contract#/components');
      const validate = ajv.compile(JSON.parse(ref) as object);
      answers.set(path, res.body);
      if (validate(res.body)) validated.push(path);
      else failures.push(`GET ${path}: ${describeErrors(validate.errors)}`);
    }
    process.stdout.write(
      `conformance: ${validated.length} GET answers validated against the contract; ` +
        `${other.length} not checked:\n  ${other.join("\n  ")}\n`,
    );
    expect(failures).toEqual([]);
    expect(validated.length).toBeGreaterThan(60);
    // The schemas bite: a product without its name, or with a price amount as text, is refused.
    const product = answers.get("/v1/products/{id}") as Record<string, any>;
    const productSchema = { $ref: "contract#/components/schemas/Product" };
    expect(ajv.validate(productSchema, product)).toBe(true);
    const { name: _, ...nameless } = product;
    expect(ajv.validate(productSchema, nameless)).toBe(false);
    const textual = structuredClone(product);
    textual.prices[0].price_amount = String(textual.prices[0].price_amount);
    expect(ajv.validate(productSchema, textual)).toBe(false);
  }, 300_000);
});
