// The OpenAPI document till serves at /v1/openapi.json, generated from the zod schemas: it must be
// well formed (every $ref resolves, operationIds unique, every schema compiles), describe only
// routes the server has, describe till's real answers (validated with ajv, extra fields included),
// and keep every response field Polar's contract requires for the models it covers. Other
// differences from the contract are printed, not failed: till leaves out some of Polar's types
// (feature_flag benefits, team customers) on purpose.
import { readFileSync } from "node:fs";
import ajv2020 from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi, type OpenApiDocument } from "../../server/openapi/document.ts";
import { operations } from "../../server/openapi/operations.ts";
import { api } from "../helpers/auth.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { seedTenant, type Tenant } from "../helpers/tenant-seed.ts";

type Json = Record<string, any>;
const polar = JSON.parse(
  readFileSync(new URL("./polar-openapi-2026-10.json", import.meta.url), "utf8"),
) as Json;
const doc = buildOpenApi(operations, "http://localhost") as OpenApiDocument & Json;

function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refsIn(n, out);
  else if (node && typeof node === "object")
    for (const [k, v] of Object.entries(node))
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsIn(v, out);
  return out;
}

function resolve(root: Json, schema: Json): Json {
  let s = schema;
  while (typeof s.$ref === "string") s = root.components.schemas[s.$ref.split("/").pop()!];
  return s;
}

/** A model's fields (each with its schema in every variant of a union), and those every variant requires. */
function fieldsOf(root: Json, schema: Json): { props: Map<string, Json[]>; required: Set<string> } {
  const s = resolve(root, schema);
  const variants = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (variants && !s.properties) {
    const parts = variants.map((v) => fieldsOf(root, v)).filter((p) => p.props.size > 0);
    const props = new Map<string, Json[]>();
    for (const part of parts)
      for (const [name, schemas] of part.props)
        props.set(name, [...(props.get(name) ?? []), ...schemas]);
    const required = new Set(
      [...(parts[0]?.required ?? [])].filter((r) => parts.every((p) => p.required.has(r))),
    );
    return { props, required };
  }
  return {
    props: new Map(
      Object.entries((s.properties ?? {}) as Record<string, Json>).map(([k, v]) => [k, [v]]),
    ),
    required: new Set((s.required ?? []) as string[]),
  };
}

/** The enum values a field allows, through $refs and nullable unions; null when it is no enum. */
function enumOf(root: Json, schema: Json): string[] | null {
  const s = resolve(root, schema);
  if (Array.isArray(s.enum)) return s.enum as string[];
  if (typeof s.const === "string") return [s.const];
  const variants = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (!variants) return null;
  const values = variants.map((v) => enumOf(root, v)).filter((v): v is string[] => v !== null);
  return values.length ? values.flat() : null;
}

function enumsOf(root: Json, schemas: Json[]): string[] | null {
  const values = schemas.map((s) => enumOf(root, s));
  return values.some((v) => v === null) ? null : [...new Set(values.flat() as string[])];
}

function successSchema(op: Json): Json | null {
  const [, response] =
    Object.entries((op.responses ?? {}) as Record<string, Json>).find(([k]) => k.startsWith("2")) ??
    [];
  return response?.content?.["application/json"]?.schema ?? null;
}

describe("the generated OpenAPI document", () => {
  it("is well formed: refs resolve, operationIds are unique, schemas compile", () => {
    expect(doc.openapi).toBe("3.1.0");
    const missing = refsIn(doc).filter(
      (r) =>
        !(r.startsWith("#/components/schemas/") && r.split("/").pop()! in doc.components.schemas),
    );
    expect(missing).toEqual([]);
    const ids = operations.map((o) => o.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const ajv = new ajv2020.default({ strict: false });
    ajvFormats.default(ajv);
    ajv.addSchema({ $id: "till", components: doc.components });
    for (const name of Object.keys(doc.components.schemas))
      expect(() => ajv.getSchema(`till#/components/schemas/${name}`)).not.toThrow();
    for (const op of operations) expect(op.path.startsWith("/v1/")).toBe(true);
  });

  it("keeps the fields Polar requires for the models it covers, and prints the other differences", () => {
    const regressions: string[] = [];
    const notes: string[] = [];
    let shared = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const theirs = polar.paths[path]?.[method] as Json | undefined;
        const where = `${method.toUpperCase()} ${path}`;
        if (!theirs) {
          notes.push(`${where}: not in Polar's contract`);
          continue;
        }
        shared++;
        if (theirs.operationId !== op.operationId)
          notes.push(`${where}: operationId ${op.operationId}, Polar ${theirs.operationId}`);
        const ourStatus = Object.keys(op.responses as Json).find((k) => k.startsWith("2"));
        const theirStatus = Object.keys(theirs.responses ?? {}).find((k) => k.startsWith("2"));
        if (ourStatus !== theirStatus)
          regressions.push(`${where}: answers ${ourStatus}, Polar ${theirStatus}`);
        const ours = successSchema(op);
        const their = successSchema(theirs);
        if (!ours || !their) continue;
        compare(where, ours, their, regressions, notes, 0);
      }
    }
    process.stdout.write(
      `openapi: ${shared} operations shared with Polar's contract; ${notes.length} differences:\n  ${[...new Set(notes)].join("\n  ")}\n`,
    );
    expect(shared).toBeGreaterThan(40);
    expect(regressions).toEqual([]);
  });
});

// Polar's 2026-10 contract has no free price (a free product is a fixed price of 0 there); till
// still serves `amount_type: "free"` for the prices it stores as such. Customer state lists past
// due subscriptions among the active ones (they still grant benefits); Polar's enum has only
// active and trialing. An organization's subscription settings may default to `reset` proration,
// which Polar offers only behind a feature flag and leaves out of the settings' public enum.
const KNOWN_EXTRA_VALUES = new Set([
  "amount_type=free",
  "status=past_due",
  "proration_behavior=reset",
]);

/** Polar's required fields must be till's fields; nested models are compared one level down. */
function compare(
  where: string,
  ours: Json,
  theirs: Json,
  regressions: string[],
  notes: string[],
  depth: number,
): void {
  const a = fieldsOf(doc, ours);
  const b = fieldsOf(polar, theirs);
  if (b.props.size === 0) return;
  for (const name of b.required) {
    if (!a.props.has(name)) regressions.push(`${where}: missing required field ${name}`);
    else if (!a.required.has(name))
      notes.push(`${where}: ${name} is optional in till, required by Polar`);
  }
  for (const name of a.props.keys())
    if (!b.props.has(name)) notes.push(`${where}: ${name} is till's own (not in Polar's model)`);
  for (const [name, theirField] of b.props) {
    const ourFields = a.props.get(name);
    if (!ourFields) continue;
    const ourEnum = enumsOf(doc, ourFields);
    const theirEnum = enumsOf(polar, theirField);
    if (ourEnum && theirEnum) {
      const extra = ourEnum.filter((v) => !theirEnum.includes(v));
      const lacking = theirEnum.filter((v) => !ourEnum.includes(v));
      // A value Polar's clients do not know breaks their parsing: that is a regression, unless it
      // is one of the known divergences listed above.
      const unknown = extra.filter((v) => !KNOWN_EXTRA_VALUES.has(`${name}=${v}`));
      if (unknown.length) regressions.push(`${where}: ${name} has values Polar lacks: ${unknown}`);
      if (unknown.length < extra.length)
        notes.push(`${where}: ${name} has values Polar lacks (known): ${extra}`);
      if (lacking.length) notes.push(`${where}: ${name} lacks Polar's ${lacking.join(", ")}`);
    }
    if (depth < 2) {
      const ourInner = innerModel(doc, ourFields[0]!);
      // A field of a union model (one variant per benefit type) holds any variant's inner model.
      const theirInners = theirField
        .map((f) => innerModel(polar, f))
        .filter((m): m is Json => m !== null);
      const theirInner = theirInners.length > 1 ? { anyOf: theirInners } : theirInners[0];
      if (ourInner && theirInner)
        compare(`${where} .${name}`, ourInner, theirInner, regressions, notes, depth + 1);
    }
  }
}

/** The model a field holds (itself, an array's items, the non-null side of a nullable). */
function innerModel(root: Json, field: Json): Json | null {
  const s = resolve(root, field);
  if (s.type === "array" && s.items) return innerModel(root, s.items);
  if (s.properties || s.oneOf) return s;
  // Only a nullable model is unwrapped; a union of shapes (a cursor page) is not compared.
  const variants = s.anyOf as Json[] | undefined;
  if (variants?.length !== 2 || !variants.some((v) => v.type === "null")) return null;
  return innerModel(root, variants.find((v) => v.type !== "null")!);
}

/** The query a GET needs to answer at all: seats are listed per purchase, quantities and metrics
 * per period. */
function sampleQuery(path: string, tenant: Tenant): string {
  if (path.endsWith("/seats") || path.endsWith("/customer-seats"))
    return `?subscription_id=${tenant.ids["seat-subscription"]}`;
  if (path.endsWith("/quantities"))
    return "?start_timestamp=2020-01-01T00:00:00Z&end_timestamp=2040-01-01T00:00:00Z&interval=year";
  if (path === "/v1/metrics/") return "?start_date=2026-01-01&end_date=2026-12-31&interval=month";
  return "";
}

/** Why `body` is not what the operation's success schema describes; null when it is. */
function mismatch(
  ajv: InstanceType<typeof ajv2020.default>,
  op: Json,
  body: unknown,
): string | null {
  const schema = JSON.stringify(successSchema(op)).replaceAll('"#/components', '"till#/components');
  const validate = ajv.compile(JSON.parse(schema) as object);
  if (validate(body)) return null;
  return (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
    .join("; ");
}

describe("the document against the running server", () => {
  let t: TestServer;
  let owner: Tenant;
  // The seat buyer's portal session: the seeded one belongs to a customer without seats.
  let seatBuyerSession: string;
  let portalIds: Record<string, string>;
  beforeAll(async () => {
    t = await startTestServer();
    owner = await seedTenant(t, "Owner");
    const seatSubscription = await api(
      t.url,
      `/v1/subscriptions/${owner.ids["seat-subscription"]}`,
      { token: owner.token },
    );
    const session = await api(t.url, "/v1/customer-sessions/", {
      token: owner.token,
      body: { customer_id: seatSubscription.body.customer_id },
    });
    seatBuyerSession = session.body.token;
    // An invoice is read only once generated (the order has the checkout's billing details).
    const order = `/v1/orders/${owner.ids["orders/{id}"]}`;
    const invoice = await api(t.url, `${order}/invoice`, { token: owner.token, method: "POST" });
    if (invoice.status !== 202) throw new Error(`invoice: ${invoice.status}`);
    const checkout = await api(t.url, `/v1/checkouts/${owner.ids["checkouts/{id}"]}`, {
      token: owner.token,
    });
    owner.ids["client/{client_secret}"] = checkout.body.client_secret;
    // The portal's own resources are the seat buyer's: their subscription and its order.
    const seatOrder = await api(
      t.url,
      `/v1/orders/?subscription_id=${owner.ids["seat-subscription"]}`,
      { token: owner.token },
    );
    const seatOrderId = seatOrder.body.items[0].id as string;
    await api(t.url, `/v1/orders/${seatOrderId}`, {
      token: owner.token,
      method: "PATCH",
      body: { billing_name: "Team Buyer" },
    });
    const seatInvoice = await api(t.url, `/v1/orders/${seatOrderId}/invoice`, {
      token: owner.token,
      method: "POST",
    });
    if (seatInvoice.status !== 202)
      throw new Error(`seat invoice: ${seatInvoice.status} ${JSON.stringify(seatInvoice.body)}`);
    portalIds = {
      ...owner.ids,
      "subscriptions/{id}": owner.ids["seat-subscription"]!,
      "orders/{id}": seatOrderId,
    };
  }, 180_000);
  afterAll(() => t?.stop());

  it("is served at /v1/openapi.json and rendered at /docs, without a token", async () => {
    const res = await api(t.url, "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(Object.keys(doc.paths));
    const page = await fetch(`${t.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("products:list");
    expect(html).toContain('id="model-Product"');
  });

  it("describes only routes the server has", async () => {
    const absent: string[] = [];
    for (const op of operations) {
      const path = op.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
      const res = await api(t.url, path, { method: op.method.toUpperCase() });
      // No token: a route that exists asks for one (a public one may not find the placeholder);
      // one that does not exist is the router's own 404.
      if (res.status === 404 && String(res.body?.detail).startsWith("No route for"))
        absent.push(`${op.method.toUpperCase()} ${op.path}`);
    }
    expect(absent).toEqual([]);
  });

  it("describes till's answers exactly (no field missing, none undeclared)", async () => {
    const ajv = new ajv2020.default({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    ajv.addSchema({ $id: "till", components: doc.components });
    const failures: string[] = [];
    let checked = 0;
    for (const op of operations) {
      if (op.method !== "get") continue;
      let path: string | null = op.path;
      // In the portal, the product's buyer holds the license key, its grant, meter credits and wallet;
      // the seat buyer holds the seats, the subscription and its order.
      const portal = op.auth === "customer_session";
      const productBuyer =
        portal && /\/(meters|license-keys|benefit-grants|downloadables|wallets)\//.test(op.path);
      const ids = portal && !productBuyer ? portalIds : owner.ids;
      for (const m of op.path.matchAll(/([a-z-]+)\/\{([a-z_]+)\}/g)) {
        const key = `${m[1]}/{${m[2]}}`;
        const id = (portal ? ids[`customer-portal/${key}`] : undefined) ?? ids[key];
        path = id && path ? path.replace(`{${m[2]}}`, id) : null;
      }
      if (!path) continue;
      path += sampleQuery(op.path, owner);
      const token = !portal
        ? owner.token
        : productBuyer
          ? owner.customerSessionToken
          : seatBuyerSession;
      const res = await api(t.url, path, { token });
      if (res.status !== 200) {
        failures.push(`GET ${op.path}: ${res.status}`);
        continue;
      }
      checked++;
      // An export is a CSV file: the document says text/csv, the server sends it with a header row.
      if (op.csv) {
        const described = Object.keys((doc.paths[op.path]!.get as Json).responses["200"].content);
        const type = res.headers.get("content-type") ?? "";
        if (!described.includes("text/csv") || !type.startsWith("text/csv"))
          failures.push(`GET ${op.path}: answered ${type}, described ${described}`);
        else if (!/^[^\n]+,[^\n]+\r?\n/.test(String(res.body)))
          failures.push(`GET ${op.path}: no CSV header row`);
        continue;
      }
      const problem = mismatch(ajv, doc.paths[op.path]!.get!, res.body);
      if (problem) failures.push(`GET ${op.path}: ${problem}`);
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(15);
  }, 120_000);

  it("describes the portal's answer to a benefit grant update", async () => {
    const ajv = new ajv2020.default({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    ajv.addSchema({ $id: "till", components: doc.components });
    const path = "/v1/customer-portal/benefit-grants/{id}";
    const res = await api(t.url, path.replace("{id}", owner.ids["benefit-grants/{id}"]!), {
      token: owner.customerSessionToken,
      method: "PATCH",
      body: { benefit_type: "license_keys" },
    });
    expect(res.status).toBe(200);
    expect(res.body.customer.oauth_accounts).toEqual({});
    expect(res.body.benefit.organization.id).toBe(owner.organizationId);
    expect(mismatch(ajv, doc.paths[path]!.patch!, res.body)).toBeNull();
  });
});
