// The organization permission matrix (every role × every resource/action) and custom roles made
// with dynamic access control.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, type TestUser } from "../../../test/helpers/auth.ts";
import { join, newOrganization, orgCall } from "../../../test/helpers/organizations.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

// The spec's matrix, written out rather than derived from better-auth's role objects.
const ACTIONS: Record<string, string[]> = {
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  ac: ["create", "read", "update", "delete"],
};
const ALLOWED: Record<string, (resource: string, action: string) => boolean> = {
  owner: () => true,
  admin: (resource, action) => !(resource === "organization" && action === "delete"),
  member: (resource, action) => resource === "ac" && action === "read",
};

let t: TestServer;
let owner: TestUser;
let org: { id: string };
const users: Record<string, TestUser> = {};
beforeAll(async () => {
  t = await startTestServer();
  owner = await signUp(t.url);
  org = await newOrganization(t.url, owner, "Matrix");
  users.owner = owner;
  users.admin = await join(t.url, t.server.database, owner, org.id, "admin");
  users.member = await join(t.url, t.server.database, owner, org.id, "member");
});
afterAll(() => t?.stop());

describe("permission matrix", () => {
  const cases = Object.keys(ALLOWED).flatMap((role) =>
    Object.entries(ACTIONS).flatMap(([resource, actions]) =>
      actions.map((action) => ({
        role,
        resource,
        action,
        allowed: ALLOWED[role]!(resource, action),
      })),
    ),
  );

  it.each(cases)(
    "$role × $resource:$action → $allowed",
    async ({ role, resource, action, allowed }) => {
      const res = await orgCall(t.url, users[role]!, "has-permission", {
        organizationId: org.id,
        permissions: { [resource]: [action] },
      });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(allowed);
    },
  );
});

describe("custom roles (dynamic access control)", () => {
  it("an owner creates a role with a permission map; a member given it gains exactly those permissions", async () => {
    const created = await orgCall(t.url, owner, "create-role", {
      organizationId: org.id,
      role: "support",
      permission: { invitation: ["create"], ac: ["read"] },
    });
    expect(created.status).toBe(200);
    const helper = await join(t.url, t.server.database, owner, org.id, "member");
    const members = await orgCall(t.url, owner, `list-members?organizationId=${org.id}`);
    const memberId = members.body.members.find(
      (m: { userId: string }) => m.userId === helper.id,
    ).id;
    expect(
      (
        await orgCall(t.url, owner, "update-member-role", {
          organizationId: org.id,
          memberId,
          role: "support",
        })
      ).status,
    ).toBe(200);
    const can = await orgCall(t.url, helper, "has-permission", {
      organizationId: org.id,
      permissions: { invitation: ["create"] },
    });
    expect(can.body.success).toBe(true);
    const cannot = await orgCall(t.url, helper, "has-permission", {
      organizationId: org.id,
      permissions: { invitation: ["cancel"] },
    });
    expect(cannot.body.success).toBe(false);
    const listed = await orgCall(t.url, owner, `list-roles?organizationId=${org.id}`);
    expect(listed.body.map((r: { role: string }) => r.role)).toContain("support");
  });

  it("ROLE_NAME_IS_ALREADY_TAKEN, INVALID_RESOURCE, ROLE_NOT_FOUND", async () => {
    await orgCall(t.url, owner, "create-role", {
      organizationId: org.id,
      role: "billing",
      permission: { ac: ["read"] },
    });
    const dup = await orgCall(t.url, owner, "create-role", {
      organizationId: org.id,
      role: "billing",
      permission: { ac: ["read"] },
    });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({
      code: "ROLE_NAME_IS_ALREADY_TAKEN",
      message: "That role name is already taken",
    });
    const bad = await orgCall(t.url, owner, "create-role", {
      organizationId: org.id,
      role: "weird",
      permission: { spaceship: ["fly"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "INVALID_RESOURCE" });
    const missing = await orgCall(t.url, owner, `get-role?organizationId=${org.id}&roleName=nope`);
    expect(missing.body).toMatchObject({ code: "ROLE_NOT_FOUND", message: "Role not found" });
  });

  it("CANNOT_DELETE_A_PRE_DEFINED_ROLE and ROLE_IS_ASSIGNED_TO_MEMBERS", async () => {
    const pre = await orgCall(t.url, owner, "delete-role", {
      organizationId: org.id,
      roleName: "admin",
    });
    expect(pre.status).toBe(400);
    expect(pre.body).toMatchObject({
      code: "CANNOT_DELETE_A_PRE_DEFINED_ROLE",
      message: "Cannot delete a pre-defined role",
    });
    await orgCall(t.url, owner, "create-role", {
      organizationId: org.id,
      role: "auditor",
      permission: { ac: ["read"] },
    });
    const auditor = await join(t.url, t.server.database, owner, org.id, "auditor");
    expect(auditor.id).toBeDefined();
    const assigned = await orgCall(t.url, owner, "delete-role", {
      organizationId: org.id,
      roleName: "auditor",
    });
    expect(assigned.status).toBe(400);
    expect(assigned.body).toMatchObject({ code: "ROLE_IS_ASSIGNED_TO_MEMBERS" });
  });

  it("a member may read roles but not create, update or delete them", async () => {
    const member = users.member!;
    expect((await orgCall(t.url, member, `list-roles?organizationId=${org.id}`)).status).toBe(200);
    const create = await orgCall(t.url, member, "create-role", {
      organizationId: org.id,
      role: "mine",
      permission: { ac: ["read"] },
    });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE" });
    const update = await orgCall(t.url, member, "update-role", {
      organizationId: org.id,
      roleName: "billing",
      data: { permission: { ac: ["read", "create"] } },
    });
    expect(update.status).toBe(403);
    expect(update.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE" });
    const del = await orgCall(t.url, member, "delete-role", {
      organizationId: org.id,
      roleName: "billing",
    });
    expect(del.status).toBe(403);
    expect(del.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE" });
  });

  it("someone outside the organization cannot list its roles", async () => {
    const stranger = await signUp(t.url);
    const res = await orgCall(t.url, stranger, `list-roles?organizationId=${org.id}`);
    // list-roles looks the caller up as a member before checking ac:read.
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
      message: "You are not a member of this organization",
    });
  });
});
