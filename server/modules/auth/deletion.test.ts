// Deleting accounts and organizations over HTTP: an account that belongs to an organization is
// not deleted, by its user (before a link is mailed, and when one is followed) or by an admin; an
// organization that has charged is not deleted; one that only gave things away is, with its rows.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Polar } from "@polar-sh/sdk";
import { serverWithAdmin } from "../../../test/helpers/admin.ts";
import {
  api,
  createOrganization,
  createSeller,
  signUp,
  type TestUser,
} from "../../../test/helpers/auth.ts";
import { buy } from "../../../test/helpers/billing.ts";
import { lastLink, mailsTo, uniqueEmail } from "../../../test/helpers/browser.ts";
import type { TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let admin: TestUser;
beforeAll(async () => {
  ({ t, admin } = await serverWithAdmin());
});
afterAll(() => t?.stop());

const deleteUser = (user: TestUser, body: Record<string, unknown> = {}) =>
  api(t.url, "/api/auth/delete-user", { token: user.token, body });
const deleteOrganization = (user: TestUser, organizationId: string) =>
  api(t.url, "/api/auth/organization/delete", { token: user.token, body: { organizationId } });

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(query);
  return row!.n;
}
const userExists = async (id: string) =>
  (await count(sql`select count(*)::int as n from "user" where id = ${id}`)) === 1;

/** A seller whose product at `amount` cents (0: free) a new customer bought. */
async function sellerWhoSold(amount: number) {
  const seller = await createSeller(t.url, ["products:write", "checkouts:write"]);
  const s = {
    token: seller.token,
    organizationId: seller.organization.id,
    polar: new Polar({ accessToken: seller.token, serverURL: t.url }),
    call: () => Promise.reject(new Error("unused")),
  };
  const product = await s.polar.products.create({
    name: amount > 0 ? "Icon pack" : "Free sampler",
    prices: [
      amount > 0
        ? { amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }
        : { amountType: "free" },
    ],
  });
  await buy(s, product.id, "sandbox_token_success", uniqueEmail("buyer"));
  return seller;
}

describe("deleting an account", () => {
  it("a member of an organization is refused before any link is mailed; once it is gone, the account is deleted", async () => {
    const owner = await signUp(t.url);
    const org = await createOrganization(t.url, owner, "Kestrel Labs");
    const refused = await deleteUser(owner, { password: owner.password });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: "USER_HAS_ORGANIZATIONS",
      message: `Leave your organizations, or delete those you own, before deleting your account: Kestrel Labs (${org.slug}).`,
    });
    expect(await mailsTo(t.server.database, owner.email, "delete-account")).toHaveLength(0);
    expect(await userExists(owner.id)).toBe(true);

    expect((await deleteOrganization(owner, org.id)).status).toBe(200);
    expect((await deleteUser(owner, { password: owner.password })).body).toEqual({
      success: true,
      message: "Verification email sent",
    });
    const link = new URL(await lastLink(t.server.database, owner.email, "delete-account"));
    const done = await fetch(`${t.url}${link.pathname}${link.search}`, {
      headers: { authorization: `Bearer ${owner.token}` },
      redirect: "manual",
    });
    expect(done.status).toBe(302);
    expect(await userExists(owner.id)).toBe(false);
  });

  it("a link mailed before the user joined an organization no longer deletes the account", async () => {
    const user = await signUp(t.url);
    expect((await deleteUser(user, { password: user.password })).status).toBe(200);
    const token = new URL(
      await lastLink(t.server.database, user.email, "delete-account"),
    ).searchParams.get("token")!;
    const org = await createOrganization(t.url, user, "Late Joiner");
    const refused = await deleteUser(user, { token });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("USER_HAS_ORGANIZATIONS");
    expect(await userExists(user.id)).toBe(true);
    expect(
      await count(sql`select count(*)::int as n from member where organization_id = ${org.id}`),
    ).toBe(1);
  });

  it("an admin cannot remove a member of an organization; a non-admin learns nothing about the user", async () => {
    const owner = await signUp(t.url);
    const org = await createOrganization(t.url, owner, "Heron Works");
    const refused = await api(t.url, "/api/auth/admin/remove-user", {
      token: admin.token,
      body: { userId: owner.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: "USER_HAS_ORGANIZATIONS",
      message: `Remove the user from their organizations before deleting the account: Heron Works (${org.slug}).`,
    });
    const loner = await signUp(t.url);
    const stranger = await signUp(t.url);
    const asStranger = (userId: string) =>
      api(t.url, "/api/auth/admin/remove-user", { token: stranger.token, body: { userId } });
    const [ofOwner, ofLoner] = [await asStranger(owner.id), await asStranger(loner.id)];
    expect(ofOwner.status).toBe(403);
    expect(ofOwner.body).toEqual(ofLoner.body);
    expect(await userExists(owner.id)).toBe(true);
    expect(
      (
        await api(t.url, "/api/auth/admin/remove-user", {
          token: admin.token,
          body: { userId: loner.id },
        })
      ).status,
    ).toBe(200);
    expect(await userExists(loner.id)).toBe(false);
  });
});

describe("deleting an organization", () => {
  it("one that has charged is refused and keeps every row; one that only gave things away goes with its rows", async () => {
    const { user: owner, organization: selling } = await sellerWhoSold(900);
    const refused = await deleteOrganization(owner, selling.id);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: "ORGANIZATION_HAS_SALES",
      message:
        "An organization with paid orders or running paid subscriptions cannot be deleted: its customers' orders and payments are kept.",
    });
    for (const table of ["organization", "member"] as const)
      expect(
        await count(
          sql`select count(*)::int as n from ${sql.identifier(table)} where ${sql.identifier(table === "organization" ? "id" : "organization_id")} = ${selling.id}`,
        ),
      ).toBe(1);
    expect(
      await count(sql`select count(*)::int as n from orders where organization_id = ${selling.id}`),
    ).toBe(1);

    const { user: giver, organization: giving } = await sellerWhoSold(0);
    expect(
      await count(sql`select count(*)::int as n from orders where organization_id = ${giving.id}`),
    ).toBe(1);
    const deleted = await deleteOrganization(giver, giving.id);
    expect(deleted.status).toBe(200);
    for (const table of ["orders", "customers", "products", "member"] as const)
      expect(
        await count(
          sql`select count(*)::int as n from ${sql.identifier(table)} where organization_id = ${giving.id}`,
        ),
      ).toBe(0);
  });
});
