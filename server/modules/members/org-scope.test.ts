// Tenancy by type at run time: a member read under one organization's scope never returns another
// organization's member, by id, external id or email, in a team's list, in the organization's
// list, or among the members other modules read by id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { created, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { memberOfTeam, memberOfTeamByEmail, membersByIds } from "./queries.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let customerId: string;
let memberId: string;
beforeAll(async () => {
  t = await startTestServer({ worker: false });
  a = await createSeller(t.url, ["customers:write", "members:write"]);
  b = await createSeller(t.url, ["customers:write", "members:write"]);
  customerId = (
    await created<{ id: string }>(t.url, "/v1/customers/", a.token, { email: "team@example.com" })
  ).id;
  memberId = (
    await created<{ id: string }>(t.url, `/v1/customers/${customerId}/members`, a.token, {
      email: "pat@example.com",
      external_id: "pat",
      role: "member",
    })
  ).id;
  const promoted = await api(t.url, `/v1/customers/${customerId}/members/${memberId}`, {
    token: a.token,
    method: "PATCH",
    body: { role: "owner" },
  });
  expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
});
afterAll(() => t?.stop());

describe("OrgScope on members reads", () => {
  it("returns A's member under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await memberOfTeam(db, scopeA, customerId, { id: memberId }))?.id).toBe(memberId);
    expect(await memberOfTeam(db, scopeB, customerId, { id: memberId })).toBeNull();
    expect(await memberOfTeam(db, scopeB, customerId, { externalId: "pat" })).toBeNull();
    expect((await memberOfTeamByEmail(db, scopeA, customerId, "PAT@example.com"))?.id).toBe(
      memberId,
    );
    expect(await memberOfTeamByEmail(db, scopeB, customerId, "pat@example.com")).toBeNull();
    expect((await membersByIds(db, scopeA, [memberId])).map((m) => m.id)).toEqual([memberId]);
    expect(await membersByIds(db, scopeB, [memberId])).toEqual([]);
    expect((await repo.findOwner(db, scopeA, customerId))?.id).toBe(memberId);
    expect(await repo.findOwner(db, scopeB, customerId)).toBeNull();

    const team = (scope: typeof scopeA) => repo.membersOfCustomer(db, scope, customerId, 10, 0);
    expect((await team(scopeA)).rows.map((m) => m.id)).toEqual([memberId]);
    expect(await team(scopeB)).toEqual({ rows: [], total: 0 });
    const list = (scope: typeof scopeA) =>
      repo.listMembers(db, scope, { customerId }, [{ desc: false }], 10, 0);
    expect((await list(scopeA)).rows.map((m) => m.id)).toEqual([memberId]);
    expect(await list(scopeB)).toEqual({ rows: [], total: 0 });
  });

  it("answers B's token asking for A's member with 404, changing nothing", async () => {
    const res = await api(t.url, `/v1/customers/${customerId}/members/${memberId}`, {
      token: b.token,
      method: "PATCH",
      body: { name: "Mallory" },
    });
    expect(res.status).toBe(404);
    const member = await memberOfTeam(t.server.database.db, scopeOfSeller(a), customerId, {
      id: memberId,
    });
    expect(member?.name).toBeNull();
  });
});
