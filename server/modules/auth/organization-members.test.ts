// Organizations through better-auth's endpoints: invitations and their states, members, leaving,
// and the errors of the organization catalogue about them (teams: organization-teams.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { signUp, type TestUser } from "../../../test/helpers/auth.ts";
import {
  invite,
  join,
  newOrganization,
  orgCall,
  verifiedUser,
} from "../../../test/helpers/organizations.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openMailLink } from "../../../test/helpers/browser.ts";

let t: TestServer;
let owner: TestUser;
let org: { id: string; slug: string };
let admin: TestUser;
let member: TestUser;
beforeAll(async () => {
  t = await startTestServer({
    env: { AUTH_ORGANIZATION_INVITATION_LIMIT: "8", AUTH_ORGANIZATION_MEMBERSHIP_LIMIT: "6" },
  });
  owner = await signUp(t.url);
  org = await newOrganization(t.url, owner, "Members");
  admin = await join(t.url, t.server.database, owner, org.id, "admin");
  member = await join(t.url, t.server.database, owner, org.id, "member");
});
afterAll(() => t?.stop());

const statusOf = async (id: string) =>
  (
    await t.server.database.rows<{ status: string }>(
      sql`select status from invitation where id = ${id}`,
    )
  )[0]?.status;

describe("invitations", () => {
  it("pending → accepted: the invitee becomes a member with the invited role", async () => {
    const user = await verifiedUser(t.url, t.server.database);
    const inv = await invite(t.url, owner, org.id, user.email, "member");
    expect(inv.body).toMatchObject({ status: "pending", role: "member", organizationId: org.id });
    expect(await statusOf(inv.body.id)).toBe("pending");
    const got = await orgCall(t.url, user, `get-invitation?id=${inv.body.id}`);
    expect(got.body).toMatchObject({ organizationName: "Members", inviterEmail: owner.email });
    expect(
      (await orgCall(t.url, user, "accept-invitation", { invitationId: inv.body.id })).status,
    ).toBe(200);
    expect(await statusOf(inv.body.id)).toBe("accepted");
  });

  it("pending → rejected and pending → canceled", async () => {
    const a = await verifiedUser(t.url, t.server.database);
    const rejected = await invite(t.url, owner, org.id, a.email, "member");
    expect(
      (await orgCall(t.url, a, "reject-invitation", { invitationId: rejected.body.id })).status,
    ).toBe(200);
    expect(await statusOf(rejected.body.id)).toBe("rejected");
    const b = await verifiedUser(t.url, t.server.database);
    const canceled = await invite(t.url, admin, org.id, b.email, "member");
    expect(
      (await orgCall(t.url, admin, "cancel-invitation", { invitationId: canceled.body.id })).status,
    ).toBe(200);
    expect(await statusOf(canceled.body.id)).toBe("canceled");
    const late = await orgCall(t.url, b, "accept-invitation", { invitationId: canceled.body.id });
    expect(late.body).toMatchObject({
      code: "INVITATION_NOT_FOUND",
      message: "Invitation not found",
    });
  });

  it("EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION: an unverified invitee cannot accept", async () => {
    const unverified = await signUp(t.url);
    const inv = await invite(t.url, owner, org.id, unverified.email, "member");
    const res = await orgCall(t.url, unverified, "accept-invitation", {
      invitationId: inv.body.id,
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION",
    });
    expect(await statusOf(inv.body.id)).toBe("pending");
  });

  it("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION", async () => {
    const invitee = await verifiedUser(t.url, t.server.database);
    const other = await verifiedUser(t.url, t.server.database);
    const inv = await invite(t.url, owner, org.id, invitee.email, "member");
    const res = await orgCall(t.url, other, "accept-invitation", { invitationId: inv.body.id });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION" });
  });

  it("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION and USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", async () => {
    const user = await verifiedUser(t.url, t.server.database);
    await invite(t.url, owner, org.id, user.email, "member");
    const again = await invite(t.url, owner, org.id, user.email, "member");
    expect(again.body).toMatchObject({ code: "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION" });
    const existing = await invite(t.url, owner, org.id, member.email, "member");
    expect(existing.body).toMatchObject({ code: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION" });
  });

  it("inviting is limited by the inviter's own permissions: a member cannot invite, an admin cannot invite an owner", async () => {
    const target = await verifiedUser(t.url, t.server.database);
    const byMember = await invite(t.url, member, org.id, target.email, "member");
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
    });
    const ownerByAdmin = await invite(t.url, admin, org.id, target.email, "owner");
    expect(ownerByAdmin.status).toBe(403);
    expect(ownerByAdmin.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
      message: "You are not allowed to invite a user with this role",
    });
    const noRole = await invite(t.url, owner, org.id, target.email, "no-such-role");
    expect(noRole.status).toBe(400);
    expect(
      await t.server.database.rows(sql`select 1 from invitation where email = ${target.email}`),
    ).toHaveLength(0);
  });

  it("YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION for a member", async () => {
    const target = await verifiedUser(t.url, t.server.database);
    const inv = await invite(t.url, owner, org.id, target.email, "member");
    const res = await orgCall(t.url, member, "cancel-invitation", { invitationId: inv.body.id });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION" });
  });

  it("the invitation email is recorded in the outbox with its link", async () => {
    const target = await verifiedUser(t.url, t.server.database);
    const inv = await invite(t.url, owner, org.id, target.email, "member");
    const mails = await t.server.database.rows<{ link: string }>(
      sql`select link from email_outbox where "to" = ${target.email} and kind = 'invitation'`,
    );
    expect(mails.map((m) => openMailLink(m.link))).toEqual([
      `${t.url}/accept-invitation/${inv.body.id}`,
    ]);
  });
});

describe("members and the organization", () => {
  it("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER; a member may leave", async () => {
    const res = await orgCall(t.url, owner, "leave", { organizationId: org.id });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
      message: "You cannot leave the organization as the only owner",
    });
    const leaver = await join(t.url, t.server.database, owner, org.id, "member");
    expect((await orgCall(t.url, leaver, "leave", { organizationId: org.id })).status).toBe(200);
  });

  it("a member cannot remove or re-role others; MEMBER_NOT_FOUND for an unknown member", async () => {
    const remove = await orgCall(t.url, member, "remove-member", {
      organizationId: org.id,
      memberIdOrEmail: admin.email,
    });
    expect(remove.status).toBe(401); // better-auth answers this one with 401, the rest with 403
    expect(remove.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER" });
    const members = await orgCall(t.url, owner, `list-members?organizationId=${org.id}`);
    const adminMemberId = members.body.members.find(
      (m: { userId: string }) => m.userId === admin.id,
    ).id;
    const rerole = await orgCall(t.url, member, "update-member-role", {
      organizationId: org.id,
      memberId: adminMemberId,
      role: "member",
    });
    // The member may not update members at all (member:update), whoever the target is: 403.
    expect(rerole.status).toBe(403);
    expect(rerole.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
      message: "You are not allowed to update this member",
    });
    const unknown = await orgCall(t.url, owner, "remove-member", {
      organizationId: org.id,
      memberIdOrEmail: "nobody@example.com",
    });
    expect(unknown.body).toMatchObject({ code: "MEMBER_NOT_FOUND", message: "Member not found" });
  });

  it("an admin may update but not delete the organization; a member may do neither", async () => {
    const byMember = await orgCall(t.url, member, "update", {
      organizationId: org.id,
      data: { name: "Renamed" },
    });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
    });
    expect(
      (await orgCall(t.url, admin, "update", { organizationId: org.id, data: { name: "Members" } }))
        .status,
    ).toBe(200);
    const del = await orgCall(t.url, admin, "delete", { organizationId: org.id });
    expect(del.status).toBe(403);
    expect(del.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION" });
  });

  it("ORGANIZATION_ALREADY_EXISTS, ORGANIZATION_SLUG_ALREADY_TAKEN, ORGANIZATION_NOT_FOUND and USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", async () => {
    const taken = await orgCall(t.url, owner, "create", { name: "Dup", slug: org.slug });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({
      code: "ORGANIZATION_ALREADY_EXISTS",
      message: "Organization already exists",
    });
    const other = await newOrganization(t.url, owner, "Other");
    const slugTaken = await orgCall(t.url, owner, "update", {
      organizationId: other.id,
      data: { slug: org.slug },
    });
    expect(slugTaken.status).toBe(400);
    expect(slugTaken.body).toMatchObject({
      code: "ORGANIZATION_SLUG_ALREADY_TAKEN",
      message: "Organization slug already taken",
    });
    // set-active checks membership before existence: an unknown id is "not a member" (403); only an
    // unknown slug reaches ORGANIZATION_NOT_FOUND (400).
    const unknownId = await orgCall(t.url, owner, "set-active", {
      organizationId: "00000000-0000-4000-8000-000000000000",
    });
    expect(unknownId.status).toBe(403);
    expect(unknownId.body).toMatchObject({
      code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
      message: "User is not a member of the organization",
    });
    const unknownSlug = await orgCall(t.url, owner, "set-active", {
      organizationSlug: "no-such-organization",
    });
    expect(unknownSlug.status).toBe(400);
    expect(unknownSlug.body).toMatchObject({
      code: "ORGANIZATION_NOT_FOUND",
      message: "Organization not found",
    });
    const stranger = await signUp(t.url);
    const notMember = await orgCall(t.url, stranger, "set-active", { organizationId: org.id });
    expect(notMember.status).toBe(403);
    expect(notMember.body).toMatchObject({ code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
  });
});

describe("limits", () => {
  it("INVITATION_LIMIT_REACHED and ORGANIZATION_MEMBERSHIP_LIMIT_REACHED", async () => {
    const own = await newOrganization(t.url, owner, "Limits");
    let res = { status: 200, body: {} as Record<string, unknown> };
    for (let i = 0; i < 9 && res.status === 200; i++)
      res = await invite(t.url, owner, own.id, `limit-${i}-${Date.now()}@example.com`, "member");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "INVITATION_LIMIT_REACHED",
      message: "Invitation limit reached",
    });

    const crowd = await newOrganization(t.url, owner, "Crowd");
    for (let i = 0; i < 5; i++) await join(t.url, t.server.database, owner, crowd.id, "member");
    const extra = await verifiedUser(t.url, t.server.database);
    const inv = await invite(t.url, owner, crowd.id, extra.email, "member");
    const acc =
      inv.status === 200
        ? await orgCall(t.url, extra, "accept-invitation", { invitationId: inv.body.id })
        : inv;
    expect(acc.status).toBe(403);
    expect(acc.body).toMatchObject({ code: "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED" });
  });
});
