// Tenancy by type at run time: a seat read under one organization's scope never returns another
// organization's seat, locked by id (the seller's or the buyer's), as a purchase's seats, or as the
// subscriptions a customer holds a claimed seat on.
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { buy } from "../../../test/helpers/grants.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let seatId: string;
let customerId: string;
let subscriptionId: string;
const email = "holder@example.com";
beforeAll(async () => {
  t = await startTestServer();
  const scopes = ["products:write", "checkouts:write", "orders:read"];
  a = await createSeller(t.url, scopes);
  b = await createSeller(t.url, scopes);
  const polar = new Polar({ accessToken: a.token, serverURL: t.url });
  const monthly = await polar.products.create({
    name: "A's team plan",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
  });
  const order = await buy(polar, a.organization.id, monthly.id, "buyer@example.com");
  customerId = order.customerId;
  subscriptionId = order.subscriptionId!;
  const seat = await repo.insertSeat(t.server.database.db, {
    organizationId: a.organization.id,
    billingCustomerId: customerId,
    subscriptionId,
    status: "claimed",
    email,
    customerId,
  });
  seatId = seat.id;
});
afterAll(() => t?.stop());

describe("OrgScope on seats reads", () => {
  it("returns A's seats under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const purchase = { subscriptionId };

    expect((await repo.seatsOfPurchase(db, scopeA, purchase)).map((s) => s.id)).toEqual([seatId]);
    expect(await repo.seatsOfPurchase(db, scopeB, purchase)).toEqual([]);
    expect(await repo.countLiveSeats(db, scopeA, purchase)).toBe(1);
    expect(await repo.countLiveSeats(db, scopeB, purchase)).toBe(0);
    expect((await repo.liveSeatOfEmail(db, scopeA, purchase, email))?.id).toBe(seatId);
    expect(await repo.liveSeatOfEmail(db, scopeB, purchase, email)).toBeNull();
    expect(await repo.claimedSubscriptionIds(db, scopeA, customerId)).toEqual([subscriptionId]);
    expect(await repo.claimedSubscriptionIds(db, scopeB, customerId)).toEqual([]);
  });

  it("locks A's seat for A's seller or buyer only", async () => {
    await inTransaction(t.server.database.db, async (tx) => {
      const scopeA = scopeOfSeller(a);
      const scopeB = scopeOfSeller(b);
      expect((await repo.lockSeatOfOrganization(tx, scopeA, seatId))?.id).toBe(seatId);
      expect(await repo.lockSeatOfOrganization(tx, scopeB, seatId)).toBeNull();
      const onlyB = scopeOfCaller(callerOf([b.organization.id]), a.organization.id);
      expect(await repo.lockSeatOfOrganization(tx, onlyB, seatId)).toBeNull();
      expect((await repo.lockSeatOfBuyer(tx, scopeA, customerId, seatId))?.id).toBe(seatId);
      expect(await repo.lockSeatOfBuyer(tx, scopeB, customerId, seatId)).toBeNull();
    });
  });
});
