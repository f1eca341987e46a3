// Property-based fuzzing of every implemented operation of the contract: fast-check generates
// valid and broken path parameters, query strings and bodies from the OpenAPI schemas and sends
// them to a real server holding real resources. Any 5xx, or a 4xx not in Polar's error shape,
// fails the test with the requests that caused it. The seed is printed; FUZZ_SEED replays a run,
// FUZZ_RUNS sets the requests per operation.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../server/lib/scopes.ts";
import { api, createSeller } from "./helpers/auth.ts";
import {
  junk,
  nastyString,
  type Operation,
  operationsOf,
  SchemaArbitraries,
} from "./helpers/fuzz-contract.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { US_ADDRESS } from "./helpers/addresses.ts";

const contract = JSON.parse(
  readFileSync(new URL("./contract/polar-openapi-2026-10.json", import.meta.url), "utf8"),
);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

let t: TestServer;
let token: string;
let customerToken: string;
/** Real ids by the path segment naming them (`products`, `client`, `external`, ...). */
const ids = new Map<string, string[]>();

function remember(segment: string, value: unknown) {
  if (typeof value === "string" && value) ids.set(segment, [...(ids.get(segment) ?? []), value]);
}

async function create(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await api(t.url, path, { token, body });
  if (res.status >= 300) throw new Error(`seed ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [...SCOPES]);
  token = seller.token;
  remember("organizations", seller.organization.id);
  const product = await create("/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
  });
  remember("products", product.id);
  const customer = await create("/v1/customers/", {
    email: "fuzz@example.com",
    name: "Fuzz",
    external_id: "ext_fuzz",
  });
  remember("customers", customer.id);
  remember("external", "ext_fuzz");
  const open = await create("/v1/checkouts/", { products: [product.id] });
  remember("checkouts", open.id);
  remember("client", open.client_secret);
  const paid = await create("/v1/checkouts/", { products: [product.id] });
  await api(t.url, `/v1/checkouts/client/${paid.client_secret}/confirm`, {
    body: {
      customer_email: "payer@example.com",
      customer_name: "Payer",
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  const orders = await api(t.url, "/v1/orders/", { token });
  const order = orders.body.items[0];
  remember("orders", order?.id);
  remember("subscriptions", order?.subscription_id);
  const session = await create("/v1/customer-sessions/", { customer_id: order?.customer_id });
  customerToken = String(session.token);
  const seeds: [string, string, unknown][] = [
    [
      "discounts",
      "/v1/discounts/",
      { name: "Ten", type: "percentage", basis_points: 1000, duration: "once" },
    ],
    ["benefits", "/v1/benefits/", { type: "custom", description: "Perk", properties: {} }],
    [
      "meters",
      "/v1/meters/",
      {
        name: "Calls",
        filter: { conjunction: "and", clauses: [] },
        aggregation: { func: "count" },
      },
    ],
    [
      "custom-fields",
      "/v1/custom-fields/",
      { type: "text", slug: "note", name: "Note", properties: {} },
    ],
    [
      "checkout-links",
      "/v1/checkout-links/",
      { payment_processor: "stripe", products: [product.id] },
    ],
    [
      "endpoints",
      "/v1/webhooks/endpoints",
      { url: "https://example.com/hook", format: "raw", events: ["order.created"] },
    ],
  ];
  for (const [segment, path, body] of seeds) remember(segment, (await create(path, body)).id);
  remember(
    "customer-meters",
    (await api(t.url, "/v1/customer-meters/", { token })).body?.items?.[0]?.id,
  );
}, 120_000);
afterAll(() => t?.stop());

interface FuzzRequest {
  method: string;
  path: string;
  query: [string, string][];
  body: unknown;
  rawBody: string | null;
  auth: "token" | "customer" | "none" | "garbage";
}

function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80"; // a lone surrogate has no UTF-8 form: send its raw bytes
  }
}

function requestsFor(op: Operation, schemas: SchemaArbitraries): fc.Arbitrary<FuzzRequest> {
  const segments = op.path.split("/");
  const pathArbs = segments.map((seg, i) => {
    const m = /^\{(.+)\}$/.exec(seg);
    if (!m) return fc.constant(seg);
    const real = ids.get(segments[i - 1] ?? "") ?? [];
    return fc
      .oneof(
        { arbitrary: real.length > 0 ? fc.constantFrom(...real) : fc.uuid(), weight: 6 },
        { arbitrary: fc.uuid(), weight: 1 },
        { arbitrary: nastyString, weight: 2 },
      )
      .map(encodeSegment);
  });
  const queryArbs = op.parameters
    .filter((p) => p.in === "query")
    .map((p) =>
      fc.option(
        (p.schema ? schemas.anyValue(p.schema) : junk).map((v) => toQuery(p.name, v)),
        { freq: 2 },
      ),
    );
  const extraQuery = fc.option(
    fc.constantFrom<[string, string][]>(
      [["metadata[__proto__]", "x"]],
      [["metadata[constructor]", "x"]],
      [["metadata[toString]", "\u0000"]],
      [["unknown", "x"]],
      [["limit", "-1"]],
      [["page", "99999999999999999999"]],
      [["sorting", "-nope"]],
    ),
    { freq: 4 },
  );
  const body =
    op.body && op.method !== "GET"
      ? fc.option(schemas.anyValue(op.body), { freq: 12 })
      : fc.constant(null);
  const rawBody = fc.option(
    fc.constantFrom(
      "{",
      "not json",
      '{"a":',
      "[]",
      "null",
      "\u0000",
      '"x"',
      `{"a":${"[".repeat(5000)}`,
    ),
    { freq: 15 },
  );
  const customer = op.path.startsWith("/v1/customer-portal/");
  const auth = fc.oneof(
    { arbitrary: fc.constant(customer ? "customer" : "token"), weight: 12 },
    { arbitrary: fc.constantFrom("none", "garbage", customer ? "token" : "customer"), weight: 1 },
  ) as fc.Arbitrary<FuzzRequest["auth"]>;
  return fc
    .record({
      path: fc.tuple(...pathArbs).map((s) => s.join("/")),
      query: fc
        .tuple(fc.tuple(...queryArbs), extraQuery)
        .map(([qs, extra]) => [...qs.flatMap((q) => q ?? []), ...(extra ?? [])]),
      body,
      rawBody,
      auth,
    })
    .map((r) => ({ method: op.method, ...r }));
}

function toQuery(name: string, value: unknown): [string, string][] {
  if (Array.isArray(value)) return value.slice(0, 3).flatMap((v) => toQuery(name, v));
  if (value && typeof value === "object") return [[name, JSON.stringify(value)]];
  return [[name, String(value)]];
}

async function send(r: FuzzRequest): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (r.auth === "token") headers.authorization = `Bearer ${token}`;
  if (r.auth === "customer") headers.authorization = `Bearer ${customerToken}`;
  if (r.auth === "garbage") headers.authorization = "Bearer \u00ff garbage";
  let body: string | undefined;
  if (r.rawBody !== null && r.method !== "GET") body = r.rawBody;
  else if (r.body !== null && r.body !== undefined) body = JSON.stringify(r.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const qs = r.query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join("&");
  const res = await fetch(`${t.url}${r.path}${qs ? `?${qs}` : ""}`, {
    method: r.method,
    headers,
    body,
    signal: AbortSignal.timeout(20_000),
  });
  // Streams (SSE) never end: their status and headers are all that is checked.
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, text: "" };
  }
  return { status: res.status, text: await res.text() };
}

function short(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…(${text.length} chars)` : text;
}

// OAuth's own endpoints answer errors as RFC 6749 §5.2 says ({error, error_description}), as
// Polar's do and OAuth clients expect; the contract gives them no other error shape.
const OAUTH_ENDPOINTS = /^\/v1\/oauth2\/(token|revoke|introspect)$/;

/** Why a response is wrong, or null. */
function defect(res: { status: number; text: string }, path = ""): string | null {
  if (res.status >= 500) return `status ${res.status}`;
  if (res.status < 400) return null;
  let body: { error?: unknown; detail?: unknown };
  try {
    body = JSON.parse(res.text);
  } catch {
    return `status ${res.status} without a JSON body`;
  }
  if (typeof body?.error !== "string") return `status ${res.status} without "error"`;
  if (typeof body.detail === "string") return null;
  if (
    OAUTH_ENDPOINTS.test(path) &&
    typeof (body as { error_description?: unknown }).error_description === "string"
  )
    return null;
  if (
    Array.isArray(body.detail) &&
    body.detail.every(
      (d: { loc?: unknown; msg?: unknown }) => Array.isArray(d.loc) && typeof d.msg === "string",
    )
  )
    return null;
  return `status ${res.status} with a malformed "detail"`;
}

describe("contract fuzz", () => {
  it("no operation answers 5xx or an error outside Polar's shape", {
    // A larger FUZZ_RUNS takes proportionally longer.
    timeout: Math.max(180_000, RUNS * 6_000),
  }, async () => {
    console.log(
      `contract fuzz: seed ${SEED}, ${RUNS} requests per operation (FUZZ_SEED to replay)`,
    );
    const schemas = new SchemaArbitraries(
      contract.components.schemas,
      fc.oneof(fc.constantFrom(...[...ids.values()].flat()), fc.uuid()),
    );
    const operations = operationsOf(contract);
    const failures: string[] = [];
    let sent = 0;
    let implemented = 0;
    for (const [i, op] of operations.entries()) {
      const requests = fc.sample(requestsFor(op, schemas), { seed: SEED + i, numRuns: RUNS });
      // Implemented: the first request finds a route (an unknown one answers "No route for ...").
      const probe = await send({
        method: op.method,
        path: op.path.replace(/\{[^}]+\}/g, "x"),
        query: [],
        body: null,
        rawBody: null,
        auth: op.path.startsWith("/v1/customer-portal/") ? "customer" : "token",
      });
      if (probe.status === 404 && probe.text.includes("No route for")) {
        if (process.env.FUZZ_DEBUG) console.log(`skip ${op.method} ${op.path}: ${probe.text}`);
        continue;
      }
      implemented++;
      for (let j = 0; j < requests.length; j += 4) {
        await Promise.all(
          requests.slice(j, j + 4).map(async (r) => {
            sent++;
            const res = await send(r).catch((err: Error) => ({ status: 599, text: err.message }));
            const why = defect(res, op.path);
            if (why)
              failures.push(
                `${why}: ${r.method} ${short(r.path)} ?${short(JSON.stringify(r.query))} auth=${r.auth} body=${short(JSON.stringify(r.rawBody ?? r.body) ?? "")} → ${short(res.text)}`,
              );
          }),
        );
      }
    }
    console.log(
      `contract fuzz: ${sent} requests over ${implemented} operations, ${failures.length} defects`,
    );
    expect(implemented).toBeGreaterThan(50);
    if (failures.length > 0) console.log(failures.join("\n"));
    expect(failures.slice(0, 30)).toEqual([]);
  });

  it("no page answers 5xx, whatever its path and query", { timeout: 120_000 }, async () => {
    const pages = [
      "/checkout/{}",
      "/buy/{}",
      "/portal",
      "/device",
      "/embed.js",
      "/assets/{}",
      "/{}",
    ];
    const page = fc.record({
      path: fc.constantFrom(...pages),
      segment: fc.oneof(
        fc.constantFrom(...(ids.get("client") ?? ["x"])),
        nastyString.map(encodeSegment),
      ),
      query: fc.array(fc.tuple(fc.string({ maxLength: 12 }), nastyString), { maxLength: 3 }),
      html: fc.boolean(),
    });
    const failures: string[] = [];
    for (const p of fc.sample(page, { seed: SEED, numRuns: 400 })) {
      const qs = p.query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join("&");
      const path = p.path.replace("{}", p.segment);
      const res = await fetch(`${t.url}${path}${qs ? `?${qs}` : ""}`, {
        headers: { accept: p.html ? "text/html" : "application/json" },
      });
      const text = await res.text();
      if (res.status >= 500)
        failures.push(`${res.status}: GET ${short(path)}?${short(qs)} → ${short(text)}`);
    }
    expect(failures.slice(0, 30)).toEqual([]);
  });
});
