// Organizations through better-auth's organization endpoints, with bearer tokens: an owner's
// organization, and members who joined it through a real invitation (email verified, accepted).
import { randomBytes } from "node:crypto";
import type { Database } from "../../db/client.ts";
import { api, signUp, type TestUser } from "./auth.ts";
import { lastLink } from "./browser.ts";

export async function orgCall(base: string, user: TestUser, path: string, body?: unknown) {
  return api(
    base,
    `/api/auth/organization/${path}`,
    body === undefined ? { token: user.token } : { token: user.token, body },
  );
}

export async function verifiedUser(base: string, database: Database): Promise<TestUser> {
  const user = await signUp(base);
  const link = await lastLink(database, user.email, "verify-email");
  const res = await fetch(link.replace(/callbackURL=[^&]*/, ""), { redirect: "manual" });
  if (res.status !== 200) throw new Error(`verification failed: ${res.status}`);
  return user;
}

export async function newOrganization(base: string, owner: TestUser, name = "Org") {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${randomBytes(4).toString("hex")}`;
  const res = await orgCall(base, owner, "create", { name, slug });
  if (res.status !== 200)
    throw new Error(`organization create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; slug: string };
}

export async function invite(
  base: string,
  inviter: TestUser,
  organizationId: string,
  email: string,
  role: string,
) {
  return orgCall(base, inviter, "invite-member", { email, role, organizationId });
}

/** A verified user who accepted an invitation to `organizationId` with `role`. */
export async function join(
  base: string,
  database: Database,
  owner: TestUser,
  organizationId: string,
  role: string,
): Promise<TestUser> {
  const user = await verifiedUser(base, database);
  const inv = await invite(base, owner, organizationId, user.email, role);
  if (inv.status !== 200)
    throw new Error(`invite failed: ${inv.status} ${JSON.stringify(inv.body)}`);
  const acc = await orgCall(base, user, "accept-invitation", { invitationId: inv.body.id });
  if (acc.status !== 200)
    throw new Error(`accept failed: ${acc.status} ${JSON.stringify(acc.body)}`);
  return user;
}
