// Teams through better-auth's organization endpoints: create/rename/delete, names, limits, team
// members, and the team errors of the organization catalogue.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { signUp, type TestUser } from "../../../test/helpers/auth.ts";
import {
  join,
  newOrganization,
  orgCall,
  verifiedUser,
} from "../../../test/helpers/organizations.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

let t: TestServer;
let owner: TestUser;
let org: { id: string; slug: string };
let admin: TestUser;
let member: TestUser;
let stranger: TestUser;
beforeAll(async () => {
  t = await startTestServer({
    env: { AUTH_ORGANIZATION_MAX_TEAMS: "3", AUTH_TEAM_MAX_MEMBERS: "1" },
  });
  owner = await signUp(t.url);
  org = await newOrganization(t.url, owner, "Teams");
  admin = await join(t.url, t.server.database, owner, org.id, "admin");
  member = await join(t.url, t.server.database, owner, org.id, "member");
  stranger = await signUp(t.url);
});
afterAll(() => t?.stop());

describe("teams", () => {
  it("an admin creates, renames and deletes a team; a member cannot create one", async () => {
    const created = await orgCall(t.url, admin, "create-team", {
      organizationId: org.id,
      name: "Support",
    });
    expect(created.status).toBe(200);
    expect(
      (
        await orgCall(t.url, admin, "update-team", {
          teamId: created.body.id,
          data: { name: "Help desk", organizationId: org.id },
        })
      ).status,
    ).toBe(200);
    const denied = await orgCall(t.url, member, "create-team", {
      organizationId: org.id,
      name: "Mine",
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION",
    });
    expect(
      (
        await orgCall(t.url, admin, "remove-team", {
          teamId: created.body.id,
          organizationId: org.id,
        })
      ).status,
    ).toBe(200);
    const gone = await orgCall(t.url, admin, "update-team", {
      teamId: created.body.id,
      data: { name: "Again" },
    });
    expect(gone.body).toMatchObject({ code: "TEAM_NOT_FOUND", message: "Team not found" });
  });

  it("a team name needs at least one character", async () => {
    for (const name of ["", "   "]) {
      const res = await orgCall(t.url, owner, "create-team", { organizationId: org.id, name });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: "INVALID_TEAM_NAME",
        message: "Team name must be at least 1 character",
      });
    }
  });

  it("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS (AUTH_ORGANIZATION_MAX_TEAMS=3) and TEAM_MEMBER_LIMIT_REACHED (AUTH_TEAM_MAX_MEMBERS=1)", async () => {
    const own = await newOrganization(t.url, owner, "Teams");
    const teams = await orgCall(t.url, owner, `list-teams?organizationId=${own.id}`);
    const first =
      teams.body[0] ??
      (await orgCall(t.url, owner, "create-team", { organizationId: own.id, name: "T0" })).body;
    let last = { status: 200, body: {} as Record<string, unknown> };
    for (let i = 1; i <= 3 && last.status === 200; i++)
      last = await orgCall(t.url, owner, "create-team", { organizationId: own.id, name: `T${i}` });
    expect(last.status).toBe(400);
    expect(last.body).toMatchObject({ code: "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS" });

    const helper = await join(t.url, t.server.database, owner, own.id, "member");
    expect(
      (
        await orgCall(t.url, owner, "add-team-member", {
          teamId: first.id,
          userId: owner.id,
          organizationId: own.id,
        })
      ).status,
    ).toBe(200);
    const full = await orgCall(t.url, owner, "add-team-member", {
      teamId: first.id,
      userId: helper.id,
      organizationId: own.id,
    });
    expect(full.status).toBe(403);
    expect(full.body).toMatchObject({ code: "TEAM_MEMBER_LIMIT_REACHED" });
  });
});

describe("team members", () => {
  let team: { id: string };
  beforeAll(async () => {
    team = (await orgCall(t.url, owner, "create-team", { organizationId: org.id, name: "Core" }))
      .body;
    const added = await orgCall(t.url, owner, "add-team-member", {
      teamId: team.id,
      userId: owner.id,
      organizationId: org.id,
    });
    expect(added.status).toBe(200);
  });

  it("list-team-members: a team member lists it; YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM, TEAM_NOT_FOUND, USER_IS_NOT_A_MEMBER_OF_THE_TEAM", async () => {
    const listed = await orgCall(t.url, owner, `list-team-members?teamId=${team.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((m: { userId: string }) => m.userId)).toEqual([owner.id]);
    // Creating an organization made the owner's session active in its default team; the outsider has none.
    const noTeam = await orgCall(t.url, stranger, "list-team-members");
    expect(noTeam.status).toBe(400);
    expect(noTeam.body).toMatchObject({
      code: "YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM",
      message: "You do not have an active team",
    });
    const unknown = await orgCall(t.url, owner, `list-team-members?teamId=${UNKNOWN_ID}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "TEAM_NOT_FOUND", message: "Team not found" });
    // Both an organization member outside the team and an outsider get the same 400.
    for (const user of [member, stranger]) {
      const res = await orgCall(t.url, user, `list-team-members?teamId=${team.id}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: "USER_IS_NOT_A_MEMBER_OF_THE_TEAM",
        message: "User is not a member of the team",
      });
    }
  });

  it("add-team-member and remove-team-member need member:update / member:delete", async () => {
    const add = await orgCall(t.url, member, "add-team-member", {
      teamId: team.id,
      userId: member.id,
      organizationId: org.id,
    });
    expect(add.status).toBe(403);
    expect(add.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER",
      message: "You are not allowed to create a new member",
    });
    const remove = await orgCall(t.url, member, "remove-team-member", {
      teamId: team.id,
      userId: owner.id,
      organizationId: org.id,
    });
    expect(remove.status).toBe(403);
    expect(remove.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER",
      message: "You are not allowed to remove a team member",
    });
    const rows = await t.server.database.rows(
      sql`select user_id from team_member where team_id = ${team.id}`,
    );
    expect(rows).toEqual([{ user_id: owner.id }]);
  });

  it("remove-team-member: USER_IS_NOT_A_MEMBER_OF_THE_TEAM and USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", async () => {
    const notInTeam = await orgCall(t.url, owner, "remove-team-member", {
      teamId: team.id,
      userId: member.id,
      organizationId: org.id,
    });
    expect(notInTeam.status).toBe(400);
    expect(notInTeam.body).toMatchObject({ code: "USER_IS_NOT_A_MEMBER_OF_THE_TEAM" });
    const outsiderTarget = await orgCall(t.url, owner, "remove-team-member", {
      teamId: team.id,
      userId: stranger.id,
      organizationId: org.id,
    });
    expect(outsiderTarget.status).toBe(400);
    expect(outsiderTarget.body).toMatchObject({
      code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
      message: "User is not a member of the organization",
    });
    const outsiderCaller = await orgCall(t.url, stranger, "remove-team-member", {
      teamId: team.id,
      userId: owner.id,
      organizationId: org.id,
    });
    expect(outsiderCaller.status).toBe(400);
    expect(outsiderCaller.body).toMatchObject({ code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
  });

  it("set-active-team: NO_ACTIVE_ORGANIZATION without an active organization, USER_IS_NOT_A_MEMBER_OF_THE_TEAM outside the team", async () => {
    const fresh = await join(t.url, t.server.database, owner, org.id, "member");
    // Accepting the invitation made the organization active; clear it.
    expect((await orgCall(t.url, fresh, "set-active", { organizationId: null })).status).toBe(200);
    const noOrg = await orgCall(t.url, fresh, "set-active-team", { teamId: team.id });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body).toMatchObject({
      code: "NO_ACTIVE_ORGANIZATION",
      message: "No active organization",
    });
    expect((await orgCall(t.url, fresh, "set-active", { organizationId: org.id })).status).toBe(
      200,
    );
    const notInTeam = await orgCall(t.url, fresh, "set-active-team", { teamId: team.id });
    expect(notInTeam.status).toBe(403);
    expect(notInTeam.body).toMatchObject({ code: "USER_IS_NOT_A_MEMBER_OF_THE_TEAM" });
  });
});

describe("team permissions and ids", () => {
  it("a member may not update or delete a team; an outsider may neither delete nor list teams", async () => {
    const team = (
      await orgCall(t.url, owner, "create-team", { organizationId: org.id, name: "Ops" })
    ).body;
    const update = await orgCall(t.url, member, "update-team", {
      teamId: team.id,
      data: { name: "Mine", organizationId: org.id },
    });
    expect(update.status).toBe(403);
    expect(update.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM",
      message: "You are not allowed to update this team",
    });
    const del = await orgCall(t.url, member, "remove-team", {
      teamId: team.id,
      organizationId: org.id,
    });
    expect(del.status).toBe(403);
    expect(del.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION",
    });
    const outsiderDelete = await orgCall(t.url, stranger, "remove-team", {
      teamId: team.id,
      organizationId: org.id,
    });
    expect(outsiderDelete.status).toBe(403);
    expect(outsiderDelete.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM",
      message: "You are not allowed to delete this team",
    });
    const outsiderList = await orgCall(t.url, stranger, `list-teams?organizationId=${org.id}`);
    expect(outsiderList.status).toBe(403);
    expect(outsiderList.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION",
    });
    expect(
      (await orgCall(t.url, owner, "remove-team", { teamId: team.id, organizationId: org.id }))
        .status,
    ).toBe(200);
  });

  it("INVALID_TEAM_ID: an invitation naming a team id with a comma (the separator of stored team ids) is refused", async () => {
    const target = await verifiedUser(t.url, t.server.database);
    const res = await orgCall(t.url, owner, "invite-member", {
      email: target.email,
      role: "member",
      organizationId: org.id,
      teamId: `${UNKNOWN_ID},${UNKNOWN_ID}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "INVALID_TEAM_ID",
      message: "Team id contains a reserved character",
    });
    expect(
      await t.server.database.rows(sql`select 1 from invitation where email = ${target.email}`),
    ).toHaveLength(0);
  });

  it("the last team may be removed too (allowRemovingAllTeams), so UNABLE_TO_REMOVE_LAST_TEAM never answers; but not one's active team", async () => {
    const own = await newOrganization(t.url, owner, "Lonely");
    const teams = (await orgCall(t.url, owner, `list-teams?organizationId=${own.id}`)).body as {
      id: string;
    }[];
    expect(teams).toHaveLength(1); // the default team, which creating the organization made active
    const active = await orgCall(t.url, owner, "remove-team", {
      teamId: teams[0]!.id,
      organizationId: own.id,
    });
    expect(active.status).toBe(403);
    expect(active.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM" });
    expect((await orgCall(t.url, owner, "set-active-team", { teamId: null })).status).toBe(200);
    expect(
      (await orgCall(t.url, owner, "remove-team", { teamId: teams[0]!.id, organizationId: own.id }))
        .status,
    ).toBe(200);
    expect((await orgCall(t.url, owner, `list-teams?organizationId=${own.id}`)).body).toEqual([]);
  });
});
