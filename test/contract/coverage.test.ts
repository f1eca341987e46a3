// Which operations of Polar's contract till answers at all: each is called once with a seller token
// holding every scope (a customer session token for the customer portal, none for public routes),
// ids replaced by random UUIDs. An operation without a route answers "No route for …"; those are
// listed, and the ones till claims to implement must not be among them.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../server/lib/scopes.ts";
import { api, createSeller } from "../helpers/auth.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const contract = JSON.parse(
  readFileSync(new URL("./polar-openapi-2026-10.json", import.meta.url), "utf8"),
) as { paths: Record<string, Record<string, unknown>> };
const METHODS = ["get", "post", "patch", "put", "delete"];

// Operations this codebase implements whose routes must keep answering.
const MUST_ANSWER = [
  "GET /v1/customers/export",
  "GET /v1/orders/export",
  "GET /v1/subscriptions/export",
  "GET /v1/customer-meters/",
  "GET /v1/customer-meters/{id}",
  "GET /v1/event-types/",
  "PATCH /v1/event-types/{id}",
  "GET /v1/metrics/dashboards",
  "POST /v1/metrics/dashboards",
  "GET /v1/metrics/dashboards/{id}",
  "PATCH /v1/metrics/dashboards/{id}",
  "DELETE /v1/metrics/dashboards/{id}",
  "POST /v1/oauth2/register",
  "GET /v1/oauth2/register/{client_id}",
  "PUT /v1/oauth2/register/{client_id}",
  "DELETE /v1/oauth2/register/{client_id}",
  "GET /v1/oauth2/authorize",
  "POST /v1/oauth2/token",
  "POST /v1/oauth2/revoke",
  "POST /v1/oauth2/introspect",
  "GET /v1/oauth2/userinfo",
  "GET /v1/customer-portal/customer-session/user",
  "GET /v1/customer-portal/wallets/",
  "GET /v1/customer-portal/wallets/{id}",
  "GET /v1/customer-portal/organizations/{slug}",
  "GET /v1/customer-portal/benefit-grants/",
  "GET /v1/products/",
  "GET /v1/customers/{id}",
  "POST /v1/events/ingest",
  "POST /v1/orders/",
  "POST /v1/orders/{id}/finalize",
  "PATCH /v1/customer-portal/benefit-grants/{id}",
  "GET /v1/members/",
  "POST /v1/customers/{id}/members",
  "POST /v1/customers/external/{external_id}/members",
  "GET /v1/customers/{id}/members/{member_id}",
  "PATCH /v1/customers/{id}/members/{member_id}",
  "DELETE /v1/customers/{id}/members/{member_id}",
  "GET /v1/customers/external/{external_id}/members/{member_external_id}",
  "PATCH /v1/customers/external/{external_id}/members/{member_external_id}",
  "DELETE /v1/customers/external/{external_id}/members/{member_external_id}",
  "GET /v1/customer-portal/members",
  "POST /v1/customer-portal/members",
  "PATCH /v1/customer-portal/members/{id}",
  "DELETE /v1/customer-portal/members/{id}",
  "POST /v1/customer-seats",
  "GET /v1/customer-seats",
  "DELETE /v1/customer-seats/{seat_id}",
  "POST /v1/customer-seats/{seat_id}/resend",
  "GET /v1/customer-seats/claim/{invitation_token}",
  "POST /v1/customer-seats/claim",
  "GET /v1/customer-portal/seats",
  "POST /v1/customer-portal/seats",
  "DELETE /v1/customer-portal/seats/{seat_id}",
  "POST /v1/customer-portal/seats/{seat_id}/resend",
  "GET /v1/customer-portal/seats/subscriptions",
];

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let customerSession: string;
beforeAll(async () => {
  t = await startTestServer({ worker: false });
  seller = await createSeller(t.url, [...SCOPES]);
  const customer = await api(t.url, "/v1/customers/", {
    token: seller.token,
    body: { email: "coverage@example.com" },
  });
  const session = await api(t.url, "/v1/customer-sessions/", {
    token: seller.token,
    body: { customer_id: customer.body.id },
  });
  customerSession = session.body.token;
}, 60_000);
afterAll(() => t.stop());

describe("contract coverage", () => {
  it("lists the operations without a route, and none till implements is among them", async () => {
    const operations = Object.entries(contract.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const unrouted: string[] = [];
    for (const op of operations) {
      const [method, path] = op.split(" ") as [string, string];
      const url = path.replace(/\{[^}]+\}/g, () => randomUUID());
      const token = path.startsWith("/v1/customer-portal/") ? customerSession : seller.token;
      const res = await api(t.url, url, {
        method,
        token,
        ...(method === "GET" || method === "DELETE" ? {} : { body: {} }),
      });
      if (res.status === 404 && String(res.body?.detail ?? "").startsWith("No route")) {
        unrouted.push(op);
      }
    }
    process.stdout.write(
      `${operations.length - unrouted.length} of ${operations.length} contract operations routed; ` +
        `without a route:\n${unrouted.map((o) => `  ${o}`).join("\n")}\n`,
    );
    expect(MUST_ANSWER.every((op) => operations.includes(op))).toBe(true);
    expect(unrouted.filter((op) => MUST_ANSWER.includes(op))).toEqual([]);
  }, 120_000);
});
