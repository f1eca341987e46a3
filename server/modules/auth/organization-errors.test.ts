// The rest of the organization error catalogue: who may create organizations and how many
// (AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION, AUTH_USER_MAX_ORGANIZATIONS), custom role limits and reads
// (AUTH_ORGANIZATION_MAX_ROLES), calls without an active organization, an inviter who left, an
// organization left without an owner, invitation listings, and the codes better-auth cannot answer
// with till's configuration.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { ORGANIZATION_ERROR_CODES } from "better-auth/client/plugins";
import { api, signUp, type TestUser } from "../../../test/helpers/auth.ts";
import { uniqueEmail } from "../../../test/helpers/browser.ts";
import {
  invite,
  join,
  newOrganization,
  orgCall,
  verifiedUser,
} from "../../../test/helpers/organizations.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let restricted: TestServer;
let owner: TestUser;
let org: { id: string; slug: string };
const adminEmail = uniqueEmail("first-admin");
beforeAll(async () => {
  [t, restricted] = await Promise.all([
    startTestServer({
      env: { AUTH_USER_MAX_ORGANIZATIONS: "2", AUTH_ORGANIZATION_MAX_ROLES: "2" },
    }),
    startTestServer({
      env: { AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION: "false", TILL_ADMIN_EMAILS: adminEmail },
    }),
  ]);
  owner = await signUp(t.url);
  org = await newOrganization(t.url, owner, "Errors");
});
afterAll(() => Promise.all([t?.stop(), restricted?.stop()]));

const orgCount = async (server: TestServer) =>
  (
    await server.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from organization`,
    )
  )[0]!.n;

describe("creating organizations", () => {
  it("AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION=false: YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION for a user, on both APIs; an admin may", async () => {
    const user = await signUp(restricted.url);
    const before = await orgCount(restricted);
    const res = await orgCall(restricted.url, user, "create", {
      name: "Nope",
      slug: `nope-${user.id}`,
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
      message: "You are not allowed to create a new organization",
    });
    const v1 = await api(restricted.url, "/v1/organizations/", {
      token: user.token,
      body: { name: "Nope", slug: `nope-v1-${user.id}` },
    });
    expect(v1.status).toBe(403);
    expect(v1.body).toEqual({
      error: "NotPermitted",
      detail: "You are not allowed to create a new organization.",
    });
    expect(await orgCount(restricted)).toBe(before);

    const admin = await signUp(restricted.url, { email: adminEmail });
    expect(
      (await orgCall(restricted.url, admin, "create", { name: "Ours", slug: `ours-${admin.id}` }))
        .status,
    ).toBe(200);
    expect(
      (
        await api(restricted.url, "/v1/organizations/", {
          token: admin.token,
          body: { name: "Ours too", slug: `ours-v1-${admin.id}` },
        })
      ).status,
    ).toBe(201);
  });

  it("AUTH_USER_MAX_ORGANIZATIONS=2: YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS on the third, on both APIs", async () => {
    const user = await signUp(t.url);
    await newOrganization(t.url, user, "One");
    await newOrganization(t.url, user, "Two");
    const before = await orgCount(t);
    const third = await orgCall(t.url, user, "create", { name: "Three", slug: `three-${user.id}` });
    expect(third.status).toBe(403);
    expect(third.body).toMatchObject({
      code: "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS",
      message: "You have reached the maximum number of organizations",
    });
    const v1 = await api(t.url, "/v1/organizations/", {
      token: user.token,
      body: { name: "Three", slug: `three-v1-${user.id}` },
    });
    expect(v1.status).toBe(403);
    expect(v1.body).toEqual({
      error: "NotPermitted",
      detail: "You have reached the maximum number of organizations.",
    });
    expect(await orgCount(t)).toBe(before);
  });
});

describe("without an active organization", () => {
  // A user who never created or joined one: no organizationId in the call, none active in the session.
  const calls: [string, string, unknown?][] = [
    ["list-roles", "list-roles"],
    ["get-role", "get-role?roleName=billing"],
    ["update-role", "update-role", { roleName: "billing", data: { permission: { ac: ["read"] } } }],
    ["delete-role", "delete-role", { roleName: "billing" }],
    ["list-members", "list-members"],
    ["get-active-member", "get-active-member"],
    ["get-active-member-role", "get-active-member-role"],
    [
      "update-member-role",
      "update-member-role",
      { memberId: "00000000-0000-4000-8000-000000000000", role: "admin" },
    ],
    ["remove-member", "remove-member", { memberIdOrEmail: "someone@example.com" }],
    ["has-permission", "has-permission", { permissions: { member: ["create"] } }],
    ["list-teams", "list-teams"],
    ["create-team", "create-team", { name: "Team" }],
    [
      "add-team-member",
      "add-team-member",
      {
        teamId: "00000000-0000-4000-8000-000000000000",
        userId: "00000000-0000-4000-8000-000000000000",
      },
    ],
    [
      "remove-team-member",
      "remove-team-member",
      {
        teamId: "00000000-0000-4000-8000-000000000000",
        userId: "00000000-0000-4000-8000-000000000000",
      },
    ],
  ];
  let loner: TestUser;
  beforeAll(async () => {
    loner = await signUp(t.url);
  });

  it.each(calls)("%s → 400 NO_ACTIVE_ORGANIZATION", async (_name, path, body) => {
    const res = await orgCall(t.url, loner, path, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "NO_ACTIVE_ORGANIZATION",
      message: "No active organization",
    });
  });

  it("create-role → 400 YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE", async () => {
    const res = await orgCall(t.url, loner, "create-role", {
      role: "billing",
      permission: { ac: ["read"] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE",
      message: "You must be in an organization to create a role",
    });
  });
});

describe("custom roles", () => {
  it("AUTH_ORGANIZATION_MAX_ROLES=2: TOO_MANY_ROLES for the third custom role, and it is not stored", async () => {
    for (const role of ["first", "second"]) {
      expect(
        (
          await orgCall(t.url, owner, "create-role", {
            organizationId: org.id,
            role,
            permission: { ac: ["read"] },
          })
        ).status,
      ).toBe(200);
    }
    const third = await orgCall(t.url, owner, "create-role", {
      organizationId: org.id,
      role: "third",
      permission: { ac: ["read"] },
    });
    expect(third.status).toBe(400);
    expect(third.body).toMatchObject({
      code: "TOO_MANY_ROLES",
      message: "This organization has too many roles",
    });
    const roles = await orgCall(t.url, owner, `list-roles?organizationId=${org.id}`);
    expect(roles.body.map((r: { role: string }) => r.role).sort()).toEqual(["first", "second"]);
  });

  it("a member whose role lacks ac:read: YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE and YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE; an outsider: YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION", async () => {
    const own = await newOrganization(t.url, owner, "Greeters");
    expect(
      (
        await orgCall(t.url, owner, "create-role", {
          organizationId: own.id,
          role: "greeter",
          permission: { invitation: ["create"] },
        })
      ).status,
    ).toBe(200);
    const greeter = await join(t.url, t.server.database, owner, own.id, "greeter");
    const list = await orgCall(t.url, greeter, `list-roles?organizationId=${own.id}`);
    expect(list.status).toBe(403);
    expect(list.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE",
      message: "You are not allowed to list a role",
    });
    const read = await orgCall(
      t.url,
      greeter,
      `get-role?organizationId=${own.id}&roleName=greeter`,
    );
    expect(read.status).toBe(403);
    expect(read.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE",
      message: "You are not allowed to read a role",
    });
    const outsider = await orgCall(
      t.url,
      await signUp(t.url),
      `get-role?organizationId=${own.id}&roleName=greeter`,
    );
    expect(outsider.status).toBe(403);
    expect(outsider.body).toMatchObject({ code: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION" });
    expect(
      (await orgCall(t.url, owner, `get-role?organizationId=${own.id}&roleName=greeter`)).status,
    ).toBe(200);
  });
});

describe("members and invitations", () => {
  it("INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: the invitee reads an invitation whose inviter left", async () => {
    const admin = await join(t.url, t.server.database, owner, org.id, "admin");
    const invitee = await verifiedUser(t.url, t.server.database);
    const inv = await invite(t.url, admin, org.id, invitee.email, "member");
    expect(inv.status).toBe(200);
    expect((await orgCall(t.url, admin, "leave", { organizationId: org.id })).status).toBe(200);
    const res = await orgCall(t.url, invitee, `get-invitation?id=${inv.body.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION",
      message: "Inviter is no longer a member of the organization",
    });
  });

  it("YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: the sole owner cannot give up the owner role", async () => {
    const members = await orgCall(t.url, owner, `list-members?organizationId=${org.id}`);
    const self = members.body.members.find((m: { userId: string }) => m.userId === owner.id);
    const res = await orgCall(t.url, owner, "update-member-role", {
      organizationId: org.id,
      memberId: self.id,
      role: "admin",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER",
      message: "You cannot leave the organization without an owner",
    });
    const [row] = await t.server.database.rows<{ role: string }>(
      sql`select role from member where id = ${self.id}`,
    );
    expect(row!.role).toBe("owner");
  });

  it("YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS for a member; EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION for an unverified invitee", async () => {
    const member = await join(t.url, t.server.database, owner, org.id, "member");
    const list = await orgCall(t.url, member, `list-invitations?organizationId=${org.id}`);
    expect(list.status).toBe(403);
    expect(list.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS",
      message: "You are not allowed to list invitations for this organization",
    });
    const unverified = await signUp(t.url);
    const inv = await invite(t.url, owner, org.id, unverified.email, "member");
    const own = await api(t.url, "/api/auth/organization/list-user-invitations", {
      token: unverified.token,
    });
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({ code: "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION" });
    const one = await orgCall(t.url, unverified, `get-invitation?id=${inv.body.id}`);
    expect(one.status).toBe(403);
    expect(one.body).toMatchObject({
      code: "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION",
      message: "Email verification required to view or list invitations for the session email",
    });
  });
});

describe("codes better-auth cannot answer with till's configuration", () => {
  // Read from the installed library, so an upgrade that starts using one of them fails here.
  const dir = path.join(
    path.dirname(fileURLToPath(import.meta.resolve("better-auth"))),
    "plugins",
    "organization",
  );
  const source = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".mjs") && !f.endsWith("error-codes.mjs"))
    .map((f) => readFileSync(path.join(dir, f), "utf8"))
    .join("\n");

  it("four codes are defined but never thrown by better-auth", () => {
    const neverThrown = Object.keys(ORGANIZATION_ERROR_CODES).filter(
      (code) => !new RegExp(`ORGANIZATION_ERROR_CODES\\.${code}\\b`).test(source),
    );
    expect(neverThrown.sort()).toEqual([
      "FAILED_TO_RETRIEVE_INVITATION",
      "TEAM_ALREADY_EXISTS",
      "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM",
      "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM",
    ]);
  });

  it("YOU_ARE_NOT_ALLOWED_TO_GET_A_ROLE is the fallback of a role check that is only run for create and update", () => {
    expect(source).toMatch(
      /else error = ORGANIZATION_ERROR_CODES\.YOU_ARE_NOT_ALLOWED_TO_GET_A_ROLE/,
    );
    const actions = [...source.matchAll(/\baction: "(\w+)"/g)].map((m) => m[1]);
    expect([...new Set(actions)].sort()).toEqual(["create", "update"]);
  });

  // MISSING_AC_INSTANCE (501) is only answered when the organization plugin has no `ac`, i.e. when
  // dynamic access control is enabled without one; till always passes its access control, which
  // custom roles need. UNABLE_TO_REMOVE_LAST_TEAM is off because till sets allowRemovingAllTeams
  // (organization-teams.test.ts removes an organization's last team).
  it("MISSING_AC_INSTANCE: till's roles work, so the plugin has its access control instance", async () => {
    const res = await orgCall(t.url, owner, `list-roles?organizationId=${org.id}`);
    expect(res.status).toBe(200);
    expect(source).toMatch(/if \(!ac\) \{[^}]*MISSING_AC_INSTANCE/);
  });
});
