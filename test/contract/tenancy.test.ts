// Tenancy over every route, from the route tables rather than from memory: each operation that names
// a resource by id, from Polar's contract, till's own document (server/openapi) and the routes the
// running server's API routers were given (lib/api-router.ts records them, so a route nobody
// described is tried too), is called with another organization's token (a customer of another
// organization for the customer portal) and a real id of the first organization. Every one must
// answer 404 and change nothing. An operation till serves whose id the seed does not know fails the
// test, so a new route is covered by adding one line to the seed, not a new test.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordedRoutes } from "../../server/lib/api-router.ts";
import { operations as tillOperations } from "../../server/openapi/operations.ts";
import { api } from "../helpers/auth.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { seedTenant, type Tenant } from "../helpers/tenant-seed.ts";

const contract = JSON.parse(
  readFileSync(new URL("./polar-openapi-2026-10.json", import.meta.url), "utf8"),
) as {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
};
const METHODS = ["get", "post", "patch", "put", "delete"] as const;

// Operations whose parameter is not a tenant's resource id: public by secret or slug, or owned
// by a user rather than an organization.
const NOT_TENANT_IDS = [
  /^\/v1\/checkouts\/client\/\{[^}]+\}/,
  /^\/v1\/customer-portal\/organizations\/\{slug\}$/,
  /^\/v1\/customer-seats\/claim\/\{invitation_token\}$/,
  /^\/v1\/oauth2\//,
  // Signed URLs and a checkout link's secret: the signature or secret is the credential.
  /^\/v1\/storage\//,
  /^\/v1\/downloads\//,
  /^\/v1\/documents\//,
  /^\/v1\/buy\//,
  // A signed-in user's own: an organization token is refused before the id is read, and
  // tokens.test.ts, stream.test.ts and cli/logs.test.ts try them with another organization's user.
  /^\/v1\/organization-access-tokens\/\{id\}$/,
  /^\/v1\/cli\/listen\//,
  /^\/v1\/cli\/logs\//,
];

// Bodies that pass validation, so that the answer is about the id and not about the body.
const BODIES: Record<string, unknown> = {
  "PATCH /v1/organizations/{id}": { name: "Renamed" },
  "PATCH /v1/subscriptions/{id}": { cancel_at_period_end: true },
  "PATCH /v1/benefits/{id}": { type: "license_keys", description: "Renamed" },
  "PATCH /v1/webhooks/endpoints/{id}": { url: "https://example.org/elsewhere" },
  "PATCH /v1/products/{id}": { name: "Renamed" },
  "POST /v1/products/{id}/benefits": { benefits: [] },
  "PATCH /v1/orders/{id}": { billing_name: "Renamed" },
  "PATCH /v1/checkouts/{id}": { customer_email: "other@example.com" },
  "PATCH /v1/license-keys/{id}": { status: "revoked" },
  "PATCH /v1/checkout-links/{id}": { label: "Renamed" },
  "PATCH /v1/custom-fields/{id}": { type: "text", name: "Renamed" },
  "POST /v1/files/{id}/uploaded": {
    id: "upload",
    path: "path",
    parts: [{ number: 1, checksum_etag: "etag", checksum_sha256_base64: null }],
  },
  "PATCH /v1/discounts/{id}": { name: "Renamed" },
  "PATCH /v1/customers/{id}": { name: "Renamed" },
  "PATCH /v1/customers/external/{external_id}": { name: "Renamed" },
  "POST /v1/customers/{id}/members": { email: "intruder@example.com" },
  "POST /v1/customers/external/{external_id}/members": { email: "intruder@example.com" },
  "PATCH /v1/event-types/{id}": { label: "Renamed" },
  "PATCH /v1/meters/{id}": { name: "Renamed" },
  "PATCH /v1/metrics/dashboards/{id}": { name: "Renamed" },
  "PATCH /v1/files/{id}": { name: "renamed.png" },
  "PATCH /v1/customer-portal/subscriptions/{id}": { cancel_at_period_end: true },
  "PATCH /v1/customer-portal/orders/{id}": { billing_name: "Renamed" },
  "POST /v1/customer-portal/orders/{id}/confirm-payment": { confirmation_token_id: "tok_any" },
  "PATCH /v1/customer-portal/benefit-grants/{id}": { benefit_type: "license_keys" },
};

const QUERIES: Record<string, string> = {
  "GET /v1/meters/{id}/quantities":
    "?start_timestamp=2026-01-01T00:00:00Z&end_timestamp=2026-02-01T00:00:00Z&interval=day",
};

interface Op {
  method: string;
  path: string;
  portal: boolean;
}

const byId = (path: string) => path.includes("{") && !NOT_TENANT_IDS.some((r) => r.test(path));
const op = (method: string, path: string): Op => ({
  method: method.toUpperCase(),
  path,
  portal: path.startsWith("/v1/customer-portal/"),
});
const fromContract = Object.entries(contract.paths).flatMap(([path, item]) =>
  byId(path) ? METHODS.filter((m) => m in item).map((m) => op(m, path)) : [],
);
const known = new Set(fromContract.map((o) => `${o.method} ${o.path}`));
// till's own operations beyond the contract (its document names parameters as Polar does).
const tillOnly = tillOperations
  .filter((o) => byId(o.path) && !known.has(`${o.method.toUpperCase()} ${o.path}`))
  .map((o) => op(o.method, o.path));
const operations: Op[] = [...fromContract, ...tillOnly];

/**
 * The id routes the running server's API routers were given and no document describes (Express's
 * `:id` read as `{id}`). Known only once the server has started in this process.
 */
function undescribedRoutes(): Op[] {
  // Compared by shape: a route may name a parameter differently from the document.
  const shape = (route: string) => route.replace(/\{[^}]+\}/g, "{}").replace(/\/$/, "");
  const described = new Set(operations.map((o) => shape(`${o.method} ${o.path}`)));
  return [
    ...new Set(
      recordedRoutes()
        .map((r) => r.replace(/:([A-Za-z_]+)/g, "{$1}").replace(" /", " /v1/"))
        .filter((r) => !described.has(shape(r))),
    ),
  ]
    .map((r) => r.split(" ") as [string, string])
    .filter(([, path]) => byId(path))
    .map(([method, path]) => op(method, path));
}

/** The path with every parameter replaced by the tenant's id for it, or the parameter missing. */
function fill(path: string, ids: Record<string, string>): { url: string } | { missing: string } {
  const segments = path.split("/");
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (!s.startsWith("{")) {
      out.push(s);
      continue;
    }
    const keys = [
      `${segments.slice(i - 3, i).join("/")}/${s}`,
      `${segments.slice(i - 2, i).join("/")}/${s}`,
      `${segments[i - 1]}/${s}`,
    ];
    const key = keys.find((k) => ids[k] !== undefined);
    if (!key) return { missing: `${segments.slice(i - 2, i).join("/")}/${s}` };
    out.push(encodeURIComponent(ids[key]!));
  }
  return { url: out.join("/") };
}

let t: TestServer;
let owner: Tenant;
let stranger: Tenant;
beforeAll(async () => {
  t = await startTestServer();
  owner = await seedTenant(t, "Owner");
  stranger = await seedTenant(t, "Stranger");
}, 180_000);
afterAll(() => t?.stop());

function call(op: Op, url: string, as: Tenant) {
  const key = `${op.method} ${op.path}`;
  const body = BODIES[key] ?? (op.method === "POST" || op.method === "PUT" ? {} : undefined);
  return api(t.url, url + (QUERIES[key] ?? ""), {
    method: op.method,
    token: op.portal ? as.customerSessionToken : as.token,
    ...(body === undefined ? {} : { body }),
  });
}

/** What the owner sees of every resource a GET names, to compare before and after. */
async function ownerView(): Promise<Record<string, unknown>> {
  const view: Record<string, unknown> = {};
  for (const op of operations.filter((o) => o.method === "GET")) {
    const filled = fill(op.path, owner.ids);
    if (!("url" in filled)) continue;
    const res = await call(op, filled.url, owner);
    if (res.status === 200) view[filled.url] = res.body;
  }
  // Signed document links carry a fresh expiry each time they are asked for.
  return JSON.parse(
    JSON.stringify(view).replace(/expires=\d+&signature=[A-Za-z0-9_-]+/g, "expires=…"),
  );
}

describe("tenancy on every route that names a resource", () => {
  it("another organization gets 404 for each of the owner's ids and changes nothing", async () => {
    // A receipt is made the first time it is read, so the first look makes it.
    await ownerView();
    const before = await ownerView();
    const leaks: string[] = [];
    const unseeded: string[] = [];
    const unrouted: string[] = [];
    let checked = 0;
    const undescribed = undescribedRoutes();
    for (const op of [...operations, ...undescribed]) {
      const filled = fill(op.path, owner.ids);
      if ("missing" in filled) {
        // Only a route till serves needs a seeded id; an unserved one is listed by coverage.
        const probe = await call(
          op,
          op.path.replace(/\{[^}]+\}/g, () => randomUUID()),
          stranger,
        );
        if (probe.status === 404 && String(probe.body?.detail ?? "").startsWith("No route")) {
          unrouted.push(`${op.method} ${op.path}`);
        } else {
          unseeded.push(`${op.method} ${op.path} (needs ${filled.missing})`);
        }
        continue;
      }
      const res = await call(op, filled.url, stranger);
      checked++;
      if (res.status === 404 && String(res.body?.detail ?? "").startsWith("No route")) {
        unrouted.push(`${op.method} ${op.path}`);
        checked--;
      } else if (res.status !== 404 || typeof res.body?.error !== "string") {
        leaks.push(`${op.method} ${filled.url} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    process.stdout.write(
      `tenancy: ${checked} operations checked with another organization's credentials ` +
        `(${tillOnly.length} of them till's own, ${undescribed.length} from routes no document ` +
        `describes); ${unrouted.length} not served\n`,
    );
    expect(unseeded).toEqual([]);
    expect(tillOnly.length).toBeGreaterThan(0);
    expect(leaks).toEqual([]);
    expect(checked).toBeGreaterThan(40);
    expect(await ownerView()).toEqual(before);
  }, 240_000);

  it("lists filtered by the owner's organization show the stranger nothing of it", async () => {
    const lists = Object.entries(contract.paths).flatMap(([path, item]) =>
      !path.includes("{") && !path.startsWith("/v1/customer-portal/") && item.get?.parameters
        ? item.get.parameters.some((p) => p.name === "organization_id" && p.in === "query")
          ? [path]
          : []
        : [],
    );
    const leaks: string[] = [];
    for (const path of lists) {
      const res = await api(t.url, `${path}?organization_id=${owner.organizationId}`, {
        token: stranger.token,
      });
      const shown = JSON.stringify(res.body);
      if (res.status === 200 && shown.includes(owner.organizationId))
        leaks.push(`${path}: ${shown}`);
      else if (res.status >= 500) leaks.push(`${path}: ${res.status}`);
    }
    expect(lists.length).toBeGreaterThan(15);
    expect(leaks).toEqual([]);
  });

  it("creates that name the owner's resources are refused", async () => {
    const ids = owner.ids;
    const attempts: [string, unknown][] = [
      ["/v1/checkouts/", { products: [ids["products/{id}"]] }],
      [
        "/v1/checkouts/",
        { products: [stranger.ids["products/{id}"]], discount_id: ids["discounts/{id}"] },
      ],
      ["/v1/checkout-links/", { payment_processor: "stripe", products: [ids["products/{id}"]] }],
      ["/v1/customer-sessions/", { customer_id: ids["customers/{id}"] }],
      [
        "/v1/orders/",
        { customer_id: ids["customers/{id}"], product_id: stranger.ids["products/{id}"] },
      ],
      [
        "/v1/orders/",
        { customer_id: stranger.ids["customers/{id}"], product_id: ids["products/{id}"] },
      ],
      [`/v1/orders/${ids["draft-orders/{id}"]}/finalize`, {}],
      ["/v1/refunds/", { order_id: ids["orders/{id}"], reason: "other", amount: 1 }],
      ["/v1/events/ingest", { events: [{ name: "x", customer_id: ids["customers/{id}"] }] }],
      [
        "/v1/discounts/",
        {
          name: "Theirs",
          type: "fixed",
          amount: 100,
          currency: "usd",
          duration: "once",
          products: [ids["products/{id}"]],
        },
      ],
      [
        "/v1/benefits/",
        {
          type: "meter_credit",
          description: "x",
          properties: { meter_id: ids["meters/{id}"], units: 1, rollover: false },
        },
      ],
      [
        "/v1/customer-seats",
        { subscription_id: ids["seat-subscription"], email: "intruder@example.com" },
      ],
      [
        `/v1/products/${stranger.ids["products/{id}"]}/benefits`,
        { benefits: [ids["benefits/{id}"]] },
      ],
    ];
    const accepted: string[] = [];
    for (const [path, body] of attempts) {
      const res = await api(t.url, path, { token: stranger.token, body });
      if (res.status < 400 || res.status >= 500 || typeof res.body?.error !== "string") {
        accepted.push(
          `${path} ${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body)}`,
        );
      }
    }
    expect(accepted).toEqual([]);
  });
});
