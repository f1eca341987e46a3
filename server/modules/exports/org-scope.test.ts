// Tenancy by type at run time: an export read under one organization's scope never includes another
// organization's rows, and an empty scope exports nothing rather than everything.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["customers:write"]);
  b = await createSeller(t.url, ["customers:write"]);
  const res = await fetch(`${t.url}/v1/customers/`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "exported@example.com" }),
  });
  expect(res.status).toBe(201);
});
afterAll(() => t?.stop());

describe("OrgScope on exports reads", () => {
  it("exports A's rows under A's scope only", async () => {
    const db = t.server.database.db;
    const lines = async (batch: Promise<repo.Batch>) => (await (await batch).data).join("");
    const customers = (scope: OrgScope) => lines(repo.customerBatch(db, scope, null, 100));
    expect(await customers(scopeOfSeller(a))).toContain("exported@example.com");
    expect(await customers(scopeOfSeller(b))).toBe("");
    expect(await customers(scopeOfResource())).toBe("");
    const orders = (scope: OrgScope) =>
      lines(repo.orderBatch(db, { scope }, ["currency"], "UTC", null, 100));
    expect(await orders(scopeOfResource())).toBe("");
    const subscriptions = (scope: OrgScope) =>
      lines(repo.subscriptionBatch(db, { scope }, ["currency"], "UTC", null, 100));
    expect(await subscriptions(scopeOfResource())).toBe("");
  });
});
