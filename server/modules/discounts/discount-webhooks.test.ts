import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { eventsOf, polarFor, startCatalogServer } from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
beforeAll(async () => {
  t = await startCatalogServer();
  seller = await createSeller(t.url, ["discounts:write", "products:write"]);
});
afterAll(() => t.stop());

const discountEvents = async () =>
  (await eventsOf(t, seller.organization.id)).filter((e) => e.type.startsWith("discount."));

describe("discount webhooks", () => {
  it("records discount.created, .updated and .deleted with the discount", async () => {
    const polar = polarFor(t, seller.token);
    const d = await polar.discounts.create({
      type: "percentage",
      name: "Spring",
      code: "SPRING",
      duration: "once",
      basisPoints: 1000,
    });
    await polar.discounts.update({ id: d.id, discountUpdate: { name: "Spring sale" } });
    await polar.discounts.delete({ id: d.id });
    const events = await discountEvents();
    expect(events.map((e) => e.type)).toEqual([
      "discount.created",
      "discount.updated",
      "discount.deleted",
    ]);
    expect(events.map((e) => [e.payload.data.id, e.payload.data.name])).toEqual([
      [d.id, "Spring"],
      [d.id, "Spring sale"],
      [d.id, "Spring sale"],
    ]);
    expect(events[0]!.payload.data).toMatchObject({ code: "SPRING", basis_points: 1000 });
  });

  it("records nothing for a rejected change", async () => {
    const before = (await discountEvents()).length;
    const bad = await api(t.url, "/v1/discounts/", {
      token: seller.token,
      body: { type: "percentage", name: "Bad", duration: "once", basis_points: 20_000 },
    });
    expect(bad.status).toBe(422);
    expect((await discountEvents()).length).toBe(before);
  });
});
