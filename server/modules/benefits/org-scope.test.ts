// Tenancy by type at run time: a benefit read under one organization's scope never returns another
// organization's benefit, by id, in a list, or as the downloadables offering a file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { benefitsUsingFile } from "./queries.ts";
import * as repo from "./repository.ts";
import { benefitRowsByIds, serializeBenefitsByIds, benefitsOf } from "./service.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let benefitId: string;
const fileId = "00000000-0000-4000-8000-0000000000f1";
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["benefits:write"]);
  b = await createSeller(t.url, ["benefits:write"]);
  const row = await repo.insertBenefit(t.server.database.db, {
    organizationId: a.organization.id,
    type: "downloadables",
    description: "Scoped files",
    properties: { archived: {}, files: [fileId] },
  });
  benefitId = row.id;
});
afterAll(() => t?.stop());

describe("OrgScope on benefits reads", () => {
  it("returns A's benefit under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findBenefit(db, scopeA, benefitId))?.id).toBe(benefitId);
    expect(await repo.findBenefit(db, scopeB, benefitId)).toBeNull();
    expect((await benefitsOf(db, scopeA, [benefitId])).map((r) => r.id)).toEqual([benefitId]);
    expect(await benefitsOf(db, scopeB, [benefitId])).toEqual([]);
    expect((await serializeBenefitsByIds(db, scopeA, [benefitId])).map((r) => r.id)).toEqual([
      benefitId,
    ]);
    expect(await serializeBenefitsByIds(db, scopeB, [benefitId])).toEqual([]);
    expect((await benefitRowsByIds(db, scopeA, [benefitId])).map((r) => r.id)).toEqual([benefitId]);
    expect(await benefitRowsByIds(db, scopeB, [benefitId])).toEqual([]);
    expect(await benefitsUsingFile(db, scopeA, fileId)).toEqual([benefitId]);
    expect(await benefitsUsingFile(db, scopeB, fileId)).toEqual([]);
    const filter = { ids: [benefitId], metadata: {} };
    const listA = await repo.listBenefits(db, scopeA, filter, [], 10, 0);
    expect(listA.rows.map((r) => r.id)).toEqual([benefitId]);
    expect(await repo.listBenefits(db, scopeB, filter, [], 10, 0)).toEqual({ rows: [], total: 0 });
  });
});
