// Tenancy by type at run time: a payment or saved payment method read under one organization's
// scope never returns another organization's, by id, in a list (customers named by email resolved
// within the scope), as a customer's methods or an order's last attempt; a card of another
// organization's customer is neither made the default nor removed.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import {
  customerPaymentMethods,
  defaultPaymentMethod,
  defaultPaymentMethods,
  lastPaymentOfOrder,
  processorCustomerId,
} from "./queries.ts";
import { makeCardDefault } from "./service.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let customerId: string;
let paymentId: string;
let methodId: string;
const orderId = randomUUID();
const email = "payer@example.com";
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["customers:write"]);
  b = await createSeller(t.url, ["customers:write"]);
  const db = t.server.database.db;
  customerId = (await polarClient(t, a.token).customers.create({ email })).id;
  // B has a customer with the same email: naming it filters B's payments, never A's.
  await polarClient(t, b.token).customers.create({ email });
  await repo.insertPayment(db, {
    organizationId: a.organization.id,
    customerId,
    orderId,
    idempotencyKey: `scoped-${orderId}`,
    processor: "sandbox",
    status: "succeeded",
    amount: 500,
    currency: "usd",
  });
  await repo.insertPaymentMethod(db, {
    organizationId: a.organization.id,
    customerId,
    processor: "sandbox",
    processorPaymentMethodId: "pm_scoped",
    processorCustomerId: "cus_scoped",
    brand: "visa",
    last4: "4242",
  });
  const scopeA = scopeOfSeller(a);
  paymentId = (await repo.listPayments(db, { scope: scopeA }, [], 10, 0)).rows[0]!.id;
  methodId = (await customerPaymentMethods(db, scopeA, customerId))[0]!.id;
});
afterAll(() => t?.stop());

describe("OrgScope on payments reads", () => {
  it("returns A's payment under A's scope only, by id, in lists and as an order's last", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findPayment(db, scopeA, paymentId))?.id).toBe(paymentId);
    expect(await repo.findPayment(db, scopeB, paymentId)).toBeNull();
    const byEmail = { customerEmails: [email] };
    const listA = await repo.listPayments(db, { scope: scopeA, ...byEmail }, [], 10, 0);
    expect(listA.rows.map((r) => r.id)).toEqual([paymentId]);
    const listB = await repo.listPayments(db, { scope: scopeB, ...byEmail }, [], 10, 0);
    expect(listB).toEqual({ rows: [], total: 0 });
    expect((await lastPaymentOfOrder(db, scopeA, orderId))?.id).toBe(paymentId);
    expect(await lastPaymentOfOrder(db, scopeB, orderId)).toBeNull();
  });

  it("reads A's customer's saved methods under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await defaultPaymentMethod(db, scopeA, customerId))?.id).toBe(methodId);
    expect(await defaultPaymentMethod(db, scopeB, customerId)).toBeNull();
    expect((await defaultPaymentMethods(db, scopeA, [customerId])).size).toBe(1);
    expect((await defaultPaymentMethods(db, scopeB, [customerId])).size).toBe(0);
    expect(await customerPaymentMethods(db, scopeB, customerId)).toEqual([]);
    expect(await processorCustomerId(db, scopeA, customerId, "sandbox")).toBe("cus_scoped");
    expect(await processorCustomerId(db, scopeB, customerId, "sandbox")).toBeNull();
    const now = new Date();
    expect(await makeCardDefault(db, scopeB, customerId, methodId, now)).toBe(false);
    expect(await makeCardDefault(db, scopeA, customerId, methodId, now)).toBe(true);
    expect(await repo.deleteCustomerMethod(db, scopeB, customerId, methodId, now)).toBeNull();
    expect((await customerPaymentMethods(db, scopeA, customerId)).length).toBe(1);
  });
});
